//! Atomic memory operations: `shmem_TYPE_atomic_*` and their `_nbi` and context forms. Every
//! AMO type is a 32- or 64-bit word for the core (`fcore::atomic::amo::<u32 | u64>`); signed,
//! `size_t`, `ptrdiff_t` and floating types travel as bit casts. The `_nbi` fetching forms
//! complete at once and store the fetched value before returning. The pre-1.4 names
//! (`shmem_TYPE_fadd`, `_finc`, `_add`, `_inc`, `_cswap`, `_swap`, `_fetch`, `_set`) are entry
//! points of the `_atomic_` routines (see the end of this file).

use std::ffi::c_int;

use fcore::atomic::{AmoOp, AmoWord};

use crate::ctx::Call;

/// A C AMO type and the word the core operates on.
pub trait AmoBits: Copy {
    type W: AmoWord;
    fn to_w(self) -> Self::W;
    fn from_w(w: Self::W) -> Self;
}

macro_rules! amo_bits_int {
    ($($t:ty => $w:ty),* $(,)?) => {$(
        impl AmoBits for $t {
            type W = $w;
            #[inline]
            fn to_w(self) -> $w {
                self as $w
            }
            #[inline]
            fn from_w(w: $w) -> Self {
                w as $t
            }
        }
    )*};
}
amo_bits_int!(i32 => u32, u32 => u32, i64 => u64, u64 => u64, usize => u64, isize => u64);

macro_rules! amo_bits_float {
    ($($t:ty => $w:ty),* $(,)?) => {$(
        impl AmoBits for $t {
            type W = $w;
            #[inline]
            fn to_w(self) -> $w {
                self.to_bits()
            }
            #[inline]
            fn from_w(w: $w) -> Self {
                <$t>::from_bits(w)
            }
        }
    )*};
}
amo_bits_float!(f32 => u32, f64 => u64);

/// The word of a value (shorter to write in the operation tables below).
#[inline]
fn w<T: AmoBits>(v: T) -> T::W {
    v.to_w()
}

impl Call<'_> {
    /// Runs `op` on `dest` of `pe` and returns the previous value.
    ///
    /// # Safety
    /// None beyond the core's checks (symmetric, aligned target).
    #[inline]
    pub unsafe fn amo<T: AmoBits>(&self, dest: *const T, pe: c_int, op: AmoOp<T::W>) -> T {
        // SAFETY: the core checks that the word is symmetric and aligned.
        T::from_w(self.check(unsafe {
            fcore::atomic::amo(self.rt, self.routine, dest.cast::<T::W>(), self.pe(pe), op)
        }))
    }

    /// Stores the result of a fetching `_nbi` AMO.
    ///
    /// # Safety
    /// `fetch` must be null (reported) or writable.
    #[inline]
    pub unsafe fn store_fetch<T>(&self, fetch: *mut T, value: T) {
        if fetch.is_null() {
            self.invalid("fetch", "the address to store the fetched value at is null");
        }
        // SAFETY: non-null and writable (caller).
        unsafe { fetch.write_unaligned(value) }
    }
}

/// A fetching AMO `shmem_TYPE_atomic_OP` and its `_nbi` form.
macro_rules! amo_fetching {
    ($n:ident: $t:ty, $op:ident, $target:ident: $target_ty:ty, ($($arg:ident),*), $amo:expr) => { paste::paste! {
        ctx_pair!([<shmem_ $n _atomic_ $op>], [<shmem_ctx_ $n _atomic_ $op>],
            ($target: $target_ty, $($arg: $t,)* pe: c_int) -> $t, |c| {
            // SAFETY: the core checks the target.
            unsafe { c.amo($target, pe, $amo) }
        });
        ctx_pair!([<shmem_ $n _atomic_ $op _nbi>], [<shmem_ctx_ $n _atomic_ $op _nbi>],
            (fetch: *mut $t, $target: $target_ty, $($arg: $t,)* pe: c_int), |c| {
            // SAFETY: the core checks the target; the C caller passes a writable `fetch`.
            unsafe { c.store_fetch(fetch, c.amo($target, pe, $amo)) }
        });
    }};
}

/// A non-fetching AMO `shmem_TYPE_atomic_OP`.
macro_rules! amo_update {
    ($n:ident: $t:ty, $op:ident, ($($arg:ident),*), $amo:expr) => { paste::paste! {
        ctx_pair!([<shmem_ $n _atomic_ $op>], [<shmem_ctx_ $n _atomic_ $op>], (dest: *mut $t, $($arg: $t,)* pe: c_int), |c| {
            // SAFETY: the core checks the target.
            unsafe { c.amo(dest, pe, $amo) };
        });
    }};
}

/// fetch, set, swap: the extended AMO routines (also on every standard type).
macro_rules! amo_extended {
    ($($n:ident: $t:ty),* $(,)?) => {$(
        amo_fetching!($n: $t, fetch, source: *const $t, (), AmoOp::Fetch);
        amo_fetching!($n: $t, swap, dest: *mut $t, (value), AmoOp::Swap(w(value)));
        amo_update!($n: $t, set, (value), AmoOp::Set(w(value)));
    )*};
}

/// compare_swap, fetch_inc, inc, fetch_add, add: the rest of the standard AMO routines.
macro_rules! amo_standard {
    ($($n:ident: $t:ty),* $(,)?) => {$(
        amo_fetching!($n: $t, compare_swap, dest: *mut $t, (cond, value),
            AmoOp::CompareSwap { cond: w(cond), value: w(value) });
        amo_fetching!($n: $t, fetch_inc, dest: *mut $t, (), AmoOp::FetchAdd(w(1 as $t)));
        amo_fetching!($n: $t, fetch_add, dest: *mut $t, (value), AmoOp::FetchAdd(w(value)));
        amo_update!($n: $t, inc, (), AmoOp::FetchAdd(w(1 as $t)));
        amo_update!($n: $t, add, (value), AmoOp::FetchAdd(w(value)));
    )*};
}

/// and, or, xor with their fetching forms: the bitwise AMO routines.
macro_rules! amo_bitwise {
    ($($n:ident: $t:ty),* $(,)?) => {$(
        amo_fetching!($n: $t, fetch_and, dest: *mut $t, (value), AmoOp::FetchAnd(w(value)));
        amo_fetching!($n: $t, fetch_or, dest: *mut $t, (value), AmoOp::FetchOr(w(value)));
        amo_fetching!($n: $t, fetch_xor, dest: *mut $t, (value), AmoOp::FetchXor(w(value)));
        amo_update!($n: $t, and, (value), AmoOp::FetchAnd(w(value)));
        amo_update!($n: $t, or, (value), AmoOp::FetchOr(w(value)));
        amo_update!($n: $t, xor, (value), AmoOp::FetchXor(w(value)));
    )*};
}

amo_standard_types!(amo_extended);
amo_extended_only_types!(amo_extended);
amo_standard_types!(amo_standard);
amo_bitwise_types!(amo_bitwise);

/// The deprecated names (before OpenSHMEM 1.4) of one `_atomic_` routine, `shmem_TYPE_$old` and
/// its profiling name `pshmem_TYPE_$old`: entry points that jump straight to
/// `shmem_TYPE_atomic_$new` (the same code, one jump; no context forms).
macro_rules! amo_old_names {
    ($n:ident: $($old:ident => $new:ident),*) => { paste::paste! {$(
        entry_alias!([<shmem_ $n _ $old>] => [<shmem_ $n _atomic_ $new>]);
        entry_alias!([<pshmem_ $n _ $old>] => [<shmem_ $n _atomic_ $new>]);
    )*} };
}

/// fetch, set, swap under their old names, for every type of the extended AMO routines.
macro_rules! amo_old_extended {
    ($($n:ident: $t:ty),* $(,)?) => {$(
        amo_old_names!($n: fetch => fetch, set => set, swap => swap);
    )*};
}

/// cswap, finc, inc, fadd, add under their old names, for every standard AMO type.
macro_rules! amo_old_standard {
    ($($n:ident: $t:ty),* $(,)?) => {$(
        amo_old_names!($n: cswap => compare_swap, finc => fetch_inc, inc => inc, fadd => fetch_add, add => add);
    )*};
}

amo_standard_types!(amo_old_extended);
amo_extended_only_types!(amo_old_extended);
amo_standard_types!(amo_old_standard);
