//! Where this PE's teams live, and the runtime's routines over the world team: the world
//! barrier and finalize (whose barrier it is). Here, in the team layer, as `impl Runtime`:
//! the runtime is below the teams and names none of them (issue 30: `Runtime` held `Teams`,
//! and its barrier, finalize and allocations called the teams' sync and checked mode; the
//! allocations are in `team::alloc`).

use std::sync::OnceLock;

use super::{checked, Teams};
use crate::runtime::{fatal, Runtime, FAILED_EXIT_FENCE};

/// This PE's teams: made by the start of the runtime (`start`) and installed before the
/// runtime is published, so every runtime that `runtime::runtime` (or the safe API) hands out
/// has them; they live for the rest of the process, as the runtime does.
static TEAMS: OnceLock<Teams> = OnceLock::new();

/// Installs this PE's teams (once per process: `start`, under the init lock, right before the
/// runtime is published).
pub(crate) fn install(teams: Teams) {
    assert!(TEAMS.set(teams).is_ok(), "a PE's teams are installed once");
}

impl Runtime {
    /// This PE's teams.
    #[inline]
    pub fn teams(&self) -> &Teams {
        TEAMS.get().expect("the teams are installed before the runtime is published")
    }

    /// Waits until every PE has arrived; orders all earlier memory operations before any later
    /// ones on every PE (shmem_barrier_all / shmem_sync_all on shared memory).
    pub fn barrier_all(&self) {
        self.barrier_all_as("shmem_barrier_all")
    }

    /// [`Self::barrier_all`] published as `routine` (hang reports name it).
    pub fn barrier_all_as(&self, routine: &'static str) {
        let _call = self.enter_call(routine, Some(&self.teams().world));
        if self.checked {
            let sig = checked::Signature::new("shmem_barrier_all", &[]);
            if let Err(e) = checked::check_call(self, &self.teams().world, &sig) {
                fatal(&e);
            }
        } else {
            self.teams().world.sync_unchecked(self);
        }
    }

    /// The closing sync of `shmem_init`: every PE has started (its memory mapped and
    /// registered, its progress thread serving, its teams installed) before any returns.
    /// Across hosts it is a fence of the launcher's PMIx rather than a barrier of the world
    /// team, whose first network barrier also made the connections of the leaders' tree
    /// (each PE's first contact with its tree partners): on 64 simulated hosts × 1 PE, CPUs
    /// split, release builds, the barrier took 317-358 ms at the median PE and the fence
    /// 37-69 ms (three jobs each), and the slowest `shmem_init` went from 1.07-1.15 × Open
    /// MPI's `MPI_Init` to 0.79 × (docs/PERFORMANCE.md). The connections are made by the
    /// program's first collective, as Open MPI's MPI makes its own.
    pub fn init_closing_sync(&self) {
        // A call on the world team either way, so that the hang reports publish it and number
        // the team's later calls alike on one host and across hosts.
        let _call = self.enter_call("shmem_init", Some(&self.teams().world));
        match self.launcher_fence() {
            Ok(true) => {}
            Ok(false) => self.barrier_all_as("shmem_init"),
            Err(e) => fatal(&e),
        }
    }

    /// Collective end of the OpenSHMEM part of the program.
    pub fn finalize(&self) {
        self.finalize_within(None)
    }

    /// [`Self::finalize`]; across hosts, the closing PMIx fence waits at most `limit` (`None`:
    /// until every PE is in it, however long a loaded machine takes).
    fn finalize_within(&self, limit: Option<std::time::Duration>) {
        self.barrier_all_as("shmem_finalize");
        self.finish(limit);
    }

    /// Finalizes at process exit if the program did not (C programs register this to run at
    /// exit, with the process's exit `status`); nothing when leaving through a global exit,
    /// whose other PEs are being stopped anyway. A PE that exits with a failure status without
    /// finalizing (it returned early from `main`) may have peers that never reach their
    /// finalize: its closing fence across hosts gives up after `FAILED_EXIT_FENCE`.
    pub fn finalize_at_exit(&self, status: i32) {
        if self.unfinished() {
            self.finalize_within((status != 0).then_some(FAILED_EXIT_FENCE));
        }
    }
}
