//! Latency and bandwidth of the one-sided basics, measured by PE 0 against the last PE (so both
//! are busy PEs on possibly different cores), and barrier_all over every PE.
//! Run: `cargo build --release && target/release/oshrun -n 2 target/release/shmem-bench`.
//! Each figure is the median over `SAMPLES` batches; a batch is `iters` operations.

use std::time::Instant;

use ferroshmem::{Shmem, SymSlice};

const SAMPLES: usize = 31;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Runs `op` `iters` times per batch on PE 0 while others wait at the barrier; ns per op.
fn time_on_pe0(shmem: &Shmem, iters: usize, mut op: impl FnMut()) -> f64 {
    let mut samples = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        shmem.barrier_all();
        if shmem.my_pe() == 0 {
            let t = Instant::now();
            for _ in 0..iters {
                op();
            }
            samples.push(t.elapsed().as_nanos() as f64 / iters as f64);
        }
    }
    shmem.barrier_all();
    if samples.is_empty() {
        0.0
    } else {
        median(samples)
    }
}

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let me = shmem.my_pe();
    let n = shmem.n_pes();
    let peer = n - 1;
    let words: SymSlice<u64> = shmem.alloc(8)?;
    let big: SymSlice<u8> = shmem.alloc(1 << 20)?;
    let src = vec![7u8; 1 << 20];

    let put_ns = time_on_pe0(&shmem, 100_000, || words.p(peer, 0, 42).unwrap());
    let get_ns = time_on_pe0(&shmem, 100_000, || {
        std::hint::black_box(words.g(peer, 1).unwrap());
    });
    let bw_ns = time_on_pe0(&shmem, 50, || big.put(peer, 0, &src).unwrap());
    let fadd_ns = time_on_pe0(&shmem, 100_000, || {
        std::hint::black_box(words.atomic_fetch_add(peer, 2, 1).unwrap());
    });

    let mut barrier_samples = Vec::with_capacity(SAMPLES);
    let iters = if n > 2 { 2_000 } else { 100_000 };
    for _ in 0..SAMPLES {
        shmem.barrier_all();
        let t = Instant::now();
        for _ in 0..iters {
            shmem.barrier_all();
        }
        barrier_samples.push(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    let barrier_ns = median(barrier_samples);
    if me == 0 {
        println!("ferroshmem one-sided benchmark, {n} PEs (PE 0 -> PE {peer}), medians of {SAMPLES} batches");
        println!("put 8 B latency       {put_ns:10.1} ns");
        println!("get 8 B latency       {get_ns:10.1} ns");
        println!("put 1 MiB bandwidth   {:10.2} GB/s", (1u64 << 20) as f64 / bw_ns);
        println!("fetch_add latency     {fadd_ns:10.1} ns");
        println!("barrier_all           {barrier_ns:10.1} ns");
    }
    shmem.finalize();
    Ok(())
}
