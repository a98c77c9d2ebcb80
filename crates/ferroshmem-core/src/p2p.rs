//! Point-to-point synchronisation: waiting on local symmetric variables, signals, locks.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use crate::atomic::{amo, AmoOp, AmoWord};
use crate::error::{Error, Result};
use crate::runtime::Runtime;

/// Comparison operators (`SHMEM_CMP_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Cmp {
    Eq = 0,
    Ne = 1,
    Gt = 2,
    Ge = 3,
    Lt = 4,
    Le = 5,
}

impl Cmp {
    /// `lhs <cmp> rhs`.
    #[inline]
    pub fn holds<T: PartialOrd>(self, lhs: T, rhs: T) -> bool {
        match self {
            Cmp::Eq => lhs == rhs,
            Cmp::Ne => lhs != rhs,
            Cmp::Gt => lhs > rhs,
            Cmp::Ge => lhs >= rhs,
            Cmp::Lt => lhs < rhs,
            Cmp::Le => lhs <= rhs,
        }
    }
}

/// A type that point-to-point routines can watch: loaded atomically.
pub trait SyncWord: Copy + PartialOrd {
    /// Atomic acquire load.
    ///
    /// # Safety
    /// `p` must be mapped and aligned.
    unsafe fn load(p: *const Self) -> Self;
}

macro_rules! sync_word {
    ($($t:ty => $atomic:ty as $bits:ty),* $(,)?) => {$(
        impl SyncWord for $t {
            #[inline]
            unsafe fn load(p: *const Self) -> Self {
                // SAFETY: mapped and aligned (caller); same size as the atomic type.
                unsafe { <$atomic>::from_ptr(p as *mut $bits).load(Ordering::Acquire) as $t }
            }
        }
    )*};
}
sync_word!(i16 => AtomicU16 as u16, u16 => AtomicU16 as u16, i32 => AtomicU32 as u32, u32 => AtomicU32 as u32,
           i64 => AtomicU64 as u64, u64 => AtomicU64 as u64);

fn check_local<T>(rt: &Runtime, routine: &'static str, ivar: *const T) -> Result<()> {
    if !(ivar as usize).is_multiple_of(std::mem::align_of::<T>()) || ivar.is_null() {
        return Err(Error::invalid(routine, "ivar", format!("{:#x} is null or misaligned", ivar as usize)));
    }
    let _ = rt;
    Ok(())
}

/// Waits until `*ivar <cmp> value`.
///
/// # Safety
/// `ivar` must point to a live variable of this PE for the whole wait.
pub unsafe fn wait_until<T: SyncWord>(
    rt: &Runtime,
    routine: &'static str,
    ivar: *const T,
    cmp: Cmp,
    value: T,
) -> Result<()> {
    check_local(rt, routine, ivar)?;
    let _call = rt.enter_call_as(routine, None);
    // SAFETY: ivar is live and aligned (caller, check_local).
    rt.wait_until(rt.my_pe, || cmp.holds(unsafe { T::load(ivar) }, value));
    Ok(())
}

/// Whether `*ivar <cmp> value` holds now.
///
/// # Safety
/// As [`wait_until`].
pub unsafe fn test<T: SyncWord>(
    rt: &Runtime,
    routine: &'static str,
    ivar: *const T,
    cmp: Cmp,
    value: T,
) -> Result<bool> {
    check_local(rt, routine, ivar)?;
    // SAFETY: as above.
    Ok(rt.after_test(cmp.holds(unsafe { T::load(ivar) }, value)))
}

/// One array of watched variables with its status mask and per-element comparison values.
#[derive(Debug, Clone, Copy)]
pub struct WaitSet<T> {
    pub ivars: *const T,
    pub nelems: usize,
    /// Null, or `nelems` flags: nonzero excludes the element.
    pub status: *const i32,
    pub cmp: Cmp,
    /// Either one value for all, or `nelems` values (vector forms).
    pub values: *const T,
    pub vector: bool,
}

impl<T: SyncWord> WaitSet<T> {
    /// # Safety
    /// The pointers must be valid for `nelems` elements.
    unsafe fn included(&self, i: usize) -> bool {
        // SAFETY: i < nelems (callers), status valid for nelems when non-null.
        self.status.is_null() || unsafe { *self.status.add(i) } == 0
    }

    /// # Safety
    /// As `included`.
    unsafe fn satisfied(&self, i: usize) -> bool {
        // SAFETY: i < nelems; arrays valid for nelems (caller of the public routines).
        unsafe {
            let v = if self.vector { *self.values.add(i) } else { *self.values };
            self.cmp.holds(T::load(self.ivars.add(i)), v)
        }
    }

    /// # Safety
    /// As `included`.
    unsafe fn all(&self) -> bool {
        // SAFETY: i < nelems.
        (0..self.nelems).all(|i| unsafe { !self.included(i) || self.satisfied(i) })
    }

    /// # Safety
    /// As `included`.
    unsafe fn any(&self, cursor: &AtomicUsize) -> Option<usize> {
        if self.nelems == 0 {
            return None;
        }
        // Start after the index the previous call returned, so that repeated calls visit every
        // satisfied element instead of the first one forever.
        let start = cursor.load(Ordering::Relaxed) % self.nelems;
        let found = (start..self.nelems)
            .chain(0..start)
            // SAFETY: i < nelems.
            .find(|&i| unsafe { self.included(i) && self.satisfied(i) })?;
        cursor.store(found + 1, Ordering::Relaxed);
        Some(found)
    }

    /// # Safety
    /// As `included`; `indices` valid for nelems.
    unsafe fn some(&self, indices: *mut usize) -> usize {
        let mut n = 0;
        for i in 0..self.nelems {
            // SAFETY: i < nelems; indices has room for nelems entries.
            unsafe {
                if self.included(i) && self.satisfied(i) {
                    *indices.add(n) = i;
                    n += 1;
                }
            }
        }
        n
    }

    fn has_included(&self) -> bool {
        // SAFETY: i < nelems.
        (0..self.nelems).any(|i| unsafe { self.included(i) })
    }
}

/// `wait_until_all[_vector]`.
///
/// # Safety
/// The set's pointers must be valid for its `nelems` elements during the wait.
pub unsafe fn wait_all<T: SyncWord>(rt: &Runtime, set: &WaitSet<T>) {
    // SAFETY: forwarded contract.
    rt.wait_until(rt.my_pe, || unsafe { set.all() });
}

/// Where the next `wait_until_any[_vector]` search starts (one past the index it last returned).
static WAIT_ANY_CURSOR: AtomicUsize = AtomicUsize::new(0);
/// Where the next `test_any[_vector]` search starts.
static TEST_ANY_CURSOR: AtomicUsize = AtomicUsize::new(0);

/// `wait_until_any[_vector]`: the index of a satisfied element, or `usize::MAX` when all are
/// excluded (or there are none).
///
/// # Safety
/// As [`wait_all`].
pub unsafe fn wait_any<T: SyncWord>(rt: &Runtime, set: &WaitSet<T>) -> usize {
    if !set.has_included() {
        return usize::MAX;
    }
    let mut found = usize::MAX;
    rt.wait_until(rt.my_pe, || {
        // SAFETY: forwarded contract.
        match unsafe { set.any(&WAIT_ANY_CURSOR) } {
            Some(i) => {
                found = i;
                true
            }
            None => false,
        }
    });
    found
}

/// `wait_until_some[_vector]`: how many satisfied elements, their indices in `indices`.
///
/// # Safety
/// As [`wait_all`]; `indices` valid for `nelems` entries.
pub unsafe fn wait_some<T: SyncWord>(rt: &Runtime, set: &WaitSet<T>, indices: *mut usize) -> usize {
    if !set.has_included() {
        return 0;
    }
    let mut n = 0;
    rt.wait_until(rt.my_pe, || {
        // SAFETY: forwarded contract.
        n = unsafe { set.some(indices) };
        n > 0
    });
    n
}

/// `test_all[_vector]`.
///
/// # Safety
/// As [`wait_all`].
pub unsafe fn test_all<T: SyncWord>(rt: &Runtime, set: &WaitSet<T>) -> bool {
    // SAFETY: forwarded contract.
    rt.after_test(unsafe { set.all() })
}

/// `test_any[_vector]`: index or `usize::MAX`.
///
/// # Safety
/// As [`wait_all`].
pub unsafe fn test_any<T: SyncWord>(rt: &Runtime, set: &WaitSet<T>) -> usize {
    // SAFETY: forwarded contract.
    let found = unsafe { set.any(&TEST_ANY_CURSOR) };
    rt.after_test(found.is_some());
    found.unwrap_or(usize::MAX)
}

/// `test_some[_vector]`.
///
/// # Safety
/// As [`wait_some`].
pub unsafe fn test_some<T: SyncWord>(rt: &Runtime, set: &WaitSet<T>, indices: *mut usize) -> usize {
    // SAFETY: forwarded contract.
    let found = unsafe { set.some(indices) };
    rt.after_test(found > 0);
    found
}

/// Signal operators (`SHMEM_SIGNAL_SET`, `SHMEM_SIGNAL_ADD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalOp {
    Set,
    Add,
}

/// Put with signal: the data is visible before the signal (SeqCst AMO after the copy).
///
/// # Safety
/// As [`crate::rma::put`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn put_signal(
    rt: &Runtime,
    routine: &'static str,
    dest: *mut u8,
    src: *const u8,
    nbytes: usize,
    sig_addr: *mut u64,
    signal: u64,
    op: SignalOp,
    pe: i64,
) -> Result<()> {
    // Check the signal word before moving data, so bad input changes nothing.
    let signal_target = rt.target(routine, sig_addr as usize, 8, pe)?;
    // SAFETY: forwarded contract.
    unsafe { crate::rma::put(rt, routine, dest, src, nbytes, pe)? };
    if let crate::runtime::Target::Net { .. } = signal_target {
        // The network does not order a put before a later atomic by itself.
        if let Err(e) = crate::rma::net(rt).fence() {
            crate::runtime::fatal(&e);
        }
    }
    let op = match op {
        SignalOp::Set => AmoOp::Set(signal),
        SignalOp::Add => AmoOp::FetchAdd(signal),
    };
    // SAFETY: checked by amo.
    unsafe { amo(rt, routine, sig_addr, pe, op) }.map(|_| ())
}

/// `shmem_signal_wait_until`: waits on a local signal word, returns its value.
///
/// # Safety
/// `sig_addr` must be a live local word.
pub unsafe fn signal_wait_until(
    rt: &Runtime,
    routine: &'static str,
    sig_addr: *const u64,
    cmp: Cmp,
    value: u64,
) -> Result<u64> {
    // SAFETY: forwarded contract.
    unsafe { wait_until(rt, routine, sig_addr, cmp, value)? };
    // SAFETY: as above.
    Ok(unsafe { u64::load(sig_addr) })
}

/// Distributed lock words: PE 0's copy of the symmetric `long` is a ticket lock,
/// high half "next ticket", low half "now serving". Fair, and every waiter sleeps on PE 0's bell.
const LOCK_PE: i64 = 0;
const TICKET: u64 = 1 << 32;

/// PE 0's lock word: mapped here, or on another host.
enum LockWord {
    Mapped(&'static AtomicU64),
    Net { region: crate::net::Region, offset: usize },
}

impl LockWord {
    fn of(rt: &Runtime, routine: &'static str, lock: *const i64) -> Result<Self> {
        if !(lock as usize).is_multiple_of(8) {
            return Err(Error::invalid(routine, "lock", "lock variable is not 8-byte aligned"));
        }
        Ok(match rt.target(routine, lock as usize, 8, LOCK_PE)? {
            crate::runtime::Target::Mapped(addr) => {
                // SAFETY: `target` checked the word is mapped symmetric memory (never
                // unmapped); aligned (checked above; mappings are page aligned).
                LockWord::Mapped(unsafe { AtomicU64::from_ptr(addr as *mut u64) })
            }
            crate::runtime::Target::Net { region, offset, .. } => LockWord::Net { region, offset },
        })
    }

    fn amo(&self, rt: &Runtime, routine: &'static str, op: AmoOp<u64>) -> Result<u64> {
        match self {
            LockWord::Mapped(w) => {
                // SAFETY: a mapped, aligned word (see `of`).
                let prev = unsafe { u64::apply(w.as_ptr() as usize, op) };
                if !matches!(op, AmoOp::Fetch) {
                    rt.notify(LOCK_PE as usize);
                }
                Ok(prev)
            }
            LockWord::Net { region, offset } => {
                crate::rma::net(rt).amo(routine, LOCK_PE as usize, *region, *offset, op)
            }
        }
    }
}

/// `shmem_set_lock`.
pub fn set_lock(rt: &Runtime, lock: *const i64) -> Result<()> {
    const ROUTINE: &str = "shmem_set_lock";
    let word = LockWord::of(rt, ROUTINE, lock)?;
    let _call = rt.enter_call_as(ROUTINE, None);
    let ticket = (word.amo(rt, ROUTINE, AmoOp::FetchAdd(TICKET))? >> 32) as u32;
    match word {
        LockWord::Mapped(w) => rt.wait_until(LOCK_PE as usize, || w.load(Ordering::Acquire) as u32 == ticket),
        LockWord::Net { .. } => {
            // Poll the word on PE 0's host, backing off to at most 100 µs between looks.
            let mut pause = std::time::Duration::from_micros(1);
            let mut watch = None;
            while word.amo(rt, ROUTINE, AmoOp::Fetch)? as u32 != ticket {
                std::thread::sleep(pause);
                watch.get_or_insert_with(crate::wait::Watch::start).look();
                pause = (pause * 2).min(std::time::Duration::from_micros(100));
            }
        }
    }
    Ok(())
}

/// `shmem_test_lock`: `true` if the lock was taken by this call.
pub fn test_lock(rt: &Runtime, lock: *const i64) -> Result<bool> {
    const ROUTINE: &str = "shmem_test_lock";
    let word = LockWord::of(rt, ROUTINE, lock)?;
    let w = word.amo(rt, ROUTINE, AmoOp::Fetch)?;
    // Free (the next ticket is the one served), and still so when we take the next ticket.
    let taken = (w >> 32) as u32 == w as u32
        && word.amo(rt, ROUTINE, AmoOp::CompareSwap { cond: w, value: w.wrapping_add(TICKET) })? == w;
    Ok(rt.after_test(taken))
}

/// `shmem_clear_lock`: completes this PE's writes, then serves the next ticket.
pub fn clear_lock(rt: &Runtime, lock: *const i64) -> Result<()> {
    const ROUTINE: &str = "shmem_clear_lock";
    let word = LockWord::of(rt, ROUTINE, lock)?;
    rt.quiet();
    let mut w = word.amo(rt, ROUTINE, AmoOp::Fetch)?;
    loop {
        if (w >> 32) as u32 == w as u32 {
            return Err(Error::invalid(ROUTINE, "lock", "the lock is not held"));
        }
        let next = (w & !0xffff_ffff) | ((w as u32).wrapping_add(1) as u64);
        match word.amo(rt, ROUTINE, AmoOp::CompareSwap { cond: w, value: next })? {
            prev if prev == w => break,
            cur => w = cur,
        }
    }
    Ok(())
}
