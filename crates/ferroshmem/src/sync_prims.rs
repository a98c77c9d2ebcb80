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
pub(crate) use std::sync::atomic::{fence, AtomicU32};
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicU32};

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
