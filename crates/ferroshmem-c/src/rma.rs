//! Puts and gets: typed (`shmem_TYPE_*`), sized (`shmem_put32`, ...) and byte (`shmem_putmem`)
//! forms, contiguous and strided, blocking and `_nbi`, and put-with-signal. Every operation
//! completes before it returns, so the `_nbi` forms share the blocking code.
//!
//! `long double` is copied as 16 opaque bytes. C passes and returns it by value in x87
//! registers, which Rust cannot express, so `shmem_longdouble_p/g` are `static inline` in
//! shmem.h and call the by-reference `ferroshmem_*longdouble_p/g` defined here.

use std::ffi::{c_int, c_void};
use std::mem::{size_of, MaybeUninit};

use fcore::p2p::SignalOp;

use crate::ctx::Call;

/// Decodes a C `sig_op` argument (`SHMEM_SIGNAL_SET`, `SHMEM_SIGNAL_ADD` of `shmem.h`).
fn signal_op_from_c(routine: &'static str, op: c_int) -> fcore::Result<SignalOp> {
    match op {
        0 => Ok(SignalOp::Set),
        1 => Ok(SignalOp::Add),
        _ => Err(fcore::Error::invalid(
            routine,
            "sig_op",
            format!("{op} is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD"),
        )),
    }
}

/// `long double` on x86-64 as 16 opaque bytes: copied here, combined by the C helpers of the
/// reductions (`longdouble.rs`). Aligned to 8, not to C's 16: the core reads small reduction
/// payloads from 8-byte aligned buffers (enough for every reducible type), and nothing here
/// needs more, since the C helpers memcpy.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(8))]
pub struct LongDouble([u8; 16]);

// The C side asserts `sizeof(long double) == 16` (csrc/longdouble.c).
const _: () = assert!(size_of::<LongDouble>() == 16 && std::mem::align_of::<LongDouble>() <= 8);

impl Call<'_> {
    /// Contiguous put (`is_put`: `nbytes` from local `src` to `dest` on `pe`) or get (from
    /// `src` on `pe` to local `dest`).
    ///
    /// # Safety
    /// The local side must be valid for `nbytes`.
    #[inline]
    pub unsafe fn copy(&self, is_put: bool, dest: *mut c_void, src: *const c_void, nbytes: usize, pe: c_int) {
        let f = if is_put { fcore::rma::put } else { fcore::rma::get };
        // SAFETY: forwarded contract; the remote side is checked by the core.
        self.check(unsafe { f(self.rt, self.routine, dest.cast(), src.cast(), nbytes, self.pe(pe)) })
    }

    /// Strided put or get of `nelems` elements of `elem` bytes.
    ///
    /// # Safety
    /// The local side must be valid at every strided element.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub unsafe fn strided(
        &self,
        is_put: bool,
        dest: *mut c_void,
        src: *const c_void,
        elem: usize,
        dst: isize,
        sst: isize,
        nelems: usize,
        pe: c_int,
    ) {
        let remote = if is_put { fcore::rma::Remote::Dest } else { fcore::rma::Remote::Source };
        // SAFETY: forwarded contract; the remote extent is checked by the core.
        self.check(unsafe {
            fcore::rma::strided(
                self.rt,
                self.routine,
                remote,
                dest.cast(),
                src.cast(),
                elem,
                dst,
                sst,
                nelems,
                self.pe(pe),
            )
        })
    }

    /// Put of `nbytes` followed by the signal update.
    ///
    /// # Safety
    /// As [`Self::copy`] (a put).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub unsafe fn put_signal(
        &self,
        dest: *mut c_void,
        src: *const c_void,
        nbytes: usize,
        sig_addr: *mut u64,
        signal: u64,
        sig_op: c_int,
        pe: c_int,
    ) {
        let op = self.check(signal_op_from_c(self.routine, sig_op));
        // SAFETY: forwarded contract; the target and the signal word are checked by the core.
        self.check(unsafe {
            fcore::p2p::put_signal(
                self.rt,
                self.routine,
                dest.cast(),
                src.cast(),
                nbytes,
                sig_addr,
                signal,
                op,
                self.pe(pe),
            )
        })
    }
}

/// Contiguous put (`$is_put` true) or get of elements of `$size` bytes.
macro_rules! def_contiguous {
    ($plain:ident, $ctxfn:ident, $is_put:expr, $t:ty, $size:expr) => {
        ctx_pair!($plain, $ctxfn, (dest: *mut $t, source: *const $t, nelems: usize, pe: c_int), |c| {
            let nbytes = c.bytes(nelems, $size);
            // SAFETY: the C caller passes a local array (source of a put, dest of a get) of
            // nelems elements.
            unsafe { c.copy($is_put, dest.cast(), source.cast(), nbytes, pe) }
        });
    };
}

/// Strided put (`$is_put` true) or get of elements of `$size` bytes.
macro_rules! def_strided {
    ($plain:ident, $ctxfn:ident, $is_put:expr, $t:ty, $size:expr) => {
        ctx_pair!($plain, $ctxfn,
            (dest: *mut $t, source: *const $t, dst: isize, sst: isize, nelems: usize, pe: c_int), |c| {
            // SAFETY: the C caller passes a local array valid at every strided element.
            unsafe { c.strided($is_put, dest.cast(), source.cast(), $size, dst, sst, nelems, pe) }
        });
    };
}

/// Put with signal of elements of `$size` bytes.
macro_rules! def_put_signal {
    ($plain:ident, $ctxfn:ident, $t:ty, $size:expr) => {
        ctx_pair!($plain, $ctxfn,
            (dest: *mut $t, source: *const $t, nelems: usize, sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int),
            |c| {
            let nbytes = c.bytes(nelems, $size);
            // SAFETY: the C caller passes a readable source of nelems elements.
            unsafe { c.put_signal(dest.cast(), source.cast(), nbytes, sig_addr, signal, sig_op, pe) }
        });
    };
}

/// `shmem_TYPE_p`: one element by value.
macro_rules! def_p {
    ($plain:ident, $ctxfn:ident, $t:ty) => {
        ctx_pair!($plain, $ctxfn, (dest: *mut $t, value: $t, pe: c_int), |c| {
            // SAFETY: `value` is a local of the right size.
            unsafe { c.copy(true, dest.cast(), (&value as *const $t).cast(), size_of::<$t>(), pe) }
        });
    };
}

/// `shmem_TYPE_g`: one element by value.
macro_rules! def_g {
    ($plain:ident, $ctxfn:ident, $t:ty) => {
        ctx_pair!($plain, $ctxfn, (source: *const $t, pe: c_int) -> $t, |c| {
            let mut value = MaybeUninit::<$t>::uninit();
            // SAFETY: `value` is a local of the right size; `get` fills all of it or ends the job.
            unsafe {
                c.copy(false, value.as_mut_ptr().cast(), source.cast(), size_of::<$t>(), pe);
                value.assume_init()
            }
        });
    };
}

/// `shmem_longdouble_p/g` by reference: the bodies of the inline functions in shmem.h.
macro_rules! def_pg_by_ref {
    ($t:ty) => {
        ctx_pair!(ferroshmem_longdouble_p = "shmem_longdouble_p", ferroshmem_ctx_longdouble_p = "shmem_ctx_longdouble_p",
            (dest: *mut $t, value: *const $t, pe: c_int), |c| {
            // SAFETY: the header passes the address of its by-value argument.
            unsafe { c.copy(true, dest.cast(), value.cast(), size_of::<$t>(), pe) }
        });
        ctx_pair!(ferroshmem_longdouble_g = "shmem_longdouble_g", ferroshmem_ctx_longdouble_g = "shmem_ctx_longdouble_g",
            (value: *mut $t, source: *const $t, pe: c_int), |c| {
            // SAFETY: the header passes the address of its local result.
            unsafe { c.copy(false, value.cast(), source.cast(), size_of::<$t>(), pe) }
        });
    };
}

/// Every routine of one element type or size: `$n` is the name fragment (`int`, `32`, `mem`).
macro_rules! rma_family {
    (typed $($n:ident: $t:ty),* $(,)?) => { paste::paste! {$(
        rma_family!(@bulk $t, size_of::<$t>(), [<shmem_ $n _put>], [<shmem_ctx_ $n _put>], [<shmem_ $n _get>],
            [<shmem_ctx_ $n _get>], [<shmem_ $n _put_nbi>], [<shmem_ctx_ $n _put_nbi>], [<shmem_ $n _get_nbi>],
            [<shmem_ctx_ $n _get_nbi>], [<shmem_ $n _put_signal>], [<shmem_ctx_ $n _put_signal>],
            [<shmem_ $n _put_signal_nbi>], [<shmem_ctx_ $n _put_signal_nbi>]);
        def_strided!([<shmem_ $n _iput>], [<shmem_ctx_ $n _iput>], true, $t, size_of::<$t>());
        def_strided!([<shmem_ $n _iget>], [<shmem_ctx_ $n _iget>], false, $t, size_of::<$t>());
    )*} };
    (scalar $($n:ident: $t:ty),* $(,)?) => { paste::paste! {$(
        def_p!([<shmem_ $n _p>], [<shmem_ctx_ $n _p>], $t);
        def_g!([<shmem_ $n _g>], [<shmem_ctx_ $n _g>], $t);
    )*} };
    (sized $($n:literal),* $(,)?) => { paste::paste! {$(
        rma_family!(@bulk c_void, $n / 8, [<shmem_put $n>], [<shmem_ctx_put $n>], [<shmem_get $n>], [<shmem_ctx_get $n>],
            [<shmem_put $n _nbi>], [<shmem_ctx_put $n _nbi>], [<shmem_get $n _nbi>], [<shmem_ctx_get $n _nbi>],
            [<shmem_put $n _signal>], [<shmem_ctx_put $n _signal>], [<shmem_put $n _signal_nbi>],
            [<shmem_ctx_put $n _signal_nbi>]);
        def_strided!([<shmem_iput $n>], [<shmem_ctx_iput $n>], true, c_void, $n / 8);
        def_strided!([<shmem_iget $n>], [<shmem_ctx_iget $n>], false, c_void, $n / 8);
    )*} };
    (@bulk $t:ty, $size:expr, $put:ident, $cput:ident, $get:ident, $cget:ident, $put_nbi:ident, $cput_nbi:ident,
     $get_nbi:ident, $cget_nbi:ident, $ps:ident, $cps:ident, $ps_nbi:ident, $cps_nbi:ident) => {
        def_contiguous!($put, $cput, true, $t, $size);
        def_contiguous!($get, $cget, false, $t, $size);
        def_contiguous!($put_nbi, $cput_nbi, true, $t, $size);
        def_contiguous!($get_nbi, $cget_nbi, false, $t, $size);
        def_put_signal!($ps, $cps, $t, $size);
        def_put_signal!($ps_nbi, $cps_nbi, $t, $size);
    };
}

/// Adapts a type table to [`rma_family!`].
macro_rules! rma_typed_and_scalar {
    ($($n:ident: $t:ty),* $(,)?) => {
        rma_family!(typed $($n: $t),*);
        rma_family!(scalar $($n: $t),*);
    };
}

rma_types!(rma_typed_and_scalar);
rma_family!(typed longdouble: LongDouble);
def_pg_by_ref!(LongDouble);
rma_family!(sized 8, 16, 32, 64, 128);
rma_family!(@bulk c_void, 1, shmem_putmem, shmem_ctx_putmem, shmem_getmem, shmem_ctx_getmem, shmem_putmem_nbi,
    shmem_ctx_putmem_nbi, shmem_getmem_nbi, shmem_ctx_getmem_nbi, shmem_putmem_signal, shmem_ctx_putmem_signal,
    shmem_putmem_signal_nbi, shmem_ctx_putmem_signal_nbi);
