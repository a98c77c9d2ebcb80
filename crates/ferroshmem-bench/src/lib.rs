//! Timing helpers shared by the benchmark binaries: medians of batches separated by barriers.

use std::time::Instant;

use ferroshmem::Shmem;

/// Batches per figure.
pub const SAMPLES: usize = 31;

/// Median of the samples.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Nanoseconds per `op`: `SAMPLES` batches of `iters` operations, each batch starting after a
/// barrier, timed on this PE if `timed` (the others only take part in the barriers); the median.
/// Returns 0 on a PE that does not time.
pub fn per_op(shmem: &Shmem, iters: usize, timed: bool, mut op: impl FnMut()) -> f64 {
    let mut samples = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        shmem.barrier_all();
        if timed {
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
