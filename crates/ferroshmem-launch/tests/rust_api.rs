//! The safe Rust API on real PEs: each test re-runs this test binary under oshrun as N PEs
//! (only the named test runs in each PE), with a timeout and a leftover check.

mod common;

use ferroshmem::{Compare, Error, Lock, Signal, SymSlice};

const PE_COUNTS: &[usize] = &[1, 2, 4, 7];

/// Runs `body` as an SPMD program on each PE count: in the parent, launches the jobs; in a PE,
/// runs the body between init and finalize.

#[test]
fn put_get_p_g_between_neighbours() {
    common::spmd("put_get_p_g_between_neighbours", PE_COUNTS, &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let right = (me + 1) % n;
        let left = (me + n - 1) % n;
        let data: SymSlice<u64> = s.alloc(1000).unwrap();
        let src: Vec<u64> = (0..1000).map(|i| (me * 1_000_000 + i) as u64).collect();
        data.put(right, 0, &src).unwrap();
        s.barrier_all();
        let local = data.to_vec();
        assert!(local.iter().enumerate().all(|(i, &v)| v == (left * 1_000_000 + i) as u64));
        let mut got = vec![0u64; 10];
        data.get(right, 990, &mut got).unwrap();
        assert_eq!(got[9], (me * 1_000_000 + 999) as u64, "get sees what we put there");
        s.barrier_all();
        data.p(left, 5, 42).unwrap();
        s.barrier_all();
        assert_eq!(data.read(5).unwrap(), 42);
        assert_eq!(data.g(right, 5).unwrap(), 42);
        assert!(!data.ptr(right, 0).unwrap().is_null());
        data.free().unwrap();
    });
}

#[test]
fn atomics_from_every_pe_add_up() {
    common::spmd("atomics_from_every_pe_add_up", PE_COUNTS, &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let counters: SymSlice<i64> = s.alloc(4).unwrap();
        for _ in 0..100 {
            counters.atomic_fetch_add(0, 0, 1).unwrap();
            counters.atomic_fetch_add(n - 1, 1, -2).unwrap();
        }
        counters.atomic_fetch_or(0, 2, 1 << me).unwrap();
        s.barrier_all();
        if me == 0 {
            assert_eq!(counters.read(0).unwrap(), 100 * n as i64);
            assert_eq!(counters.read(2).unwrap(), (1i64 << n) - 1);
        }
        if me == n - 1 {
            assert_eq!(counters.read(1).unwrap(), -200 * n as i64);
        }
        s.barrier_all();
        // compare_swap elects exactly one winner.
        let won = counters.atomic_compare_swap(0, 3, 0, me as i64 + 1).unwrap() == 0;
        let winners: SymSlice<i32> = s.alloc(1).unwrap();
        if won {
            winners.atomic_fetch_add(0, 0, 1).unwrap();
        }
        s.barrier_all();
        if me == 0 {
            assert_eq!(winners.read(0).unwrap(), 1);
        }
        counters.atomic_set(me, 3, 5).unwrap();
        assert_eq!(counters.atomic_swap(me, 3, 9).unwrap(), 5);
        assert_eq!(counters.atomic_fetch_xor(me, 3, 3).unwrap(), 9);
        assert_eq!(counters.atomic_fetch_and(me, 3, 8).unwrap(), 10);
        assert_eq!(counters.atomic_fetch(me, 3).unwrap(), 8);
    });
}

#[test]
fn put_signal_wakes_a_waiting_neighbour() {
    common::spmd("put_signal_wakes_a_waiting_neighbour", PE_COUNTS, &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let data: SymSlice<u32> = s.alloc(64).unwrap();
        let sig: SymSlice<u64> = s.alloc(1).unwrap();
        // A token passes around the ring: each PE waits for its left neighbour's signal.
        for round in 1..=20u64 {
            if me == 0 && round > 0 {
                // PE 0 starts each round.
            } else {
                sig.wait_until(0, Compare::Ge, round).unwrap();
                assert_eq!(data.read(63).unwrap(), round as u32, "data arrives before its signal");
            }
            let payload = vec![round as u32; 64];
            data.put_signal((me + 1) % n, 0, &payload, &sig, 0, 1, Signal::Add).unwrap();
            if me == 0 {
                sig.wait_until(0, Compare::Ge, round).unwrap();
            }
        }
        s.barrier_all();
        assert_eq!(sig.read(0).unwrap(), 20);
        assert!(sig.test(0, Compare::Eq, 20).unwrap());
    });
}

#[test]
fn lock_protects_a_read_modify_write() {
    common::spmd("lock_protects_a_read_modify_write", PE_COUNTS, &[], |s| {
        let lock = Lock::new(s).unwrap();
        let total: SymSlice<u64> = s.alloc(1).unwrap();
        for _ in 0..50 {
            let _guard = lock.lock().unwrap();
            // A non-atomic read-modify-write that only the lock keeps correct.
            let v = total.g(0, 0).unwrap();
            total.p(0, 0, v + 1).unwrap();
        }
        s.barrier_all();
        assert_eq!(total.g(0, 0).unwrap(), 50 * s.n_pes() as u64);
    });
}

#[test]
fn allocations_are_symmetric_and_errors_are_clear() {
    common::spmd("allocations_are_symmetric_and_errors_are_clear", PE_COUNTS, &[], |s| {
        let n = s.n_pes();
        let a: SymSlice<u8> = s.alloc(100).unwrap();
        let b: SymSlice<f64> = s.alloc(3).unwrap();
        let offsets: SymSlice<u64> = s.alloc(2 * n).unwrap();
        let base = offsets.as_ptr() as usize;
        let mine = [
            (a.as_ptr() as usize).wrapping_sub(base) as u64,
            (b.as_ptr() as usize).wrapping_sub(base) as u64,
        ];
        offsets.put(0, 2 * s.my_pe(), &mine).unwrap();
        s.barrier_all();
        if s.my_pe() == 0 {
            let all = offsets.to_vec();
            assert!(all.chunks(2).all(|c| c == mine), "same offsets on every PE: {all:?}");
        }
        assert!(matches!(a.p(n, 0, 1), Err(Error::InvalidPe { pe, .. }) if pe == n as i64));
        assert!(matches!(a.put(0, 99, &[1, 2]), Err(Error::InvalidArgument { argument: "offset", .. })));
        let err = a.g(n + 3, 0).unwrap_err().to_string();
        assert!(err.contains("PE") && err.contains("out of range"), "{err}");
        let huge = s.alloc::<u8>(1 << 40);
        assert!(matches!(huge, Err(Error::OutOfMemory { .. })), "{huge:?}");
        drop(a);
        b.free().unwrap();
    });
}

#[test]
fn one_write_wakes_every_sleeping_pe() {
    common::spmd(
        "one_write_wakes_every_sleeping_pe",
        &[2, 4, 7],
        &[("SHMEMX_SLEEP_TIMEOUT_MS", "10000")],
        |s| {
            let (me, n) = (s.my_pe(), s.n_pes());
            let flag: SymSlice<u64> = s.alloc(1).unwrap();
            // PE 0's flag starts at 0 before anybody waits on it. (Each PE used to clear it
            // itself; one late enough cleared it after PE 0 had set it, and waited forever:
            // PE 0 counts sleepers on its doorbell, which may still be PEs asleep in a barrier.)
            if me == 0 {
                flag.write(0, 0).unwrap();
            }
            s.barrier_all();
            if me == 0 {
                // Wait (without sleeping ourselves) until every other PE is asleep on our doorbell,
                // then release them all with one write.
                while s.sleepers_on(0).unwrap() < (n - 1) as u32 {
                    std::thread::yield_now();
                }
                for pe in 1..n {
                    flag.p(pe, 0, 0).unwrap(); // unrelated writes first: they must not use up the wake
                }
                flag.atomic_set(0, 0, 1).unwrap();
            } else {
                let before = ferroshmem_core::wait::sleep_stats();
                // Waits on PE 0's word: long enough that the wait goes to sleep.
                let ready = || flag.atomic_fetch(0, 0).unwrap() == 1;
                s.wait_on(0, ready).unwrap();
                let after = ferroshmem_core::wait::sleep_stats();
                assert_eq!(
                    after.1, before.1,
                    "a sleep ended by timeout instead of the wake: {before:?} -> {after:?}"
                );
            }
            s.barrier_all();
        },
    );
}

/// One `Shmem` per process (issue 13 item 5): finalize takes it by value, so everything
/// borrowed from it is gone; a second handle could outlive that, so init refuses one.
#[test]
fn a_second_shmem_is_refused_while_one_is_held() {
    common::spmd("a_second_shmem_is_refused_while_one_is_held", &[1, 2], &[], |s| {
        let again = ferroshmem::Shmem::init();
        assert!(matches!(&again, Err(Error::InvalidArgument { routine: "Shmem::init", .. })), "{again:?}");
        s.barrier_all();
    });
}
