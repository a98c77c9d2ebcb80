//! The shim's functions (`csrc/wire.c`).
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

extern "C" {
    pub fn fsh_wire_error(rc: c_int) -> *const c_char;
    pub fn fsh_wire_free(p: *mut c_void);

    pub fn fsh_pmix_init(rank: *mut u32) -> c_int;
    pub fn fsh_pmix_finalize() -> c_int;
    pub fn fsh_pmix_job_size(size: *mut u32) -> c_int;
    pub fn fsh_pmix_node_id(rank: u32, id: *mut u32) -> c_int;
    pub fn fsh_pmix_hostname(rank: u32, buf: *mut c_char, len: usize) -> c_int;
    pub fn fsh_pmix_put(key: *const c_char, data: *const c_void, len: usize) -> c_int;
    pub fn fsh_pmix_commit() -> c_int;
    pub fn fsh_pmix_fence(collect: c_int) -> c_int;
    pub fn fsh_pmix_fence_timeout(timeout_ms: c_int) -> c_int;
    pub fn fsh_pmix_get(rank: u32, key: *const c_char, data: *mut *mut c_void, len: *mut usize) -> c_int;

    pub fn fsh_ucp_init(ctx: *mut *mut c_void) -> c_int;
    pub fn fsh_ucp_cleanup(ctx: *mut c_void);
    pub fn fsh_ucp_worker_create(ctx: *mut c_void, worker: *mut *mut c_void) -> c_int;
    pub fn fsh_ucp_worker_destroy(worker: *mut c_void);
    pub fn fsh_ucp_worker_address(worker: *mut c_void, addr: *mut *mut c_void, len: *mut usize) -> c_int;
    pub fn fsh_ucp_progress(worker: *mut c_void) -> c_uint;
    pub fn fsh_ucp_event_fd(worker: *mut c_void, fd: *mut c_int) -> c_int;
    pub fn fsh_ucp_progress_and_arm(worker: *mut c_void, handled: *mut c_uint) -> c_int;
    pub fn fsh_ucp_try_progress(worker: *mut c_void) -> c_uint;
    pub fn fsh_ucp_signal(worker: *mut c_void) -> c_int;
    pub fn fsh_ucp_fence(worker: *mut c_void) -> c_int;
    pub fn fsh_ucp_flush(worker: *mut c_void) -> c_int;
    pub fn fsh_ucp_ep_create(worker: *mut c_void, addr: *const c_void, ep: *mut *mut c_void) -> c_int;
    pub fn fsh_ucp_ep_close(worker: *mut c_void, ep: *mut c_void);
    pub fn fsh_ucp_mem_map(ctx: *mut c_void, addr: *mut c_void, len: usize, memh: *mut *mut c_void) -> c_int;
    pub fn fsh_ucp_mem_unmap(ctx: *mut c_void, memh: *mut c_void);
    pub fn fsh_ucp_rkey_pack(
        ctx: *mut c_void,
        memh: *mut c_void,
        buf: *mut *mut c_void,
        len: *mut usize,
    ) -> c_int;
    pub fn fsh_ucp_rkey_unpack(
        worker: *mut c_void,
        ep: *mut c_void,
        buf: *const c_void,
        rkey: *mut *mut c_void,
    ) -> c_int;
    pub fn fsh_ucp_rkey_destroy(worker: *mut c_void, rkey: *mut c_void);
    pub fn fsh_ucp_put(
        worker: *mut c_void,
        ep: *mut c_void,
        buf: *const c_void,
        len: usize,
        raddr: u64,
        rkey: *mut c_void,
    ) -> c_int;
    pub fn fsh_ucp_get(
        worker: *mut c_void,
        ep: *mut c_void,
        buf: *mut c_void,
        len: usize,
        raddr: u64,
        rkey: *mut c_void,
    ) -> c_int;
    #[allow(clippy::too_many_arguments)]
    pub fn fsh_ucp_atomic(
        worker: *mut c_void,
        ep: *mut c_void,
        op: c_int,
        size: c_int,
        value: u64,
        compare: u64,
        raddr: u64,
        rkey: *mut c_void,
        fetch: c_int,
        result: *mut u64,
    ) -> c_int;
    pub fn fsh_ucp_atomic_op_code(which: c_int) -> c_int;
    pub fn fsh_ucp_set_flagged_regions(
        worker: *mut c_void,
        base: *const u64,
        len: *const u64,
        count: usize,
    ) -> c_int;
    #[allow(clippy::too_many_arguments)]
    pub fn fsh_ucp_put_flagged(
        worker: *mut c_void,
        ep: *mut c_void,
        region: u64,
        offset: u64,
        buf: *const c_void,
        len: usize,
        flag_offset: u64,
        flag_value: u64,
        flag_update: u64,
    ) -> c_int;
}

/// The library's text for a shim status.
pub fn error_text(rc: i32) -> String {
    // SAFETY: the shim returns a static NUL-terminated string for every status.
    let p = unsafe { fsh_wire_error(rc) };
    if p.is_null() {
        return format!("status {rc}");
    }
    // SAFETY: non-null, NUL-terminated, static.
    format!("{} (status {rc})", unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// Takes a malloc'd buffer of the shim as a Vec and frees it.
///
/// # Safety
/// `p` must come from the shim (malloc) and hold `len` bytes.
pub unsafe fn take_bytes(p: *mut c_void, len: usize) -> Vec<u8> {
    // SAFETY: forwarded contract.
    let v = unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec();
    // SAFETY: malloc'd by the shim, freed once.
    unsafe { fsh_wire_free(p) };
    v
}
