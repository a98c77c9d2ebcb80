//! collect across hosts (blocks of any size, in team order), in two hierarchical operations:
//! the counts, then the blocks. Flat, every member put its count and its block to every
//! member (n² messages, and an endpoint from every PE to every PE).
//!
//! 1. **Counts.** Each member publishes its byte count in its slot ([`W_WORD`]) and the
//!    counts are all-gathered in two levels (`team::host_allgather`: members arrive at their
//!    leaders, the leaders all-gather their hosts' counts by Bruck's exchange in ceil(log2 L)
//!    steps, into the staging area's part after `HIER_STAGE_BYTES`, which no other form of a
//!    team across hosts uses, and each leader copies them into its members' staging areas
//!    before it releases them). Every member so computes the same total, and all return the
//!    same error for a bad count.
//! 2. **Blocks.** As fcollect over many hosts (`wide::gather`): each leader copies its host's
//!    blocks into its destination at their offsets, the leaders gather them up and down a
//!    tree, run by run, and the members take the result (pushed, or copied from the leader's
//!    destination).
use std::sync::atomic::Ordering;

use super::plan;
use super::{wide, Op};
use crate::coll::{at, collect_total, copy, Collect, INVALID_COUNT, W_WORD};
use crate::error::Result;
use crate::runtime::Runtime;
use crate::team::host_allgather::HostAllgather;
use crate::team::host_groups::HostGroups;
use crate::team::TeamInner;

/// collect on a team across hosts where `plan::collect_is_hierarchical`: returns the total bytes.
pub(in crate::coll) fn collect(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    args: Collect,
) -> Result<usize> {
    let Collect { dest, src, nbytes, dest_cap } = args;
    let n = team.n_pes();
    let counts = gather_counts(rt, team, groups, routine, nbytes.map_or(INVALID_COUNT, |b| b as u64));
    // Every member computes the same total from the same counts: all fail together.
    let total = collect_total(routine, &counts, dest_cap)?;
    if total == 0 {
        team.sync_unchecked(rt);
        return Ok(0);
    }
    super::check_own(rt, routine, dest, total)?;
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0usize);
    for &c in &counts {
        offsets.push(offsets[offsets.len() - 1] + c as usize);
    }
    let op = Op::new(rt, team, groups, routine);
    let push = plan::push(total);
    if !op.is_leader() {
        op.member_takes_result(push, dest, total)?;
        return Ok(total);
    }
    op.wait_arrivals(op.local_others());
    for &i in groups.members(groups.mine()) {
        let len = counts[i] as usize;
        if len > 0 {
            let from = at(rt, routine, src, len, op.pe(i))?;
            // SAFETY: member i arrived: its source (checked on its PE, `len` bytes) is ready and
            // unchanged until we release; block i of our destination (checked above) is ours.
            unsafe { copy(dest + offsets[i], from, len) };
        }
    }
    let span = |first: usize, count: usize| (offsets[first], offsets[first + count] - offsets[first]);
    if plan::gather_is_eager(total) {
        wide::gather_eager(&op, dest, &span, total)?;
    } else {
        wide::gather(&op, dest, &span, total)?;
    }
    op.push_to_members(push, dest, total)?;
    op.release_and_wait(push);
    Ok(total)
}

/// Phase 1: every member's byte count (`mine` for this PE), in team order, on every member.
fn gather_counts(
    rt: &Runtime,
    team: &TeamInner,
    groups: &HostGroups,
    routine: &'static str,
    mine: u64,
) -> Vec<u64> {
    let op = Op::new(rt, team, groups, routine);
    if !op.is_leader() {
        // Read by our leader once we arrived.
        op.word(rt.my_pe, W_WORD).store(mine, Ordering::Relaxed);
    }
    HostAllgather::new(1).wait(&op, |i, out| {
        let pe = op.pe(i);
        // A member's count, published before it arrived (the leader's wait saw the arrival).
        out.push(if pe == rt.my_pe { mine } else { op.word(pe, W_WORD).load(Ordering::Relaxed) });
    })
}
