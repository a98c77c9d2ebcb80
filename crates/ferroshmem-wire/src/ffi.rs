//! The shim's functions (`csrc/wire.c`), from `libferroshmem_wire.so`, which `load` opens on
//! the first use: a process that never runs a job across hosts never loads PMIx or UCX.
//!
//! Linked into the library, the two (and the 11 libraries they need) were 2/3 of the start-up
//! cost of every PE of a one-host job: 2.7 ms of CPU against 0.9 ms without them (`perf stat`
//! of a one-PE hello), and 1024 PEs on 2 cores started in 2 s against 0.8 s
//! (docs/PERFORMANCE.md, "Start-up of many PEs").
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

use crate::{Error, Result};

/// File name of the shim library (built by `build.rs` beside the other build products).
pub const LIBRARY: &str = "libferroshmem_wire.so";
/// Where the build put the shim library, for a process whose own directory lacks it (Rust test
/// and benchmark executables live in `target/*/deps`).
const BUILT_AT: &str = env!("FERROSHMEM_WIRE_LIB");

/// Declares the shim's functions: a table of pointers filled by `dlsym`, and for each an
/// `unsafe fn` of the same name and signature that calls through it (after `load`).
macro_rules! shim {
    ($(fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        #[allow(non_snake_case)]
        struct Table {
            $($name: unsafe extern "C" fn($($ty),*) $(-> $ret)?,)*
        }

        impl Table {
            /// Looks every function up in `handle`.
            ///
            /// # Safety
            /// `handle` is a live `dlopen` handle of the shim built from `csrc/wire.c`, whose
            /// functions have exactly these signatures.
            unsafe fn resolve(handle: *mut c_void) -> std::result::Result<Table, String> {
                Ok(Table {
                    $($name: {
                        let name = concat!(stringify!($name), "\0");
                        // SAFETY: a live handle and a NUL-terminated name.
                        let f = unsafe { libc::dlsym(handle, name.as_ptr().cast()) };
                        if f.is_null() {
                            return Err(format!("{} lacks {}", LIBRARY, stringify!($name)));
                        }
                        // SAFETY: the symbol is the shim's function of this signature (the
                        // caller's contract); a function pointer has a pointer's size.
                        unsafe {
                            std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($ty),*) $(-> $ret)?>(f)
                        }
                    },)*
                })
            }
        }

        $(
            /// The shim's function of this name (see `csrc/wire.c`).
            ///
            /// # Safety
            /// That function's contract, and [`load`] has succeeded.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                let table = TABLE.get().expect("ferroshmem-wire: a shim call before ffi::load");
                // SAFETY: forwarded contract.
                unsafe { (table.$name)($($arg),*) }
            }
        )*
    };
}

shim! {
    fn fsh_wire_error(rc: c_int) -> *const c_char;
    fn fsh_wire_free(p: *mut c_void);
    fn fsh_pmix_init(rank: *mut u32) -> c_int;
    fn fsh_pmix_finalize() -> c_int;
    fn fsh_pmix_abort(status: c_int, msg: *const c_char) -> c_int;
    fn fsh_pmix_job_size(size: *mut u32) -> c_int;
    fn fsh_pmix_node_id(rank: u32, id: *mut u32) -> c_int;
    fn fsh_pmix_local_rank(rank: u32, local: *mut u32) -> c_int;
    fn fsh_pmix_hostname(rank: u32, buf: *mut c_char, len: usize) -> c_int;
    fn fsh_pmix_put(key: *const c_char, data: *const c_void, len: usize) -> c_int;
    fn fsh_pmix_commit() -> c_int;
    fn fsh_pmix_fence(collect: c_int) -> c_int;
    fn fsh_pmix_fence_timeout(timeout_ms: c_int) -> c_int;
    fn fsh_pmix_get(rank: u32, key: *const c_char, data: *mut *mut c_void, len: *mut usize) -> c_int;
    fn fsh_ucp_init(ctx: *mut *mut c_void) -> c_int;
    fn fsh_ucp_cleanup(ctx: *mut c_void);
    fn fsh_ucp_worker_create(ctx: *mut c_void, worker: *mut *mut c_void) -> c_int;
    fn fsh_ucp_worker_destroy(worker: *mut c_void);
    fn fsh_ucp_worker_address(worker: *mut c_void, addr: *mut *mut c_void, len: *mut usize) -> c_int;
    fn fsh_ucp_progress(worker: *mut c_void) -> c_uint;
    fn fsh_ucp_event_fd(worker: *mut c_void, fd: *mut c_int) -> c_int;
    fn fsh_ucp_progress_and_arm(worker: *mut c_void, handled: *mut c_uint) -> c_int;
    fn fsh_ucp_try_progress(worker: *mut c_void) -> c_uint;
    fn fsh_ucp_signal(worker: *mut c_void) -> c_int;
    fn fsh_ucp_fence(worker: *mut c_void) -> c_int;
    fn fsh_ucp_flush(worker: *mut c_void) -> c_int;
    fn fsh_ucp_ep_create(worker: *mut c_void, addr: *const c_void, peer: u64, ep: *mut *mut c_void) -> c_int;
    fn fsh_ucp_peer_failures(peer: *mut u64, status: *mut c_int) -> c_uint;
    fn fsh_ucp_wait_peer_failure(timeout_ms: c_uint);
    fn fsh_ucp_ep_close(worker: *mut c_void, ep: *mut c_void);
    fn fsh_ucp_mem_map(ctx: *mut c_void, addr: *mut c_void, len: usize, memh: *mut *mut c_void) -> c_int;
    fn fsh_ucp_mem_unmap(ctx: *mut c_void, memh: *mut c_void);
    fn fsh_ucp_rkey_pack(ctx: *mut c_void, memh: *mut c_void, buf: *mut *mut c_void, len: *mut usize) -> c_int;
    fn fsh_ucp_rkey_unpack(worker: *mut c_void, ep: *mut c_void, buf: *const c_void, rkey: *mut *mut c_void) -> c_int;
    fn fsh_ucp_rkey_destroy(worker: *mut c_void, rkey: *mut c_void);
    fn fsh_ucp_put(worker: *mut c_void, ep: *mut c_void, buf: *const c_void, len: usize, raddr: u64, rkey: *mut c_void) -> c_int;
    fn fsh_ucp_get(worker: *mut c_void, ep: *mut c_void, buf: *mut c_void, len: usize, raddr: u64, rkey: *mut c_void) -> c_int;
    fn fsh_ucp_atomic(worker: *mut c_void, ep: *mut c_void, op: c_int, size: c_int, value: u64, compare: u64, raddr: u64, rkey: *mut c_void, fetch: c_int, result: *mut u64) -> c_int;
    fn fsh_ucp_atomic_op_code(which: c_int) -> c_int;
    fn fsh_ucp_get_start(worker: *mut c_void, ep: *mut c_void, buf: *mut c_void, len: usize, raddr: u64, rkey: *mut c_void, req: *mut *mut c_void) -> c_int;
    fn fsh_ucp_atomic_start(worker: *mut c_void, ep: *mut c_void, op: c_int, size: c_int, operand: *mut u64, reply: *mut u64, raddr: u64, rkey: *mut c_void, req: *mut *mut c_void) -> c_int;
    fn fsh_ucp_request_test(worker: *mut c_void, req: *mut c_void) -> c_int;
    fn fsh_ucp_request_release(worker: *mut c_void, req: *mut c_void);
    fn fsh_ucp_set_flagged_regions(worker: *mut c_void, base: *const u64, len: *const u64, count: usize) -> c_int;
    fn fsh_ucp_put_flagged(worker: *mut c_void, ep: *mut c_void, region: u64, offset: u64, buf: *const c_void, len: usize, flag_offset: u64, flag_value: u64, flag_update: u64) -> c_int;
}

static TABLE: OnceLock<Table> = OnceLock::new();
static LOADED: OnceLock<std::result::Result<(), String>> = OnceLock::new();

/// Opens the shim (and with it PMIx and UCX) once per process: first beside the object that
/// holds this code (`libferroshmem.so`, or a Rust executable), then where the build put it.
/// Every entry point of the crate (`Pmix::init`, `ucp::Context::new`) calls it first.
pub fn load() -> Result<()> {
    LOADED
        .get_or_init(|| {
            let mut tried = Vec::new();
            for path in candidates() {
                let Ok(c) = std::ffi::CString::new(path.clone()) else { continue };
                // SAFETY: dlopen of a NUL-terminated path; the shim's constructors (UCX's and
                // PMIx's) run as they would have at process start.
                let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
                if handle.is_null() {
                    // SAFETY: dlerror returns a NUL-terminated string or null.
                    let why = unsafe { libc::dlerror() };
                    let why = if why.is_null() {
                        "unknown error".into()
                    } else {
                        // SAFETY: non-null, NUL-terminated.
                        unsafe { CStr::from_ptr(why) }.to_string_lossy().into_owned()
                    };
                    tried.push(format!("{path}: {why}"));
                    continue;
                }
                // SAFETY: the handle is live (never closed) and is the shim's library.
                let table = unsafe { Table::resolve(handle) }?;
                let _ = TABLE.set(table);
                return Ok(());
            }
            Err(tried.join("; "))
        })
        .clone()
        .map_err(|status| Error::Call { call: "loading the PMIx/UCX shim", status })
}

/// Where to look for the shim, in order.
fn candidates() -> Vec<String> {
    let mut v = Vec::new();
    // SAFETY: dladdr fills `info` for an address inside a loaded object (this function).
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: as above; the address is code of this object.
    if unsafe { libc::dladdr(candidates as fn() -> Vec<String> as *const c_void, &mut info) } != 0
        && !info.dli_fname.is_null()
    {
        // SAFETY: dladdr's file name is NUL-terminated and lives as long as the object.
        let own = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned();
        if let Some(dir) = std::path::Path::new(&own).parent() {
            v.push(dir.join(LIBRARY).to_string_lossy().into_owned());
        }
    }
    if !v.iter().any(|p| p == BUILT_AT) {
        v.push(BUILT_AT.to_string());
    }
    v
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
