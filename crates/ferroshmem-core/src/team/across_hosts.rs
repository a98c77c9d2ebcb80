//! What a team whose members span hosts does and keeps below the collectives: its sync
//! ([`sync`]: the members of each host arrive at their leader, the leaders meet, each leader
//! releases its host), the operation that sync is made of ([`Op`]: arrivals at a hub and its
//! release, flags and staged messages between leaders, the leaders' meeting), on which
//! `coll::hier` builds the collectives of such teams (its own steps in `impl Op` blocks
//! there), and the counters of the team's ring of small broadcasts ([`BroadcastRing`]).
//!
//! Here, in the team layer, and not in `coll`, because a team's own sync
//! (`TeamInner::sync_unchecked`) and its state need them, and the teams are below the
//! collectives (issue 30: `team` called `coll::hier::sync` and embedded its ring). The slot
//! words, flags, staged exchanges and credits are described in `coll::hier`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::job::slot_layout::{W_FLAGS, W_MSG_FLAGS};
use crate::runtime::{
    add_to_tagged_count, tagged_count, FlagWord, Runtime, CENTRAL_ARRIVALS, CENTRAL_RELEASE,
};
use crate::team::host_groups::HostGroups;
use crate::team::TeamInner;

/// Up to this many host leaders meet directly (each signals each: one network step); more
/// meet by dissemination (ceil(log2 L) steps).
const DIRECT_LEADERS: usize = 8;
/// Bits of a flag value below the epoch: the chunk of a reduction.
pub(crate) const CHUNK_BITS: u32 = 28;

/// One hierarchical operation (a sync, or a collective of `coll::hier`) as this PE takes part
/// in it.
pub(crate) struct Op<'a> {
    pub(crate) rt: &'a Runtime,
    pub(crate) team: &'a TeamInner,
    pub(crate) groups: &'a HostGroups,
    pub(crate) routine: &'static str,
    /// The operation's epoch (the team's, taken by every member alike).
    pub(crate) epoch: u64,
    /// The waits for words that only PEs of this host write (arrivals, the release, the
    /// members' done) leave the network to the progress thread (`Runtime::wait_until_local`):
    /// in every collective where only leaders use the network. Not in an alltoall, where
    /// every PE sends and receives its own blocks: standing aside measured slower there
    /// (docs/ARCHITECTURE.md).
    pub(crate) local_waits: bool,
}

impl<'a> Op<'a> {
    /// The team's next collective operation, one where only leaders use the network.
    pub(crate) fn new(
        rt: &'a Runtime,
        team: &'a TeamInner,
        groups: &'a HostGroups,
        routine: &'static str,
    ) -> Self {
        Op { rt, team, groups, routine, epoch: team.next_epoch(), local_waits: true }
    }

    pub(crate) fn pe(&self, i: usize) -> usize {
        self.team.pes.world_pe(i)
    }

    /// World PE of group `g`'s leader.
    pub(crate) fn leader_of(&self, g: usize) -> usize {
        self.pe(self.groups.leader(g))
    }

    /// World PE of this host's leader.
    pub(crate) fn my_leader(&self) -> usize {
        self.leader_of(self.groups.mine())
    }

    pub(crate) fn is_leader(&self) -> bool {
        self.groups.leader(self.groups.mine()) == self.team.my_index
    }

    /// The other members of this host.
    pub(crate) fn local_others(&self) -> u64 {
        self.groups.members(self.groups.mine()).len() as u64 - 1
    }

    /// Word `w` of the team's slot on `pe`, a PE of this host.
    pub(crate) fn word(&self, pe: usize, w: usize) -> &'a AtomicU64 {
        &self.rt.ctrl.slot(pe, self.team.slot)[w]
    }

    pub(crate) fn flag_value(&self, chunk: u64) -> u64 {
        (self.epoch << CHUNK_BITS) | chunk
    }

    /// Tells `hub` that this PE entered: its source is ready, or its part is written.
    pub(crate) fn arrive(&self, hub: usize) {
        add_to_tagged_count(self.word(hub, CENTRAL_ARRIVALS), self.epoch);
        self.rt.notify(hub);
    }

    /// On a hub: waits until `count` local members have arrived.
    pub(crate) fn wait_arrivals(&self, count: u64) {
        self.wait_count(CENTRAL_ARRIVALS, count);
    }

    /// Waits until word `w` of `owner`'s slot (a PE of this host) reaches `value`: every word
    /// these collectives wait on only grows.
    pub(crate) fn wait_word(&self, owner: usize, w: usize, value: u64) {
        let word = self.word(owner, w);
        self.rt.wait_until(owner, || word.load(Ordering::Acquire) >= value);
    }

    /// On a hub: waits until the tagged count in its word `w` reaches `count` for this epoch.
    pub(crate) fn wait_count(&self, w: usize, count: u64) {
        if count > 0 {
            self.wait_host_word(self.rt.my_pe, w, tagged_count(self.epoch, count));
        }
    }

    /// [`Self::wait_word`] for a word that only PEs of this host write (see `local_waits`).
    fn wait_host_word(&self, owner: usize, w: usize, value: u64) {
        if self.local_waits {
            let word = self.word(owner, w);
            self.rt.wait_until_local(owner, || word.load(Ordering::Acquire) >= value);
        } else {
            self.wait_word(owner, w, value);
        }
    }

    /// On a hub: lets the local members go on (what they wait for is in place).
    pub(crate) fn release(&self) {
        self.word(self.rt.my_pe, CENTRAL_RELEASE).store(self.epoch, Ordering::Release);
        self.rt.notify(self.rt.my_pe);
    }

    pub(crate) fn wait_release(&self, hub: usize) {
        self.wait_host_word(hub, CENTRAL_RELEASE, self.epoch);
    }

    /// Raises this group's flag on world PE `pe` (of another host) to `value`. The caller
    /// fenced after the data that the flag announces.
    pub(crate) fn signal(&self, pe: usize, value: u64) {
        self.rt.store_slot_word(self.routine, pe, self.team.slot, W_FLAGS + self.groups.mine(), value);
    }

    /// Waits until group `g`'s flag on `owner` (a PE of this host) reaches `value`.
    pub(crate) fn wait_flag(&self, owner: usize, g: usize, value: u64) {
        self.wait_word(owner, W_FLAGS + g, value);
    }

    /// Sends `bytes` to `offset` of world PE `pe`'s staging area (a PE of another host) and
    /// raises this group's message flag of staged exchange `exchange` there to `value`, in
    /// one message. Every sender waited for the exchange's credit first (see
    /// [`Self::wait_credit`]).
    pub(crate) fn send_staged(&self, pe: usize, exchange: u64, offset: usize, bytes: &[u8], value: u64) {
        self.rt.put_stage_flagged(
            self.routine,
            pe,
            self.team.slot,
            offset,
            bytes,
            FlagWord::Slot(msg_flag(self.groups.mine(), exchange)),
            value,
        );
    }

    /// Waits until group `g`'s message flag of staged exchange `exchange` on `owner` (a PE of
    /// this host) reaches `value`.
    pub(crate) fn wait_msg_flag(&self, owner: usize, g: usize, exchange: u64, value: u64) {
        self.wait_word(owner, msg_flag(g, exchange), value);
    }

    /// Waits until every other group's message flag of staged exchange `exchange` on this PE
    /// reaches `value`.
    pub(crate) fn wait_msg_flags(&self, exchange: u64, value: u64) {
        for g in self.groups.others() {
            self.wait_msg_flag(self.rt.my_pe, g, exchange, value);
        }
    }

    /// Waits for the credit of staged exchange `exchange` (`credit` from
    /// `TeamInner::take_staged_exchanges`): every other group's message flag of the previous
    /// exchange on this PE shows that its host entered that exchange, so it finished reading
    /// the one before, the last to use the half (and the flag words) that this exchange writes.
    /// Hence no two messages of one parity from one group to one PE are ever in flight at
    /// once, and a flag of an exchange's parity that reaches its value means this exchange's
    /// data, whatever order messages arrive in.
    pub(crate) fn wait_credit(&self, exchange: u64, credit: u64) {
        if credit > 0 {
            self.wait_msg_flags(exchange - 1, credit);
        }
    }

    /// Takes (on every member alike) the staged exchange through which the leaders will meet
    /// by empty messages, when there are at most [`DIRECT_LEADERS`] of them; `None`: they
    /// meet by dissemination. For [`Self::meet`].
    pub(crate) fn take_meeting(&self) -> Option<(u64, u64)> {
        self.meets_directly().then(|| self.team.take_staged_exchanges(1, self.flag_value(0)))
    }

    /// Whether the leaders meet directly (each signals each) rather than by dissemination: up
    /// to [`DIRECT_LEADERS`].
    fn meets_directly(&self) -> bool {
        self.groups.len() <= DIRECT_LEADERS
    }

    /// The leaders meet, by empty messages of staged exchange `direct` (its number and
    /// credit, from [`Self::take_meeting`]) when there is one, else by [`Self::leaders_meet`].
    pub(crate) fn meet(&self, direct: Option<(u64, u64)>) {
        match direct {
            Some((exchange, credit)) => {
                let entered = self.flag_value(0);
                self.wait_credit(exchange, credit);
                for g in self.groups.others() {
                    self.send_staged(self.leader_of(g), exchange, 0, &[], entered);
                }
                self.wait_msg_flags(exchange, entered);
            }
            None => self.leaders_meet(),
        }
    }

    /// The leaders meet: returns once every leader has called it for this epoch (and so, in a
    /// sync, every member has arrived). Flags after a fence, so they follow this PE's earlier
    /// traffic.
    fn leaders_meet(&self) {
        let l = self.groups.len();
        self.rt.fence();
        if self.meets_directly() {
            let v = self.flag_value(0);
            for g in self.groups.others() {
                self.signal(self.leader_of(g), v);
            }
            for g in self.groups.others() {
                self.wait_flag(self.rt.my_pe, g, v);
            }
            return;
        }
        // Dissemination over the leaders, in the sync words of the slot (epochs only).
        let me = self.groups.mine();
        let (mut dist, mut round) = (1usize, 0usize);
        while dist < l {
            let to = self.leader_of((me + dist) % l);
            self.rt.store_slot_word(self.routine, to, self.team.slot, round, self.epoch);
            self.wait_word(self.rt.my_pe, round, self.epoch);
            dist <<= 1;
            round += 1;
            self.rt.fence();
        }
    }
}

/// The slot word of group `g`'s message flag for staged exchanges of `exchange`'s parity.
fn msg_flag(g: usize, exchange: u64) -> usize {
    W_MSG_FLAGS + 2 * g + (exchange & 1) as usize
}

/// Team sync: the members of each host arrive at their leader, the leaders meet, each leader
/// releases its host. Every member first completes its own network operations (quiet), so the
/// sync orders them as it orders stores on one host.
pub(crate) fn sync(rt: &Runtime, team: &TeamInner, groups: &HostGroups, epoch: u64) {
    rt.quiet();
    let op = Op { rt, team, groups, routine: "shmem_team_sync", epoch, local_waits: true };
    // Up to DIRECT_LEADERS leaders meet by empty flagged messages, as a staged exchange
    // without data (no fence: a sync carries no data of its own, and the quiet above
    // completed the program's); more meet by dissemination.
    let meeting = op.take_meeting();
    if !op.is_leader() {
        let leader = op.my_leader();
        op.arrive(leader);
        op.wait_release(leader);
        return;
    }
    op.wait_arrivals(op.local_others());
    op.meet(meeting);
    op.release();
}

/// Entries of the rings of small broadcasts (`coll::hier`'s `broadcast_ring`). Eight, with a
/// credit every four broadcasts: across 4 simulated hosts x 2 PEs an 8-byte broadcast took
/// 36 us against 44-46 with four entries and a credit every two (both orders of an A/B).
pub(crate) const RING_ENTRIES: usize = 8;

/// What a PE knows of its team's rings of small broadcasts (`coll::hier`'s
/// `broadcast_ring`); every member counts and records alike. Plain state that the team keeps
/// (`TeamInner::broadcast_ring`), made at the ring's first use.
#[derive(Debug)]
pub(crate) struct BroadcastRing {
    /// Small broadcasts so far (which entry is next).
    pub(crate) taken: AtomicU64,
    /// The epoch of the latest broadcast that used each entry.
    pub(crate) epochs: [AtomicU64; RING_ENTRIES],
    /// `[e * groups + g]`: the epoch of the latest broadcast that wrote entry `e` of group
    /// `g`'s network ring (one whose root was on another host).
    pub(crate) written: Box<[AtomicU64]>,
    /// On a leader: whether it read an entry of its network ring since it last sent its credit.
    pub(crate) unreported: AtomicBool,
}

impl BroadcastRing {
    pub(crate) fn new(groups: usize) -> Self {
        BroadcastRing {
            taken: AtomicU64::new(0),
            epochs: Default::default(),
            written: (0..RING_ENTRIES * groups).map(|_| AtomicU64::new(0)).collect(),
            unreported: AtomicBool::new(false),
        }
    }
}
