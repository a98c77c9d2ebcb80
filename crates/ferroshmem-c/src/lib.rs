//! The OpenSHMEM C ABI: thin `extern "C"` wrappers over the core crate. Errors that a routine
//! can return become the specification's return codes; errors in routines that return nothing
//! stop the job with a message naming the routine and the argument (see `fcore::runtime::fatal`).
//!
//! The hundreds of typed routines are generated: each family (put, get, atomic add, wait_until,
//! ...) is one `macro_rules!` that defines a routine and its `shmem_ctx_` form from one body
//! (through `ctx_pair!`), and each type table (RMA, AMO, point-to-point types) is one macro
//! that feeds a family its `TYPENAME: rust_type` pairs. The headers in `include/` declare the
//! same names.
#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

/// Defines the C routine `$plain` (on `SHMEM_CTX_DEFAULT`) and its context form `$ctxfn`
/// (taking `shmem_ctx_t ctx` first) from one body, in which `$c` is the [`ctx::Call`].
/// The routine name used in error messages is the C name, or the string given after `=`.
/// Both get their profiling names (`pshmem_...`), except in the `=` form, which only the
/// library's own helpers behind inline header routines use.
macro_rules! ctx_pair {
    ($plain:ident, $ctxfn:ident, $($rest:tt)*) => {
        ctx_pair!($plain = stringify!($plain), $ctxfn = stringify!($ctxfn), $($rest)*);
        pshmem!($plain, $ctxfn);
    };
    ($plain:ident = $pname:expr, $ctxfn:ident = $cname:expr,
     ($($arg:ident : $ty:ty),* $(,)?) $(-> $ret:ty)?, |$c:ident| $body:block) => {
        #[no_mangle]
        pub unsafe extern "C" fn $ctxfn(ctx: $crate::ctx::CtxHandle, $($arg: $ty),*) $(-> $ret)? {
            // SAFETY: the C caller passes a context handle (null and stale ones are caught).
            let $c = unsafe { $crate::ctx::Call::on(ctx, $cname) };
            $body
        }

        #[no_mangle]
        pub unsafe extern "C" fn $plain($($arg: $ty),*) $(-> $ret)? {
            let $c = $crate::ctx::Call::default($pname);
            $body
        }
    };
}

/// Exports `$alias` as a second entry point of the C routine `$target`: a naked function whose
/// only instruction jumps to `$target`, so the caller's arguments and return address pass
/// through untouched (the Rust signature `()` is never used: C declares the real one). The
/// library is linked with `-Bsymbolic-functions` (`build.rs`), so the jump reaches this
/// library's `$target` even when the program defines a routine of that name itself.
macro_rules! entry_alias {
    ($alias:ident => $target:path) => {
        // SAFETY: the body is one tail jump to a routine of this library with the same C
        // signature: nothing is read or written, the stack and registers are the caller's.
        #[unsafe(naked)]
        #[no_mangle]
        pub extern "C" fn $alias() {
            #[cfg(target_arch = "x86_64")]
            ::std::arch::naked_asm!("jmp {}", sym $target);
            #[cfg(target_arch = "aarch64")]
            ::std::arch::naked_asm!("b {}", sym $target);
        }
    };
}

/// Exports `p$name` (the OpenSHMEM profiling name: `pshmem_putmem` for `shmem_putmem`) as an
/// entry point of the routine `$name`. Every exported routine gets one.
macro_rules! pshmem {
    ($($name:ident),* $(,)?) => { paste::paste! {$(
        entry_alias!([<p $name>] => $name);
    )*} };
}

/// Calls `$m! { name: type, ... }` with the standard RMA types (spec Table "Standard RMA
/// Types"), except `long double`, which C cannot pass by value to Rust (see `rma.rs`).
macro_rules! rma_types {
    ($m:ident) => {
        $m! {
            float: f32, double: f64, char: std::ffi::c_char, schar: std::ffi::c_schar,
            short: std::ffi::c_short, int: std::ffi::c_int, long: std::ffi::c_long,
            longlong: std::ffi::c_longlong, uchar: std::ffi::c_uchar, ushort: std::ffi::c_ushort,
            uint: std::ffi::c_uint, ulong: std::ffi::c_ulong, ulonglong: std::ffi::c_ulonglong,
            int8: i8, int16: i16, int32: i32, int64: i64, uint8: u8, uint16: u16, uint32: u32,
            uint64: u64, size: usize, ptrdiff: isize,
        }
    };
}

/// Calls `$m! { name: type, ... }` with the standard AMO types.
macro_rules! amo_standard_types {
    ($m:ident) => {
        $m! {
            int: std::ffi::c_int, long: std::ffi::c_long, longlong: std::ffi::c_longlong,
            uint: std::ffi::c_uint, ulong: std::ffi::c_ulong, ulonglong: std::ffi::c_ulonglong,
            int32: i32, int64: i64, uint32: u32, uint64: u64, size: usize, ptrdiff: isize,
        }
    };
}

/// Calls `$m! { name: type, ... }` with the extended AMO types that are not standard ones.
macro_rules! amo_extended_only_types {
    ($m:ident) => {
        $m! { float: f32, double: f64 }
    };
}

/// Calls `$m! { name: type, ... }` with the bitwise AMO types.
macro_rules! amo_bitwise_types {
    ($m:ident) => {
        $m! {
            uint: std::ffi::c_uint, ulong: std::ffi::c_ulong, ulonglong: std::ffi::c_ulonglong,
            int32: i32, int64: i64, uint32: u32, uint64: u64,
        }
    };
}

/// Calls `$m! { name: type as word, ... }` with the point-to-point types; `word` is a type of
/// the same size and signedness that the core can load atomically.
macro_rules! p2p_types {
    ($m:ident) => {
        $m! {
            short: std::ffi::c_short as i16, int: std::ffi::c_int as i32, long: std::ffi::c_long as i64,
            longlong: std::ffi::c_longlong as i64, ushort: std::ffi::c_ushort as u16,
            uint: std::ffi::c_uint as u32, ulong: std::ffi::c_ulong as u64,
            ulonglong: std::ffi::c_ulonglong as u64, int32: i32 as i32, int64: i64 as i64,
            uint32: u32 as u32, uint64: u64 as u64, size: usize as u64, ptrdiff: isize as i64,
        }
    };
}

mod amo;
mod coll;
mod ctx;
mod lifecycle;
mod longdouble;
mod memory;
mod p2p;
mod rma;
mod team;

use fcore::runtime::Runtime;

/// The runtime, or a clear stop naming `routine` when called before init.
#[inline]
pub(crate) fn rt(routine: &'static str) -> &'static Runtime {
    // SAFETY: this crate is the C ABI: every use of the runtime keeps the C API's contracts
    // (the callers' own arguments are the C program's responsibility, as in OpenSHMEM).
    match unsafe { fcore::runtime::runtime(routine) } {
        Ok(rt) => rt,
        Err(e) => fatal(&e),
    }
}

/// Prints `message` for this PE on stderr under `SHMEM_DEBUG=1`, in one write so that lines
/// of different PEs do not interleave.
pub(crate) fn debug_report(rt: &Runtime, message: std::fmt::Arguments) {
    if rt.debug {
        rt.report(message);
    }
}

/// Reports a failure of a collective call: always for a checked-mode mismatch (every PE has
/// the same one, so only `lead` prints it), and on every PE under `SHMEM_DEBUG=1`.
pub(crate) fn report_failure(rt: &Runtime, e: &fcore::Error, lead: bool) {
    use fcore::team::codes;
    let mismatch = matches!(e, fcore::Error::CollectiveMismatch { .. })
        || matches!(e, fcore::Error::TeamCreate { code, .. } if *code == codes::MISMATCH);
    if rt.debug || (mismatch && lead) {
        rt.report(format_args!("{}", e.report()));
    }
}

/// Ends the job because of `err` (the runtime's one fatal path: it prints the error naming
/// this PE and ends the job, or only the process before init).
#[cold]
pub(crate) fn fatal(err: &fcore::Error) -> ! {
    fcore::runtime::fatal(err)
}

/// Unwraps a core result or stops the job with its message.
#[inline]
pub(crate) fn check<T>(r: fcore::Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => fatal(&e),
    }
}
