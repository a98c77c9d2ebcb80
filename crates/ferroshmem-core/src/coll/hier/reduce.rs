//! Reductions of teams across hosts (see the parent module for the words and the staged
//! exchanges): each leader reduces its host's sources, then the leaders combine their
//! partial results (staged chunks, a chain of direct messages, or over many hosts a tree).
#![allow(unsafe_code)]

use super::plan::{self, ReduceForm, Shape};
use super::wide;
use super::*;

/// Reduction: each leader reduces its host's sources (members in team order), then the
/// leaders exchange these partial results chunk by chunk through their staging areas and each
/// reduces the chunks in group order (every leader the same order, so every member gets the
/// same bits); the members copy the result from their leader's destination.
pub(in crate::coll) fn reduce<T: Copy, O: ReduceOp<T>>(
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
    let form = plan::reduce(&Shape::of(groups), count, size);
    let (wide, direct, chunk, chunks) = match form {
        ReduceForm::TooLarge => {
            return Err(Error::AcrossHosts {
                routine,
                what: "reductions of this many elements over this many hosts",
            })
        }
        ReduceForm::Tree | ReduceForm::EagerTree => (true, false, count, 1),
        ReduceForm::Direct { chunk, chunks } => (false, true, chunk, chunks),
        ReduceForm::Staged { chunk, chunks } => (false, false, chunk, chunks),
    };
    let op = Op::new(rt, team, groups, routine);
    // Chunk c's flags follow the reading of chunk c - 1: the last chunk's marks the whole
    // reduction as entered.
    let (first, credit) =
        if direct || wide { (0, 0) } else { team.take_staged_exchanges(chunks, op.flag_value(chunks - 1)) };
    let meeting = if direct { op.take_meeting() } else { None };
    let push = plan::push(nbytes);
    if !op.is_leader() {
        return op.member_takes_result(push, dest, nbytes);
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
        if form == ReduceForm::EagerTree {
            wide::reduce_eager::<T, O>(&op, dest, part)?;
        } else {
            wide::reduce::<T, O>(&op, dest, part)?;
        }
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
