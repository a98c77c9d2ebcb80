//! The safe Rust API.
//!
//! Memory model: symmetric memory is shared with other processes that may write it at any time
//! (puts, atomics), and a [`SymSlice`] is shared between threads. So this API never hands out
//! `&[T]` or `&mut [T]` into symmetric memory: local elements are read and written by value
//! ([`SymSlice::read`], [`SymSlice::write`]), remote ones by put/get/atomics taking a PE
//! number, and those accesses are atomic (see "Data races" on [`SymSlice`]). Ordering between
//! PEs comes from barriers, quiet, atomics and waits, as in OpenSHMEM.
#![allow(unsafe_code)]

use std::marker::PhantomData;

use crate::atomic::{self, AmoOp};
use crate::error::{Error, Result};
use crate::p2p::{self, Cmp, SignalOp, SyncWord};
use crate::racefree;
use crate::rma;
use crate::runtime::{InitOptions, Runtime, Target, ThreadLevel};
use crate::start;

pub use crate::racefree::Symmetric;

/// Handle to the running OpenSHMEM job; every PE gets one from [`Shmem::init`].
///
/// Everything made through it (symmetric slices, teams, team requests, locks) borrows it, and
/// [`Shmem::finalize`] takes it by value, so no handle can be used after finalize: that does
/// not compile.
///
/// ```compile_fail,E0505
/// let shmem = ferroshmem::Shmem::init().unwrap();
/// let data = shmem.alloc::<u64>(4).unwrap();
/// shmem.finalize();
/// data.p(0, 0, 1).unwrap(); // RMA after finalize
/// ```
/// ```compile_fail,E0505
/// let shmem = ferroshmem::Shmem::init().unwrap();
/// let world = shmem.team_world();
/// shmem.finalize();
/// world.sync().unwrap(); // a collective after finalize
/// ```
/// ```compile_fail,E0505
/// let shmem = ferroshmem::Shmem::init().unwrap();
/// let request = shmem.team_world().split_strided_nb(0, 1, 1, Default::default());
/// shmem.finalize();
/// let _ = request.wait(); // a team creation completed after finalize
/// ```
/// ```compile_fail,E0505
/// let shmem = ferroshmem::Shmem::init().unwrap();
/// let lock = ferroshmem::Lock::new(&shmem).unwrap();
/// shmem.finalize();
/// let _guard = lock.lock(); // a lock taken after finalize
/// ```
/// ```compile_fail,E0382
/// let shmem = ferroshmem::Shmem::init().unwrap();
/// let copy = shmem; // moves: Shmem is neither Copy nor Clone
/// shmem.finalize();
/// ```
///
/// What is allowed: threads borrow the handle (scoped threads), each with its own teams.
///
/// ```no_run
/// let shmem = ferroshmem::Shmem::init().unwrap();
/// let world = shmem.team_world();
/// let (row, col) = world.split_2d(2, Default::default(), Default::default()).unwrap();
/// let data = shmem.alloc::<u64>(8).unwrap();
/// std::thread::scope(|s| {
///     s.spawn(move || row.sync().unwrap()); // a Team moves (Send, not Sync)
///     s.spawn(move || col.sync().unwrap());
///     s.spawn(|| data.write(shmem.my_pe(), 1).unwrap()); // slices and Shmem are shared
/// });
/// drop(world);
/// data.free().unwrap();
/// shmem.finalize();
/// ```
///
/// A process holds one `Shmem` at a time ([`Shmem::init`] fails while one is alive; dropping it
/// without finalize lets a later `init` join the running job again), so finalize through one
/// handle can never leave another's borrowers running. Share it between threads by reference
/// (it is `Sync`): teams and slices borrowed from it move into scoped threads.
#[derive(Debug)]
pub struct Shmem {
    rt: &'static Runtime,
}

/// Whether this process holds a [`Shmem`] now (see its documentation).
static HELD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Shmem {
    /// Starts (collectively) or joins the job. A program not started by `oshrun` is one PE.
    /// Fails while this process holds another `Shmem`, and after [`Shmem::finalize`].
    pub fn init() -> Result<Shmem> {
        use std::sync::atomic::Ordering;
        if HELD.swap(true, Ordering::AcqRel) {
            return Err(Error::invalid(
                "Shmem::init",
                "Shmem",
                "this process already holds a Shmem: pass that one by reference (one per process, \
                 so that finalize(self) ends every use)",
            ));
        }
        match start::start_or_join(InitOptions::default()) {
            Ok(rt) => Ok(Shmem { rt }),
            Err(e) => {
                HELD.store(false, Ordering::Release);
                Err(e)
            }
        }
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
        let _busy = self.rt.teams().world.claim("Shmem::barrier_all");
        self.rt.barrier_all_as("Shmem::barrier_all")
    }

    /// Synchronises all PEs (same as `barrier_all` on shared memory, where quiet is a fence).
    pub fn sync_all(&self) {
        let _busy = self.rt.teams().world.claim("Shmem::sync_all");
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
    ///
    /// A `len` whose size in bytes overflows fails on this PE before any communication; in
    /// checked mode this PE still joins the allocation's checked barrier, so every PE returns
    /// the same error (otherwise the others wait for it when they passed another `len`).
    pub fn alloc<T: Symmetric>(&self, len: usize) -> Result<SymSlice<'_, T>> {
        const R: &str = "Shmem::alloc";
        let _busy = self.rt.teams().world.claim(R);
        let inputs =
            [ferroshmem_core::coll::local_checks::ALLOC, std::mem::size_of::<T>() as u64, len as u64];
        let bytes = match ferroshmem_core::coll::local_checks::local_checks(self.rt.n_pes, &inputs) {
            Ok(bytes) => bytes,
            Err(e) if self.rt.checked => {
                let failed = crate::team::checked::Signature::failed(R, &inputs);
                let agreed = crate::team::checked::check_call(self.rt, &self.rt.teams().world, &failed);
                return Err(agreed.err().unwrap_or(e));
            }
            Err(e) => return Err(e),
        };
        let addr = self.rt.sym_alloc_zeroed("Shmem::alloc", bytes.max(1), std::mem::align_of::<T>())?;
        Ok(SymSlice { addr, len, rt: self.rt, _shmem: PhantomData, _t: PhantomData })
    }

    /// Ends the job on every PE with `status` (shmem_global_exit).
    pub fn global_exit(&self, status: i32) -> ! {
        self.rt.global_exit(status)
    }

    /// Test hook (hidden): how many waiting PEs sleep on the doorbell of PE `pe` now.
    #[doc(hidden)]
    pub fn sleepers_on(&self, pe: usize) -> Result<u32> {
        let pe = self.rt.check_pe("Shmem::sleepers_on", pe as i64)?;
        Ok(self.rt.sleepers_on(pe))
    }

    /// Test hook (hidden): waits as the runtime waits (spin, yield, then sleep on the doorbell
    /// of PE `pe`, which writes to that PE's memory ring) until `ready()` holds.
    #[doc(hidden)]
    pub fn wait_on(&self, pe: usize, ready: impl FnMut() -> bool) -> Result<()> {
        let pe = self.rt.check_pe("Shmem::wait_on", pe as i64)?;
        self.rt.wait_until(pe, ready);
        Ok(())
    }

    /// Collective end of OpenSHMEM use on this PE. Takes the handle: every slice, team and
    /// request borrowed from it must be gone (freed, destroyed or dropped) first.
    pub fn finalize(self) {
        let _busy = self.rt.teams().world.claim("Shmem::finalize");
        self.rt.finalize()
    }
}

impl Drop for Shmem {
    fn drop(&mut self) {
        // Its borrowers are gone: another `init` may hand out a handle again (and fails if
        // this one finalized).
        HELD.store(false, std::sync::atomic::Ordering::Release);
    }
}

/// `len` elements of `T` at the same symmetric address on every PE.
///
/// # Data races
///
/// A `SymSlice` is `Sync`, and other PEs write its memory whenever they like, so two accesses
/// to one element can always meet. What is a data race (undefined behaviour in Rust) and what
/// is not:
///
/// - **Not a data race**: [`read`](SymSlice::read), [`write`](SymSlice::write),
///   [`to_vec`](SymSlice::to_vec), [`p`](SymSlice::p), [`g`](SymSlice::g) (Relaxed atomic
///   loads and stores of each element: one access for the 1, 2, 4 and 8-byte types, words of
///   its alignment for wider ones), [`put`](SymSlice::put), [`get`](SymSlice::get) and the
///   payload of [`put_signal`](SymSlice::put_signal) (a byte-wise atomic copy, as fast as
///   `memcpy`), the `atomic_*` operations, the lock, and
///   [`wait_until`](SymSlice::wait_until) / [`test`](SymSlice::test), whoever touches the
///   same elements meanwhile: another thread, another PE, this PE's own puts. What such a
///   race may give is a value written by one of the writers or, for an element wider than its
///   alignment word (`u128`, arrays) or a block, a mix of their words or bytes: always a valid
///   value ([`Symmetric`]), but OpenSHMEM calls such programs erroneous, and ordering still
///   comes from barriers, quiet, fences, atomics and waits. No fence is added: every access
///   is as cheap as before (a `mov` for one word).
/// - **Excluded by the types**: the collectives ([`Team::broadcast`], `reduce`, ...) copy with
///   plain `memcpy` (the code the C API shares, whose speed docs/PERFORMANCE.md measures
///   against Open MPI), so they take `dest` and `src` by `&mut`: a `SymSlice` is the only
///   handle of its block in this process, so no other thread can touch any PE's copy of them
///   while the call runs (`broadcast_in_place` and `reduce_in_place` for one slice). Other PEs
///   (other processes) touching them then is an erroneous program with mixed bytes, not a
///   race in this process.
/// - **Still a data race**, as any raw pointer allows: writing through [`SymSlice::as_ptr`],
///   [`SymSlice::ptr`] or [`Team::ptr`] (`unsafe`) while a safe access runs.
///
/// Dropping never blocks and may happen on any thread at any time: the block is released only
/// once every PE has dropped it, at the closing all-reduce of a later collective allocation or
/// free (which releases the same blocks on every PE, so the heaps stay symmetric however the
/// drops and the allocations of different threads interleave). Until then it stays allocated
/// (a PE that never drops it keeps it from being reused). [`SymSlice::free`] is the
/// collective `shmem_free`: it releases the block at once, after a barrier.
#[derive(Debug)]
pub struct SymSlice<'s, T: Symmetric> {
    addr: usize,
    len: usize,
    rt: &'static Runtime,
    /// Borrows the [`Shmem`] it came from, so it cannot outlive finalize.
    _shmem: PhantomData<&'s Shmem>,
    _t: PhantomData<T>,
}

impl<T: Symmetric> SymSlice<'_, T> {
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

    /// Reads local element `i` (an atomic load: see "Data races" above).
    pub fn read(&self, i: usize) -> Result<T> {
        self.check("SymSlice::read", i, 1)?;
        // SAFETY: in bounds of our live block, aligned for T; the safe API's accesses to it
        // are all atomic (racefree).
        Ok(unsafe { racefree::load(self.elem(i)) })
    }

    /// Writes local element `i` (an atomic store: see "Data races" above).
    pub fn write(&self, i: usize, value: T) -> Result<()> {
        self.check("SymSlice::write", i, 1)?;
        // SAFETY: as in `read`.
        unsafe { racefree::store(self.elem(i), value) };
        Ok(())
    }

    /// Copies the local elements out (element by element, as [`SymSlice::read`]).
    pub fn to_vec(&self) -> Vec<T> {
        // SAFETY: every index is in bounds of our live block; as in `read`.
        (0..self.len).map(|i| unsafe { racefree::load(self.elem(i)) }).collect()
    }

    /// Puts `src` into elements `offset..` of this object on `pe` (a byte-wise atomic copy
    /// on this host: see "Data races" above).
    pub fn put(&self, pe: usize, offset: usize, src: &[T]) -> Result<()> {
        self.put_as("SymSlice::put", pe, offset, src)
    }

    /// [`SymSlice::put`] reporting errors as routine `R`.
    fn put_as(&self, routine: &'static str, pe: usize, offset: usize, src: &[T]) -> Result<()> {
        self.check(routine, offset, src.len())?;
        let n = std::mem::size_of_val(src);
        match self.rt.target(routine, self.elem(offset) as usize, n, pe as i64)? {
            Target::Mapped(_) if n == 0 => Ok(()),
            Target::Mapped(to) => {
                // SAFETY: `to` is PE `pe`'s copy of the checked range, mapped here for n
                // bytes; `src` is a Rust slice, which cannot overlap symmetric memory.
                unsafe { racefree::copy(to as *mut u8, src.as_ptr().cast(), n) };
                self.rt.notify_after_copy(pe, n);
                Ok(())
            }
            // SAFETY: src is a valid slice; the destination range is checked by rma::put
            // (another host: the network writes the other process's memory).
            Target::Net { .. } => unsafe {
                rma::put(self.rt, routine, self.elem(offset).cast(), src.as_ptr().cast(), n, pe as i64)
            },
        }
    }

    /// Gets elements `offset..offset + dst.len()` of this object on `pe` into `dst` (a
    /// byte-wise atomic copy on this host: see "Data races" above).
    pub fn get(&self, pe: usize, offset: usize, dst: &mut [T]) -> Result<()> {
        const R: &str = "SymSlice::get";
        self.check(R, offset, dst.len())?;
        let n = std::mem::size_of_val(dst);
        match self.rt.target(R, self.elem(offset) as usize, n, pe as i64)? {
            Target::Mapped(_) if n == 0 => Ok(()),
            Target::Mapped(from) => {
                // SAFETY: `from` is PE `pe`'s copy of the checked range, mapped here for n
                // bytes; `dst` is an exclusive Rust slice; every bit pattern is a valid T.
                unsafe { racefree::copy(dst.as_mut_ptr().cast(), from as *const u8, n) };
                Ok(())
            }
            // SAFETY: dst is a valid mutable slice; the source range is checked by rma::get.
            Target::Net { .. } => unsafe {
                rma::get(self.rt, R, dst.as_mut_ptr().cast(), self.elem(offset).cast(), n, pe as i64)
            },
        }
    }

    /// Writes one element on `pe` (shmem_p; on this host an atomic store: see "Data races"
    /// above).
    #[inline]
    pub fn p(&self, pe: usize, i: usize, value: T) -> Result<()> {
        const R: &str = "SymSlice::put";
        self.check(R, i, 1)?;
        let n = std::mem::size_of::<T>();
        match self.rt.target(R, self.elem(i) as usize, n, pe as i64)? {
            Target::Mapped(to) => {
                // SAFETY: `to` is element i of PE `pe`'s copy, mapped here and aligned for T
                // (same offset in an aligned heap); the safe API's accesses to it are atomic.
                unsafe { racefree::store(to as *mut T, value) };
                self.rt.notify(pe);
                Ok(())
            }
            // SAFETY: value is one readable T; rma::put checks the destination.
            Target::Net { .. } => unsafe {
                rma::put(self.rt, R, self.elem(i).cast(), (&value as *const T).cast(), n, pe as i64)
            },
        }
    }

    /// Reads one element on `pe` (shmem_g; on this host an atomic load: see "Data races"
    /// above).
    #[inline]
    pub fn g(&self, pe: usize, i: usize) -> Result<T> {
        const R: &str = "SymSlice::g";
        self.check(R, i, 1)?;
        let n = std::mem::size_of::<T>();
        match self.rt.target(R, self.elem(i) as usize, n, pe as i64)? {
            // SAFETY: as in `p`, for a load.
            Target::Mapped(from) => Ok(unsafe { racefree::load(from as *const T) }),
            Target::Net { .. } => {
                let mut v = std::mem::MaybeUninit::<T>::uninit();
                // SAFETY: v is writable for one T; rma::get checks the source; all bit
                // patterns of a Symmetric type are valid, so v is initialised after the copy.
                unsafe {
                    rma::get(self.rt, R, v.as_mut_ptr().cast(), self.elem(i).cast(), n, pe as i64)?;
                    Ok(v.assume_init())
                }
            }
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
        let _busy = me.rt.teams().world.claim("SymSlice::free");
        me.rt.sym_free("SymSlice::free", me.addr)
    }
}

impl<T: Symmetric> Drop for SymSlice<'_, T> {
    fn drop(&mut self) {
        // Not released here: a drop is not a collective call, and may run on any thread at
        // any time; the block is released once every PE has dropped it (`runtime::alloc`).
        self.rt.release_when_all_dropped(self.addr);
    }
}

/// Types that support atomic memory operations (32- and 64-bit integers).
///
/// Sealed: the atomics act on `Self::Word` at the element's address, so an implementation
/// whose word is wider than the type would write past the element. Only this crate
/// implements it; another type does not compile:
///
/// ```compile_fail,E0277
/// use ferroshmem::AtomicValue;
/// #[derive(Clone, Copy, PartialEq, PartialOrd)]
/// struct Byte(u8);
/// // SAFETY: one plain byte.
/// unsafe impl ferroshmem::Symmetric for Byte {}
/// impl ferroshmem::p2p::SyncWord for Byte {
///     unsafe fn load(p: *const Self) -> Self {
///         // SAFETY: the caller's contract.
///         unsafe { *p }
///     }
/// }
/// impl AtomicValue for Byte {
///     type Word = u64; // 8 bytes for a 1-byte element
///     fn to_word(self) -> u64 {
///         self.0 as u64
///     }
///     fn from_word(w: u64) -> Self {
///         Byte(w as u8)
///     }
/// }
/// ```
pub trait AtomicValue: Symmetric + SyncWord + sealed::Sealed {
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

/// The seal of [`AtomicValue`]: a public trait in a private module, so that no other crate
/// can name it, and so implement it.
mod sealed {
    #[allow(unreachable_pub)]
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for i64 {}
    impl Sealed for u64 {}
}

impl<T: AtomicValue> SymSlice<'_, T> {
    #[inline]
    fn amo(&self, routine: &'static str, pe: usize, i: usize, op: AmoOp<T::Word>) -> Result<T> {
        // The atomics act on a word at the element's address: it must be the element's size.
        const { assert!(std::mem::size_of::<T>() == std::mem::size_of::<T::Word>()) };
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

impl<T: Symmetric> SymSlice<'_, T> {
    /// Puts `src` at `offset` on `pe`, then updates `signal[sig_index]` there (shmem_put_signal).
    /// The payload is copied as [`SymSlice::put`] copies (byte-wise atomic), the signal by an
    /// atomic operation, which orders the payload before it.
    #[allow(clippy::too_many_arguments)]
    pub fn put_signal(
        &self,
        pe: usize,
        offset: usize,
        src: &[T],
        signal: &SymSlice<'_, u64>,
        sig_index: usize,
        value: u64,
        op: SignalOp,
    ) -> Result<()> {
        const R: &str = "SymSlice::put_signal";
        self.check(R, offset, src.len())?;
        signal.check(R, sig_index, 1)?;
        // Check the signal word before moving data, so bad input changes nothing.
        let signal_target = self.rt.target(R, signal.elem(sig_index) as usize, 8, pe as i64)?;
        self.put_as(R, pe, offset, src)?;
        if let Target::Net { .. } = signal_target {
            // The network does not order a put before a later atomic by itself.
            self.rt.fence();
        }
        let op = match op {
            SignalOp::Set => AmoOp::Set(value),
            SignalOp::Add => AmoOp::FetchAdd(value),
        };
        // SAFETY: the element is in bounds; amo checks symmetry, the PE and alignment.
        unsafe { atomic::amo(self.rt, R, signal.elem(sig_index) as *const u64, pe as i64, op) }.map(|_| ())
    }
}

/// A distributed lock on a symmetric word (shmem_set_lock and friends).
#[derive(Debug)]
pub struct Lock<'s> {
    word: SymSlice<'s, i64>,
}

impl<'s> Lock<'s> {
    /// Collectively creates a lock.
    pub fn new(shmem: &'s Shmem) -> Result<Lock<'s>> {
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
    lock: &'a Lock<'a>,
}

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        let _ = p2p::clear_lock(self.lock.word.rt, self.lock.word.as_ptr());
    }
}

pub use crate::p2p::Cmp as Compare;
pub use crate::p2p::SignalOp as Signal;
pub use crate::runtime::ThreadLevel as Threads;

mod team;
pub use team::*;
