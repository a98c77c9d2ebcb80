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

mod blocks;
mod broadcast;
mod collect;
mod plan;
mod reduce;
mod wide;

pub(super) use blocks::Blocks;
pub(super) use broadcast::broadcast;
pub(super) use collect::collect;
pub(crate) use plan::{alltoalls_window, collect_is_hierarchical, Shape};
use plan::{AlltoallForm, FcollectForm, STAGE_HALF};
pub(super) use reduce::reduce;

use std::sync::atomic::Ordering;

use super::across::check_own;
use super::{at, combine, copy, ReduceOp, HIER_STAGE_BYTES, SHARED_STAGE_BYTES, W_ENTER};
use crate::error::{Error, Result};
use crate::runtime::{add_to_tagged_count, counted_messages, Runtime};
use crate::team::across_hosts::{Op, CHUNK_BITS};
use crate::team::host_groups::HostGroups;
use crate::team::TeamInner;

// The slot words of teams across hosts (`slot_layout::SLOT_HOST_WORDS`..): epochs and
// epoch-tagged counts only. `W_COUNTED` counts the counted messages this PE received
// (`Runtime::put_counted`: large payloads sent straight into destinations, each message
// adding one); it only grows, a collective reads it before it enters (no message of that
// collective can have come yet) and waits until it grew by the number it expects.
use crate::team::slot_layout::{W_COUNTED, W_DONE};

// The steps of the hierarchical collectives beside those of the sync (`team::across_hosts`).
impl<'a> Op<'a> {
    /// The team's next collective operation, one where every PE uses the network (alltoall).
    fn every_pe_sends(
        rt: &'a Runtime,
        team: &'a TeamInner,
        groups: &'a HostGroups,
        routine: &'static str,
    ) -> Self {
        Op { local_waits: false, ..Op::new(rt, team, groups, routine) }
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
        let (word, value) = (self.word(self.rt.my_pe, W_COUNTED), base + messages as u64);
        // Only messages from other hosts count here (`Runtime::put_counted`).
        self.rt.wait_until_remote(|| word.load(Ordering::Acquire) >= value);
    }
}

fn total(routine: &'static str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::invalid(routine, "nelems", "size overflows"))
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

/// How an alltoall's blocks lie in its buffers, and how many elements of each block move at
/// a time.
#[derive(Debug, Clone, Copy)]
pub(super) struct AlltoallLayout {
    pub dest: Blocks,
    pub src: Blocks,
    /// Elements of each block per [`alltoall_pass`] (`plan::alltoalls_window`).
    pub window: usize,
}

/// alltoall and alltoalls (blocks laid out as `layout` says, see [`Blocks`]; contiguous, or
/// strided and moved a window of elements per block at a time, each window one
/// [`alltoall_pass`] of packed blocks).
pub(super) fn alltoall(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    (dest, src): (usize, usize),
    layout: AlltoallLayout,
) -> Result<()> {
    let AlltoallLayout { dest: dest_blocks, src: src_blocks, window } = layout;
    let n = team.n_pes();
    let overflow = || Error::invalid(routine, "nelems", "size overflows");
    let dest_extent = dest_blocks.extent(n).ok_or_else(overflow)?;
    let src_extent = src_blocks.extent(n).ok_or_else(overflow)?;
    check_own(rt, routine, dest, dest_extent)?;
    check_own(rt, routine, src, src_extent)?;
    let per_block = src_blocks.per_block();
    if src_blocks.bytes() == 0 || window == 0 {
        team.sync_unchecked(rt);
        return Ok(());
    }
    let shape = Shape::of(groups);
    let mut first = 0;
    while first < per_block {
        let count = window.min(per_block - first);
        let bufs = Bufs {
            dest,
            src,
            dest_extent,
            src_extent,
            dest_blocks: dest_blocks.window(first, count),
            src_blocks: src_blocks.window(first, count),
        };
        alltoall_pass(rt, team, (groups, &shape), routine, bufs)?;
        first += count;
    }
    Ok(())
}

/// The buffers of one pass of an alltoall: addresses, checked extents and the window of
/// each block that the pass moves.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bufs {
    pub dest: usize,
    pub src: usize,
    pub dest_extent: usize,
    pub src_extent: usize,
    pub dest_blocks: Blocks,
    pub src_blocks: Blocks,
}

/// One alltoall of packed blocks of `block` bytes (a window of each block): blocks for
/// members of this host are copied straight into their destinations once they entered. Between hosts, small ones go leader to
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
fn alltoall_pass(
    rt: &Runtime,
    team: &TeamInner,
    (groups, shape): (&HostGroups, &Shape),
    routine: &'static str,
    bufs: Bufs,
) -> Result<()> {
    let Bufs { dest, src, dest_extent, src_extent, dest_blocks, src_blocks } = bufs;
    let n = team.n_pes();
    let block = src_blocks.bytes();
    let all = total(routine, block, n)?;
    let form = plan::alltoall(shape, block, all);
    // The counted form sends straight into destinations: windows of one run of bytes only
    // (strided ones move in windows that fit the other forms, or of one element each,
    // `plan::alltoalls_window`).
    debug_assert!(form != AlltoallForm::Counted || (dest_blocks.dense() && src_blocks.dense()));
    // Bruck's exchange among the leaders (many hosts, small blocks); each leader to each other
    // leader its host's blocks for that host (one message per pair of hosts, only leaders on
    // the network); each leader to each member of the other hosts (both in a staged exchange,
    // which carries the data); or every PE its own blocks into their destinations once the
    // leaders met.
    let bruck = matches!(form, AlltoallForm::Bruck(_));
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
        let to = at(rt, routine, dest, dest_extent, pe)?;
        // SAFETY: member j entered, so its destination is free; block `me` of it is written
        // by us alone; our source is the caller's checked buffer.
        unsafe { dest_blocks.copy_from(to, me, &src_blocks, src, j) };
    }
    if op.is_leader() {
        op.wait_arrivals(op.local_others());
        if let AlltoallForm::Bruck(steps) = form {
            let sources = local
                .iter()
                .map(|&i| at(rt, routine, src, src_extent, op.pe(i)))
                .collect::<Result<Vec<usize>>>()?;
            wide::alltoall(&op, bufs, &sources, steps)?;
        } else if by_host {
            // To each other host's leader, the blocks of our host's members for that host's
            // members: for each member j there (in team order), block j of each of ours.
            op.wait_credit(exchange, credit);
            let sources = local
                .iter()
                .map(|&i| at(rt, routine, src, src_extent, op.pe(i)))
                .collect::<Result<Vec<usize>>>()?;
            let mut packed = Vec::with_capacity(local.len() * widest * block);
            for g in groups.others() {
                packed.clear();
                for &j in groups.members(g) {
                    for &from in &sources {
                        // SAFETY: a source of a member of our host (arrived: ready and
                        // unchanged until we release), block j.
                        unsafe { src_blocks.gather(from, j, &mut packed) };
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
                        let from = at(rt, routine, src, src_extent, op.pe(i))?;
                        // SAFETY: member i's source (arrived: ready and unchanged until we
                        // release), block j.
                        unsafe { src_blocks.gather(from, j, &mut packed) };
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
                unsafe { dest_blocks.scatter(dest, i, from + k * block) };
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
                unsafe { dest_blocks.scatter(dest, i, from + k * block) };
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
                let (to, from) = (dest_blocks.dense_at(dest, me), src_blocks.dense_at(src, j));
                op.send_counted(op.pe(j), to, from, block)?;
                expected += counted_messages(block);
            }
        }
        op.wait_counted(base, expected);
    }
    Ok(())
}
