//! Atomic memory operations on symmetric 32- and 64-bit words: hardware atomics on the shared
//! mapping. Every AMO type of the specification is one of these widths; signed types use the
//! same bit patterns (two's complement wrapping), floating types only fetch/set/swap/cas.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::error::{Error, Result};

use crate::runtime::{Runtime, Target};

/// What an atomic operation does (defined with the transport, which carries it to other
/// hosts; the layers import downward only).
pub use crate::net::AmoOp;

/// A word width on which AMOs run.
pub trait AmoWord: Copy + Sized + crate::net::NetWord {
    /// Applies `op` at `addr` and returns the previous value.
    ///
    /// # Safety
    /// `addr` must be a mapped, suitably aligned word.
    unsafe fn apply(addr: usize, op: AmoOp<Self>) -> Self;
}

macro_rules! amo_word {
    ($word:ty, $atomic:ty) => {
        impl AmoWord for $word {
            #[inline]
            unsafe fn apply(addr: usize, op: AmoOp<Self>) -> Self {
                // SAFETY: the caller guarantees a mapped, aligned word; the memory is shared
                // between processes and only ever accessed atomically by the runtime.
                let a = unsafe { <$atomic>::from_ptr(addr as *mut $word) };
                let o = Ordering::SeqCst;
                match op {
                    AmoOp::Fetch => a.load(o),
                    AmoOp::Set(v) => {
                        a.store(v, o);
                        v
                    }
                    AmoOp::Swap(v) => a.swap(v, o),
                    AmoOp::CompareSwap { cond, value } => match a.compare_exchange(cond, value, o, o) {
                        Ok(prev) | Err(prev) => prev,
                    },
                    AmoOp::FetchAdd(v) => a.fetch_add(v, o),
                    AmoOp::FetchAnd(v) => a.fetch_and(v, o),
                    AmoOp::FetchOr(v) => a.fetch_or(v, o),
                    AmoOp::FetchXor(v) => a.fetch_xor(v, o),
                }
            }
        }
    };
}
amo_word!(u32, AtomicU32);
amo_word!(u64, AtomicU64);

/// Runs `op` on the symmetric word `dest` of PE `pe`; returns the previous value.
///
/// # Safety
/// None beyond the checks made here: `dest` is checked to be symmetric and aligned.
#[inline]
pub unsafe fn amo<W: AmoWord>(
    rt: &Runtime,
    routine: &'static str,
    dest: *const W,
    pe: i64,
    op: AmoOp<W>,
) -> Result<W> {
    let size = std::mem::size_of::<W>();
    if !(dest as usize).is_multiple_of(size) {
        return Err(Error::invalid(
            routine,
            "dest",
            format!("{:#x} is not aligned to {size} bytes", dest as usize),
        ));
    }
    let target = match rt.target(routine, dest as usize, size, pe)? {
        Target::Mapped(a) => a,
        Target::Net { pe, region, offset } => {
            return crate::rma::net(rt).amo(routine, pe, region, offset, op)
        }
    };
    // SAFETY: translate checked that the word is mapped; alignment checked above.
    let prev = unsafe { W::apply(target, op) };
    if !matches!(op, AmoOp::Fetch) {
        rt.notify(pe as usize);
    }
    Ok(prev)
}
