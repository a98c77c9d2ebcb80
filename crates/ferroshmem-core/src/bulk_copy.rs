//! The copy of a large put or get between PEs of one host.
//!
//! glibc's `memcpy` moves blocks up to the L2 size with `rep movsb` and larger ones with vector
//! loops on AMD processors (it keeps `rep movsb` up to its non-temporal threshold on Intel).
//! On the Zen 5 of this project's machine `rep movsb` (ERMS) was faster from 1 MiB up,
//! measured with private 4 KiB-aligned buffers, best of 3 (docs/PERFORMANCE.md, "Put and get
//! bandwidth"): 1 MiB 71.7 against 59.6 GB/s, 8 MiB 66.2 against 61.4, 16 MiB 47.5 against
//! 37.0, 64 MiB 28.1 against 22.8. With the destination one byte off the source's alignment
//! both took the same time. At 512 KiB (source and destination together the size of a core's
//! L2) the best of 3 was the same, but across launches `rep movsb` fell to 33-56 GB/s more
//! often: 10 of 28 launches of `put_bw` against 3 of 28 with `memmove`, alternating (2 and 8
//! PEs). So puts and gets of [`BULK_BYTES`] or more copy with `rep movsb` where the CPU has
//! ERMS, and with `memmove` otherwise.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU8, Ordering};

/// Puts and gets of this many bytes or more use [`copy`]'s `rep movsb`.
pub(crate) const BULK_BYTES: usize = 1 << 20;

/// 0: not probed yet, 1: ERMS (copy with `rep movsb`), 2: use `memmove`.
static METHOD: AtomicU8 = AtomicU8::new(0);

/// Whether this CPU has enhanced `rep movsb` (CPUID leaf 7, EBX bit 9); probed once.
/// `SHMEMX_BULK_COPY=memmove` turns it off (for comparisons).
fn use_rep_movsb() -> bool {
    match METHOD.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let erms = cfg!(target_arch = "x86_64") && has_erms();
            let off = std::env::var("SHMEMX_BULK_COPY").is_ok_and(|v| v == "memmove");
            let yes = erms && !off;
            METHOD.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
            yes
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn has_erms() -> bool {
    // CPUID exists on every x86_64 processor; leaf 0 says whether leaf 7 does.
    let max_leaf = std::arch::x86_64::__cpuid(0).eax;
    max_leaf >= 7 && std::arch::x86_64::__cpuid_count(7, 0).ebx & (1 << 9) != 0
}

#[cfg(not(target_arch = "x86_64"))]
fn has_erms() -> bool {
    false
}

/// Copies `n` bytes from `src` to `dst`; the ranges may overlap (a put to oneself), as with
/// `memmove`.
///
/// # Safety
/// `src` is readable and `dst` writable for `n` bytes.
#[inline]
pub(crate) unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) {
    // `rep movsb` copies forwards: fine unless the destination starts inside the source.
    let forward_safe =
        || (dst as usize) <= (src as usize) || (dst as usize) >= (src as usize).saturating_add(n);
    if n >= BULK_BYTES && forward_safe() && use_rep_movsb() {
        // SAFETY: the caller's ranges; forward copying is correct for them (checked above).
        unsafe { rep_movsb(dst, src, n) }
    } else {
        // SAFETY: the caller's ranges; memmove allows any overlap.
        unsafe { std::ptr::copy(src, dst, n) }
    }
}

#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn rep_movsb(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's ranges; the direction flag is clear (System V ABI), and the
    // instruction touches only rcx, rdi, rsi and the `n` bytes at dst.
    unsafe {
        std::arch::asm!(
            "rep movsb",
            inout("rcx") n => _,
            inout("rdi") dst => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags)
        )
    };
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
unsafe fn rep_movsb(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's ranges (never reached: no ERMS off x86_64).
    unsafe { std::ptr::copy(src, dst, n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_byte_at_every_size_around_the_threshold() {
        for n in [BULK_BYTES - 1, BULK_BYTES, BULK_BYTES + 3, 3 * BULK_BYTES + 17] {
            let src: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
            let mut dst = vec![0u8; n + 2];
            // SAFETY: both vectors hold n bytes at the offsets used.
            unsafe { copy(dst.as_mut_ptr().add(1), src.as_ptr(), n) };
            assert_eq!(&dst[1..=n], &src[..]);
            assert_eq!((dst[0], dst[n + 1]), (0, 0));
        }
    }

    #[test]
    fn overlapping_ranges_copy_as_memmove() {
        let n = BULK_BYTES + 100;
        let original: Vec<u8> = (0..n + 64).map(|i| (i % 251) as u8).collect();
        for shift in [-64isize, -1, 1, 64] {
            let mut buf = original.clone();
            let (from, to) = if shift > 0 { (0, shift as usize) } else { ((-shift) as usize, 0) };
            let p = buf.as_mut_ptr();
            // SAFETY: both ranges lie in buf (n + 64 bytes, shifts of at most 64).
            unsafe { copy(p.add(to), p.add(from), n) };
            assert_eq!(&buf[to..to + n], &original[from..from + n], "shift {shift}");
        }
    }
}
