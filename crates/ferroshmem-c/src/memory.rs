//! Symmetric allocation. Every routine is collective; a size of 0 gives NULL; a request that
//! does not fit (or an impossible alignment) gives NULL on every PE, with the reason printed
//! when `SHMEM_DEBUG=1`. Freeing or resizing a pointer that the allocator did not hand out ends
//! the job with a message. In checked mode (`SHMEM_DEBUG=1` or `SHMEMX_CHECK_COLLECTIVES=1`)
//! the routine's barrier also checks that every PE called the same routine with the same
//! arguments: if not, an allocation gives NULL on every PE (its old block kept, for a
//! realloc) and PE 0 prints who passed what; a free ends the job with that message.

use std::ffi::{c_long, c_void};

use fcore::runtime::Runtime;

use crate::{check, rt};

/// `SHMEM_MALLOC_ATOMICS_REMOTE`.
pub const MALLOC_ATOMICS_REMOTE: c_long = 1;
/// `SHMEM_MALLOC_SIGNAL_REMOTE`.
pub const MALLOC_SIGNAL_REMOTE: c_long = 2;

/// Alignment of `shmem_malloc` blocks, as C's `malloc` (`alignof(max_align_t)`); the heap
/// aligns every block to a cache line anyway.
const MALLOC_ALIGN: usize = 16;

/// The C pointer for an allocation result: NULL for size 0 and for failures (reported under
/// `SHMEM_DEBUG`).
fn to_ptr(rt: &Runtime, r: fcore::Result<Option<usize>>) -> *mut c_void {
    match r {
        Ok(Some(a)) => a as *mut c_void,
        Ok(None) => std::ptr::null_mut(),
        Err(e) => {
            crate::report_failure(rt, &e, rt.my_pe == 0);
            std::ptr::null_mut()
        }
    }
}

#[no_mangle]
pub extern "C" fn shmem_malloc(size: usize) -> *mut c_void {
    let rt = rt("shmem_malloc");
    to_ptr(rt, rt.sym_alloc("shmem_malloc", size, MALLOC_ALIGN))
}

#[no_mangle]
pub extern "C" fn shmem_malloc_with_hints(size: usize, hints: c_long) -> *mut c_void {
    let rt = rt("shmem_malloc_with_hints");
    // Every hint is satisfied by ordinary symmetric memory on one machine (atomics and signals
    // are hardware operations on it); unknown hints are ignored, as the specification allows.
    if hints & !(MALLOC_ATOMICS_REMOTE | MALLOC_SIGNAL_REMOTE) != 0 {
        crate::debug_report(rt, format_args!("shmem_malloc_with_hints: unknown hints {hints:#x} ignored"));
    }
    to_ptr(rt, rt.sym_alloc("shmem_malloc_with_hints", size, MALLOC_ALIGN))
}

#[no_mangle]
pub extern "C" fn shmem_align(alignment: usize, size: usize) -> *mut c_void {
    let rt = rt("shmem_align");
    to_ptr(rt, rt.sym_alloc("shmem_align", size, alignment))
}

#[no_mangle]
pub extern "C" fn shmem_calloc(count: usize, size: usize) -> *mut c_void {
    let routine = "shmem_calloc";
    let rt = rt(routine);
    let result = match count.checked_mul(size) {
        Some(0) => rt.sym_alloc(routine, 0, MALLOC_ALIGN),
        Some(total) => rt.sym_alloc_zeroed(routine, total, MALLOC_ALIGN).map(Some),
        None => {
            // Every PE passes the same arguments, so every PE ends here: still collective.
            rt.barrier_all_as(routine);
            Err(fcore::Error::invalid(routine, "count", format!("{count} elements of {size} bytes overflow")))
        }
    };
    to_ptr(rt, result)
}

#[no_mangle]
pub extern "C" fn shmem_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    let routine = "shmem_realloc";
    let rt = rt(routine);
    match rt.sym_realloc(routine, ptr as usize, size) {
        Err(e @ fcore::Error::InvalidFree { .. }) => crate::fatal(&e),
        r => to_ptr(rt, r),
    }
}

#[no_mangle]
pub extern "C" fn shmem_free(ptr: *mut c_void) {
    let rt = rt("shmem_free");
    if ptr.is_null() {
        rt.barrier_all_as("shmem_free");
        return;
    }
    check(rt.sym_free("shmem_free", ptr as usize));
}

pshmem!(shmem_malloc, shmem_malloc_with_hints, shmem_align, shmem_calloc, shmem_realloc, shmem_free);
