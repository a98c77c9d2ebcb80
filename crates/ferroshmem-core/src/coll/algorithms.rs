//! The collectives written once over any [`Group`]: broadcast, fcollect, collect,
//! alltoall(s) and reductions on shared memory (each hands a group that spans hosts to
//! `across`), and the helpers that `hier` and `across` share with them.
#![allow(unsafe_code)]

use super::{
    across, Alltoalls, Broadcast, Collect, EagerBuf, Group, ReduceOp, EAGER_BYTES, REDUCE_SCATTER_BYTES,
    STAGED_BLOCK_BYTES,
};
use crate::error::{Error, Result};
use crate::runtime::Runtime;
use crate::team::checked::Signature;
use crate::team::local_checks::strided_extent;

/// Address of `len` bytes at local symmetric `addr` as mapped for world PE `pe`.
#[inline]
pub(super) fn at(rt: &Runtime, routine: &'static str, addr: usize, len: usize, pe: usize) -> Result<usize> {
    if len == 0 {
        // Nothing is read or written (zero elements): any address, NULL included, will do.
        return Ok(addr);
    }
    rt.remote_addr(addr, len, pe).ok_or(Error::NotSymmetric { routine, addr, len })
}

/// Copies `len` bytes (`src` and `dst` must not overlap unless equal).
///
/// # Safety
/// Both ranges are mapped, and no one else writes them during the copy.
#[inline]
pub(super) unsafe fn copy(dst: usize, src: usize, len: usize) {
    // The small collectives copy many 8- and 4-byte blocks: a load and a store, not a call.
    // SAFETY: forwarded contract (every arm); the accesses are unaligned-tolerant.
    unsafe {
        match len {
            8 => std::ptr::write_unaligned(dst as *mut u64, std::ptr::read_unaligned(src as *const u64)),
            4 => std::ptr::write_unaligned(dst as *mut u32, std::ptr::read_unaligned(src as *const u32)),
            0 => {}
            _ if dst != src => std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len),
            _ => {}
        }
    }
}

/// A collective of zero bytes moves nothing but still synchronises the group, as the
/// specification says; its buffers (NULL is fine) are not looked at.
fn sync_without_data(rt: &Runtime, g: &mut impl Group) -> Result<()> {
    g.enter(rt, 0);
    g.leave(rt);
    Ok(())
}

/// Broadcast (see [`Broadcast`]).
pub fn broadcast(rt: &Runtime, g: &mut impl Group, routine: &'static str, args: Broadcast) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    broadcast_body(rt, g, routine, args)
}

/// The work of [`broadcast`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn broadcast_body(rt: &Runtime, g: &mut impl Group, routine: &'static str, args: Broadcast) -> Result<()> {
    let Broadcast { dest, src, nbytes, root, update_root } = args;
    g.check(rt, || Signature::new("shmem_broadcast", &[nbytes as i64, root as i64]))?;
    if root >= g.n() {
        return Err(Error::invalid(routine, "PE_root", format!("{root} not below team size {}", g.n())));
    }
    if g.spans_hosts(rt) {
        return across::broadcast(rt, g, routine, args);
    }
    if nbytes == 0 {
        return sync_without_data(rt, g);
    }
    at(rt, routine, dest, nbytes, rt.my_pe)?;
    let root_src = at(rt, routine, src, nbytes, g.pe(root))?;
    if g.broadcast_staged(rt, root, src, dest, nbytes, g.me() != root || update_root) {
        return Ok(());
    }
    if nbytes <= EAGER_BYTES {
        let len = if g.me() == root { nbytes } else { 0 };
        if g.enter_eager(rt, src, len, nbytes) {
            if g.me() != root || update_root {
                g.wait_member(rt, root);
                // SAFETY: the root's scratch holds this epoch's data until we move on.
                unsafe { copy(dest, g.fetch(rt, root, &mut EagerBuf::new()), nbytes) };
            }
            g.pad_epoch(rt);
            return Ok(());
        }
    }
    g.enter(rt, 0);
    if g.me() != root || update_root {
        g.wait_member(rt, root);
        // SAFETY: the root has entered, so its source is ready and stays unchanged until the
        // closing sync; our destination is written by us alone.
        unsafe { copy(dest, root_src, nbytes) };
    }
    g.leave(rt);
    Ok(())
}

/// fcollect: every member's `nbytes` from `src` concatenated in member order into `dest`.
pub fn fcollect(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    fcollect_body(rt, g, routine, dest, src, nbytes)
}

/// The work of [`fcollect`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn fcollect_body(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
) -> Result<()> {
    g.check(rt, || Signature::new("shmem_fcollect", &[nbytes as i64]))?;
    if g.spans_hosts(rt) {
        return across::fcollect(rt, g, routine, dest, src, nbytes);
    }
    if nbytes == 0 {
        return sync_without_data(rt, g);
    }
    let n = g.n();
    at(rt, routine, dest, nbytes * n, rt.my_pe)?;
    at(rt, routine, src, nbytes, rt.my_pe)?;
    if g.exchange(rt, src, nbytes, 1, 0) {
        for i in 0..n {
            // SAFETY: the exchange holds every member's block until our next collective.
            unsafe { copy(dest + i * nbytes, g.exchanged(rt, i), nbytes) };
        }
        return Ok(());
    }
    if nbytes <= EAGER_BYTES && g.enter_eager(rt, src, nbytes, nbytes) {
        g.all_entered(rt);
        for k in 0..n {
            let i = (g.me() + k) % n;
            g.wait_member(rt, i);
            // SAFETY: member i's scratch holds this epoch's block until we move on.
            unsafe { copy(dest + i * nbytes, g.fetch(rt, i, &mut EagerBuf::new()), nbytes) };
        }
        return Ok(());
    }
    g.enter(rt, 0);
    for k in 0..n {
        let i = (g.me() + k) % n;
        g.wait_member(rt, i);
        let from = at(rt, routine, src, nbytes, g.pe(i))?;
        // SAFETY: member i entered: its source is ready and unchanged until the closing sync.
        unsafe { copy(dest + i * nbytes, from, nbytes) };
    }
    g.leave(rt);
    Ok(())
}

/// collect: like fcollect with a different byte count on each member (see [`Collect`]).
/// Returns the total bytes.
pub fn collect(rt: &Runtime, g: &mut impl Group, routine: &'static str, args: Collect) -> Result<usize> {
    let _call = rt.enter_call(routine, g.team());
    collect_body(rt, g, routine, args)
}

/// The work of [`collect`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn collect_body(rt: &Runtime, g: &mut impl Group, routine: &'static str, args: Collect) -> Result<usize> {
    g.check(rt, || Signature::new("shmem_collect", &[]))?;
    if g.spans_hosts(rt) {
        return across::collect(rt, g, routine, args);
    }
    let Collect { dest, src, nbytes, dest_cap } = args;
    let n = g.n();
    if let Some(nbytes) = nbytes {
        at(rt, routine, src, nbytes, rt.my_pe)?;
    }
    // The count travels +1 so that an active set's word 0 still means "nothing published".
    g.enter(rt, nbytes.map_or(INVALID_COUNT, |b| b as u64) + 1);
    let mut counts = Vec::with_capacity(n);
    for i in 0..n {
        counts.push(g.wait_member(rt, i).wrapping_sub(1));
    }
    // Every member computes the same total, so all fail (and still sync) together.
    let checked = collect_total(routine, &counts, dest_cap)
        .and_then(|total| at(rt, routine, dest, total, rt.my_pe).map(|_| total));
    let total = match checked {
        Ok(total) => total,
        Err(e) => {
            g.leave(rt);
            return Err(e);
        }
    };
    let mut off = 0;
    for (i, &len) in counts.iter().enumerate() {
        let len = len as usize;
        let from = at(rt, routine, src, len, g.pe(i))?;
        // SAFETY: member i entered (waited above); its source is stable until the sync.
        unsafe { copy(dest + off, from, len) };
        off += len;
    }
    g.leave(rt);
    Ok(total)
}

/// The count a member of a collect publishes when its own count is invalid (no source can
/// hold that many bytes).
pub(super) const INVALID_COUNT: u64 = u64::MAX - 1;

/// The total of a collect's byte counts (the same on every member, who all see the same
/// counts): an error naming `nelems` if a member's count is invalid, or the total overflows
/// or exceeds `dest_cap`.
pub(super) fn collect_total(routine: &'static str, counts: &[u64], dest_cap: usize) -> Result<usize> {
    if let Some(i) = counts.iter().position(|&c| c == INVALID_COUNT) {
        return Err(Error::invalid(
            routine,
            "nelems",
            format!("team PE {i} passed more elements than its source holds"),
        ));
    }
    let total = counts
        .iter()
        .try_fold(0usize, |acc, &c| acc.checked_add(usize::try_from(c).ok()?))
        .ok_or_else(|| Error::invalid(routine, "nelems", "the members' counts add up beyond usize::MAX"))?;
    if total > dest_cap {
        return Err(Error::invalid(routine, "dest", format!("{total} bytes collected, room for {dest_cap}")));
    }
    Ok(total)
}

/// A member's bytes of an alltoall (all its blocks) above which, and up to
/// [`IN_ORDER_MAX_BYTES`], an oversubscribed alltoall enters in order
/// ([`Group::enter_in_order`]): each byte copied once and one sync, where the staged exchange
/// copies twice and pushing waits for each destination. Below, the exchange's one compact
/// write is cheaper; above, pushing spreads the copies evenly over the cores, where in order the
/// later entrants copy more, which is probably why it loses there (4 and 8 PEs on 2 cores,
/// median of five alternations: 4 KiB
/// blocks 0.85-0.87 × the exchange's time, 32 KiB among 4 0.94 × pushing's, 32 KiB among 8 1.03
/// ×, 512-byte blocks among 8 1.02 ×).
const IN_ORDER_MIN_BYTES: usize = 4 << 10;
/// See [`IN_ORDER_MIN_BYTES`].
const IN_ORDER_MAX_BYTES: usize = 128 << 10;

/// alltoalls (see [`Alltoalls`]).
pub fn alltoalls(rt: &Runtime, g: &mut impl Group, routine: &'static str, args: Alltoalls) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    alltoalls_body(rt, g, routine, args)
}

/// The work of [`alltoalls`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn alltoalls_body(rt: &Runtime, g: &mut impl Group, routine: &'static str, args: Alltoalls) -> Result<()> {
    let Alltoalls { dest, src, elem, dst, sst, nelems } = args;
    g.check(rt, || Signature::new("shmem_alltoalls", &[elem as i64, dst as i64, sst as i64, nelems as i64]))?;
    let n = g.n();
    if nelems > 0 && (dst == 0 || sst == 0) {
        return Err(Error::invalid(routine, "dst/sst", "strides must be positive"));
    }
    // Checked before any communication, from arguments that are the same on every member.
    let (Some(dest_extent), Some(src_extent)) =
        (strided_extent(n, nelems, dst, elem), strided_extent(n, nelems, sst, elem))
    else {
        return Err(Error::invalid(
            routine,
            "nelems",
            format!("{nelems} elements per PE at strides {dst}/{sst} over {n} PEs overflow"),
        ));
    };
    if g.spans_hosts(rt) {
        return if nelems == 0 || elem == 0 {
            g.network_sync(rt, routine)
        } else {
            across::alltoalls(rt, g, routine, args)
        };
    }
    if nelems == 0 || elem == 0 {
        return sync_without_data(rt, g);
    }
    at(rt, routine, dest, dest_extent, rt.my_pe)?;
    at(rt, routine, src, src_extent, rt.my_pe)?;
    let me = g.me();
    let block = nelems * elem;
    let copy_block = |to: usize, from: usize| {
        if dst == 1 && sst == 1 {
            // SAFETY: (every caller: in order, push, pull) checked extents; only this PE
            // touches this block now (the pair's mover, the pusher, the puller).
            unsafe { copy(to, from, block) };
        } else {
            for e in 0..nelems {
                // SAFETY: as above, element by element.
                unsafe { copy(to + e * dst * elem, from + e * sst * elem, elem) };
            }
        }
    };
    if (IN_ORDER_MIN_BYTES + 1..=IN_ORDER_MAX_BYTES).contains(&n.saturating_mul(block)) && g.in_order(rt) {
        // Every member's buffers must map before any member enters (the others would wait).
        for j in 0..n {
            at(rt, routine, dest, dest_extent, g.pe(j))?;
            at(rt, routine, src, src_extent, g.pe(j))?;
        }
        let before = g.enter_in_order(rt);
        let (dest_block, src_block) = (nelems * dst * elem, nelems * sst * elem);
        copy_block(dest + me * dest_block, src + me * src_block);
        for j in (1..n).map(|k| (me + k) % n).filter(|&j| before & 1 << j != 0) {
            // Member j entered first: its source is stable and its destination free until the
            // closing sync, which it cannot leave before this PE arrives.
            copy_block(at(rt, routine, dest, dest_extent, g.pe(j))? + me * dest_block, src + j * src_block);
            copy_block(dest + j * dest_block, at(rt, routine, src, src_extent, g.pe(j))? + me * src_block);
        }
        g.leave(rt);
        return Ok(());
    }
    if dst == 1 && sst == 1 && g.exchange(rt, src, block, n, me) {
        for i in 0..n {
            // SAFETY: the exchange holds every member's block for us until our next collective.
            unsafe { copy(dest + i * block, g.exchanged(rt, i), block) };
        }
        return Ok(());
    }
    if dst == 1 && sst == 1 && src_extent <= EAGER_BYTES && g.enter_eager(rt, src, src_extent, src_extent) {
        g.all_entered(rt);
        for k in 0..n {
            let i = (me + k) % n;
            g.wait_member(rt, i);
            // SAFETY: member i's scratch holds its whole source for this epoch.
            unsafe { copy(dest + i * block, g.fetch(rt, i, &mut EagerBuf::new()) + me * block, block) };
        }
        return Ok(());
    }
    if g.can_push(rt) {
        // Push: block j goes straight into member j's dest once j has entered (its dest is
        // free), members that have entered first; then this PE waits for the n - 1 blocks
        // pushed to it. Only this PE reads its source, so no closing sync is needed.
        for j in 0..n {
            at(rt, routine, dest, dest_extent, g.pe(j))?;
        }
        g.enter(rt, 0);
        let push = |j: usize| -> Result<()> {
            g.wait_member(rt, j);
            let to = at(rt, routine, dest, dest_extent, g.pe(j))? + me * nelems * dst * elem;
            copy_block(to, src + j * nelems * sst * elem);
            if j != me {
                g.delivered(rt, j);
            }
            Ok(())
        };
        // First every member already in (up to 64 of them: a bit each), then the rest in turn.
        let mut pushed = 0u64;
        if n <= 64 {
            for j in (0..n).map(|k| (me + k) % n).filter(|&j| g.has_entered(rt, j)) {
                push(j)?;
                pushed |= 1 << j;
            }
        }
        for j in (0..n).map(|k| (me + k) % n).filter(|&j| j >= 64 || pushed & (1 << j) == 0) {
            push(j)?;
        }
        g.wait_deliveries(rt);
        return Ok(());
    }
    g.enter(rt, 0);
    for k in 0..n {
        let i = (me + k) % n;
        g.wait_member(rt, i);
        let from = at(rt, routine, src, src_extent, g.pe(i))? + me * nelems * sst * elem;
        // Member i entered: its source is stable until the closing sync; this block of dest
        // is ours.
        copy_block(dest + i * nelems * dst * elem, from);
    }
    g.leave(rt);
    Ok(())
}

/// `acc[k] = op(acc[k], src[k])`, the user's operation run under [`guard_op`]. `routine`
/// names the collective in the report of a panicking operation.
#[inline]
pub(super) fn combine<T: Copy, O: ReduceOp<T>>(routine: &'static str, acc: &mut [T], src: &[T]) {
    guard_op::<T, O>(routine, || {
        for (a, &s) in acc.iter_mut().zip(src) {
            *a = O::apply(*a, s);
        }
    })
}

/// Runs `f`, which calls the user's [`ReduceOp::apply`], once per call of a collective's
/// combining loop (not per element: the loop inside stays as fast as without it). An
/// unwinding panic out of it would leave the collective half done on this PE while the other
/// members go on (a member returning `Ok` with stale data, the team out of step), so it ends
/// the job instead, with a report naming this PE, `routine` and the panic message. Under
/// `panic = "abort"` the panic aborts this process before it gets here (the launcher then
/// ends the job).
#[inline]
fn guard_op<T, O: ReduceOp<T>>(routine: &'static str, f: impl FnOnce()) {
    if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        op_panicked(routine, O::NAME, payload.as_ref())
    }
}

/// Ends the job after the user's reduction operation `op` panicked in `routine` (see
/// [`guard_op`]).
#[cold]
#[inline(never)]
fn op_panicked(routine: &'static str, op: &str, payload: &(dyn std::any::Any + Send)) -> ! {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a panic payload that is not a string)");
    crate::runtime::fatal(&Error::invalid(
        routine,
        "op",
        format!(
            "ReduceOp::apply panicked: {message} (operation {op}); the other PEs cannot finish the \
             reduction, so the job ends"
        ),
    ))
}

/// A buffer for a small reduction's accumulator: [`EAGER_BYTES`] bytes aligned for `T`
/// (`[T; 0]` gives the alignment and no size).
#[repr(C)]
struct SmallAcc<T> {
    _align: [T; 0],
    bytes: [std::mem::MaybeUninit<u8>; EAGER_BYTES],
}

/// The small reduction: `payload(i, buf)` gives the address of member i's `count` elements
/// (valid until the next call; a copy in `buf` or the group's scratch, which may be aligned
/// less than `T` when `T` is over-aligned: such a payload is first copied into a buffer
/// aligned for `T`); the result, reduced in member order, goes to `dest`.
#[inline]
fn reduce_small<T: Copy, O: ReduceOp<T>>(
    routine: &'static str,
    dest: usize,
    count: usize,
    n: usize,
    mut payload: impl FnMut(usize, &mut EagerBuf) -> usize,
) {
    let size = std::mem::size_of::<T>();
    let nbytes = count * size;
    let mut small = SmallAcc::<T> { _align: [], bytes: [std::mem::MaybeUninit::uninit(); EAGER_BYTES] };
    let mut big: Vec<T> = Vec::new();
    let acc = if nbytes <= EAGER_BYTES {
        // SAFETY: `count` elements of T fill at most the EAGER_BYTES bytes of `small`, which
        // are aligned for T; MaybeUninit needs no initialisation.
        unsafe {
            std::slice::from_raw_parts_mut(small.bytes.as_mut_ptr() as *mut std::mem::MaybeUninit<T>, count)
        }
    } else {
        big.reserve_exact(count);
        &mut big.spare_capacity_mut()[..count]
    };
    let mut buf = EagerBuf::new();
    // SAFETY: member 0's payload holds `count` elements of T (`nbytes` bytes; a byte copy
    // needs no alignment); MaybeUninit<T> has T's layout.
    unsafe { copy(acc.as_mut_ptr() as usize, payload(0, &mut buf), nbytes) };
    // SAFETY: fully initialised just above.
    let acc: &mut [T] = unsafe { &mut *(acc as *mut [std::mem::MaybeUninit<T>] as *mut [T]) };
    // Payloads not aligned for T (only for over-aligned T) are copied here first.
    let mut realigned: Vec<T> = Vec::new();
    for i in 1..n {
        let mut theirs = payload(i, &mut buf);
        if !theirs.is_multiple_of(std::mem::align_of::<T>()) {
            if realigned.capacity() < count {
                realigned.reserve_exact(count);
            }
            // SAFETY: the payload holds `nbytes` bytes; `realigned` has room for `count`
            // elements of T, aligned for T.
            unsafe { copy(realigned.as_mut_ptr() as usize, theirs, nbytes) };
            theirs = realigned.as_ptr() as usize;
        }
        // SAFETY: `theirs` holds `count` initialised elements of T (any bit pattern is one:
        // `Symmetric`, or the C types), aligned for T (checked or copied above).
        let theirs = unsafe { std::slice::from_raw_parts(theirs as *const T, count) };
        combine::<T, O>(routine, acc, theirs);
    }
    // SAFETY: the caller's dest, checked to hold `count` elements.
    unsafe { copy(dest, acc.as_ptr() as usize, nbytes) };
}

/// The largest element alignment a reduction accepts: a page, so that every PE's mapping of a
/// symmetric buffer (heaps and static data mapped at page boundaries), and of the staging
/// areas, is aligned for the element as the local one is.
const MAX_REDUCE_ALIGN: usize = 4096;

/// The routine under which checked mode compares a reduction with operation `op` (`O::NAME`):
/// one per operation, so a sum on one PE against a max on another is a mismatch.
pub fn checked_reduce_name(op: &str) -> &'static str {
    match op {
        "and" => "shmem_and_reduce",
        "or" => "shmem_or_reduce",
        "xor" => "shmem_xor_reduce",
        "max" => "shmem_max_reduce",
        "min" => "shmem_min_reduce",
        "sum" => "shmem_sum_reduce",
        "prod" => "shmem_prod_reduce",
        _ => "shmem_reduce",
    }
}

/// Reduces `count` elements of every member's `src` with `O` into every member's `dest`
/// (`dest == src` is allowed: in place).
pub fn reduce<T: Copy, O: ReduceOp<T>>(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    count: usize,
) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    reduce_body::<T, O>(rt, g, routine, dest, src, count)
}

/// The work of [`reduce`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn reduce_body<T: Copy, O: ReduceOp<T>>(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    count: usize,
) -> Result<()> {
    g.check(rt, || {
        Signature::new(checked_reduce_name(O::NAME), &[count as i64, std::mem::size_of::<T>() as i64])
    })?;
    let size = std::mem::size_of::<T>();
    let align = std::mem::align_of::<T>();
    // Known at compile time, the same on every member: all return the error alike.
    if align > MAX_REDUCE_ALIGN {
        return Err(Error::invalid(
            routine,
            "dest/source",
            format!(
                "the element type is aligned to {align} bytes; reductions support alignments up to \
                 {MAX_REDUCE_ALIGN} (where every PE's copy of a buffer is aligned alike)"
            ),
        ));
    }
    if size == 0 {
        // Zero-sized elements: every value is the same, nothing moves; still a collective.
        return if g.spans_hosts(rt) { g.network_sync(rt, routine) } else { sync_without_data(rt, g) };
    }
    if g.spans_hosts(rt) {
        return across::reduce::<T, O>(rt, g, routine, dest, src, count);
    }
    let nbytes = count * size;
    if count == 0 {
        return sync_without_data(rt, g);
    }
    if !dest.is_multiple_of(align) || !src.is_multiple_of(align) {
        return Err(Error::invalid(routine, "dest/source", "not aligned for the element type"));
    }
    at(rt, routine, dest, nbytes, rt.my_pe)?;
    at(rt, routine, src, nbytes, rt.my_pe)?;
    if dest != src && dest < src + nbytes && src < dest + nbytes {
        return Err(Error::invalid(routine, "dest/source", "overlap without being the same object"));
    }
    let n = g.n();
    let me = g.me();
    // Small and medium: every member reduces all members' payloads in member order, straight
    // into dest (nobody reads our source or dest, so in place needs nothing special).
    if n > 1 && nbytes <= STAGED_BLOCK_BYTES && g.exchange(rt, src, nbytes, 1, 0) {
        // The exchange holds every member's `count` elements until our next collective.
        reduce_small::<T, O>(routine, dest, count, n, |i, _| g.exchanged(rt, i));
        return Ok(());
    }
    if n > 1 && nbytes <= EAGER_BYTES && g.enter_eager(rt, src, nbytes, nbytes) {
        g.all_entered(rt);
        reduce_small::<T, O>(routine, dest, count, n, |i, buf| {
            g.wait_member(rt, i);
            g.fetch(rt, i, buf)
        });
        return Ok(());
    }
    let srcs: Vec<usize> = (0..n).map(|i| at(rt, routine, src, nbytes, g.pe(i))).collect::<Result<_>>()?;
    g.enter(rt, 0);
    // Used by both paths below: a member's source is read only after it entered and is stable
    // until the closing sync (the specification forbids changing it during the call).
    let slice = |a: usize, from: usize, len: usize| {
        // SAFETY: mapped, aligned memory of at least `from + len` elements (checked above).
        unsafe { std::slice::from_raw_parts((a + from * size) as *const T, len) }
    };
    if n == 1 {
        // SAFETY: our own buffers, checked above.
        unsafe { copy(dest, src, nbytes) };
    } else if nbytes < REDUCE_SCATTER_BYTES {
        // Every member reduces the whole array from all sources, in member order.
        let mut acc: Vec<T> = Vec::with_capacity(count);
        g.wait_member(rt, 0);
        acc.extend_from_slice(slice(srcs[0], 0, count));
        for (i, &s) in srcs.iter().enumerate().skip(1) {
            g.wait_member(rt, i);
            combine::<T, O>(routine, &mut acc, slice(s, 0, count));
        }
        // Others may still read our source (dest may be it): write dest after the sync.
        g.leave(rt);
        // SAFETY: our own dest, nobody reads it now.
        unsafe { copy(dest, acc.as_ptr() as usize, nbytes) };
        return Ok(());
    } else {
        // Reduce-scatter: member j reduces chunk j and writes it into every member's dest.
        let chunk = count.div_ceil(n);
        let lo = (me * chunk).min(count);
        let hi = ((me + 1) * chunk).min(count);
        let mut acc: Vec<T> = Vec::with_capacity(hi - lo);
        g.wait_member(rt, 0);
        acc.extend_from_slice(slice(srcs[0], lo, hi - lo));
        for (i, &s) in srcs.iter().enumerate().skip(1) {
            g.wait_member(rt, i);
            combine::<T, O>(routine, &mut acc, slice(s, lo, hi - lo));
        }
        for k in 0..n {
            let i = (me + k) % n;
            let to = at(rt, routine, dest, nbytes, g.pe(i))? + lo * size;
            // SAFETY: every member entered (waited above); chunk [lo, hi) of any member's
            // dest (or in-place source) is touched by this PE alone during the call.
            unsafe { copy(to, acc.as_ptr() as usize, (hi - lo) * size) };
        }
    }
    g.leave(rt);
    Ok(())
}
