//! ferroshmem: an OpenSHMEM 1.5 runtime in which PEs are processes on one machine sharing every
//! PE's symmetric heap (and, for C programs, static data) through one memfd.
//!
//! Module map: [`job`] (the shared file and its layout), [`ctrl`] (per-PE control words),
//! [`wait`] (spin, yield, futex), [`heap`] (symmetric allocator bookkeeping),
//! [`static_data`] (globals made symmetric), [`runtime`] (the process's view of the job),
//! [`rma`], [`atomic`] and [`p2p`] (raw one-sided operations used by the C ABI and the safe API),
//! and [`api`] (the safe Rust API).

pub mod api;
pub mod atomic;
pub mod bootstrap;
pub mod coll;
pub mod ctrl;
pub mod error;
pub mod heap;
pub mod job;
pub mod net;
pub mod p2p;
pub mod rma;
pub mod runtime;
pub mod static_data;
pub mod team;
pub mod topology;
pub mod wait;

pub use api::*;
pub use error::{Error, Result};
