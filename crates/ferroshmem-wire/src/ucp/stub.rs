//! The same types without UCX: every constructor says so. The stubs keep the real
//! signatures, `unsafe fn` included (no unsafe block anywhere).

use super::*;

macro_rules! unavailable {
    ($($name:ident),*) => {$(
        /// Unavailable: built without UCX.
        #[derive(Debug, Clone)]
        pub struct $name(());
    )*};
}
unavailable!(Context, Worker, Endpoint, MemRegion, RemoteKey, Pending);

impl Context {
    /// Unavailable: built without UCX.
    pub fn new() -> Result<Context> {
        Err(Error::Unavailable)
    }
}
impl Worker {
    /// Unavailable: built without UCX.
    pub fn new(_: &Context) -> Result<Worker> {
        Err(Error::Unavailable)
    }
    pub fn address(&self) -> Result<Vec<u8>> {
        Err(Error::Unavailable)
    }
    pub fn progress(&self) -> u32 {
        0
    }
    pub fn try_progress(&self) -> u32 {
        0
    }
    pub fn event_fd(&self) -> Result<RawFd> {
        Err(Error::Unavailable)
    }
    pub fn progress_and_arm(&self) -> Result<(bool, u32)> {
        Err(Error::Unavailable)
    }
    pub fn signal(&self) -> Result<()> {
        Err(Error::Unavailable)
    }
    pub fn fence(&self) -> Result<()> {
        Err(Error::Unavailable)
    }
    pub fn flush(&self) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// Unavailable: built without UCX.
    ///
    /// # Safety
    /// None needed; the signature matches the real one.
    pub unsafe fn set_flagged_regions(&self, _: &[(u64, u64)]) -> Result<()> {
        Err(Error::Unavailable)
    }
}
impl Endpoint {
    /// Unavailable: built without UCX.
    ///
    /// # Safety
    /// As the real one.
    pub unsafe fn connect(_: &Worker, _: &[u8], _: u64) -> Result<Endpoint> {
        Err(Error::Unavailable)
    }
    /// # Safety
    /// As the real one.
    pub unsafe fn put(&self, _: &[u8], _: u64, _: &RemoteKey) -> Result<()> {
        Err(Error::Unavailable)
    }
    pub fn put_flagged(&self, _: u64, _: u64, _: &[u8], _: u64, _: super::FlagUpdate) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// # Safety
    /// As the real one.
    pub unsafe fn get(&self, _: &mut [u8], _: u64, _: &RemoteKey) -> Result<()> {
        Err(Error::Unavailable)
    }
    /// # Safety
    /// As the real one.
    pub unsafe fn get_start(&self, _: usize, _: u64, _: &RemoteKey) -> Result<Pending> {
        Err(Error::Unavailable)
    }
    /// # Safety
    /// As the real one.
    pub unsafe fn swap64_start(&self, _: u64, _: u64, _: &RemoteKey) -> Result<Pending> {
        Err(Error::Unavailable)
    }
    /// # Safety
    /// As the real one.
    pub unsafe fn atomic64(
        &self,
        _: AtomicOp,
        _: u64,
        _: Option<u64>,
        _: u64,
        _: &RemoteKey,
        _: bool,
    ) -> Result<u64> {
        Err(Error::Unavailable)
    }
    /// # Safety
    /// As the real one.
    pub unsafe fn atomic32(
        &self,
        _: AtomicOp,
        _: u32,
        _: Option<u32>,
        _: u64,
        _: &RemoteKey,
        _: bool,
    ) -> Result<u32> {
        Err(Error::Unavailable)
    }
}
impl Pending {
    pub fn test(&mut self) -> Option<&Result<()>> {
        None
    }
    pub fn bytes(&self) -> Option<&[u8]> {
        None
    }
    pub fn reply(&self) -> Option<u64> {
        None
    }
}
impl MemRegion {
    /// # Safety
    /// As the real one.
    pub unsafe fn map(_: &Context, _: usize, _: usize) -> Result<MemRegion> {
        Err(Error::Unavailable)
    }
    pub fn pack_rkey(&self) -> Result<Vec<u8>> {
        Err(Error::Unavailable)
    }
}
impl RemoteKey {
    /// # Safety
    /// As the real one.
    pub unsafe fn unpack(_: &Endpoint, _: &[u8]) -> Result<RemoteKey> {
        Err(Error::Unavailable)
    }
}

/// Unavailable: no endpoint exists, so none failed.
pub fn peer_failure() -> Option<PeerFailure> {
    None
}

/// Unavailable: sleeps for `timeout`.
pub fn wait_for_peer_failure(timeout: std::time::Duration) {
    std::thread::sleep(timeout)
}
