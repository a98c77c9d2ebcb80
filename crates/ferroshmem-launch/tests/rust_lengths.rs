//! Adversarial counts, strides and offsets through the safe Rust API (issue 13): every routine
//! that takes one returns an `Err` naming the routine and the argument, on every PE alike, and
//! never crashes or hangs; the team still works afterwards (each failed collective is followed
//! by one that succeeds, which would hang if a PE had been left behind).

mod common;

use ferroshmem::coll::Sum;
use ferroshmem::{Compare, Error, Shmem, Signal, SymSlice, TeamConfig};

const DEFAULT: TeamConfig = TeamConfig { num_contexts: 0 };

/// Asserts that `r` is an invalid-argument error of `routine` naming `argument`.
#[track_caller]
fn invalid<T: std::fmt::Debug>(r: ferroshmem::Result<T>, routine: &str, argument: &str) -> String {
    match r {
        Err(e @ Error::InvalidArgument { .. }) => {
            let Error::InvalidArgument { routine: r, argument: a, .. } = &e else { unreachable!() };
            assert_eq!((*r, *a), (routine, argument), "{e}");
            e.to_string()
        }
        other => panic!("{routine}: expected an invalid {argument}, got {other:?}"),
    }
}

/// A collective that must have succeeded on every PE, so no PE was left behind.
fn still_works(s: &Shmem, dest: &mut SymSlice<u8>, src: &mut SymSlice<u8>) {
    let world = s.team_world();
    let (me, n) = (s.my_pe(), s.n_pes());
    src.write(0, me as u8).unwrap();
    world.fcollect(dest, src, 1).unwrap();
    assert_eq!(dest.to_vec()[..n], (0..n as u8).collect::<Vec<_>>()[..]);
    world.sync().unwrap();
}

#[test]
fn collective_counts_that_overflow_fail_on_every_pe() {
    let name = "collective_counts_that_overflow_fail_on_every_pe";
    common::spmd(name, &[1, 2, 3], &[], collective_counts);
}

#[test]
fn collective_counts_that_overflow_fail_on_every_pe_checked() {
    let name = "collective_counts_that_overflow_fail_on_every_pe_checked";
    common::spmd(name, &[2, 3], &[("SHMEMX_CHECK_COLLECTIVES", "1")], collective_counts);
}

fn collective_counts(s: &Shmem) {
    let n = s.n_pes();
    let world = s.team_world();
    let mut dest: SymSlice<u8> = s.alloc(64).unwrap();
    let mut src: SymSlice<u8> = s.alloc(64).unwrap();
    // The example: (n * nelems - 1) * stride + 1 wrapped to 0 at 2 PEs.
    let r = world.alltoall(&mut dest, &mut src, 1 << 63);
    if n == 1 {
        invalid(r, "Team::alltoall", "dest");
    } else {
        invalid(r, "Team::alltoall", "nelems");
    }
    still_works(s, &mut dest, &mut src);
    for nelems in [usize::MAX, usize::MAX / 2 + 1, 65] {
        let arg = if n.checked_mul(nelems).is_none() { "nelems" } else { "dest" };
        invalid(world.alltoall(&mut dest, &mut src, nelems), "Team::alltoall", arg);
        invalid(world.alltoalls(&mut dest, &mut src, 1, 1, nelems), "Team::alltoalls", arg);
        invalid(world.fcollect(&mut dest, &mut src, nelems), "Team::fcollect", arg);
        invalid(world.broadcast(&mut dest, &mut src, nelems, 0), "Team::broadcast", "dest");
        invalid(world.reduce(Sum, &mut dest, &mut src, nelems), "Team::reduce", "dest");
        invalid(world.reduce_in_place(Sum, &mut dest, nelems), "Team::reduce", "dest");
    }
    still_works(s, &mut dest, &mut src);
    // Strides: the extent (n - 1) * stride + 1 overflows with one element per PE (at
    // one PE it is 1 element, which fits).
    for (dst, sst) in [(usize::MAX, 1), (1, usize::MAX), (usize::MAX / 2 + 1, 1), (1, usize::MAX / 2 + 1)] {
        let r = world.alltoalls(&mut dest, &mut src, dst, sst, 1);
        let extent = |stride: usize| (n - 1).checked_mul(stride).and_then(|e| e.checked_add(1));
        match (extent(dst), extent(sst)) {
            (None, _) => _ = invalid(r, "Team::alltoalls", "dst"),
            (Some(e), _) if e > 64 => _ = invalid(r, "Team::alltoalls", "dest"),
            (_, None) => _ = invalid(r, "Team::alltoalls", "sst"),
            (_, Some(e)) if e > 64 => _ = invalid(r, "Team::alltoalls", "source"),
            _ => r.unwrap(),
        }
    }
    invalid(world.alltoalls(&mut dest, &mut src, 0, 1, 1), "Team::alltoalls", "dst/sst");
    invalid(world.alltoalls(&mut dest, &mut src, 1, 0, 1), "Team::alltoalls", "dst/sst");
    invalid(world.alltoalls(&mut dest, &mut src, 2, 1, 64 / n), "Team::alltoalls", "dest");
    invalid(world.alltoalls(&mut dest, &mut src, 1, 2, 64 / n), "Team::alltoalls", "source");
    // A root outside the team.
    for root in [n, usize::MAX] {
        invalid(world.broadcast(&mut dest, &mut src, 1, root), "Team::broadcast", "PE_root");
    }
    still_works(s, &mut dest, &mut src);
    // collect: counts differ between PEs. One PE's bad count fails every PE the same.
    let last = n - 1;
    let mine = if s.my_pe() == last { usize::MAX } else { 1 };
    let e = invalid(world.collect(&mut dest, &mut src, mine), "Team::collect", "nelems");
    assert!(e.contains(&format!("team PE {last} ")), "{e}");
    still_works(s, &mut dest, &mut src);
    let mine = if s.my_pe() == last { 65 } else { 0 };
    invalid(world.collect(&mut dest, &mut src, mine), "Team::collect", "nelems");
    // Counts that are each fine but add up beyond dest.
    if n == 1 {
        assert_eq!(world.collect(&mut dest, &mut src, 64).unwrap(), 64);
    } else {
        let e = invalid(world.collect(&mut dest, &mut src, 64), "Team::collect", "dest");
        assert!(e.contains(&format!("{} bytes collected, room for 64", 64 * n)), "{e}");
    }
    still_works(s, &mut dest, &mut src);
    assert_eq!(world.collect(&mut dest, &mut src, 1).unwrap(), n);
    s.barrier_all();
}

#[test]
fn offsets_and_indices_that_overflow_fail() {
    common::spmd("offsets_and_indices_that_overflow_fail", &[2], &[], |s| {
        let a: SymSlice<u64> = s.alloc(4).unwrap();
        let sig: SymSlice<u64> = s.alloc(1).unwrap();
        let mut buf = [0u64; 2];
        for i in [4, usize::MAX, usize::MAX - 1, usize::MAX / 8 + 1] {
            invalid(a.read(i), "SymSlice::read", "offset");
            invalid(a.write(i, 1), "SymSlice::write", "offset");
            invalid(a.put(1, i, &buf), "SymSlice::put", "offset");
            invalid(a.get(1, i, &mut buf), "SymSlice::get", "offset");
            invalid(a.p(1, i, 1), "SymSlice::put", "offset");
            invalid(a.g(1, i), "SymSlice::g", "offset");
            invalid(a.ptr(1, i), "SymSlice::ptr", "offset");
            invalid(a.atomic_fetch(1, i), "SymSlice::atomic_fetch", "offset");
            invalid(a.atomic_set(1, i, 1), "SymSlice::atomic_set", "offset");
            invalid(a.atomic_swap(1, i, 1), "SymSlice::atomic_swap", "offset");
            invalid(a.atomic_compare_swap(1, i, 0, 1), "SymSlice::atomic_compare_swap", "offset");
            invalid(a.atomic_fetch_add(1, i, 1), "SymSlice::atomic_fetch_add", "offset");
            invalid(a.atomic_fetch_and(1, i, 1), "SymSlice::atomic_fetch_and", "offset");
            invalid(a.atomic_fetch_or(1, i, 1), "SymSlice::atomic_fetch_or", "offset");
            invalid(a.atomic_fetch_xor(1, i, 1), "SymSlice::atomic_fetch_xor", "offset");
            invalid(a.wait_until(i, Compare::Eq, 0), "SymSlice::wait_until", "offset");
            invalid(a.test(i, Compare::Eq, 0), "SymSlice::test", "offset");
            invalid(a.put_signal(1, i, &buf, &sig, 0, 1, Signal::Set), "SymSlice::put_signal", "offset");
            invalid(a.put_signal(1, 0, &buf, &sig, i, 1, Signal::Set), "SymSlice::put_signal", "offset");
            let world = s.team_world();
            invalid(world.ptr(&a, 1, i), "Team::ptr", "offset");
            assert!(matches!(world.ptr(&a, i, 0), Err(Error::InvalidPe { .. })));
            assert_eq!(world.world_pe(i), None);
            assert_eq!(world.translate_pe(i, &world), None);
        }
        // Lengths whose byte count overflows; and one that fits but cannot be had.
        invalid(s.alloc::<u64>(usize::MAX / 4), "Shmem::alloc", "len");
        assert!(matches!(s.alloc::<u8>(usize::MAX), Err(Error::OutOfMemory { .. })));
        assert!(matches!(s.alloc::<u8>(usize::MAX - 4095), Err(Error::OutOfMemory { .. })));
        s.barrier_all();
    });
}

#[test]
fn team_arguments_that_overflow_fail_on_every_pe() {
    common::spmd("team_arguments_that_overflow_fail_on_every_pe", &[1, 3], &[], |s| {
        let world = s.team_world();
        for (start, stride, size) in [
            (0, i64::MAX, 2),
            (0, i64::MIN, 2),
            (0, 1, i64::MAX),
            (i64::MAX, 1, 1),
            (i64::MIN, 1, 1),
            (1, i64::MAX, i64::MAX),
            (0, -1, i64::MIN),
        ] {
            match world.split_strided(start, stride, size, DEFAULT) {
                Err(Error::TeamCreate { routine: "Team::split_strided", .. }) => {}
                other => panic!("({start}, {stride}, {size}): {other:?}"),
            }
        }
        for xrange in [0, -1, i64::MIN] {
            assert!(matches!(
                world.split_2d(xrange, DEFAULT, DEFAULT),
                Err(Error::TeamCreate { routine: "Team::split_2d", .. })
            ));
        }
        let (x, y) = world.split_2d(i64::MAX, DEFAULT, DEFAULT).unwrap();
        assert_eq!((x.n_pes(), y.n_pes()), (s.n_pes(), 1));
        for npes in [0, usize::MAX, 1 << 63, s.n_pes() + 1] {
            let r = s.team_init(1, npes, 0, DEFAULT);
            invalid(r, "Shmem::team_init", "npes");
        }
        world.sync().unwrap();
    });
}
