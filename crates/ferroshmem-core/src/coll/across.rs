//! Collectives of teams whose members run on more than one host.
//!
//! The shared-memory algorithms of this module's parent read and write the other members'
//! memory directly, which only the PEs of one host can. A team that spans hosts takes these
//! instead: every byte moves by a *put* (a copy to a PE of this host, a UCX put to another;
//! over TCP a get costs a round trip and more, a put does not wait for the target), framed by
//! two team syncs (network-aware, see `Runtime::network_sync`): the first says every member
//! has entered (its destination is free, its source ready), the second, after each member
//! completed its puts (quiet), that everything has landed. Small contributions that need a
//! meeting place (collect's counts, reductions' blocks) go to the members' staging areas of
//! the team's slot, which the network reaches as part of each PE's control block.
//!
//! A team whose members span hosts takes the hierarchical forms of `hier` instead (shared
//! memory within a host, leaders between hosts) for sync, broadcast, fcollect, alltoall and
//! alltoalls (strided ones in windows of elements, `hier::alltoalls_window`) and reductions,
//! whatever the number of hosts, and for collect where `hier::collect_is_hierarchical`; the
//! flat forms here serve collect over teams too wide for its counts and the deprecated active
//! sets. They are correct for any team and any placement of its members.
#![allow(unsafe_code)]

use super::{combine, hier, Alltoalls, Broadcast, Collect, Group, ReduceOp, Staging};
use crate::error::{Error, Result};
use crate::net::Completion;
use crate::runtime::Runtime;
use crate::team::host_groups::HostGroups;
use crate::team::TeamInner;

/// Puts `len` bytes from local `src` to the symmetric `dest` of world PE `pe`
/// (`completion`: who learns that it landed, when it crosses the network).
pub(super) fn put(
    rt: &Runtime,
    routine: &'static str,
    pe: usize,
    dest: usize,
    src: usize,
    len: usize,
    completion: Completion,
) -> Result<()> {
    // SAFETY: `src` is the caller's checked buffer, readable for `len`; `dest` is checked to
    // be symmetric by the put itself.
    unsafe {
        crate::rma::put_completed_by(
            rt,
            routine,
            dest as *mut u8,
            src as *const u8,
            len,
            pe as i64,
            completion,
        )
    }
}

/// Checks that this PE's own `len` bytes at `addr` are symmetric (every member passes the
/// same addresses, so every member gets the same answer before anything moves).
pub(super) fn check_own(rt: &Runtime, routine: &'static str, addr: usize, len: usize) -> Result<()> {
    rt.target(routine, addr, len, rt.my_pe as i64).map(|_| ())
}

/// Connects this PE to every member on another host before a flat collective's transfers
/// (see `Net::connect_all`).
fn connect_members(rt: &Runtime, g: &impl Group, routine: &'static str) -> Result<()> {
    rt.connect_all(routine, (0..g.n()).map(|i| g.pe(i)))
}

/// The team and its host groups, when the collective is hierarchical.
fn hierarchical<'g>(rt: &Runtime, g: &'g impl Group) -> Option<(&'g TeamInner, &'g HostGroups)> {
    let team = g.team()?;
    team.host_groups(rt).map(|groups| (team, groups))
}

/// broadcast: the root puts its source into every member's destination.
pub(super) fn broadcast(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    args: Broadcast,
) -> Result<()> {
    if let Some((team, groups)) = hierarchical(rt, g) {
        return hier::broadcast(rt, team, groups, routine, args);
    }
    let Broadcast { dest, src, nbytes, root, update_root } = args;
    check_own(rt, routine, dest, nbytes)?;
    check_own(rt, routine, src, nbytes)?;
    g.network_sync(rt, routine)?;
    if g.me() == root {
        connect_members(rt, g, routine)?;
        for i in (0..g.n()).filter(|&i| i != root || update_root) {
            put(rt, routine, g.pe(i), dest, src, nbytes, Completion::Quiet)?;
        }
        rt.quiet();
    }
    g.network_sync(rt, routine)
}

/// fcollect: every member puts its block into every member's destination at its index.
pub(super) fn fcollect(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
) -> Result<()> {
    if let Some((team, groups)) = hierarchical(rt, g) {
        return hier::fcollect(rt, team, groups, routine, dest, src, nbytes);
    }
    let n = g.n();
    let total = nbytes.checked_mul(n).ok_or_else(|| Error::invalid(routine, "nelems", "size overflows"))?;
    check_own(rt, routine, dest, total)?;
    check_own(rt, routine, src, nbytes)?;
    connect_members(rt, g, routine)?;
    g.network_sync(rt, routine)?;
    let me = g.me();
    for k in 0..n {
        let i = (me + k) % n;
        put(rt, routine, g.pe(i), dest + me * nbytes, src, nbytes, Completion::Quiet)?;
    }
    rt.quiet();
    g.network_sync(rt, routine)
}

/// collect: the members' byte counts meet in every member's staging area, then each member
/// puts its block at the sum of the counts before it. Returns the total bytes.
pub(super) fn collect(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    args: Collect,
) -> Result<usize> {
    let Collect { dest, src, nbytes, dest_cap } = args;
    if let Some((team, groups)) = hierarchical(rt, g) {
        if hier::collect_is_hierarchical(&hier::Shape::of(groups)) {
            if let Some(nbytes) = nbytes {
                check_own(rt, routine, src, nbytes)?;
            }
            return hier::collect(rt, team, groups, routine, args);
        }
    }
    let Staging { slot, base, len } = g.staging();
    let n = g.n();
    if n * 8 > len {
        return Err(Error::AcrossHosts { routine, what: "collect over this many PEs" });
    }
    if let Some(nbytes) = nbytes {
        check_own(rt, routine, src, nbytes)?;
    }
    connect_members(rt, g, routine)?;
    g.network_sync(rt, routine)?;
    let me = g.me();
    // A member with an invalid count sends the mark of one (see `super::collect`).
    let count = nbytes.map_or(super::INVALID_COUNT, |b| b as u64).to_ne_bytes();
    for i in 0..n {
        rt.put_stage_bytes(routine, g.pe(i), slot, base + me * 8, &count, Completion::Quiet);
    }
    rt.quiet();
    g.network_sync(rt, routine)?;
    let counts: Vec<u64> = (0..n).map(|i| rt.read_stage_word(slot, base / 8 + i)).collect();
    // Every member computes the same total, so all fail together (and are in step: the
    // next collective begins with a sync).
    let total = super::collect_total(routine, &counts, dest_cap)?;
    let nbytes = nbytes.unwrap_or(0);
    check_own(rt, routine, dest, total)?;
    let at = counts[..me].iter().sum::<u64>() as usize;
    for k in 0..n {
        let i = (me + k) % n;
        put(rt, routine, g.pe(i), dest + at, src, nbytes, Completion::Quiet)?;
    }
    rt.quiet();
    g.network_sync(rt, routine)?;
    Ok(total)
}

/// alltoalls: block `j` of this member's source goes to block `me` of member `j`'s
/// destination (element strides `dst`, `sst`).
pub(super) fn alltoalls(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    args: Alltoalls,
) -> Result<()> {
    let Alltoalls { dest, src, elem, dst, sst, nelems } = args;
    if let Some((team, groups)) = hierarchical(rt, g) {
        if dst == 1 && sst == 1 {
            let block = nelems
                .checked_mul(elem)
                .ok_or_else(|| Error::invalid(routine, "nelems", "size overflows"))?;
            let blocks = hier::Blocks::contiguous(block);
            let layout = hier::AlltoallLayout { dest: blocks, src: blocks, window: 1 };
            return hier::alltoall(rt, team, groups, routine, (dest, src), layout);
        }
        // Strided: in windows of each block's elements (see `hier::alltoalls_window`).
        let layout = hier::AlltoallLayout {
            dest: hier::Blocks::strided(elem, nelems, dst),
            src: hier::Blocks::strided(elem, nelems, sst),
            window: hier::alltoalls_window(&hier::Shape::of(groups), g.n(), elem, nelems),
        };
        return hier::alltoall(rt, team, groups, routine, (dest, src), layout);
    }
    let n = g.n();
    let extent = |stride: usize| {
        n.checked_mul(nelems)
            .and_then(|x| (x - 1).checked_mul(stride))
            .and_then(|x| x.checked_add(1))
            .and_then(|x| x.checked_mul(elem))
            .ok_or_else(|| Error::invalid(routine, "nelems", "extent overflows"))
    };
    check_own(rt, routine, dest, extent(dst)?)?;
    check_own(rt, routine, src, extent(sst)?)?;
    connect_members(rt, g, routine)?;
    if dst != 1 || sst != 1 {
        return alltoalls_staged(rt, g, routine, Strided { dest, src, elem, dst, sst, nelems });
    }
    g.network_sync(rt, routine)?;
    let me = g.me();
    for k in 0..n {
        let j = (me + k) % n;
        put(
            rt,
            routine,
            g.pe(j),
            dest + me * nelems * elem,
            src + j * nelems * elem,
            nelems * elem,
            Completion::Quiet,
        )?;
    }
    rt.quiet();
    g.network_sync(rt, routine)
}

/// A strided alltoalls' buffers and shape, as every member passes them (element strides
/// `dst`, `sst`; `nelems` elements of `elem` bytes per block).
#[derive(Debug, Clone, Copy)]
struct Strided {
    dest: usize,
    src: usize,
    elem: usize,
    dst: usize,
    sst: usize,
    nelems: usize,
}

/// Strided alltoalls across hosts, chunk by chunk through the staging areas: each member
/// packs its elements for member j into one message to j's staging area (at its own index),
/// and each unpacks what it received into its strided destination. One message per pair of
/// members and chunk, where a put per element would be `nelems` of them.
fn alltoalls_staged(rt: &Runtime, g: &mut impl Group, routine: &'static str, args: Strided) -> Result<()> {
    let Strided { dest, src, elem, dst, sst, nelems } = args;
    let Staging { slot, base, len: room } = g.staging();
    let n = g.n();
    // Elements per member and chunk: each member's part of the staging area.
    let chunk = room / n / elem.max(1);
    if nelems > 0 && chunk == 0 {
        return Err(Error::AcrossHosts {
            routine,
            what: "strided alltoalls of such elements over this many PEs",
        });
    }
    let me = g.me();
    let mut packed: Vec<u8> = Vec::with_capacity(chunk.min(nelems) * elem);
    // Every member entered: its staging area is free.
    g.network_sync(rt, routine)?;
    let mut lo = 0;
    while lo < nelems {
        let len = chunk.min(nelems - lo);
        for k in 0..n {
            let j = (me + k) % n;
            packed.clear();
            for e in lo..lo + len {
                let from = src + (j * nelems + e) * sst * elem;
                // SAFETY: element e of block j of our own checked source (its extent checked).
                packed.extend_from_slice(unsafe { std::slice::from_raw_parts(from as *const u8, elem) });
            }
            rt.put_stage_bytes(routine, g.pe(j), slot, base + me * chunk * elem, &packed, Completion::Quiet);
        }
        rt.quiet();
        g.network_sync(rt, routine)?;
        let staged = rt.stage_addr(slot) + base;
        for i in 0..n {
            for e in 0..len {
                let to = dest + (i * nelems + lo + e) * dst * elem;
                // SAFETY: member i's chunk landed in our staging area (synced) and nobody writes
                // it before the next sync; element (i, lo + e) of our own checked destination.
                unsafe { super::copy(to, staged + (i * chunk + e) * elem, elem) };
            }
        }
        lo += len;
        // Every member read this chunk: the staging areas are free again.
        g.network_sync(rt, routine)?;
    }
    Ok(())
}

/// Reduction: chunk by chunk, every member puts its part of the source into every member's
/// staging area (member i's at i * chunk), then each member reduces the n parts in member
/// order (the same order everywhere, so every member gets the same bits).
pub(super) fn reduce<T: Copy, O: ReduceOp<T>>(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    count: usize,
) -> Result<()> {
    if let Some((team, groups)) = hierarchical(rt, g) {
        return hier::reduce::<T, O>(rt, team, groups, routine, dest, src, count);
    }
    let Staging { slot, base, len: room } = g.staging();
    let size = std::mem::size_of::<T>();
    let n = g.n();
    let room = room / 2;
    if n * size > room {
        return Err(Error::AcrossHosts { routine, what: "reductions over this many PEs" });
    }
    let nbytes =
        count.checked_mul(size).ok_or_else(|| Error::invalid(routine, "nreduce", "size overflows"))?;
    check_own(rt, routine, dest, nbytes)?;
    check_own(rt, routine, src, nbytes)?;
    if count == 0 {
        return g.network_sync(rt, routine);
    }
    connect_members(rt, g, routine)?;
    let chunk = room / (n * size);
    let me = g.me();
    let mut acc: Vec<T> = Vec::with_capacity(chunk.min(count));
    let mut lo = 0;
    while lo < count {
        let len = chunk.min(count - lo);
        g.network_sync(rt, routine)?;
        // SAFETY: our own checked source, `len` elements from `lo`.
        let part = unsafe { std::slice::from_raw_parts((src + lo * size) as *const u8, len * size) };
        for k in 0..n {
            let i = (me + k) % n;
            rt.put_stage_bytes(routine, g.pe(i), slot, base + me * chunk * size, part, Completion::Quiet);
        }
        rt.quiet();
        g.network_sync(rt, routine)?;
        let staged = rt.stage_addr(slot) + base;
        // SAFETY: every member's part landed in our staging area (synced), aligned for T
        // (page-aligned area, offsets multiples of size), and nobody writes it before the
        // next collective's first sync.
        let parts =
            |i: usize| unsafe { std::slice::from_raw_parts((staged + i * chunk * size) as *const T, len) };
        acc.clear();
        acc.extend_from_slice(parts(0));
        for i in 1..n {
            combine::<T, O>(routine, &mut acc, parts(i));
        }
        // SAFETY: our own checked destination; our source part was sent already.
        unsafe {
            std::ptr::copy_nonoverlapping(
                acc.as_ptr() as *const u8,
                (dest + lo * size) as *mut u8,
                len * size,
            )
        };
        lo += len;
    }
    Ok(())
}
