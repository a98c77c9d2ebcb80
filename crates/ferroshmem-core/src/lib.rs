//! The core of ferroshmem, an OpenSHMEM 1.5 runtime in which PEs are processes: the PEs of
//! one host share every PE's symmetric heap (and, for C programs, static data) through one
//! memfd per host, and PEs on different hosts reach each other through UCX (a job across hosts
//! is started by a PMIx launcher). Two crates sit on it: the safe Rust API (`ferroshmem`) and
//! the C ABI (`ferroshmem-c`); `oshrun` uses [`launch`]. It is not an API for programs: its
//! raw routines take addresses, and those that can reach raw memory are `unsafe` with their
//! contract written down (`runtime::runtime`, `start::init`, the raw routines of `rma`,
//! `atomic` and `p2p`).
//!
//! Module map, in layers from the bottom, each importing only the layers below it
//! (docs/ARCHITECTURE.md, "Layers"; `tools/module-deps.py` fails on a cycle): `bootstrap` (who
//! am I and where is everybody: oshrun's job file or PMIx), `topology` (which PEs share a host),
//! `job` (the shared file and its layout), `ctrl` (per-PE control words, the state word of hang
//! reports), `net` (UCX to the PEs of other hosts), [`wait`] (spin, yield, futex), `heap`
//! (symmetric allocator bookkeeping), `static_data` (globals made symmetric); [`runtime`] (the
//! process's view of the job: mapping, waits, syncs, the heap, calls published, exit); [`team`]
//! (team arithmetic, slots, creation, checked mode, the sync across hosts, and where the teams
//! live, with the world barrier and the collective allocations), beside [`rma`], [`atomic`] and
//! [`p2p`] (one-sided operations); [`coll`] (collectives and reduction operators); [`activity`]
//! (hang reports: an observer of the others); [`start`] (the start of a PE: the runtime's, the
//! teams, the hang reports).
//!
//! What must stay private is, even to the crates on top:
//!
//! ```compile_fail,E0133
//! let _ = ferroshmem_core::runtime::runtime("caller"); // for the C ABI: unsafe
//! ```
//! ```compile_fail,E0603
//! use ferroshmem_core::job::Mapping; // a raw pointer, and a Drop that unmaps
//! ```
//! ```compile_fail,E0603
//! use ferroshmem_core::ctrl::CtrlTable; // CtrlTable::new(*mut u8, ...)
//! ```
//! ```compile_fail,E0603
//! use ferroshmem_core::static_data::SharedStatics; // share() remaps with MAP_FIXED
//! ```
//! ```compile_fail,E0624
//! let file = ferroshmem_core::launch::JobFile::create(ferroshmem_core::launch::Layout::new(1, 0, 1).unwrap()).unwrap();
//! let header = file.map_header().unwrap();
//! let _ = ferroshmem_core::launch::HeaderView::new(&header); // only MappedHeader::view makes one
//! ```
//! ```compile_fail,E0624
//! let _ = ferroshmem_core::launch::JobFile::from_inherited(0); // takes a descriptor by number
//! ```

#![warn(missing_docs)]
#![warn(unreachable_pub)]

// activity, p2p and runtime were the hidden raw layer of the one crate there was: their enum
// variants and fields are named for what they hold, and their types carry the docs.
#[allow(missing_docs)]
pub mod activity;
pub mod atomic;
pub mod coll;
pub mod error;
#[allow(missing_docs)]
pub mod p2p;
pub mod rma;
#[allow(missing_docs)]
pub mod runtime;
pub mod start;
pub mod team;
pub mod wait;

pub(crate) mod bootstrap;
pub(crate) mod bulk_copy;
pub(crate) mod ctrl;
pub(crate) mod heap;
pub(crate) mod job;
pub(crate) mod net;
pub(crate) mod settings;
pub(crate) mod static_data;
pub(crate) mod sync_prims;
pub(crate) mod topology;

/// What `oshrun` needs of the job file: create it, pass its descriptor on, and watch its
/// header for a global exit: for the launcher only. Nothing in it
/// maps memory that a caller could misuse: the header is read through [`launch::MappedHeader`],
/// which owns its mapping, and the file is sealed against shrinking (`F_SEAL_SHRINK`, then
/// `F_SEAL_SEAL`) when it is created, so no holder of the descriptor (a caller, a PE) can cut
/// the pages from under a mapping (a read would be SIGBUS; issue 27).
pub mod launch {
    pub use crate::activity::{JobStates, ENV_OSHRUN_REPORTS, REPORT_END};
    pub use crate::job::{
        parse_size, ExitRequest, HeaderView, JobFile, Layout, MappedHeader, DEFAULT_HEAP_SIZE,
        DEFAULT_TEAM_SLOTS, ENV_JOB_FD, ENV_PE, ENV_SYMMETRIC_SIZE, ENV_TEAM_SLOTS,
    };
    pub use crate::runtime::LOST_PEER_REPORT;
}

pub use error::{Error, Result};
