//! Syncs and collectives of teams whose members span hosts, in two levels: shared memory
//! among the members of one host, the network only between hosts, and there (alltoall
//! excepted) only between the *leaders* of the hosts (a host's first member in team order,
//! see `team::host_groups`). A team within one host never comes here.
//!
//! Within a host a collective meets at a *hub* (the host's leader; in a broadcast, the root on
//! the root's host) through three words of the hub's team slot: the local members' arrivals
//! (`CENTRAL_ARRIVALS`, a tagged count), the hub's release (`CENTRAL_RELEASE`, an epoch) and
//! the local members that are done reading the hub's buffers ([`W_DONE`], a tagged count: the
//! hub returns only then, so that its buffers may be reused on return).
//!
//! Between hosts a leader raises its group's *flags* on the receiver to the collective's
//! epoch (`epoch << CHUNK_BITS | step`), in words of the slot for teams across hosts
//! (`team::slot_layout::SLOT_HOST_WORDS`, where only epochs are ever written). Only one group's leader
//! writes a given word, and flags only grow, so "flag >= value" means "everything of this
//! collective (and step) from that group has landed". Two kinds, in separate words: *put
//! flags* ([`W_FLAGS`]), a put after a fence (a large broadcast's "entered", the dissemination
//! sync); and *message flags* ([`W_MSG_FLAGS`], one per parity of staged exchange), raised by
//! a flagged message that also carries the data (`Runtime::put_stage_flagged`): one send
//! instead of three. Large payloads go as *counted messages* straight into destinations, each
//! adding one to the receiver's [`W_COUNTED`].
//!
//! Nothing is written into another PE's destination before that PE has entered the
//! collective (programs reuse a destination in back-to-back collectives, as on one host):
//! within a host a writer waits for the owner's [`super::W_ENTER`]; between hosts
//! small payloads go into the receiver's *staging area* instead, and larger ones wait until
//! the leaders met (or, in a broadcast, the receiving leaders said "entered"). Staged exchanges are numbered
//! by the team's count, which every member counts alike, and alternate two halves of the
//! staging area and the two message flags of each group. In every staged exchange each leader
//! sends at least one message to every other leader, after its host's members entered; and
//! before sending in exchange k a leader waits until every other group's message flag of
//! exchange k - 1 shows that it entered k - 1 (the *credit*, [`Op::wait_credit`]), so it had
//! finished reading exchange k - 2, the last to use the half and the words that k writes.
#![allow(unsafe_code)]

mod wide;
pub(crate) use wide::{partners as wide_partners, trees_only};
use wide::{takes_trees, Collective};

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::across::check_own;
use super::{at, combine, copy, ReduceOp, HIER_STAGE_BYTES, SHARED_STAGE_BYTES, W_ENTER};
use crate::error::{Error, Result};
use crate::runtime::{
    add_to_tagged_count, counted_messages, tagged_count, FlagWord, Runtime, CENTRAL_ARRIVALS, CENTRAL_RELEASE,
};
use crate::team::host_groups::HostGroups;
use crate::team::TeamInner;

// The slot words of teams across hosts (`slot_layout::SLOT_HOST_WORDS`..): epochs and
// epoch-tagged counts only. `W_COUNTED` counts the counted messages this PE received
// (`Runtime::put_counted`: large payloads sent straight into destinations, each message
// adding one); it only grows, a collective reads it before it enters (no message of that
// collective can have come yet) and waits until it grew by the number it expects.
pub(crate) use crate::team::slot_layout::MAX_GROUPS;
use crate::team::slot_layout::{W_COUNTED, W_DONE, W_FLAGS, W_MSG_FLAGS};
/// Broadcasts up to this size go through the staging areas, half an area per chunk (each
/// chunk a staged exchange, so the root's leader sends chunk c + 1 while the others copy
/// chunk c); larger ones go straight into the destinations once the receiving leaders
/// entered.
const STAGED_BROADCAST_MAX: usize = 4 * STAGE_HALF;
/// Results up to this size are copied by the leader into its host's members' destinations
/// (one copy each, no reply) instead of being read by them from the leader's (which then
/// waits for each member to say it is done: two more hand-overs between PEs of a host).
const PUSH_MAX: usize = 32 << 10;
/// Bits of a flag value below the epoch: the chunk of a reduction.
const CHUNK_BITS: u32 = 28;
/// Up to this many host leaders meet directly (each signals each: one network step); more
/// meet by dissemination (ceil(log2 L) steps).
const DIRECT_LEADERS: usize = 8;
/// Entries of the rings of small broadcasts (see [`broadcast_ring`]). Eight, with a credit
/// every four broadcasts: across 4 simulated hosts x 2 PEs an 8-byte broadcast took 36 us
/// against 44-46 with four entries and a credit every two (both orders of an A/B).
pub(crate) const RING_ENTRIES: usize = 8;
/// Bytes of an entry of the rings: the largest broadcast that takes them.
const RING_ENTRY_BYTES: usize = 4 << 10;
/// A leader tells its parent in the latest broadcast's tree how far it read its network ring
/// after every this many small broadcasts, if it read any since it last did (see
/// [`broadcast_ring`]).
const RING_CREDIT_EVERY: u64 = RING_ENTRIES as u64 / 2;
// The rings' header, words of the staging area after `SHARED_STAGE_BYTES`, then the rings.
/// Staging-area word of group `g`'s credit (`+ g`) on a leader, raised by messages only.
const RING_CREDIT_WORD: usize = SHARED_STAGE_BYTES / 8;
/// Staging-area word of entry `e`'s flag (`+ e`) in a leader's network ring, raised by
/// messages only.
const RING_FLAG_WORD: usize = RING_CREDIT_WORD + MAX_GROUPS;
/// Staging-area word of entry `e`'s tag (`+ e`) in a PE's local ring: the epoch of the
/// broadcast whose bytes it holds; written by its PE only.
const RING_TAG_WORD: usize = RING_FLAG_WORD + RING_ENTRIES;
/// Staging-area word of the epoch of the latest small broadcast that this PE finished (it
/// reads no entry of it any more); written by its PE only.
const RING_DONE_WORD: usize = RING_TAG_WORD + RING_ENTRIES;
/// Offset in the staging area of the network ring's first entry (after a page of header).
const NET_RING: usize = SHARED_STAGE_BYTES + 4096;
/// Offset in the staging area of the local ring's first entry.
const LOCAL_RING: usize = NET_RING + RING_ENTRIES * RING_ENTRY_BYTES;
const _: () = assert!((RING_DONE_WORD + 1) * 8 <= NET_RING);
const _: () = assert!(LOCAL_RING + RING_ENTRIES * RING_ENTRY_BYTES <= crate::job::STAGE_BYTES);
/// Half of the staging area that staged exchanges use (alternating halves; a reduction's half
/// holds one chunk from every group).
const STAGE_HALF: usize = HIER_STAGE_BYTES / 2;

/// One hierarchical operation as this PE takes part in it.
struct Op<'a> {
    rt: &'a Runtime,
    team: &'a TeamInner,
    groups: &'a HostGroups,
    routine: &'static str,
    epoch: u64,
    /// The waits for words that only PEs of this host write (arrivals, the release, the
    /// members' done) leave the network to the progress thread (`Runtime::wait_until_local`):
    /// in every collective where only leaders use the network. Not in an alltoall, where
    /// every PE sends and receives its own blocks: standing aside measured slower there
    /// (docs/ARCHITECTURE.md).
    local_waits: bool,
}

impl<'a> Op<'a> {
    /// The team's next collective operation, one where only leaders use the network.
    fn new(rt: &'a Runtime, team: &'a TeamInner, groups: &'a HostGroups, routine: &'static str) -> Self {
        Op { rt, team, groups, routine, epoch: team.next_epoch(), local_waits: true }
    }

    /// The team's next collective operation, one where every PE uses the network (alltoall).
    fn every_pe_sends(
        rt: &'a Runtime,
        team: &'a TeamInner,
        groups: &'a HostGroups,
        routine: &'static str,
    ) -> Self {
        Op { local_waits: false, ..Op::new(rt, team, groups, routine) }
    }

    fn pe(&self, i: usize) -> usize {
        self.team.pes.world_pe(i)
    }

    /// World PE of group `g`'s leader.
    fn leader_of(&self, g: usize) -> usize {
        self.pe(self.groups.leader(g))
    }

    /// World PE of this host's leader.
    fn my_leader(&self) -> usize {
        self.leader_of(self.groups.mine())
    }

    fn is_leader(&self) -> bool {
        self.groups.leader(self.groups.mine()) == self.team.my_index
    }

    /// The other members of this host.
    fn local_others(&self) -> u64 {
        self.groups.members(self.groups.mine()).len() as u64 - 1
    }

    /// Word `w` of the team's slot on `pe`, a PE of this host.
    fn word(&self, pe: usize, w: usize) -> &'a AtomicU64 {
        &self.rt.ctrl.slot(pe, self.team.slot)[w]
    }

    fn flag_value(&self, chunk: u64) -> u64 {
        (self.epoch << CHUNK_BITS) | chunk
    }

    /// Tells `hub` that this PE entered: its source is ready, or its part is written.
    fn arrive(&self, hub: usize) {
        add_to_tagged_count(self.word(hub, CENTRAL_ARRIVALS), self.epoch);
        self.rt.notify(hub);
    }

    /// On a hub: waits until `count` local members have arrived.
    fn wait_arrivals(&self, count: u64) {
        self.wait_count(CENTRAL_ARRIVALS, count);
    }

    /// Waits until word `w` of `owner`'s slot (a PE of this host) reaches `value`: every word
    /// these collectives wait on only grows.
    fn wait_word(&self, owner: usize, w: usize, value: u64) {
        let word = self.word(owner, w);
        self.rt.wait_until(owner, || word.load(Ordering::Acquire) >= value);
    }

    /// On a hub: waits until the tagged count in its word `w` reaches `count` for this epoch.
    fn wait_count(&self, w: usize, count: u64) {
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
    fn release(&self) {
        self.word(self.rt.my_pe, CENTRAL_RELEASE).store(self.epoch, Ordering::Release);
        self.rt.notify(self.rt.my_pe);
    }

    fn wait_release(&self, hub: usize) {
        self.wait_host_word(hub, CENTRAL_RELEASE, self.epoch);
    }

    /// Tells `hub` that this PE no longer reads its buffers.
    fn done(&self, hub: usize) {
        add_to_tagged_count(self.word(hub, W_DONE), self.epoch);
        self.rt.notify(hub);
    }

    /// On a hub: waits until every other local member is done with its buffers.
    fn wait_done(&self) {
        self.wait_count(W_DONE, self.local_others());
    }

    /// Raises this group's flag on world PE `pe` (of another host) to `value`. The caller
    /// fenced after the data that the flag announces.
    fn signal(&self, pe: usize, value: u64) {
        self.rt.store_slot_word(self.routine, pe, self.team.slot, W_FLAGS + self.groups.mine(), value);
    }

    /// Waits until group `g`'s flag on `owner` (a PE of this host) reaches `value`.
    fn wait_flag(&self, owner: usize, g: usize, value: u64) {
        self.wait_word(owner, W_FLAGS + g, value);
    }

    /// Sends `bytes` to `offset` of world PE `pe`'s staging area (a PE of another host) and
    /// raises this group's message flag of staged exchange `exchange` there to `value`, in
    /// one message. Every sender waited for the exchange's credit first (see
    /// [`Self::wait_credit`]).
    fn send_staged(&self, pe: usize, exchange: u64, offset: usize, bytes: &[u8], value: u64) {
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
    fn wait_msg_flag(&self, owner: usize, g: usize, exchange: u64, value: u64) {
        self.wait_word(owner, msg_flag(g, exchange), value);
    }

    /// Waits until every other group's message flag of staged exchange `exchange` on this PE
    /// reaches `value`.
    fn wait_msg_flags(&self, exchange: u64, value: u64) {
        for g in self.groups.others() {
            self.wait_msg_flag(self.rt.my_pe, g, exchange, value);
        }
    }

    /// Where group `g`'s part starts in a staged exchange that packs `unit` bytes per member,
    /// the groups in order (the same on every PE).
    fn packed_offset(&self, g: usize, unit: usize) -> usize {
        (0..g).map(|h| self.groups.members(h).len()).sum::<usize>() * unit
    }

    /// Publishes that this PE entered the collective: members of this host may now write into
    /// its destination.
    fn enter(&self) {
        self.word(self.rt.my_pe, W_ENTER).store(self.epoch, Ordering::Release);
        self.rt.notify(self.rt.my_pe);
    }

    /// Waits until `pe` (of this host) has entered the collective.
    fn wait_entered(&self, pe: usize) {
        self.wait_word(pe, W_ENTER, self.epoch);
    }

    /// On a leader, when `push` (a result of up to [`PUSH_MAX`] bytes): copies our `len`
    /// bytes at `dest` into the same place of every other local member's destination. Each
    /// has arrived in this operation, so its destination is free; it returns at our release
    /// without reading ours, so we need not wait for it to be done.
    fn push_to_members(&self, push: bool, dest: usize, len: usize) -> Result<()> {
        if !push {
            return Ok(());
        }
        for &m in self.groups.members(self.groups.mine()) {
            if m != self.team.my_index {
                let to = at(self.rt, self.routine, dest, len, self.pe(m))?;
                // SAFETY: member m arrived (its destination is free and written by us alone
                // until our release); ours is complete and unchanged meanwhile.
                unsafe { copy(to, dest, len) };
            }
        }
        Ok(())
    }

    /// On a leader: lets the local members go on; unless the result was pushed to them, waits
    /// until they are done reading our buffers.
    fn release_and_wait(&self, push: bool) {
        self.release();
        if !push {
            self.wait_done();
        }
    }

    /// Waits for the credit of staged exchange `exchange` (`credit` from
    /// `TeamInner::take_staged_exchanges`): every other group's message flag of the previous
    /// exchange on this PE shows that its host entered that exchange, so it finished reading
    /// the one before, the last to use the half (and the flag words) that this exchange writes.
    /// Hence no two messages of one parity from one group to one PE are ever in flight at
    /// once, and a flag of an exchange's parity that reaches its value means this exchange's
    /// data, whatever order messages arrive in.
    fn wait_credit(&self, exchange: u64, credit: u64) {
        if credit > 0 {
            self.wait_msg_flags(exchange - 1, credit);
        }
    }

    /// This PE's count of counted messages received ([`W_COUNTED`]); read before this PE
    /// enters a collective whose counted messages it will wait for.
    fn counted_base(&self) -> u64 {
        self.word(self.rt.my_pe, W_COUNTED).load(Ordering::Acquire)
    }

    /// Sends `len` bytes at `src` (ours) to `dest` on world PE `pe` of another host as
    /// counted messages (`Runtime::put_counted`); `pe` entered the collective, so `dest` is
    /// free there.
    fn send_counted(&self, pe: usize, dest: usize, src: usize, len: usize) -> Result<()> {
        // SAFETY: `src` lies in a buffer the caller checked, readable for `len`.
        unsafe { self.rt.put_counted(self.routine, pe, dest, src, len, self.team.slot, W_COUNTED) }
    }

    /// Waits until `messages` counted messages arrived since this PE read `base`.
    fn wait_counted(&self, base: u64, messages: usize) {
        self.wait_word(self.rt.my_pe, W_COUNTED, base + messages as u64);
    }

    /// Takes (on every member alike) the staged exchange through which the leaders will meet
    /// by empty messages, when there are at most [`DIRECT_LEADERS`] of them; `None`: they
    /// meet by dissemination. For [`Self::meet`].
    fn take_meeting(&self) -> Option<(u64, u64)> {
        self.meets_directly().then(|| self.team.take_staged_exchanges(1, self.flag_value(0)))
    }

    /// Whether the leaders meet directly (each signals each) rather than by dissemination: up
    /// to [`DIRECT_LEADERS`].
    fn meets_directly(&self) -> bool {
        self.groups.len() <= DIRECT_LEADERS
    }

    /// The leaders meet, by empty messages of staged exchange `direct` (its number and
    /// credit, from [`Self::take_meeting`]) when there is one, else by [`Self::leaders_meet`].
    fn meet(&self, direct: Option<(u64, u64)>) {
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

fn total(routine: &'static str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::invalid(routine, "nelems", "size overflows"))
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

/// Broadcast: on the root's host the root is the hub, and its host's leader sends. Every other
/// host's leader says that it entered (its destination is free); the sending leader puts the
/// root's source into each entered leader's destination and raises its flag there; the members
/// of that host copy from their leader's destination once the flag is up.
#[allow(clippy::too_many_arguments)]
pub(super) fn broadcast(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
    root: usize,
    update_root: bool,
) -> Result<()> {
    check_own(rt, routine, dest, nbytes)?;
    check_own(rt, routine, src, nbytes)?;
    if nbytes == 0 {
        team.sync_unchecked(rt);
        return Ok(());
    }
    let args = Broadcast { dest, src, nbytes, root, update_root };
    let wide = takes_trees(Collective::Broadcast, groups);
    if !wide && nbytes <= RING_ENTRY_BYTES && ring_enabled() {
        return broadcast_ring(rt, team, groups, routine, args);
    }
    if !wide && nbytes <= STAGED_BROADCAST_MAX {
        return broadcast_staged(rt, team, groups, routine, args);
    }
    let op = Op::new(rt, team, groups, routine);
    let root_group = groups.group_of(root);
    let entered = op.flag_value(0);
    // The root's leader sends into each other leader's destination once it said "entered"
    // (over many hosts, into its children's in a tree, and they pass it on).
    let send = |from: usize| -> Result<()> {
        if wide {
            return wide::broadcast_send(&op, root_group, dest, from, nbytes);
        }
        for g in groups.others() {
            op.wait_flag(op.rt.my_pe, g, entered);
            op.send_counted(op.leader_of(g), dest, from, nbytes)?;
        }
        Ok(())
    };
    if groups.mine() != root_group {
        let leader = op.my_leader();
        if op.is_leader() {
            if wide {
                wide::broadcast_receive(&op, root_group, dest, nbytes)?;
            } else {
                let base = op.counted_base();
                rt.fence();
                op.signal(op.leader_of(root_group), entered);
                op.wait_counted(base, counted_messages(nbytes));
            }
            op.release();
            op.wait_done();
        } else {
            op.wait_release(leader);
            let from = at(rt, routine, dest, nbytes, leader)?;
            // SAFETY: the leader's destination holds the data (released) and stays
            // unchanged until we are done; ours is written by us alone.
            unsafe { copy(dest, from, nbytes) };
            op.done(leader);
        }
        return Ok(());
    }
    let root_pe = op.pe(root);
    if team.my_index == root {
        if update_root {
            // SAFETY: the caller's checked buffers (equal, or not overlapping).
            unsafe { copy(dest, src, nbytes) };
        }
        op.release();
        if op.is_leader() {
            send(src)?;
        }
        op.wait_done();
    } else {
        op.wait_release(root_pe);
        let from = at(rt, routine, src, nbytes, root_pe)?;
        if op.is_leader() {
            send(from)?;
        }
        // SAFETY: the root released its source, which stays unchanged until we are done.
        unsafe { copy(dest, from, nbytes) };
        op.done(root_pe);
    }
    Ok(())
}

/// A broadcast's arguments, as every member passes them to [`broadcast`].
#[derive(Debug, Clone, Copy)]
struct Broadcast {
    dest: usize,
    src: usize,
    nbytes: usize,
    root: usize,
    update_root: bool,
}

/// Whether small broadcasts take the rings (`FSH_HIER_BROADCAST_RING=0`: the staged exchanges
/// instead, for measuring one against the other).
fn ring_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("FSH_HIER_BROADCAST_RING").map_or(true, |v| v != "0"))
}

/// What a PE knows of its team's rings of small broadcasts ([`broadcast_ring`]); every
/// member counts and records alike.
#[derive(Debug)]
pub(crate) struct BroadcastRing {
    /// Small broadcasts so far (which entry is next).
    taken: AtomicU64,
    /// The epoch of the latest broadcast that used each entry.
    epochs: [AtomicU64; RING_ENTRIES],
    /// `[e * groups + g]`: the epoch of the latest broadcast that wrote entry `e` of group
    /// `g`'s network ring (one whose root was on another host).
    written: Box<[AtomicU64]>,
    /// On a leader: whether it read an entry of its network ring since it last sent its credit.
    unreported: AtomicBool,
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

/// Small broadcast ([`RING_ENTRY_BYTES`] at most), eager: nobody waits for anybody who does
/// not hold the data yet, so back-to-back broadcasts pipeline as MPI's do. Each PE has a
/// *local ring* of [`RING_ENTRIES`] entries in its staging area, each entry tagged with the
/// epoch of the broadcast it holds; each leader also a *network ring*, each entry with a flag.
/// The root copies its source into its local ring entry and tags it, sends it in one flagged
/// message into that entry of the network ring of each of its children's leaders (the hosts
/// form a binomial tree rooted at the root's), and returns. A leader of another host waits
/// for the entry's flag, copies the bytes into its destination, sends them on to its own
/// children, copies them into its local ring entry and tags it; every other member copies
/// from the local ring of its host's source (the root on the root's host, else its leader)
/// once tagged. Each PE then marks the broadcast done ([`RING_DONE_WORD`]).
///
/// Reuse: a PE writes its local entry only once every other member of its host is done with
/// the broadcast that used the entry before (every member counts the small broadcasts alike
/// and records each entry's epochs, [`BroadcastRing`]). A parent writes a child host's
/// network entry only once that host's leader said it read the entry's previous bytes: each
/// leader that read its network ring since it last did tells its parent in the current
/// broadcast's tree so (its credit word there raised to the current epoch) after every
/// [`RING_CREDIT_EVERY`]-th small broadcast, and the parent reads these credits in its own
/// leader's staging area. While the root stays, the parent is the next writer; a writer
/// that waits in vain for a credit (the root changed) reads the child's done word over the
/// network instead. Between two hosts with one root that is 1 + 1 / `RING_CREDIT_EVERY`
/// messages per broadcast.
fn broadcast_ring(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    args: Broadcast,
) -> Result<()> {
    let Broadcast { dest, src, nbytes, root, update_root } = args;
    let op = Op::new(rt, team, groups, routine);
    let ring = team.broadcast_ring(groups.len());
    let b = ring.taken.fetch_add(1, Ordering::Relaxed);
    let e = (b % RING_ENTRIES as u64) as usize;
    let previous = ring.epochs[e].swap(op.epoch, Ordering::Relaxed);
    let root_group = groups.group_of(root);
    let mine = groups.mine();
    let me = team.my_index;
    let slot = team.slot;
    let word = |pe: usize, i: usize| rt.stage_word(pe, slot, i);
    let wait_word = |pe: usize, i: usize, value: u64| {
        let w = word(pe, i);
        rt.wait_until(pe, || w.load(Ordering::Acquire) >= value);
    };
    // Our local entry: every other member of our host is done with its previous use.
    let write_local = |from: usize| {
        for &m in groups.members(mine) {
            if m != me {
                wait_word(op.pe(m), RING_DONE_WORD, previous);
            }
        }
        let entry = rt.stage_addr(slot) + LOCAL_RING + e * RING_ENTRY_BYTES;
        // SAFETY: our own local entry, read by nobody any more (above); `from` is readable
        // for `nbytes` (the caller's source, or our destination written just now).
        unsafe { copy(entry, from, nbytes) };
        word(rt.my_pe, RING_TAG_WORD + e).store(op.epoch, Ordering::Release);
        rt.notify(rt.my_pe);
    };
    let landed = op.flag_value(0);
    // The hosts' leaders form a binomial tree rooted at the root's host (numbered from it):
    // this host sends to its children, each of which received the bytes before it sends them
    // on. The root so sends ceil(log2 L) messages instead of L - 1, and the others share the
    // sends; with 2 or 3 hosts every other host is a child of the root's.
    let l = groups.len();
    let children = |g: usize| {
        let r = (g + l - root_group) % l;
        (0..usize::BITS)
            .map(|k| 1usize << k)
            .skip_while(move |&d| d <= r)
            .take_while(move |&d| r + d < l)
            .map(move |d| (r + d + root_group) % l)
    };
    // Each child host's network entry once its leader read what the entry held before (its
    // credit, sent to its parent for the latest root, so to us while the root stays; else we
    // read how far it got), then the bytes at `from` into it.
    let send_on = |from: usize| {
        let my_leader = op.my_leader();
        for g in children(mine) {
            let was = ring.written[e * l + g].load(Ordering::Relaxed);
            if was == 0 {
                continue;
            }
            let credit = word(my_leader, RING_CREDIT_WORD + g);
            let child = op.leader_of(g);
            let mut looks = 0u32;
            rt.wait_until(my_leader, || {
                if credit.load(Ordering::Acquire) >= was << CHUNK_BITS {
                    return true;
                }
                // No credit after a while: the child may send it to another parent (the root
                // changed); read its progress (a network round trip) now and then.
                looks += 1;
                looks % 64 == 32 && rt.read_stage_word_of(routine, child, slot, RING_DONE_WORD) >= was
            });
        }
        // SAFETY: the caller's checked source, or our destination written just now.
        let bytes = unsafe { std::slice::from_raw_parts(from as *const u8, nbytes) };
        for g in children(mine) {
            rt.put_stage_flagged(
                routine,
                op.leader_of(g),
                slot,
                NET_RING + e * RING_ENTRY_BYTES,
                bytes,
                FlagWord::Stage(RING_FLAG_WORD + e),
                landed,
            );
        }
    };
    if me == root {
        if update_root {
            // SAFETY: the caller's checked buffers (equal, or not overlapping).
            unsafe { copy(dest, src, nbytes) };
        }
        if groups.members(mine).len() > 1 {
            write_local(src);
        }
        send_on(src);
    } else if mine != root_group && op.is_leader() {
        wait_word(rt.my_pe, RING_FLAG_WORD + e, landed);
        // SAFETY: the entry holds this broadcast's bytes (its flag is up) and is not written
        // again before our credit says we read it; our destination is ours.
        unsafe { copy(dest, rt.stage_addr(slot) + NET_RING + e * RING_ENTRY_BYTES, nbytes) };
        ring.unreported.store(true, Ordering::Relaxed);
        send_on(dest);
        if groups.members(mine).len() > 1 {
            write_local(dest);
        }
    } else {
        let source = if mine == root_group { op.pe(root) } else { op.my_leader() };
        wait_word(source, RING_TAG_WORD + e, op.epoch);
        let entry = rt.ctrl.stage(source, slot) + LOCAL_RING + e * RING_ENTRY_BYTES;
        // SAFETY: the source's local entry holds this broadcast's bytes (tagged) and is not
        // written again before we are done with it (below); our destination is ours.
        unsafe { copy(dest, entry, nbytes) };
    }
    for g in (0..groups.len()).filter(|&g| g != root_group) {
        ring.written[e * groups.len() + g].store(op.epoch, Ordering::Relaxed);
    }
    word(rt.my_pe, RING_DONE_WORD).store(op.epoch, Ordering::Release);
    rt.notify(rt.my_pe);
    // To our parent in this broadcast's tree: the next writer of our entries while the root
    // stays (a new root's writer reads how far we got instead). A leader of the root's host
    // has no parent this time and keeps its credit for later.
    let r = (mine + l - root_group) % l;
    if op.is_leader()
        && r != 0
        && b % RING_CREDIT_EVERY == RING_CREDIT_EVERY - 1
        && ring.unreported.swap(false, Ordering::Relaxed)
    {
        let parent = (r - (1 << r.ilog2()) + root_group) % l;
        rt.put_stage_flagged(
            routine,
            op.leader_of(parent),
            slot,
            NET_RING,
            &[],
            FlagWord::Stage(RING_CREDIT_WORD + mine),
            landed,
        );
    }
    Ok(())
}

/// Broadcast through the staging areas ([`STAGED_BROADCAST_MAX`]), in chunks of half an area,
/// each chunk a staged exchange: the root's leader puts chunk c of the root's source into the
/// other leaders' staging areas without waiting for them to enter this chunk (they said so
/// for the previous staged exchange: the credit), so that back-to-back broadcasts cost one
/// network step each rather than a round trip, and chunks pipeline. Every member first
/// arrives at its leader; every leader that is not the root's says "entered" to every other
/// leader for each chunk once its host has (the credit of the next staged exchange, whoever
/// sends in it), waits for the chunk, and copies it into its destination; at the end it
/// copies the whole into its members' destinations and releases them. On the root's host the
/// leader sends from the root's source and copies it into its members' destinations. Every
/// member arrives at its leader and waits for its release, nothing else.
fn broadcast_staged(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    args: Broadcast,
) -> Result<()> {
    let Broadcast { dest, src, nbytes, root, update_root } = args;
    let op = Op::new(rt, team, groups, routine);
    let chunks = nbytes.div_ceil(STAGE_HALF) as u64;
    // Chunk c: the other leaders' "entered" is flag value 2c, the root's leader's data 2c + 1.
    let entered = |c: u64| op.flag_value(2 * c);
    let landed = |c: u64| op.flag_value(2 * c + 1);
    let (first, credit) = team.take_staged_exchanges(chunks, entered(chunks - 1));
    // Exchange `first + c`: its half of the staging area, its credit, its bytes.
    let half = |c: u64| ((first + c) & 1) as usize * STAGE_HALF;
    let credit_of = |c: u64| if c == 0 { credit } else { entered(c - 1) };
    let part = |c: u64| {
        let lo = c as usize * STAGE_HALF;
        (lo, STAGE_HALF.min(nbytes - lo))
    };
    let stage = rt.stage_addr(team.slot);
    let root_group = groups.group_of(root);
    let me = team.my_index;
    let leader = op.my_leader();
    if me == root && update_root {
        // SAFETY: the caller's checked buffers (equal, or not overlapping).
        unsafe { copy(dest, src, nbytes) };
    }
    if !op.is_leader() {
        // Every member waits for its own leader's release: a member that went on at another
        // PE's word could arrive for the next operation before a slower one arrived for this
        // one, and the tagged arrival count would lose one of them.
        op.arrive(leader);
        op.wait_release(leader);
        return Ok(());
    }
    op.wait_arrivals(op.local_others());
    if groups.mine() != root_group {
        for c in 0..chunks {
            op.wait_credit(first + c, credit_of(c));
            for g in groups.others() {
                op.send_staged(op.leader_of(g), first + c, half(c), &[], entered(c));
            }
            op.wait_msg_flag(rt.my_pe, root_group, first + c, landed(c));
            let (lo, len) = part(c);
            // SAFETY: chunk c landed in our staging area (the root group's flag is up) and
            // stays until a later exchange; our destination is ours.
            unsafe { copy(dest + lo, stage + half(c), len) };
        }
        op.push_to_members(true, dest, nbytes)?;
        op.release();
        return Ok(());
    }
    // The root's host: its leader sends from the root's source (the root arrived: its source
    // is ready and unchanged until our release), then copies it into the destinations of the
    // host's members (but the root's own unless `update_root`).
    let from = if me == root { src } else { at(rt, routine, src, nbytes, op.pe(root))? };
    for c in 0..chunks {
        op.wait_credit(first + c, credit_of(c));
        let (lo, len) = part(c);
        // SAFETY: the root's source: unchanged until we are done (above).
        let bytes = unsafe { std::slice::from_raw_parts((from + lo) as *const u8, len) };
        for g in groups.others() {
            op.send_staged(op.leader_of(g), first + c, half(c), bytes, landed(c));
        }
    }
    if me != root {
        // SAFETY: our own destination; the root's source as above.
        unsafe { copy(dest, from, nbytes) };
    }
    for &m in groups.members(groups.mine()) {
        if m != me && (m != root || update_root) {
            let to = at(rt, routine, dest, nbytes, op.pe(m))?;
            // SAFETY: member m arrived (its destination is free and written by us alone
            // until our release); the root's source as above.
            unsafe { copy(to, from, nbytes) };
        }
    }
    op.release();
    Ok(())
}

/// fcollect: each leader copies its host's blocks (from the members' sources, once they
/// arrived) into its destination and sends them, run by run (consecutive members), to every
/// other leader: into their staging areas when the whole result fits half of one, else into
/// their destinations once they entered. Once every other host's part is there, the members
/// copy the whole result from their leader's destination.
pub(super) fn fcollect(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
) -> Result<()> {
    let all = total(routine, nbytes, team.n_pes())?;
    check_own(rt, routine, dest, all)?;
    check_own(rt, routine, src, nbytes)?;
    if nbytes == 0 {
        team.sync_unchecked(rt);
        return Ok(());
    }
    let op = Op::new(rt, team, groups, routine);
    let wide = takes_trees(Collective::Fcollect, groups);
    let staged = !wide && all <= STAGE_HALF;
    let entered = op.flag_value(0);
    // A staged exchange carries the data; a large payload waits for the leaders to meet
    // (over many hosts the tree's signals stand for the meeting).
    let (exchange, credit) = if staged { team.take_staged_exchanges(1, entered) } else { (0, 0) };
    let meeting = if staged || wide { None } else { op.take_meeting() };
    let half = (exchange & 1) as usize * STAGE_HALF;
    let leader = op.my_leader();
    let push = all <= PUSH_MAX;
    if !op.is_leader() {
        op.arrive(leader);
        op.wait_release(leader);
        if !push {
            let from = at(rt, routine, dest, all, leader)?;
            // SAFETY: the leader's destination is complete (released) and unchanged until we
            // are done.
            unsafe { copy(dest, from, all) };
            op.done(leader);
        }
        return Ok(());
    }
    let base = op.counted_base();
    op.wait_arrivals(op.local_others());
    for &i in groups.members(groups.mine()) {
        let from = at(rt, routine, src, nbytes, op.pe(i))?;
        // SAFETY: member i arrived: its source is ready and unchanged until we release; our
        // destination is ours.
        unsafe { copy(dest + i * nbytes, from, nbytes) };
    }
    if wide {
        wide::fcollect(&op, dest, nbytes, all)?;
    } else if staged {
        // Our host's blocks, packed in team order, in one message to each other leader.
        op.wait_credit(exchange, credit);
        let mut packed = Vec::with_capacity(groups.members(groups.mine()).len() * nbytes);
        for &i in groups.members(groups.mine()) {
            // SAFETY: block i of our destination (checked above), copied there just now.
            packed.extend_from_slice(unsafe {
                std::slice::from_raw_parts((dest + i * nbytes) as *const u8, nbytes)
            });
        }
        let to = half + op.packed_offset(groups.mine(), nbytes);
        for g in groups.others() {
            op.send_staged(op.leader_of(g), exchange, to, &packed, entered);
        }
        op.wait_msg_flags(exchange, entered);
        let stage = rt.stage_addr(team.slot) + half;
        for g in groups.others() {
            let from = stage + op.packed_offset(g, nbytes);
            for (k, &i) in groups.members(g).iter().enumerate() {
                // SAFETY: group g's blocks landed in our staging area (its flag is up) and stay
                // until a later exchange; our destination is ours.
                unsafe { copy(dest + i * nbytes, from + k * nbytes, nbytes) };
            }
        }
    } else {
        // Once the leaders met (every leader is in this collective: its destination is
        // free), our host's blocks go run by run (consecutive members) straight into the
        // other leaders' destinations, as counted messages.
        op.meet(meeting);
        let expected: usize = groups
            .others()
            .flat_map(|g| groups.runs(g))
            .map(|(_, count)| counted_messages(count * nbytes))
            .sum();
        for g in groups.others() {
            for &(first, count) in &groups.runs(groups.mine()) {
                let at = dest + first * nbytes;
                op.send_counted(op.leader_of(g), at, at, count * nbytes)?;
            }
        }
        op.wait_counted(base, expected);
    }
    op.push_to_members(push, dest, all)?;
    op.release_and_wait(push);
    Ok(())
}

/// alltoall (contiguous blocks of `block` bytes): blocks for members of this host are copied
/// straight into their destinations once they entered. Between hosts, small ones go leader to
/// leader: each leader sends each other leader its host's blocks for that host's members in
/// one message into its staging area, and releases its members once every other host's
/// message is there; they copy their blocks from it. Otherwise each leader sends its host's
/// blocks for another host's members to those members: into their staging areas when a whole
/// destination fits half of one (they copy them into their destination), else every PE sends
/// its own into their destinations once the leaders met. A member returns once its leader
/// released it (every local block copied, its source no longer read) and every other host's
/// blocks for it are in its destination.
pub(super) fn alltoall(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    dest: usize,
    src: usize,
    block: usize,
) -> Result<()> {
    let n = team.n_pes();
    let all = total(routine, block, n)?;
    check_own(rt, routine, dest, all)?;
    check_own(rt, routine, src, all)?;
    if block == 0 {
        team.sync_unchecked(rt);
        return Ok(());
    }
    // Over many hosts every PE sends its own blocks into their destinations once the leaders
    // met (the staged forms take two flag words per group).
    let wide = takes_trees(Collective::Alltoall, groups);
    let staged = !wide && all <= STAGE_HALF;
    // Small enough for each leader to receive, from every other host, that host's blocks for
    // all of this host's members: one message per pair of hosts instead of one per remote PE,
    // and only leaders use the network.
    let widest = (0..groups.len()).map(|g| groups.members(g).len()).max().unwrap_or(1);
    let by_host = !wide && all.checked_mul(widest).is_some_and(|b| b <= STAGE_HALF);
    let op = if by_host {
        Op::new(rt, team, groups, routine)
    } else {
        // Every member sends its own blocks to every member of the other hosts.
        rt.connect_all(routine, (0..n).map(|i| team.pes.world_pe(i)))?;
        Op::every_pe_sends(rt, team, groups, routine)
    };
    let entered = op.flag_value(0);
    // A staged exchange carries the data; a large payload waits for the leaders to meet.
    let (exchange, credit) = if staged { team.take_staged_exchanges(1, entered) } else { (0, 0) };
    let meeting = if staged { None } else { op.take_meeting() };
    let half = (exchange & 1) as usize * STAGE_HALF;
    let me = team.my_index;
    let local = groups.members(groups.mine());
    let base = op.counted_base();
    op.enter();
    for &j in local {
        let pe = op.pe(j);
        op.wait_entered(pe);
        let to = at(rt, routine, dest + me * block, block, pe)?;
        // SAFETY: member j entered, so its destination is free; block `me` of it is written
        // by us alone; our source is the caller's checked buffer.
        unsafe { copy(to, src + j * block, block) };
    }
    if op.is_leader() {
        op.wait_arrivals(op.local_others());
        if by_host {
            // To each other host's leader, the blocks of our host's members for that host's
            // members: for each member j there (in team order), block j of each of ours.
            op.wait_credit(exchange, credit);
            let sources =
                local.iter().map(|&i| at(rt, routine, src, all, op.pe(i))).collect::<Result<Vec<usize>>>()?;
            let mut packed = Vec::with_capacity(local.len() * widest * block);
            for g in groups.others() {
                packed.clear();
                for &j in groups.members(g) {
                    for &from in &sources {
                        // SAFETY: a source of a member of our host (arrived: ready and
                        // unchanged until we release), block j.
                        packed.extend_from_slice(unsafe {
                            std::slice::from_raw_parts((from + j * block) as *const u8, block)
                        });
                    }
                }
                let to = half + op.packed_offset(groups.mine(), groups.members(g).len() * block);
                op.send_staged(op.leader_of(g), exchange, to, &packed, entered);
            }
            // Every other host's blocks for our members are in our staging area before they
            // read them there.
            op.wait_msg_flags(exchange, entered);
        } else if staged {
            // To each member j of another host, the blocks j of our host's members, packed in
            // team order, in one message.
            op.wait_credit(exchange, credit);
            let mut packed = Vec::with_capacity(local.len() * block);
            let to = half + op.packed_offset(groups.mine(), block);
            for g in groups.others() {
                for &j in groups.members(g) {
                    packed.clear();
                    for &i in local {
                        let from = at(rt, routine, src, all, op.pe(i))?;
                        // SAFETY: member i's source (arrived: ready and unchanged until we
                        // release), block j.
                        packed.extend_from_slice(unsafe {
                            std::slice::from_raw_parts((from + j * block) as *const u8, block)
                        });
                    }
                    op.send_staged(op.pe(j), exchange, to, &packed, entered);
                }
            }
        } else {
            op.meet(meeting);
        }
        op.release();
    } else {
        let leader = op.my_leader();
        op.arrive(leader);
        op.wait_release(leader);
    }
    if by_host {
        // Our blocks from every other host, in our leader's staging area (released: they
        // landed), at our place among our host's members in each host's part.
        let stage = rt.ctrl.stage(op.my_leader(), team.slot) + half;
        let mine = local.iter().position(|&i| i == me).expect("this PE is in its own group");
        for g in groups.others() {
            let from =
                stage + op.packed_offset(g, local.len() * block) + mine * groups.members(g).len() * block;
            for (k, &i) in groups.members(g).iter().enumerate() {
                // SAFETY: group g's blocks landed in our leader's staging area (released) and
                // stay there until every member of our host has entered a later exchange of
                // this parity; block i of our destination is ours.
                unsafe { copy(dest + i * block, from + k * block, block) };
            }
        }
    } else if staged {
        op.wait_msg_flags(exchange, entered);
        let stage = rt.stage_addr(team.slot) + half;
        for g in groups.others() {
            let from = stage + op.packed_offset(g, block);
            for (k, &i) in groups.members(g).iter().enumerate() {
                // SAFETY: member i's block landed in our staging area (its group's flag is
                // up) and stays until a later exchange; block i of our destination is ours.
                unsafe { copy(dest + i * block, from + k * block, block) };
            }
        }
    } else {
        // Large: the leaders met, so every member is in the collective (its destination is
        // free); every PE sends its own blocks for the members of other hosts straight into
        // their destinations, as counted messages (each block crosses the network once
        // whoever sends it, and so every PE's sends go in parallel), starting with the next
        // host so that not every PE sends to the same one first.
        let others: Vec<usize> = groups.others().collect();
        let start = others.iter().position(|&g| g > groups.mine()).unwrap_or(0);
        let mut expected = 0;
        for &g in others[start..].iter().chain(&others[..start]) {
            for &j in groups.members(g) {
                op.send_counted(op.pe(j), dest + me * block, src + j * block, block)?;
                expected += counted_messages(block);
            }
        }
        op.wait_counted(base, expected);
    }
    Ok(())
}

/// Reduction: each leader reduces its host's sources (members in team order), then the
/// leaders exchange these partial results chunk by chunk through their staging areas and each
/// reduces the chunks in group order (every leader the same order, so every member gets the
/// same bits); the members copy the result from their leader's destination.
pub(super) fn reduce<T: Copy, O: ReduceOp<T>>(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    dest: usize,
    src: usize,
    count: usize,
) -> Result<()> {
    let size = std::mem::size_of::<T>();
    let nbytes = total(routine, count, size)?;
    check_own(rt, routine, dest, nbytes)?;
    check_own(rt, routine, src, nbytes)?;
    if count == 0 {
        team.sync_unchecked(rt);
        return Ok(());
    }
    let align = std::mem::align_of::<T>();
    if !dest.is_multiple_of(align) || !src.is_multiple_of(align) {
        return Err(Error::invalid(routine, "dest/source", "not aligned for the element type"));
    }
    if dest != src && dest < src + nbytes && src < dest + nbytes {
        return Err(Error::invalid(routine, "dest/source", "overlap without being the same object"));
    }
    let l = groups.len();
    let wide = takes_trees(Collective::Reduce, groups);
    let chunk = (STAGE_HALF / l / size).max(1);
    if !wide && count.div_ceil(chunk) >= 1 << (CHUNK_BITS - 1) {
        return Err(Error::AcrossHosts {
            routine,
            what: "reductions of this many elements over this many hosts",
        });
    }
    let op = Op::new(rt, team, groups, routine);
    let chunks = count.div_ceil(chunk) as u64;
    // Large: the partial results go straight into destinations (see `reduce_direct`), which
    // costs a meeting of the leaders and l - 1 network steps (one at two hosts) in place of
    // `chunks` staged exchanges.
    let direct = !wide && chunks > 1 && (l == 2 || chunks > l as u64);
    // Chunk c's flags follow the reading of chunk c - 1: the last chunk's marks the whole
    // reduction as entered.
    let (first, credit) =
        if direct || wide { (0, 0) } else { team.take_staged_exchanges(chunks, op.flag_value(chunks - 1)) };
    let meeting = if direct { op.take_meeting() } else { None };
    let leader = op.my_leader();
    let push = nbytes <= PUSH_MAX;
    if !op.is_leader() {
        op.arrive(leader);
        op.wait_release(leader);
        if !push {
            let from = at(rt, routine, dest, nbytes, leader)?;
            // SAFETY: the leader's destination holds the result (released) and stays
            // unchanged until we are done; ours is written by us alone (our source was read
            // before the release).
            unsafe { copy(dest, from, nbytes) };
            op.done(leader);
        }
        return Ok(());
    }
    op.wait_arrivals(op.local_others());
    let slice = |a: usize, from: usize, len: usize| {
        // SAFETY: mapped, aligned memory of at least `from + len` elements of T (a checked
        // source of a member of this host, or a staged chunk); unchanged while we read it.
        unsafe { std::slice::from_raw_parts((a + from * size) as *const T, len) }
    };
    let local = groups.members(groups.mine());
    let mut part: Vec<T> = slice(at(rt, routine, src, nbytes, op.pe(local[0]))?, 0, count).to_vec();
    for &i in &local[1..] {
        combine::<T, O>(routine, &mut part, slice(at(rt, routine, src, nbytes, op.pe(i))?, 0, count));
    }
    let mine = groups.mine();
    if wide {
        wide::reduce::<T, O>(&op, dest, part)?;
        op.push_to_members(push, dest, nbytes)?;
        op.release_and_wait(push);
        return Ok(());
    }
    if direct {
        reduce_direct::<T, O>(&op, dest, &part, meeting)?;
        op.push_to_members(push, dest, nbytes)?;
        op.release_and_wait(push);
        return Ok(());
    }
    let stage = rt.stage_addr(team.slot);
    op.wait_credit(first, credit);
    let mut acc: Vec<T> = Vec::with_capacity(chunk.min(count));
    let (mut lo, mut c) = (0usize, 0u64);
    while lo < count {
        let len = chunk.min(count - lo);
        let half = ((first + c) & 1) as usize * STAGE_HALF;
        // SAFETY: `part` holds `count` initialised elements; plain bytes of them.
        let bytes = unsafe { std::slice::from_raw_parts(part[lo..].as_ptr() as *const u8, len * size) };
        let v = op.flag_value(c);
        for g in groups.others() {
            op.send_staged(op.leader_of(g), first + c, half + mine * chunk * size, bytes, v);
        }
        op.wait_msg_flags(first + c, v);
        let theirs = |g: usize| {
            if g == mine {
                &part[lo..lo + len]
            } else {
                slice(stage + half + g * chunk * size, 0, len)
            }
        };
        acc.clear();
        acc.extend_from_slice(theirs(0));
        for g in 1..l {
            combine::<T, O>(routine, &mut acc, theirs(g));
        }
        // SAFETY: our own checked destination; every source of this host was read above.
        unsafe { copy(dest + lo * size, acc.as_ptr() as usize, len * size) };
        lo += len;
        c += 1;
    }
    op.push_to_members(push, dest, nbytes)?;
    op.release_and_wait(push);
    Ok(())
}

/// A large reduction's exchange between leaders, once each holds its host's partial result
/// `part`: counted messages straight into the leaders' destinations once they met (`meet`,
/// from `Op::take_meeting`). Two hosts swap their partials and each
/// combines the two in group order. More form a chain in group order: leader g combines what
/// leader g - 1 sent into its destination with its own partial, in place, and passes it on;
/// the last one holds the result and sends it back to every other leader, whose destination
/// it reaches only after that leader passed its own part on (the chain runs through it
/// first). Either way every leader combines in group order, as the staged form does, so every
/// member gets the same bits.
fn reduce_direct<T: Copy, O: ReduceOp<T>>(
    op: &Op<'_>,
    dest: usize,
    part: &[T],
    meet: Option<(u64, u64)>,
) -> Result<()> {
    let (groups, l, mine) = (op.groups, op.groups.len(), op.groups.mine());
    let nbytes = std::mem::size_of_val(part);
    let messages = counted_messages(nbytes);
    let base = op.counted_base();
    let ours = part.as_ptr() as usize;
    // SAFETY: our own checked destination of `part.len()` elements of T, aligned (checked by
    // the caller); only this leader writes it until its release, and it is read or written
    // only once every counted message that lands in it meanwhile has arrived.
    let dest_slice = || unsafe { std::slice::from_raw_parts_mut(dest as *mut T, part.len()) };
    op.meet(meet);
    if l == 2 {
        let other = groups.others().next().unwrap_or(mine);
        op.send_counted(op.leader_of(other), dest, ours, nbytes)?;
        op.wait_counted(base, messages);
        if mine == 0 {
            let mut acc = part.to_vec();
            combine::<T, O>(op.routine, &mut acc, dest_slice());
            dest_slice().copy_from_slice(&acc);
        } else {
            combine::<T, O>(op.routine, dest_slice(), part);
        }
        return Ok(());
    }
    // The chain's part (none on the first leader), then the result (none on the last).
    let chained = if mine == 0 { 0 } else { messages };
    if mine == 0 {
        op.send_counted(op.leader_of(1), dest, ours, nbytes)?;
    } else {
        op.wait_counted(base, chained);
        combine::<T, O>(op.routine, dest_slice(), part);
        if mine + 1 < l {
            op.send_counted(op.leader_of(mine + 1), dest, dest, nbytes)?;
        } else {
            for g in 0..l - 1 {
                op.send_counted(op.leader_of(g), dest, dest, nbytes)?;
            }
            return Ok(());
        }
    }
    op.wait_counted(base, chained + messages);
    Ok(())
}
