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

use crate::job::slot_layout::{TREE_WORDS, W_FLAGS, W_MSG_FLAGS, W_TREE};
use crate::runtime::{
    add_to_tagged_count, tagged_count, FlagWord, Runtime, CENTRAL_ARRIVALS, CENTRAL_RELEASE,
};
use crate::team::host_groups::{HostGroups, Shape, TREE_REDUCTIONS_FROM};
use crate::team::tree;
use crate::team::TeamInner;

/// Up to this many host leaders meet directly (each signals each: one network step); more
/// meet by dissemination (ceil(log2 L) steps).
const DIRECT_LEADERS: usize = 8;
/// Bits of a flag value below the epoch: the chunk of a reduction.
pub(crate) const CHUNK_BITS: u32 = 28;

/// Distances `2^k` a leaders' tree spans: up to 2^32 hosts.
const DISTANCES: usize = 32;
/// The signals of the leaders' trees (`coll::hier::wide` and [`tree_sync`]): slot words
/// raised by the leader `2^j` groups after this one (`+ j`: its child in a tree), indexed by
/// distance so that each has one writer whatever the tree's root.
pub(crate) const FROM_BELOW: usize = W_TREE;
/// Words raised by the leader `2^k` groups before this one (`+ k`: its parent in a tree).
pub(crate) const FROM_ABOVE: usize = W_TREE + DISTANCES;
const _: () = assert!(FROM_ABOVE + DISTANCES <= W_TREE + TREE_WORDS);

/// The forms of a team sync (the leaders' part).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SyncForm {
    /// Over fewer hosts the leaders meet ([`Op::meet`]: each signals each).
    Meet,
    /// Up and down the leaders' tree ([`tree_sync`]): 2 (L - 1) messages where dissemination
    /// sends L ceil(log2 L). Over 64 simulated hosts x 1 PE a barrier took 7.7-10.7 ms so
    /// against 13.7-14.5 by dissemination (`bench/c/coll_bench.c 8 3`, two alternations):
    /// there every message costs CPU time of the 2 cores that all the hosts share.
    Tree,
}

/// A team sync's form, the one place where it is chosen: the tree from as many hosts as the
/// reductions take it ([`TREE_REDUCTIONS_FROM`], where it was measured), or from
/// `FSH_HIER_TREES_FROM` hosts (as the tests run the trees on a few hosts). The same on every
/// member.
pub(crate) fn sync_form(shape: &Shape) -> SyncForm {
    let forced = shape.trees_from.is_some_and(|from| shape.hosts >= from);
    if shape.hosts >= TREE_REDUCTIONS_FROM || forced {
        SyncForm::Tree
    } else {
        SyncForm::Meet
    }
}

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

    /// Waits until group `g`'s flag on this leader reaches `value`.
    pub(crate) fn wait_flag(&self, g: usize, value: u64) {
        self.wait_from_hosts(W_FLAGS + g, value);
    }

    /// Waits until word `w` of this PE's own slot reaches `value`, a word that only leaders
    /// of other hosts raise, by the network: the wait sleeps on the worker
    /// (`Runtime::wait_until_remote`).
    fn wait_from_hosts(&self, w: usize, value: u64) {
        let word = self.word(self.rt.my_pe, w);
        self.rt.wait_until_remote(|| word.load(Ordering::Acquire) >= value);
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

    /// Waits until group `g`'s message flag of staged exchange `exchange` on this leader
    /// reaches `value`.
    pub(crate) fn wait_msg_flag(&self, g: usize, exchange: u64, value: u64) {
        self.wait_from_hosts(msg_flag(g, exchange), value);
    }

    /// Waits until every other group's message flag of staged exchange `exchange` on this PE
    /// reaches `value`.
    pub(crate) fn wait_msg_flags(&self, exchange: u64, value: u64) {
        for g in self.groups.others() {
            self.wait_msg_flag(g, exchange, value);
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
                self.wait_flag(g, v);
            }
            return;
        }
        // Dissemination over the leaders, in the sync words of the slot (epochs only).
        let me = self.groups.mine();
        let (mut dist, mut round) = (1usize, 0usize);
        while dist < l {
            let to = self.leader_of((me + dist) % l);
            self.rt.store_slot_word(self.routine, to, self.team.slot, round, self.epoch);
            self.wait_from_hosts(round, self.epoch);
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
    // completed the program's); more go up and down the tree. Only the meeting takes a staged
    // exchange: every member takes the same ones (the credits count them).
    let form = sync_form(&Shape::of(groups));
    let meeting = if form == SyncForm::Meet { op.take_meeting() } else { None };
    if !op.is_leader() {
        let leader = op.my_leader();
        op.arrive(leader);
        op.wait_release(leader);
        return;
    }
    op.wait_arrivals(op.local_others());
    match form {
        SyncForm::Tree => tree_sync(&op),
        SyncForm::Meet => op.meet(meeting),
    }
    op.release();
}

/// Sync among the leaders: up a tree rooted at group 0 (each leader waits for its children's
/// "arrived", then raises its parent's), then down it (each raises its children's "go").
/// 2 (L - 1) empty messages in 2 ceil(log2 L) steps, where dissemination sends L ceil(log2 L).
fn tree_sync(op: &Op<'_>) {
    let (l, v) = (op.groups.len(), op.groups.mine());
    for j in tree::children(v, l) {
        op.wait_raised(FROM_BELOW + j as usize);
    }
    if let Some(k) = tree::parent(v) {
        op.raise(v - (1 << k), FROM_BELOW + k as usize);
        op.wait_raised(FROM_ABOVE + k as usize);
    }
    for j in tree::children(v, l).rev() {
        op.raise(v + (1 << j), FROM_ABOVE + j as usize);
    }
}

impl Op<'_> {
    /// Raises word `w` on the leader of group `g` (of another host) to at least this
    /// operation's value: an empty flagged message.
    pub(crate) fn raise(&self, g: usize, w: usize) {
        self.rt.put_stage_flagged(
            self.routine,
            self.leader_of(g),
            self.team.slot,
            0,
            &[],
            FlagWord::Slot(w),
            self.flag_value(0),
        );
    }

    /// Waits until this leader's word `w` reaches this operation's value.
    pub(crate) fn wait_raised(&self, w: usize) {
        self.wait_from_hosts(w, self.flag_value(0));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syncs_take_the_tree_from_five_hosts() {
        assert_eq!(sync_form(&Shape::uniform(2, 2)), SyncForm::Meet);
        assert_eq!(sync_form(&Shape::uniform(4, 2)), SyncForm::Meet);
        assert_eq!(sync_form(&Shape::uniform(5, 1)), SyncForm::Tree);
        assert_eq!(sync_form(&Shape::uniform(64, 1)), SyncForm::Tree);
        assert_eq!(sync_form(&Shape { trees_from: Some(2), ..Shape::uniform(2, 2) }), SyncForm::Tree);
    }
}
