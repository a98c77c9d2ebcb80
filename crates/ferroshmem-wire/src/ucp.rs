//! UCX `ucp`: a context, one thread-safe worker, endpoints to other processes, registered
//! memory with packed remote keys, and blocking one-sided operations (each drives the worker
//! until its own operation is done).
//!
//! Thread safety: every call on the worker, its endpoints and keys takes the worker's mutex
//! in the shim (the worker itself is created `UCS_THREAD_MODE_SERIALIZED`), so they may come
//! from any thread, concurrently with the progress thread that sleeps on the worker's event
//! descriptor. UCX's own thread-safe mode guards the worker with a spinlock, and with more
//! threads than cores a preempted holder made the others spin for whole time slices.
//!
//! Soundness: UCX trusts the bytes and addresses it is given (a short worker address is read
//! past its end, a garbage remote key crashes in `ucp_ep_rkey_unpack`, and over shared memory
//! a remote address out of its region becomes a local one; issue 27). So the calls that take
//! them are `unsafe fn`, with the contract in their `# Safety` section; what can be checked
//! cheaply (empty input, a key used on another endpoint) returns an error first.
//!
//! ```compile_fail,E0133
//! fn connect(worker: &ferroshmem_wire::ucp::Worker, address: &[u8]) {
//!     let _ = ferroshmem_wire::ucp::Endpoint::connect(worker, address, 1); // unsafe: UCX trusts the bytes
//! }
//! ```
//! ```compile_fail,E0133
//! fn unpack(ep: &ferroshmem_wire::ucp::Endpoint, packed: &[u8]) {
//!     let _ = ferroshmem_wire::ucp::RemoteKey::unpack(ep, packed); // unsafe: UCX trusts the bytes
//! }
//! ```
//! ```compile_fail,E0133
//! use ferroshmem_wire::ucp::{Endpoint, RemoteKey};
//! fn put(ep: &Endpoint, rkey: &RemoteKey) {
//!     let _ = ep.put(&[1, 2, 3], 0xdead_0000, rkey); // unsafe: the address is not checked
//! }
//! ```
//! ```compile_fail,E0133
//! use ferroshmem_wire::ucp::{Endpoint, RemoteKey};
//! fn get(ep: &Endpoint, rkey: &RemoteKey) {
//!     let _ = ep.get(&mut [0; 8], 0xdead_0000, rkey); // unsafe: the address is not checked
//! }
//! ```
//! ```compile_fail,E0133
//! use ferroshmem_wire::ucp::{AtomicOp, Endpoint, RemoteKey};
//! fn add(ep: &Endpoint, rkey: &RemoteKey) {
//!     let _ = ep.atomic64(AtomicOp::Add, 1, None, 0xdead_0000, rkey, false); // unsafe, as put
//! }
//! ```
//! The same calls compile inside `unsafe` (the contract is then the caller's):
//! ```no_run
//! use ferroshmem_wire::ucp::{Endpoint, RemoteKey, Worker};
//! fn connect(worker: &Worker, address: &[u8], packed: &[u8]) -> ferroshmem_wire::Result<()> {
//!     // SAFETY: an example that is never run.
//!     let ep = unsafe { Endpoint::connect(worker, address, 1) }?;
//!     // SAFETY: as above.
//!     let rkey = unsafe { RemoteKey::unpack(&ep, packed) }?;
//!     // SAFETY: as above.
//!     unsafe { ep.put(&[1], 0x1000, &rkey) }
//! }
//! ```
#![cfg_attr(wire, allow(unsafe_code))]

use std::os::fd::RawFd;
/// How a flagged message ([`Endpoint::put_flagged`]) updates its flag word, with release
/// order after its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagUpdate {
    /// Raised to at least this value: the word only grows, whatever order messages arrive in.
    AtLeast(u64),
    /// Increased by this value (a counted message): a receiver expecting k of them waits for
    /// k more than it saw before they could be sent.
    Add(u64),
}

impl FlagUpdate {
    /// Value and update code for the shim (`FSH_FLAG_AT_LEAST`, `FSH_FLAG_ADD`).
    #[cfg_attr(not(wire), allow(dead_code))]
    fn parts(self) -> (u64, u64) {
        match self {
            FlagUpdate::AtLeast(v) => (v, 0),
            FlagUpdate::Add(v) => (v, 1),
        }
    }
}

#[cfg(wire)]
use std::sync::Arc;

#[cfg(not(wire))]
use crate::Error;
use crate::Result;

/// The atomic operations of `ucp_atomic_op_nbx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Swap,
    CompareSwap,
    And,
    Or,
    Xor,
}

impl AtomicOp {
    /// Index of the operation for the shim (`fsh_ucp_atomic_op_code`).
    #[cfg_attr(not(wire), allow(dead_code))]
    fn index(self) -> i32 {
        match self {
            AtomicOp::Add => 0,
            AtomicOp::Swap => 1,
            AtomicOp::CompareSwap => 2,
            AtomicOp::And => 3,
            AtomicOp::Or => 4,
            AtomicOp::Xor => 5,
        }
    }
}

#[cfg(wire)]
#[path = "ucp/shim.rs"]
mod imp;

#[cfg(not(wire))]
#[allow(unsafe_code)]
#[path = "ucp/stub.rs"]
mod imp;

pub use imp::{
    peer_failure, wait_for_peer_failure, Context, Endpoint, MemRegion, Pending, RemoteKey, Worker,
};

/// An endpoint whose peer failed: its process ended (the connection closed) or UCX's
/// keepalive found it silent. Endpoints are created with UCX's peer error handling, so such a
/// failure is reported here (and operations on the endpoint fail) rather than ending this
/// process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerFailure {
    /// The endpoint's peer, as given to [`Endpoint::connect`].
    pub peer: u64,
    /// UCX's status text.
    pub status: String,
}

/// The cheap check of the bytes UCX trusts: refuses empty ones, with an error naming `call`.
#[cfg_attr(not(wire), allow(dead_code))]
fn refuse_empty(call: &'static str, what: &str, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Err(crate::Error::BadValue { what: call.into(), reason: format!("an empty {what}") });
    }
    Ok(())
}

#[cfg(all(test, wire))]
mod tests {
    use super::*;

    /// A context and worker, or `None` (with a note) where UCX cannot be loaded here.
    fn worker() -> Option<Worker> {
        match Context::new().and_then(|c| Worker::new(&c)) {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("skipped: UCX unavailable here ({e})");
                None
            }
        }
    }

    /// Issue 27 (6): an empty address or key went straight to UCX (a segfault for the key).
    #[test]
    fn empty_address_and_key_are_refused() {
        let Some(w) = worker() else { return };
        // SAFETY: the empty address is refused before UCX sees it (what this test checks).
        let err = unsafe { Endpoint::connect(&w, &[], 0) }.unwrap_err();
        assert_eq!(err.to_string(), "Endpoint::connect: an empty worker address");
        let own = w.address().unwrap();
        // SAFETY: the worker's own whole address, from `Worker::address` of this process.
        let ep = unsafe { Endpoint::connect(&w, &own, 0) }.unwrap();
        // SAFETY: the empty key is refused before UCX sees it.
        let err = unsafe { RemoteKey::unpack(&ep, &[]) }.unwrap_err();
        assert_eq!(err.to_string(), "RemoteKey::unpack: an empty packed remote key");
    }

    /// A key is refused on an endpoint other than the one it was unpacked on, before UCX
    /// resolves it; on its own endpoint it reaches the registered memory.
    #[test]
    fn key_of_another_endpoint_is_refused() {
        let Some(w) = worker() else { return };
        let context = Context::new().unwrap();
        let w2 = Worker::new(&context).unwrap();
        let mut target = vec![0u8; 64];
        // SAFETY: `target` stays alive and unused by Rust until after `region` is dropped
        // (below), and only the puts of this test write it.
        let region = unsafe { MemRegion::map(&context, target.as_mut_ptr() as usize, target.len()) }.unwrap();
        let packed = region.pack_rkey().unwrap();
        let addr = w2.address().unwrap();
        // SAFETY: whole address and key from `Worker::address` and `MemRegion::pack_rkey` of
        // this process.
        let (a, b) =
            unsafe { (Endpoint::connect(&w, &addr, 0).unwrap(), Endpoint::connect(&w, &addr, 0).unwrap()) };
        // SAFETY: as above.
        let rkey = unsafe { RemoteKey::unpack(&a, &packed) }.unwrap();
        let raddr = target.as_ptr() as u64;
        // SAFETY: the key is refused before any transfer.
        let err = unsafe { b.put(&[7; 8], raddr, &rkey) }.unwrap_err();
        assert_eq!(err.to_string(), "Endpoint::put: the remote key was unpacked on another endpoint");
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    w2.progress();
                }
            });
            // SAFETY: 8 bytes inside the registered `target`, with the key unpacked on `a`.
            let put = unsafe { a.put(&[7; 8], raddr, &rkey) };
            let flushed = w.flush();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            put.unwrap();
            flushed.unwrap();
        });
        drop((rkey, a, b, region));
        assert_eq!(target[..8], [7; 8]);
    }
}
