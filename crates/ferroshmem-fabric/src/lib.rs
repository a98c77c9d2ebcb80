//! The multi-host wire of ferroshmem: a PMIx client for bootstrap (who is where, exchanging
//! addresses) and UCX `ucp` for one-sided RMA and atomics between hosts, with hand-written
//! bindings (`pmix_sys`, `ucp_sys`) checked against the C headers by a layout test.
//!
//! Built with the libraries only where `pkg-config` finds both UCX and PMIx (`cfg(fabric)`);
//! elsewhere the same API exists and every constructor returns [`Error::Unavailable`].

pub mod pmix;
pub mod ucp;

#[cfg(fabric)]
mod pmix_sys;
#[cfg(fabric)]
mod ucp_sys;

#[cfg(all(test, fabric))]
mod layout_test;

/// What a PMIx or UCX call can report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Built without UCX and PMIx (pkg-config found neither or only one of them).
    #[error("ferroshmem-fabric was built without UCX and PMIx (install libucx-dev and libpmix-dev, then rebuild): multi-host support is off")]
    Unavailable,
    /// A PMIx call failed.
    #[error("{call} failed: {} ({status})", pmix::status_text(*status))]
    Pmix { call: &'static str, status: i32 },
    /// A UCX call failed; `status` is UCX's `ucs_status_string`.
    #[error("{call} failed: {status}")]
    Ucx { call: &'static str, status: String },
    /// A PMIx value of an unexpected type or form.
    #[error("PMIx value of key {key:?} has an unexpected type or form")]
    BadValue { key: String },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
