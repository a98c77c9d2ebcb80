//! The one error type of the core crate. Every variant names the routine that failed, so a
//! message printed at the C edge says where the bad input came from. A failure of a system call
//! (an `errno`, as a [`std::io::Error`]) or of the network transport (PMIx, UCX) is kept as the
//! error's [`source`](std::error::Error::source), not folded into its message: print an error
//! with [`Error::report`] (as the runtime does) to get the whole chain.

use std::sync::Arc;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything the runtime can report. Non-exhaustive: later versions may report more.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A routine was called before `init` (or after `finalize`).
    #[error("{routine}: called before shmem_init (or after shmem_finalize)")]
    NotInitialized {
        /// The routine that failed.
        routine: &'static str,
    },
    /// A PE number outside `0..n_pes` (of the world or of a team).
    #[error("{routine}: PE {pe} is out of range (valid PEs are 0..{n_pes})")]
    InvalidPe {
        /// The routine that failed.
        routine: &'static str,
        /// The PE number given.
        pe: i64,
        /// PEs of the world or team.
        n_pes: usize,
    },
    /// An address that is neither in the symmetric heap nor in the program's static data.
    #[error("{routine}: address {addr:#x} ({len} bytes) is not symmetric (not in the symmetric heap or static data)")]
    NotSymmetric {
        /// The routine that failed.
        routine: &'static str,
        /// The address given.
        addr: usize,
        /// Bytes from it.
        len: usize,
    },
    /// The symmetric heap cannot hold the request.
    #[error("{routine}: cannot allocate {size} bytes: symmetric heap exhausted ({free} bytes free of {capacity}; set SHMEM_SYMMETRIC_SIZE)")]
    OutOfMemory {
        /// The routine that failed.
        routine: &'static str,
        /// Bytes asked for.
        size: usize,
        /// Bytes free.
        free: usize,
        /// Bytes of the heap.
        capacity: usize,
    },
    /// `free`/`realloc` of a pointer that the symmetric allocator did not hand out.
    #[error("{routine}: pointer {addr:#x} was not returned by shmem_malloc (or was already freed)")]
    InvalidFree {
        /// The routine that failed.
        routine: &'static str,
        /// The address given.
        addr: usize,
    },
    /// Any other argument that the routine cannot accept.
    #[error("{routine}: invalid argument {argument}: {reason}")]
    InvalidArgument {
        /// The routine that failed.
        routine: &'static str,
        /// Which argument.
        argument: &'static str,
        /// Why it is refused.
        reason: String,
    },
    /// A team handle that is not (or no longer) a team of this PE.
    #[error("{routine}: invalid team handle (destroyed, or never a team of this PE)")]
    InvalidTeam {
        /// The routine that failed.
        routine: &'static str,
    },
    /// A collective team creation failed; every PE of the parent gets the same `code`.
    #[error("{routine}: team not created (code {code}): {reason}")]
    TeamCreate {
        /// The routine that failed.
        routine: &'static str,
        /// A `team::codes` value, the same on every PE.
        code: u32,
        /// Why, the same on every PE.
        reason: String,
    },
    /// Checked mode: the PEs of a team did not make the same collective call.
    #[error("{message}")]
    CollectiveMismatch {
        /// The report, naming who passed what.
        message: String,
    },
    /// A transfer to or from a PE on another host failed.
    #[error("{routine}: transfer with PE {pe} on another host failed: {reason}")]
    Network {
        /// The routine that failed.
        routine: &'static str,
        /// The PE on the other host.
        pe: usize,
        /// What failed (the transport's operation, or why it could not be tried).
        reason: String,
        /// The transport's error, when it reported one.
        #[source]
        cause: Option<Cause>,
    },
    /// An operation whose cross-host form is not built yet, on a team or set that spans hosts.
    #[error("{routine}: not available on teams that span hosts yet ({what}); teams within one host, RMA, AMO and team_sync work across hosts")]
    AcrossHosts {
        /// The routine that failed.
        routine: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// Setting up the job (shared memory, environment from oshrun, the launcher's PMIx, the
    /// network transport) failed.
    #[error("bootstrap: {reason}")]
    Bootstrap {
        /// What failed.
        reason: String,
        /// The system call's or the transport's error, when one failed.
        #[source]
        cause: Option<Cause>,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(routine: &'static str, argument: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidArgument { routine, argument, reason: reason.into() }
    }

    /// [`Error::Bootstrap`] with no underlying error.
    pub(crate) fn bootstrap(reason: impl Into<String>) -> Self {
        Error::Bootstrap { reason: reason.into(), cause: None }
    }

    /// [`Error::Bootstrap`] for the failed system call `call` (an `errno` or an io error).
    pub(crate) fn bootstrap_os(call: impl Into<String>, e: impl Into<std::io::Error>) -> Self {
        Error::Bootstrap { reason: call.into(), cause: Some(Cause::os(e)) }
    }

    /// [`Error::Bootstrap`] for a failed PMIx or UCX call.
    pub(crate) fn bootstrap_transport(what: impl Into<String>, e: ferroshmem_wire::Error) -> Self {
        Error::Bootstrap { reason: what.into(), cause: Some(Cause(Arc::new(CauseKind::Transport(e)))) }
    }

    /// [`Error::Network`] with no transport error (the transfer could not be tried).
    pub(crate) fn network(routine: &'static str, pe: usize, reason: impl Into<String>) -> Self {
        Error::Network { routine, pe, reason: reason.into(), cause: None }
    }

    /// [`Error::Network`] for the transport's error `e` in operation `what`.
    pub(crate) fn network_transport(
        routine: &'static str,
        pe: usize,
        what: &str,
        e: ferroshmem_wire::Error,
    ) -> Self {
        Error::Network {
            routine,
            pe,
            reason: what.into(),
            cause: Some(Cause(Arc::new(CauseKind::Transport(e)))),
        }
    }

    /// The error followed by each of its sources (`error: source: source's source`): how the
    /// runtime prints errors (`Display` alone leaves the sources out, as is usual, so that
    /// reporters that walk the chain do not print them twice).
    pub fn report(&self) -> impl std::fmt::Display + '_ {
        Report(self)
    }
}

/// See [`Error::report`].
struct Report<'a>(&'a Error);

impl std::fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = std::error::Error::source(self.0);
        while let Some(e) = source {
            write!(f, ": {e}")?;
            source = e.source();
        }
        Ok(())
    }
}

/// The failure under an [`Error`]: a system call's (a [`std::io::Error`], from an `errno`) or
/// the network transport's (PMIx or UCX). It is what [`std::error::Error::source`] returns, as
/// the underlying error itself, so `source()?.downcast_ref::<std::io::Error>()` gives the
/// errno of a failed system call. One pointer (so that [`Error`], and every `Result` of the
/// crate, stays within 64 bytes: 56 before sources were kept), cheap to clone (shared); two are
/// equal when they are the same kind of failure with the same code (for a system call: its
/// `ErrorKind` and errno).
#[derive(Clone)]
pub struct Cause(Arc<CauseKind>);

enum CauseKind {
    Os(std::io::Error),
    Transport(ferroshmem_wire::Error),
}

impl std::ops::Deref for Cause {
    type Target = dyn std::error::Error + Send + Sync + 'static;

    /// The underlying error (what `source()` hands out).
    fn deref(&self) -> &Self::Target {
        match &*self.0 {
            CauseKind::Os(e) => e,
            CauseKind::Transport(e) => e,
        }
    }
}

impl std::fmt::Debug for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            CauseKind::Os(e) => e.fmt(f),
            CauseKind::Transport(e) => e.fmt(f),
        }
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&**self, f)
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        match (&*self.0, &*other.0) {
            (CauseKind::Os(a), CauseKind::Os(b)) => {
                a.kind() == b.kind() && a.raw_os_error() == b.raw_os_error()
            }
            (CauseKind::Transport(a), CauseKind::Transport(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Cause {}

impl Cause {
    /// A failed system call's error.
    fn os(e: impl Into<std::io::Error>) -> Self {
        Cause(Arc::new(CauseKind::Os(e.into())))
    }
}

/// The error, and so every `Result` of the crate, stays within a cache line (56 bytes before
/// sources were kept; `Network`'s cause, one pointer, made it 64).
const _: () = assert!(std::mem::size_of::<Error>() <= 64);

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    /// A failed system call of the runtime, as the job file's mapping reports an mmap of zero
    /// bytes (the kernel's EINVAL).
    fn failed_mmap() -> Error {
        Error::bootstrap_os(
            "mmap of 0 bytes of the job file",
            std::io::Error::from_raw_os_error(libc::EINVAL),
        )
    }

    #[test]
    fn an_os_failure_keeps_its_io_error_as_source() {
        let e = failed_mmap();
        assert!(matches!(e, Error::Bootstrap { cause: Some(_), .. }), "{e:?}");
        let io = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()).expect("an io::Error source");
        assert_eq!(io.raw_os_error(), Some(libc::EINVAL));
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput);
        // The message says what failed, the source why; the report says both.
        let os_text = io.to_string();
        assert_eq!(e.to_string(), "bootstrap: mmap of 0 bytes of the job file");
        assert_eq!(e.report().to_string(), format!("bootstrap: mmap of 0 bytes of the job file: {os_text}"));
        // Clones share the source and compare equal; another errno does not.
        assert_eq!(e.clone(), e);
        let other = Error::bootstrap_os("mmap of 0 bytes of the job file", rustix::io::Errno::NOMEM);
        assert_ne!(other, e);
        assert_eq!(other, Error::bootstrap_os("mmap of 0 bytes of the job file", rustix::io::Errno::NOMEM));
        assert_ne!(e, Error::bootstrap("mmap of 0 bytes of the job file"));
    }

    #[test]
    fn a_transport_failure_keeps_the_transport_error_as_source() {
        let wire = ferroshmem_wire::Error::Call { call: "ucp_put_nbx", status: "Connection reset".into() };
        let e = Error::network_transport("shmem_putmem", 3, "put", wire.clone());
        let source = e.source().and_then(|s| s.downcast_ref::<ferroshmem_wire::Error>());
        assert_eq!(source, Some(&wire));
        assert_eq!(
            e.report().to_string(),
            "shmem_putmem: transfer with PE 3 on another host failed: put: ucp_put_nbx: Connection reset"
        );
        assert!(Error::network("shmem_putmem", 3, "offset overflows").source().is_none());
    }
}
