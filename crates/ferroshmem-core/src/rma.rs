//! One-sided copies between this PE and any PE's symmetric memory. On one machine every PE's
//! memory is mapped here, so a put is a copy followed by a doorbell check, and a get a copy.
//! Every routine completes before it returns, so `_nbi` forms are the same code and quiet is a
//! fence.
#![allow(unsafe_code)]

use crate::error::{Error, Result};
use crate::net::{Completion, Net};
use crate::runtime::{Runtime, Target};

/// The network transport of a runtime that returned a `Target::Net` (only a job that spans
/// hosts does).
pub(crate) fn net(rt: &Runtime) -> &Net {
    rt.net().expect("a PE on another host implies the network transport")
}

/// Copies `nbytes` from local `src` to the symmetric `dest` on PE `pe`.
///
/// # Safety
/// `src` must be readable for `nbytes`; `dest` is checked to be symmetric.
#[inline]
pub unsafe fn put(
    rt: &Runtime,
    routine: &'static str,
    dest: *mut u8,
    src: *const u8,
    nbytes: usize,
    pe: i64,
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe { put_completed_by(rt, routine, dest, src, nbytes, pe, Completion::Quiet) }
}

/// [`put`], saying who learns that it landed when it crosses the network (see
/// [`Completion`]).
///
/// # Safety
/// As for [`put`].
#[inline]
pub(crate) unsafe fn put_completed_by(
    rt: &Runtime,
    routine: &'static str,
    dest: *mut u8,
    src: *const u8,
    nbytes: usize,
    pe: i64,
    completion: Completion,
) -> Result<()> {
    let target = rt.target(routine, dest as usize, nbytes, pe)?;
    if nbytes == 0 {
        return Ok(());
    }
    match target {
        Target::Mapped(target) => {
            // SAFETY: `target` lies in PE `pe`'s mapped symmetric memory for nbytes (checked
            // by `target`); `src` is readable (caller). `copy` allows the overlap of a put to
            // ourselves.
            unsafe { crate::bulk_copy::copy(target as *mut u8, src, nbytes) };
            rt.notify_after_copy(pe as usize, nbytes);
            Ok(())
        }
        Target::Net { pe, region, offset } => {
            // SAFETY: `src` is readable for nbytes (caller).
            let src = unsafe { std::slice::from_raw_parts(src, nbytes) };
            net(rt).put(routine, pe, region, offset, src, completion)
        }
    }
}

/// Copies `nbytes` from the symmetric `src` on PE `pe` to local `dest`.
///
/// # Safety
/// `dest` must be writable for `nbytes`; `src` is checked to be symmetric.
#[inline]
pub unsafe fn get(
    rt: &Runtime,
    routine: &'static str,
    dest: *mut u8,
    src: *const u8,
    nbytes: usize,
    pe: i64,
) -> Result<()> {
    let source = rt.target(routine, src as usize, nbytes, pe)?;
    if nbytes == 0 {
        return Ok(());
    }
    match source {
        Target::Mapped(source) => {
            // SAFETY: `source` is mapped for nbytes (checked); `dest` is writable (caller).
            unsafe { crate::bulk_copy::copy(dest, source as *const u8, nbytes) };
            Ok(())
        }
        Target::Net { pe, region, offset } => {
            // SAFETY: `dest` is writable for nbytes (caller) and nothing else uses it now.
            let dest = unsafe { std::slice::from_raw_parts_mut(dest, nbytes) };
            net(rt).get(routine, pe, region, offset, dest)
        }
    }
}

/// Byte extent `[lo, hi)` touched by `nelems` elements of `elem` bytes at a stride of `stride`
/// elements, relative to the first element.
fn strided_extent(
    routine: &'static str,
    argument: &'static str,
    elem: usize,
    stride: isize,
    nelems: usize,
) -> Result<(isize, isize)> {
    if nelems == 0 {
        return Ok((0, 0));
    }
    let span = (stride as i128) * (elem as i128) * ((nelems - 1) as i128);
    let (lo, hi) = if span < 0 { (span, elem as i128) } else { (0, span + elem as i128) };
    if lo < isize::MIN as i128 / 2 || hi > isize::MAX as i128 / 2 {
        return Err(Error::invalid(
            routine,
            argument,
            format!("stride {stride} over {nelems} elements overflows"),
        ));
    }
    Ok((lo as isize, hi as isize))
}

/// Which side of a strided copy is remote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remote {
    /// A put: the destination is on the other PE.
    Dest,
    /// A get: the source is on the other PE.
    Source,
}

/// Strided copy (shmem_iput / shmem_iget): element i of `src` (stride `sst` elements) goes to
/// element i of `dest` (stride `dst`); the `remote` side is on PE `pe` and is checked to be
/// symmetric over its whole extent.
///
/// # Safety
/// The local side must be valid (readable for a put, writable for a get) at every strided element.
#[allow(clippy::too_many_arguments)]
pub unsafe fn strided(
    rt: &Runtime,
    routine: &'static str,
    remote: Remote,
    dest: *mut u8,
    src: *const u8,
    elem: usize,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: i64,
) -> Result<()> {
    let (dlo, dhi) = strided_extent(routine, "dst", elem, dst, nelems)?;
    let (slo, shi) = strided_extent(routine, "sst", elem, sst, nelems)?;
    let (remote_lo, remote_len, remote_base) = match remote {
        Remote::Dest => (dlo, dhi - dlo, dest as usize),
        Remote::Source => (slo, shi - slo, src as usize),
    };
    let at = (remote_base as isize + remote_lo) as usize;
    if let Target::Net { pe, region, offset } = rt.target(routine, at, remote_len as usize, pe)? {
        // Another host: one transfer per element (the remote extent was checked whole).
        let e = elem as isize;
        for i in 0..nelems as isize {
            let (d, s) = (dest as isize + i * dst * e, src as isize + i * sst * e);
            match remote {
                Remote::Dest => {
                    // SAFETY: the local source element is readable (caller).
                    let from = unsafe { std::slice::from_raw_parts(s as *const u8, elem) };
                    net(rt).put(
                        routine,
                        pe,
                        region,
                        offset + (d - at as isize) as usize,
                        from,
                        Completion::Quiet,
                    )?;
                }
                Remote::Source => {
                    // SAFETY: the local destination element is writable (caller).
                    let to = unsafe { std::slice::from_raw_parts_mut(d as *mut u8, elem) };
                    net(rt).get(routine, pe, region, offset + (s - at as isize) as usize, to)?;
                }
            }
        }
        return Ok(());
    }
    let (mut dest, mut src) = (dest as isize, src as isize);
    match remote {
        Remote::Dest => {
            dest = rt.translate(routine, (dest + dlo) as usize, (dhi - dlo) as usize, pe)? as isize - dlo
        }
        Remote::Source => {
            src = rt.translate(routine, (src + slo) as usize, (shi - slo) as usize, pe)? as isize - slo
        }
    }
    let e = elem as isize;
    for i in 0..nelems as isize {
        // SAFETY: the remote elements lie in the extent checked above; the local ones are
        // valid (caller).
        unsafe { std::ptr::copy((src + i * sst * e) as *const u8, (dest + i * dst * e) as *mut u8, elem) };
    }
    if remote == Remote::Dest {
        rt.notify(pe as usize);
    }
    Ok(())
}

/// `shmem_ptr`: the address in this process of the symmetric object `addr` on PE `pe`, or null
/// when it is not symmetric or the PE does not exist.
pub fn ptr(rt: &Runtime, addr: usize, pe: i64) -> usize {
    rt.check_pe("shmem_ptr", pe).ok().and_then(|pe| rt.remote_addr(addr, 0, pe)).unwrap_or(0)
}
