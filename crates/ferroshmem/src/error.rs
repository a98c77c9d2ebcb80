//! The one error type of the core crate. Every variant names the routine that failed, so a
//! message printed at the C edge says where the bad input came from.

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
    /// A transfer to or from a PE on another host failed (the network transport's reason).
    #[error("{routine}: transfer with PE {pe} on another host failed: {reason}")]
    Network {
        /// The routine that failed.
        routine: &'static str,
        /// The PE on the other host.
        pe: usize,
        /// The transport's reason.
        reason: String,
    },
    /// An operation whose cross-host form is not built yet, on a team or set that spans hosts.
    #[error("{routine}: not available on teams that span hosts yet ({what}); teams within one host, RMA, AMO and team_sync work across hosts")]
    AcrossHosts {
        /// The routine that failed.
        routine: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// Setting up the job (shared memory, environment from oshrun) failed.
    #[error("bootstrap: {0}")]
    Bootstrap(
        /// What failed.
        String,
    ),
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(routine: &'static str, argument: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidArgument { routine, argument, reason: reason.into() }
    }
}
