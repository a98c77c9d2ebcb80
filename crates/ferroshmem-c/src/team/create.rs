//! Team creation: the splits (strided, 2D, by color) and `shmemx_team_init`, their C
//! arguments decoded into the core's requests, the blocking routines and the start of their
//! `_nb` forms (whose requests `requests` keeps).

use std::ffi::{c_int, c_long};
use std::sync::Arc;

use fcore::runtime::Runtime;
use fcore::team::{self as core, codes, CreateRequest, Created, TeamConfig, TeamHandle, TeamInner};
use fcore::Error;

use super::requests::post_nb;
use super::{c_team, code_of, handle, CTeam, ConfigC, MASK_NUM_CONTEXTS};
use crate::{debug_report, report_failure as report, rt};

/// `shmemx_team_config_t`: the 1.5 structure plus the unique id of `shmemx_team_init`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConfigX {
    pub num_contexts: c_int,
    pub uniqueid: u64,
}

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
        out.num_contexts = c.validated(routine)?.num_contexts;
    }
    Ok(out)
}

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
    let p = rt.teams().get(handle(team));
    if p.is_none() {
        debug_report(rt, format_args!("{routine}: the parent team is SHMEM_TEAM_INVALID or not a team"));
    }
    p
}

/// A creation in progress with where its result goes.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) req: CreateRequest,
    out: Out,
    /// Whether this PE prints a mismatch message (PE 0 of the parent).
    lead: bool,
}

impl Pending {
    /// Writes the outcome of a finished creation; 0 or the (positive) error code.
    pub(super) fn finish(self, rt: &Runtime) -> c_int {
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

pshmem!(shmemx_team_get_uniqueid);
