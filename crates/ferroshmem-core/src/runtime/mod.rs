//! The per-process runtime: who we are, where every PE's memory is mapped, the waits and syncs.
//!
//! One room per job: this module holds the [`Runtime`] itself, its own start (bootstrap,
//! mapping the job file, the network) and the published pointer; `translate` where a PE's
//! symmetric memory is (mapped here or through the network); `slot_words` the words and
//! staging areas of team slots, as the syncs and collectives write and read them on any PE;
//! `sync` the waits and the team syncs (dissemination, central counter, across hosts);
//! `alloc` this PE's symmetric heap; `calls` the publication of this PE's library calls (what
//! hang reports read); `exit` finalize's end, global exit, the fatal path and the one stderr
//! reporter; `peer_watch` the watch of the other hosts.
//!
//! The runtime names none of the layers above it (issue 30): the teams live in the team layer
//! (`Runtime::teams`, with the world barrier, finalize's barrier and the collective
//! allocations, `team::world` and `team::alloc`), and the start of a PE (`start::init`,
//! `start::start_or_join`) runs this module's start, makes the teams and starts the hang
//! reports (`activity`) before it publishes the runtime.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Mutex;

use crate::bootstrap;
use crate::ctrl::CtrlTable;
use crate::error::{Error, Result};
use crate::heap::SymHeap;
use crate::job::{self, JobFile, Layout, Mapping};
use crate::net::Net;
use crate::static_data::{self, SharedStatics};
use crate::topology::Topology;
use crate::wait::{self, SleepObserver, WaitPolicy};

mod alloc;
mod calls;
mod exit;
mod peer_watch;
mod slot_words;
mod sync;
mod translate;

pub(crate) use alloc::NO_DROP;
pub use calls::CallGuard;
pub(crate) use exit::FAILED_EXIT_FENCE;
pub use exit::{fatal, report_line, ERROR_EXIT_STATUS};
pub use peer_watch::LOST_PEER_REPORT;
pub use slot_words::{counted_messages, Delivery, FlagWord, COUNTED_CHUNK};
pub use sync::{add_to_tagged_count, tagged_count, CENTRAL_COUNT_BITS};
pub use translate::Target;

/// Thread support levels, as in the specification (values match `SHMEM_THREAD_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum ThreadLevel {
    Single = 0,
    Funneled = 1,
    Serialized = 2,
    Multiple = 3,
}

/// How to start the runtime.
#[derive(Debug, Clone, Copy)]
pub struct InitOptions {
    /// Move the main executable's writable data into shared memory (what C programs need).
    pub share_statics: bool,
    /// Requested thread level; ferroshmem always provides `Multiple`.
    pub thread_level: ThreadLevel,
}

impl Default for InitOptions {
    fn default() -> Self {
        InitOptions { share_statics: false, thread_level: ThreadLevel::Multiple }
    }
}

pub(crate) use crate::job::slot_layout::{CENTRAL_ARRIVALS, CENTRAL_RELEASE};

/// Everything a PE knows about the job. Lives for the rest of the process once initialised.
#[derive(Debug)]
pub struct Runtime {
    pub my_pe: usize,
    pub n_pes: usize,
    pub(crate) layout: Layout,
    pub(crate) ctrl: CtrlTable,
    pub(crate) wait: WaitPolicy,
    /// Where PE 0's heap is mapped here; PE i's is `heaps + i * heap_size`.
    heaps: usize,
    heap_size: usize,
    my_heap: usize,
    static_start: usize,
    static_len: usize,
    static_bases: Vec<usize>,
    allocator: Mutex<SymHeap>,
    /// Heap offsets of blocks dropped on this PE (`SymSlice`'s Drop) and not yet released:
    /// released only once every PE has dropped them (see `alloc.rs`).
    dropped: Mutex<std::collections::BTreeSet<usize>>,
    /// Collective allocations (and frees) so far: which of them agree on dropped blocks.
    allocations: std::sync::atomic::AtomicU64,
    finalized: AtomicBool,
    /// Set by global_exit: atexit handlers must not wait for other PEs.
    exiting: AtomicBool,
    pub debug: bool,
    /// Checked mode: collective calls are compared across PEs (SHMEM_DEBUG, SHMEMX_CHECK_COLLECTIVES).
    pub checked: bool,
    /// Which host every PE runs on (from the bootstrap).
    pub(crate) topology: Topology,
    /// The job spans hosts: some PEs are reached through `net`, not through the mapping.
    multi_host: bool,
    /// UCX to the PEs of other hosts (only when the job spans hosts).
    net: Option<Net>,
    /// Where this PE's control block starts in this process (the base of its `Ctrl` region).
    my_ctrl: usize,
    /// The PMIx client of a job started by a PMIx launcher, until finalize tells the launcher
    /// that this PE ended properly (PMIx_Finalize).
    pmix: crate::net::SharedPmix,
    /// Held so the job file stays open (and mapped) for the life of the process.
    _job: JobFile,
    pub(crate) map: Mapping,
    _statics: Option<SharedStatics>,
}

static RUNTIME: AtomicPtr<Runtime> = AtomicPtr::new(std::ptr::null_mut());
static INIT_LOCK: Mutex<()> = Mutex::new(());

/// The running runtime, or `NotInitialized` naming `routine`: for the C ABI crate.
///
/// # Safety
/// The runtime reaches the job's raw shared memory and the state that the safe API relies on.
/// The caller must keep the C API's contracts (OpenSHMEM 1.5) in every use of it: pass only
/// PE numbers, addresses and lengths that are valid for the routine, and never free a block
/// or destroy a team that a `SymSlice` or `Team` of the safe API still holds.
#[inline]
pub unsafe fn runtime(routine: &'static str) -> Result<&'static Runtime> {
    current(routine)
}

/// The running runtime (see [`runtime`]); the safe API wraps it in `Shmem`.
#[inline]
pub(crate) fn current(routine: &'static str) -> Result<&'static Runtime> {
    let p = RUNTIME.load(Ordering::Acquire);
    if p.is_null() {
        return Err(Error::NotInitialized { routine });
    }
    // SAFETY: a non-null pointer was published by `start_once` from a leaked Box and is never
    // freed.
    let rt = unsafe { &*p };
    if rt.finalized.load(Ordering::Relaxed) {
        return Err(Error::NotInitialized { routine });
    }
    Ok(rt)
}

/// The runtime once started, finalized or not (for the hang watch of waits).
pub(crate) fn running() -> Option<&'static Runtime> {
    let p = RUNTIME.load(Ordering::Acquire);
    // SAFETY: see `current`.
    (!p.is_null()).then(|| unsafe { &*p })
}

/// The start of the runtime, once per process (`start::start_or_join`: collective over all
/// PEs): under the init lock, the runtime already running (an error once it has finalized),
/// or the one that `make` makes, published here (from then on [`runtime`], `current` and
/// `running` find it, for the rest of the process); then `started` (the closing barrier of
/// `shmem_init`, the hang reports' start) and the watch of the other hosts. A concurrent call
/// waits for all of it.
pub(crate) fn start_once(
    make: impl FnOnce() -> Result<Runtime>,
    started: impl FnOnce(&'static Runtime),
) -> Result<&'static Runtime> {
    let _guard = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let existing = RUNTIME.load(Ordering::Acquire);
    if !existing.is_null() {
        // SAFETY: see `current`.
        let rt = unsafe { &*existing };
        if rt.finalized.load(Ordering::Relaxed) {
            return Err(Error::bootstrap("shmem_init after shmem_finalize is not supported"));
        }
        return Ok(rt);
    }
    let rt = Box::leak(Box::new(make()?));
    RUNTIME.store(rt, Ordering::Release);
    let rt: &'static Runtime = rt;
    started(rt);
    // Across hosts: a host that stops answering ends the job (issue 29).
    peer_watch::start(rt);
    Ok(rt)
}

/// What the hang reports (`activity`, above the runtime, which does not name them) give the
/// runtime's start: the state word this PE publishes once the job is mapped (in
/// `shmem_init`), their threshold, and the observer of the waits that sleep.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Observers {
    /// Stored in this PE's `PeState::call` once the job is mapped.
    pub(crate) init_call: u64,
    /// `WaitPolicy::hang_report_ms`.
    pub(crate) hang_report_ms: u64,
    /// Registered (`wait::observe_sleeps`) before the network starts.
    pub(crate) sleeps: SleepObserver,
}

impl Runtime {
    /// The runtime's own start: bootstrap, the job's mapping, the program's statics, the wait
    /// policy and, across hosts, the network. `upper` makes the state of the layers above
    /// (the teams: this PE, the job's layout, the hosts), once the job is mapped and before
    /// the network starts, where the runtime made the teams when it held them; its error
    /// stops the start there, as then.
    pub(crate) fn start<T>(
        options: InitOptions,
        observers: Observers,
        upper: impl FnOnce(usize, &Layout, &Topology) -> Result<T>,
    ) -> Result<(Self, T)> {
        // Before this process waits for, or writes to, any other PE (see the barriers).
        crate::sync_prims::barrier::init();
        // Short time slices for this PE's threads, so that a waiter woken by the write it waits
        // for runs at once even beside programs that compute (`wait::slice`).
        wait::slice::request_from_env();
        let bootstrap::Attached { job, my_pe, topology, pmix } = bootstrap::attach()?;
        let layout = job.layout();
        // This PE's heap starts on a MAX_HEAP_ALIGN boundary, so that shmem_align's offsets
        // (aligned within the heap, equal on every PE) are aligned addresses too.
        let my_heap_offset = layout.heap_base + my_pe * layout.heap_size;
        let map = Mapping::shared_aligned(job.fd(), layout.fixed_len(), my_heap_offset, job::MAX_HEAP_ALIGN)?;
        let base = map.ptr;
        let ctrl = CtrlTable::new(base, layout);
        // Where this PE runs, for the core-aware waits of the others (updated by central syncs).
        ctrl.pe(my_pe).cpu.store(rustix::thread::sched_getcpu() as u32 + 1, Ordering::Relaxed);
        // In shmem_init, for the hang reports.
        ctrl.pe(my_pe).state.call.store(observers.init_call, Ordering::Relaxed);
        let statics = if options.share_statics {
            match static_data::find_main_segment() {
                Some(seg) => Some(SharedStatics::share(&job, my_pe, seg, |pe| topology.is_local(pe))?),
                None => None,
            }
        } else {
            None
        };
        let heaps = base as usize + layout.heap_base;
        let flag = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0");
        let debug = flag("SHMEM_DEBUG");
        // Agreed across the job (PE 0's), like the settings that choose an algorithm.
        let checked = crate::settings::agreed().checked;
        let upper = upper(my_pe, &layout, &topology)?;
        let (static_start, static_len, static_bases) = match &statics {
            Some(s) => (s.segment.start, s.segment.len, s.bases.clone()),
            None => (0, 0, Vec::new()),
        };
        let my_ctrl = base as usize + layout.ctrl_offset(my_pe);
        // The PEs of this host share its cores: they decide whether PEs outnumber cores.
        let wait = WaitPolicy {
            hang_report_ms: observers.hang_report_ms,
            ..WaitPolicy::for_job(topology.local_pes().len(), algorithm_cores(job.cores())?)
        };
        // The hang reports watch the waits that sleep (the waits do not call them).
        wait::observe_sleeps(observers.sleeps);
        let pmix = std::sync::Arc::new(Mutex::new(pmix));
        let spans_hosts = topology.spans_hosts() && pmix.lock().unwrap_or_else(|e| e.into_inner()).is_some();
        let net = if spans_hosts {
            let regions = [
                (my_ctrl, layout.ctrl_stride),
                (heaps + my_pe * layout.heap_size, layout.heap_size),
                (static_start, static_len),
            ];
            // The progress thread rings this PE's doorbell when data arrived, so that
            // waiters on this PE's memory look again.
            let ring = move || wait::notify(ctrl.pe(my_pe));
            Some(Net::start(pmix.clone(), &topology, my_pe, regions, std::sync::Arc::new(ring))?)
        } else {
            None
        };
        let rt = Runtime {
            my_pe,
            n_pes: layout.n_pes,
            layout,
            ctrl,
            wait,
            heaps,
            heap_size: layout.heap_size,
            my_heap: heaps + my_pe * layout.heap_size,
            static_start,
            static_len,
            static_bases,
            allocator: Mutex::new(SymHeap::new(layout.heap_size)),
            dropped: Mutex::new(std::collections::BTreeSet::new()),
            allocations: std::sync::atomic::AtomicU64::new(0),
            finalized: AtomicBool::new(false),
            exiting: AtomicBool::new(false),
            debug,
            checked,
            multi_host: topology.spans_hosts(),
            topology,
            net,
            my_ctrl,
            pmix,
            _job: job,
            map,
            _statics: statics,
        };
        Ok((rt, upper))
    }

    /// The network transport, when the job spans hosts.
    #[inline]
    pub fn net(&self) -> Option<&Net> {
        self.net.as_ref()
    }

    /// Across hosts, a fence of the launcher's PMIx over the whole job; whether it ran (not on
    /// one host, nor once the PMIx client is gone).
    pub(crate) fn launcher_fence(&self) -> Result<bool> {
        if self.net.is_none() {
            return Ok(false);
        }
        let guard = self.pmix.lock().unwrap_or_else(|e| e.into_inner());
        match guard.as_ref() {
            Some(client) => client
                .fence()
                .map(|()| true)
                .map_err(|e| Error::bootstrap_transport("PMIx: fence".to_string(), e)),
            None => Ok(false),
        }
    }

    /// Connects to every PE of `pes` on another host that has no endpoint yet, all at once,
    /// where a collective is about to talk to them (`Net::connect_all`); nothing within a host.
    pub(crate) fn connect_all(&self, routine: &'static str, pes: impl Iterator<Item = usize>) -> Result<()> {
        match &self.net {
            Some(net) => net.connect_all(routine, pes),
            None => Ok(()),
        }
    }

    /// [`Self::connect_all`] for the partners of this member (`me` of `n`, world PEs
    /// `member(i)`) in a dissemination: `me + 2^k`. A failure is not returned: it shows again,
    /// and is reported, at the round's transfer.
    pub(crate) fn connect_dissemination(
        &self,
        routine: &'static str,
        n: usize,
        me: usize,
        member: impl Fn(usize) -> usize,
    ) {
        let partners = (0..usize::BITS).map(|k| 1usize << k).take_while(|&d| d < n);
        let _ = self.connect_all(routine, partners.map(|d| member((me + d) % n)));
    }

    /// Whether the `n` members `member(0..n)` run on more than one host.
    #[inline]
    pub fn spans_hosts(&self, n: usize, member: impl Fn(usize) -> usize) -> bool {
        self.multi_host && !self.topology.on_one_host((0..n).map(member))
    }
}

/// The cores that choose the wait policy and with it the collective algorithms (whether PEs
/// outnumber cores): the host's (`job_cores`, recorded in the job file), or `SHMEMX_CORES`
/// when set, so that tests can run either family of algorithms at any PE count on any machine.
/// Every PE must see the same value (oshrun and `mpirun` pass `SHMEMX_*` to every PE).
fn algorithm_cores(job_cores: usize) -> Result<usize> {
    match std::env::var(ENV_CORES) {
        Err(_) => Ok(job_cores),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(Error::bootstrap(format!("{ENV_CORES}={v:?} is not a positive number of cores"))),
        },
    }
}

/// Environment variable overriding the cores that choose the algorithms (`runtime::algorithm_cores`).
pub const ENV_CORES: &str = "SHMEMX_CORES";
