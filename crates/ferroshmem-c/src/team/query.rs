//! Team queries: my_pe, n_pes, translate_pe, team_ptr, get_config and the usage query.

use std::ffi::{c_int, c_long, c_void};

use fcore::team as core;

use super::{handle, CTeam, ConfigC, MASK_NUM_CONTEXTS};
use crate::{debug_report, rt};

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

/// `shmem_team_my_pe` / `shmem_team_n_pes`: -1 on INVALID or a handle that is not a team.
macro_rules! team_query {
    ($($name:ident => |$t:ident| $value:expr),* $(,)?) => {$(
        #[no_mangle]
        pub extern "C" fn $name(team: CTeam) -> c_int {
            let teams = &rt(stringify!($name)).teams();
            // SAFETY: a C query lives for this call; destroying the team meanwhile is erroneous.
            unsafe { teams.get_unguarded(handle(team)) }.map_or(-1, |$t| $value as c_int)
        }
        pshmem!($name);
    )*};
}
team_query!(shmem_team_my_pe => |t| t.my_index, shmem_team_n_pes => |t| t.n_pes());

#[no_mangle]
pub extern "C" fn shmem_team_translate_pe(src_team: CTeam, src_pe: c_int, dest_team: CTeam) -> c_int {
    let teams = &rt("shmem_team_translate_pe").teams();
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
    match unsafe { rt.teams().get_unguarded(handle(team)) } {
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
    let Some(t) = rt.teams().get(handle(team)) else {
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
    let u = rt("shmemx_team_info").teams().usage();
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

pshmem!(shmem_team_translate_pe, shmem_team_ptr, shmem_team_get_config, shmemx_team_info);
