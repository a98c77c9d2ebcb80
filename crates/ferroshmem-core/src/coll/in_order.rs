//! The entrants word of an in-order alltoall (`Group::enter_in_order`): one bit per member on
//! member 0, set by `fetch_or` on entry, so that each member learns who entered before it in
//! an order every member sees alike, and cleared by the last member to enter. Apart from the
//! team's words so that loom can check the protocol on this very code (module `loom_model`,
//! run by `tests/loom.rs`).

use std::sync::atomic::Ordering;

/// Whether in-order alltoalls are on (`FSH_ALLTOALL_IN_ORDER=0` turns them off for A/B
/// measurements: one of the job's agreed settings, `crate::settings`).
pub(crate) fn enabled() -> bool {
    crate::settings::agreed().alltoall_in_order
}

/// A 64-bit atomic word: std's in the runtime, loom's in the model.
pub(crate) trait BitWord {
    fn fetch_or(&self, bits: u64, order: Ordering) -> u64;
    fn store(&self, value: u64, order: Ordering);
}

impl BitWord for std::sync::atomic::AtomicU64 {
    #[inline]
    fn fetch_or(&self, bits: u64, order: Ordering) -> u64 {
        std::sync::atomic::AtomicU64::fetch_or(self, bits, order)
    }
    #[inline]
    fn store(&self, value: u64, order: Ordering) {
        std::sync::atomic::AtomicU64::store(self, value, order)
    }
}

/// Member `me` of `n` (at most 64) enters: returns the members that entered before it, a bit
/// each. The caller's earlier writes (its source, its reads of its destination) happen before
/// every later entrant's reads and writes of them, and every earlier entrant's before this
/// PE's (AcqRel). The last to enter clears the word before anything it does afterwards, so,
/// as long as no member enters the next in-order alltoall before the last one has released
/// it (the closing sync), every entry sees only the bits of its own alltoall.
#[inline]
pub(crate) fn enter(entrants: &impl BitWord, me: usize, n: usize) -> u64 {
    debug_assert!(me < n && (2..=64).contains(&n));
    let all = u64::MAX >> (64 - n);
    let before = entrants.fetch_or(1 << me, Ordering::AcqRel);
    if before | 1 << me == all {
        // Ordered before the release that lets the others go on (a Release store or RMW of
        // this PE, after it).
        entrants.store(0, Ordering::Relaxed);
    }
    before
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::{Arc, Barrier, Mutex};

    /// Threads as members, many alltoalls in a row with a barrier as the closing sync: in each,
    /// the members' `before` sets form one chain (member k of the order saw exactly the k
    /// before it), and the word is clear when all have entered.
    #[test]
    fn entries_form_one_order_and_the_word_is_left_clear() {
        for n in [2usize, 3, 8, 64] {
            let word = Arc::new(AtomicU64::new(0));
            let barrier = Arc::new(Barrier::new(n));
            let seen = Arc::new(Mutex::new(vec![Vec::new(); 50]));
            let threads: Vec<_> = (0..n)
                .map(|me| {
                    let (word, barrier, seen) = (word.clone(), barrier.clone(), seen.clone());
                    std::thread::spawn(move || {
                        for round in 0..50 {
                            let before = enter(&*word, me, n);
                            seen.lock().unwrap()[round].push((me, before));
                            barrier.wait();
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            assert_eq!(word.load(Ordering::Relaxed), 0, "{n} members: the word is left set");
            for (round, entries) in seen.lock().unwrap().iter_mut().enumerate() {
                entries.sort_by_key(|&(_, before)| before.count_ones());
                let mut chain = 0u64;
                for (k, &(me, before)) in entries.iter().enumerate() {
                    assert_eq!(before, chain, "{n} members, round {round}: entrant {k} (member {me})");
                    chain |= 1 << me;
                }
            }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::atomic::AtomicU64;
    use loom::sync::{Arc, Condvar, Mutex};
    use loom::thread;

    impl BitWord for AtomicU64 {
        fn fetch_or(&self, bits: u64, order: Ordering) -> u64 {
            AtomicU64::fetch_or(self, bits, order)
        }
        fn store(&self, value: u64, order: Ordering) {
            AtomicU64::store(self, value, order)
        }
    }

    const N: usize = 3;
    const ROUNDS: usize = 2;

    /// The members' shared state: the entrants word; the destination blocks and the moves of
    /// each unordered pair as plain memory (loom reports any access to them that is not
    /// ordered after the last write: two movers of one pair, a member reading before its
    /// block has landed, a mover writing a destination its owner may still be reading); and
    /// the closing sync (arrivals under a lock, as a stand-in for the central sync's count
    /// and release).
    struct Job {
        entrants: AtomicU64,
        dest: Vec<UnsafeCell<usize>>,
        moves: Vec<UnsafeCell<usize>>,
        arrived: Mutex<usize>,
        released: Condvar,
    }

    fn member(job: &Job, me: usize) {
        for round in 1..=ROUNDS {
            let before = enter(&job.entrants, me, N);
            assert_eq!(before & 1 << me, 0, "round {round}: member {me} saw its own bit");
            for j in (0..N).filter(|&j| before & 1 << j != 0) {
                let (a, b) = (j.min(me), j.max(me));
                // SAFETY: (the three) a cell of the model, which loom checks that nothing else
                // touches now.
                job.dest[j * N + me].with_mut(|d| unsafe { *d = round });
                // SAFETY: as above.
                job.dest[me * N + j].with_mut(|d| unsafe { *d = round });
                // SAFETY: as above.
                job.moves[a * N + b].with_mut(|m| unsafe { *m += 1 });
            }
            sync(job, N * round);
            for i in (0..N).filter(|&i| i != me) {
                // SAFETY: (both reads) a cell of the model, which loom checks that nobody
                // writes now.
                let got = job.dest[me * N + i].with(|d| unsafe { *d });
                assert_eq!(got, round, "round {round}: block {i} -> {me}");
                let (a, b) = (i.min(me), i.max(me));
                // SAFETY: as above.
                let moved = job.moves[a * N + b].with(|m| unsafe { *m });
                assert_eq!(moved, round, "round {round}: pair {a}-{b} moved {moved} times in all");
            }
        }
    }

    /// Arrives and waits until `target` arrivals in all (N a round). Nothing else orders a
    /// member's checks of one round before the next round's moves into its destination: the
    /// entrants word must (a mover sees the owner's bit only after the owner's checks).
    fn sync(job: &Job, target: usize) {
        let mut arrived = job.arrived.lock().unwrap();
        *arrived += 1;
        if *arrived == target {
            job.released.notify_all();
        }
        while *arrived < target {
            arrived = job.released.wait(arrived).unwrap();
        }
    }

    /// Three members, two alltoalls in a row: every pair is moved exactly once per round, by
    /// one of its two members, every block lands before its owner returns, and the second
    /// round never sees a bit of the first.
    #[test]
    fn loom_each_pair_moved_once_per_round() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound.get_or_insert(2);
        builder.check(|| {
            let job = Arc::new(Job {
                entrants: AtomicU64::new(0),
                dest: (0..N * N).map(|_| UnsafeCell::new(0)).collect(),
                moves: (0..N * N).map(|_| UnsafeCell::new(0)).collect(),
                arrived: Mutex::new(0),
                released: Condvar::new(),
            });
            let others: Vec<_> = (1..N)
                .map(|me| {
                    let job = job.clone();
                    thread::spawn(move || member(&job, me))
                })
                .collect();
            member(&job, 0);
            for t in others {
                t.join().unwrap();
            }
        });
    }
}
