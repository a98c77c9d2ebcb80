//! The `ucp` calls through the shim (`csrc/wire.c`): built where `pkg-config` finds UCX.

use super::*;
use crate::ffi;
use std::ffi::c_void;

struct ContextHandle(*mut c_void);
// SAFETY: the context is created with mt_workers_shared and is only read after creation.
unsafe impl Send for ContextHandle {}
// SAFETY: as above.
unsafe impl Sync for ContextHandle {}
impl Drop for ContextHandle {
    fn drop(&mut self) {
        // SAFETY: created by fsh_ucp_init; every worker and region holding a clone is gone.
        unsafe { ffi::fsh_ucp_cleanup(self.0) }
    }
}

/// A UCX context with RMA, 32/64-bit atomics and wake-up; `UCX_*` variables apply.
#[derive(Clone)]
pub struct Context(Arc<ContextHandle>);

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ucp::Context")
    }
}

impl Context {
    /// Reads the UCX configuration from the environment and creates the context.
    pub fn new() -> Result<Context> {
        ffi::load()?;
        let mut p = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        crate::check("ucp_init", unsafe { ffi::fsh_ucp_init(&mut p) })?;
        Ok(Context(Arc::new(ContextHandle(p))))
    }
}

struct WorkerHandle {
    ptr: *mut c_void,
    _context: Context,
}
// SAFETY: every shim call on the worker takes its mutex, so any thread may make it.
unsafe impl Send for WorkerHandle {}
// SAFETY: as above.
unsafe impl Sync for WorkerHandle {}
impl Drop for WorkerHandle {
    fn drop(&mut self) {
        // SAFETY: created by fsh_ucp_worker_create; endpoints holding a clone are gone.
        unsafe { ffi::fsh_ucp_worker_destroy(self.ptr) }
    }
}

/// A thread-safe UCX worker.
#[derive(Clone)]
pub struct Worker(Arc<WorkerHandle>);

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ucp::Worker")
    }
}

impl Worker {
    /// A worker of `context`, thread mode MULTI.
    pub fn new(context: &Context) -> Result<Worker> {
        let mut p = std::ptr::null_mut();
        // SAFETY: a live context and a valid out-pointer.
        crate::check("ucp_worker_create", unsafe { ffi::fsh_ucp_worker_create(context.0 .0, &mut p) })?;
        Ok(Worker(Arc::new(WorkerHandle { ptr: p, _context: context.clone() })))
    }

    fn ptr(&self) -> *mut c_void {
        self.0.ptr
    }

    /// The worker's address, for other processes to connect to.
    pub fn address(&self) -> Result<Vec<u8>> {
        let (mut p, mut len) = (std::ptr::null_mut(), 0usize);
        // SAFETY: a live worker and valid out-pointers.
        crate::check("ucp_worker_get_address", unsafe {
            ffi::fsh_ucp_worker_address(self.ptr(), &mut p, &mut len)
        })?;
        // SAFETY: the shim malloc'd `len` bytes at `p`.
        Ok(unsafe { ffi::take_bytes(p, len) })
    }

    /// Progresses the worker until it is quiet; returns how many events it handled.
    pub fn progress(&self) -> u32 {
        // SAFETY: a live worker (the shim takes its lock).
        unsafe { ffi::fsh_ucp_progress(self.ptr()) }
    }

    /// Progresses once unless another thread is progressing; returns the events handled.
    pub fn try_progress(&self) -> u32 {
        // SAFETY: a live worker (the shim tries its lock).
        unsafe { ffi::fsh_ucp_try_progress(self.ptr()) }
    }

    /// The descriptor that becomes readable when the armed worker has events.
    pub fn event_fd(&self) -> Result<RawFd> {
        let mut fd = -1;
        // SAFETY: a live worker of a context with the wake-up feature; valid out-pointer.
        crate::check("ucp_worker_get_efd", unsafe { ffi::fsh_ucp_event_fd(self.ptr(), &mut fd) })?;
        Ok(fd)
    }

    /// Progresses until quiet, then arms the event descriptor. Returns whether it is armed
    /// (nothing pending: sleep on it; otherwise call again) and how many events were
    /// handled.
    pub fn progress_and_arm(&self) -> Result<(bool, u32)> {
        let mut handled = 0;
        // SAFETY: a live worker; a valid out-pointer.
        match unsafe { ffi::fsh_ucp_progress_and_arm(self.ptr(), &mut handled) } {
            0 => Ok((true, handled)),
            1 => Ok((false, handled)),
            rc => crate::check("ucp_worker_arm", rc).map(|()| (false, handled)),
        }
    }

    /// Wakes a thread sleeping on the event descriptor.
    pub fn signal(&self) -> Result<()> {
        // SAFETY: a live worker.
        crate::check("ucp_worker_signal", unsafe { ffi::fsh_ucp_signal(self.ptr()) })
    }

    /// Orders earlier operations of this worker before later ones, per target.
    pub fn fence(&self) -> Result<()> {
        // SAFETY: a live worker.
        crate::check("ucp_worker_fence", unsafe { ffi::fsh_ucp_fence(self.ptr()) })
    }

    /// Waits until every operation of this worker has completed at its target.
    pub fn flush(&self) -> Result<()> {
        // SAFETY: a live worker.
        crate::check("ucp_worker_flush", unsafe { ffi::fsh_ucp_flush(self.ptr()) })
    }

    /// Accepts flagged messages ([`Endpoint::put_flagged`]) into `regions` (base address
    /// and length in this process; region 0 holds the flag words). Call before any peer
    /// may send one.
    ///
    /// # Safety
    /// Each region must stay mapped and writable for as long as the worker lives; the
    /// messages write into it from whichever thread progresses the worker.
    pub unsafe fn set_flagged_regions(&self, regions: &[(u64, u64)]) -> Result<()> {
        let base: Vec<u64> = regions.iter().map(|r| r.0).collect();
        let len: Vec<u64> = regions.iter().map(|r| r.1).collect();
        // SAFETY: a live worker; two arrays of `regions.len()` words (the shim refuses any
        // other count than its own); the regions' lifetime is the caller's contract.
        crate::check("ucp_worker_set_am_recv_handler", unsafe {
            ffi::fsh_ucp_set_flagged_regions(self.ptr(), base.as_ptr(), len.as_ptr(), regions.len())
        })
    }
}

/// A connection to another process's worker.
pub struct Endpoint {
    ptr: *mut c_void,
    worker: Worker,
}
// SAFETY: every shim call on an endpoint takes its worker's mutex.
unsafe impl Send for Endpoint {}
// SAFETY: as above.
unsafe impl Sync for Endpoint {}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ucp::Endpoint")
    }
}

impl Endpoint {
    /// Connects `worker` to the worker whose address is `address`, with UCX's peer error
    /// handling: should the peer fail, [`peer_failure`] names it by `peer`. An empty address
    /// is refused with an error; nothing else about it can be checked here.
    ///
    /// # Safety
    /// `address` must be a whole worker address, as [`Worker::address`] returned it in a
    /// process whose UCX is of a compatible build: UCX reads it without knowing its
    /// length, and garbage makes it read past the end or abort.
    pub unsafe fn connect(worker: &Worker, address: &[u8], peer: u64) -> Result<Endpoint> {
        refuse_empty("Endpoint::connect", "worker address", address)?;
        let mut p = std::ptr::null_mut();
        // SAFETY: a live worker; `address` is a whole worker address (the caller's
        // contract; UCX copies what it needs).
        crate::check("ucp_ep_create", unsafe {
            ffi::fsh_ucp_ep_create(worker.ptr(), address.as_ptr().cast(), peer, &mut p)
        })?;
        Ok(Endpoint { ptr: p, worker: worker.clone() })
    }

    /// Sends a flagged message: the peer copies `src` to `offset` of its region `region`,
    /// then updates the word at `flag_offset` of its region 0 by `flag` (see
    /// [`Worker::set_flagged_regions`]); one message where a put, a fence and a put are
    /// two. Returns when `src` may be reused.
    pub fn put_flagged(
        &self,
        region: u64,
        offset: u64,
        src: &[u8],
        flag_offset: u64,
        flag: super::FlagUpdate,
    ) -> Result<()> {
        let (flag_value, flag_update) = flag.parts();
        // SAFETY: live worker and endpoint; `src` is readable for its length and stays
        // borrowed until the shim returns (local completion).
        crate::check("ucp_am_send_nbx", unsafe {
            ffi::fsh_ucp_put_flagged(
                self.worker.ptr(),
                self.ptr,
                region,
                offset,
                src.as_ptr().cast(),
                src.len(),
                flag_offset,
                flag_value,
                flag_update,
            )
        })
    }

    /// Copies `src` to `raddr` of the peer; returns when `src` may be reused.
    ///
    /// # Safety
    /// `rkey` must have been unpacked on this endpoint (checked: an error otherwise), which
    /// is still the one it was unpacked on, and the bytes at `raddr` must lie inside the
    /// memory the peer registered under that key. UCX does not check the range on every
    /// transport: over shared memory it turns `raddr` into an address of this process.
    pub unsafe fn put(&self, src: &[u8], raddr: u64, rkey: &RemoteKey) -> Result<()> {
        self.check_key("Endpoint::put", rkey)?;
        // SAFETY: live worker, endpoint and key (unpacked on this endpoint); the target
        // range is the caller's contract; `src` is readable for its length and stays
        // borrowed until the shim returns (local completion).
        crate::check("ucp_put_nbx", unsafe {
            ffi::fsh_ucp_put(self.worker.ptr(), self.ptr, src.as_ptr().cast(), src.len(), raddr, rkey.ptr)
        })
    }

    /// Copies `dst.len()` bytes from `raddr` of the peer; returns when they are in `dst`.
    ///
    /// # Safety
    /// `rkey` must have been unpacked on this endpoint (checked: an error otherwise), which
    /// is still the one it was unpacked on, and the bytes at `raddr` must lie inside the
    /// memory the peer registered under that key. UCX does not check the range on every
    /// transport: over shared memory it turns `raddr` into an address of this process.
    pub unsafe fn get(&self, dst: &mut [u8], raddr: u64, rkey: &RemoteKey) -> Result<()> {
        self.check_key("Endpoint::get", rkey)?;
        // SAFETY: as `put`; `dst` is writable and borrowed until the data arrived.
        crate::check("ucp_get_nbx", unsafe {
            ffi::fsh_ucp_get(self.worker.ptr(), self.ptr, dst.as_mut_ptr().cast(), dst.len(), raddr, rkey.ptr)
        })
    }

    /// Whether `rkey` was unpacked on this endpoint (UCX resolves a key for the endpoint it
    /// was unpacked on).
    fn check_key(&self, call: &'static str, rkey: &RemoteKey) -> Result<()> {
        if rkey.ep == self.ptr {
            return Ok(());
        }
        Err(crate::Error::BadValue {
            what: call.into(),
            reason: "the remote key was unpacked on another endpoint".into(),
        })
    }

    /// # Safety
    /// As [`Self::put`], for `size` bytes at `raddr`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn atomic(
        &self,
        op: AtomicOp,
        size: i32,
        value: u64,
        compare: u64,
        raddr: u64,
        rkey: &RemoteKey,
        fetch: bool,
    ) -> Result<u64> {
        self.check_key("Endpoint::atomic", rkey)?;
        let mut out = 0u64;
        // SAFETY: live worker, endpoint and key (unpacked on this endpoint); the target
        // word is the caller's contract; the shim keeps its operands on its stack until
        // the operation completed.
        crate::check("ucp_atomic_op_nbx", unsafe {
            ffi::fsh_ucp_atomic(
                self.worker.ptr(),
                self.ptr,
                ffi::fsh_ucp_atomic_op_code(op.index()),
                size,
                value,
                compare,
                raddr,
                rkey.ptr,
                i32::from(fetch),
                &mut out,
            )
        })?;
        Ok(out)
    }

    /// A 64-bit atomic at `raddr`; returns the old value when `fetch` (compare-swap always
    /// fetches; `compare` is its expected value).
    ///
    /// # Safety
    /// `rkey` must have been unpacked on this endpoint (checked: an error otherwise), which
    /// is still the one it was unpacked on, and the bytes at `raddr` must lie inside the
    /// memory the peer registered under that key. UCX does not check the range on every
    /// transport: over shared memory it turns `raddr` into an address of this process.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn atomic64(
        &self,
        op: AtomicOp,
        value: u64,
        compare: Option<u64>,
        raddr: u64,
        rkey: &RemoteKey,
        fetch: bool,
    ) -> Result<u64> {
        // SAFETY: the caller's contract, for the 8 bytes at `raddr`.
        unsafe { self.atomic(op, 8, value, compare.unwrap_or(0), raddr, rkey, fetch) }
    }

    /// A 32-bit atomic at `raddr` (see [`Self::atomic64`]).
    ///
    /// # Safety
    /// `rkey` must have been unpacked on this endpoint (checked: an error otherwise), which
    /// is still the one it was unpacked on, and the bytes at `raddr` must lie inside the
    /// memory the peer registered under that key. UCX does not check the range on every
    /// transport: over shared memory it turns `raddr` into an address of this process.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn atomic32(
        &self,
        op: AtomicOp,
        value: u32,
        compare: Option<u32>,
        raddr: u64,
        rkey: &RemoteKey,
        fetch: bool,
    ) -> Result<u32> {
        // SAFETY: the caller's contract, for the 4 bytes at `raddr`.
        unsafe { self.atomic(op, 4, u64::from(value), u64::from(compare.unwrap_or(0)), raddr, rkey, fetch) }
            .map(|v| v as u32)
    }
}

impl Endpoint {
    /// Starts a get of `len` bytes from `raddr` of the peer without waiting for it: the
    /// bytes land in a buffer of the returned [`Pending`]. The caller progresses the
    /// worker and tests it; a `Pending` dropped unfinished leaves its buffer to UCX.
    ///
    /// # Safety
    /// `rkey` must have been unpacked on this endpoint (checked: an error otherwise), which
    /// is still the one it was unpacked on, and the bytes at `raddr` must lie inside the
    /// memory the peer registered under that key. UCX does not check the range on every
    /// transport: over shared memory it turns `raddr` into an address of this process.
    pub unsafe fn get_start(&self, len: usize, raddr: u64, rkey: &RemoteKey) -> Result<Pending> {
        self.check_key("Endpoint::get_start", rkey)?;
        let mut buf = vec![0u64; len.div_ceil(8)].into_boxed_slice();
        let mut req = std::ptr::null_mut();
        // SAFETY: live worker, endpoint and key (unpacked on this endpoint); the source
        // range is the caller's contract; `buf` holds at least `len` bytes and is
        // owned by the returned Pending, which keeps it (or leaks it) until the get has
        // completed.
        let rc = unsafe {
            ffi::fsh_ucp_get_start(
                self.worker.ptr(),
                self.ptr,
                buf.as_mut_ptr().cast(),
                len,
                raddr,
                rkey.ptr,
                &mut req,
            )
        };
        Pending::started("ucp_get_nbx", rc, req, buf, self.worker.clone())
    }

    /// Starts a 64-bit swap of the word at `raddr` with `value` without waiting; the old
    /// value is [`Pending::reply`] once complete.
    ///
    /// # Safety
    /// `rkey` must have been unpacked on this endpoint (checked: an error otherwise), which
    /// is still the one it was unpacked on, and the bytes at `raddr` must lie inside the
    /// memory the peer registered under that key. UCX does not check the range on every
    /// transport: over shared memory it turns `raddr` into an address of this process.
    pub unsafe fn swap64_start(&self, value: u64, raddr: u64, rkey: &RemoteKey) -> Result<Pending> {
        self.check_key("Endpoint::swap64_start", rkey)?;
        // Word 0: the operand; word 1: the reply.
        let mut buf = vec![value, 0].into_boxed_slice();
        let mut req = std::ptr::null_mut();
        let words = buf.as_mut_ptr();
        // SAFETY: live worker, endpoint and key (unpacked on this endpoint); the target
        // word is the caller's contract; both words live in `buf`, owned by the
        // returned Pending, which keeps it (or leaks it) until the atomic has completed.
        let rc = unsafe {
            ffi::fsh_ucp_atomic_start(
                self.worker.ptr(),
                self.ptr,
                ffi::fsh_ucp_atomic_op_code(AtomicOp::Swap.index()),
                8,
                words,
                words.add(1),
                raddr,
                rkey.ptr,
                &mut req,
            )
        };
        Pending::started("ucp_atomic_op_nbx", rc, req, buf, self.worker.clone())
    }
}

/// A get or atomic in flight ([`Endpoint::get_start`], [`Endpoint::swap64_start`]),
/// with the buffer it lands in.
pub struct Pending {
    call: &'static str,
    /// The UCX request while in flight; null once finished.
    req: *mut c_void,
    buf: Option<Box<[u64]>>,
    done: Option<Result<()>>,
    worker: Worker,
}
// SAFETY: the request is only touched through the shim, under the worker's mutex.
unsafe impl Send for Pending {}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ucp::Pending").field("call", &self.call).field("done", &self.done).finish()
    }
}

impl Pending {
    fn started(
        call: &'static str,
        rc: i32,
        req: *mut c_void,
        buf: Box<[u64]>,
        worker: Worker,
    ) -> Result<Pending> {
        const IN_PROGRESS: i32 = 1; // UCS_INPROGRESS
        let done = match rc {
            IN_PROGRESS => None,
            rc => {
                crate::check(call, rc)?;
                Some(Ok(()))
            }
        };
        Ok(Pending { call, req, buf: Some(buf), done, worker })
    }

    /// Whether it has finished (the caller progresses the worker between tests), and how.
    pub fn test(&mut self) -> Option<&Result<()>> {
        if self.done.is_none() {
            // SAFETY: a live worker and our request, not yet freed (`done` is unset).
            let rc = unsafe { ffi::fsh_ucp_request_test(self.worker.ptr(), self.req) };
            if rc != 1 {
                self.req = std::ptr::null_mut();
                self.done = Some(crate::check(self.call, rc));
            }
        }
        self.done.as_ref()
    }

    /// The bytes a get brought (its `len`, rounded up to whole words), once it succeeded.
    pub fn bytes(&self) -> Option<&[u8]> {
        match (&self.done, &self.buf) {
            (Some(Ok(())), Some(buf)) => {
                // SAFETY: a u64 slice viewed as its bytes: same memory, alignment 1.
                Some(unsafe { std::slice::from_raw_parts(buf.as_ptr().cast(), buf.len() * 8) })
            }
            _ => None,
        }
    }

    /// The old value an atomic fetched, once it succeeded.
    pub fn reply(&self) -> Option<u64> {
        match (&self.done, &self.buf) {
            (Some(Ok(())), Some(buf)) if buf.len() == 2 => Some(buf[1]),
            _ => None,
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.done.is_none() && !self.req.is_null() {
            // SAFETY: a live worker and our unfinished request, released once.
            unsafe { ffi::fsh_ucp_request_release(self.worker.ptr(), self.req) };
            // UCX may still write into the buffer when the operation completes: it must
            // outlive us, so it is leaked (a few words per host that did not answer).
            if let Some(buf) = self.buf.take() {
                Box::leak(buf);
            }
        }
    }
}

/// The first endpoint of this process whose peer failed (see [`PeerFailure`]), if any.
pub fn peer_failure() -> Option<PeerFailure> {
    let (mut peer, mut status) = (0u64, 0);
    // SAFETY: the shim is loaded (an endpoint exists only then; before, the count is 0 and the
    // shim's table may be empty: checked by `ffi::load`).
    if ffi::load().is_err() || unsafe { ffi::fsh_ucp_peer_failures(&mut peer, &mut status) } == 0 {
        return None;
    }
    Some(PeerFailure { peer, status: ffi::error_text(status) })
}

/// Sleeps until an endpoint of this process fails (at once if one has) or `timeout` passes.
pub fn wait_for_peer_failure(timeout: std::time::Duration) {
    if ffi::load().is_err() {
        std::thread::sleep(timeout);
        return;
    }
    let ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
    // SAFETY: the shim is loaded; the call only sleeps on its own word.
    unsafe { ffi::fsh_ucp_wait_peer_failure(ms) }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        // SAFETY: created by fsh_ucp_ep_create on this worker, closed once.
        unsafe { ffi::fsh_ucp_ep_close(self.worker.ptr(), self.ptr) }
    }
}

/// Local memory registered with the context, so that peers can reach it.
pub struct MemRegion {
    memh: *mut c_void,
    context: Context,
}
// SAFETY: a registration handle is not mutated after creation.
unsafe impl Send for MemRegion {}
// SAFETY: as above.
unsafe impl Sync for MemRegion {}

impl std::fmt::Debug for MemRegion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ucp::MemRegion")
    }
}

impl MemRegion {
    /// Registers `len` bytes of existing memory at `addr`, so that peers can write it.
    ///
    /// # Safety
    /// The memory must stay mapped while the region lives, and nothing in this process
    /// may rely on it not changing: peers write it at any time.
    pub unsafe fn map(context: &Context, addr: usize, len: usize) -> Result<MemRegion> {
        let mut m = std::ptr::null_mut();
        // SAFETY: registering does not touch the bytes; the caller keeps them mapped.
        crate::check("ucp_mem_map", unsafe {
            ffi::fsh_ucp_mem_map(context.0 .0, addr as *mut c_void, len, &mut m)
        })?;
        Ok(MemRegion { memh: m, context: context.clone() })
    }

    /// The packed remote key that peers unpack to reach this region.
    pub fn pack_rkey(&self) -> Result<Vec<u8>> {
        let (mut p, mut len) = (std::ptr::null_mut(), 0usize);
        // SAFETY: a live context and region; valid out-pointers.
        crate::check("ucp_rkey_pack", unsafe {
            ffi::fsh_ucp_rkey_pack(self.context.0 .0, self.memh, &mut p, &mut len)
        })?;
        // SAFETY: the shim malloc'd `len` bytes at `p`.
        Ok(unsafe { ffi::take_bytes(p, len) })
    }
}

impl Drop for MemRegion {
    fn drop(&mut self) {
        // SAFETY: registered by fsh_ucp_mem_map in this context, unmapped once.
        unsafe { ffi::fsh_ucp_mem_unmap(self.context.0 .0, self.memh) }
    }
}

/// A peer's remote key, unpacked for one endpoint (drop it before the endpoint).
pub struct RemoteKey {
    ptr: *mut c_void,
    /// The endpoint it was unpacked on (compared, never dereferenced).
    ep: *mut c_void,
    worker: Worker,
}
// SAFETY: an unpacked key is read-only; creating and destroying it take the worker's mutex.
unsafe impl Send for RemoteKey {}
// SAFETY: as above.
unsafe impl Sync for RemoteKey {}

impl std::fmt::Debug for RemoteKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ucp::RemoteKey")
    }
}

impl RemoteKey {
    /// Unpacks a key a peer packed, for use on `ep`. An empty key is refused with an
    /// error; nothing else about it can be checked here.
    ///
    /// # Safety
    /// `packed` must be a whole packed key, as [`MemRegion::pack_rkey`] returned it in the
    /// process `ep` is connected to, whose UCX is of a compatible build: UCX reads it
    /// without knowing its length, and garbage makes it crash.
    pub unsafe fn unpack(ep: &Endpoint, packed: &[u8]) -> Result<RemoteKey> {
        refuse_empty("RemoteKey::unpack", "packed remote key", packed)?;
        let mut p = std::ptr::null_mut();
        // SAFETY: a live endpoint; `packed` is a whole packed key of its peer (the
        // caller's contract; UCX copies what it needs).
        crate::check("ucp_ep_rkey_unpack", unsafe {
            ffi::fsh_ucp_rkey_unpack(ep.worker.ptr(), ep.ptr, packed.as_ptr().cast(), &mut p)
        })?;
        Ok(RemoteKey { ptr: p, ep: ep.ptr, worker: ep.worker.clone() })
    }
}

impl Drop for RemoteKey {
    fn drop(&mut self) {
        // SAFETY: unpacked by fsh_ucp_rkey_unpack, destroyed once.
        unsafe { ffi::fsh_ucp_rkey_destroy(self.worker.ptr(), self.ptr) }
    }
}
