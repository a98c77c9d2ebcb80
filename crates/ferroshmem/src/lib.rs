//! ferroshmem: an OpenSHMEM 1.5 runtime in which PEs are processes: the PEs of one host share
//! every PE's symmetric heap through one memfd per host, and PEs on different hosts reach each
//! other through UCX (a job across hosts is started by a PMIx launcher). This crate is its safe
//! Rust API; the runtime under it, which the C ABI (`ferroshmem-c`) shares, is the crate
//! `ferroshmem-core`, as `mpi-sys` sits under `mpi`.
//!
//! Module map: [`api`] (the handle, symmetric slices, one-sided operations, teams), [`coll`]
//! (the teams' collectives and the reduction operators), and the error type ([`Error`]).
//!
//! Soundness: no safe public item reaches raw memory (issue 13). The runtime is not part of
//! this crate's API at all, and its own raw entry points are `unsafe` with their contract
//! written down:
//!
//! ```compile_fail,E0599
//! let shmem = ferroshmem::Shmem::init().unwrap();
//! let _ = shmem.runtime(); // the runtime is not handed out by the safe API
//! ```
//! ```compile_fail,E0433
//! let _ = ferroshmem::runtime::runtime("caller"); // not even named here
//! ```
//! ```compile_fail,E0624
//! fn inner(team: &ferroshmem::Team) { let _ = team.inner(); } // its epochs are the protocol
//! ```

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod api;
pub mod coll;
mod racefree;

// The rooms of the core that the safe API is written on, under the names its files use.
use ferroshmem_core::{atomic, error, p2p, rma, runtime, start, team};

pub use api::*;
pub use ferroshmem_core::error::{Error, Result};
