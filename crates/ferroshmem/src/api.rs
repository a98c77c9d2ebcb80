//! The safe Rust API.
//!
//! Memory model: symmetric memory is shared with other processes that may write it at any time
//! (puts, atomics). So this API never hands out `&[T]` or `&mut [T]` into symmetric memory:
//! local elements are read and written by value ([`SymSlice::read`], [`SymSlice::write`]), remote
//! ones by put/get/atomics taking a PE number. Ordering between PEs comes from barriers, quiet,
//! atomics and waits, as in OpenSHMEM; a plain local read that races with a remote put sees
//! either value or a mix of them for larger types, never undefined behaviour in the process.
#![allow(unsafe_code)]

use std::marker::PhantomData;

use crate::atomic::{self, AmoOp};
use crate::error::{Error, Result};
use crate::p2p::{self, Cmp, SignalOp, SyncWord};
use crate::rma;
use crate::runtime::{self, InitOptions, Runtime, ThreadLevel};

/// Plain data that may live in symmetric memory and be copied byte-wise between PEs.
///
/// # Safety
/// Every bit pattern written by another PE must be a valid value: implement only for plain
/// integer/float data without pointers or padding invariants.
pub unsafe trait Symmetric: Copy + Send + Sync + 'static {}

macro_rules! symmetric {
    ($($t:ty),*) => {$(
        // SAFETY: primitive numbers: every bit pattern is a valid value.
        unsafe impl Symmetric for $t {}
    )*};
}
symmetric!(i8, u8, i16, u16, i32, u32, i64, u64, i128, u128, isize, usize, f32, f64);
// SAFETY: arrays of plain data are plain data.
unsafe impl<T: Symmetric, const N: usize> Symmetric for [T; N] {}

/// Handle to the running OpenSHMEM job. Cheap to copy; every PE gets one from [`Shmem::init`].
#[derive(Debug, Clone, Copy)]
pub struct Shmem {
    rt: &'static Runtime,
}

impl Shmem {
    /// Starts (collectively) or joins the job. A program not started by `oshrun` is one PE.
    pub fn init() -> Result<Shmem> {
        Ok(Shmem { rt: runtime::start_or_join(InitOptions::default())? })
    }

    /// Starts the job requesting a thread level; returns the level provided (always `Multiple`).
    pub fn init_thread(_requested: ThreadLevel) -> Result<(Shmem, ThreadLevel)> {
        Ok((Self::init()?, ThreadLevel::Multiple))
    }

    /// This PE's number in the world team.
    pub fn my_pe(&self) -> usize {
        self.rt.my_pe
    }

    /// Number of PEs in the job.
    pub fn n_pes(&self) -> usize {
        self.rt.n_pes
    }

    /// Barrier over all PEs, completing every earlier memory operation.
    pub fn barrier_all(&self) {
        let _busy = self.rt.teams.world.claim("Shmem::barrier_all");
        self.rt.barrier_all_as("Shmem::barrier_all")
    }

    /// Synchronises all PEs (same as `barrier_all` on shared memory, where quiet is a fence).
    pub fn sync_all(&self) {
        let _busy = self.rt.teams.world.claim("Shmem::sync_all");
        self.rt.barrier_all_as("Shmem::sync_all")
    }

    /// Completes this PE's outstanding puts and atomics.
    pub fn quiet(&self) {
        self.rt.quiet()
    }

    /// Orders this PE's puts to each PE.
    pub fn fence(&self) {
        self.rt.fence()
    }

    /// Collectively allocates `len` zeroed elements on every PE. Every PE must call it with the
    /// same `len` at the same point of the program.
    pub fn alloc<T: Symmetric>(&self, len: usize) -> Result<SymSlice<T>> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::invalid("Shmem::alloc", "len", format!("{len} elements overflow")))?;
        let _busy = self.rt.teams.world.claim("Shmem::alloc");
        let addr = self.rt.sym_alloc_zeroed("Shmem::alloc", bytes.max(1), std::mem::align_of::<T>())?;
        Ok(SymSlice { addr, len, rt: self.rt, _t: PhantomData })
    }

    /// Ends the job on every PE with `status` (shmem_global_exit).
    pub fn global_exit(&self, status: i32) -> ! {
        self.rt.global_exit(status)
    }

    /// Test hook (hidden): how many waiting PEs sleep on the doorbell of PE `pe` now.
    #[doc(hidden)]
    pub fn sleepers_on(&self, pe: usize) -> Result<u32> {
        let pe = self.rt.check_pe("Shmem::sleepers_on", pe as i64)?;
        Ok(self.rt.ctrl.pe(pe).sleepers.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Test hook (hidden): waits as the runtime waits (spin, yield, then sleep on the doorbell
    /// of PE `pe`, which writes to that PE's memory ring) until `ready()` holds.
    #[doc(hidden)]
    pub fn wait_on(&self, pe: usize, ready: impl FnMut() -> bool) -> Result<()> {
        let pe = self.rt.check_pe("Shmem::wait_on", pe as i64)?;
        self.rt.wait_until(pe, ready);
        Ok(())
    }

    /// Collective end of OpenSHMEM use on this PE.
    pub fn finalize(self) {
        let _busy = self.rt.teams.world.claim("Shmem::finalize");
        self.rt.finalize()
    }
}

/// `len` elements of `T` at the same symmetric address on every PE.
///
/// Dropping releases the block on this PE without synchronising (Drop must not block). As with
/// `shmem_free`, every PE must release it at the same point of program order; use
/// [`SymSlice::free`] to also wait until no PE still uses it.
#[derive(Debug)]
pub struct SymSlice<T: Symmetric> {
    addr: usize,
    len: usize,
    rt: &'static Runtime,
    _t: PhantomData<T>,
}

impl<T: Symmetric> SymSlice<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Local address of the first element (for interoperation with raw routines).
    pub fn as_ptr(&self) -> *mut T {
        self.addr as *mut T
    }

    fn check(&self, routine: &'static str, offset: usize, count: usize) -> Result<()> {
        if offset.checked_add(count).is_none_or(|end| end > self.len) {
            return Err(Error::invalid(
                routine,
                "offset",
                format!("elements {offset}..{} exceed length {}", offset.saturating_add(count), self.len),
            ));
        }
        Ok(())
    }

    fn elem(&self, offset: usize) -> *mut T {
        (self.addr + offset * std::mem::size_of::<T>()) as *mut T
    }

    /// Reads local element `i`.
    pub fn read(&self, i: usize) -> Result<T> {
        self.check("SymSlice::read", i, 1)?;
        // SAFETY: in bounds of our live block; volatile because other PEs may write it.
        Ok(unsafe { std::ptr::read_volatile(self.elem(i)) })
    }

    /// Writes local element `i`.
    pub fn write(&self, i: usize, value: T) -> Result<()> {
        self.check("SymSlice::write", i, 1)?;
        // SAFETY: in bounds of our live block; volatile because other PEs may read it.
        unsafe { std::ptr::write_volatile(self.elem(i), value) };
        Ok(())
    }

    /// Copies the local elements out.
    pub fn to_vec(&self) -> Vec<T> {
        // SAFETY: every index is in bounds of our live block.
        (0..self.len).map(|i| unsafe { std::ptr::read_volatile(self.elem(i)) }).collect()
    }

    /// Puts `src` into elements `offset..` of this object on `pe`.
    pub fn put(&self, pe: usize, offset: usize, src: &[T]) -> Result<()> {
        self.check("SymSlice::put", offset, src.len())?;
        // SAFETY: src is a valid slice; the destination range is checked by rma::put.
        unsafe {
            rma::put(
                self.rt,
                "SymSlice::put",
                self.elem(offset).cast(),
                src.as_ptr().cast(),
                std::mem::size_of_val(src),
                pe as i64,
            )
        }
    }

    /// Gets elements `offset..offset + dst.len()` of this object on `pe` into `dst`.
    pub fn get(&self, pe: usize, offset: usize, dst: &mut [T]) -> Result<()> {
        self.check("SymSlice::get", offset, dst.len())?;
        // SAFETY: dst is a valid mutable slice; the source range is checked by rma::get.
        unsafe {
            rma::get(
                self.rt,
                "SymSlice::get",
                dst.as_mut_ptr().cast(),
                self.elem(offset).cast(),
                std::mem::size_of_val(dst),
                pe as i64,
            )
        }
    }

    /// Writes one element on `pe` (shmem_p).
    pub fn p(&self, pe: usize, i: usize, value: T) -> Result<()> {
        self.put(pe, i, std::slice::from_ref(&value))
    }

    /// Reads one element on `pe` (shmem_g).
    pub fn g(&self, pe: usize, i: usize) -> Result<T> {
        self.check("SymSlice::g", i, 1)?;
        let mut v = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: v is writable for one T; rma::get checks the source; all bit patterns of a
        // Symmetric type are valid, so the value is initialised after the copy.
        unsafe {
            rma::get(
                self.rt,
                "SymSlice::g",
                v.as_mut_ptr().cast(),
                self.elem(i).cast(),
                std::mem::size_of::<T>(),
                pe as i64,
            )?;
            Ok(v.assume_init())
        }
    }

    /// Address of element `i` on `pe`, mapped in this process (shmem_ptr).
    pub fn ptr(&self, pe: usize, i: usize) -> Result<*mut T> {
        self.check("SymSlice::ptr", i, 1)?;
        let pe = self.rt.check_pe("SymSlice::ptr", pe as i64)?;
        Ok(rma::ptr(self.rt, self.elem(i) as usize, pe as i64) as *mut T)
    }

    /// Collective free: waits until every PE is done with it.
    pub fn free(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        let _busy = me.rt.teams.world.claim("SymSlice::free");
        me.rt.sym_free("SymSlice::free", me.addr)
    }
}

impl<T: Symmetric> Drop for SymSlice<T> {
    fn drop(&mut self) {
        let _ = self.rt.release("SymSlice::drop", self.addr);
    }
}

/// Types that support atomic memory operations (32- and 64-bit integers).
pub trait AtomicValue: Symmetric + SyncWord {
    #[doc(hidden)]
    type Word: atomic::AmoWord;
    #[doc(hidden)]
    fn to_word(self) -> Self::Word;
    #[doc(hidden)]
    fn from_word(w: Self::Word) -> Self;
}

macro_rules! atomic_value {
    ($($t:ty => $w:ty),*) => {$(
        impl AtomicValue for $t {
            type Word = $w;
            fn to_word(self) -> $w { self as $w }
            fn from_word(w: $w) -> Self { w as $t }
        }
    )*};
}
atomic_value!(i32 => u32, u32 => u32, i64 => u64, u64 => u64);

impl<T: AtomicValue> SymSlice<T> {
    fn amo(&self, routine: &'static str, pe: usize, i: usize, op: AmoOp<T::Word>) -> Result<T> {
        self.check(routine, i, 1)?;
        // SAFETY: the element is in bounds; amo checks symmetry, the PE and alignment.
        unsafe { atomic::amo(self.rt, routine, self.elem(i) as *const T::Word, pe as i64, op) }
            .map(T::from_word)
    }

    /// Atomically reads element `i` on `pe`.
    pub fn atomic_fetch(&self, pe: usize, i: usize) -> Result<T> {
        self.amo("SymSlice::atomic_fetch", pe, i, AmoOp::Fetch)
    }
    /// Atomically sets element `i` on `pe`.
    pub fn atomic_set(&self, pe: usize, i: usize, v: T) -> Result<()> {
        self.amo("SymSlice::atomic_set", pe, i, AmoOp::Set(v.to_word())).map(|_| ())
    }
    /// Atomically swaps; returns the old value.
    pub fn atomic_swap(&self, pe: usize, i: usize, v: T) -> Result<T> {
        self.amo("SymSlice::atomic_swap", pe, i, AmoOp::Swap(v.to_word()))
    }
    /// Atomically replaces `cond` by `v`; returns the old value.
    pub fn atomic_compare_swap(&self, pe: usize, i: usize, cond: T, v: T) -> Result<T> {
        self.amo(
            "SymSlice::atomic_compare_swap",
            pe,
            i,
            AmoOp::CompareSwap { cond: cond.to_word(), value: v.to_word() },
        )
    }
    /// Atomically adds (wrapping); returns the old value.
    pub fn atomic_fetch_add(&self, pe: usize, i: usize, v: T) -> Result<T> {
        self.amo("SymSlice::atomic_fetch_add", pe, i, AmoOp::FetchAdd(v.to_word()))
    }
    /// Atomic bitwise and; returns the old value.
    pub fn atomic_fetch_and(&self, pe: usize, i: usize, v: T) -> Result<T> {
        self.amo("SymSlice::atomic_fetch_and", pe, i, AmoOp::FetchAnd(v.to_word()))
    }
    /// Atomic bitwise or; returns the old value.
    pub fn atomic_fetch_or(&self, pe: usize, i: usize, v: T) -> Result<T> {
        self.amo("SymSlice::atomic_fetch_or", pe, i, AmoOp::FetchOr(v.to_word()))
    }
    /// Atomic bitwise xor; returns the old value.
    pub fn atomic_fetch_xor(&self, pe: usize, i: usize, v: T) -> Result<T> {
        self.amo("SymSlice::atomic_fetch_xor", pe, i, AmoOp::FetchXor(v.to_word()))
    }

    /// Waits until local element `i` compares `cmp` to `value` (shmem_wait_until).
    pub fn wait_until(&self, i: usize, cmp: Cmp, value: T) -> Result<()> {
        self.check("SymSlice::wait_until", i, 1)?;
        // SAFETY: the element is live for the wait (we hold the slice).
        unsafe { p2p::wait_until(self.rt, "SymSlice::wait_until", self.elem(i) as *const T, cmp, value) }
    }

    /// Whether local element `i` compares `cmp` to `value` now (shmem_test).
    pub fn test(&self, i: usize, cmp: Cmp, value: T) -> Result<bool> {
        self.check("SymSlice::test", i, 1)?;
        // SAFETY: as above.
        unsafe { p2p::test(self.rt, "SymSlice::test", self.elem(i) as *const T, cmp, value) }
    }
}

impl<T: Symmetric> SymSlice<T> {
    /// Puts `src` at `offset` on `pe`, then updates `signal[sig_index]` there (shmem_put_signal).
    #[allow(clippy::too_many_arguments)]
    pub fn put_signal(
        &self,
        pe: usize,
        offset: usize,
        src: &[T],
        signal: &SymSlice<u64>,
        sig_index: usize,
        value: u64,
        op: SignalOp,
    ) -> Result<()> {
        self.check("SymSlice::put_signal", offset, src.len())?;
        signal.check("SymSlice::put_signal", sig_index, 1)?;
        // SAFETY: src is a valid slice; both destinations are checked by put_signal.
        unsafe {
            p2p::put_signal(
                self.rt,
                "SymSlice::put_signal",
                self.elem(offset).cast(),
                src.as_ptr().cast(),
                std::mem::size_of_val(src),
                signal.elem(sig_index),
                value,
                op,
                pe as i64,
            )
        }
    }
}

/// A distributed lock on a symmetric word (shmem_set_lock and friends).
#[derive(Debug)]
pub struct Lock {
    word: SymSlice<i64>,
}

impl Lock {
    /// Collectively creates a lock.
    pub fn new(shmem: &Shmem) -> Result<Lock> {
        Ok(Lock { word: shmem.alloc(1)? })
    }
    /// Blocks until this PE holds the lock; returns a guard that releases it.
    pub fn lock(&self) -> Result<LockGuard<'_>> {
        p2p::set_lock(self.word.rt, self.word.as_ptr())?;
        Ok(LockGuard { lock: self })
    }
    /// Takes the lock if it is free.
    pub fn try_lock(&self) -> Result<Option<LockGuard<'_>>> {
        Ok(p2p::test_lock(self.word.rt, self.word.as_ptr())?.then_some(LockGuard { lock: self }))
    }
}

/// Holds a [`Lock`]; releases it when dropped.
#[derive(Debug)]
pub struct LockGuard<'a> {
    lock: &'a Lock,
}

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        let _ = p2p::clear_lock(self.lock.word.rt, self.lock.word.as_ptr());
    }
}

pub use crate::p2p::Cmp as Compare;
pub use crate::p2p::SignalOp as Signal;
pub use crate::runtime::ThreadLevel as Threads;

pub use crate::team::TeamConfig;
use crate::team::{self as teams, Created, TeamHandle, TeamInner};
use std::sync::Arc;

/// A team (OpenSHMEM 1.5 §9.4). Team PE numbers are `usize` indices into the team; the world
/// numbers of the same PEs come from [`Team::world_pe`] / [`Team::translate_pe`].
///
/// [`Team::destroy`] is `shmem_team_destroy`: collective (a sync over the team, then the
/// release). Dropping a team that was not destroyed releases it on this PE without any
/// communication, so Drop never blocks or deadlocks (a PE unwinding alone is fine). The one
/// thing Drop cannot ensure is that the other members have finished their last collective on
/// the team; if a new team that excludes a lagging member could reuse the slot, call
/// `destroy()` (or sync a common parent) first. Predefined teams are never destroyed.
///
/// A team's collectives follow one another in its epoch order, so one thread at a time may use
/// it: `Team` is `Send` (move it into the thread that runs its collectives; threads that use
/// different teams run at once, `SHMEM_THREAD_MULTIPLE`) but not `Sync`, so two threads cannot
/// share it:
///
/// ```compile_fail,E0277
/// fn share(team: &ferroshmem::Team) {
///     std::thread::scope(|s| {
///         s.spawn(|| team.sync());
///         s.spawn(|| team.sync());
///     });
/// }
/// ```
/// ```no_run
/// fn per_thread(a: ferroshmem::Team, b: ferroshmem::Team) {
///     std::thread::scope(|s| {
///         s.spawn(move || a.sync());
///         s.spawn(move || b.sync());
///     });
/// }
/// ```
#[derive(Debug)]
pub struct Team {
    inner: Arc<TeamInner>,
    rt: &'static Runtime,
    /// Not `Sync` (see above); `Cell<()>` is `Send` and not `Sync`.
    _one_thread_at_a_time: PhantomData<std::cell::Cell<()>>,
}

/// Outcome of a split for this PE: `None` when it is not a member of the new team.
pub type SplitResult = Result<Option<Team>>;

/// A team creation in flight (UCC's post/test): complete it with [`TeamRequest::wait`] or
/// poll it with [`TeamRequest::test`]. Other collectives (on other teams) may run meanwhile;
/// the parent team may not be used for collectives until the request completes.
///
/// A creation is collective, so dropping a request in flight completes it (blocking, as
/// [`TeamRequest::wait`] does, until the other members have taken part) and then drops the
/// teams it made; otherwise the other members would wait for this PE for ever and its slot
/// reservations would leak. A thread that is unwinding from a panic does not block: it
/// leaves the request as it is.
#[derive(Debug)]
#[must_use = "a team creation must be completed with wait() or test()"]
pub struct TeamRequest {
    req: Option<teams::CreateRequest>,
    rt: &'static Runtime,
    /// The parent of a split, marked busy until the creation completes.
    parent: Option<teams::Claim>,
}

/// The teams a completed request made on this PE.
#[derive(Debug)]
pub enum NewTeams {
    /// A strided split or a split by color: the team, or `None` for a non-member.
    One(Option<Team>),
    /// split_2d: (x-axis team, y-axis team).
    Two(Team, Team),
}

impl TeamRequest {
    fn finish(rt: &'static Runtime, created: Created) -> NewTeams {
        match created {
            Created::One(t) => NewTeams::One(t.map(|inner| Team::new(inner, rt))),
            Created::Two(x, y) => NewTeams::Two(Team::new(x, rt), Team::new(y, rt)),
        }
    }

    /// Advances the creation; `Some` once it is complete on this PE.
    pub fn test(&mut self) -> Option<Result<NewTeams>> {
        let req = self.req.as_mut()?;
        req.poll(self.rt)?;
        let req = self.req.take()?;
        self.parent = None;
        Some(req.take().map(|c| Self::finish(self.rt, c)))
    }

    /// Completes the creation.
    pub fn wait(mut self) -> Result<NewTeams> {
        let req = self
            .req
            .take()
            .ok_or_else(|| Error::invalid("TeamRequest::wait", "request", "already completed"))?;
        req.wait(self.rt).map(|c| Self::finish(self.rt, c))
    }
}

impl Shmem {
    fn predefined(&self, handle: TeamHandle) -> Team {
        Team::new(self.rt.teams.get(handle).expect("predefined teams always exist"), self.rt)
    }

    /// `SHMEM_TEAM_WORLD`.
    pub fn team_world(&self) -> Team {
        self.predefined(TeamHandle::WORLD)
    }

    /// `SHMEM_TEAM_SHARED`: every PE that shares memory with this one (all of them, on one machine).
    pub fn team_shared(&self) -> Team {
        self.predefined(TeamHandle::SHARED)
    }

    /// `SHMEMX_TEAM_NODE`: the PEs of this node.
    pub fn team_node(&self) -> Team {
        self.predefined(TeamHandle::NODE)
    }

    /// `SHMEMX_TEAM_SAME_MYPE_NODE`: the PEs with this PE's node-local number, one per node.
    pub fn team_same_mype_node(&self) -> Team {
        self.predefined(TeamHandle::SAME_MYPE_NODE)
    }

    /// Draws a unique id for an arbitrary team (`shmemx_team_get_uniqueid`); this PE is its
    /// root and hands it to the members out of band (a put, a broadcast).
    pub fn team_uniqueid(&self) -> Result<u64> {
        teams::unique::get_uniqueid(self.rt)
    }

    /// Starts joining the arbitrary team `uniqueid` as member `pe_idx` of `npes`
    /// (`shmemx_team_init_nb`). Only the members call it; several may be in flight.
    pub fn team_init_nb(&self, uniqueid: u64, npes: usize, pe_idx: usize, config: TeamConfig) -> TeamRequest {
        // Counts beyond i64::MAX are out of range all the same (and refused as such).
        let (npes, pe_idx) =
            (i64::try_from(npes).unwrap_or(i64::MAX), i64::try_from(pe_idx).unwrap_or(i64::MAX));
        let req = teams::init_start(self.rt, "Shmem::team_init", uniqueid, npes, pe_idx, Ok(config));
        TeamRequest { req: Some(req), rt: self.rt, parent: None }
    }

    /// Joins the arbitrary team `uniqueid` as member `pe_idx` of `npes` (`shmemx_team_init`).
    pub fn team_init(&self, uniqueid: u64, npes: usize, pe_idx: usize, config: TeamConfig) -> Result<Team> {
        match self.team_init_nb(uniqueid, npes, pe_idx, config).wait()? {
            NewTeams::One(Some(t)) => Ok(t),
            _ => unreachable!("team_init makes this PE's team"),
        }
    }

    /// Teams in use on this PE, capacity, and bytes per team.
    pub fn team_usage(&self) -> teams::TeamUsage {
        self.rt.teams.usage()
    }
}

impl Drop for TeamRequest {
    fn drop(&mut self) {
        let Some(req) = self.req.take() else { return };
        if std::thread::panicking() {
            return;
        }
        // The teams made on this PE (if it succeeded) are dropped here, which releases them.
        drop(req.wait(self.rt).map(|c| Self::finish(self.rt, c)));
    }
}

impl Team {
    fn new(inner: Arc<TeamInner>, rt: &'static Runtime) -> Team {
        Team { inner, rt, _one_thread_at_a_time: PhantomData }
    }

    /// This PE's number in the team.
    pub fn my_pe(&self) -> usize {
        self.inner.my_index
    }

    /// Number of PEs in the team.
    pub fn n_pes(&self) -> usize {
        self.inner.n_pes()
    }

    /// World PE number of team PE `pe`.
    pub fn world_pe(&self, pe: usize) -> Option<usize> {
        (pe < self.n_pes()).then(|| self.inner.pes.world_pe(pe))
    }

    /// Number in `dest` of this team's PE `pe`, if it is a member there.
    pub fn translate_pe(&self, pe: usize, dest: &Team) -> Option<usize> {
        let r = teams::translate(&self.inner, pe as i64, &dest.inner);
        (r >= 0).then_some(r as usize)
    }

    /// Address in this process of element `i` of `data` on team PE `pe` (`shmem_team_ptr`):
    /// null when that memory cannot be reached with loads and stores from here. A PE number
    /// outside the team is an error.
    pub fn ptr<T: Symmetric>(&self, data: &SymSlice<T>, pe: usize, i: usize) -> Result<*mut T> {
        data.check("Team::ptr", i, 1)?;
        let world = self.world_pe(pe).ok_or(Error::InvalidPe {
            routine: "Team::ptr",
            pe: pe as i64,
            n_pes: self.n_pes(),
        })?;
        data.ptr(world, i)
    }

    /// The team's configuration.
    pub fn config(&self) -> TeamConfig {
        self.inner.config
    }

    /// Whether this is a predefined team.
    pub fn is_predefined(&self) -> bool {
        self.inner.handle().is_predefined()
    }

    /// The C handle of this team on this PE (for mixing with the C ABI).
    pub fn handle(&self) -> TeamHandle {
        self.inner.handle()
    }

    /// Synchronises the team's PEs (`shmem_team_sync`).
    pub fn sync(&self) -> Result<()> {
        let _busy = self.inner.claim("Team::sync");
        teams::team_sync(self.rt, &self.inner, "Team::sync")
    }

    /// Starts a strided split (relative to this team); see [`Team::split_strided`].
    pub fn split_strided_nb(&self, start: i64, stride: i64, size: i64, config: TeamConfig) -> TeamRequest {
        let parent = Some(self.inner.claim("Team::split_strided"));
        let req = teams::split_strided_start(
            self.rt,
            "Team::split_strided",
            self.inner.clone(),
            start,
            stride,
            size,
            Ok(config),
        );
        TeamRequest { req: Some(req), rt: self.rt, parent }
    }

    /// `shmem_team_split_strided`: members `start + i * stride` (team numbers of this team),
    /// `i < size`; the stride may be negative (reverse order) or 0 for a team of one.
    /// Collective over this team; `Err` on every PE if any PE fails.
    pub fn split_strided(&self, start: i64, stride: i64, size: i64, config: TeamConfig) -> SplitResult {
        match self.split_strided_nb(start, stride, size, config).wait()? {
            NewTeams::One(t) => Ok(t),
            NewTeams::Two(..) => unreachable!("a strided split makes one team"),
        }
    }

    /// Starts a 2D split; see [`Team::split_2d`].
    pub fn split_2d_nb(&self, xrange: i64, xconfig: TeamConfig, yconfig: TeamConfig) -> TeamRequest {
        let parent = Some(self.inner.claim("Team::split_2d"));
        let req = teams::split_2d_start(
            self.rt,
            "Team::split_2d",
            self.inner.clone(),
            xrange,
            Ok(xconfig),
            Ok(yconfig),
        );
        TeamRequest { req: Some(req), rt: self.rt, parent }
    }

    /// `shmem_team_split_2d`: (row team, column team) of a grid `xrange` wide.
    pub fn split_2d(&self, xrange: i64, xconfig: TeamConfig, yconfig: TeamConfig) -> Result<(Team, Team)> {
        match self.split_2d_nb(xrange, xconfig, yconfig).wait()? {
            NewTeams::Two(x, y) => Ok((x, y)),
            NewTeams::One(_) => unreachable!("split_2d makes two teams"),
        }
    }

    /// Starts a split by color and key; see [`Team::split_color`].
    pub fn split_color_nb(&self, color: Option<u32>, key: i64, config: TeamConfig) -> TeamRequest {
        let parent = Some(self.inner.claim("Team::split_color"));
        let req = teams::split_color_start(
            self.rt,
            "Team::split_color",
            self.inner.clone(),
            Ok(color),
            key,
            Ok(config),
        );
        TeamRequest { req: Some(req), rt: self.rt, parent }
    }

    /// `shmemx_team_split_color` (like `MPI_Comm_split`): every PE of this team calls it; the
    /// PEs that pass the same `color` form one team, ordered by `key` and then by their number
    /// in this team. `None` (`SHMEMX_COLOR_UNDEFINED`) joins no team and gets `Ok(None)`. One
    /// collective call makes all the teams; `Err` on every PE if any PE fails.
    pub fn split_color(&self, color: Option<u32>, key: i64, config: TeamConfig) -> SplitResult {
        match self.split_color_nb(color, key, config).wait()? {
            NewTeams::One(t) => Ok(t),
            NewTeams::Two(..) => unreachable!("a split by color makes one team per PE"),
        }
    }

    /// Destroys the team (`shmem_team_destroy`): collective, a sync over the team then the
    /// release of its resources. Predefined teams are refused.
    pub fn destroy(self) -> Result<()> {
        let _busy = self.inner.claim("Team::destroy");
        // Drop then finds the handle stale and does nothing.
        teams::destroy(self.rt, self.inner.handle(), "Team::destroy")
    }

    /// The team object (crate-private: its epochs are the team's collective protocol).
    pub(crate) fn inner(&self) -> &Arc<TeamInner> {
        &self.inner
    }

    /// The runtime this team belongs to (crate-private, as [`runtime::runtime`] is unsafe).
    pub(crate) fn rt(&self) -> &'static Runtime {
        self.rt
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        if !self.is_predefined() {
            let _ = self.rt.teams.destroy(self.inner.handle());
        }
    }
}
