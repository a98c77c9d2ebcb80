//! Communication contexts (`shmem_ctx_t`) and the per-call state every context routine uses.
//!
//! A context is a heap object owned by the C program between `shmem_ctx_create` and
//! `shmem_ctx_destroy`; `SHMEM_CTX_DEFAULT` points at a static one. On one machine every
//! operation completes before it returns, so a context carries no pending state today: it
//! exists so that a team can be attached later. Every routine that takes a PE number turns it
//! into a world PE through [`world_pe`] and nowhere else, so team-relative numbering will be a
//! change to that one function.

use std::ffi::{c_int, c_long};

use fcore::runtime::Runtime;
use fcore::Error;

use crate::fatal;

/// `SHMEM_CTX_SERIALIZED`.
pub const CTX_SERIALIZED: c_long = 1;
/// `SHMEM_CTX_PRIVATE`.
pub const CTX_PRIVATE: c_long = 2;
/// `SHMEM_CTX_NOSTORE`.
pub const CTX_NOSTORE: c_long = 4;
const CTX_ALL_OPTIONS: c_long = CTX_SERIALIZED | CTX_PRIVATE | CTX_NOSTORE;

/// Tag stored in every live context, so a stray pointer or a destroyed context is caught
/// (best effort) instead of being used.
const LIVE: u64 = 0x6665_7272_6f63_7478; // "ferroctx"
const DEAD: u64 = 0xdead_c0de_dead_c0de;

/// Which PEs a context addresses. Only the world today; a team variant comes with teams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CtxScope {
    World,
}

/// What `shmem_ctx_t` points at (opaque to C: `struct ferroshmem_ctx`).
#[derive(Debug)]
#[repr(C)]
pub struct Ctx {
    tag: u64,
    /// The `SHMEM_CTX_*` options it was created with.
    pub options: c_long,
    pub scope: CtxScope,
    /// Whether this is `SHMEM_CTX_DEFAULT` (which cannot be destroyed).
    pub is_default: bool,
}

/// The object `SHMEM_CTX_DEFAULT` points at.
static DEFAULT_CTX: Ctx = Ctx {
    tag: LIVE,
    options: 0,
    scope: CtxScope::World,
    is_default: true,
};

/// A `shmem_ctx_t` as C passes it.
pub type CtxHandle = *const Ctx;

/// The exported `SHMEM_CTX_DEFAULT` variable: a pointer that C reads but never writes.
#[derive(Debug)]
#[repr(transparent)]
pub struct CtxGlobal(CtxHandle);
// SAFETY: the pointer targets an immutable static; sharing it between threads is harmless.
unsafe impl Sync for CtxGlobal {}

#[no_mangle]
pub static SHMEM_CTX_DEFAULT: CtxGlobal = CtxGlobal(&DEFAULT_CTX);

/// Turns a PE number given to a routine of `ctx` into a world PE number. The one place where
/// context-relative numbering is translated (identity for every context today).
#[inline]
pub fn world_pe(ctx: &Ctx, pe: c_int) -> i64 {
    match ctx.scope {
        CtxScope::World => pe as i64,
    }
}

/// Everything one C call needs: the runtime, its context and the C routine's name (for errors).
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub rt: &'static Runtime,
    pub ctx: &'a Ctx,
    pub routine: &'static str,
}

impl Call<'_> {
    /// A call on `SHMEM_CTX_DEFAULT` (the routines without a context argument).
    #[inline]
    pub fn default(routine: &'static str) -> Call<'static> {
        Call {
            rt: crate::rt(routine),
            ctx: &DEFAULT_CTX,
            routine,
        }
    }

    /// A call on the context `handle`, which must be a live context.
    ///
    /// # Safety
    /// `handle` must be null, `SHMEM_CTX_DEFAULT` or a context from `shmem_ctx_create` (a
    /// destroyed one is detected on a best-effort basis only).
    #[inline]
    pub unsafe fn on<'a>(handle: CtxHandle, routine: &'static str) -> Call<'a> {
        let rt = crate::rt(routine);
        // SAFETY: forwarded contract.
        let ctx = unsafe { ctx_ref(handle, routine) };
        Call { rt, ctx, routine }
    }

    /// The world PE for this call's `pe` argument.
    #[inline]
    pub fn pe(&self, pe: c_int) -> i64 {
        world_pe(self.ctx, pe)
    }

    /// Unwraps a core result or ends the job with its message.
    #[inline]
    pub fn check<T>(&self, r: fcore::Result<T>) -> T {
        crate::check(r)
    }

    /// Ends the job: argument `argument` of this call is invalid because of `reason`.
    #[cold]
    pub fn invalid(&self, argument: &'static str, reason: impl Into<String>) -> ! {
        fatal(&Error::invalid(self.routine, argument, reason))
    }

    /// `count` elements of `size` bytes, in bytes, or a clear stop when that overflows.
    #[inline]
    pub fn bytes(&self, count: usize, size: usize) -> usize {
        match count.checked_mul(size) {
            Some(n) => n,
            None => self.invalid(
                "nelems",
                format!("{count} elements of {size} bytes overflow the address space"),
            ),
        }
    }
}

/// The context behind `handle`, or a clear stop.
///
/// # Safety
/// As [`Call::on`].
unsafe fn ctx_ref<'a>(handle: CtxHandle, routine: &'static str) -> &'a Ctx {
    if handle.is_null() {
        fatal(&Error::invalid(
            routine,
            "ctx",
            "SHMEM_CTX_INVALID (a null context) cannot be used",
        ));
    }
    if (handle as usize) & (std::mem::align_of::<Ctx>() - 1) != 0 {
        fatal(&Error::invalid(
            routine,
            "ctx",
            format!("{:#x} is not a context", handle as usize),
        ));
    }
    // SAFETY: non-null and aligned; the caller passes a context handle (live, per contract).
    let ctx = unsafe { &*handle };
    if ctx.tag != LIVE {
        fatal(&Error::invalid(
            routine,
            "ctx",
            format!("{:#x} is not a live context (destroyed?)", handle as usize),
        ));
    }
    ctx
}

#[no_mangle]
pub unsafe extern "C" fn shmem_ctx_create(options: c_long, ctx: *mut CtxHandle) -> c_int {
    let routine = "shmem_ctx_create";
    let rt = crate::rt(routine);
    if ctx.is_null() {
        fatal(&Error::invalid(
            routine,
            "ctx",
            "the pointer to store the new context in is null",
        ));
    }
    if options & !CTX_ALL_OPTIONS != 0 {
        crate::debug_report(
            rt,
            format_args!("{routine}: options {options:#x} has unknown bits"),
        );
        // SAFETY: non-null; the caller passes a writable shmem_ctx_t.
        unsafe { *ctx = std::ptr::null() };
        return 1;
    }
    let new = Box::new(Ctx {
        tag: LIVE,
        options,
        scope: CtxScope::World,
        is_default: false,
    });
    // SAFETY: non-null; the caller passes a writable shmem_ctx_t.
    unsafe { *ctx = Box::into_raw(new) };
    0
}

#[no_mangle]
pub unsafe extern "C" fn shmem_ctx_destroy(ctx: CtxHandle) {
    let routine = "shmem_ctx_destroy";
    crate::rt(routine);
    // SAFETY: the C caller passes a context handle.
    let c = unsafe { ctx_ref(ctx, routine) };
    if c.is_default {
        fatal(&Error::invalid(
            routine,
            "ctx",
            "SHMEM_CTX_DEFAULT cannot be destroyed",
        ));
    }
    // Operations complete before they return: destroying only needs the quiet the spec implies.
    crate::rt(routine).quiet();
    // SAFETY: a live context that is not the default was made by Box::into_raw in
    // shmem_ctx_create; the tag is overwritten first so a later use is reported, not trusted.
    unsafe {
        let mut owned = Box::from_raw(ctx as *mut Ctx);
        std::ptr::write_volatile(&mut owned.tag, DEAD);
        drop(owned);
    }
}

/// `shmem_fence`/`shmem_quiet` and their context forms.
macro_rules! ordering_routine {
    ($($plain:ident, $ctxfn:ident);* $(;)?) => {$(
        #[no_mangle]
        pub extern "C" fn $plain() {
            Call::default(stringify!($plain)).rt.quiet();
        }

        #[no_mangle]
        pub unsafe extern "C" fn $ctxfn(ctx: CtxHandle) {
            // SAFETY: the C caller passes a context handle.
            unsafe { Call::on(ctx, stringify!($ctxfn)) }.rt.quiet();
        }
    )*};
}
ordering_routine!(shmem_fence, shmem_ctx_fence; shmem_quiet, shmem_ctx_quiet);
