//! The teams' collectives ([`Team::broadcast`](crate::Team::broadcast) and the others, in
//! `api`) and the reduction operators they take.
#![allow(unsafe_code)]

pub use ferroshmem_core::coll::{And, Complex, Max, Min, Or, Prod, ReduceOp, Sum, Xor};
// The core's collectives, under the names the typed forms call.
use ferroshmem_core::coll::{
    alltoalls, broadcast, checked_reduce_name, collect, fcollect, reduce, Alltoalls, Broadcast, Collect,
    TeamGroup,
};

mod api;

// SAFETY: two plain floats, every bit pattern valid.
unsafe impl crate::Symmetric for Complex<f32> {}
// SAFETY: as above.
unsafe impl crate::Symmetric for Complex<f64> {}
