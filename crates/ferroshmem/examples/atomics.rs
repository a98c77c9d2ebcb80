//! Atomic counters: every PE adds to PE 0's counter; compare_swap elects one leader.
//! `oshrun -n 4 target/release/examples/atomics`
use ferroshmem::{Shmem, SymSlice};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let words: SymSlice<u64> = shmem.alloc(2)?;
    for _ in 0..1000 {
        words.atomic_fetch_add(0, 0, 1)?; // shmem_atomic_fetch_add
    }
    let leader = words.atomic_compare_swap(0, 1, 0, me as u64 + 1)? == 0;
    shmem.barrier_all();
    if me == 0 {
        assert_eq!(words.atomic_fetch(0, 0)?, 1000 * n as u64);
        println!("counter = {}, leader = PE {}", words.read(0)?, words.read(1)? - 1);
    }
    if leader {
        println!("PE {me} won the election");
    }
    words.free()?; // borrows shmem: gone before finalize
    shmem.finalize();
    Ok(())
}
