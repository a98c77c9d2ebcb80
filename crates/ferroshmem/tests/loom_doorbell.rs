//! Loom model of the wait/notify protocol of `src/wait.rs` (the sleeping half: spinning and
//! yielding only delay it). A waiter must never sleep through the write it waits for, with one
//! or two writers racing it, whatever the interleaving. The futex is modelled as the kernel
//! implements it: a bucket lock under which FUTEX_WAIT compares the word before sleeping and
//! FUTEX_WAKE wakes the sleepers. A lost wake-up leaves the waiter asleep with nobody to wake
//! it, which loom reports as a deadlock.
//!
//! The model mirrors the real code's steps and orderings one for one (keep them in step), but
//! for one: the writer's "fence(SeqCst); load sleepers" is written `sleepers.fetch_add(0, SeqCst)`.
//! Both give the store-load (Dekker) guarantee the protocol needs in the C++20 model (either the
//! writer sees the waiter registered, or the waiter's re-check sees the write), but loom models
//! SeqCst fences as AcqRel and so reports a false lost wake-up for the fence form; the real
//! code keeps the fence, which leaves the owner's cache line shared among writers.

use loom::sync::atomic::{AtomicU32, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;

struct Owner {
    doorbell: AtomicU32,
    sleepers: AtomicU32,
    armed: AtomicU32,
    /// What the waiter waits for: the number of writes done.
    data: AtomicU32,
    /// The futex hash bucket of the doorbell word, and its wait queue.
    bucket: Mutex<()>,
    queue: Condvar,
}

impl Owner {
    fn new() -> Self {
        Owner {
            doorbell: AtomicU32::new(0),
            sleepers: AtomicU32::new(0),
            armed: AtomicU32::new(0),
            data: AtomicU32::new(0),
            bucket: Mutex::new(()),
            queue: Condvar::new(),
        }
    }

    /// FUTEX_WAIT(doorbell, bell): sleep unless the word already moved (may wake spuriously).
    fn futex_wait(&self, bell: u32) {
        let guard = self.bucket.lock().unwrap();
        if self.doorbell.load(Ordering::SeqCst) == bell {
            drop(self.queue.wait(guard).unwrap());
        }
    }

    /// FUTEX_WAKE(doorbell, all).
    fn futex_wake(&self) {
        let _guard = self.bucket.lock().unwrap();
        self.queue.notify_all();
    }
}

/// `wait::wait_slow`'s sleeping loop, with the futex sleep as "block while the doorbell has
/// not moved" (FUTEX_WAIT returns at once if the word already differs).
fn wait_for(owner: &Owner, target: u32) {
    let ready = || owner.data.load(Ordering::SeqCst) >= target;
    if ready() {
        return;
    }
    loop {
        let bell = owner.doorbell.load(Ordering::SeqCst);
        owner.armed.store(1, Ordering::SeqCst);
        owner.sleepers.fetch_add(1, Ordering::SeqCst);
        if ready() {
            owner.sleepers.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        owner.futex_wait(bell);
        owner.sleepers.fetch_sub(1, Ordering::SeqCst);
        if ready() {
            return;
        }
    }
}

/// A write followed by `wait::notify` (and `ring`); see the module note on the first step.
fn write_and_notify(owner: &Owner) {
    owner.data.fetch_add(1, Ordering::Relaxed);
    if owner.sleepers.fetch_add(0, Ordering::SeqCst) != 0
        && owner.armed.load(Ordering::Relaxed) != 0
        && owner.armed.swap(0, Ordering::SeqCst) != 0
    {
        owner.doorbell.fetch_add(1, Ordering::SeqCst);
        owner.futex_wake();
    }
}

#[test]
fn one_writer_never_leaves_the_waiter_asleep() {
    loom::model(|| {
        let owner = Arc::new(Owner::new());
        let w = owner.clone();
        let writer = thread::spawn(move || write_and_notify(&w));
        wait_for(&owner, 1);
        writer.join().unwrap();
    });
}

#[test]
fn two_writers_one_disarming_never_leave_the_waiter_asleep() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let owner = Arc::new(Owner::new());
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let w = owner.clone();
                thread::spawn(move || write_and_notify(&w))
            })
            .collect();
        // Wait for the first write, sleep again, and wait for the second: the bell disarmed by
        // the first wake must be re-armed by the second sleep.
        wait_for(&owner, 1);
        wait_for(&owner, 2);
        for w in writers {
            w.join().unwrap();
        }
    });
}
