//! init, finalize, queries and global exit.

use std::ffi::{c_char, c_int, c_void};

use fcore::runtime::{self, InitOptions, ThreadLevel};
use fcore::start;

use crate::rt;

fn start(thread_level: ThreadLevel) -> c_int {
    // SAFETY: the C ABI; see `crate::rt`.
    match unsafe { start::init(InitOptions { share_statics: true, thread_level }) } {
        Ok(rt) => {
            // Lines from different PEs interleave whole and in real time only if each line is
            // written as it is completed: make stdout line-buffered, as a terminal would.
            // SAFETY: setvbuf on the process's stdout before any output of this library.
            unsafe { libc_setvbuf_stdout_line() };
            print_info(rt);
            // A program that returns from main without shmem_finalize still finalizes, on every
            // PE alike (unless it is leaving through shmem_global_exit).
            static REGISTERED: std::sync::Once = std::sync::Once::new();
            // SAFETY: on_exit with a plain extern "C" function that never unwinds and
            // ignores its argument (glibc calls it with the exit status).
            REGISTERED.call_once(|| unsafe {
                on_exit(finalize_at_exit, std::ptr::null_mut());
            });
            0
        }
        Err(e) => {
            fcore::runtime::report_line(&format!("ferroshmem: shmem_init: {}\n", e.report()));
            std::process::exit(fcore::runtime::ERROR_EXIT_STATUS)
        }
    }
}

/// `SHMEM_INFO=1`: PE 0 prints the library, the job, the symmetric heap and the team figures
/// on stdout (in one write) at init.
fn print_info(rt: &fcore::runtime::Runtime) {
    if rt.my_pe != 0 || !std::env::var("SHMEM_INFO").is_ok_and(|v| !v.is_empty() && v != "0") {
        return;
    }
    let u = rt.teams().usage();
    let text = format!(
        "ferroshmem {} (OpenSHMEM {}.{})\n\
         \x20 PEs: {}\n\
         \x20 symmetric heap: {} bytes per PE (SHMEM_SYMMETRIC_SIZE)\n\
         \x20 teams: capacity {} per PE (SHMEMX_TEAM_SLOTS), {} in use; {} bytes per team ({} shared + {} private), and {} bytes of staging address space (memory only once used)\n\
         \x20 checked collectives: {} (SHMEMX_CHECK_COLLECTIVES, SHMEM_DEBUG)\n",
        env!("CARGO_PKG_VERSION"),
        VERSION.0,
        VERSION.1,
        rt.n_pes,
        rt.heap_size(),
        u.capacity,
        u.in_use,
        u.slot_bytes + u.object_bytes,
        u.slot_bytes,
        u.object_bytes,
        u.stage_bytes,
        if rt.checked { "on" } else { "off" },
    );
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Runs at exit (glibc's `on_exit`, which passes the exit status).
extern "C" fn finalize_at_exit(status: c_int, _arg: *mut c_void) {
    // SAFETY: the C ABI's own finalize; see `crate::rt`.
    if let Ok(rt) = unsafe { runtime::runtime("shmem_finalize") } {
        rt.finalize_at_exit(status);
    }
}

extern "C" {
    fn on_exit(f: extern "C" fn(c_int, *mut c_void), arg: *mut c_void) -> c_int;
    static mut stdout: *mut std::ffi::c_void;
    fn setvbuf(stream: *mut std::ffi::c_void, buf: *mut c_char, mode: c_int, size: usize) -> c_int;
}

unsafe fn libc_setvbuf_stdout_line() {
    const IOLBF: c_int = 1;
    // SAFETY: `stdout` is glibc's FILE* for standard output, valid for the process lifetime.
    unsafe { setvbuf(stdout, std::ptr::null_mut(), IOLBF, 0) };
}

#[no_mangle]
pub extern "C" fn shmem_init() {
    start(ThreadLevel::Multiple);
}

#[no_mangle]
pub unsafe extern "C" fn shmem_init_thread(requested: c_int, provided: *mut c_int) -> c_int {
    let _ = requested;
    let rc = start(ThreadLevel::Multiple);
    if !provided.is_null() {
        // SAFETY: the caller passes a writable int or NULL.
        unsafe { *provided = ThreadLevel::Multiple as c_int };
    }
    rc
}

#[no_mangle]
pub unsafe extern "C" fn shmem_query_thread(provided: *mut c_int) {
    rt("shmem_query_thread");
    if !provided.is_null() {
        // SAFETY: the caller passes a writable int or NULL.
        unsafe { *provided = ThreadLevel::Multiple as c_int };
    }
}

#[no_mangle]
pub extern "C" fn shmem_finalize() {
    // SAFETY: the C ABI's own finalize; see `crate::rt`.
    if let Ok(rt) = unsafe { runtime::runtime("shmem_finalize") } {
        rt.finalize();
    }
}

/// `shmem_my_pe`, `shmem_n_pes` and their deprecated names `_my_pe`, `_num_pes`.
macro_rules! pe_query {
    ($($name:ident => $field:ident),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name() -> c_int {
            rt(stringify!($name)).$field as c_int
        }
        pshmem!($name);
    )*};
}
pe_query!(shmem_my_pe => my_pe, shmem_n_pes => n_pes, _my_pe => my_pe, _num_pes => n_pes);

#[no_mangle]
pub extern "C" fn shmem_barrier_all() {
    rt("shmem_barrier_all").barrier_all();
}

#[no_mangle]
pub extern "C" fn shmem_sync_all() {
    rt("shmem_sync_all").barrier_all_as("shmem_sync_all");
}

#[no_mangle]
pub extern "C" fn shmem_global_exit(status: c_int) {
    // SAFETY: the C ABI; see `crate::rt`.
    match unsafe { runtime::runtime("shmem_global_exit") } {
        Ok(rt) => rt.global_exit(status),
        Err(_) => std::process::exit(status),
    }
}

/// `SHMEM_MAJOR_VERSION` / `SHMEM_MINOR_VERSION`.
const VERSION: (c_int, c_int) = (1, 5);
/// `SHMEM_VENDOR_STRING` (NUL-terminated; shorter than `SHMEM_MAX_NAME_LEN`).
const VENDOR: &[u8] = b"ferroshmem\0";

#[no_mangle]
pub unsafe extern "C" fn shmem_info_get_version(major: *mut c_int, minor: *mut c_int) {
    if major.is_null() || minor.is_null() {
        crate::fatal(&fcore::Error::invalid("shmem_info_get_version", "major/minor", "null pointer"));
    }
    // SAFETY: non-null; the caller passes two writable ints.
    unsafe { (*major, *minor) = VERSION };
}

#[no_mangle]
pub unsafe extern "C" fn shmem_info_get_name(name: *mut c_char) {
    if name.is_null() {
        crate::fatal(&fcore::Error::invalid("shmem_info_get_name", "name", "null pointer"));
    }
    // SAFETY: the caller passes a buffer of SHMEM_MAX_NAME_LEN (256) bytes; VENDOR is shorter.
    unsafe { std::ptr::copy_nonoverlapping(VENDOR.as_ptr().cast::<c_char>(), name, VENDOR.len()) };
}

/// Deprecated `start_pes`: the argument is ignored, as the specification says.
#[no_mangle]
pub extern "C" fn start_pes(npes: c_int) {
    let _ = npes;
    start(ThreadLevel::Multiple);
}

#[no_mangle]
pub extern "C" fn shmem_pe_accessible(pe: c_int) -> c_int {
    c_int::from(rt("shmem_pe_accessible").check_pe("shmem_pe_accessible", pe as i64).is_ok())
}

#[no_mangle]
pub extern "C" fn shmem_addr_accessible(addr: *const c_void, pe: c_int) -> c_int {
    // Symmetric and a PE of the job: reachable by RMA, mapped here or through the network.
    let rt = rt("shmem_addr_accessible");
    let routine = "shmem_addr_accessible";
    c_int::from(rt.target(routine, addr as usize, 1, pe as i64).is_ok())
}

#[no_mangle]
pub extern "C" fn shmem_ptr(dest: *const c_void, pe: c_int) -> *mut c_void {
    fcore::rma::ptr(rt("shmem_ptr"), dest as usize, pe as i64) as *mut c_void
}

/// Level last set by `shmem_pcontrol` (1, "on", until a program changes it), for tools.
pub static PCONTROL_LEVEL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(1);

/// `shmem_pcontrol`: OpenSHMEM 1.5 profiling control. Levels 0 (off), 1 (on), 2 (detailed)
/// and any other (tool-defined) are accepted; ferroshmem has no profiling layer of its own, so
/// it only records the level (`shmemx_pcontrol_level` reads it back).
#[no_mangle]
pub extern "C" fn shmem_pcontrol(level: c_int) {
    PCONTROL_LEVEL.store(level, std::sync::atomic::Ordering::Relaxed);
}

/// The level last given to `shmem_pcontrol` (1 if none).
#[no_mangle]
pub extern "C" fn shmemx_pcontrol_level() -> c_int {
    PCONTROL_LEVEL.load(std::sync::atomic::Ordering::Relaxed)
}

pshmem!(
    shmem_init,
    shmem_init_thread,
    shmem_query_thread,
    shmem_finalize,
    shmem_barrier_all,
    shmem_sync_all,
    shmem_global_exit,
    shmem_info_get_version,
    shmem_info_get_name,
    start_pes,
    shmem_pe_accessible,
    shmem_addr_accessible,
    shmem_ptr,
    shmem_pcontrol,
    shmemx_pcontrol_level,
);
