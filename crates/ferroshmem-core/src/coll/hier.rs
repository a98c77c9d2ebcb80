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

mod broadcast;
mod collect;
mod plan;
mod reduce;
mod wide;

pub(super) use broadcast::broadcast;
pub(crate) use broadcast::BroadcastRing;
pub(super) use collect::collect;
pub(crate) use plan::{collect_is_hierarchical, Shape};
use plan::{AlltoallForm, FcollectForm, SyncForm, CHUNK_BITS, STAGE_HALF};
pub(super) use reduce::reduce;
pub(crate) use wide::partners as wide_partners;

/// Whether the leaders of a team of these host groups talk only to their partners in the
/// trees (every collective takes them), not to every leader: whom to connect to ahead.
pub(crate) fn trees_only(groups: &HostGroups) -> bool {
    Shape::of(groups).trees_only()
}

use std::sync::atomic::{AtomicU64, Ordering};

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
/// Up to this many host leaders meet directly (each signals each: one network step); more
/// meet by dissemination (ceil(log2 L) steps).
const DIRECT_LEADERS: usize = 8;

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

    /// On a leader, when `push` (a result of up to `plan::PUSH_MAX` bytes): copies our `len`
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

    /// On a member that is not its host's leader, in a collective whose result the leader
    /// assembles in its destination (`len` bytes at `dest`): arrives, waits for the release,
    /// and unless the leader pushed the result into our destination, copies it from the
    /// leader's and says it is done.
    fn member_takes_result(&self, push: bool, dest: usize, len: usize) -> Result<()> {
        let leader = self.my_leader();
        self.arrive(leader);
        self.wait_release(leader);
        if !push {
            let from = at(self.rt, self.routine, dest, len, leader)?;
            // SAFETY: the leader's destination holds the result (released) and stays unchanged
            // until we are done; ours is written by us alone (our source, if any, was read
            // before the release).
            unsafe { copy(dest, from, len) };
            self.done(leader);
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
    // completed the program's); more meet by dissemination, or up and down the tree. Only the
    // meeting takes a staged exchange: every member takes the same ones (the credits count
    // them).
    let form = plan::sync(&Shape::of(groups));
    let meeting = if form == SyncForm::Meet { op.take_meeting() } else { None };
    if !op.is_leader() {
        let leader = op.my_leader();
        op.arrive(leader);
        op.wait_release(leader);
        return;
    }
    op.wait_arrivals(op.local_others());
    match form {
        SyncForm::Tree => wide::sync(&op),
        SyncForm::Meet => op.meet(meeting),
    }
    op.release();
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
    let form = plan::fcollect(&Shape::of(groups), all);
    let eager = form == FcollectForm::EagerTree;
    let (wide, staged) = (form == FcollectForm::Tree || eager, form == FcollectForm::Staged);
    let entered = op.flag_value(0);
    // A staged exchange carries the data; a large payload waits for the leaders to meet
    // (over many hosts the tree's signals stand for the meeting).
    let (exchange, credit) = if staged { team.take_staged_exchanges(1, entered) } else { (0, 0) };
    let meeting = if staged || wide { None } else { op.take_meeting() };
    let half = (exchange & 1) as usize * STAGE_HALF;
    let push = plan::push(all);
    if !op.is_leader() {
        return op.member_takes_result(push, dest, all);
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
        wide::fcollect(&op, dest, nbytes, all, eager)?;
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
/// blocks for it are in its destination. Over many hosts (the trees' count, `wide`) small
/// blocks go by Bruck's exchange among the leaders, who copy the result into their members'
/// destinations before they release them (`wide::alltoall`).
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
    let shape = Shape::of(groups);
    let form = plan::alltoall(&shape, block, all);
    // Bruck's exchange among the leaders (many hosts, small blocks); each leader to each other
    // leader its host's blocks for that host (one message per pair of hosts, only leaders on
    // the network); each leader to each member of the other hosts (both in a staged exchange,
    // which carries the data); or every PE its own blocks into their destinations once the
    // leaders met.
    let bruck = form == AlltoallForm::Bruck;
    let by_host = form == AlltoallForm::ByHost;
    let staged = matches!(form, AlltoallForm::ByHost | AlltoallForm::Staged);
    let widest = shape.widest;
    let op = if by_host || bruck {
        Op::new(rt, team, groups, routine)
    } else {
        // Every member sends its own blocks to every member of the other hosts.
        rt.connect_all(routine, (0..n).map(|i| team.pes.world_pe(i)))?;
        Op::every_pe_sends(rt, team, groups, routine)
    };
    let entered = op.flag_value(0);
    // A staged exchange carries the data; a large payload waits for the leaders to meet.
    let (exchange, credit) = if staged { team.take_staged_exchanges(1, entered) } else { (0, 0) };
    let meeting = if staged || bruck { None } else { op.take_meeting() };
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
        if bruck {
            let sources =
                local.iter().map(|&i| at(rt, routine, src, all, op.pe(i))).collect::<Result<Vec<usize>>>()?;
            wide::alltoall(&op, dest, &sources, block)?;
        } else if by_host {
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
    } else if !bruck {
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
