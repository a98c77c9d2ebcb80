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
//!
//! Rooms: `query` (my_pe, n_pes, translate, ptr, get_config, the usage query), `create` (the
//! splits and `shmemx_team_init`, blocking and the start of their `_nb` forms), `requests`
//! (non-blocking creations in flight: test and wait), `destroy`, `sync`, and `contexts` (team
//! contexts and the list kept per team).

use std::ffi::{c_int, c_long};

use fcore::team::{codes, TeamHandle};
use fcore::Error;

mod contexts;
mod create;
mod destroy;
mod query;
mod requests;
mod sync;

/// `shmem_team_t` as C passes it: the handle value in a pointer-sized integer.
pub type CTeam = usize;

/// `shmem_team_config_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConfigC {
    pub num_contexts: c_int,
}

/// `SHMEM_TEAM_NUM_CONTEXTS`: the mask bit of `num_contexts`.
const MASK_NUM_CONTEXTS: c_long = 1;

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
