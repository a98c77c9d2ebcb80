//! Thin owned wrappers over UCX `ucp`: a context, a worker with its wakeup descriptor,
//! endpoints, registered memory, remote keys, and one-sided RMA and atomics (the `*_nbx` API).
//!
//! Ownership: every object keeps what it depends on alive (an `Arc` inside), so a worker never
//! outlives its context nor an endpoint its worker, and drop order does not matter.
//!
//! Threads: a [`Worker`] is meant to be shared by a progress thread (which sleeps on
//! [`Worker::event_fd`] and calls [`Worker::progress`]) and application threads posting
//! operations. With [`ThreadMode::Multi`] (UCX built `--enable-mt`, as Debian's is) UCX
//! serialises every call on the worker with its own lock. With `Single` or `Serialized`, or if
//! UCX grants less than `Multi`, this crate serialises the calls with a mutex of its own, so the
//! wrappers are `Send + Sync` whatever the mode.
//!
//! Completion: blocking calls post with the `*_nbx` functions (immediate completion allowed),
//! then, if UCX returned a request, call `ucp_worker_progress` until
//! `ucp_request_check_status` leaves `UCS_INPROGRESS`, and free the request. Over TCP (and any
//! transport without hardware RMA) an operation completes only when the TARGET's worker is
//! progressed too: run a progress thread on every process that is a target.
// FFI, and `unsafe fn`s of the API (buffers UCX uses after the call returns).
#![allow(unsafe_code)]
// Built without UCX the objects cannot exist: their bodies are unreachable.
#![cfg_attr(not(fabric), allow(unused_variables, dead_code))]

use crate::{Error, Result};
use std::os::fd::RawFd;

#[cfg(fabric)]
use crate::ucp_sys as sys;
#[cfg(fabric)]
use std::{ffi::c_void, sync::Arc};

/// Runs `$e` when built with UCX; otherwise the object cannot exist (its `never` field is
/// uninhabited), so the method body is unreachable by construction.
macro_rules! fab {
    ($self:ident, $e:expr) => {{
        #[cfg(fabric)]
        {
            $e
        }
        #[cfg(not(fabric))]
        {
            match $self.never {}
        }
    }};
}

/// Features requested from UCX for a [`Context`] (`UCP_FEATURE_*`), combined with `|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features(u64);

impl Features {
    /// Remote memory access: put and get.
    pub const RMA: Features = Features(1 << 1);
    /// 32-bit remote atomics.
    pub const AMO32: Features = Features(1 << 2);
    /// 64-bit remote atomics.
    pub const AMO64: Features = Features(1 << 3);
    /// Event descriptor wakeup ([`Worker::event_fd`], [`Worker::arm`]).
    pub const WAKEUP: Features = Features(1 << 4);
    /// The bits (`UCP_FEATURE_*`).
    pub fn bits(self) -> u64 {
        self.0
    }
}

impl std::ops::BitOr for Features {
    type Output = Features;
    fn bitor(self, rhs: Features) -> Features {
        Features(self.0 | rhs.0)
    }
}

/// Worker thread mode (`ucs_thread_mode_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadMode {
    /// One thread at a time; this crate serialises calls with its own mutex (UCX is asked for
    /// `Serialized`, since `Single` would tie the worker to its creating thread).
    Single,
    /// One thread at a time; this crate serialises calls with its own mutex.
    Serialized,
    /// Any thread, concurrently: UCX's own lock serialises the calls.
    Multi,
}

/// Atomic operations on a remote word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// `*remote += value`
    Add,
    /// `*remote = value`
    Swap,
    /// `*remote &= value`
    And,
    /// `*remote |= value`
    Or,
    /// `*remote ^= value`
    Xor,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A word UCX atomics operate on: `u32` (needs [`Features::AMO32`]) or `u64` ([`Features::AMO64`]).
pub trait AtomicWord: sealed::Sealed + Copy + Default + Send + Sync + 'static {}
impl AtomicWord for u32 {}
impl AtomicWord for u64 {}

/// A UCX context (`ucp_context_h`), read from the `UCX_*` environment.
#[derive(Debug)]
pub struct Context {
    #[cfg(fabric)]
    inner: Arc<imp::Ctx>,
    #[cfg(not(fabric))]
    never: std::convert::Infallible,
}

/// A UCX worker (`ucp_worker_h`): progress engine, address, wakeup descriptor.
#[derive(Debug)]
pub struct Worker {
    #[cfg(fabric)]
    inner: Arc<imp::Wrk>,
    #[cfg(not(fabric))]
    never: std::convert::Infallible,
}

/// A connection to a remote worker (`ucp_ep_h`). Closed (force mode) on drop.
#[derive(Debug)]
pub struct Endpoint {
    #[cfg(fabric)]
    inner: Arc<imp::Ep>,
    #[cfg(not(fabric))]
    never: std::convert::Infallible,
}

/// Local memory registered with a context (`ucp_mem_h`), unmapped on drop.
#[derive(Debug)]
pub struct MemRegion {
    #[cfg(fabric)]
    inner: imp::Mem,
    #[cfg(not(fabric))]
    never: std::convert::Infallible,
}

/// A remote memory key unpacked for one endpoint (`ucp_rkey_h`), destroyed on drop.
#[derive(Debug)]
pub struct RemoteKey {
    #[cfg(fabric)]
    inner: imp::Rkey,
    #[cfg(not(fabric))]
    never: std::convert::Infallible,
}

/// An operation in flight (a UCX request). [`wait`](Request::wait) for it; dropping it waits
/// too (the buffers it uses must stay valid until then: see the `unsafe` posting functions).
#[derive(Debug)]
#[must_use = "a request must be waited for"]
pub struct Request<'a> {
    #[cfg(fabric)]
    inner: imp::Req<'a>,
    #[cfg(not(fabric))]
    never: std::convert::Infallible,
    #[cfg(not(fabric))]
    _borrow: std::marker::PhantomData<&'a ()>,
}

impl Context {
    /// Creates a context with `features` (`ucp_config_read(NULL, NULL)`, so `UCX_*`
    /// environment variables apply; `ucp_init`). The context is marked shared between workers
    /// of several threads (`mt_workers_shared`), so memory mapping from any thread is safe.
    pub fn new(features: Features) -> Result<Context> {
        #[cfg(fabric)]
        return imp::Ctx::new(features.bits()).map(|c| Context { inner: Arc::new(c) });
        #[cfg(not(fabric))]
        Err(Error::Unavailable)
    }
}

impl Worker {
    /// Creates a worker. Use [`ThreadMode::Multi`] when a progress thread calls
    /// [`progress`](Self::progress) while application threads post operations: UCX's lock then
    /// serialises them. The mode UCX actually granted is [`thread_mode`](Self::thread_mode); if
    /// it is less than `Multi`, calls are serialised by a mutex of this crate instead.
    pub fn new(context: &Context, thread_mode: ThreadMode) -> Result<Worker> {
        fab!(context, imp::Wrk::new(&context.inner, thread_mode).map(|w| Worker { inner: Arc::new(w) }))
    }

    /// The thread mode UCX granted (`ucp_worker_query`).
    pub fn thread_mode(&self) -> ThreadMode {
        fab!(self, self.inner.granted)
    }

    /// This worker's address, to hand to peers for [`Endpoint::connect`].
    pub fn address(&self) -> Result<Vec<u8>> {
        fab!(self, self.inner.address())
    }

    /// One round of `ucp_worker_progress`; returns the number of events handled (0: idle).
    pub fn progress(&self) -> u32 {
        fab!(self, self.inner.progress())
    }

    /// The wakeup descriptor (`ucp_worker_get_efd`; needs [`Features::WAKEUP`]). Owned by the
    /// worker: do not close it. Poll it for `POLLIN` after [`arm`](Self::arm) returned `true`.
    pub fn event_fd(&self) -> Result<RawFd> {
        fab!(self, self.inner.event_fd())
    }

    /// Arms the wakeup descriptor (`ucp_worker_arm`): `Ok(true)` when armed (`UCS_OK`, safe to
    /// sleep on the descriptor), `Ok(false)` when events are pending (`UCS_ERR_BUSY`: progress
    /// again first).
    pub fn arm(&self) -> Result<bool> {
        fab!(self, self.inner.arm())
    }

    /// Wakes a thread sleeping on the event descriptor (`ucp_worker_signal`; safe from any
    /// thread in every mode).
    pub fn signal(&self) -> Result<()> {
        fab!(self, self.inner.signal())
    }

    /// Completes every operation this worker posted, remotely (`ucp_worker_flush_nbx`, waited
    /// by progressing).
    pub fn flush(&self) -> Result<()> {
        fab!(self, self.inner.flush())
    }

    /// Orders operations posted before against those posted after (`ucp_worker_fence`);
    /// completes nothing.
    pub fn fence(&self) -> Result<()> {
        fab!(self, self.inner.fence())
    }
}

impl Endpoint {
    /// Connects to the worker whose [`Worker::address`] is `remote_address` (`ucp_ep_create`).
    ///
    /// Error mode: `UCP_ERR_HANDLING_MODE_PEER`, so a dead or unreachable peer makes the
    /// operations on this endpoint fail with an error instead of hanging, and closing in force
    /// mode on drop is defined (UCX requires peer error handling on both sides for that; every
    /// endpoint made by this crate has it). The connection itself is made lazily by UCX: the
    /// first operation waits for the remote worker to progress.
    ///
    /// Cost of that choice, measured with UCX 1.13.1: peer error handling rules out the
    /// shared-memory transports (sysv, posix, cma), so two processes on ONE host talk over
    /// TCP (8-byte get 26 us instead of 1.7 us with `UCP_ERR_HANDLING_MODE_NONE`). This
    /// crate is for traffic between hosts; same-host peers should use shared memory directly.
    pub fn connect(worker: &Worker, remote_address: &[u8]) -> Result<Endpoint> {
        fab!(worker, imp::Ep::connect(&worker.inner, remote_address).map(|e| Endpoint { inner: Arc::new(e) }))
    }

    /// Completes every operation posted on this endpoint, remotely (`ucp_ep_flush_nbx`).
    pub fn flush(&self) -> Result<()> {
        fab!(self, self.inner.flush())
    }

    /// Writes `src` to `remote_addr` and returns when it is written at the target (put, then
    /// flush of this endpoint).
    pub fn put_blocking(&self, src: &[u8], remote_addr: u64, rkey: &RemoteKey) -> Result<()> {
        fab!(self, {
            self.put_nbi(src, remote_addr, rkey)?;
            self.inner.flush()
        })
    }

    /// Writes `src` to `remote_addr`; returns as soon as `src` may be reused (at once for
    /// small puts, else after progressing the worker until the data is sent). The write is
    /// complete at the target only after [`flush`](Self::flush) (or [`Worker::flush`]).
    pub fn put_nbi(&self, src: &[u8], remote_addr: u64, rkey: &RemoteKey) -> Result<()> {
        fab!(self, {
            self.inner.check_rkey(&rkey.inner);
            // SAFETY: `src` stays borrowed until the request is waited for, right here.
            let req = unsafe { self.inner.put(src.as_ptr(), src.len(), remote_addr, &rkey.inner) }?;
            req.wait()
        })
    }

    /// Reads `dst.len()` bytes at `remote_addr` into `dst` and returns when they are there.
    pub fn get(&self, dst: &mut [u8], remote_addr: u64, rkey: &RemoteKey) -> Result<()> {
        fab!(self, {
            self.inner.check_rkey(&rkey.inner);
            // SAFETY: `dst` stays borrowed until the request is waited for, right here.
            let req = unsafe { self.inner.get(dst.as_mut_ptr(), dst.len(), remote_addr, &rkey.inner) }?;
            req.wait()
        })
    }

    /// Posts a put and returns its request without waiting.
    ///
    /// # Safety
    /// `src..src+len` must stay valid and unmodified until the request completes (it is
    /// waited for, or dropped, which waits), and the request must not be leaked
    /// (`mem::forget`) while the buffer may be freed.
    pub unsafe fn put_nb(&self, src: *const u8, len: usize, remote_addr: u64, rkey: &RemoteKey) -> Result<Request<'_>> {
        fab!(self, {
            self.inner.check_rkey(&rkey.inner);
            // SAFETY: forwarded to the caller (see above).
            unsafe { self.inner.put(src, len, remote_addr, &rkey.inner) }.map(|inner| Request { inner })
        })
    }

    /// Posts a get and returns its request without waiting; `dst` holds the data once the
    /// request completed.
    ///
    /// # Safety
    /// `dst..dst+len` must stay valid and not be accessed until the request completes (it is
    /// waited for, or dropped, which waits), and the request must not be leaked.
    pub unsafe fn get_nb(&self, dst: *mut u8, len: usize, remote_addr: u64, rkey: &RemoteKey) -> Result<Request<'_>> {
        fab!(self, {
            self.inner.check_rkey(&rkey.inner);
            // SAFETY: forwarded to the caller (see above).
            unsafe { self.inner.get(dst, len, remote_addr, &rkey.inner) }.map(|inner| Request { inner })
        })
    }

    /// Applies `op` with `value` to the word at `remote_addr`, not fetching (`Swap` fetches
    /// and discards, UCX needs a reply buffer for it). Returns when `value` is sent; complete
    /// at the target after [`flush`](Self::flush).
    pub fn atomic_post<T: AtomicWord>(&self, op: AtomicOp, value: T, remote_addr: u64, rkey: &RemoteKey) -> Result<()> {
        fab!(self, {
            if op == AtomicOp::Swap {
                return self.atomic_fetch(op, value, remote_addr, rkey).map(drop);
            }
            self.inner.check_rkey(&rkey.inner);
            self.inner.atomic::<T>(imp::opcode(op), value, None, remote_addr, &rkey.inner)
        })
    }

    /// Applies `op` with `value` to the word at `remote_addr` and returns the word's value
    /// before (fetching atomic, waited).
    pub fn atomic_fetch<T: AtomicWord>(&self, op: AtomicOp, value: T, remote_addr: u64, rkey: &RemoteKey) -> Result<T> {
        fab!(self, {
            self.inner.check_rkey(&rkey.inner);
            let mut reply = T::default();
            self.inner.atomic::<T>(imp::opcode(op), value, Some(&mut reply), remote_addr, &rkey.inner)?;
            Ok(reply)
        })
    }

    /// If the word at `remote_addr` equals `compare`, stores `new`; returns the word's value
    /// before (`UCP_ATOMIC_OP_CSWAP`, waited).
    pub fn compare_swap<T: AtomicWord>(&self, compare: T, new: T, remote_addr: u64, rkey: &RemoteKey) -> Result<T> {
        fab!(self, {
            self.inner.check_rkey(&rkey.inner);
            // UCX: buffer = compare value, reply buffer = new value in, old value out.
            let mut reply = new;
            self.inner.atomic::<T>(sys::UCP_ATOMIC_OP_CSWAP, compare, Some(&mut reply), remote_addr, &rkey.inner)?;
            Ok(reply)
        })
    }
}

impl MemRegion {
    /// Registers `len` bytes at `addr` with the context (`ucp_mem_map`, address and length
    /// fields), so peers holding its [`pack_rkey`](Self::pack_rkey) can read and write them.
    ///
    /// # Safety
    /// The memory must stay allocated until the region is dropped, and since peers may read
    /// and write it at any time, local code must access it only in ways that tolerate that
    /// (raw pointers, volatile or atomic accesses; no `&`/`&mut` references held across).
    pub unsafe fn map(context: &Context, addr: *mut u8, len: usize) -> Result<MemRegion> {
        fab!(context, imp::Mem::map(&context.inner, addr, len).map(|inner| MemRegion { inner }))
    }

    /// The packed remote key peers unpack with [`RemoteKey::unpack`] (`ucp_rkey_pack`).
    pub fn pack_rkey(&self) -> Result<Vec<u8>> {
        fab!(self, self.inner.pack())
    }

    /// Start address of the region.
    pub fn addr(&self) -> *mut u8 {
        fab!(self, self.inner.addr)
    }

    /// Length of the region in bytes.
    pub fn len(&self) -> usize {
        fab!(self, self.inner.len)
    }

    /// Whether the region is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl RemoteKey {
    /// Unpacks a peer's packed key for use on `endpoint` (`ucp_ep_rkey_unpack`). The key is
    /// valid only with that endpoint: using it with another one panics.
    pub fn unpack(endpoint: &Endpoint, packed: &[u8]) -> Result<RemoteKey> {
        fab!(endpoint, imp::Rkey::unpack(&endpoint.inner, packed).map(|inner| RemoteKey { inner }))
    }
}

impl Request<'_> {
    /// Whether the operation is complete (`ucp_request_check_status`, one progress round
    /// first); an error if it failed.
    pub fn test(&mut self) -> Result<bool> {
        fab!(self, self.inner.test())
    }

    /// Progresses the worker until the operation completes, then frees the request.
    pub fn wait(self) -> Result<()> {
        fab!(self, self.inner.wait())
    }
}

#[cfg(fabric)]
mod imp {
    use super::*;
    use std::ffi::CStr;
    use std::sync::{Mutex, MutexGuard};

    fn status_string(st: sys::ucs_status_t) -> String {
        // SAFETY: ucs_status_string accepts any status and returns a static string.
        let p = unsafe { sys::ucs_status_string(st) };
        if p.is_null() {
            return format!("UCX status {st}");
        }
        // SAFETY: non-null, static, NUL-terminated.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn ucx_err(call: &'static str, st: sys::ucs_status_t) -> Error {
        Error::Ucx { call, status: status_string(st) }
    }

    fn check(call: &'static str, st: sys::ucs_status_t) -> Result<()> {
        if st == sys::UCS_OK {
            Ok(())
        } else {
            Err(ucx_err(call, st))
        }
    }

    pub(super) fn opcode(op: AtomicOp) -> sys::ucp_atomic_op_t {
        match op {
            AtomicOp::Add => sys::UCP_ATOMIC_OP_ADD,
            AtomicOp::Swap => sys::UCP_ATOMIC_OP_SWAP,
            AtomicOp::And => sys::UCP_ATOMIC_OP_AND,
            AtomicOp::Or => sys::UCP_ATOMIC_OP_OR,
            AtomicOp::Xor => sys::UCP_ATOMIC_OP_XOR,
        }
    }

    #[derive(Debug)]
    pub(super) struct Ctx {
        raw: sys::ucp_context_h,
    }

    // SAFETY: the context is created with mt_workers_shared = 1, which makes UCX protect the
    // context's own state (memory registration, rkey packing) with its lock; the remaining
    // context calls (cleanup) happen once, in drop, with no other reference left.
    unsafe impl Send for Ctx {}
    // SAFETY: as above.
    unsafe impl Sync for Ctx {}

    impl Ctx {
        pub(super) fn new(features: u64) -> Result<Ctx> {
            let mut config: *mut sys::ucp_config = std::ptr::null_mut();
            // SAFETY: NULL prefix and file: read the UCX_* environment; config is an
            // out-parameter, released below.
            check("ucp_config_read", unsafe { sys::ucp_config_read(std::ptr::null(), std::ptr::null(), &mut config) })?;
            let mut params = sys::ucp_params_t::zeroed();
            params.field_mask = sys::UCP_PARAM_FIELD_FEATURES | sys::UCP_PARAM_FIELD_MT_WORKERS_SHARED;
            params.features = features;
            params.mt_workers_shared = 1;
            let mut raw: sys::ucp_context_h = std::ptr::null_mut();
            // SAFETY: params and config are valid; this is what the inline ucp_init does.
            let st = unsafe { sys::ucp_init_version(sys::UCP_API_MAJOR, sys::UCP_API_MINOR, &params, config, &mut raw) };
            // SAFETY: config came from ucp_config_read and is no longer needed.
            unsafe { sys::ucp_config_release(config) };
            check("ucp_init", st)?;
            Ok(Ctx { raw })
        }
    }

    impl Drop for Ctx {
        fn drop(&mut self) {
            // SAFETY: last reference (workers and regions hold an Arc to us): nothing uses
            // the context any more.
            unsafe { sys::ucp_cleanup(self.raw) };
        }
    }

    #[derive(Debug)]
    pub(super) struct Wrk {
        raw: sys::ucp_worker_h,
        _ctx: Arc<Ctx>,
        pub(super) granted: ThreadMode,
        /// Serialises calls when UCX does not (thread mode below Multi).
        serial: Option<Mutex<()>>,
    }

    // SAFETY: every call on the worker (and on its endpoints, keys and requests) goes through
    // `enter`, which takes our mutex unless UCX granted UCS_THREAD_MODE_MULTI, in which case
    // UCX's own worker lock serialises them; ucp_worker_signal is documented safe from any
    // thread in any mode. So the worker may be used from, and moved to, any thread.
    unsafe impl Send for Wrk {}
    // SAFETY: as above.
    unsafe impl Sync for Wrk {}

    impl Wrk {
        pub(super) fn new(ctx: &Arc<Ctx>, mode: ThreadMode) -> Result<Wrk> {
            let mut params = sys::ucp_worker_params_t::zeroed();
            params.field_mask = sys::UCP_WORKER_PARAM_FIELD_THREAD_MODE;
            params.thread_mode = match mode {
                ThreadMode::Single | ThreadMode::Serialized => sys::UCS_THREAD_MODE_SERIALIZED,
                ThreadMode::Multi => sys::UCS_THREAD_MODE_MULTI,
            };
            let mut raw: sys::ucp_worker_h = std::ptr::null_mut();
            // SAFETY: valid context and params; raw is an out-parameter.
            check("ucp_worker_create", unsafe { sys::ucp_worker_create(ctx.raw, &params, &mut raw) })?;
            let mut attr = sys::ucp_worker_attr_t::zeroed();
            attr.field_mask = sys::UCP_WORKER_ATTR_FIELD_THREAD_MODE;
            // SAFETY: valid worker; attr asks for the thread mode only.
            let st = unsafe { sys::ucp_worker_query(raw, &mut attr) };
            if st != sys::UCS_OK {
                // SAFETY: the worker was just created and is not shared.
                unsafe { sys::ucp_worker_destroy(raw) };
                return Err(ucx_err("ucp_worker_query", st));
            }
            let granted = match attr.thread_mode {
                sys::UCS_THREAD_MODE_MULTI => ThreadMode::Multi,
                sys::UCS_THREAD_MODE_SINGLE => ThreadMode::Single,
                _ => ThreadMode::Serialized,
            };
            let serial = (granted != ThreadMode::Multi).then(|| Mutex::new(()));
            Ok(Wrk { raw, _ctx: ctx.clone(), granted, serial })
        }

        /// Serialisation for one UCX call (a no-op in Multi mode, where UCX locks).
        pub(super) fn enter(&self) -> Option<MutexGuard<'_, ()>> {
            self.serial.as_ref().map(|m| m.lock().unwrap_or_else(|e| e.into_inner()))
        }

        pub(super) fn address(&self) -> Result<Vec<u8>> {
            let _g = self.enter();
            let mut addr: *mut sys::ucp_address = std::ptr::null_mut();
            let mut len = 0usize;
            // SAFETY: valid worker; out-parameters.
            check("ucp_worker_get_address", unsafe { sys::ucp_worker_get_address(self.raw, &mut addr, &mut len) })?;
            // SAFETY: UCX returned `len` bytes at `addr`, valid until released just below.
            let v = unsafe { std::slice::from_raw_parts(addr as *const u8, len) }.to_vec();
            // SAFETY: addr came from ucp_worker_get_address on this worker.
            unsafe { sys::ucp_worker_release_address(self.raw, addr) };
            Ok(v)
        }

        pub(super) fn progress(&self) -> u32 {
            let _g = self.enter();
            // SAFETY: valid worker, serialised (see enter).
            unsafe { sys::ucp_worker_progress(self.raw) }
        }

        pub(super) fn event_fd(&self) -> Result<RawFd> {
            let _g = self.enter();
            let mut fd = -1;
            // SAFETY: valid worker; fd is an out-parameter.
            check("ucp_worker_get_efd", unsafe { sys::ucp_worker_get_efd(self.raw, &mut fd) })?;
            Ok(fd)
        }

        pub(super) fn arm(&self) -> Result<bool> {
            let _g = self.enter();
            // SAFETY: valid worker, serialised.
            match unsafe { sys::ucp_worker_arm(self.raw) } {
                sys::UCS_OK => Ok(true),
                sys::UCS_ERR_BUSY => Ok(false),
                st => Err(ucx_err("ucp_worker_arm", st)),
            }
        }

        pub(super) fn signal(&self) -> Result<()> {
            // SAFETY: valid worker; ucp_worker_signal is safe from any thread in any mode, so
            // it deliberately skips `enter` (it must wake a thread that may hold the mutex).
            check("ucp_worker_signal", unsafe { sys::ucp_worker_signal(self.raw) })
        }

        pub(super) fn fence(&self) -> Result<()> {
            let _g = self.enter();
            // SAFETY: valid worker, serialised.
            check("ucp_worker_fence", unsafe { sys::ucp_worker_fence(self.raw) })
        }

        pub(super) fn flush(&self) -> Result<()> {
            let param = sys::ucp_request_param_t::zeroed();
            let ptr = {
                let _g = self.enter();
                // SAFETY: valid worker and param.
                unsafe { sys::ucp_worker_flush_nbx(self.raw, &param) }
            };
            Req::from_ptr(self, "ucp_worker_flush_nbx", ptr)?.wait()
        }
    }

    impl Drop for Wrk {
        fn drop(&mut self) {
            // SAFETY: last reference (endpoints hold an Arc to us): no thread uses the worker.
            unsafe { sys::ucp_worker_destroy(self.raw) };
        }
    }

    /// A posted operation: NULL (done at once) or a live request pointer.
    pub(super) struct Req<'a> {
        worker: &'a Wrk,
        call: &'static str,
        ptr: *mut c_void,
    }

    impl std::fmt::Debug for Req<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Request").field("call", &self.call).field("ptr", &self.ptr).finish()
        }
    }

    impl<'a> Req<'a> {
        /// Interprets a `ucs_status_ptr_t` returned by a `*_nbx` call.
        pub(super) fn from_ptr(worker: &'a Wrk, call: &'static str, ptr: sys::ucs_status_ptr_t) -> Result<Req<'a>> {
            if sys::ucs_ptr_is_err(ptr) {
                return Err(ucx_err(call, sys::ucs_ptr_raw_status(ptr)));
            }
            Ok(Req { worker, call, ptr })
        }

        fn status(&self) -> sys::ucs_status_t {
            let _g = self.worker.enter();
            // SAFETY: ptr is a live request of this worker (not yet freed).
            unsafe { sys::ucp_request_check_status(self.ptr) }
        }

        /// Frees the completed request and turns its status into a result.
        fn finish(&mut self, st: sys::ucs_status_t) -> Result<()> {
            {
                let _g = self.worker.enter();
                // SAFETY: live request, freed once (ptr nulled below).
                unsafe { sys::ucp_request_free(self.ptr) };
            }
            self.ptr = std::ptr::null_mut();
            check(self.call, st)
        }

        pub(super) fn test(&mut self) -> Result<bool> {
            if self.ptr.is_null() {
                return Ok(true);
            }
            self.worker.progress();
            match self.status() {
                sys::UCS_INPROGRESS => Ok(false),
                st => self.finish(st).map(|()| true),
            }
        }

        pub(super) fn wait(mut self) -> Result<()> {
            self.wait_mut()
        }

        fn wait_mut(&mut self) -> Result<()> {
            if self.ptr.is_null() {
                return Ok(());
            }
            loop {
                match self.status() {
                    sys::UCS_INPROGRESS => {
                        if self.worker.progress() == 0 {
                            std::hint::spin_loop();
                        }
                    }
                    st => return self.finish(st),
                }
            }
        }
    }

    impl Drop for Req<'_> {
        fn drop(&mut self) {
            // Buffers of the operation may be released right after: complete it first.
            let _ = self.wait_mut();
        }
    }

    #[derive(Debug)]
    pub(super) struct Ep {
        raw: sys::ucp_ep_h,
        worker: Arc<Wrk>,
    }

    // SAFETY: every call on the endpoint goes through its worker's `enter` (see Wrk).
    unsafe impl Send for Ep {}
    // SAFETY: as above.
    unsafe impl Sync for Ep {}

    impl Ep {
        pub(super) fn connect(worker: &Arc<Wrk>, remote: &[u8]) -> Result<Ep> {
            let mut params = sys::ucp_ep_params_t::zeroed();
            params.field_mask = sys::UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | sys::UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
            params.address = remote.as_ptr().cast();
            params.err_mode = sys::UCP_ERR_HANDLING_MODE_PEER;
            let mut raw: sys::ucp_ep_h = std::ptr::null_mut();
            let _g = worker.enter();
            // SAFETY: valid worker and params; UCX copies what it needs of the address during
            // the call.
            check("ucp_ep_create", unsafe { sys::ucp_ep_create(worker.raw, &params, &mut raw) })?;
            Ok(Ep { raw, worker: worker.clone() })
        }

        pub(super) fn check_rkey(&self, rkey: &Rkey) {
            assert!(
                std::ptr::eq(Arc::as_ptr(&rkey.ep), self),
                "ferroshmem-fabric: a RemoteKey was used with an endpoint other than the one it was unpacked for"
            );
        }

        pub(super) fn flush(&self) -> Result<()> {
            let param = sys::ucp_request_param_t::zeroed();
            let ptr = {
                let _g = self.worker.enter();
                // SAFETY: valid endpoint and param.
                unsafe { sys::ucp_ep_flush_nbx(self.raw, &param) }
            };
            Req::from_ptr(&self.worker, "ucp_ep_flush_nbx", ptr)?.wait()
        }

        /// # Safety
        /// `src..src+len` valid and unmodified until the returned request completes.
        pub(super) unsafe fn put(&self, src: *const u8, len: usize, raddr: u64, rkey: &Rkey) -> Result<Req<'_>> {
            let param = sys::ucp_request_param_t::zeroed();
            let ptr = {
                let _g = self.worker.enter();
                // SAFETY: valid endpoint and rkey (of this endpoint); the buffer contract is
                // the caller's. Contiguous bytes by default (no datatype field).
                unsafe { sys::ucp_put_nbx(self.raw, src.cast(), len, raddr, rkey.raw, &param) }
            };
            Req::from_ptr(&self.worker, "ucp_put_nbx", ptr)
        }

        /// # Safety
        /// `dst..dst+len` valid and untouched until the returned request completes.
        pub(super) unsafe fn get(&self, dst: *mut u8, len: usize, raddr: u64, rkey: &Rkey) -> Result<Req<'_>> {
            let param = sys::ucp_request_param_t::zeroed();
            let ptr = {
                let _g = self.worker.enter();
                // SAFETY: as in put; the caller keeps dst valid.
                unsafe { sys::ucp_get_nbx(self.raw, dst.cast(), len, raddr, rkey.raw, &param) }
            };
            Req::from_ptr(&self.worker, "ucp_get_nbx", ptr)
        }

        /// Posts an atomic and waits for it (operand and reply live on this stack frame).
        pub(super) fn atomic<T: AtomicWord>(
            &self,
            op: sys::ucp_atomic_op_t,
            value: T,
            reply: Option<&mut T>,
            raddr: u64,
            rkey: &Rkey,
        ) -> Result<()> {
            let operand = value;
            let mut param = sys::ucp_request_param_t::zeroed();
            param.op_attr_mask = sys::UCP_OP_ATTR_FIELD_DATATYPE;
            param.datatype = sys::ucp_dt_make_contig(std::mem::size_of::<T>());
            if let Some(r) = reply {
                param.op_attr_mask |= sys::UCP_OP_ATTR_FIELD_REPLY_BUFFER;
                param.reply_buffer = (r as *mut T).cast();
            }
            let ptr = {
                let _g = self.worker.enter();
                // SAFETY: valid endpoint and rkey; operand and reply buffer outlive the
                // request, which is waited for before this function returns; T is a u32 or
                // u64 and the datatype says so.
                unsafe { sys::ucp_atomic_op_nbx(self.raw, op, (&operand as *const T).cast(), 1, raddr, rkey.raw, &param) }
            };
            Req::from_ptr(&self.worker, "ucp_atomic_op_nbx", ptr)?.wait()
        }
    }

    impl Drop for Ep {
        fn drop(&mut self) {
            let mut param = sys::ucp_request_param_t::zeroed();
            param.op_attr_mask = sys::UCP_OP_ATTR_FIELD_FLAGS;
            param.flags = sys::UCP_EP_CLOSE_FLAG_FORCE;
            let ptr = {
                let _g = self.worker.enter();
                // SAFETY: last reference to the endpoint (keys hold an Arc to us); force close
                // releases it without waiting for the peer (peer error mode on both sides).
                unsafe { sys::ucp_ep_close_nbx(self.raw, &param) }
            };
            if let Ok(req) = Req::from_ptr(&self.worker, "ucp_ep_close_nbx", ptr) {
                let _ = req.wait();
            }
        }
    }

    #[derive(Debug)]
    pub(super) struct Mem {
        raw: sys::ucp_mem_h,
        ctx: Arc<Ctx>,
        pub(super) addr: *mut u8,
        pub(super) len: usize,
    }

    // SAFETY: the memory handle belongs to a context created with mt_workers_shared = 1 (UCX
    // locks its registration state); the region's own fields are immutable.
    unsafe impl Send for Mem {}
    // SAFETY: as above.
    unsafe impl Sync for Mem {}

    impl Mem {
        pub(super) fn map(ctx: &Arc<Ctx>, addr: *mut u8, len: usize) -> Result<Mem> {
            let mut params = sys::ucp_mem_map_params_t::zeroed();
            params.field_mask = sys::UCP_MEM_MAP_PARAM_FIELD_ADDRESS | sys::UCP_MEM_MAP_PARAM_FIELD_LENGTH;
            params.address = addr.cast();
            params.length = len;
            let mut raw: sys::ucp_mem_h = std::ptr::null_mut();
            // SAFETY: valid context and params; the caller of MemRegion::map guarantees the
            // memory outlives the region.
            check("ucp_mem_map", unsafe { sys::ucp_mem_map(ctx.raw, &params, &mut raw) })?;
            Ok(Mem { raw, ctx: ctx.clone(), addr, len })
        }

        pub(super) fn pack(&self) -> Result<Vec<u8>> {
            let mut buf: *mut c_void = std::ptr::null_mut();
            let mut len = 0usize;
            // SAFETY: valid context and memory handle; out-parameters.
            check("ucp_rkey_pack", unsafe { sys::ucp_rkey_pack(self.ctx.raw, self.raw, &mut buf, &mut len) })?;
            // SAFETY: UCX returned `len` bytes at `buf`, valid until released just below.
            let v = unsafe { std::slice::from_raw_parts(buf as *const u8, len) }.to_vec();
            // SAFETY: buf came from ucp_rkey_pack.
            unsafe { sys::ucp_rkey_buffer_release(buf) };
            Ok(v)
        }
    }

    impl Drop for Mem {
        fn drop(&mut self) {
            // SAFETY: handle from ucp_mem_map on this context, unmapped once.
            let _ = unsafe { sys::ucp_mem_unmap(self.ctx.raw, self.raw) };
        }
    }

    #[derive(Debug)]
    pub(super) struct Rkey {
        raw: sys::ucp_rkey_h,
        ep: Arc<Ep>,
    }

    // SAFETY: the key is used only by operations on its endpoint, serialised by the worker
    // (see Wrk); it is destroyed once, in drop, under the same serialisation.
    unsafe impl Send for Rkey {}
    // SAFETY: as above.
    unsafe impl Sync for Rkey {}

    impl Rkey {
        pub(super) fn unpack(ep: &Arc<Ep>, packed: &[u8]) -> Result<Rkey> {
            let mut raw: sys::ucp_rkey_h = std::ptr::null_mut();
            let _g = ep.worker.enter();
            // SAFETY: valid endpoint; UCX parses the packed buffer during the call (copying
            // what it keeps).
            check("ucp_ep_rkey_unpack", unsafe { sys::ucp_ep_rkey_unpack(ep.raw, packed.as_ptr().cast(), &mut raw) })?;
            Ok(Rkey { raw, ep: ep.clone() })
        }
    }

    impl Drop for Rkey {
        fn drop(&mut self) {
            let _g = self.ep.worker.enter();
            // SAFETY: key from ucp_ep_rkey_unpack, destroyed once, before its endpoint (we
            // hold an Arc to it).
            unsafe { sys::ucp_rkey_destroy(self.raw) };
        }
    }
}
