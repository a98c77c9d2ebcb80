//! The network transport: UCX (`ucp`) between PEs on different hosts. PEs of one host never
//! use it: they share the host's job file and copy, as on one machine.
//!
//! At init every PE of a job that spans hosts creates a UCX context and one worker, registers
//! its three symmetric regions (its control block, its heap, its static data) and publishes
//! through PMIx its worker address, the regions' base addresses in its own process and their
//! packed remote keys. It connects to no one then: the first operation that needs a PE of
//! another host fetches what that PE published (`PMIx_Get`) and connects an endpoint to it
//! (`Net::peer`). A PE thus holds endpoints only to the PEs it talks to (its host's leader
//! talks to the other leaders, a member to nobody across hosts in the hierarchical
//! collectives), and init makes no connection at all: connecting to every PE of every other
//! host at init was a storm of n² TCP connections that failed from 40 hosts on (connection
//! refused, unreachable peers) and took 37 s at 32. A remote address is the peer's region base plus the offset of the
//! local object in the same region of this PE: all PEs run the same program with the same
//! layout, so offsets agree even where the bases differ.
//!
//! **Progress without the target's help.** Over TCP (and any transport without hardware RMA)
//! a put, get or atomic completes only when the target's worker runs. Each PE therefore runs
//! a progress thread that sleeps on the worker's event descriptor (`ucp_worker_arm`, then
//! `poll`), wakes only when something arrives, progresses the worker, and rings this PE's
//! doorbell so that waiters on this PE's memory (its own threads and the PEs of its host)
//! look again. Idle, it costs no CPU: PEs often outnumber cores. Callers that wait for their
//! own operations progress the worker themselves (every call takes the worker's mutex: see
//! `ferroshmem_wire::ucp`).
//!
//! Completion: `put` returns when the source may be reused (local completion), as OpenSHMEM
//! asks; `quiet` waits until every put and atomic has completed at its target
//! (`ucp_worker_flush`); `fence` orders (`ucp_worker_fence`). Syncs and barriers quiet first.
#![allow(unsafe_code)]

mod progress;
use progress::ProgressThread;

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use ferroshmem_wire::pmix::Pmix;
pub(crate) use ferroshmem_wire::ucp::FlagUpdate;
pub(crate) use ferroshmem_wire::ucp::Pending;
use ferroshmem_wire::ucp::{self, AtomicOp, Context, Endpoint, MemRegion, RemoteKey, Worker};
use ferroshmem_wire::Error as WireError;

use crate::error::{Error, Result};
use crate::topology::Topology;

/// What an atomic operation does. Values are raw bits of the operand type. Defined here, at
/// the bottom, because the transport carries it to other hosts; `atomic` applies it within
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmoOp<W> {
    /// Read the word.
    Fetch,
    /// Write the value.
    Set(W),
    /// Write the value, return the old one.
    Swap(W),
    /// Write `value` if the word equals `cond`; return the old word.
    CompareSwap {
        /// The value the word must hold.
        cond: W,
        /// The value written then.
        value: W,
    },
    /// Add.
    FetchAdd(W),
    /// Bitwise and.
    FetchAnd(W),
    /// Bitwise or.
    FetchOr(W),
    /// Bitwise exclusive or.
    FetchXor(W),
}

/// A word width the network runs atomics on (UCX has 32- and 64-bit atomics).
pub trait NetWord: Copy {
    const BYTES: usize;
    fn widen(self) -> u64;
    fn narrow(v: u64) -> Self;
}

impl NetWord for u32 {
    const BYTES: usize = 4;
    fn widen(self) -> u64 {
        u64::from(self)
    }
    fn narrow(v: u64) -> Self {
        v as u32
    }
}

impl NetWord for u64 {
    const BYTES: usize = 8;
    fn widen(self) -> u64 {
        self
    }
    fn narrow(v: u64) -> Self {
        v
    }
}

/// Who learns that a put has landed at its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// The program: the next quiet (and so every barrier and team sync) waits for it. Every
    /// put the program asks for, and the flat collectives' data, whose arrival a team sync
    /// after a quiet announces.
    Quiet,
    /// The protocol that issued it: a flag put after a fence to the same PE (or the put
    /// itself, if it is the flag) tells the receiver that it landed, and nobody else waits
    /// for it. A quiet skips it: over TCP a flush costs a round trip, and every team sync
    /// quiets first, so counting a sync's own flags made every following sync pay one.
    Announced,
}

/// The symmetric regions of a PE, as the network addresses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// The PE's control block in its host's job file (team slots, sync words).
    Ctrl = 0,
    /// The PE's symmetric heap.
    Heap = 1,
    /// The PE's copy of the program's static data.
    Statics = 2,
}

const REGIONS: usize = 3;

/// The most endpoints [`Net::connect_all`] lets wire up at once.
const CONNECT_AT_ONCE: usize = 8;

/// Who completes the operations that [`Net::finish_within`] waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finisher {
    /// The waiting thread, which progresses the worker between looks (pauses up to 1 ms).
    Progressing,
    /// The progress thread (or a wait of this PE): the waiting thread only looks (pauses up
    /// to 10 ms). For a thread of its own that looks now and then (the peer watch): a
    /// progress call from a third thread took events from under the progress thread, asleep
    /// on the worker's event descriptor, and 64 simulated hosts × 1 PE then hung in a
    /// collective now and then (2 of 8 runs of `tests/c/coll_team.c`; none since, see
    /// docs/ARCHITECTURE.md "Lost hosts").
    Served,
}

impl Finisher {
    fn longest_pause(self) -> std::time::Duration {
        match self {
            Finisher::Progressing => std::time::Duration::from_millis(1),
            Finisher::Served => std::time::Duration::from_millis(10),
        }
    }
}

/// PMIx key under which a PE publishes its worker address, region bases and remote keys.
const NET_KEY: &str = "ferroshmem.net";

/// What the network knows of a PE on another host. The keys are dropped before the
/// endpoint they were unpacked for (field order).
struct Peer {
    rkey: [Option<RemoteKey>; REGIONS],
    /// Base of each region in the peer's process (0: it has none).
    base: [u64; REGIONS],
    /// Each region's length (offsets are checked against it before any transfer).
    len: [u64; REGIONS],
    ep: Endpoint,
}

/// The launcher's PMIx client, shared with the runtime, which takes it at finalize.
pub(crate) type SharedPmix = Arc<Mutex<Option<Pmix>>>;

/// The UCX side of this PE.
pub struct Net {
    /// Indexed by world PE: set once the first operation with it connected (never for the PEs
    /// of this host).
    peers: Vec<OnceLock<Peer>>,
    /// Whether each PE runs on another host (the only ones the network reaches).
    remote: Vec<bool>,
    /// Serialises connecting (two threads that need the same peer at once connect once).
    connecting: Mutex<()>,
    /// Where the peers' published addresses and keys are fetched from.
    pmix: SharedPmix,
    /// Threads of this PE inside the library that progress the worker themselves; while
    /// there are any, the progress thread stands aside (see [`Busy`]).
    busy: Arc<AtomicU32>,
    /// Rings this PE's doorbell (data arrived).
    on_activity: Arc<dyn Fn() + Send + Sync>,
    progress: Option<ProgressThread>,
    /// Puts issued so far (counted after each is issued) and how many of them the last
    /// completed flush covered: a quiet with nothing new to complete returns at once (a flush
    /// of an idle worker still costs a pass through UCX, and every team sync quiets first).
    issued: AtomicU64,
    flushed: AtomicU64,
    _regions: Vec<MemRegion>,
    worker: Arc<Worker>,
    _context: Context,
}

impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let remote = self.remote.iter().filter(|&&r| r).count();
        let connected = self.peers.iter().filter(|p| p.get().is_some()).count();
        f.debug_struct("Net").field("remote_pes", &remote).field("connected", &connected).finish()
    }
}

/// A transfer that the transport failed: `what` the operation was, `e` the transport's error.
fn net_err(routine: &'static str, pe: usize, what: &str, e: WireError) -> Error {
    Error::network_transport(routine, pe, what, e)
}

/// A failed transport call while setting up.
fn boot_err(what: &str, e: WireError) -> Error {
    Error::bootstrap_transport(format!("network transport: {what}"), e)
}

/// Little helpers for the published blob: `u32` lengths and `u64` words, little endian.
struct Blob(Vec<u8>);
impl Blob {
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(&(b.len() as u32).to_le_bytes());
        self.0.extend_from_slice(b);
    }
    fn word(&mut self, w: u64) {
        self.0.extend_from_slice(&w.to_le_bytes());
    }
}
struct Reader<'a>(&'a [u8]);
impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        (self.0.len() >= n).then(|| {
            let (a, b) = self.0.split_at(n);
            self.0 = b;
            a
        })
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        self.take(n)
    }
    fn word(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

impl Net {
    /// Sets up the transport (collective over every PE of the job: it fences through PMIx).
    /// `regions` are this PE's (address, length) of control block, heap and static data
    /// (length 0: none). `on_activity` runs on the progress thread after the worker made
    /// progress: it rings this PE's doorbell.
    pub fn start(
        pmix: SharedPmix,
        topology: &Topology,
        my_pe: usize,
        regions: [(usize, usize); REGIONS],
        on_activity: Arc<dyn Fn() + Send + Sync>,
    ) -> Result<Net> {
        let context = Context::new().map_err(|e| boot_err("UCX context", e))?;
        let worker = Arc::new(Worker::new(&context).map_err(|e| boot_err("UCX worker", e))?);
        // SAFETY: the regions are this PE's control block, heap and static data, mapped and
        // writable for the life of the process (the worker ends before it), written by other
        // PEs by design.
        unsafe { worker.set_flagged_regions(&regions.map(|(addr, len)| (addr as u64, len as u64))) }
            .map_err(|e| boot_err("accepting flagged messages", e))?;
        let mut mapped = Vec::new();
        let mut blob = Blob(Vec::new());
        blob.bytes(&worker.address().map_err(|e| boot_err("worker address", e))?);
        for &(addr, len) in &regions {
            blob.word(addr as u64);
            blob.word(len as u64);
            if len == 0 {
                blob.bytes(&[]);
                continue;
            }
            // SAFETY: the regions are this PE's control block, heap and static data, mapped
            // for the life of the process and written by other PEs by design.
            let region = unsafe { MemRegion::map(&context, addr, len) }
                .map_err(|e| boot_err("registering memory", e))?;
            blob.bytes(&region.pack_rkey().map_err(|e| boot_err("packing a remote key", e))?);
            mapped.push(region);
        }
        {
            let guard = pmix.lock().unwrap_or_else(|e| e.into_inner());
            let client =
                guard.as_ref().ok_or_else(|| Error::bootstrap("network transport: no PMIx client"))?;
            client.put_bytes(NET_KEY, &blob.0).map_err(|e| boot_err("PMIx put", e))?;
            client.commit().map_err(|e| boot_err("PMIx commit", e))?;
            client.fence_collect().map_err(|e| boot_err("PMIx fence", e))?;
        }
        let peers = (0..topology.n_pes()).map(|_| OnceLock::new()).collect();
        let remote = (0..topology.n_pes()).map(|pe| !topology.is_local(pe)).collect();
        let busy = Arc::new(AtomicU32::new(0));
        let progress = ProgressThread::start(worker.clone(), on_activity.clone(), busy.clone(), my_pe)?;
        Ok(Net {
            peers,
            remote,
            connecting: Mutex::new(()),
            pmix,
            busy,
            on_activity,
            progress: Some(progress),
            issued: AtomicU64::new(0),
            flushed: AtomicU64::new(0),
            _regions: mapped,
            worker,
            _context: context,
        })
    }

    /// The peer `pe` with the remote address and key of `len` bytes at `offset` of `region`.
    /// The `ucp` transfers' contract holds for what it returns: the key was unpacked on the
    /// peer's endpoint, and the bytes lie inside the region the peer registered under it (its
    /// base and length, published next to the key in `start`, bound the range).
    fn target(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        len: usize,
    ) -> Result<(&Peer, u64, &RemoteKey)> {
        let peer = self.peer(routine, pe)?;
        let k = region as usize;
        let end = offset.checked_add(len).ok_or_else(|| Error::network(routine, pe, "offset overflows"))?;
        match &peer.rkey[k] {
            Some(rkey) if end as u64 <= peer.len[k] => Ok((peer, peer.base[k] + offset as u64, rkey)),
            Some(_) => Err(Error::network(
                routine,
                pe,
                format!(
                    "{len} bytes at offset {offset} exceed its {:?} region of {} bytes",
                    region, peer.len[k]
                ),
            )),
            None => {
                Err(Error::network(routine, pe, format!("it has no {region:?} region (no static data?)")))
            }
        }
    }

    /// The endpoint and keys of `pe`, a PE of another host: connected by the first operation
    /// that needs it (from what it published at init, fetched from PMIx now). Connecting is
    /// one-sided in UCX (the peer's worker answers the wire-up on its progress thread), so two
    /// PEs that connect to each other at once, or many to one, each make their own endpoint.
    fn peer(&self, routine: &'static str, pe: usize) -> Result<&Peer> {
        let slot = match (self.peers.get(pe), self.remote.get(pe)) {
            (Some(slot), Some(true)) => slot,
            _ => {
                return Err(Error::network(routine, pe, "not a PE of another host (internal routing error)"))
            }
        };
        if let Some(peer) = slot.get() {
            return Ok(peer);
        }
        let _one_at_a_time = self.connecting.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(peer) = slot.get() {
            return Ok(peer);
        }
        let peer = self.connect(pe).map_err(|e| match e {
            Error::Bootstrap { reason, cause } => Error::Network { routine, pe, reason, cause },
            e => e,
        })?;
        Ok(slot.get_or_init(|| peer))
    }

    /// The PEs of other hosts this PE has an endpoint to (the peer watch probes them).
    pub fn connected_pes(&self) -> Vec<usize> {
        self.peers.iter().enumerate().filter(|(_, slot)| slot.get().is_some()).map(|(pe, _)| pe).collect()
    }

    /// The first PE whose endpoint failed (its process ended, or UCX's keepalive found it
    /// silent), with UCX's status text: endpoints have UCX's peer error handling, so the
    /// failure is reported here instead of ending this process.
    pub fn failed_peer(&self) -> Option<(usize, String)> {
        ucp::peer_failure().map(|f| (f.peer as usize, f.status))
    }

    /// Sleeps until an endpoint fails (see [`Self::failed_peer`]; at once if one has) or
    /// `timeout` passes.
    pub fn wait_for_failed_peer(&self, timeout: std::time::Duration) {
        ucp::wait_for_peer_failure(timeout)
    }

    /// Connects to every PE of `pes` on another host that has no endpoint yet, all before
    /// any transfer: for the flat collectives, whose every member puts to every other. UCX
    /// creates endpoints without waiting for the peer, so their wire-ups overlap; connected
    /// one by one by each first put, each waited for its own wire-up (64 simulated hosts × 1
    /// PE: the first flat reduction took 5.7 s, against 0.4 s with every endpoint made at
    /// init).
    ///
    /// Beyond [`CONNECT_AT_ONCE`] new endpoints, they are made in batches of that many, each
    /// batch's wire-ups finished (a read of 8 bytes from each new peer answered) before the
    /// next begins: every PE of a job over many hosts connecting to every other at once made
    /// thousands of wire-ups overlap, and on 48 simulated hosts (64 PEs, 2 CPUs) the first
    /// all-pairs alltoall took 3.5-65 s with PEs silent for over 30 s (docs/ARCHITECTURE.md,
    /// "PEs silent for seconds on 48 simulated hosts").
    pub fn connect_all(&self, routine: &'static str, pes: impl Iterator<Item = usize>) -> Result<()> {
        let new: Vec<usize> = pes
            .filter(|&pe| self.remote.get(pe) == Some(&true))
            .filter(|&pe| self.peers.get(pe).is_some_and(|slot| slot.get().is_none()))
            .collect();
        if new.len() <= CONNECT_AT_ONCE {
            for &pe in &new {
                self.peer(routine, pe)?;
            }
            return Ok(());
        }
        for batch in new.chunks(CONNECT_AT_ONCE) {
            let mut reads = Vec::with_capacity(batch.len());
            for &pe in batch {
                reads.push(self.get_start(routine, pe, Region::Ctrl, 0, 8)?);
            }
            self.finish_all(routine, batch, &mut reads)?;
        }
        Ok(())
    }

    /// Fetches what `pe` published at init and connects an endpoint to it.
    fn connect(&self, pe: usize) -> Result<Peer> {
        let data = {
            let guard = self.pmix.lock().unwrap_or_else(|e| e.into_inner());
            let client = guard.as_ref().ok_or_else(|| {
                Error::bootstrap(format!("connecting to PE {pe}: the PMIx client is finalized"))
            })?;
            client.get_bytes(pe as u32, NET_KEY).map_err(|e| boot_err(&format!("PMIx get of PE {pe}"), e))?
        };
        let bad = || Error::bootstrap(format!("network transport: PE {pe} published a malformed address"));
        let mut r = Reader(&data);
        let address = r.bytes().ok_or_else(bad)?;
        // SAFETY: the bytes PE `pe` published under NET_KEY, length-prefixed by `Blob`: the
        // whole of its `Worker::address()`, taken by the same library (same UCX build on every
        // host of a job) in `Net::start` on that PE.
        let ep = unsafe { Endpoint::connect(&self.worker, address, pe as u64) }
            .map_err(|e| boot_err(&format!("connecting to PE {pe}"), e))?;
        let mut base = [0u64; REGIONS];
        let mut len = [0u64; REGIONS];
        let mut rkey: [Option<RemoteKey>; REGIONS] = [None, None, None];
        for k in 0..REGIONS {
            base[k] = r.word().ok_or_else(bad)?;
            len[k] = r.word().ok_or_else(bad)?;
            let packed = r.bytes().ok_or_else(bad)?;
            if !packed.is_empty() {
                // SAFETY: as the address above: the whole `MemRegion::pack_rkey()` of PE `pe`'s
                // region `k`, and `ep` is connected to that PE.
                let key = unsafe { RemoteKey::unpack(&ep, packed) }
                    .map_err(|e| boot_err(&format!("remote key of PE {pe}"), e))?;
                rkey[k] = Some(key);
            }
        }
        Ok(Peer { ep, base, len, rkey })
    }

    /// Marks this thread as progressing the worker itself until the guard drops: a wait, a
    /// quiet, a blocking get or a fetching atomic. Without it the progress thread, woken by
    /// the reply, took the core from the thread that waited for it: between 2 simulated hosts
    /// × 1 PE with their CPUs split, a get of 8 B took 38 µs and a fetch-add 36 µs, 11 µs
    /// each with it (`bench/c/net_bench.c`; `ucx_perftest`'s fetch-add 13 µs). The hand-back
    /// timer is set with slack (see `progress::HandBack`), so operations back to back cost it
    /// one system call per 200 µs. Puts, which return without a reply, do not.
    pub fn busy(&self) -> Busy<'_> {
        self.busy.fetch_add(1, Ordering::SeqCst);
        Busy(self)
    }

    /// Whether a thread of this PE progresses the worker itself now (the progress thread
    /// stands aside): a wait that does not progress must then not sleep for long.
    pub fn progressed_by_a_caller(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > 0
    }

    /// Copies `src` to `offset` of `region` on `pe`; returns when `src` may be reused.
    /// `completion` says whether the next quiet waits for it.
    pub fn put(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        src: &[u8],
        completion: Completion,
    ) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        let (peer, raddr, rkey) = self.target(routine, pe, region, offset, src.len())?;
        // SAFETY: `target` checked the range against the peer's region of this key.
        let put = unsafe { peer.ep.put(src, raddr, rkey) }.map_err(|e| net_err(routine, pe, "put", e));
        if completion == Completion::Quiet {
            self.issued.fetch_add(1, Ordering::Release);
        }
        put
    }

    /// Sends a flagged message to `pe`: `src` lands at `offset` of its region `region`, then
    /// the word at `flag_offset` of its control block is updated by `flag` (raised to at
    /// least a value, or increased by one), so a reader that sees the flag sees the data; one
    /// message where a put, a fence and a put are two sends (each a system call over TCP:
    /// about 6 us of the sender's time here). The word only grows, whatever order messages
    /// arrive in; a word written this way must not also be written by puts. Announced by its
    /// flag: a quiet does not wait for it.
    #[allow(clippy::too_many_arguments)]
    pub fn put_flagged(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        src: &[u8],
        flag_offset: usize,
        flag: FlagUpdate,
    ) -> Result<()> {
        let (peer, _, _) = self.target(routine, pe, Region::Ctrl, flag_offset, 8)?;
        if !src.is_empty() {
            self.target(routine, pe, region, offset, src.len())?;
        }
        peer.ep
            .put_flagged(region as u64, offset as u64, src, flag_offset as u64, flag)
            .map_err(|e| net_err(routine, pe, "flagged put", e))
    }

    /// Writes one 64-bit word (a flag: one aligned 8-byte write), announced by itself: its
    /// receiver waits for it, so no quiet needs to.
    pub fn put_word(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        value: u64,
    ) -> Result<()> {
        self.put(routine, pe, region, offset, &value.to_ne_bytes(), Completion::Announced)
    }

    /// Copies `dst.len()` bytes from `offset` of `region` on `pe`; returns when they arrived.
    pub fn get(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        dst: &mut [u8],
    ) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        let (peer, raddr, rkey) = self.target(routine, pe, region, offset, dst.len())?;
        let _busy = self.busy();
        // SAFETY: `target` checked the range against the peer's region of this key.
        unsafe { peer.ep.get(dst, raddr, rkey) }.map_err(|e| net_err(routine, pe, "get", e))
    }

    /// Starts reading `len` bytes at `offset` of `region` on `pe` without waiting for them:
    /// for reads that must not wait for ever on a host that does not answer (hang reports).
    /// See [`Self::finish_within`].
    pub fn get_start(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        len: usize,
    ) -> Result<Pending> {
        let (peer, raddr, rkey) = self.target(routine, pe, region, offset, len)?;
        // SAFETY: `target` checked the range against the peer's region of this key.
        unsafe { peer.ep.get_start(len, raddr, rkey) }.map_err(|e| net_err(routine, pe, "get", e))
    }

    /// Starts swapping `value` into the 64-bit word at `offset` of `region` on `pe` without
    /// waiting; the old value is the operation's reply. See [`Self::finish_within`].
    pub fn swap_start(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        value: u64,
    ) -> Result<Pending> {
        let (peer, raddr, rkey) = self.target(routine, pe, region, offset, 8)?;
        // SAFETY: `target` checked the 8 bytes against the peer's region of this key.
        unsafe { peer.ep.swap64_start(value, raddr, rkey) }.map_err(|e| net_err(routine, pe, "swap", e))
    }

    /// Progresses the worker until every one of `ops` has finished, yielding between looks
    /// (reads that several gets in flight at once make one round trip instead of one each).
    /// The first failure, if any.
    pub fn finish_all(&self, routine: &'static str, pe_of: &[usize], ops: &mut [Pending]) -> Result<()> {
        let _busy = self.busy();
        loop {
            let delivered = self.progress();
            let mut all = true;
            for (op, &pe) in ops.iter_mut().zip(pe_of) {
                match op.test() {
                    None => all = false,
                    Some(Err(e)) => return Err(net_err(routine, pe, "get", e.clone())),
                    Some(Ok(())) => {}
                }
            }
            if all {
                return Ok(());
            }
            if !delivered {
                std::thread::yield_now();
            }
        }
    }

    /// Waits until every one of `ops` has finished or `limit` has passed; whether they all
    /// finished. Between looks it sleeps, up to `by.longest_pause()`: the caller is in no
    /// hurry (a report, a probe), and PEs may outnumber cores. An operation still in flight
    /// when its `Pending` is dropped completes without anyone waiting.
    pub fn finish_within(&self, ops: &mut [Pending], limit: std::time::Duration, by: Finisher) -> bool {
        let start = std::time::Instant::now();
        let mut pause = std::time::Duration::from_micros(10);
        loop {
            if by == Finisher::Progressing {
                self.progress();
            }
            if ops.iter_mut().all(|op| op.test().is_some()) {
                return true;
            }
            let waited = start.elapsed();
            if waited >= limit {
                return false;
            }
            std::thread::sleep(pause.min(limit - waited));
            pause = (pause * 2).min(by.longest_pause());
        }
    }

    /// Runs `op` on the word at `offset` of `region` on `pe`; returns the old value (for
    /// `Set`, the value written).
    pub fn amo<W: NetWord>(
        &self,
        routine: &'static str,
        pe: usize,
        region: Region,
        offset: usize,
        op: AmoOp<W>,
    ) -> Result<W> {
        let (peer, raddr, rkey) = self.target(routine, pe, region, offset, W::BYTES)?;
        let _busy = self.busy();
        let run = |op: AtomicOp, value: W, cond: Option<W>| {
            let old = if W::BYTES == 8 {
                // SAFETY: `target` checked the 8 bytes at `raddr` against the peer's region of
                // this key.
                unsafe { peer.ep.atomic64(op, value.widen(), cond.map(W::widen), raddr, rkey, true) }
            } else {
                let narrow = |w: W| w.widen() as u32;
                // SAFETY: `target` checked the 4 bytes at `raddr` against the peer's region of
                // this key.
                unsafe { peer.ep.atomic32(op, narrow(value), cond.map(narrow), raddr, rkey, true) }
                    .map(u64::from)
            };
            old.map(W::narrow).map_err(|e| net_err(routine, pe, "atomic", e))
        };
        match op {
            AmoOp::Fetch => run(AtomicOp::Add, W::narrow(0), None),
            AmoOp::Set(v) => run(AtomicOp::Swap, v, None).map(|_| v),
            AmoOp::Swap(v) => run(AtomicOp::Swap, v, None),
            AmoOp::FetchAdd(v) => run(AtomicOp::Add, v, None),
            AmoOp::FetchAnd(v) => run(AtomicOp::And, v, None),
            AmoOp::FetchOr(v) => run(AtomicOp::Or, v, None),
            AmoOp::FetchXor(v) => run(AtomicOp::Xor, v, None),
            AmoOp::CompareSwap { cond, value } => run(AtomicOp::CompareSwap, value, Some(cond)),
        }
    }

    /// Orders this PE's earlier puts and atomics before its later ones, per target.
    pub fn fence(&self) -> Result<()> {
        // A fence that cannot be placed falls back on the stronger quiet.
        if self.worker.fence().is_err() {
            return self.quiet();
        }
        Ok(())
    }

    /// Waits until every put and atomic of this PE has completed at its target. An error (a
    /// peer gone) cannot be returned to the program: the runtime ends the job with it.
    pub fn quiet(&self) -> Result<()> {
        // Atomics here always fetch, so they are complete when they return; only puts remain.
        let issued = self.issued.load(Ordering::Acquire);
        if self.flushed.load(Ordering::Acquire) >= issued {
            return Ok(());
        }
        let _busy = self.busy();
        self.worker.flush().map_err(|e| net_err("shmem_quiet", usize::MAX, "flush", e))?;
        self.flushed.fetch_max(issued, Ordering::AcqRel);
        Ok(())
    }

    /// Runs the worker once unless another thread is at it (a waiter calls this between
    /// checks of its condition), and rings this PE's doorbell if that delivered something.
    /// Returns whether it did.
    #[inline]
    pub fn progress(&self) -> bool {
        let delivered = self.worker.try_progress() > 0;
        if delivered {
            (self.on_activity)();
        }
        delivered
    }
}

/// A thread of this PE that progresses the worker itself (see [`Net::busy`]). The progress
/// thread stands aside meanwhile: two threads taking turns at the worker's lock on a machine
/// with more threads than cores stalled for whole time slices (a barrier between two hosts
/// took 2-8 ms that way). When the last such thread leaves, the progress thread takes the
/// worker back `HAND_BACK_AFTER` later unless a thread of this PE progresses again by then
/// (each leave moves the moment on), and at once when the leaving thread goes to sleep
/// ([`Busy::hand_over`]).
#[derive(Debug)]
pub struct Busy<'a>(&'a Net);

/// How long after the last thread of a PE stopped progressing the worker its progress thread
/// takes it back. Waking the progress thread at every such moment was the largest single cost
/// of a collective across hosts on this 2-core machine (the woken thread takes a core from a
/// PE running the next collective); leaving it parked for 2 ms delayed remote operations on a
/// PE that went on to compute (see docs/ARCHITECTURE.md, "Who progresses the worker"). Every
/// leave moves a deadline on (an atomic store); the timer that wakes the progress thread is
/// set with slack (see [`progress::HandBack`]).
const HAND_BACK_AFTER: std::time::Duration = std::time::Duration::from_micros(200);

/// Nanoseconds of `CLOCK_MONOTONIC`, the timer's clock (`activity::now_ms` reads the same
/// clock in milliseconds).
fn monotonic_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Busy<'_> {
    /// Ends this thread's progressing because it is about to sleep: the progress thread takes
    /// the worker back at once.
    pub fn hand_over(self) {
        self.leave(None);
        std::mem::forget(self);
    }

    /// Counts this thread out; the last one out has the progress thread take the worker
    /// back `after` from now (`None`: at once).
    fn leave(&self, after: Option<std::time::Duration>) {
        if self.0.busy.fetch_sub(1, Ordering::SeqCst) == 1 {
            if let Some(p) = &self.0.progress {
                match after {
                    Some(after) => p.hand_back.after(after),
                    None => p.hand_back.at_once(),
                }
            }
        }
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.leave(Some(HAND_BACK_AFTER));
    }
}

impl Net {
    /// Ends the progress thread (at finalize, after the last barrier): from then on nothing
    /// of this PE runs UCX, so the connections that close as the PEs exit are not handled as
    /// failures.
    pub fn stop_progress(&self) {
        if let Some(p) = &self.progress {
            p.stop();
        }
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        // The progress thread stops before endpoints, keys and the worker go.
        self.progress.take();
    }
}
