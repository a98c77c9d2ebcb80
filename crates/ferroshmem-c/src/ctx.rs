//! Communication contexts (`shmem_ctx_t`) and the per-call state every context routine uses.
//!
//! A context is a heap object owned by the C program between `shmem_ctx_create` (or
//! `shmem_team_create_ctx`) and `shmem_ctx_destroy` (or the destruction of its team, for a
//! shareable team context); `SHMEM_CTX_DEFAULT` points at a static one. On one machine every
//! operation completes before it returns, so a context carries no pending state: what it
//! carries is its team. Every routine that takes a PE number turns it into a world PE through
//! [`world_pe`] and nowhere else: on a team context PE numbers are team-relative.

use std::collections::HashMap;
use std::ffi::{c_int, c_long};
use std::sync::{Arc, Mutex, MutexGuard};

use fcore::team::{TeamHandle, TeamInner};

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

/// Which PEs a context addresses.
#[derive(Debug, Clone)]
pub enum CtxScope {
    /// `SHMEM_TEAM_WORLD`: PE numbers are world PE numbers.
    World,
    /// Any other team: PE numbers are that team's. The context keeps the team object alive,
    /// so translation stays sound even if the team is destroyed first (which the
    /// specification forbids for private contexts and handles for shareable ones).
    Team(Arc<TeamInner>),
}

impl CtxScope {
    /// The team handle of this scope (`shmem_ctx_get_team`).
    pub fn handle(&self) -> TeamHandle {
        match self {
            CtxScope::World => TeamHandle::WORLD,
            CtxScope::Team(t) => t.handle(),
        }
    }
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
static DEFAULT_CTX: Ctx = Ctx { tag: LIVE, options: 0, scope: CtxScope::World, is_default: true };

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

/// Turns a PE number given to `routine` on `ctx` into a world PE number: the one place where
/// context-relative numbering is translated. A world context passes the number through (the
/// core checks it against the world); a team context maps team PE `pe` to its world PE, and a
/// number outside the team stops the job with a message naming the routine and the team.
#[inline]
pub fn world_pe(ctx: &Ctx, pe: c_int, routine: &'static str) -> i64 {
    match &ctx.scope {
        CtxScope::World => pe as i64,
        CtxScope::Team(t) => {
            if pe < 0 || pe as usize >= t.n_pes() {
                bad_team_pe(t, pe, routine)
            }
            t.pes.world_pe(pe as usize) as i64
        }
    }
}

#[cold]
fn bad_team_pe(team: &TeamInner, pe: c_int, routine: &'static str) -> ! {
    fatal(&Error::invalid(
        routine,
        "pe",
        format!(
            "PE {pe} is not a PE of the context's team ({}, PEs 0..{}; team contexts take team PE numbers)",
            team.name(),
            team.n_pes()
        ),
    ))
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
        Call { rt: crate::rt(routine), ctx: &DEFAULT_CTX, routine }
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
        world_pe(self.ctx, pe, self.routine)
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
            None => {
                self.invalid("nelems", format!("{count} elements of {size} bytes overflow the address space"))
            }
        }
    }
}

/// The context behind `handle`, or a clear stop.
///
/// # Safety
/// As [`Call::on`].
pub(crate) unsafe fn ctx_ref<'a>(handle: CtxHandle, routine: &'static str) -> &'a Ctx {
    if handle.is_null() {
        fatal(&Error::invalid(routine, "ctx", "SHMEM_CTX_INVALID (a null context) cannot be used"));
    }
    if (handle as usize) & (std::mem::align_of::<Ctx>() - 1) != 0 {
        fatal(&Error::invalid(routine, "ctx", format!("{:#x} is not a context", handle as usize)));
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
        fatal(&Error::invalid(routine, "ctx", "the pointer to store the new context in is null"));
    }
    if !options_valid(options) {
        crate::debug_report(rt, format_args!("{routine}: options {options:#x} has unknown bits"));
        // SAFETY: non-null; the caller passes a writable shmem_ctx_t.
        unsafe { *ctx = std::ptr::null() };
        return 1;
    }
    // SAFETY: non-null; the caller passes a writable shmem_ctx_t.
    unsafe { *ctx = new_ctx(options, CtxScope::World) };
    0
}

/// A new live context (owned by the C program until [`free_ctx`]).
pub(crate) fn new_ctx(options: c_long, scope: CtxScope) -> CtxHandle {
    Box::into_raw(Box::new(Ctx { tag: LIVE, options, scope, is_default: false }))
}

/// Whether `options` holds only known `SHMEM_CTX_*` bits.
pub(crate) fn options_valid(options: c_long) -> bool {
    options & !CTX_ALL_OPTIONS == 0
}

/// Frees a live context that is not the default, after a quiet.
///
/// # Safety
/// `ctx` must come from [`new_ctx`], be live, and not be used again.
pub(crate) unsafe fn free_ctx(rt: &Runtime, ctx: CtxHandle) {
    // Operations complete before they return: destroying only needs the quiet the spec implies.
    rt.quiet();
    // SAFETY: made by Box::into_raw in new_ctx and live (caller's contract); the tag is
    // overwritten first so a later use is reported, not trusted.
    unsafe {
        let mut owned = Box::from_raw(ctx as *mut Ctx);
        std::ptr::write_volatile(&mut owned.tag, DEAD);
        drop(owned);
    }
}

#[no_mangle]
pub unsafe extern "C" fn shmem_ctx_destroy(ctx: CtxHandle) {
    let routine = "shmem_ctx_destroy";
    crate::rt(routine);
    // OpenSHMEM 1.5: destroying SHMEM_CTX_INVALID does nothing.
    if ctx.is_null() {
        return;
    }
    // SAFETY: the C caller passes a context handle.
    let c = unsafe { ctx_ref(ctx, routine) };
    if c.is_default {
        fatal(&Error::invalid(routine, "ctx", "SHMEM_CTX_DEFAULT cannot be destroyed"));
    }
    forget_ctx(c, ctx);
    // SAFETY: a live context that is not the default was made by new_ctx.
    unsafe { free_ctx(crate::rt(routine), ctx) };
}

/// `shmem_fence`/`shmem_quiet` and their context forms.
macro_rules! ordering_routine {
    ($($plain:ident, $ctxfn:ident, $op:ident);* $(;)?) => {$(
        #[no_mangle]
        pub extern "C" fn $plain() {
            Call::default(stringify!($plain)).rt.$op();
        }

        /// On `SHMEM_CTX_INVALID` it does nothing (OpenSHMEM 1.5: a context made on a team
        /// this PE is not in may be quieted and fenced like any other).
        #[no_mangle]
        pub unsafe extern "C" fn $ctxfn(ctx: CtxHandle) {
            if ctx.is_null() {
                crate::rt(stringify!($ctxfn));
                return;
            }
            // SAFETY: the C caller passes a context handle.
            unsafe { Call::on(ctx, stringify!($ctxfn)) }.rt.$op();
        }
        pshmem!($plain, $ctxfn);
    )*};
}
ordering_routine!(shmem_fence, shmem_ctx_fence, fence; shmem_quiet, shmem_ctx_quiet, quiet);

pshmem!(shmem_ctx_create, shmem_ctx_destroy);

// The contexts made on teams, kept per team so that destroying a team destroys its shareable
// ones (`team::contexts`); here, below the teams, because destroying a context forgets it.

/// A context made on a team: its address and whether it is private.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TeamCtx {
    pub(crate) addr: usize,
    pub(crate) private: bool,
}

/// Contexts of each user or predefined team (except WORLD), by team handle.
static TEAM_CTXS: Mutex<Option<HashMap<u64, Vec<TeamCtx>>>> = Mutex::new(None);

pub(crate) fn team_ctxs() -> MutexGuard<'static, Option<HashMap<u64, Vec<TeamCtx>>>> {
    TEAM_CTXS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Called by `shmem_ctx_destroy`: the context `c` (at `addr`) leaves its team's list.
pub(crate) fn forget_ctx(c: &Ctx, addr: CtxHandle) {
    if let CtxScope::Team(t) = &c.scope {
        if let Some(list) = team_ctxs().as_mut().and_then(|m| m.get_mut(&t.handle().0)) {
            list.retain(|x| x.addr != addr as usize);
        }
    }
}
