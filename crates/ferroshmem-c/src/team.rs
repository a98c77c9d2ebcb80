//! Teams in the C ABI: queries, splits (strided, 2D and by color; blocking and non-blocking), arbitrary teams by unique
//! id, destroy, team sync, team contexts and the usage query.
//!
//! A `shmem_team_t` is a pointer-sized integer that *is* the core's [`TeamHandle`] (0 INVALID,
//! 1 WORLD, 2 SHARED, 3 NODE, 4 SAME_MYPE_NODE, user teams `(generation << 32) | (slot + 1)`);
//! it is never dereferenced, so a stale or made-up handle is recognised, not trusted.
//!
//! Failures of collective creation are the same on every PE (the core agrees on them); the C
//! routines return the agreed code (`SHMEMX_TEAM_ERR_*`, nonzero) and write
//! `SHMEM_TEAM_INVALID` to every output. The reason is printed under `SHMEM_DEBUG=1`, and a
//! checked-mode mismatch is always printed, once, by the parent team's PE 0.
//!
//! Per team, this module keeps the contexts created on it (keyed by handle) so that destroying
//! the team destroys its shareable contexts, and so that the `num_contexts` reservation is
//! counted.

use std::collections::HashMap;
use std::ffi::{c_int, c_long, c_void};
use std::sync::{Arc, Mutex, MutexGuard};

use fcore::runtime::Runtime;
use fcore::team::{self as core, codes, CreateRequest, Created, TeamConfig, TeamHandle, TeamInner};
use fcore::Error;

use crate::ctx::{self, Ctx, CtxHandle, CtxScope, CTX_PRIVATE};
use crate::{debug_report, report_failure as report, rt};

/// `shmem_team_t` as C passes it: the handle value in a pointer-sized integer.
pub type CTeam = usize;

/// `shmem_team_config_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConfigC {
    pub num_contexts: c_int,
}

/// `shmemx_team_config_t`: the 1.5 structure plus the unique id of `shmemx_team_init`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConfigX {
    pub num_contexts: c_int,
    pub uniqueid: u64,
}

/// `shmemx_team_info_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TeamInfo {
    pub teams_in_use: c_long,
    pub capacity: c_long,
    pub bytes_per_team: c_long,
    pub shared_bytes_per_team: c_long,
    pub private_bytes_per_team: c_long,
}

/// `SHMEM_TEAM_NUM_CONTEXTS`: the mask bit of `num_contexts`.
const MASK_NUM_CONTEXTS: c_long = 1;
/// `SHMEMX_TEAM_CONFIG_UNIQUEID`: the mask bit of the unique id (team_init).
const MASK_UNIQUEID: c_long = 2;

/// The configuration a C (config, config_mask) pair describes (mask 0: the defaults), the
/// mask already checked for unknown bits.
fn config_from_mask(
    config: Option<TeamConfig>,
    mask: c_long,
    routine: &'static str,
) -> fcore::Result<TeamConfig> {
    let mut out = TeamConfig::default();
    if mask & MASK_NUM_CONTEXTS != 0 {
        let c = config.ok_or_else(|| Error::invalid(routine, "config", "NULL with a nonzero config_mask"))?;
        if c.num_contexts < 0 {
            return Err(Error::invalid(
                routine,
                "config",
                format!("num_contexts {} is negative", c.num_contexts),
            ));
        }
        out.num_contexts = c.num_contexts;
    }
    Ok(out)
}

/// `SHMEMX_TEAM_CREATE_DONE` / `SHMEMX_TEAM_CREATE_IN_PROGRESS`.
const CREATE_DONE: c_int = 0;
const CREATE_IN_PROGRESS: c_int = 1;

#[inline]
fn handle(team: CTeam) -> TeamHandle {
    TeamHandle(team as u64)
}

#[inline]
fn c_team(h: TeamHandle) -> CTeam {
    h.0 as CTeam
}

/// The code a failed creation returns (nonzero, the same on every PE for agreed failures).
fn code_of(e: &Error) -> c_int {
    match e {
        Error::TeamCreate { code, .. } => (*code).max(1) as c_int,
        _ => codes::INVALID_ARGUMENT as c_int,
    }
}

// ------------------------------------------------------------------------------------------
// Queries
// ------------------------------------------------------------------------------------------

/// `shmem_team_my_pe` / `shmem_team_n_pes`: -1 on INVALID or a handle that is not a team.
macro_rules! team_query {
    ($($name:ident => |$t:ident| $value:expr),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name(team: CTeam) -> c_int {
            let teams = &rt(stringify!($name)).teams;
            // SAFETY: a C query lives for this call; destroying the team meanwhile is erroneous.
            unsafe { teams.get_unguarded(handle(team)) }.map_or(-1, |$t| $value as c_int)
        }
        pshmem!($name);
    )*};
}
team_query!(shmem_team_my_pe => |t| t.my_index, shmem_team_n_pes => |t| t.n_pes());

#[no_mangle]
pub extern "C" fn shmem_team_translate_pe(src_team: CTeam, src_pe: c_int, dest_team: CTeam) -> c_int {
    let teams = &rt("shmem_team_translate_pe").teams;
    // SAFETY: both lookups live for this call; destroying a team meanwhile is erroneous.
    let (src, dst) =
        unsafe { (teams.get_unguarded(handle(src_team)), teams.get_unguarded(handle(dest_team))) };
    match (src, dst) {
        (Some(src), Some(dst)) => core::translate(src, src_pe as i64, dst) as c_int,
        _ => -1,
    }
}

/// `shmem_team_ptr`: `shmem_ptr` with `pe` numbered in `team`; NULL for SHMEM_TEAM_INVALID,
/// a destroyed team, a PE outside the team, or an address that is not symmetric.
#[no_mangle]
pub extern "C" fn shmem_team_ptr(team: CTeam, dest: *const c_void, pe: c_int) -> *mut c_void {
    let rt = rt("shmem_team_ptr");
    // SAFETY: the lookup lives for this call; destroying the team meanwhile is erroneous.
    match unsafe { rt.teams.get_unguarded(handle(team)) } {
        Some(t) if pe >= 0 && (pe as usize) < t.n_pes() => {
            fcore::rma::ptr(rt, dest as usize, t.pes.world_pe(pe as usize) as i64) as *mut c_void
        }
        _ => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn shmem_team_get_config(
    team: CTeam,
    config_mask: c_long,
    config: *mut ConfigC,
) -> c_int {
    const ROUTINE: &str = "shmem_team_get_config";
    let rt = rt(ROUTINE);
    let Some(t) = rt.teams.get(handle(team)) else {
        debug_report(rt, format_args!("{ROUTINE}: not a team (SHMEM_TEAM_INVALID or destroyed)"));
        return 1;
    };
    if config_mask & !MASK_NUM_CONTEXTS != 0 {
        debug_report(rt, format_args!("{ROUTINE}: config_mask {config_mask:#x} has unknown bits"));
        return 1;
    }
    if config_mask & MASK_NUM_CONTEXTS != 0 {
        if config.is_null() {
            debug_report(rt, format_args!("{ROUTINE}: config is NULL with a nonzero config_mask"));
            return 1;
        }
        // SAFETY: non-null; the caller passes a writable shmem_team_config_t.
        unsafe { (*config).num_contexts = t.config.num_contexts };
    }
    0
}

#[no_mangle]
pub unsafe extern "C" fn shmemx_team_info(info: *mut TeamInfo) -> c_int {
    let u = rt("shmemx_team_info").teams.usage();
    if info.is_null() {
        return 1;
    }
    // SAFETY: non-null; the caller passes a writable shmemx_team_info_t.
    unsafe {
        *info = TeamInfo {
            teams_in_use: u.in_use as c_long,
            capacity: u.capacity as c_long,
            bytes_per_team: (u.slot_bytes + u.object_bytes) as c_long,
            shared_bytes_per_team: u.slot_bytes as c_long,
            private_bytes_per_team: u.object_bytes as c_long,
        }
    };
    0
}

// ------------------------------------------------------------------------------------------
// Creation
// ------------------------------------------------------------------------------------------

/// The configuration a (config, mask) pair of a split describes.
///
/// # Safety
/// `config` is null or points at a readable `shmem_team_config_t`.
unsafe fn split_config(
    routine: &'static str,
    config: *const ConfigC,
    mask: c_long,
) -> fcore::Result<TeamConfig> {
    if mask & !MASK_NUM_CONTEXTS != 0 {
        return Err(Error::invalid(routine, "config_mask", format!("unknown bits {mask:#x}")));
    }
    // SAFETY: forwarded contract.
    let c = unsafe { config.as_ref() }.map(|c| TeamConfig { num_contexts: c.num_contexts });
    config_from_mask(c, mask, routine)
}

/// Fails with "null output pointer" when any of `outs` is null.
fn outputs_present(routine: &'static str, outs: &[*mut CTeam]) -> fcore::Result<()> {
    match outs.iter().any(|p| p.is_null()) {
        true => Err(Error::invalid(routine, "team", "the pointer to store the new team in is NULL")),
        false => Ok(()),
    }
}

/// Where a creation writes its teams (C pointers kept as addresses, so requests are `Send`).
#[derive(Debug, Clone, Copy)]
enum Out {
    One(usize),
    Two(usize, usize),
}

impl Out {
    /// Writes `values` to the non-null outputs.
    fn write(self, values: [TeamHandle; 2]) {
        let ptrs = match self {
            Out::One(p) => [p, 0],
            Out::Two(x, y) => [x, y],
        };
        for (p, v) in ptrs.into_iter().zip(values) {
            if p != 0 {
                // SAFETY: the caller of the creation routine passed a writable shmem_team_t
                // that stays valid until the creation completes (documented in shmemx.h).
                unsafe { *(p as *mut CTeam) = c_team(v) };
            }
        }
    }
}

/// The parent team of a split, or the immediate failure (INVALID or stale parent).
fn parent(rt: &Runtime, routine: &'static str, team: CTeam) -> Option<Arc<TeamInner>> {
    let p = rt.teams.get(handle(team));
    if p.is_none() {
        debug_report(rt, format_args!("{routine}: the parent team is SHMEM_TEAM_INVALID or not a team"));
    }
    p
}

/// A creation in progress with where its result goes.
#[derive(Debug)]
struct Pending {
    req: CreateRequest,
    out: Out,
    /// Whether this PE prints a mismatch message (PE 0 of the parent).
    lead: bool,
}

impl Pending {
    /// Writes the outcome of a finished creation; 0 or the (positive) error code.
    fn finish(self, rt: &Runtime) -> c_int {
        match self.req.take() {
            Ok(created) => {
                let h = |t: Option<&Arc<TeamInner>>| t.map_or(TeamHandle::INVALID, |t| t.handle());
                self.out.write(match &created {
                    Created::One(t) => [h(t.as_ref()), TeamHandle::INVALID],
                    Created::Two(x, y) => [x.handle(), y.handle()],
                });
                0
            }
            Err(e) => {
                self.out.write([TeamHandle::INVALID; 2]);
                report(rt, &e, self.lead);
                code_of(&e)
            }
        }
    }

    /// Blocks until finished; 0 or the error code.
    fn wait(mut self, rt: &Runtime) -> c_int {
        let _call = self.req.publish(rt, self.req.routine());
        let waiter = self.req.waiter(rt);
        core::wait_creation(rt, waiter, || self.req.poll(rt).is_some());
        self.finish(rt)
    }
}

/// Starts a split of team `parent` (writing INVALID to the outputs `out` first); `None` when
/// the parent is not a team. `start` builds the core request from the parent's `Arc`.
fn split(
    rt: &Runtime,
    routine: &'static str,
    parent_team: CTeam,
    out: Out,
    start: impl FnOnce(Arc<TeamInner>) -> CreateRequest,
) -> Option<Pending> {
    out.write([TeamHandle::INVALID; 2]);
    let p = parent(rt, routine, parent_team)?;
    let lead = p.my_index == 0;
    Some(Pending { req: start(p), out, lead })
}

/// 0 or the error code of a blocking creation (`None`: failed at once).
fn complete(rt: &Runtime, p: Option<Pending>) -> c_int {
    p.map_or(codes::INVALID_ARGUMENT as c_int, |p| p.wait(rt))
}

/// The request of a strided split.
///
/// # Safety
/// Pointers as `shmem_team_split_strided` takes them.
#[allow(clippy::too_many_arguments)]
unsafe fn strided(
    rt: &Runtime,
    routine: &'static str,
    p: Arc<TeamInner>,
    start: c_int,
    stride: c_int,
    size: c_int,
    config: *const ConfigC,
    mask: c_long,
    new_team: *mut CTeam,
) -> CreateRequest {
    // SAFETY: forwarded contract.
    let cfg =
        outputs_present(routine, &[new_team]).and_then(|_| unsafe { split_config(routine, config, mask) });
    core::split_strided_start(rt, routine, p, start as i64, stride as i64, size as i64, cfg)
}

/// The request of a 2D split.
///
/// # Safety
/// Pointers as `shmem_team_split_2d` takes them.
#[allow(clippy::too_many_arguments)]
unsafe fn two_d(
    rt: &Runtime,
    routine: &'static str,
    p: Arc<TeamInner>,
    xrange: c_int,
    xconfig: *const ConfigC,
    xmask: c_long,
    xteam: *mut CTeam,
    yconfig: *const ConfigC,
    ymask: c_long,
    yteam: *mut CTeam,
) -> CreateRequest {
    let present = outputs_present(routine, &[xteam, yteam]);
    // SAFETY: forwarded contract.
    let xc = present.clone().and_then(|_| unsafe { split_config(routine, xconfig, xmask) });
    // SAFETY: forwarded contract.
    let yc = present.and_then(|_| unsafe { split_config(routine, yconfig, ymask) });
    core::split_2d_start(rt, routine, p, xrange as i64, xc, yc)
}

/// `SHMEMX_COLOR_UNDEFINED`: the color of a PE that joins no team of a split by color.
pub const COLOR_UNDEFINED: c_int = -1;

/// The request of a split by color.
///
/// # Safety
/// Pointers as `shmemx_team_split_color` takes them.
#[allow(clippy::too_many_arguments)]
unsafe fn by_color(
    rt: &Runtime,
    routine: &'static str,
    p: Arc<TeamInner>,
    color: c_int,
    key: c_int,
    config: *const ConfigC,
    mask: c_long,
    new_team: *mut CTeam,
) -> CreateRequest {
    let present = outputs_present(routine, &[new_team]);
    // SAFETY: forwarded contract.
    let cfg = present.clone().and_then(|_| unsafe { split_config(routine, config, mask) });
    let color = present.and_then(|_| match color {
        COLOR_UNDEFINED => Ok(None),
        c if c >= 0 => Ok(Some(c as u32)),
        c => Err(Error::invalid(
            routine,
            "color",
            format!("{c} is negative and not SHMEMX_COLOR_UNDEFINED ({COLOR_UNDEFINED})"),
        )),
    });
    core::split_color_start(rt, routine, p, color, key as i64, cfg)
}

/// Defines a blocking creation routine and its `_nb` form (which takes a trailing
/// `shmemx_team_request_t *req`) from one parameter list and one body, an expression giving
/// `Option<Pending>` in which `$rt` is the runtime and `$r` the routine's name.
macro_rules! creation_pair {
    ($blocking:ident, $nb:ident, ($($arg:ident : $ty:ty),* $(,)?), |$rt:ident, $r:ident| $start:expr) => {
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $blocking($($arg: $ty),*) -> c_int {
            const $r: &str = stringify!($blocking);
            let $rt = rt($r);
            complete($rt, $start)
        }

        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $nb($($arg: $ty,)* req: *mut usize) -> c_int {
            const $r: &str = stringify!($nb);
            let $rt = rt($r);
            let p = $start;
            // SAFETY: the C caller's request pointer.
            unsafe { post_nb($r, req, p) }
        }
        pshmem!($blocking, $nb);
    };
}

creation_pair!(
    shmem_team_split_strided,
    shmemx_team_split_strided_nb,
    (
        parent_team: CTeam,
        start: c_int,
        stride: c_int,
        size: c_int,
        config: *const ConfigC,
        config_mask: c_long,
        new_team: *mut CTeam,
    ),
    |rt, R| split(rt, R, parent_team, Out::One(new_team as usize), |p| {
        // SAFETY: the C caller's pointers, as the routine takes them.
        unsafe { strided(rt, R, p, start, stride, size, config, config_mask, new_team) }
    })
);

creation_pair!(
    shmem_team_split_2d,
    shmemx_team_split_2d_nb,
    (
        parent_team: CTeam,
        xrange: c_int,
        xaxis_config: *const ConfigC,
        xaxis_mask: c_long,
        xaxis_team: *mut CTeam,
        yaxis_config: *const ConfigC,
        yaxis_mask: c_long,
        yaxis_team: *mut CTeam,
    ),
    |rt, R| split(rt, R, parent_team, Out::Two(xaxis_team as usize, yaxis_team as usize), |p| {
        // SAFETY: the C caller's pointers, as the routine takes them.
        unsafe {
            two_d(rt, R, p, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config, yaxis_mask, yaxis_team)
        }
    })
);

creation_pair!(
    shmemx_team_split_color,
    shmemx_team_split_color_nb,
    (
        parent_team: CTeam,
        color: c_int,
        key: c_int,
        config: *const ConfigC,
        config_mask: c_long,
        new_team: *mut CTeam,
    ),
    |rt, R| split(rt, R, parent_team, Out::One(new_team as usize), |p| {
        // SAFETY: the C caller's pointers, as the routine takes them.
        unsafe { by_color(rt, R, p, color, key, config, config_mask, new_team) }
    })
);

creation_pair!(
    shmemx_team_init,
    shmemx_team_init_nb,
    (team: *mut CTeam, config: *const ConfigX, config_mask: c_long, npes: c_int, pe_idx_in_team: c_int),
    // SAFETY: the C caller's pointers, as the routine takes them.
    |rt, R| unsafe { init(rt, R, team, config, config_mask, npes, pe_idx_in_team) }
);

/// `shmemx_team_get_uniqueid`: a fresh id for `shmemx_team_init` (drawn by the team's root,
/// handed to the other members out of band).
#[no_mangle]
pub unsafe extern "C" fn shmemx_team_get_uniqueid(uniqueid: *mut u64) -> c_int {
    const R: &str = "shmemx_team_get_uniqueid";
    let rt = rt(R);
    if uniqueid.is_null() {
        debug_report(rt, format_args!("{R}: uniqueid is NULL"));
        return codes::INVALID_ARGUMENT as c_int;
    }
    match core::unique::get_uniqueid(rt) {
        Ok(id) => {
            // SAFETY: non-null; the caller passes a writable shmemx_team_uniqueid_t.
            unsafe { *uniqueid = id };
            0
        }
        Err(e) => {
            report(rt, &e, true);
            code_of(&e)
        }
    }
}

/// The request of `shmemx_team_init`; `None` when this PE cannot even tell which team it is
/// joining (no unique id), which it reports right away.
///
/// # Safety
/// `config` is null or readable.
unsafe fn init(
    rt: &Runtime,
    routine: &'static str,
    team: *mut CTeam,
    config: *const ConfigX,
    mask: c_long,
    npes: c_int,
    pe_idx: c_int,
) -> Option<Pending> {
    let out = Out::One(team as usize);
    out.write([TeamHandle::INVALID; 2]);
    // SAFETY: forwarded contract.
    let c = unsafe { config.as_ref() };
    let uid = match c {
        Some(c) if mask & MASK_UNIQUEID != 0 => c.uniqueid,
        _ => {
            rt.report(format_args!(
                "{routine}: invalid argument config: a unique id is required (a non-NULL config with SHMEMX_TEAM_CONFIG_UNIQUEID in config_mask); the other members will wait for this PE"
            ));
            return None;
        }
    };
    let cfg = outputs_present(routine, &[team]).and_then(|_| {
        if mask & !(MASK_NUM_CONTEXTS | MASK_UNIQUEID) != 0 {
            return Err(Error::invalid(routine, "config_mask", format!("unknown bits {mask:#x}")));
        }
        let core_cfg = c.map(|c| TeamConfig { num_contexts: c.num_contexts });
        config_from_mask(core_cfg, mask, routine)
    });
    let req = core::init_start(rt, routine, uid, npes as i64, pe_idx as i64, cfg);
    Some(Pending { req, out, lead: pe_idx == 0 })
}

// ------------------------------------------------------------------------------------------
// Non-blocking creation
// ------------------------------------------------------------------------------------------

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
unsafe fn post_nb(routine: &'static str, req: *mut usize, p: Option<Pending>) -> c_int {
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

// ------------------------------------------------------------------------------------------
// Destroy and sync
// ------------------------------------------------------------------------------------------

/// `shmem_team_destroy`. INVALID is a no-op. A predefined team (or a handle that is not a team
/// of this PE) is refused: a message on stderr, nothing destroyed, and the program carries on
/// (the routine returns void). Destroys the team's shareable contexts first.
#[no_mangle]
pub extern "C" fn shmem_team_destroy(team: CTeam) {
    const R: &str = "shmem_team_destroy";
    let rt = rt(R);
    let h = handle(team);
    if h == TeamHandle::INVALID {
        return;
    }
    if rt.teams.get(h).is_some() && !h.is_predefined() {
        destroy_contexts(rt, h);
    }
    if let Err(e) = fcore::team::destroy(rt, h, R) {
        let what = match h.is_predefined() {
            true => "a predefined team cannot be destroyed",
            false => "not a team of this PE (destroyed already?)",
        };
        rt.report(format_args!("{R}: {what}; nothing was destroyed ({e})"));
    }
}

#[no_mangle]
pub extern "C" fn shmem_team_sync(team: CTeam) -> c_int {
    const R: &str = "shmem_team_sync";
    let rt = rt(R);
    let Some(t) = rt.teams.get(handle(team)) else {
        debug_report(rt, format_args!("{R}: not a team (SHMEM_TEAM_INVALID or destroyed)"));
        return 1;
    };
    match core::team_sync(rt, &t, R) {
        Ok(()) => 0,
        Err(e) => {
            report(rt, &e, t.my_index == 0);
            code_of(&e)
        }
    }
}

// ------------------------------------------------------------------------------------------
// Team contexts
// ------------------------------------------------------------------------------------------

/// A context made on a team: its address and whether it is private.
#[derive(Debug, Clone, Copy)]
struct TeamCtx {
    addr: usize,
    private: bool,
}

/// Contexts of each user or predefined team (except WORLD), by team handle.
static TEAM_CTXS: Mutex<Option<HashMap<u64, Vec<TeamCtx>>>> = Mutex::new(None);

fn team_ctxs() -> MutexGuard<'static, Option<HashMap<u64, Vec<TeamCtx>>>> {
    TEAM_CTXS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Called by `shmem_ctx_destroy`: the context `c` (at `addr`) leaves its team's list.
pub(crate) fn forget_ctx(c: &Ctx, addr: CtxHandle) {
    if let CtxScope::Team(t) = &c.scope {
        if let Some(list) = team_ctxs().as_mut().and_then(|m| m.get_mut(&t.handle().0)) {
            list.retain(|x| x.addr != addr as usize);
        }
    }
}

/// Destroys the shareable contexts of team `h` (private ones are the program's to destroy
/// first; any left are reported under SHMEM_DEBUG and stay usable).
fn destroy_contexts(rt: &Runtime, h: TeamHandle) {
    let list = team_ctxs().as_mut().and_then(|m| m.remove(&h.0)).unwrap_or_default();
    let private = list.iter().filter(|c| c.private).count();
    if private > 0 {
        debug_report(
            rt,
            format_args!(
                "shmem_team_destroy: {private} private context(s) of the team were not destroyed first"
            ),
        );
    }
    for c in list.into_iter().filter(|c| !c.private) {
        // SAFETY: the list holds live contexts made by new_ctx (shmem_ctx_destroy removes
        // them); the specification ends their use with the team's destruction.
        unsafe { ctx::free_ctx(rt, c.addr as CtxHandle) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn shmem_team_create_ctx(team: CTeam, options: c_long, ctx: *mut CtxHandle) -> c_int {
    const R: &str = "shmem_team_create_ctx";
    let rt = rt(R);
    if ctx.is_null() {
        crate::fatal(&Error::invalid(R, "ctx", "the pointer to store the new context in is NULL"));
    }
    // SAFETY: non-null; the caller passes a writable shmem_ctx_t.
    unsafe { *ctx = std::ptr::null() };
    let h = handle(team);
    let Some(t) = rt.teams.get(h) else {
        debug_report(rt, format_args!("{R}: not a team (SHMEM_TEAM_INVALID or destroyed)"));
        return 1;
    };
    if !ctx::options_valid(options) {
        debug_report(rt, format_args!("{R}: options {options:#x} has unknown bits"));
        return 1;
    }
    if h == TeamHandle::WORLD {
        // SAFETY: non-null, writable (above).
        unsafe { *ctx = ctx::new_ctx(options, CtxScope::World) };
        return 0;
    }
    let reserved = t.config.num_contexts.max(0) as usize;
    let new = ctx::new_ctx(options, CtxScope::Team(t));
    let mut g = team_ctxs();
    let list = g.get_or_insert_with(HashMap::new).entry(h.0).or_default();
    list.push(TeamCtx { addr: new as usize, private: options & CTX_PRIVATE != 0 });
    if list.len() > reserved {
        debug_report(
            rt,
            format_args!(
                "{R}: {} live contexts on a team configured for {reserved} (num_contexts); created anyway",
                list.len()
            ),
        );
    }
    drop(g);
    // SAFETY: non-null, writable (above).
    unsafe { *ctx = new };
    0
}

#[no_mangle]
pub unsafe extern "C" fn shmem_ctx_get_team(ctx: CtxHandle, team: *mut CTeam) -> c_int {
    const R: &str = "shmem_ctx_get_team";
    rt(R);
    if team.is_null() {
        crate::fatal(&Error::invalid(R, "team", "the pointer to store the team in is NULL"));
    }
    if ctx.is_null() {
        // SAFETY: non-null; the caller passes a writable shmem_team_t.
        unsafe { *team = 0 };
        return 1;
    }
    // SAFETY: a non-null context handle from the C caller (stale ones caught best effort).
    let c = unsafe { ctx::ctx_ref(ctx, R) };
    // SAFETY: non-null; the caller passes a writable shmem_team_t.
    unsafe { *team = c_team(c.scope.handle()) };
    0
}

pshmem!(
    shmem_team_translate_pe,
    shmem_team_ptr,
    shmem_team_get_config,
    shmemx_team_info,
    shmemx_team_get_uniqueid,
    shmemx_team_create_test,
    shmemx_team_create_wait,
    shmem_team_destroy,
    shmem_team_sync,
    shmem_team_create_ctx,
    shmem_ctx_get_team,
);
