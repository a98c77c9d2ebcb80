//! Collectives in the C ABI: the OpenSHMEM 1.5 team forms (`shmem_broadcastmem`,
//! `shmem_TYPE_broadcast`, collect, fcollect, alltoall, alltoalls and `shmem_TYPE_OP_reduce`)
//! and the deprecated active-set forms (`shmem_barrier`, `shmem_broadcast32`, ...,
//! `shmem_TYPE_OP_to_all`) with their `pSync`. The algorithms are the core's (`fcore::coll`).
//!
//! Team forms return 0, or nonzero (and write nothing) when the team handle is invalid or an
//! argument is wrong on every PE alike; a buffer that is not symmetric stops the job with a
//! message, as for RMA. The active-set forms return nothing and stop the job on bad input.

use std::ffi::{c_int, c_long, c_void};
use std::mem::size_of;

use fcore::coll::active::SetGroup;
use fcore::coll::{self, And, Complex, Max, Min, Or, Prod, Sum, TeamGroup, Xor};
use fcore::team::TeamHandle;
use fcore::Error;

use crate::rma::LongDouble;
use crate::{check, debug_report, fatal, rt};

/// `shmem_team_t` as C passes it (see `team/mod.rs`).
type CTeam = usize;

/// Runs `body` on the team behind `team`: 0 on success, nonzero on an error every PE sees.
#[inline]
fn on_team(
    routine: &'static str,
    team: CTeam,
    body: impl FnOnce(&fcore::runtime::Runtime, &mut TeamGroup) -> fcore::Result<()>,
) -> c_int {
    let rt = rt(routine);
    // SAFETY: the team is not destroyed during this collective call on this PE (destroying a
    // team while it runs a collective is erroneous in OpenSHMEM); `t` lives for this call.
    let Some(t) = (unsafe { rt.teams().get_unguarded(TeamHandle(team as u64)) }) else {
        debug_report(rt, format_args!("{routine}: not a team (SHMEM_TEAM_INVALID or destroyed)"));
        return -1;
    };
    let mut g = TeamGroup::new(t);
    match body(rt, &mut g) {
        Ok(()) => 0,
        Err(e @ Error::NotSymmetric { .. }) => fatal(&e),
        Err(e) => {
            crate::report_failure(rt, &e, t.my_index == 0);
            -1
        }
    }
}

/// A broadcast of `n` bytes as C passes it.
fn bcast<T, U>(dest: *mut T, source: *const U, n: usize, root: usize, update_root: bool) -> coll::Broadcast {
    coll::Broadcast { dest: dest as usize, src: source as usize, nbytes: n, root, update_root }
}

/// A collect of this PE's `n` bytes as C passes it (the destination's size is not known).
fn collect_args<T, U>(dest: *mut T, source: *const U, n: usize) -> coll::Collect {
    coll::Collect { dest: dest as usize, src: source as usize, nbytes: Some(n), dest_cap: usize::MAX }
}

/// Runs `$body` (with `$rt` the runtime and `$g` the group) on the active set: on its team
/// when it has one (`coll::active`), else through its pSync; stops the job on bad input.
macro_rules! on_set {
    ($routine:expr, $start:expr, $log_stride:expr, $size:expr, $psync:expr, |$rt:ident, $g:ident| $body:expr) => {{
        let $rt = rt($routine);
        let group = check(coll::active::active_group(
            $rt,
            $routine,
            $start as i64,
            $log_stride as i64,
            $size as i64,
            $psync as usize,
        ));
        // The body runs in a closure so that its `?` has a Result to return into.
        match group {
            SetGroup::World => {
                let $g = &mut TeamGroup::new(&$rt.teams().world);
                #[allow(clippy::redundant_closure_call)]
                let done = (|| $body)();
                check(done)
            }
            SetGroup::Team(team) => {
                let $g = &mut TeamGroup::new(&team);
                #[allow(clippy::redundant_closure_call)]
                let done = (|| $body)();
                check(done)
            }
            SetGroup::Set(mut set) => {
                let $g = &mut set;
                #[allow(clippy::redundant_closure_call)]
                let done = (|| $body)();
                check(done)
            }
        }
    }};
}

/// Element counts from C (`size_t`) to bytes, stopping on overflow.
#[inline]
fn bytes(routine: &'static str, nelems: usize, size: usize) -> usize {
    nelems.checked_mul(size).unwrap_or_else(|| {
        fatal(&Error::invalid(routine, "nelems", format!("{nelems} elements of {size} bytes overflow")))
    })
}

/// The team data-movement routines for one element size: `$n` is the name fragment.
macro_rules! team_moves {
    ($bcast:ident, $collect:ident, $fcollect:ident, $alltoall:ident, $alltoalls:ident, $t:ty, $size:expr) => {
        #[no_mangle]
        pub extern "C" fn $bcast(
            team: CTeam,
            dest: *mut $t,
            source: *const $t,
            nelems: usize,
            root: c_int,
        ) -> c_int {
            const R: &str = stringify!($bcast);
            let n = bytes(R, nelems, $size);
            on_team(R, team, |rt, g| {
                let root =
                    usize::try_from(root).map_err(|_| Error::invalid(R, "PE_root", format!("{root}")))?;
                coll::broadcast(rt, g, R, bcast(dest, source, n, root, true))
            })
        }

        #[no_mangle]
        pub extern "C" fn $collect(team: CTeam, dest: *mut $t, source: *const $t, nelems: usize) -> c_int {
            const R: &str = stringify!($collect);
            let n = bytes(R, nelems, $size);
            on_team(R, team, |rt, g| coll::collect(rt, g, R, collect_args(dest, source, n)).map(|_| ()))
        }

        #[no_mangle]
        pub extern "C" fn $fcollect(team: CTeam, dest: *mut $t, source: *const $t, nelems: usize) -> c_int {
            const R: &str = stringify!($fcollect);
            let n = bytes(R, nelems, $size);
            on_team(R, team, |rt, g| coll::fcollect(rt, g, R, dest as usize, source as usize, n))
        }

        #[no_mangle]
        pub extern "C" fn $alltoall(team: CTeam, dest: *mut $t, source: *const $t, nelems: usize) -> c_int {
            const R: &str = stringify!($alltoall);
            on_team(R, team, |rt, g| {
                coll::alltoalls(
                    rt,
                    g,
                    R,
                    coll::Alltoalls::contiguous(dest as usize, source as usize, $size, nelems),
                )
            })
        }

        #[no_mangle]
        pub extern "C" fn $alltoalls(
            team: CTeam,
            dest: *mut $t,
            source: *const $t,
            dst: isize,
            sst: isize,
            nelems: usize,
        ) -> c_int {
            const R: &str = stringify!($alltoalls);
            on_team(R, team, |rt, g| {
                let (dst, sst) = match (usize::try_from(dst), usize::try_from(sst)) {
                    (Ok(d), Ok(s)) => (d, s),
                    _ => {
                        return Err(Error::invalid(R, "dst/sst", format!("({dst}, {sst}) are not positive")))
                    }
                };
                coll::alltoalls(
                    rt,
                    g,
                    R,
                    coll::Alltoalls {
                        dest: dest as usize,
                        src: source as usize,
                        elem: $size,
                        dst,
                        sst,
                        nelems,
                    },
                )
            })
        }
        pshmem!($bcast, $collect, $fcollect, $alltoall, $alltoalls);
    };
}

macro_rules! team_moves_typed {
    ($($n:ident: $t:ty),* $(,)?) => { paste::paste! {$(
        team_moves!([<shmem_ $n _broadcast>], [<shmem_ $n _collect>], [<shmem_ $n _fcollect>],
            [<shmem_ $n _alltoall>], [<shmem_ $n _alltoalls>], $t, size_of::<$t>());
    )*} };
}

rma_types!(team_moves_typed);
team_moves_typed!(longdouble: LongDouble);
team_moves!(
    shmem_broadcastmem,
    shmem_collectmem,
    shmem_fcollectmem,
    shmem_alltoallmem,
    shmem_alltoallsmem,
    c_void,
    1
);

/// `shmem_TYPE_OP_reduce` for the listed operations of one type.
macro_rules! team_reduce {
    ($n:ident: $t:ty => $($op:ident / $name:ident),*) => { paste::paste! {$(
        #[no_mangle]
        pub extern "C" fn [<shmem_ $n _ $name _reduce>](team: CTeam, dest: *mut $t, source: *const $t, nreduce: usize) -> c_int {
            const R: &str = stringify!([<shmem_ $n _ $name _reduce>]);
            on_team(R, team, |rt, g| coll::reduce::<$t, $op>(rt, g, R, dest as usize, source as usize, nreduce))
        }
        pshmem!([<shmem_ $n _ $name _reduce>]);
    )*} };
}

/// `shmem_TYPE_OP_to_all` (deprecated) for the listed operations of one type.
macro_rules! to_all {
    ($n:ident: $t:ty => $($op:ident / $name:ident),*) => { paste::paste! {$(
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn [<shmem_ $n _ $name _to_all>](
            dest: *mut $t, source: *const $t, nreduce: c_int, start: c_int, log_stride: c_int, size: c_int,
            _pwrk: *mut $t, psync: *mut c_long,
        ) {
            const R: &str = stringify!([<shmem_ $n _ $name _to_all>]);
            let nreduce = usize::try_from(nreduce)
                .unwrap_or_else(|_| fatal(&Error::invalid(R, "nreduce", format!("{nreduce} is negative"))));
            on_set!(R, start, log_stride, size, psync, |rt, set| {
                coll::reduce::<$t, $op>(rt, set, R, dest as usize, source as usize, nreduce)
            })
        }
        pshmem!([<shmem_ $n _ $name _to_all>]);
    )*} };
}

macro_rules! reduce_bitwise_and_arith {
    ($($n:ident: $t:ty),* $(,)?) => {$(
        team_reduce!($n: $t => And/and, Or/or, Xor/xor, Max/max, Min/min, Sum/sum, Prod/prod);
    )*};
}
macro_rules! reduce_arith {
    ($($n:ident: $t:ty),* $(,)?) => {$(
        team_reduce!($n: $t => Max/max, Min/min, Sum/sum, Prod/prod);
    )*};
}

reduce_arith! {
    char: std::ffi::c_char, schar: std::ffi::c_schar, short: std::ffi::c_short, int: c_int, long: c_long,
    longlong: std::ffi::c_longlong, ptrdiff: isize, float: f32, double: f64,
}
reduce_bitwise_and_arith! {
    uchar: std::ffi::c_uchar, ushort: std::ffi::c_ushort, uint: std::ffi::c_uint, ulong: std::ffi::c_ulong,
    ulonglong: std::ffi::c_ulonglong, int8: i8, int16: i16, int32: i32, int64: i64, uint8: u8, uint16: u16,
    uint32: u32, uint64: u64, size: usize,
}
team_reduce!(longdouble: LongDouble => Max/max, Min/min, Sum/sum, Prod/prod);
team_reduce!(complexf: Complex<f32> => Sum/sum, Prod/prod);
team_reduce!(complexd: Complex<f64> => Sum/sum, Prod/prod);

to_all!(short: std::ffi::c_short => And/and, Or/or, Xor/xor, Max/max, Min/min, Sum/sum, Prod/prod);
to_all!(int: c_int => And/and, Or/or, Xor/xor, Max/max, Min/min, Sum/sum, Prod/prod);
to_all!(long: c_long => And/and, Or/or, Xor/xor, Max/max, Min/min, Sum/sum, Prod/prod);
to_all!(longlong: std::ffi::c_longlong => And/and, Or/or, Xor/xor, Max/max, Min/min, Sum/sum, Prod/prod);
to_all!(float: f32 => Max/max, Min/min, Sum/sum, Prod/prod);
to_all!(double: f64 => Max/max, Min/min, Sum/sum, Prod/prod);
to_all!(longdouble: LongDouble => Max/max, Min/min, Sum/sum, Prod/prod);
to_all!(complexf: Complex<f32> => Sum/sum, Prod/prod);
to_all!(complexd: Complex<f64> => Sum/sum, Prod/prod);

/// `shmem_barrier` (deprecated): quiet, then a barrier over the active set.
#[no_mangle]
pub extern "C" fn shmem_barrier(start: c_int, log_stride: c_int, size: c_int, psync: *mut c_long) {
    set_barrier("shmem_barrier", start, log_stride, size, psync, true);
}

/// `shmem_sync` (deprecated active-set form): a barrier over the active set.
#[no_mangle]
pub extern "C" fn shmem_sync(start: c_int, log_stride: c_int, size: c_int, psync: *mut c_long) {
    set_barrier("shmem_sync", start, log_stride, size, psync, false);
}

/// A barrier over an active set (its team's sync, or the pSync barrier), after a quiet when
/// `quiet`.
fn set_barrier(
    routine: &'static str,
    start: c_int,
    log_stride: c_int,
    size: c_int,
    psync: *mut c_long,
    quiet: bool,
) {
    let rt = rt(routine);
    let group = check(coll::active::active_group(
        rt,
        routine,
        start as i64,
        log_stride as i64,
        size as i64,
        psync as usize,
    ));
    if quiet {
        rt.quiet();
    }
    match group {
        SetGroup::World => check(fcore::team::team_sync(rt, &rt.teams().world, routine)),
        SetGroup::Team(team) => check(fcore::team::team_sync(rt, &team, routine)),
        SetGroup::Set(set) => {
            let _call = rt.enter_call(routine, None);
            set.barrier(rt)
        }
    }
}

/// The deprecated sized data-movement routines (`$bits` 32 or 64).
macro_rules! set_moves {
    ($($bits:literal),*) => { paste::paste! {$(
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn [<shmem_broadcast $bits>](
            dest: *mut c_void, source: *const c_void, nelems: usize, root: c_int, start: c_int, log_stride: c_int,
            size: c_int, psync: *mut c_long,
        ) {
            const R: &str = stringify!([<shmem_broadcast $bits>]);
            let n = bytes(R, nelems, $bits / 8);
            on_set!(R, start, log_stride, size, psync, |rt, set| {
                let root = usize::try_from(root).map_err(|_| Error::invalid(R, "PE_root", format!("{root}")))?;
                coll::broadcast(rt, set, R, bcast(dest, source, n, root, false))
            })
        }

        #[no_mangle]
        pub extern "C" fn [<shmem_collect $bits>](
            dest: *mut c_void, source: *const c_void, nelems: usize, start: c_int, log_stride: c_int, size: c_int,
            psync: *mut c_long,
        ) {
            const R: &str = stringify!([<shmem_collect $bits>]);
            let n = bytes(R, nelems, $bits / 8);
            on_set!(R, start, log_stride, size, psync, |rt, set| {
                coll::collect(rt, set, R, collect_args(dest, source, n)).map(|_| ())
            })
        }

        #[no_mangle]
        pub extern "C" fn [<shmem_fcollect $bits>](
            dest: *mut c_void, source: *const c_void, nelems: usize, start: c_int, log_stride: c_int, size: c_int,
            psync: *mut c_long,
        ) {
            const R: &str = stringify!([<shmem_fcollect $bits>]);
            let n = bytes(R, nelems, $bits / 8);
            on_set!(R, start, log_stride, size, psync, |rt, set| coll::fcollect(rt, set, R, dest as usize, source as usize, n))
        }

        #[no_mangle]
        pub extern "C" fn [<shmem_alltoall $bits>](
            dest: *mut c_void, source: *const c_void, nelems: usize, start: c_int, log_stride: c_int, size: c_int,
            psync: *mut c_long,
        ) {
            const R: &str = stringify!([<shmem_alltoall $bits>]);
            on_set!(R, start, log_stride, size, psync, |rt, set| {
                coll::alltoalls(rt, set, R, coll::Alltoalls::contiguous(dest as usize, source as usize, $bits / 8, nelems))
            })
        }

        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn [<shmem_alltoalls $bits>](
            dest: *mut c_void, source: *const c_void, dst: isize, sst: isize, nelems: usize, start: c_int,
            log_stride: c_int, size: c_int, psync: *mut c_long,
        ) {
            const R: &str = stringify!([<shmem_alltoalls $bits>]);
            on_set!(R, start, log_stride, size, psync, |rt, set| {
                let (dst, sst) = match (usize::try_from(dst), usize::try_from(sst)) {
                    (Ok(d), Ok(s)) => (d, s),
                    _ => return Err(Error::invalid(R, "dst/sst", format!("({dst}, {sst}) are not positive"))),
                };
                coll::alltoalls(rt, set, R, coll::Alltoalls { dest: dest as usize, src: source as usize, elem: $bits / 8, dst, sst, nelems })
            })
        }
        pshmem!(
            [<shmem_broadcast $bits>], [<shmem_collect $bits>], [<shmem_fcollect $bits>], [<shmem_alltoall $bits>],
            [<shmem_alltoalls $bits>],
        );
    )*} };
}

set_moves!(32, 64);

pshmem!(shmem_barrier, shmem_sync);
