//! Short time slices for the PE's threads. On Linux's EEVDF scheduler (6.6 and later) a task
//! woken up preempts the running one only if its deadline (its eligible time plus its slice)
//! comes first, so with the default slice (1.4 ms here) a waiter woken by the write it waits
//! for waited behind a program that computes for up to a slice, at every step of a sync.
//! Since 6.12 a SCHED_OTHER task may ask for a shorter slice (`sched_setattr`'s
//! `sched_runtime`, 100 us to 100 ms): its share of the CPU is the same, it runs in shorter
//! turns and sooner after a wake-up. 4 PEs on this machine's 2 cores with 2 busy loops beside
//! them took 1.1-1.6 ms per barrier with the default slice and 0.10 ms with 100 us (with 4
//! busy loops 2.7-3.4 and 0.12-0.16 ms); with nothing beside them the figures did not move
//! (0.97-1.03 ×, `bench/c/busy_bench.c` and `bench/c/coll_bench.c` at 2, 4 and 8 PEs;
//! docs/PERFORMANCE.md, "A busy machine"). Threads started later inherit the slice. Older
//! kernels refuse the request (or ignore the field): nothing changes there.

/// `struct sched_attr` of `sched_setattr(2)`, its first version (48 bytes).
#[repr(C)]
struct SchedAttr {
    size: u32,
    policy: u32,
    flags: u64,
    nice: i32,
    priority: u32,
    runtime: u64,
    deadline: u64,
    period: u64,
}

/// The slice a PE asks for, in microseconds (0: the scheduler's default).
pub(crate) const ENV_SCHED_SLICE: &str = "SHMEMX_SCHED_SLICE_US";
/// Its default: the shortest a kernel takes.
const DEFAULT_SLICE_US: u64 = 100;

/// Asks for the slice `SHMEMX_SCHED_SLICE_US` names (default 100 us) for the calling thread.
pub(crate) fn request_from_env() {
    let us = std::env::var(ENV_SCHED_SLICE).ok().and_then(|v| v.trim().parse::<u64>().ok());
    match us.unwrap_or(DEFAULT_SLICE_US) {
        0 => {}
        us => {
            request_short_slice(std::time::Duration::from_micros(us));
        }
    }
}

/// Asks the scheduler for time slices of `slice` for the calling thread (and the threads it
/// starts later), keeping its policy (SCHED_OTHER) and nice value. Whether the kernel took it.
pub(crate) fn request_short_slice(slice: std::time::Duration) -> bool {
    // SAFETY: getpriority only reads this process's nice value.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        policy: libc::SCHED_OTHER as u32,
        flags: 0,
        nice,
        priority: 0,
        runtime: slice.as_nanos() as u64,
        deadline: 0,
        period: 0,
    };
    // SAFETY: sched_setattr on the calling thread (0) with a valid, fully initialised struct of
    // the size it declares.
    unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) == 0 }
}
