//! The primitives of the wait protocol (`wait`, and the doorbell words of `ctrl::PeCtrl`):
//! std's atomics, spin hint and yield and rustix's futex in a normal build, loom's (and a loom
//! model of the futex) when built with `--cfg loom`, so that loom model-checks the very code the
//! runtime runs. A normal build only re-exports: the same types and functions, the same code.
//!
//! Loom runs with (docs/ARCHITECTURE.md, "Testing"):
//! `RUSTFLAGS="--cfg loom" cargo test -p ferroshmem --release --lib loom`.

#[cfg(not(loom))]
pub(crate) use rustix::thread::futex;
#[cfg(not(loom))]
pub(crate) use std::hint::spin_loop;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::AtomicU32;
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;

#[cfg(loom)]
pub(crate) use loom::sync::atomic::AtomicU32;

/// The two halves of the wait protocol's Dekker pair (`wait`): a writer's, after it changed
/// memory and before it looks for sleepers (light after a put's copy, `wait::notify_after_copy`;
/// a full fence after flags and counters, `wait::notify`); and a
/// waiter's, after it registered as a sleeper and before it re-checks its condition, only on
/// the way to a futex sleep (after at least its spins and yields).
///
/// A full fence on the writer's side drains the store buffer after the copy: 10 ns of a
/// 50 ns 8 KiB `shmem_putmem` here (put 0.82 x memcpy; without the fence 0.97). So the pair is
/// made asymmetric where the kernel allows it (Linux `membarrier`, the pattern of
/// userspace-RCU): every PE registers for `MEMBARRIER_CMD_GLOBAL_EXPEDITED` at start and then
/// writes with a compiler barrier only, and a waiter about to sleep makes every running thread
/// of every registered process execute a full barrier (one system call). Either the writer's
/// look for sleepers comes after that barrier on its CPU, and sees the registration, or its
/// write was drained by it, and the waiter's re-check sees the write. A process that could
/// not register keeps the full fence (and so does everything under loom, which models it).
#[cfg(not(loom))]
pub(crate) mod barrier {
    use std::sync::atomic::{compiler_fence, fence, AtomicBool, Ordering};

    use rustix::thread::{membarrier, membarrier_query, MembarrierCommand};

    /// This process is registered: its writers may use the light barrier.
    static LIGHT_WRITES: AtomicBool = AtomicBool::new(false);
    /// Waiters must (and can) make the heavy barrier: some writer may be light.
    static HEAVY_WAITS: AtomicBool = AtomicBool::new(false);

    /// Registers this process, once, before its first wait or write to another PE.
    pub(crate) fn init() {
        // FSH_MEMBARRIER=0: full fences on both sides (for A/B measurements); every PE of a
        // host must see the same value.
        if std::env::var_os("FSH_MEMBARRIER").is_some_and(|v| v == "0") {
            return;
        }
        let query = membarrier_query();
        if query.contains_command(MembarrierCommand::GlobalExpedited) {
            HEAVY_WAITS.store(true, Ordering::SeqCst);
            if query.contains_command(MembarrierCommand::RegisterGlobalExpedited)
                && membarrier(MembarrierCommand::RegisterGlobalExpedited).is_ok()
            {
                LIGHT_WRITES.store(true, Ordering::SeqCst);
            }
        }
    }

    /// The writer's half as a full fence (valid whatever the waiters do).
    #[inline]
    pub(crate) fn full() {
        fence(Ordering::SeqCst);
    }

    /// The writer's half: between its write and its look for sleepers.
    #[inline]
    pub(crate) fn writer() {
        if LIGHT_WRITES.load(Ordering::Relaxed) {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    /// Whether a waiter's half is a system call that interrupts the other PEs' cores (so a
    /// waiter should not make it more often than it must: `wait`).
    #[inline]
    pub(crate) fn waiter_is_heavy() -> bool {
        HEAVY_WAITS.load(Ordering::Relaxed)
    }

    /// The waiter's half: between its registration as a sleeper and its re-check. Should the
    /// system call fail, the sleep's timeout (`WaitPolicy::sleep_for`) still bounds a missed
    /// wake-up.
    pub(crate) fn waiter() {
        fence(Ordering::SeqCst);
        if HEAVY_WAITS.load(Ordering::Relaxed) {
            let _ = membarrier(MembarrierCommand::GlobalExpedited);
        }
    }
}

/// Under loom both halves are the symmetric full fence that loom models.
#[cfg(loom)]
pub(crate) mod barrier {
    use loom::sync::atomic::{fence, Ordering};

    /// Nothing to register.
    pub(crate) fn init() {}

    /// The writer's half as a full fence.
    pub(crate) fn full() {
        fence(Ordering::SeqCst);
    }

    /// The writer's half.
    pub(crate) fn writer() {
        fence(Ordering::SeqCst);
    }

    /// Never heavy under loom.
    pub(crate) fn waiter_is_heavy() -> bool {
        false
    }

    /// The waiter's half.
    pub(crate) fn waiter() {
        fence(Ordering::SeqCst);
    }
}

/// Under loom, a pause in a bounded spin does nothing. Loom's `spin_loop` and `yield_now` make
/// the thread wait until the others have run: a waiter's spins and yields (a bounded number)
/// would then always let the writer finish before the waiter goes to sleep, and loom would
/// never try the writes that race the sleep, the one place where a wake-up can be lost. As no
/// op, they leave the choice to loom, which may switch threads at every atomic access, as a
/// real yield may or may not run another thread. (The futex model's timed-out sleep yields
/// with loom's `yield_now`: that loop is unbounded.)
#[cfg(loom)]
#[inline]
pub(crate) fn spin_loop() {}

/// See [`spin_loop`].
#[cfg(loom)]
#[inline]
pub(crate) fn yield_now() {}

/// A loom model of the two futex operations `wait` uses, with rustix's signatures. It is the
/// kernel's algorithm: one hash bucket, under whose lock FUTEX_WAIT compares the word with the
/// expected value (EAGAIN if it moved) before it sleeps, and under which FUTEX_WAKE wakes the
/// sleepers. A sleep ends only by a wake (the timeout is not modelled: a wake-up the protocol
/// loses leaves the sleeper asleep with nobody to wake it, which loom reports as a deadlock),
/// unless a model calls [`futex::sleeps_time_out`], after which every sleep that would block
/// ends at once with ETIMEDOUT (the safety net for changes that ring no doorbell).
#[cfg(loom)]
pub(crate) mod futex {
    use loom::sync::atomic::AtomicU32;
    use loom::sync::{Condvar, Mutex};
    pub(crate) use rustix::thread::futex::Flags;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// The futex hash bucket of the model (every word shares it: a wake meant for another
    /// word is a spurious wake-up, which FUTEX_WAIT's callers must take anyway).
    struct Bucket {
        /// Threads asleep in it.
        sleepers: Mutex<usize>,
        queue: Condvar,
        /// Sleeps time out instead of blocking (per execution; not part of the model).
        time_out: AtomicBool,
    }

    loom::lazy_static! {
        static ref BUCKET: Bucket =
            Bucket { sleepers: Mutex::new(0), queue: Condvar::new(), time_out: AtomicBool::new(false) };
    }

    /// From now on in this execution, a sleep that would block times out at once.
    #[cfg(test)]
    pub(crate) fn sleeps_time_out() {
        BUCKET.time_out.store(true, Ordering::Relaxed);
    }

    /// FUTEX_WAIT: sleeps unless `word` differs from `expected` (EAGAIN).
    pub(crate) fn wait(
        word: &AtomicU32,
        _flags: Flags,
        expected: u32,
        _timeout: Option<&rustix::time::Timespec>,
    ) -> rustix::io::Result<()> {
        let mut sleepers = BUCKET.sleepers.lock().unwrap();
        if word.load(Ordering::SeqCst) != expected {
            return Err(rustix::io::Errno::AGAIN);
        }
        if BUCKET.time_out.load(Ordering::Relaxed) {
            drop(sleepers);
            loom::thread::yield_now();
            return Err(rustix::io::Errno::TIMEDOUT);
        }
        *sleepers += 1;
        drop(BUCKET.queue.wait(sleepers).unwrap());
        Ok(())
    }

    /// FUTEX_WAKE of every sleeper (`wait` passes `i32::MAX`), which leave the bucket; how
    /// many there were.
    pub(crate) fn wake(_word: &AtomicU32, _flags: Flags, _count: u32) -> rustix::io::Result<usize> {
        let mut sleepers = BUCKET.sleepers.lock().unwrap();
        BUCKET.queue.notify_all();
        Ok(std::mem::take(&mut *sleepers))
    }
}
