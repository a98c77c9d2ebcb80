//! Point-to-point synchronisation: `shmem_TYPE_wait_until` / `_test` and their `_all`, `_any`,
//! `_some` and `_vector` forms, the deprecated `shmem_wait`, signals and locks.
//!
//! Each C type is watched as the core word of the same size and signedness (`size_t` as
//! `u64`, `ptrdiff_t` as `i64`), so the comparisons are the C comparisons.

use std::ffi::{c_int, c_long};
use std::ptr::{null, null_mut};

use fcore::atomic::AmoOp;
use fcore::p2p::{self, Cmp, SyncWord, WaitSet};

use crate::ctx::Call;

/// Decodes a C `cmp` argument (`SHMEM_CMP_*` of `shmem.h`).
fn cmp_from_c(routine: &'static str, cmp: c_int) -> fcore::Result<Cmp> {
    Ok(match cmp {
        0 => Cmp::Eq,
        1 => Cmp::Ne,
        2 => Cmp::Gt,
        3 => Cmp::Ge,
        4 => Cmp::Lt,
        5 => Cmp::Le,
        _ => return Err(fcore::Error::invalid(routine, "cmp", format!("{cmp} is not a SHMEM_CMP_* value"))),
    })
}

/// What a wait/test routine does with its set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    WaitAll,
    WaitAny,
    WaitSome,
    TestAll,
    TestAny,
    TestSome,
}

/// The C return value of a wait/test routine from the core's count or index.
trait FromCount {
    fn from_count(n: usize) -> Self;
}
impl FromCount for () {
    fn from_count(_: usize) {}
}
impl FromCount for c_int {
    fn from_count(n: usize) -> Self {
        n as c_int
    }
}
impl FromCount for usize {
    fn from_count(n: usize) -> Self {
        n
    }
}

impl Call<'_> {
    /// Checks that `nelems` words of `size` bytes at `ivars` are symmetric, aligned variables.
    fn check_watched(&self, argument: &'static str, ivars: usize, nelems: usize, size: usize) {
        if nelems == 0 {
            return;
        }
        if ivars == 0 || ivars & (size - 1) != 0 {
            self.invalid(argument, format!("{ivars:#x} is null or not aligned to {size} bytes"));
        }
        let len = self.bytes(nelems, size);
        self.check(self.rt.translate(self.routine, ivars, len, self.rt.my_pe as i64));
    }
}

/// Runs one wait or test routine. Returns: for the `_all` forms 1 when satisfied, for `_any`
/// the index (`SIZE_MAX` for none), for `_some` the count.
///
/// # Safety
/// `ivars`, and `status`, `values` (vector forms) and `indices` (`_some` forms) when non-null,
/// must be valid for `nelems` elements (one value otherwise).
#[allow(clippy::too_many_arguments)]
unsafe fn run<S: SyncWord>(
    c: &Call,
    what: What,
    argument: &'static str,
    ivars: *const S,
    nelems: usize,
    indices: *mut usize,
    status: *const c_int,
    cmp: c_int,
    values: *const S,
    vector: bool,
) -> usize {
    let size = std::mem::size_of::<S>();
    c.check_watched(argument, ivars as usize, nelems, size);
    let cmp = c.check(cmp_from_c(c.routine, cmp));
    if nelems > 0 && values.is_null() {
        c.invalid("cmp_values", "null array of comparison values");
    }
    if nelems > 0 && indices.is_null() && matches!(what, What::WaitSome | What::TestSome) {
        c.invalid("indices", "null array of indices");
    }
    let set = WaitSet { ivars, nelems, status, cmp, values, vector };
    // Waits are published (hang reports name them); tests return at once.
    let _call = matches!(what, What::WaitAll | What::WaitAny | What::WaitSome)
        .then(|| c.rt.enter_call(c.routine, None));
    // SAFETY: the arrays are valid for nelems (caller); ivars checked to be aligned, mapped words.
    unsafe {
        match what {
            What::WaitAll => {
                p2p::wait_all(c.rt, &set);
                1
            }
            What::WaitAny => p2p::wait_any(c.rt, &set),
            What::WaitSome => p2p::wait_some(c.rt, &set, indices),
            What::TestAll => p2p::test_all(c.rt, &set) as usize,
            What::TestAny => p2p::test_any(c.rt, &set),
            What::TestSome => p2p::test_some(c.rt, &set, indices),
        }
    }
}

/// One wait/test routine: its C signature, and the arguments of [`run`] in terms of it.
macro_rules! p2p_fn {
    ($name:ident, $what:ident -> $ret:ty, $t:ty as $s:ty, ($($arg:ident: $ty:ty),*),
     ($iv:expr, $ne:expr, $ix:expr, $st:expr, $cmp:expr, $vals:expr, $vec:expr)) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            let c = Call::default(stringify!($name));
            // SAFETY: the C caller passes arrays valid for nelems elements; `$t` and `$s` have
            // the same size and alignment.
            let n = unsafe { run::<$s>(&c, What::$what, stringify!($iv), $iv.cast::<$s>(), $ne, $ix, $st, $cmp, ($vals as *const $t).cast::<$s>(), $vec) };
            <$ret as FromCount>::from_count(n)
        }
        pshmem!($name);
    };
}

/// Every wait/test routine of one type.
macro_rules! p2p_family {
    ($($n:ident: $t:ty as $s:ty),* $(,)?) => { paste::paste! {$(
        p2p_fn!([<shmem_ $n _wait_until>], WaitAll -> (), $t as $s, (ivar: *mut $t, cmp: c_int, cmp_value: $t),
            (ivar, 1, null_mut(), null(), cmp, &cmp_value, false));
        p2p_fn!([<shmem_ $n _test>], TestAll -> c_int, $t as $s, (ivar: *mut $t, cmp: c_int, cmp_value: $t),
            (ivar, 1, null_mut(), null(), cmp, &cmp_value, false));
        p2p_fn!([<shmem_ $n _wait>], WaitAll -> (), $t as $s, (ivar: *mut $t, cmp_value: $t),
            (ivar, 1, null_mut(), null(), Cmp::Ne as c_int, &cmp_value, false));
        p2p_set!($n: $t as $s, wait_until_all, WaitAll -> ());
        p2p_set!($n: $t as $s, wait_until_any, WaitAny -> usize);
        p2p_set!($n: $t as $s, wait_until_some, WaitSome -> usize);
        p2p_set!($n: $t as $s, test_all, TestAll -> c_int);
        p2p_set!($n: $t as $s, test_any, TestAny -> usize);
        p2p_set!($n: $t as $s, test_some, TestSome -> usize);
    )*}};
}

/// One `_all`/`_any`/`_some` routine of one type with its `_vector` form.
macro_rules! p2p_set {
    ($n:ident: $t:ty as $s:ty, $op:ident, $what:ident -> $ret:ty) => { paste::paste! {
        p2p_set!(@one [<shmem_ $n _ $op>], $what -> $ret, $t as $s, cmp_value: $t, &cmp_value, false);
        p2p_set!(@one [<shmem_ $n _ $op _vector>], $what -> $ret, $t as $s, cmp_values: *mut $t, cmp_values, true);
    }};
    (@one $name:ident, WaitSome -> $ret:ty, $t:ty as $s:ty, $v:ident: $vt:ty, $vals:expr, $vec:expr) => {
        p2p_fn!($name, WaitSome -> $ret, $t as $s,
            (ivars: *mut $t, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, $v: $vt),
            (ivars, nelems, indices, status, cmp, $vals, $vec));
    };
    (@one $name:ident, TestSome -> $ret:ty, $t:ty as $s:ty, $v:ident: $vt:ty, $vals:expr, $vec:expr) => {
        p2p_fn!($name, TestSome -> $ret, $t as $s,
            (ivars: *mut $t, nelems: usize, indices: *mut usize, status: *const c_int, cmp: c_int, $v: $vt),
            (ivars, nelems, indices, status, cmp, $vals, $vec));
    };
    (@one $name:ident, $what:ident -> $ret:ty, $t:ty as $s:ty, $v:ident: $vt:ty, $vals:expr, $vec:expr) => {
        p2p_fn!($name, $what -> $ret, $t as $s, (ivars: *mut $t, nelems: usize, status: *const c_int, cmp: c_int, $v: $vt),
            (ivars, nelems, null_mut(), status, cmp, $vals, $vec));
    };
}

p2p_types!(p2p_family);

/// Deprecated `shmem_wait`: waits until `*ivar != cmp_value`.
#[no_mangle]
pub unsafe extern "C" fn shmem_wait(ivar: *mut c_long, cmp_value: c_long) {
    let c = Call::default("shmem_wait");
    // SAFETY: one watched variable, one value (a local).
    unsafe {
        run::<i64>(
            &c,
            What::WaitAll,
            "ivar",
            ivar.cast(),
            1,
            null_mut(),
            null(),
            Cmp::Ne as c_int,
            &cmp_value,
            false,
        )
    };
}

#[no_mangle]
pub unsafe extern "C" fn shmem_signal_fetch(sig_addr: *const u64) -> u64 {
    let c = Call::default("shmem_signal_fetch");
    // SAFETY: the core checks that the word is symmetric and aligned; PE is this PE.
    c.check(unsafe { fcore::atomic::amo(c.rt, c.routine, sig_addr, c.rt.my_pe as i64, AmoOp::Fetch) })
}

#[no_mangle]
pub unsafe extern "C" fn shmem_signal_wait_until(sig_addr: *mut u64, cmp: c_int, cmp_value: u64) -> u64 {
    let c = Call::default("shmem_signal_wait_until");
    c.check_watched("sig_addr", sig_addr as usize, 1, 8);
    let cmp = c.check(cmp_from_c(c.routine, cmp));
    // SAFETY: checked above to be a symmetric, aligned word of this PE.
    c.check(unsafe { p2p::signal_wait_until(c.rt, c.routine, sig_addr, cmp, cmp_value) })
}

/// `shmem_set_lock`, `shmem_clear_lock`, `shmem_test_lock` (which returns 0 when it took the
/// lock, 1 when the lock was held).
macro_rules! lock_routine {
    ($($name:ident -> $ret:ty = $core:ident($map:expr);)*) => {$(
        #[no_mangle]
        pub extern "C" fn $name(lock: *mut c_long) -> $ret {
            let c = Call::default(stringify!($name));
            $map(c.check(p2p::$core(c.rt, lock.cast_const())))
        }
        pshmem!($name);
    )*};
}
lock_routine! {
    shmem_set_lock -> () = set_lock(|()| ());
    shmem_clear_lock -> () = clear_lock(|()| ());
    shmem_test_lock -> c_int = test_lock(|taken: bool| c_int::from(!taken));
}

pshmem!(shmem_wait, shmem_signal_fetch, shmem_signal_wait_until);
