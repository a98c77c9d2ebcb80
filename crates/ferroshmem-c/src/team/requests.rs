//! Non-blocking team creations in flight: the request registry, `shmemx_team_create_test` and
//! `shmemx_team_create_wait`.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::{Mutex, MutexGuard};

use fcore::runtime::Runtime;
use fcore::team::{self as core, codes};
use fcore::Error;

use super::create::Pending;
use crate::{report_failure as report, rt};

/// `SHMEMX_TEAM_CREATE_DONE` / `SHMEMX_TEAM_CREATE_IN_PROGRESS`.
const CREATE_DONE: c_int = 0;
const CREATE_IN_PROGRESS: c_int = 1;

/// Creations in flight, keyed by request id (the value of `shmemx_team_request_t`), so a
/// completed or made-up request is recognised rather than dereferenced.
struct Requests {
    next: u64,
    pending: HashMap<u64, Pending>,
}

static REQUESTS: Mutex<Option<Requests>> = Mutex::new(None);

fn requests() -> MutexGuard<'static, Option<Requests>> {
    REQUESTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers `p` and stores its id in `*req`; 0.
///
/// # Safety
/// `req` is non-null and writable.
unsafe fn post(p: Pending, req: *mut usize) -> c_int {
    let mut g = requests();
    let r = g.get_or_insert_with(|| Requests { next: 1, pending: HashMap::new() });
    let id = r.next;
    r.next += 1;
    r.pending.insert(id, p);
    // SAFETY: forwarded contract.
    unsafe { *req = id as usize };
    0
}

/// Finishes starting a non-blocking creation: stores the request of `p` in `*req` (0 and a null
/// request when `p` failed at once, with the outputs already INVALID).
///
/// # Safety
/// `req` is null (a clear stop) or writable.
pub(super) unsafe fn post_nb(routine: &'static str, req: *mut usize, p: Option<Pending>) -> c_int {
    if req.is_null() {
        crate::fatal(&Error::invalid(routine, "request", "the pointer to store the request in is NULL"));
    }
    match p {
        // SAFETY: non-null (above), writable per contract.
        Some(p) => unsafe { post(p, req) },
        None => {
            // SAFETY: as above.
            unsafe { *req = 0 };
            codes::INVALID_ARGUMENT as c_int
        }
    }
}

/// Advances request `req`: `Some(code)` once finished (the request is then gone).
fn advance(rt: &Runtime, routine: &'static str, req: usize) -> Option<c_int> {
    let mut g = requests();
    let Some(p) = g.as_mut().and_then(|r| r.pending.get_mut(&(req as u64))) else {
        drop(g);
        report(
            rt,
            &Error::invalid(
                routine,
                "request",
                format!("{req:#x} is not a request in flight (completed already?)"),
            ),
            true,
        );
        return Some(codes::INVALID_ARGUMENT as c_int);
    };
    p.req.poll(rt)?;
    let p = g.as_mut().and_then(|r| r.pending.remove(&(req as u64)))?;
    drop(g);
    Some(p.finish(rt))
}

#[no_mangle]
pub extern "C" fn shmemx_team_create_test(req: usize) -> c_int {
    const R: &str = "shmemx_team_create_test";
    match advance(rt(R), R, req) {
        None => CREATE_IN_PROGRESS,
        Some(0) => CREATE_DONE,
        Some(code) => -code,
    }
}

#[no_mangle]
pub extern "C" fn shmemx_team_create_wait(req: usize) -> c_int {
    const R: &str = "shmemx_team_create_wait";
    let rt = rt(R);
    let (waiter, _call) = match requests().as_ref().and_then(|r| r.pending.get(&(req as u64))) {
        Some(p) => (p.req.waiter(rt), p.req.publish(rt, R)),
        None => (core::Waiter::Bell(rt.my_pe), rt.enter_call(R, None)),
    };
    let mut out = 0;
    core::wait_creation(rt, waiter, || advance(rt, R, req).map(|c| out = c).is_some());
    out
}

pshmem!(shmemx_team_create_test, shmemx_team_create_wait);
