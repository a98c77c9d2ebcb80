//! Checked mode (`SHMEMX_CHECK_COLLECTIVES=1`) covers symmetric allocation in the safe Rust API:
//! PEs that ask for different sizes, or free different blocks, all get the same
//! `Error::CollectiveMismatch` naming who passed what, and nothing is allocated or freed; the
//! same for reductions with different operations.

mod common;

use ferroshmem::Error;

const CHECKED: &[(&str, &str)] = &[("SHMEMX_CHECK_COLLECTIVES", "1")];

fn mismatch(r: Result<impl Sized, Error>, routine: &str) -> String {
    match r {
        Err(Error::CollectiveMismatch { message }) => {
            assert!(
                message.contains(routine) && (message.contains("passed") || message.contains("called")),
                "{message}"
            );
            message
        }
        Err(e) => panic!("{routine}: expected a mismatch, got {e}"),
        Ok(_) => panic!("{routine}: expected a mismatch, got Ok"),
    }
}

#[test]
fn mismatched_allocations_fail_alike_on_every_pe() {
    common::spmd("mismatched_allocations_fail_alike_on_every_pe", &[2, 3], CHECKED, |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let last = me == n - 1;
        let message = mismatch(s.alloc::<u64>(if last { 16 } else { 8 }), "Shmem::alloc");
        // Every PE describes the disagreement in the same words.
        let mut all = s.alloc::<u8>(message.len() * n).unwrap();
        let mut mine = s.alloc::<u8>(message.len()).unwrap();
        for (i, &b) in message.as_bytes().iter().enumerate() {
            mine.write(i, b).unwrap();
        }
        s.team_world().fcollect(&mut all, &mut mine, message.len()).unwrap();
        for chunk in all.to_vec().chunks(message.len()) {
            assert_eq!(chunk, message.as_bytes());
        }
        // Matching allocations still work and stay symmetric.
        let a = s.alloc::<u64>(4).unwrap();
        a.put((me + 1) % n, 0, &[me as u64]).unwrap();
        s.barrier_all();
        assert_eq!(a.read(0).unwrap(), ((me + n - 1) % n) as u64);
        // Freeing different blocks: nothing is freed, every PE hears of it.
        let (x, y) = (s.alloc::<u64>(8).unwrap(), s.alloc::<u64>(8).unwrap());
        let (gone, kept) = if last { (y, x) } else { (x, y) };
        mismatch(gone.free(), "SymSlice::free");
        std::mem::forget(kept);
        a.free().unwrap();
        for b in [all, mine] {
            b.free().unwrap();
        }
    });
}

#[test]
fn mismatched_reduction_operators_fail_alike_on_every_pe() {
    use ferroshmem::coll::{Max, Sum};
    common::spmd("mismatched_reduction_operators_fail_alike_on_every_pe", &[2, 3], CHECKED, |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let (mut src, mut dest) = (s.alloc::<i64>(4).unwrap(), s.alloc::<i64>(4).unwrap());
        for i in 0..4 {
            src.write(i, (me + i) as i64).unwrap();
        }
        let world = s.team_world();
        let r = if me == 0 {
            world.reduce(Sum, &mut dest, &mut src, 4)
        } else {
            world.reduce(Max, &mut dest, &mut src, 4)
        };
        let message = mismatch(r, "shmem_sum_reduce");
        assert!(message.contains("shmem_max_reduce"), "{message}");
        world.reduce(Max, &mut dest, &mut src, 4).unwrap();
        assert_eq!(dest.to_vec(), (0..4).map(|i| (n - 1 + i) as i64).collect::<Vec<_>>());
        src.free().unwrap();
        dest.free().unwrap();
    });
}
