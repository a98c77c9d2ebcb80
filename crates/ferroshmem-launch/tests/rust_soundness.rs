//! Holes of the safe API found by a review (issue 27), each a job under oshrun that failed
//! before its fix. (A hole whose fix is a type error is a `compile_fail` doctest beside the
//! type instead: `TeamRequest` borrows its parent.)

mod common;

use ferroshmem::SymSlice;

/// A spin of a length that differs between PEs and iterations (xorshift of `seed`): it moves
/// a drop on another thread before, during or after the main thread's allocation. Not a
/// synchronisation: nothing waits on it.
fn jitter(seed: u64) {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for _ in 0..(x % 20_000) {
        std::hint::spin_loop();
    }
}

/// Issue 27 item 1: a `SymSlice` dropped on another thread while the main thread allocates.
/// Before, the drop released the block at once, so on some PEs the allocation reused it and on
/// others not: in 151 of 400 rounds `y` lay at different offsets on different PEs and puts
/// into it missed. Now every round's `y` is symmetric (a put to the right neighbour lands in
/// its `y`), and dropped blocks are reused: 2 GiB of 1 MiB blocks allocated and dropped one
/// after another fit in the default 512 MiB heap.
#[test]
fn drops_on_other_threads_keep_the_heap_symmetric() {
    common::spmd("drops_on_other_threads_keep_the_heap_symmetric", &[2, 3], &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let (right, left) = ((me + 1) % n, (me + n - 1) % n);
        for round in 0..400u64 {
            let x: SymSlice<u64> = s.alloc(8).unwrap();
            let y: SymSlice<u64> = std::thread::scope(|scope| {
                scope.spawn(move || {
                    jitter(round * 7 + me as u64);
                    drop(x);
                });
                jitter(round * 13 + 3 * me as u64);
                s.alloc::<u64>(8).unwrap()
            });
            y.p(right, 0, round * 100 + me as u64).unwrap();
            s.barrier_all();
            assert_eq!(
                y.read(0).unwrap(),
                round * 100 + left as u64,
                "round {round}: a put into y missed it"
            );
            s.barrier_all();
        }
        for _ in 0..2048 {
            let block: SymSlice<u8> = s.alloc(1 << 20).unwrap();
            drop(block);
        }
    });
}
