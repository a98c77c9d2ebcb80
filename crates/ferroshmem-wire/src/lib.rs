//! The PMIx client and UCX `ucp` calls ferroshmem uses to run a job across hosts: PMIx for
//! who is where and for exchanging addresses, UCX for one-sided transfers between hosts.
//!
//! The libraries' structs stay in a small C shim (`csrc/wire.c`) compiled against their own
//! headers, so no struct layout is written twice; Rust sees integers, pointers and bytes.
//! Built only where `pkg-config` finds both libraries (`cfg(wire)`); elsewhere every
//! constructor returns [`Error::Unavailable`].

pub mod pmix;
pub mod ucp;

#[cfg(wire)]
mod ffi;

/// What a PMIx or UCX call can report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Built without PMIx and UCX.
    #[error("built without PMIx and UCX (install libpmix-dev and libucx-dev, then rebuild)")]
    Unavailable,
    /// A call failed with the library's status text.
    #[error("{call}: {status}")]
    Call { call: &'static str, status: String },
    /// A value of an unexpected form.
    #[error("{what}: {reason}")]
    BadValue { what: String, reason: String },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Turns a shim status into a result.
#[cfg(wire)]
fn check(call: &'static str, rc: i32) -> Result<()> {
    if rc == 0 {
        return Ok(());
    }
    Err(Error::Call { call, status: ffi::error_text(rc) })
}
