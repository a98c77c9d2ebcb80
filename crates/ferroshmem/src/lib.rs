//! ferroshmem: an OpenSHMEM 1.5 runtime in which PEs are processes: the PEs of one host share
//! every PE's symmetric heap (and, for C programs, static data) through one memfd per host, and
//! PEs on different hosts reach each other through UCX (a job across hosts is started by a
//! PMIx launcher).
//!
//! Module map: [`api`] (the safe Rust API), [`coll`] (its collectives and reduction
//! operators), [`team`] (team configuration and handles), [`error`]. Internal: `bootstrap`
//! (who am I and where is everybody: oshrun's job file or PMIx), `topology` (which PEs share a
//! host), `job` (the shared file and its layout), `ctrl` (per-PE control words), `net` (UCX to
//! the PEs of other hosts), `wait` (spin, yield, futex), `heap` (symmetric allocator
//! bookkeeping), `static_data` (globals made symmetric), `runtime` (the process's view of the
//! job), `rma`, `atomic` and `p2p` (raw one-sided operations used by the C ABI and the safe
//! API), `activity` (hang reports: an observer of the others).

//!
//! Soundness: no safe public item reaches raw memory (issue 13). The internals that do are
//! crate-private, or `unsafe` with their contract written down:
//!
//! ```compile_fail,E0599
//! let shmem = ferroshmem::Shmem::init().unwrap();
//! let _ = shmem.runtime(); // the runtime is not handed out by the safe API
//! ```
//! ```compile_fail,E0133
//! let _ = ferroshmem::runtime::runtime("caller"); // for the C ABI: unsafe
//! ```
//! ```compile_fail,E0603
//! use ferroshmem::job::Mapping; // a raw pointer, and a Drop that unmaps
//! ```
//! ```compile_fail,E0603
//! use ferroshmem::ctrl::CtrlTable; // CtrlTable::new(*mut u8, ...)
//! ```
//! ```compile_fail,E0603
//! use ferroshmem::static_data::SharedStatics; // share() remaps with MAP_FIXED
//! ```
//! ```compile_fail,E0624
//! let file = ferroshmem::launch::JobFile::create(ferroshmem::launch::Layout::new(1, 0, 1).unwrap()).unwrap();
//! let header = file.map_header().unwrap();
//! let _ = ferroshmem::launch::HeaderView::new(&header); // only MappedHeader::view makes one
//! ```
//! ```compile_fail,E0624
//! let _ = ferroshmem::launch::JobFile::from_inherited(0); // takes a descriptor by number
//! ```
//! ```compile_fail,E0624
//! fn inner(team: &ferroshmem::Team) { let _ = team.inner(); } // its epochs are the protocol
//! ```

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod api;
pub mod coll;
pub mod error;
pub mod team;

// The raw layer under the safe API, public only for the C ABI crate (`ferroshmem-c`) and the
// launcher: hidden from the documentation, not for Rust programs. What in it can reach raw
// memory is `unsafe` with its contract written down (`runtime::runtime`, `runtime::init`, the
// raw routines of `rma`, `atomic` and `p2p`).
#[doc(hidden)]
pub mod activity;
#[doc(hidden)]
pub mod atomic;
#[doc(hidden)]
pub mod p2p;
#[doc(hidden)]
pub mod rma;
#[doc(hidden)]
pub mod runtime;
#[doc(hidden)]
pub mod wait;

pub(crate) mod bootstrap;
pub(crate) mod bulk_copy;
pub(crate) mod ctrl;
pub(crate) mod heap;
pub(crate) mod job;
pub(crate) mod net;
pub(crate) mod racefree;
pub(crate) mod static_data;
pub(crate) mod sync_prims;
pub(crate) mod topology;

/// What `oshrun` needs of the job file: create it, pass its descriptor on, and watch its
/// header for a global exit. Hidden from the documentation: for the launcher only. Nothing in it
/// maps memory that a caller could misuse: the header is read through [`launch::MappedHeader`],
/// which owns its mapping, and the file is sealed against shrinking (`F_SEAL_SHRINK`, then
/// `F_SEAL_SEAL`) when it is created, so no holder of the descriptor (a caller, a PE) can cut
/// the pages from under a mapping (a read would be SIGBUS; issue 27).
#[doc(hidden)]
pub mod launch {
    pub use crate::activity::{JobStates, ENV_OSHRUN_REPORTS, REPORT_END};
    pub use crate::job::{
        parse_size, ExitRequest, HeaderView, JobFile, Layout, MappedHeader, DEFAULT_HEAP_SIZE,
        DEFAULT_TEAM_SLOTS, ENV_JOB_FD, ENV_PE, ENV_SYMMETRIC_SIZE, ENV_TEAM_SLOTS,
    };
    pub use crate::runtime::LOST_PEER_REPORT;
}

pub use api::*;
pub use error::{Error, Result};
