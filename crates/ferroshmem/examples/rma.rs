//! put/get/p/g on a symmetric array: each PE fills its right neighbour's array, then reads it
//! back from there. `oshrun -n 4 target/release/examples/rma`
use ferroshmem::{Shmem, SymSlice};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let right = (me + 1) % n;
    let data: SymSlice<i64> = shmem.alloc(8)?;
    let mine: Vec<i64> = (0..8).map(|i| (me * 100 + i) as i64).collect();
    data.put(right, 0, &mine)?; // shmem_put
    shmem.barrier_all();
    let left = (me + n - 1) % n;
    assert_eq!(data.read(7)?, (left * 100 + 7) as i64, "left neighbour's put arrived");
    let mut back = vec![0i64; 8];
    data.get(right, 0, &mut back)?; // shmem_get
    assert_eq!(back, mine);
    data.p(right, 0, -1)?; // shmem_p
    shmem.barrier_all();
    assert_eq!(data.g(me, 0)?, -1); // shmem_g
    println!("PE {me}: rma ok");
    data.free()?; // borrows shmem: gone before finalize
    shmem.finalize();
    Ok(())
}
