//! One-sided copies between this PE and any PE's symmetric memory. On one machine every PE's
//! memory is mapped here, so a put is a copy followed by a doorbell check, and a get a copy.
//! Every routine completes before it returns, so `_nbi` forms are the same code and quiet is a
//! fence.
#![allow(unsafe_code)]

use crate::error::{Error, Result};
use crate::runtime::Runtime;

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
    let target = rt.translate(routine, dest as usize, nbytes, pe)?;
    // SAFETY: `target` lies in PE `pe`'s mapped symmetric memory for nbytes (checked by
    // translate); `src` is readable (caller). `copy` allows the overlap of a put to ourselves.
    unsafe { std::ptr::copy(src, target as *mut u8, nbytes) };
    rt.notify(pe as usize);
    Ok(())
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
    let source = rt.translate(routine, src as usize, nbytes, pe)?;
    // SAFETY: `source` is mapped for nbytes (translate); `dest` is writable (caller).
    unsafe { std::ptr::copy(source as *const u8, dest, nbytes) };
    Ok(())
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

/// Strided put: element i of `src` (stride `sst`) goes to element i of `dest` (stride `dst`).
///
/// # Safety
/// `src` must be readable at every strided element.
#[allow(clippy::too_many_arguments)]
pub unsafe fn iput(
    rt: &Runtime,
    routine: &'static str,
    dest: *mut u8,
    src: *const u8,
    elem: usize,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: i64,
) -> Result<()> {
    let (lo, hi) = strided_extent(routine, "dst", elem, dst, nelems)?;
    strided_extent(routine, "sst", elem, sst, nelems)?;
    let base = rt.translate(routine, (dest as isize + lo) as usize, (hi - lo) as usize, pe)? as isize - lo;
    for i in 0..nelems as isize {
        // SAFETY: every target element lies in the extent checked above; source elements are
        // readable (caller).
        unsafe {
            std::ptr::copy(
                src.offset(i * sst * elem as isize),
                (base + i * dst * elem as isize) as *mut u8,
                elem,
            )
        };
    }
    rt.notify(pe as usize);
    Ok(())
}

/// Strided get: element i of the remote `src` (stride `sst`) to element i of `dest` (stride `dst`).
///
/// # Safety
/// `dest` must be writable at every strided element.
#[allow(clippy::too_many_arguments)]
pub unsafe fn iget(
    rt: &Runtime,
    routine: &'static str,
    dest: *mut u8,
    src: *const u8,
    elem: usize,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: i64,
) -> Result<()> {
    let (lo, hi) = strided_extent(routine, "sst", elem, sst, nelems)?;
    strided_extent(routine, "dst", elem, dst, nelems)?;
    let base = rt.translate(routine, (src as isize + lo) as usize, (hi - lo) as usize, pe)? as isize - lo;
    for i in 0..nelems as isize {
        // SAFETY: every source element lies in the checked extent; destination elements are
        // writable (caller).
        unsafe {
            std::ptr::copy(
                (base + i * sst * elem as isize) as *const u8,
                dest.offset(i * dst * elem as isize),
                elem,
            )
        };
    }
    Ok(())
}

/// `shmem_ptr`: the address in this process of the symmetric object `addr` on PE `pe`, or null
/// when it is not symmetric or the PE does not exist.
pub fn ptr(rt: &Runtime, addr: usize, pe: i64) -> usize {
    rt.check_pe("shmem_ptr", pe).ok().and_then(|pe| rt.remote_addr(addr, 0, pe)).unwrap_or(0)
}
