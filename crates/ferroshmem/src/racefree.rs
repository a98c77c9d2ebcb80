//! Copies in and out of symmetric memory that are never a data race (issue 13 item 4).
//!
//! Symmetric memory is written at any time by other PEs (puts, atomics) and, through a shared
//! `SymSlice`, by other threads of this process. In Rust's memory model two unsynchronised
//! accesses to one location from two threads, one a write and one not atomic, are a data race
//! and so undefined behaviour; a volatile access does not help. So the safe API touches
//! symmetric memory only through this module (and the AMOs and waits, which are atomic):
//!
//! - [`load`] / [`store`]: one element as Relaxed atomic loads or stores of the widest word its
//!   alignment allows (`min(align_of::<T>(), 8)` bytes), so the whole element in one access for
//!   the 1, 2, 4 and 8-byte types: a `mov`, as the volatile access was, and no fence. A wider
//!   element (`u128`, arrays) written meanwhile may be seen half old, half new: still a valid
//!   value, since every bit pattern of a [`Symmetric`] type is one.
//! - [`copy`]: a block, byte-wise atomic (RFC 3301's "atomic memcpy"): every byte is read once
//!   and written once by an instruction no wider than 32 bytes (AVX2 `vmovdqu` in 128-byte
//!   blocks from [`AVX2_BYTES`] on when the CPU has it, then 16-byte `movdqu`, a word, bytes),
//!   inside `asm!`, whose effect is that of a sequence of Relaxed `AtomicU8` copies. A concurrent write may leave a
//!   mix of old and new bytes (OpenSHMEM calls such a program erroneous), never undefined
//!   behaviour. Elsewhere than x86_64 the same copy is a loop of `AtomicU8` accesses.
#![allow(unsafe_code)]

use std::mem::{align_of, size_of, MaybeUninit};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

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

macro_rules! word_copies {
    ($($load:ident, $store:ident: $atomic:ty, $int:ty;)*) => {$(
        /// Relaxed atomic loads of `n` words at `src` into the buffer `dst`.
        ///
        /// # Safety
        /// `src` is valid for `n` words and aligned for them, and every concurrent access to
        /// those bytes is atomic (or by another process); `dst` is writable for `n` words,
        /// aligned, and private to this thread.
        #[inline(always)]
        unsafe fn $load(src: *const u8, dst: *mut u8, n: usize) {
            for k in 0..n {
                // SAFETY: the caller's contract (valid, aligned, accessed atomically).
                let w = unsafe { <$atomic>::from_ptr((src as *mut $int).add(k)) }.load(Relaxed);
                // SAFETY: the caller's private, aligned buffer.
                unsafe { (dst as *mut $int).add(k).write(w) };
            }
        }

        /// Relaxed atomic stores of the `n` words of the buffer `src` at `dst`.
        ///
        /// # Safety
        /// As for the load, with `dst` the shared side and `src` the private buffer.
        #[inline(always)]
        unsafe fn $store(dst: *mut u8, src: *const u8, n: usize) {
            for k in 0..n {
                // SAFETY: the caller's private, aligned buffer.
                let w = unsafe { (src as *const $int).add(k).read() };
                // SAFETY: the caller's contract (valid, aligned, accessed atomically).
                unsafe { <$atomic>::from_ptr((dst as *mut $int).add(k)) }.store(w, Relaxed);
            }
        }
    )*};
}

word_copies! {
    load8, store8: AtomicU8, u8;
    load16, store16: AtomicU16, u16;
    load32, store32: AtomicU32, u32;
    load64, store64: AtomicU64, u64;
}

/// Reads the element at `p` with Relaxed atomic loads (see the module documentation).
///
/// # Safety
/// `p` is valid for reads of a `T` and aligned for it, and every access to it made by this
/// process meanwhile is atomic (as all of the safe API's are).
#[inline(always)]
pub(crate) unsafe fn load<T: Symmetric>(p: *const T) -> T {
    let mut v = MaybeUninit::<T>::uninit();
    let (src, dst) = (p.cast::<u8>(), v.as_mut_ptr().cast::<u8>());
    // SAFETY: the caller's contract; a type's size is a multiple of its alignment, so the
    // words cover it exactly, and they are aligned since `p` and `v` are aligned for `T`.
    unsafe {
        match align_of::<T>() {
            1 => load8(src, dst, size_of::<T>()),
            2 => load16(src, dst, size_of::<T>() / 2),
            4 => load32(src, dst, size_of::<T>() / 4),
            _ => load64(src, dst, size_of::<T>() / 8),
        }
        // Every byte was written, and every bit pattern is a valid `T` (`Symmetric`).
        v.assume_init()
    }
}

/// Writes `value` at `p` with Relaxed atomic stores (see the module documentation).
///
/// # Safety
/// As for [`load`], for writes.
#[inline(always)]
pub(crate) unsafe fn store<T: Symmetric>(p: *mut T, value: T) {
    let (dst, src) = (p.cast::<u8>(), (&value as *const T).cast::<u8>());
    // SAFETY: as in `load`.
    unsafe {
        match align_of::<T>() {
            1 => store8(dst, src, size_of::<T>()),
            2 => store16(dst, src, size_of::<T>() / 2),
            4 => store32(dst, src, size_of::<T>() / 4),
            _ => store64(dst, src, size_of::<T>() / 8),
        }
    }
}

/// From this many bytes [`copy`] moves 128-byte blocks with AVX2 when the CPU has it.
pub(crate) const AVX2_BYTES: usize = 256;

/// Copies `n` bytes from `src` to `dst`, byte-wise atomic (see the module documentation).
///
/// # Safety
/// `src` is valid for reads and `dst` for writes of `n` bytes, and they do not overlap.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    if n >= AVX2_BYTES && std::arch::is_x86_feature_detected!("avx2") {
        let big = n & !127;
        // SAFETY: the CPU has AVX2 (checked); `big <= n` bytes of the caller's ranges.
        unsafe { copy_avx2(dst, src, big) };
        // SAFETY: the rest of the caller's ranges.
        unsafe { copy_sse(dst.add(big), src.add(big), n - big) };
    } else {
        // SAFETY: the caller's ranges.
        unsafe { copy_sse(dst, src, n) };
    }
}

/// Copies `n` bytes, a multiple of 128, in 128-byte blocks of four 32-byte `vmovdqu`.
///
/// # Safety
/// As for [`copy`], with `n % 128 == 0`, on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn copy_avx2(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's ranges; unaligned accesses; vzeroupper before returning to SSE code.
    unsafe {
        std::arch::asm!(
            "test {n}, {n}",
            "jz 3f",
            "2:",
            "vmovdqu {a}, ymmword ptr [{s}]",
            "vmovdqu {b}, ymmword ptr [{s} + 32]",
            "vmovdqu {c}, ymmword ptr [{s} + 64]",
            "vmovdqu {e}, ymmword ptr [{s} + 96]",
            "vmovdqu ymmword ptr [{d}], {a}",
            "vmovdqu ymmword ptr [{d} + 32], {b}",
            "vmovdqu ymmword ptr [{d} + 64], {c}",
            "vmovdqu ymmword ptr [{d} + 96], {e}",
            "add {s}, 128",
            "add {d}, 128",
            "sub {n}, 128",
            "jnz 2b",
            "vzeroupper",
            "3:",
            n = inout(reg) n => _,
            s = inout(reg) src => _,
            d = inout(reg) dst => _,
            a = out(ymm_reg) _,
            b = out(ymm_reg) _,
            c = out(ymm_reg) _,
            e = out(ymm_reg) _,
            options(nostack)
        )
    };
}

/// Copies `n` bytes: 16-byte `movdqu` blocks, then at most one 8-byte word, then bytes.
///
/// # Safety
/// As for [`copy`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn copy_sse(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's ranges; unaligned accesses are allowed for all three widths.
    unsafe {
        std::arch::asm!(
            "cmp {n}, 16",
            "jb 3f",
            "2:",
            "movdqu {v}, xmmword ptr [{s}]",
            "movdqu xmmword ptr [{d}], {v}",
            "add {s}, 16",
            "add {d}, 16",
            "sub {n}, 16",
            "cmp {n}, 16",
            "jae 2b",
            "3:",
            "cmp {n}, 8",
            "jb 4f",
            "mov {w}, qword ptr [{s}]",
            "mov qword ptr [{d}], {w}",
            "add {s}, 8",
            "add {d}, 8",
            "sub {n}, 8",
            "4:",
            "test {n}, {n}",
            "jz 6f",
            "5:",
            "mov {b}, byte ptr [{s}]",
            "mov byte ptr [{d}], {b}",
            "inc {s}",
            "inc {d}",
            "dec {n}",
            "jnz 5b",
            "6:",
            n = inout(reg) n => _,
            s = inout(reg) src => _,
            d = inout(reg) dst => _,
            v = out(xmm_reg) _,
            w = out(reg) _,
            b = out(reg_byte) _,
            options(nostack)
        )
    };
}

/// Copies `n` bytes from `src` to `dst` with Relaxed `AtomicU8` accesses (no `asm!` here).
///
/// # Safety
/// As for the x86_64 form.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    for k in 0..n {
        // SAFETY: the caller's ranges.
        let b = unsafe { AtomicU8::from_ptr(src.add(k) as *mut u8) }.load(Relaxed);
        // SAFETY: the caller's ranges.
        unsafe { AtomicU8::from_ptr(dst.add(k)) }.store(b, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_length_and_alignment() {
        let src: Vec<u8> = (0..6000u32).map(|i| (i * 7 + 3) as u8).collect();
        for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 31, 100, 255, 256, 257, 383, 2047, 2048, 2049, 5000] {
            for off in 0..3 {
                let mut dst = vec![0u8; n + 8];
                // SAFETY: both ranges are in bounds of their vectors and do not overlap.
                unsafe { copy(dst.as_mut_ptr().add(off), src.as_ptr().add(off), n) };
                assert_eq!(&dst[off..off + n], &src[off..off + n], "n {n} offset {off}");
                assert!(dst[..off].iter().chain(&dst[off + n..]).all(|&b| b == 0), "n {n}: wrote outside");
            }
        }
    }

    #[test]
    fn elements_round_trip() {
        fn round<T: Symmetric + PartialEq + std::fmt::Debug>(v: T) {
            let mut slot = MaybeUninit::<T>::zeroed();
            // SAFETY: a local, aligned slot of one T.
            unsafe { store(slot.as_mut_ptr(), v) };
            // SAFETY: as above; written just now.
            assert_eq!(unsafe { load(slot.as_ptr()) }, v);
        }
        round(0x12u8);
        round(-2i16);
        round(0xdead_beefu32);
        round(1.5f64);
        round(u128::MAX - 5);
        round([1u8, 2, 3]);
        round([7u32; 5]);
        round([0u64; 0]);
    }
}
