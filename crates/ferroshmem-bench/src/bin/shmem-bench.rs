//! Latency and bandwidth of the one-sided basics, measured by PE 0 against the last PE (so both
//! are busy PEs on possibly different cores), and barrier_all over every PE.
//! Run: `cargo build --release && target/release/oshrun -n 2 target/release/shmem-bench`.
//! Each figure is the median over `SAMPLES` batches; a batch is `iters` operations.

use ferroshmem::{Shmem, SymSlice};
use ferroshmem_bench::{per_op, SAMPLES};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let me = shmem.my_pe();
    let n = shmem.n_pes();
    let peer = n - 1;
    let words: SymSlice<u64> = shmem.alloc(8)?;
    let big: SymSlice<u8> = shmem.alloc(1 << 20)?;
    let src = vec![7u8; 1 << 20];

    let put_ns = per_op(&shmem, 100_000, me == 0, || words.p(peer, 0, 42).unwrap());
    let get_ns = per_op(&shmem, 100_000, me == 0, || {
        std::hint::black_box(words.g(peer, 1).unwrap());
    });
    let bw_ns = per_op(&shmem, 50, me == 0, || big.put(peer, 0, &src).unwrap());
    let fadd_ns = per_op(&shmem, 100_000, me == 0, || {
        std::hint::black_box(words.atomic_fetch_add(peer, 2, 1).unwrap());
    });

    let iters = if n > 2 { 2_000 } else { 100_000 };
    let barrier_ns = per_op(&shmem, iters, true, || shmem.barrier_all());
    if me == 0 {
        println!("ferroshmem one-sided benchmark, {n} PEs (PE 0 -> PE {peer}), medians of {SAMPLES} batches");
        println!("put 8 B latency       {put_ns:10.1} ns");
        println!("get 8 B latency       {get_ns:10.1} ns");
        println!("put 1 MiB bandwidth   {:10.2} GB/s", (1u64 << 20) as f64 / bw_ns);
        println!("fetch_add latency     {fadd_ns:10.1} ns");
        println!("barrier_all           {barrier_ns:10.1} ns");
    }
    // The slices borrow the Shmem: they are freed before finalize takes it.
    words.free()?;
    big.free()?;
    shmem.finalize();
    Ok(())
}
