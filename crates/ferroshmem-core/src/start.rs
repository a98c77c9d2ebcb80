//! The start of a PE: above every other module of the core (issue 30). It runs the runtime's
//! own start (`Runtime::start`: bootstrap, mapping, the network), giving it what the hang
//! reports need of it; makes this PE's teams where the runtime made them when it held them,
//! and installs them before the runtime is published; then, as before, the closing sync of
//! `shmem_init`, the end of the call published and the hang reports' threads (`activity`).
//! The published pointer, the init lock and the watch of the other hosts stay the runtime's
//! (`runtime::runtime`, `runtime::start_once`).
// `init` is an unsafe fn (its contract is the C ABI's); nothing here has an unsafe block.
#![allow(unsafe_code)]

use crate::activity::{self, Doing};
use crate::error::Result;
use crate::runtime::{self, InitOptions, Observers, Runtime};
use crate::team::{self, Teams};

/// Starts the runtime (collective over all PEs), or returns the one already running: for the
/// C ABI crate.
///
/// # Safety
/// As [`runtime::runtime`]: the caller keeps the C API's contracts in every use of the runtime.
pub unsafe fn init(options: InitOptions) -> Result<&'static Runtime> {
    start_or_join(options)
}

/// Starts the runtime (collective over all PEs), or returns the one already running.
pub fn start_or_join(options: InitOptions) -> Result<&'static Runtime> {
    let make = || {
        let observers = Observers {
            init_call: Doing::InCall { routine: activity::routine_id("shmem_init"), team_slot: None }
                .encode(),
            hang_report_ms: activity::hang_report_ms_from_env(),
            // The hang reports watch the waits that sleep (the waits do not call them).
            sleeps: activity::SLEEP_OBSERVER,
        };
        let (rt, teams) = Runtime::start(options, observers, |my_pe, layout, topology| {
            Teams::new(my_pe, layout.n_pes, layout.team_slots, layout.slot_words * 8, topology)
        })?;
        team::install(teams);
        Ok(rt)
    };
    let started = |rt: &'static Runtime| {
        rt.init_closing_sync();
        rt.publish_outside();
        // Under a PMIx launcher: the host's coarse clock (oshrun's on one host), oshrun's report
        // requests through mpirun.
        activity::start_host_duties(rt);
    };
    runtime::start_once(make, started)
}
