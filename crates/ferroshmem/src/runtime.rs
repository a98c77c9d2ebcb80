//! The per-process runtime: who we are, where every PE's memory is mapped, and the world barrier.
#![allow(unsafe_code)]

use std::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::activity;
use crate::bootstrap;
use crate::ctrl::{CtrlTable, PeCtrl};
use crate::error::{Error, Result};
use crate::heap::SymHeap;
use crate::job::{self, HeaderView, JobFile, Layout, Mapping};
use crate::net::{Completion, FlagUpdate, Net, Region};
use crate::static_data::{self, SharedStatics};
use crate::team::{self, Teams};
use crate::topology::Topology;
use crate::wait::{self, WaitPolicy};

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

pub(crate) use crate::team::slot_layout::{CENTRAL_ARRIVALS, CENTRAL_ARRIVED, CENTRAL_RELEASE};
/// Bits of the arrivals word (and other epoch-tagged counts) that count (the rest hold the
/// epoch: 2^44 operations).
pub const CENTRAL_COUNT_BITS: u32 = 20;
const CENTRAL_COUNT_MASK: u64 = (1 << CENTRAL_COUNT_BITS) - 1;
/// Teams this large use dissemination even when oversubscribed.
const CENTRAL_MAX_PES: usize = 1 << CENTRAL_COUNT_BITS;
/// Central syncs of teams up to this size wait core-aware (`poll_while_core_idle`), whose
/// every check reads the arrival words of the members on its CPU.
const CORE_AWARE_MAX_PES: usize = 64;
/// ... in jobs up to this size (each such wait first reads every PE's CPU word once).
const CORE_AWARE_MAX_JOB: usize = 1024;
/// Largest counted message ([`Runtime::put_counted`]): a larger transfer is split, so no
/// receiver needs to assemble more than this at once.
pub const COUNTED_CHUNK: usize = 1 << 20;

/// How many counted messages [`Runtime::put_counted`] sends for `len` bytes (one at least).
pub const fn counted_messages(len: usize) -> usize {
    if len == 0 {
        1
    } else {
        len.div_ceil(COUNTED_CHUNK)
    }
}

/// How long a wait in a job across hosts progresses the network and yields before it sleeps,
/// whatever the ratio of PEs to cores: a network step takes tens of microseconds, and a
/// sleeping waiter is woken through two threads (its progress thread, then the doorbell).
/// With the one-host figure (200 us when PEs do not outnumber cores) the waiters across
/// 4 simulated hosts x 2 PEs slept in every collective and a barrier, broadcast or reduction
/// took 2-3 ms in half of the runs; with 2 ms, 130-410 us in every run
/// (`bench/c/coll_bench.c 8 20`, two alternations).
const NETWORK_YIELD_FOR: std::time::Duration = std::time::Duration::from_millis(2);

/// Adds one to `word`, an epoch-tagged count: (epoch << 20) | count. A count left by an older
/// operation (or by an older team on the slot) carries a smaller epoch and restarts at 1.
/// Returns the new count. AcqRel: what the caller wrote before is visible with the count, and
/// what the earlier adders wrote is visible to the caller.
pub fn add_to_tagged_count(word: &AtomicU64, epoch: u64) -> u64 {
    let mut cur = word.load(Ordering::Relaxed);
    loop {
        let count = if cur >> CENTRAL_COUNT_BITS == epoch { (cur & CENTRAL_COUNT_MASK) + 1 } else { 1 };
        match word.compare_exchange_weak(
            cur,
            (epoch << CENTRAL_COUNT_BITS) | count,
            Ordering::AcqRel,
            Ordering::Relaxed,
        ) {
            Ok(_) => return count,
            Err(now) => cur = now,
        }
    }
}

/// The value of a tagged count (see [`add_to_tagged_count`]) once `count` adds of `epoch`
/// have been made.
pub const fn tagged_count(epoch: u64, count: u64) -> u64 {
    (epoch << CENTRAL_COUNT_BITS) | count
}

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
    finalized: AtomicBool,
    /// Set by global_exit: atexit handlers must not wait for other PEs.
    exiting: AtomicBool,
    pub debug: bool,
    /// Checked mode: collective calls are compared across PEs (SHMEM_DEBUG, SHMEMX_CHECK_COLLECTIVES).
    pub checked: bool,
    /// This PE's teams.
    pub teams: Teams,
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
    pmix: Mutex<Option<bootstrap::Pmix>>,
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

/// Starts the runtime (collective over all PEs), or returns the one already running: for the
/// C ABI crate.
///
/// # Safety
/// As [`runtime`]: the caller keeps the C API's contracts in every use of the runtime.
pub unsafe fn init(options: InitOptions) -> Result<&'static Runtime> {
    start_or_join(options)
}

/// The running runtime (see [`runtime`]); the safe API wraps it in `Shmem`.
#[inline]
pub(crate) fn current(routine: &'static str) -> Result<&'static Runtime> {
    let p = RUNTIME.load(Ordering::Acquire);
    if p.is_null() {
        return Err(Error::NotInitialized { routine });
    }
    // SAFETY: a non-null pointer was published by `init` from a leaked Box and is never freed.
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

/// Starts the runtime (collective over all PEs), or returns the one already running.
pub(crate) fn start_or_join(options: InitOptions) -> Result<&'static Runtime> {
    let _guard = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let existing = RUNTIME.load(Ordering::Acquire);
    if !existing.is_null() {
        // SAFETY: see `current`.
        let rt = unsafe { &*existing };
        if rt.finalized.load(Ordering::Relaxed) {
            return Err(Error::Bootstrap("shmem_init after shmem_finalize is not supported".into()));
        }
        return Ok(rt);
    }
    let rt = Box::leak(Box::new(Runtime::start(options)?));
    RUNTIME.store(rt, Ordering::Release);
    let rt: &'static Runtime = rt;
    rt.barrier_all_as("shmem_init");
    rt.publish_outside();
    // Under a PMIx launcher: the host's coarse clock (oshrun's on one host), oshrun's report
    // requests through mpirun.
    activity::start_host_duties(rt);
    Ok(rt)
}

impl Runtime {
    fn start(options: InitOptions) -> Result<Self> {
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
        let in_init =
            activity::Doing::InCall { routine: activity::routine_id("shmem_init"), team_slot: None };
        ctrl.pe(my_pe).state.call.store(in_init.encode(), Ordering::Relaxed);
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
        let checked = debug || flag("SHMEMX_CHECK_COLLECTIVES");
        let teams = Teams::new(my_pe, layout.n_pes, layout.team_slots, layout.slot_words * 8, &topology)?;
        let (static_start, static_len, static_bases) = match &statics {
            Some(s) => (s.segment.start, s.segment.len, s.bases.clone()),
            None => (0, 0, Vec::new()),
        };
        let my_ctrl = base as usize + layout.ctrl_offset(my_pe);
        // The PEs of this host share its cores: they decide whether PEs outnumber cores.
        let wait = WaitPolicy::for_job(topology.local_pes().len(), algorithm_cores(job.cores())?);
        let net = match &pmix {
            Some(pmix) if topology.spans_hosts() => {
                let regions = [
                    (my_ctrl, layout.ctrl_stride),
                    (heaps + my_pe * layout.heap_size, layout.heap_size),
                    (static_start, static_len),
                ];
                // The progress thread rings this PE's doorbell when data arrived, so that
                // waiters on this PE's memory look again.
                let ring = move || wait::notify(ctrl.pe(my_pe));
                Some(Net::start(pmix, &topology, my_pe, regions, std::sync::Arc::new(ring))?)
            }
            _ => None,
        };
        Ok(Runtime {
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
            finalized: AtomicBool::new(false),
            exiting: AtomicBool::new(false),
            debug,
            checked,
            teams,
            multi_host: topology.spans_hosts(),
            topology,
            net,
            my_ctrl,
            pmix: Mutex::new(pmix),
            _job: job,
            map,
            _statics: statics,
        })
    }

    /// Checks a PE number against the world.
    #[inline]
    pub fn check_pe(&self, routine: &'static str, pe: i64) -> Result<usize> {
        if pe >= 0 && (pe as u64) < self.n_pes as u64 {
            Ok(pe as usize)
        } else {
            Err(Error::InvalidPe { routine, pe, n_pes: self.n_pes })
        }
    }

    /// Address on PE `pe` (mapped in this process) of the symmetric object at local `addr`, if
    /// all `len` bytes of it are symmetric. `pe` must already be checked.
    /// `None` also for a PE on another host: its memory is not mapped here.
    #[inline]
    pub fn remote_addr(&self, addr: usize, len: usize, pe: usize) -> Option<usize> {
        if self.multi_host && !self.topology.is_local(pe) {
            return None;
        }
        let off = addr.wrapping_sub(self.my_heap);
        if off < self.heap_size && len <= self.heap_size - off {
            return Some(self.heaps + pe * self.heap_size + off);
        }
        let off = addr.wrapping_sub(self.static_start);
        if off < self.static_len && len <= self.static_len - off {
            return Some(self.static_bases[pe] + off);
        }
        // A zero-length access at the very end of a region is harmless.
        if len == 0 && (addr == self.my_heap + self.heap_size || addr == self.static_start + self.static_len)
        {
            return Some(addr);
        }
        None
    }

    /// [`Self::remote_addr`] with both checks, for one routine.
    #[inline]
    /// A zero-length access reads and writes nothing, so its address is not checked (NULL is
    /// fine, as OpenSHMEM 1.5 says) and comes back as it was: callers must not dereference it.
    pub fn translate(&self, routine: &'static str, addr: usize, len: usize, pe: i64) -> Result<usize> {
        let pe = self.check_pe(routine, pe)?;
        if len == 0 {
            return Ok(addr);
        }
        self.remote_addr(addr, len, pe).ok_or(Error::NotSymmetric { routine, addr, len })
    }

    /// Where the `len` bytes of the local symmetric object at `addr` are on PE `pe`: mapped
    /// here (the PEs of this host) or reached through the network (the others). Checks the
    /// PE and that the whole range is symmetric. A zero-length range is `Mapped(addr)`
    /// unchecked: nothing will be accessed.
    #[inline(always)]
    pub fn target(&self, routine: &'static str, addr: usize, len: usize, pe: i64) -> Result<Target> {
        let pe = self.check_pe(routine, pe)?;
        // The common case first, as cheap as a plain translation: mapped here.
        match self.remote_addr(addr, len, pe) {
            Some(a) if len > 0 => Ok(Target::Mapped(a)),
            _ => self.target_slow(routine, addr, len, pe),
        }
    }

    /// [`Self::target`] for a zero length, another host, or an address that is not symmetric.
    #[cold]
    fn target_slow(&self, routine: &'static str, addr: usize, len: usize, pe: usize) -> Result<Target> {
        if len == 0 {
            return Ok(Target::Mapped(addr));
        }
        if !self.multi_host || self.topology.is_local(pe) {
            return Err(Error::NotSymmetric { routine, addr, len });
        }
        let (region, offset) = self.region_of(addr, len).ok_or(Error::NotSymmetric { routine, addr, len })?;
        Ok(Target::Net { pe, region, offset })
    }

    /// The symmetric region and offset of the local range `[addr, addr + len)`.
    fn region_of(&self, addr: usize, len: usize) -> Option<(Region, usize)> {
        let off = addr.wrapping_sub(self.my_heap);
        if off < self.heap_size && len <= self.heap_size - off {
            return Some((Region::Heap, off));
        }
        let off = addr.wrapping_sub(self.static_start);
        if off < self.static_len && len <= self.static_len - off {
            return Some((Region::Statics, off));
        }
        None
    }

    /// The network transport, when the job spans hosts.
    #[inline]
    pub fn net(&self) -> Option<&Net> {
        self.net.as_ref()
    }

    /// Offset in this PE's control block (its `Ctrl` region) of word `word` of team slot `slot`:
    /// the same offset on every PE.
    #[inline]
    pub fn slot_word_offset(&self, slot: usize, word: usize) -> usize {
        self.ctrl.slot(self.my_pe, slot)[word].as_ptr() as usize - self.my_ctrl
    }

    /// Writes `value` into word `word` of team slot `slot` on PE `pe` and tells its waiters:
    /// a store and a doorbell on this host, a network put to another host (whose progress
    /// thread rings the bell there).
    pub fn store_slot_word(&self, routine: &'static str, pe: usize, slot: usize, word: usize, value: u64) {
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                if let Err(e) =
                    net.put_word(routine, pe, Region::Ctrl, self.slot_word_offset(slot, word), value)
                {
                    fatal(&e);
                }
            }
            _ => {
                self.ctrl.slot(pe, slot)[word].store(value, Ordering::Release);
                self.notify(pe);
            }
        }
    }

    /// Writes `payload` into the words after `word` of team slot `slot` on PE `pe`, then
    /// `flag` into `word` itself (see [`Self::post_words`]), by one flagged message to another
    /// host: the slot's mailboxes, whose flags (epochs) only grow and whose every message its
    /// receiver waits for.
    pub fn post_slot_words(
        &self,
        routine: &'static str,
        pe: usize,
        slot: usize,
        word: usize,
        payload: &[u64],
        flag: u64,
    ) {
        self.post_words(
            routine,
            pe,
            &self.ctrl.slot(pe, slot)[word..=word + payload.len()],
            payload,
            flag,
            Delivery::Message,
        )
    }

    /// Writes `payload` into `words[1..]` and then `flag` into `words[0]`, where `words` are
    /// words of PE `pe`'s control block (as mapped here): a reader that sees the flag sees the
    /// payload. On this host stores (the flag with Release) and a doorbell; to another host
    /// (`delivery`) one flagged message or two puts with a fence between them, at the words'
    /// offset in `pe`'s control block (the same offset on every PE).
    pub fn post_words(
        &self,
        routine: &'static str,
        pe: usize,
        words: &[AtomicU64],
        payload: &[u64],
        flag: u64,
        delivery: Delivery,
    ) {
        assert_eq!(words.len(), payload.len() + 1, "{routine}: a flag word and the payload's words");
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let bytes: Vec<u8> = payload.iter().flat_map(|w| w.to_ne_bytes()).collect();
                let at = words.as_ptr() as usize - (self.ctrl.pe(pe) as *const PeCtrl as usize);
                let sent = match delivery {
                    Delivery::Message => net.put_flagged(
                        routine,
                        pe,
                        Region::Ctrl,
                        at + 8,
                        &bytes,
                        at,
                        FlagUpdate::AtLeast(flag),
                    ),
                    Delivery::Puts => net
                        .put(routine, pe, Region::Ctrl, at + 8, &bytes, Completion::Announced)
                        .map(|()| net.fence())
                        .and_then(|()| net.put_word(routine, pe, Region::Ctrl, at, flag)),
                };
                if let Err(e) = sent {
                    fatal(&e);
                }
            }
            _ => {
                for (w, &v) in words[1..].iter().zip(payload) {
                    w.store(v, Ordering::Relaxed);
                }
                words[0].store(flag, Ordering::Release);
                self.notify(pe);
            }
        }
    }

    /// Address in this process of this PE's staging area of team slot `slot`.
    #[inline]
    pub fn stage_addr(&self, slot: usize) -> usize {
        self.ctrl.stage(self.my_pe, slot)
    }

    /// Word `i` of this PE's staging area of team slot `slot`.
    pub fn read_stage_word(&self, slot: usize, i: usize) -> u64 {
        assert!(i < job::STAGE_BYTES / 8, "word {i} is past the staging area");
        // SAFETY: inside this PE's mapped staging area (checked above), 8-byte aligned (the
        // area is page aligned); the caller read it after a sync, nobody writes it meanwhile.
        unsafe { std::ptr::read_volatile((self.stage_addr(slot) + i * 8) as *const u64) }
    }

    /// Word `i` (8-byte aligned, `i * 8` below `job::STAGE_BYTES`) of PE `pe`'s staging area of
    /// team slot `slot`, a PE of this host, as an atomic: words there that serve as flags
    /// (`coll::hier`'s broadcast ring) are only ever accessed atomically.
    pub fn stage_word(&self, pe: usize, slot: usize, i: usize) -> &AtomicU64 {
        assert!(i < job::STAGE_BYTES / 8, "word {i} is past the staging area");
        assert!(
            pe < self.n_pes && slot < self.layout.team_slots && self.topology.is_local(pe),
            "staging word of PE {pe}, slot {slot}: not a slot of a PE of this host"
        );
        // SAFETY: inside PE `pe`'s staging area, mapped here for the life of the process (same
        // host), 8-byte aligned (the area is page aligned); only ever used atomically.
        unsafe { &*((self.ctrl.stage(pe, slot) + i * 8) as *const AtomicU64) }
    }

    /// Copies `bytes` to `offset` of PE `pe`'s staging area of team slot `slot`, then raises
    /// the word `flag` of that slot or staging area to at least `value` and tells its waiters:
    /// a reader that sees the word sees the bytes. On this host a copy, an atomic maximum and
    /// a doorbell; to another host one flagged message (`Net::put_flagged`). Words written so
    /// are written no other way.
    #[allow(clippy::too_many_arguments)]
    pub fn put_stage_flagged(
        &self,
        routine: &'static str,
        pe: usize,
        slot: usize,
        offset: usize,
        bytes: &[u8],
        flag: FlagWord,
        value: u64,
    ) {
        check_stage_range(routine, offset, bytes.len());
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let stage = self.stage_addr(slot) - self.my_ctrl;
                let at = stage + offset;
                let flag = match flag {
                    FlagWord::Slot(word) => self.slot_word_offset(slot, word),
                    FlagWord::Stage(i) => {
                        check_stage_range(routine, i * 8, 8);
                        stage + i * 8
                    }
                };
                if let Err(e) =
                    net.put_flagged(routine, pe, Region::Ctrl, at, bytes, flag, FlagUpdate::AtLeast(value))
                {
                    fatal(&e);
                }
            }
            _ => {
                self.copy_into_stage(pe, slot, offset, bytes);
                let word = match flag {
                    FlagWord::Slot(word) => &self.ctrl.slot(pe, slot)[word],
                    FlagWord::Stage(i) => self.stage_word(pe, slot, i),
                };
                word.fetch_max(value, Ordering::AcqRel);
                self.notify(pe);
            }
        }
    }

    /// Sends `len` bytes at this PE's `src` to the symmetric `dest` on PE `pe` of another
    /// host as counted messages (one per [`COUNTED_CHUNK`] bytes, [`counted_messages`] of
    /// them), each of which adds one to word `word` of that PE's slot `slot` once its bytes
    /// landed. The receiver read that word before the messages could be sent and waits until
    /// it grew by their number: no staging, no fence, no flag put; the data goes straight
    /// into the destination, which its receiver must have said is free.
    ///
    /// # Safety
    /// `src` must be readable for `len` bytes.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn put_counted(
        &self,
        routine: &'static str,
        pe: usize,
        dest: usize,
        src: usize,
        len: usize,
        slot: usize,
        word: usize,
    ) -> Result<()> {
        let net = match &self.net {
            Some(net) if !self.topology.is_local(pe) => net,
            _ => panic!("{routine}: a counted message to PE {pe} of this host"),
        };
        let (region, offset) =
            self.region_of(dest, len).ok_or(Error::NotSymmetric { routine, addr: dest, len })?;
        let flag = self.slot_word_offset(slot, word);
        for k in 0..counted_messages(len) {
            let lo = k * COUNTED_CHUNK;
            let n = COUNTED_CHUNK.min(len - lo);
            // SAFETY: `src + lo .. + n` lies in the caller's readable range.
            let bytes = unsafe { std::slice::from_raw_parts((src + lo) as *const u8, n) };
            net.put_flagged(routine, pe, region, offset + lo, bytes, flag, FlagUpdate::Add(1))?;
        }
        Ok(())
    }

    /// Copies `bytes` to `offset` of the staging area of team slot `slot` of PE `pe`, a PE
    /// of this host; the caller checked the range (`check_stage_range`).
    fn copy_into_stage(&self, pe: usize, slot: usize, offset: usize, bytes: &[u8]) {
        // SAFETY: PE `pe`'s staging area is mapped here (same host) and holds STAGE_BYTES,
        // `offset + bytes.len()` of them at most (checked by the caller); the collective's
        // protocol keeps others off that range meanwhile.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (self.ctrl.stage(pe, slot) + offset) as *mut u8,
                bytes.len(),
            )
        };
    }

    /// Copies `bytes` to `offset` of PE `pe`'s staging area of team slot `slot`: a copy on
    /// this host, a network put to another (`completion`: who learns that it landed).
    pub fn put_stage_bytes(
        &self,
        routine: &'static str,
        pe: usize,
        slot: usize,
        offset: usize,
        bytes: &[u8],
        completion: Completion,
    ) {
        check_stage_range(routine, offset, bytes.len());
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let at = self.stage_addr(slot) - self.my_ctrl + offset;
                if let Err(e) = net.put(routine, pe, Region::Ctrl, at, bytes, completion) {
                    fatal(&e);
                }
            }
            _ => {
                self.copy_into_stage(pe, slot, offset, bytes);
                self.notify(pe);
            }
        }
    }

    /// Words `word..word + n` of team slot `slot` on PE `pe`: loads on this host, a network get
    /// from another.
    pub fn read_slot_words(
        &self,
        routine: &'static str,
        pe: usize,
        slot: usize,
        word: usize,
        n: usize,
    ) -> Vec<u64> {
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let mut bytes = vec![0u8; n * 8];
                if let Err(e) =
                    net.get(routine, pe, Region::Ctrl, self.slot_word_offset(slot, word), &mut bytes)
                {
                    fatal(&e);
                }
                bytes.chunks_exact(8).map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes"))).collect()
            }
            _ => self.ctrl.slot(pe, slot)[word..word + n].iter().map(|w| w.load(Ordering::Acquire)).collect(),
        }
    }

    /// Whether the `n` members `member(0..n)` run on more than one host.
    #[inline]
    pub fn spans_hosts(&self, n: usize, member: impl Fn(usize) -> usize) -> bool {
        self.multi_host && !self.topology.on_one_host((0..n).map(member))
    }

    /// Start of this PE's symmetric heap.
    pub fn heap_start(&self) -> usize {
        self.my_heap
    }

    /// Bytes of each PE's symmetric heap.
    pub fn heap_size(&self) -> usize {
        self.heap_size
    }

    /// Tells waiters on `pe`'s memory that it changed.
    #[inline]
    pub fn notify(&self, pe: usize) {
        wait::notify(self.ctrl.pe(pe));
    }

    /// Waits until `ready()`; `owner` is the PE whose memory it reads.
    #[inline]
    pub fn wait_until(&self, owner: usize, mut ready: impl FnMut() -> bool) {
        match &self.net {
            None => wait::wait_until(&self.wait, self.ctrl.pe(owner), ready),
            Some(net) => {
                if ready() {
                    return;
                }
                self.wait_progressing(net, owner, &mut ready)
            }
        }
    }

    /// [`Self::wait_until`] for a condition on words that every writer notifies (the syncs'
    /// flags and counters): on one host such a sleep need not wake for plain stores, so it
    /// backs off (see [`wait::wait_until_rung`]); across hosts it is the usual wait.
    #[inline]
    fn wait_until_rung(&self, owner: usize, mut ready: impl FnMut() -> bool) {
        match &self.net {
            None => wait::wait_until_rung(&self.wait, self.ctrl.pe(owner), ready),
            Some(_) => self.wait_until(owner, &mut ready),
        }
    }

    /// A wait in a job across hosts: first progress the network here (the progress thread
    /// stands aside meanwhile), yielding after each look, for as long as a waiter would spin and
    /// yield; then sleep as usual, with the progress thread serving the network again and
    /// ringing the doorbell when data arrives.
    ///
    /// A wait inside another one's condition (a team creation whose completion syncs the team)
    /// never sleeps: the outer wait still holds the progress thread aside, so nobody would
    /// serve the network for this PE meanwhile. It progresses and yields until done.
    #[cold]
    fn wait_progressing(&self, net: &Net, owner: usize, ready: &mut dyn FnMut() -> bool) {
        thread_local! {
            static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        struct Nest;
        impl Drop for Nest {
            fn drop(&mut self) {
                DEPTH.with(|d| d.set(d.get() - 1));
            }
        }
        let nested = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get() > 1
        });
        let _nest = Nest;
        {
            let busy = net.busy();
            let start = Instant::now();
            let mut rounds = 0u32;
            loop {
                let delivered = net.progress();
                if ready() {
                    return;
                }
                // Give the core away after every look that found nothing: a look at the
                // network is a system call already, so a yield costs little when nobody else
                // wants the core, and when somebody does (another PE, possibly the one to make
                // progress) it gets the core at once. Across 2 simulated hosts x 2 PEs on
                // this 2-core machine a barrier took 23-45 us so and 37-47 us yielding after
                // every 16 looks (`bench/c/coll_bench.c 8 50`, three alternations). A look
                // that delivered something is followed by another at once: the rest of a
                // message (a flag after its data) is often there already.
                if !delivered {
                    std::thread::yield_now();
                }
                rounds += 1;
                if rounds.is_multiple_of(16) && !nested && start.elapsed() >= NETWORK_YIELD_FOR {
                    break;
                }
            }
            busy.hand_over();
        }
        wait::wait_until(&self.wait, self.ctrl.pe(owner), ready)
    }

    /// Synchronises the `n` members of a team whose slot is `slot`: this PE is member `me` and
    /// `member(i)` is the world PE of member i. `epoch` counts the team's syncs (from 1); all
    /// members pass the same value. Orders every earlier memory operation of each member before
    /// every later one of any member.
    ///
    /// With a core per PE, dissemination (log2 n rounds of one flag each) is fastest. With more
    /// PEs than cores what costs is how often each PE must be scheduled, so a central counter
    /// on member 0 (arrive once, see the release once) wins.
    pub fn team_sync(&self, slot: usize, n: usize, me: usize, member: impl Fn(usize) -> usize, epoch: u64) {
        if self.spans_hosts(n, &member) {
            self.network_sync(slot, n, me, member, epoch)
        } else if n == 1 {
            fence(Ordering::SeqCst);
        } else if self.uses_central_sync(n) {
            self.central_sync(slot, n, member, epoch)
        } else {
            self.dissemination_sync(slot, n, me, member, epoch)
        }
    }

    /// Whether a team of `n` (> 1) members syncs through the central counter on member 0.
    #[inline]
    pub fn uses_central_sync(&self, n: usize) -> bool {
        self.wait.oversubscribed && n < CENTRAL_MAX_PES
    }

    fn dissemination_sync(
        &self,
        slot: usize,
        n: usize,
        me: usize,
        member: impl Fn(usize) -> usize,
        epoch: u64,
    ) {
        let mut dist = 1usize;
        let mut round = 0usize;
        let my_slot = self.ctrl.slot(self.my_pe, slot);
        while dist < n {
            let to = member((me + dist) % n);
            self.ctrl.slot(to, slot)[round].store(epoch, Ordering::Release);
            self.notify(to);
            let flag = &my_slot[round];
            self.wait_until_rung(self.my_pe, || flag.load(Ordering::Acquire) >= epoch);
            dist <<= 1;
            round += 1;
        }
    }

    /// The sync of a team whose members span hosts: dissemination, each flag written by a
    /// store to a PE of this host and by a network put to another host. A member first
    /// completes its own network operations (quiet), so that the sync orders them as it
    /// orders stores on one host. Waiting progresses the network too.
    fn network_sync(&self, slot: usize, n: usize, me: usize, member: impl Fn(usize) -> usize, epoch: u64) {
        if let Some(net) = &self.net {
            net.quiet();
        }
        let my_slot = self.ctrl.slot(self.my_pe, slot);
        let (mut dist, mut round) = (1usize, 0usize);
        while dist < n {
            self.store_slot_word("shmem_team_sync", member((me + dist) % n), slot, round, epoch);
            let flag = &my_slot[round];
            self.wait_until(self.my_pe, || flag.load(Ordering::Acquire) >= epoch);
            dist <<= 1;
            round += 1;
        }
    }

    fn central_sync(&self, slot: usize, n: usize, member: impl Fn(usize) -> usize, epoch: u64) {
        let root = member(0);
        // Where and that this PE arrived, for the waits of the others on its core (below).
        let core_aware = n <= CORE_AWARE_MAX_PES && self.n_pes <= CORE_AWARE_MAX_JOB;
        let cpu = if core_aware { rustix::thread::sched_getcpu() as u32 + 1 } else { 0 };
        if core_aware {
            let mine = &self.ctrl.pe(self.my_pe).cpu;
            // Written only when it changes: the line also holds the doorbell words that every
            // writer to this PE reads.
            if mine.load(Ordering::Relaxed) != cpu {
                mine.store(cpu, Ordering::Relaxed);
            }
            self.ctrl.slot(self.my_pe, slot)[CENTRAL_ARRIVED].store(epoch, Ordering::Relaxed);
        }
        let words = self.ctrl.slot(root, slot);
        let (arrivals, release) = (&words[CENTRAL_ARRIVALS], &words[CENTRAL_RELEASE]);
        let count = add_to_tagged_count(arrivals, epoch);
        if count == n as u64 {
            release.store(epoch, Ordering::Release);
            self.notify(root);
            return;
        }
        let released = || release.load(Ordering::Acquire) >= epoch;
        if core_aware {
            self.poll_while_core_idle(slot, n, &member, epoch, cpu, released);
        }
        self.wait_until_rung(root, released);
    }

    /// A PE waiting in a central sync whose core has no other PE still to arrive keeps
    /// polling rather than yielding: yielding would only hand the core to a PE that waits too,
    /// and the release, when it comes, would wait for a switch back. It yields as soon as a
    /// member last seen on its core has not arrived, does not poll at all when a PE outside
    /// the team shares its core, and gives up after `yield_for` (the usual wait takes over).
    /// With PEs pinned (oshrun does so when they outnumber the cores) the CPUs are exact: a 4-PE sync on 2 cores took 1.5 µs rather than 2.9 unpinned, and 8, 12
    /// and 16 PEs gained 7-13% over waiting without it. Unpinned, 8 PEs neither gain nor lose.
    fn poll_while_core_idle(
        &self,
        slot: usize,
        n: usize,
        member: &impl Fn(usize) -> usize,
        epoch: u64,
        cpu: u32,
        released: impl Fn() -> bool,
    ) {
        let start = Instant::now();
        let mut rounds = 0u32;
        // The PEs last seen on this CPU, looked up once: each check then reads only their
        // arrival words, lines that PEs of this core wrote. If one of them is not a member,
        // polling could keep it from running while a member waits for it (a row team's sync
        // holding the core that a PE of another row needs): then this PE waits as usual.
        let mut here = [0usize; CORE_AWARE_MAX_PES];
        let mut count = 0;
        for pe in (0..self.n_pes).filter(|&pe| pe != self.my_pe) {
            if self.ctrl.pe(pe).cpu.load(Ordering::Relaxed) != cpu {
                continue;
            }
            if count == here.len() || !(0..n).any(|i| member(i) == pe) {
                return;
            }
            here[count] = pe;
            count += 1;
        }
        let someone_here_to_arrive = || {
            here[..count]
                .iter()
                .any(|&pe| self.ctrl.slot(pe, slot)[CENTRAL_ARRIVED].load(Ordering::Relaxed) < epoch)
        };
        while !released() {
            rounds += 1;
            // Yield now and then anyway: a PE that moved to this core is not seen here.
            if rounds.is_multiple_of(32) || someone_here_to_arrive() {
                std::thread::yield_now();
            } else {
                for _ in 0..64 {
                    std::hint::spin_loop();
                    if released() {
                        return;
                    }
                }
            }
            if start.elapsed() >= self.wait.yield_for {
                return;
            }
        }
    }

    /// Waits until every PE has arrived; orders all earlier memory operations before any later
    /// ones on every PE (shmem_barrier_all / shmem_sync_all on shared memory).
    pub fn barrier_all(&self) {
        self.barrier_all_as("shmem_barrier_all")
    }

    /// [`Self::barrier_all`] published as `routine` (hang reports name it).
    pub fn barrier_all_as(&self, routine: &'static str) {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        if self.checked {
            let sig = team::checked::Signature::new("shmem_barrier_all", &[]);
            if let Err(e) = team::checked::check_call(self, &self.teams.world, &sig) {
                fatal(&e);
            }
        } else {
            self.teams.world.sync_unchecked(self);
        }
    }

    /// Completes all outstanding memory operations (shmem_quiet / shmem_fence): on shared
    /// memory every store has been issued already; a full fence makes them globally visible.
    /// Across hosts it also waits until every network put and atomic has completed.
    #[inline]
    pub fn quiet(&self) {
        fence(Ordering::SeqCst);
        if let Some(net) = &self.net {
            net.quiet();
        }
    }

    /// Orders this PE's earlier puts and atomics before later ones (shmem_fence): on shared
    /// memory a fence; across hosts also the network's ordering.
    #[inline]
    pub fn fence(&self) {
        fence(Ordering::SeqCst);
        if let Some(net) = &self.net {
            net.fence();
        }
    }

    /// Takes `size` bytes from this PE's allocator (no synchronisation).
    fn alloc_local(&self, routine: &'static str, size: usize, align: usize) -> Result<usize> {
        if !align.is_power_of_two() {
            return Err(Error::invalid(routine, "alignment", format!("{align} is not a power of two")));
        }
        if align > job::MAX_HEAP_ALIGN {
            return Err(Error::invalid(
                routine,
                "alignment",
                format!("{align} is above the largest supported alignment, {}", job::MAX_HEAP_ALIGN),
            ));
        }
        let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
        heap.alloc(size, align).map(|off| self.my_heap + off).ok_or_else(|| Error::OutOfMemory {
            routine,
            size,
            free: heap.free_bytes(),
            capacity: heap.capacity(),
        })
    }

    /// Symmetric allocation: same size on every PE gives the same offset everywhere. Collective:
    /// ends with a barrier so that no PE uses the block before every PE has it. Size 0 gives
    /// `None` (after the barrier).
    pub fn sym_alloc(&self, routine: &'static str, size: usize, align: usize) -> Result<Option<usize>> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        let result = if size == 0 { Ok(None) } else { self.alloc_local(routine, size, align).map(Some) };
        self.allocation_agreed(routine, &[size as i64, align as i64], result)
    }

    /// [`Self::sym_alloc`] that zeroes the block before the closing barrier.
    pub fn sym_alloc_zeroed(&self, routine: &'static str, size: usize, align: usize) -> Result<usize> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        let addr = self.alloc_local(routine, size, align);
        if let Ok(a) = addr {
            // SAFETY: a fresh live block of `size` bytes in our mapped heap; no PE can address it
            // before the barrier below.
            unsafe { std::ptr::write_bytes(a as *mut u8, 0, size) };
        }
        self.allocation_agreed(routine, &[size as i64, align as i64], addr.map(Some))
            .map(|a| a.unwrap_or_default())
    }

    /// The closing barrier of an allocation whose local part gave `result`. In checked mode
    /// the barrier carries (routine, `args`): PEs that passed different ones all get the same
    /// [`Error::CollectiveMismatch`] naming who passed what (and keep no block), where
    /// otherwise their heaps would silently stop being symmetric.
    fn allocation_agreed(
        &self,
        routine: &'static str,
        args: &[i64],
        result: Result<Option<usize>>,
    ) -> Result<Option<usize>> {
        if let Err(e) = self.agree_allocation(routine, args) {
            if let Ok(Some(a)) = result {
                let _ = self.release(routine, a);
            }
            return Err(e);
        }
        result
    }

    /// The barrier of an allocation routine; in checked mode one that also checks that every
    /// PE called `routine` with `args` (see [`Self::allocation_agreed`]).
    fn agree_allocation(&self, routine: &'static str, args: &[i64]) -> Result<()> {
        if !self.checked {
            self.teams.world.sync_unchecked(self);
            return Ok(());
        }
        let sig = team::checked::Signature::new(routine, args);
        team::checked::check_call(self, &self.teams.world, &sig)
    }

    /// Collective free: a barrier first, so no PE still reads the block, then the bookkeeping.
    /// In checked mode the barrier checks that every PE frees the same block (its offset in
    /// the heap).
    pub fn sym_free(&self, routine: &'static str, addr: usize) -> Result<()> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        self.agree_allocation(routine, &[addr.wrapping_sub(self.my_heap) as i64])?;
        self.release(routine, addr)
    }

    /// The bookkeeping of a free, without the barrier.
    pub fn release(&self, routine: &'static str, addr: usize) -> Result<()> {
        let off = addr.wrapping_sub(self.my_heap);
        let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
        if off < self.heap_size && heap.free(off) {
            Ok(())
        } else {
            Err(Error::InvalidFree { routine, addr })
        }
    }

    /// Collective realloc; returns the new address (which may equal the old one).
    pub fn sym_realloc(&self, routine: &'static str, addr: usize, size: usize) -> Result<Option<usize>> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        if addr == 0 {
            return self.sym_alloc(routine, size, 1);
        }
        if size == 0 {
            self.sym_free(routine, addr)?;
            return Ok(None);
        }
        // Everyone must be done with the old block before it moves.
        let off = addr.wrapping_sub(self.my_heap);
        self.agree_allocation(routine, &[off as i64, size as i64])?;
        let result = {
            let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
            match (off < self.heap_size).then(|| heap.block_len(off)).flatten() {
                None => Err(Error::InvalidFree { routine, addr }),
                Some(_) if heap.resize_in_place(off, size) => Ok(addr),
                Some(old_len) => match heap.alloc(size, 1) {
                    None => Err(Error::OutOfMemory {
                        routine,
                        size,
                        free: heap.free_bytes(),
                        capacity: heap.capacity(),
                    }),
                    Some(new_off) => {
                        let new = self.my_heap + new_off;
                        // SAFETY: both blocks lie in our mapped heap and are distinct live
                        // blocks; nobody else touches them between the barriers.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                addr as *const u8,
                                new as *mut u8,
                                old_len.min(size),
                            )
                        };
                        heap.free(off);
                        Ok(new)
                    }
                },
            }
        };
        self.barrier_all();
        result.map(Some)
    }

    /// Collective end of the OpenSHMEM part of the program.
    pub fn finalize(&self) {
        self.barrier_all_as("shmem_finalize");
        self.finalized.store(true, Ordering::SeqCst);
        self.publish_finished();
        // Under a PMIx launcher: every network operation is complete (the barrier quieted).
        // This PE stops running UCX, and a fence keeps every PE from exiting (closing its
        // connections) while another may still handle network traffic; UCX without error
        // handling ends a process whose peer vanished mid-protocol. The fence gives up after
        // a while, for programs whose PEs do not all finalize (a PE that returns early with a
        // status: the launcher then ends the job with it). Then tell the launcher this PE
        // ended properly, or it reports an abnormal end.
        let pmix = self.pmix.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (pmix, &self.net) {
            (Some(pmix), Some(net)) => {
                net.stop_progress();
                match pmix.fence_timeout(FINALIZE_FENCE_MS) {
                    Ok(true) => drop(pmix),
                    _ => pmix.abandon(),
                }
            }
            (pmix, _) => drop(pmix),
        }
    }

    /// Finalizes at process exit if the program did not (C programs register this with atexit);
    /// nothing when leaving through a global exit, whose other PEs are being stopped anyway.
    pub fn finalize_at_exit(&self) {
        if !self.exiting.load(Ordering::SeqCst) && !self.finalized.load(Ordering::SeqCst) {
            self.finalize();
        }
    }

    /// Ends the whole job with `status` (shmem_global_exit): recorded for oshrun, which stops
    /// the other PEs, then this process exits (running atexit handlers, flushing stdio).
    pub fn global_exit(&self, status: i32) -> ! {
        self.exiting.store(true, Ordering::SeqCst);
        HeaderView::new(&self.map).request_exit(self.my_pe, status);
        std::process::exit(status)
    }
}

/// Where a symmetric range of some PE is (see [`Runtime::target`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Mapped in this process at this address (a PE of this host).
    Mapped(usize),
    /// On a PE of another host: `offset` bytes into its `region`.
    Net { pe: usize, region: Region, offset: usize },
}

/// How long finalize waits for every PE of a job across hosts to finalize too.
const FINALIZE_FENCE_MS: u32 = 2000;

/// Status with which a PE ends the job after an error it cannot return to the caller.
pub const ERROR_EXIT_STATUS: i32 = 255;

/// Reports `err` on stderr, naming this PE, and ends the job. For C routines that return
/// nothing: the specification leaves their bad input undefined, and we prefer a clear stop.
#[cold]
pub fn fatal(err: &Error) -> ! {
    let p = RUNTIME.load(Ordering::Acquire);
    if p.is_null() {
        report_line(&format!("ferroshmem: {err}\n"));
        std::process::exit(ERROR_EXIT_STATUS);
    }
    // SAFETY: see `runtime`.
    let rt = unsafe { &*p };
    rt.report(format_args!("{err}"));
    if matches!(err, Error::Network { .. }) && rt.net.is_some() {
        // Most often the peer has just ended (a PE that returned a status, or died): its
        // launcher is ending the job with that PE's status and report. Give it the time to,
        // rather than ending the job first with ours.
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    rt.global_exit(ERROR_EXIT_STATUS)
}

impl Runtime {
    /// Prints `message` on stderr as a line naming this PE (`ferroshmem: PE n: ...`), in one
    /// write: the one reporter of the runtime and the C ABI.
    pub fn report(&self, message: std::fmt::Arguments) {
        report_line(&format!("ferroshmem: PE {}: {message}\n", self.my_pe));
    }
}

/// Writes a whole line to stderr in one write, so lines of different PEs never tear.
pub fn report_line(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Stops with a clear message when `len` bytes at `offset` would pass the end of a staging
/// area (an internal error: the collectives size what they stage).
fn check_stage_range(routine: &'static str, offset: usize, len: usize) {
    assert!(
        offset.checked_add(len).is_some_and(|end| end <= job::STAGE_BYTES),
        "{routine}: staging area overflow"
    );
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
            _ => Err(Error::Bootstrap(format!("{ENV_CORES}={v:?} is not a positive number of cores"))),
        },
    }
}

/// Environment variable overriding the cores that choose the algorithms (`runtime::algorithm_cores`).
pub const ENV_CORES: &str = "SHMEMX_CORES";

/// Where the flag of [`Runtime::put_stage_flagged`] is, in the receiver's team slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagWord {
    /// Word `n` of the slot's words.
    Slot(usize),
    /// Word `n` of the slot's staging area.
    Stage(usize),
}

/// How [`Runtime::post_words`] reaches a PE of another host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// One flagged message (`Net::put_flagged`): one send, the flag raised to at least its
    /// value. For flags that only grow and whose every message its receiver waits for.
    Message,
    /// The payload by a put, a fence, the flag by a put: ordered with this PE's later network
    /// operations by the fences they take (a `team_init` entry must land before its sender
    /// counts itself done, see `team::unique`).
    Puts,
}
