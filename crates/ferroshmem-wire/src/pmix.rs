//! The PMIx client: rank, job size, where every rank runs, and a key-value exchange with a
//! fence. One per process (PMIx_Init is process-wide).
#![cfg_attr(wire, allow(unsafe_code))]

use crate::{Error, Result};

/// A connection to the PMIx server of the launcher that started this process.
#[derive(Debug)]
pub struct Pmix {
    rank: u32,
    size: u32,
}

impl Pmix {
    /// Whether a PMIx launcher (mpirun, srun --mpi=pmix, prterun) started this process, judged
    /// from the environment only (no PMIx call).
    pub fn launched_by_pmix() -> bool {
        std::env::var_os("PMIX_RANK").is_some() && std::env::var_os("PMIX_NAMESPACE").is_some()
    }

    /// This process's rank.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// Number of processes in the job.
    pub fn job_size(&self) -> u32 {
        self.size
    }
}

#[cfg(not(wire))]
impl Pmix {
    /// Connects to the launcher's PMIx server.
    pub fn init() -> Result<Pmix> {
        Err(Error::Unavailable)
    }
    /// Node id of `rank` (processes with the same id share a host).
    pub fn node_id(&self, _rank: u32) -> Result<u32> {
        Err(Error::Unavailable)
    }
    /// Rank of `rank` among the processes of its host (`PMIX_LOCAL_RANK`).
    pub fn local_rank(&self, _rank: u32) -> Result<u32> {
        Err(Error::Unavailable)
    }
    /// Host name of `rank`.
    pub fn hostname(&self, _rank: u32) -> Result<String> {
        Err(Error::Unavailable)
    }
    /// Posts `data` under `key` for every process (visible after commit and a collecting fence).
    pub fn put_bytes(&self, _key: &str, _data: &[u8]) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// Sends the posted values to the server.
    pub fn commit(&self) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// A fence over the job that also distributes every committed value.
    pub fn fence_collect(&self) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// A fence over the job (a barrier).
    pub fn fence(&self) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// A fence that gives up after `ms` milliseconds.
    pub fn fence_timeout(&self, _ms: u32) -> Result<bool> {
        Err(Error::Unavailable)
    }
    /// Leaves without finalizing.
    pub fn abandon(self) {}

    /// Asks the launcher to end the whole job with `status`.
    pub fn abort(&self, _status: i32, _message: &str) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// The bytes `rank` posted under `key`.
    pub fn get_bytes(&self, _rank: u32, _key: &str) -> Result<Vec<u8>> {
        Err(Error::Unavailable)
    }
}

#[cfg(wire)]
impl Pmix {
    /// Connects to the launcher's PMIx server.
    pub fn init() -> Result<Pmix> {
        crate::ffi::load()?;
        let mut rank = 0u32;
        // SAFETY: a valid out-pointer.
        crate::check("PMIx_Init", unsafe { crate::ffi::fsh_pmix_init(&mut rank) })?;
        let mut size = 0u32;
        // SAFETY: a valid out-pointer; PMIx is initialised.
        crate::check("PMIx_Get(PMIX_JOB_SIZE)", unsafe { crate::ffi::fsh_pmix_job_size(&mut size) })?;
        Ok(Pmix { rank, size })
    }

    /// Node id of `rank` (processes with the same id share a host).
    pub fn node_id(&self, rank: u32) -> Result<u32> {
        let mut id = 0u32;
        // SAFETY: a valid out-pointer; PMIx is initialised (self exists).
        crate::check("PMIx_Get(PMIX_NODEID)", unsafe { crate::ffi::fsh_pmix_node_id(rank, &mut id) })?;
        Ok(id)
    }

    /// Rank of `rank` among the processes of its host (`PMIX_LOCAL_RANK`).
    pub fn local_rank(&self, rank: u32) -> Result<u32> {
        let mut local = 0u32;
        // SAFETY: a valid out-pointer; PMIx is initialised (self exists).
        crate::check("PMIx_Get(PMIX_LOCAL_RANK)", unsafe {
            crate::ffi::fsh_pmix_local_rank(rank, &mut local)
        })?;
        Ok(local)
    }

    /// Host name of `rank`.
    pub fn hostname(&self, rank: u32) -> Result<String> {
        let mut buf = [0 as std::ffi::c_char; 256];
        // SAFETY: the buffer holds 256 bytes; the shim NUL-terminates within them.
        crate::check("PMIx_Get(PMIX_HOSTNAME)", unsafe {
            crate::ffi::fsh_pmix_hostname(rank, buf.as_mut_ptr(), buf.len())
        })?;
        // SAFETY: NUL-terminated by the shim.
        Ok(unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned())
    }

    fn key(key: &str) -> Result<std::ffi::CString> {
        std::ffi::CString::new(key)
            .map_err(|_| Error::BadValue { what: key.into(), reason: "NUL in a key".into() })
    }

    /// Posts `data` under `key` for every process (visible after commit and a collecting fence).
    pub fn put_bytes(&self, key: &str, data: &[u8]) -> Result<()> {
        let k = Self::key(key)?;
        // SAFETY: a NUL-terminated key and a readable buffer; PMIx copies both.
        crate::check("PMIx_Put", unsafe {
            crate::ffi::fsh_pmix_put(k.as_ptr(), data.as_ptr().cast(), data.len())
        })
    }

    /// Sends the posted values to the server.
    pub fn commit(&self) -> Result<()> {
        // SAFETY: no arguments; PMIx is initialised.
        crate::check("PMIx_Commit", unsafe { crate::ffi::fsh_pmix_commit() })
    }

    /// A fence over the job that also distributes every committed value.
    pub fn fence_collect(&self) -> Result<()> {
        // SAFETY: as above.
        crate::check("PMIx_Fence", unsafe { crate::ffi::fsh_pmix_fence(1) })
    }

    /// A fence over the job (a barrier).
    pub fn fence(&self) -> Result<()> {
        // SAFETY: as above.
        crate::check("PMIx_Fence", unsafe { crate::ffi::fsh_pmix_fence(0) })
    }

    /// A fence that gives up after `ms` milliseconds: `Ok(true)` when every process took
    /// part, `Ok(false)` on time-out (the fence is then still in flight: do not finalize).
    pub fn fence_timeout(&self, ms: u32) -> Result<bool> {
        // SAFETY: PMIx is initialised; the shim keeps the callback's flag in a static.
        match unsafe { crate::ffi::fsh_pmix_fence_timeout(ms.min(i32::MAX as u32) as i32) } {
            1 => Ok(false),
            rc => crate::check("PMIx_Fence_nb", rc).map(|()| true),
        }
    }

    /// Leaves without PMIx_Finalize (after a fence that timed out, finalizing could hang).
    pub fn abandon(self) {
        std::mem::forget(self);
    }

    /// Asks the launcher to end the whole job (every process of this job) with `status`,
    /// `message` for its report: how a PE that ends the job reaches every host whatever the
    /// launcher (under srun, a lone PE's exit ends only its host's step).
    pub fn abort(&self, status: i32, message: &str) -> Result<()> {
        let msg = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
        // SAFETY: PMIx is initialised; `msg` is a valid C string for the call.
        crate::check("PMIx_Abort", unsafe { crate::ffi::fsh_pmix_abort(status, msg.as_ptr()) })
    }

    /// The bytes `rank` posted under `key`.
    pub fn get_bytes(&self, rank: u32, key: &str) -> Result<Vec<u8>> {
        let k = Self::key(key)?;
        let mut p = std::ptr::null_mut();
        let mut len = 0usize;
        // SAFETY: valid key and out-pointers.
        crate::check("PMIx_Get", unsafe { crate::ffi::fsh_pmix_get(rank, k.as_ptr(), &mut p, &mut len) })?;
        // SAFETY: the shim malloc'd `len` bytes at `p`.
        Ok(unsafe { crate::ffi::take_bytes(p, len) })
    }
}

#[cfg(wire)]
impl Drop for Pmix {
    fn drop(&mut self) {
        // SAFETY: PMIx was initialised by `init`, once per Pmix.
        let _ = unsafe { crate::ffi::fsh_pmix_finalize() };
    }
}
