//! The leaders' part of the hierarchical collectives of a team over many hosts (from
//! `WIDE_FROM` groups, reductions and fcollect from 5, alltoalls from 8; see
//! `team::host_groups::Shape::takes_trees`):
//! binomial trees (`team::tree`) of `ceil(log2 L)` network steps
//! among the `L` leaders, where the forms of `hier` for fewer hosts send from every leader to
//! every other one (L - 1 messages each, and three flag words per group in the slot).
//!
//! Data always goes straight into the receiving leader's destination as counted messages
//! (`Op::send_counted`), once the receiver said it entered the collective. The signals are
//! empty flagged messages that raise a slot word to the collective's flag value
//! (`Op::flag_value`), and they are indexed by *distance*, not by sender: on a leader, word
//! [`FROM_BELOW`] + j is raised only by the leader `2^j` groups after it, word
//! [`FROM_ABOVE`] + k only by the leader `2^k` groups before it (modulo L), whatever the
//! tree's root. So each word has one writer, which writes epochs in increasing order, and
//! "word >= this collective's value" means that this writer entered this collective: with
//! O(log L) words a leader tells its O(log L) partners apart in every tree. The words are the
//! slot's own (`slot_layout::W_TREE`), so a team may mix trees and the forms for fewer hosts.
//!
//! Every counted message a leader receives in a collective is sent after that leader raised
//! a word of this collective on the sender (or, down a tree, after the sender received what
//! the leader sent up), so none of a later collective can be counted early.

use super::plan::{BruckSteps, EAGER_PARTIALS_AT, EAGER_PARTIAL_BYTES, EAGER_REGION_BYTES};
use super::{counted_messages, Bufs, Op};
use crate::coll::{at, combine, copy, ReduceOp};
use crate::error::Result;
use crate::runtime::FlagWord;
use crate::team::across_hosts::{FROM_ABOVE, FROM_BELOW};
use crate::team::tree;

/// Offset in the staging area of the part where the child `2^j` groups after a leader puts
/// its partial of an eager reduction ([`reduce_eager`]).
fn partial_at(j: u32) -> usize {
    EAGER_PARTIALS_AT + j as usize * EAGER_PARTIAL_BYTES
}

impl Op<'_> {
    /// Group of the party at relative rank `v` of a tree rooted at group `root`.
    fn tree_group(&self, root: usize, v: usize) -> usize {
        (root + v) % self.groups.len()
    }

    /// This leader's relative rank in a tree rooted at group `root`.
    fn tree_rank(&self, root: usize) -> usize {
        let l = self.groups.len();
        (self.groups.mine() + l - root) % l
    }
}

/// Broadcast, on the leader of a host other than the root's: tells its parent that it
/// entered, receives the `nbytes` in its destination, and passes them on down the tree
/// rooted at `root_group` (the root's host).
pub(super) fn broadcast_receive(op: &Op<'_>, root_group: usize, dest: usize, nbytes: usize) -> Result<()> {
    let v = op.tree_rank(root_group);
    let k = tree::parent(v).expect("the root's host does not receive");
    let base = op.counted_base();
    op.rt.fence();
    op.raise(op.tree_group(root_group, v - (1 << k)), FROM_BELOW + k as usize);
    op.wait_counted(base, counted_messages(nbytes));
    broadcast_send(op, root_group, dest, dest, nbytes)
}

/// Broadcast: sends the `nbytes` at `from` into the destination of each child of this
/// leader's (in the tree rooted at `root_group`) once it entered, the largest subtree first.
pub(super) fn broadcast_send(
    op: &Op<'_>,
    root_group: usize,
    dest: usize,
    from: usize,
    nbytes: usize,
) -> Result<()> {
    let v = op.tree_rank(root_group);
    for j in tree::children(v, op.groups.len()).rev() {
        op.wait_raised(FROM_BELOW + j as usize);
        op.send_counted(op.leader_of(op.tree_group(root_group, v + (1 << j))), dest, from, nbytes)?;
    }
    Ok(())
}

/// fcollect among the leaders, each holding its host's blocks (`nbytes` each) in its
/// destination (`all` bytes): see [`gather`].
pub(super) fn fcollect(op: &Op<'_>, dest: usize, nbytes: usize, all: usize, eager: bool) -> Result<()> {
    let span = |first: usize, count: usize| (first * nbytes, count * nbytes);
    if eager {
        gather_eager(op, dest, &span, all)
    } else {
        gather(op, dest, &span, all)
    }
}

/// Gathers among the leaders, each holding its host's members' blocks in place in its
/// destination (`all` bytes), where `span(first, count)` is the byte range (offset, length)
/// of members `first..first + count`, consecutive in the destination (fcollect: equal blocks;
/// collect: any sizes): up a tree rooted at group 0, each leader receives its children's
/// subtrees' blocks in place (its children may all send at once: their blocks are disjoint)
/// and sends its own subtree's to its parent, run by run (consecutive members); then the
/// whole result comes down.
pub(super) fn gather(
    op: &Op<'_>,
    dest: usize,
    span: &dyn Fn(usize, usize) -> (usize, usize),
    all: usize,
) -> Result<()> {
    let (groups, l, v) = (op.groups, op.groups.len(), op.groups.mine());
    let base = op.counted_base();
    let messages_of = |first: usize| -> usize {
        let runs = groups.runs_of_groups(first..tree::subtree_end(first, l));
        runs.iter().map(|&(i, count)| counted_messages(span(i, count).1)).sum()
    };
    let mut expected = 0;
    for j in tree::children(v, l) {
        let c = v + (1 << j);
        op.raise(c, FROM_ABOVE + j as usize);
        expected += messages_of(c);
    }
    op.wait_counted(base, expected);
    if let Some(k) = tree::parent(v) {
        op.wait_raised(FROM_ABOVE + k as usize);
        let to = op.leader_of(v - (1 << k));
        for (first, count) in groups.runs_of_groups(v..tree::subtree_end(v, l)) {
            let (offset, len) = span(first, count);
            op.send_counted(to, dest + offset, dest + offset, len)?;
        }
        expected += counted_messages(all);
        op.wait_counted(base, expected);
    }
    for j in tree::children(v, l).rev() {
        op.send_counted(op.leader_of(v + (1 << j)), dest, dest, all)?;
    }
    Ok(())
}

/// [`gather`] of a result of at most [`EAGER_REGION_BYTES`], eager: each leader puts its
/// subtree's blocks, packed run by run, into its parent's staging area (at the place of its
/// subtree among the parent's children's, flagged in the parent's [`FROM_BELOW`] + `k`)
/// without waiting to be asked, then the whole result comes down as in [`gather`]. 2 (L - 1)
/// messages where [`gather`] sends 3 (L - 1). The parts are free for the reason given at
/// [`reduce_eager`], whose parts lie in the same region: a parent reads all its children's
/// data before it sends anything down, and a child writes again only after that.
pub(super) fn gather_eager(
    op: &Op<'_>,
    dest: usize,
    span: &dyn Fn(usize, usize) -> (usize, usize),
    all: usize,
) -> Result<()> {
    let (groups, l, v) = (op.groups, op.groups.len(), op.groups.mine());
    assert!(all <= EAGER_REGION_BYTES, "{}: an eager gather of {all} bytes", op.routine);
    let base = op.counted_base();
    let region = op.rt.stage_addr(op.team.slot) + EAGER_PARTIALS_AT;
    let packed_len = |range: std::ops::Range<usize>| -> usize {
        groups.runs_of_groups(range).iter().map(|&(first, count)| span(first, count).1).sum()
    };
    let mut at = 0;
    for j in tree::children(v, l) {
        let c = v + (1 << j);
        op.wait_raised(FROM_BELOW + j as usize);
        for (first, count) in groups.runs_of_groups(c..tree::subtree_end(c, l)) {
            let (offset, len) = span(first, count);
            // SAFETY: child c's packed blocks landed in our region (its flag is up) at `at`
            // (the children's subtrees in order, as each child computed its place), within
            // `all` bytes of the region; its runs' places in our destination are ours.
            unsafe { copy(dest + offset, region + at, len) };
            at += len;
        }
    }
    if let Some(k) = tree::parent(v) {
        let parent = v - (1 << k);
        let mut packed = Vec::with_capacity(all);
        for (first, count) in groups.runs_of_groups(v..tree::subtree_end(v, l)) {
            let (offset, len) = span(first, count);
            // SAFETY: our subtree's blocks, in our own destination (ours and our children's,
            // copied there above).
            packed
                .extend_from_slice(unsafe { std::slice::from_raw_parts((dest + offset) as *const u8, len) });
        }
        op.rt.put_stage_flagged(
            op.routine,
            op.leader_of(parent),
            op.team.slot,
            EAGER_PARTIALS_AT + packed_len(parent + 1..v),
            &packed,
            FlagWord::Slot(FROM_BELOW + k as usize),
            op.flag_value(0),
        );
        op.wait_counted(base, counted_messages(all));
    }
    for j in tree::children(v, l).rev() {
        op.send_counted(op.leader_of(v + (1 << j)), dest, dest, all)?;
    }
    Ok(())
}

/// Reduction among the leaders, each holding its host's partial result `part`: up a tree
/// rooted at group 0, each leader lets its children send, one at a time and the smallest
/// subtree first, their subtree's partial into its destination and combines it into its own
/// (so a leader's partial always covers a consecutive range of groups, combined lower range
/// first); the root's result then comes down the tree into every leader's destination.
/// Only the root computes the result, so every member gets the same bits.
pub(super) fn reduce<T: Copy, O: ReduceOp<T>>(op: &Op<'_>, dest: usize, part: Vec<T>) -> Result<()> {
    let (l, v) = (op.groups.len(), op.groups.mine());
    let nbytes = std::mem::size_of_val(&part[..]);
    let messages = counted_messages(nbytes);
    let base = op.counted_base();
    let mut acc = part;
    let mut expected = 0;
    for j in tree::children(v, l) {
        op.raise(v + (1 << j), FROM_ABOVE + j as usize);
        expected += messages;
        op.wait_counted(base, expected);
        // SAFETY: our own checked destination of `acc.len()` elements of T, aligned (checked
        // by the caller), holding the child's partial (all its counted messages arrived);
        // nobody writes it until we let the next child send.
        let theirs = unsafe { std::slice::from_raw_parts(dest as *const T, acc.len()) };
        combine::<T, O>(op.routine, &mut acc, theirs);
    }
    match tree::parent(v) {
        Some(k) => {
            op.wait_raised(FROM_ABOVE + k as usize);
            op.send_counted(op.leader_of(v - (1 << k)), dest, acc.as_ptr() as usize, nbytes)?;
            expected += messages;
            op.wait_counted(base, expected);
        }
        // SAFETY: our own checked destination; every child's partial was read above.
        None => unsafe { copy(dest, acc.as_ptr() as usize, nbytes) },
    }
    for j in tree::children(v, l).rev() {
        op.send_counted(op.leader_of(v + (1 << j)), dest, dest, nbytes)?;
    }
    Ok(())
}

/// Reduction among the leaders of a partial of at most [`EAGER_PARTIAL_BYTES`], eager: up the
/// tree rooted at group 0 each leader sends its subtree's partial into its parent's staging
/// area (the part of child `2^k` before it) at once, flagged in the parent's [`FROM_BELOW`] +
/// `k`, without waiting to be asked; the result comes down as counted messages into the
/// children's destinations. 2 (L - 1) messages, where [`reduce`] sends 3 (L - 1) and asks its
/// children one after the other. The parent's part of a child is free when the child sends:
/// the parent read the child's previous partial before it sent that reduction's result down,
/// which the child received before it finished that reduction, and nothing else writes there.
pub(super) fn reduce_eager<T: Copy, O: ReduceOp<T>>(op: &Op<'_>, dest: usize, part: Vec<T>) -> Result<()> {
    let (l, v) = (op.groups.len(), op.groups.mine());
    let nbytes = std::mem::size_of_val(&part[..]);
    assert!(nbytes <= EAGER_PARTIAL_BYTES, "{}: an eager partial of {nbytes} bytes", op.routine);
    let base = op.counted_base();
    let mut acc = part;
    let stage = op.rt.stage_addr(op.team.slot);
    for j in tree::children(v, l) {
        op.wait_raised(FROM_BELOW + j as usize);
        // SAFETY: our own staging area's part of child j, holding its partial of `acc.len()`
        // elements of T (its flag is up; the part is aligned to 8 bytes, as T's elements are),
        // not written again before we send this reduction's result down to it.
        let theirs = unsafe { std::slice::from_raw_parts((stage + partial_at(j)) as *const T, acc.len()) };
        combine::<T, O>(op.routine, &mut acc, theirs);
    }
    match tree::parent(v) {
        Some(k) => {
            // SAFETY: `acc`'s own elements, as bytes.
            let bytes = unsafe { std::slice::from_raw_parts(acc.as_ptr().cast::<u8>(), nbytes) };
            op.rt.put_stage_flagged(
                op.routine,
                op.leader_of(v - (1 << k)),
                op.team.slot,
                partial_at(k),
                bytes,
                FlagWord::Slot(FROM_BELOW + k as usize),
                op.flag_value(0),
            );
            op.wait_counted(base, counted_messages(nbytes));
        }
        // SAFETY: our own checked destination; every child's partial was read above.
        None => unsafe { copy(dest, acc.as_ptr() as usize, nbytes) },
    }
    for j in tree::children(v, l).rev() {
        op.send_counted(op.leader_of(v + (1 << j)), dest, dest, nbytes)?;
    }
    Ok(())
}

/// Alltoall among the leaders by Bruck's exchange: `ceil(log2 L)` steps where the other forms
/// send `L - 1` messages from every PE (the 8-byte alltoall over 64 simulated hosts × 1 PE
/// took 6.4 × Open MPI's MPI so; docs/PERFORMANCE.md). This leader holds, for each distance
/// `k` in `1..L`, the *part* of the host pair (origin, `mine + k`): for each member `j` of the
/// destination host, in team order, block `j` of each member of the origin's host, in team
/// order. In step `s` it sends the parts whose distance has bit `s` set to the leader `2^s`
/// groups after it, and replaces them by those of the leader `2^s` groups before it. After
/// the steps every part has come `k` groups to its destination: the part at distance `k`
/// holds what the group `k` before this one sends to this host, which the leader copies into
/// its members' destinations (they arrived: free). Parts differ in size over ragged hosts;
/// every leader knows their origins, hence their sizes.
///
/// A step's message lands in the receiver's staging area where `plan::bruck_steps` places
/// it (a slice of its own, or the half of the steps of its parity), flagged in the receiver's
/// word [`FROM_ABOVE`] + `s`, and is sent only after the receiver raised [`FROM_BELOW`] + `s`
/// on the sender in this collective: when it begins (it has read every earlier collective's
/// message then) for every step with slices and the first two with halves, and with halves
/// for step `s + 2` once it has read step `s`'s message out of their half. `sources` are the
/// world addresses of this host's members' sources (arrived: ready and unchanged until
/// released).
pub(super) fn alltoall(op: &Op<'_>, bufs: Bufs, sources: &[usize], layout: BruckSteps) -> Result<()> {
    let Bufs { dest, dest_extent, dest_blocks, src_blocks, .. } = bufs;
    let block = src_blocks.bytes();
    let (groups, l, r) = (op.groups, op.groups.len(), op.groups.mine());
    let steps = tree::depth(l) as usize;
    let part_bytes = |o: usize, d: usize| groups.members(o).len() * groups.members(d).len() * block;
    // The leader that sends to us in step s may, once we are done with where it lands.
    let let_send = |s: usize| op.raise((r + l - (1 << s)) % l, FROM_BELOW + s);
    let first = layout.let_send_first().min(steps);
    (0..first).for_each(let_send);
    // Our parts, by distance (none at 0: blocks within the host were copied already).
    let mut parts: Vec<Vec<u8>> = (0..l)
        .map(|k| {
            let mut part = Vec::new();
            if k > 0 {
                part.reserve(part_bytes(r, (r + k) % l));
                for &j in groups.members((r + k) % l) {
                    for &from in sources {
                        // SAFETY: a source of a member of our host (arrived: ready and
                        // unchanged until we release), block j, inside its checked extent.
                        unsafe { src_blocks.gather(from, j, &mut part) };
                    }
                }
            }
            part
        })
        .collect();
    let mut message = Vec::new();
    for s in 0..steps {
        let dist = 1usize << s;
        let moving = (1..l).filter(|k| k & dist != 0);
        message.clear();
        for k in moving.clone() {
            message.extend_from_slice(&parts[k]);
        }
        op.wait_raised(FROM_BELOW + s);
        op.rt.put_stage_flagged(
            op.routine,
            op.leader_of((r + dist) % l),
            op.team.slot,
            layout.at(s),
            &message,
            crate::runtime::FlagWord::Slot(FROM_ABOVE + s),
            op.flag_value(0),
        );
        op.wait_raised(FROM_ABOVE + s);
        let stage = op.rt.stage_addr(op.team.slot) + layout.at(s);
        let mut offset = 0;
        for k in moving {
            // What now sits at distance k came from the group `(k mod 2 dist)` before us.
            let origin = (r + l - (k & (2 * dist - 1))) % l;
            let len = part_bytes(origin, (origin + k) % l);
            // SAFETY: step s's message landed in our staging area (its flag is up), `len`
            // bytes at `offset` within its place, and nobody writes there before we let a
            // step that lands there send: s + 2 (below, with halves) or a step of a later
            // collective.
            parts[k] = unsafe { std::slice::from_raw_parts((stage + offset) as *const u8, len) }.to_vec();
            offset += len;
        }
        if s + first < steps {
            let_send(s + first);
        }
    }
    let local = groups.members(r);
    for (k, part) in parts.iter().enumerate().skip(1) {
        let origin = groups.members((r + l - k) % l);
        for (pj, &j) in local.iter().enumerate() {
            let to = at(op.rt, op.routine, dest, dest_extent, op.pe(j))?;
            for (pi, &i) in origin.iter().enumerate() {
                let from = part[(pj * origin.len() + pi) * block..].as_ptr() as usize;
                // SAFETY: member j arrived (its destination is free, block i of it written by
                // us alone); the part holds `block` bytes there.
                unsafe { dest_blocks.scatter(to, i, from) };
            }
        }
    }
    Ok(())
}
