//! Team contexts: `shmem_team_create_ctx`, `shmem_ctx_get_team`, and the contexts kept per
//! team so that destroying the team destroys its shareable ones and `num_contexts` is counted.

use std::collections::HashMap;
use std::ffi::{c_int, c_long};

use fcore::runtime::Runtime;
use fcore::team::TeamHandle;
use fcore::Error;

use super::{c_team, handle, CTeam};
use crate::ctx::{self, team_ctxs, CtxHandle, CtxScope, TeamCtx, CTX_PRIVATE};
use crate::{debug_report, rt};

/// Destroys the shareable contexts of team `h` (private ones are the program's to destroy
/// first; any left are reported under SHMEM_DEBUG and stay usable).
pub(super) fn destroy_contexts(rt: &Runtime, h: TeamHandle) {
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
    let Some(t) = rt.teams().get(h) else {
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

pshmem!(shmem_team_create_ctx, shmem_ctx_get_team);
