//! Waits and syncs: waiting on a PE's memory (progressing the network across hosts), the team
//! syncs (dissemination, central counter, across hosts), quiet and fence. The world barrier
//! (`Runtime::barrier_all`, over the world team) and the hierarchical sync of a team across
//! hosts are the team layer's (`team::world`, `team::across_hosts`).

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::time::Instant;

use super::{fatal, Runtime};
use crate::job::slot_layout::{CENTRAL_ARRIVALS, CENTRAL_ARRIVED, CENTRAL_RELEASE};
use crate::net::Net;
use crate::wait;

/// Bits of the arrivals word (and other epoch-tagged counts) that count (the rest hold the
/// epoch: 2^44 operations).
pub const CENTRAL_COUNT_BITS: u32 = 20;
const CENTRAL_COUNT_MASK: u64 = (1 << CENTRAL_COUNT_BITS) - 1;
/// Teams this large use dissemination even when oversubscribed.
const CENTRAL_MAX_PES: usize = 1 << CENTRAL_COUNT_BITS;
/// Central syncs of teams up to this size wait core-aware (`poll_while_core_idle`), whose
/// every check reads the arrival words of the members on its CPU.
const CORE_AWARE_MAX_PES: usize = 64;
/// ... in jobs up to this size (each such wait first reads every PE's CPU word once).
const CORE_AWARE_MAX_JOB: usize = 1024;

/// How long a wait in a job across hosts progresses the network and yields before it sleeps,
/// whatever the ratio of PEs to cores: a network step takes tens of microseconds, and a
/// sleeping waiter is woken through two threads (its progress thread, then the doorbell).
/// With the one-host figure (200 us when PEs do not outnumber cores) the waiters across
/// 4 simulated hosts x 2 PEs slept in every collective and a barrier, broadcast or reduction
/// took 2-3 ms in half of the runs; with 2 ms, 130-410 us in every run
/// (`bench/c/coll_bench.c 8 20`, two alternations).
const NETWORK_YIELD_FOR: std::time::Duration = std::time::Duration::from_millis(2);

/// Past [`NETWORK_YIELD_FOR`], a wait across hosts goes on progressing the network for as long
/// as its looks keep delivering something at least this often: the PE is serving a stream of
/// remote operations (the atomics or gets of a peer while it waits in a barrier), and each one
/// served from a sleep costs two wake-ups (its progress thread's, then its doorbell's). Between
/// 2 simulated hosts × 1 PE with their CPUs split, a fetch-add on a PE waiting in a barrier
/// took 36-39 µs so served; `ucx_perftest` with a polling target 13 µs, with a sleeping one 32.
/// Short enough that a lone delivery (a peer watch's probe, every second per peer) keeps a
/// blocked PE awake for no more than this.
const NETWORK_SERVING_GAP: std::time::Duration = std::time::Duration::from_micros(200);

/// What makes a wait's condition true: anything (a write by any PE, which rings the doorbell),
/// or the network alone (a word of this PE that only PEs of other hosts write).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fed {
    Any,
    Network,
}

/// How long a wait fed by the network sleeps on the worker's descriptor before it looks again:
/// a bound for an arrival that another thread of this PE handles while this one sleeps.
const NETWORK_SLEEP_LOOK: std::time::Duration = std::time::Duration::from_millis(5);

impl Runtime {
    /// How a wait in a job across hosts sleeps, once it has progressed and yielded for
    /// [`NETWORK_YIELD_FOR`]: at once, and again at once after a wake-up that did not make it
    /// ready. Its progress thread rings its doorbell for every message that arrives, and the
    /// usual look by yielding after such a wake-up (`WaitPolicy::yield_after_wake`) kept most
    /// waiting PEs runnable: across 64 simulated hosts × 1 PE nearly all 64 were runnable at
    /// any moment, and barrier_all took 87 ms, broadcast 51 ms; sleeping again at once, 15 ms
    /// and 7 ms (`bench/c/coll_bench.c 8 3`, one run each; across 4 × 2 hosts no change beyond
    /// the noise).
    fn network_sleep(&self) -> wait::WaitPolicy {
        wait::WaitPolicy {
            spins: 0,
            yield_for: std::time::Duration::ZERO,
            yield_after_wake: false,
            ..self.wait
        }
    }
}

/// Adds one to `word`, an epoch-tagged count: (epoch << 20) | count. A count left by an older
/// operation (or by an older team on the slot) carries a smaller epoch and restarts at 1.
/// Returns the new count. AcqRel: what the caller wrote before is visible with the count, and
/// what the earlier adders wrote is visible to the caller.
pub fn add_to_tagged_count(word: &AtomicU64, epoch: u64) -> u64 {
    let mut cur = word.load(Ordering::Relaxed);
    loop {
        let count = if cur >> CENTRAL_COUNT_BITS == epoch { (cur & CENTRAL_COUNT_MASK) + 1 } else { 1 };
        match word.compare_exchange_weak(
            cur,
            (epoch << CENTRAL_COUNT_BITS) | count,
            Ordering::AcqRel,
            Ordering::Relaxed,
        ) {
            Ok(_) => return count,
            Err(now) => cur = now,
        }
    }
}

/// The value of a tagged count (see [`add_to_tagged_count`]) once `count` adds of `epoch`
/// have been made.
pub const fn tagged_count(epoch: u64, count: u64) -> u64 {
    (epoch << CENTRAL_COUNT_BITS) | count
}

impl Runtime {
    /// Tells waiters on `pe`'s memory that it changed.
    #[inline]
    pub fn notify(&self, pe: usize) {
        wait::notify(self.ctrl.pe(pe));
    }

    /// [`Self::notify`] after a put of `bytes` bytes into PE `pe`'s memory: from 2 KiB on with
    /// the light barrier of `wait::notify_after_copy`.
    #[inline]
    pub fn notify_after_copy(&self, pe: usize, bytes: usize) {
        if bytes >= 2048 {
            wait::notify_after_copy(self.ctrl.pe(pe));
        } else {
            wait::notify(self.ctrl.pe(pe));
        }
    }

    /// Called by every test routine (`shmem_test*`, `shmem_test_lock`) with whether its
    /// condition `held`, which it returns. When it did not and PEs outnumber cores, the program
    /// is most likely polling in a loop, and the PE
    /// that must make the condition true may be waiting for this core: yield it, as a wait of
    /// the library would. Without the yield a polling PE kept its core until the scheduler's
    /// tick: 4 PEs on 2 cores passing batches of puts round a ring and polling with
    /// `shmem_test` (`bench/c/busy_bench.c`, put_test) took 2 ms per batch on an idle machine,
    /// against 1.3-2.1 µs with a `sched_yield` in the program's own loop. With a core per PE
    /// nothing is done: the partner runs elsewhere, and a yield would hand the core to any
    /// other process of the machine for a whole time slice.
    #[inline]
    pub fn after_test(&self, held: bool) -> bool {
        if !held && self.wait.oversubscribed {
            std::thread::yield_now();
        }
        held
    }

    /// Waits until `ready()`; `owner` is the PE whose memory it reads.
    #[inline]
    pub fn wait_until(&self, owner: usize, mut ready: impl FnMut() -> bool) {
        match &self.net {
            None => wait::wait_until(&self.wait, self.ctrl.pe(owner), ready),
            Some(net) => {
                if ready() {
                    return;
                }
                self.wait_progressing(net, owner, &mut ready, Fed::Any)
            }
        }
    }

    /// [`Self::wait_until`] for a condition that only PEs of this host make true (a word of
    /// a team slot that members of this host write): across hosts it does not progress the
    /// network, which this PE's progress thread serves meanwhile, and it yields from the
    /// start whatever the ratio of PEs to cores (a network step takes tens of microseconds,
    /// and on the simulated hosts every PE of every host shares the machine's cores). A
    /// non-leader waiting for its leader's release in a sync across 2 simulated hosts × 2 PEs
    /// so took the cores from the leaders less: barrier 28.1 against 30.8 µs (medians of 12
    /// alternating launches; docs/PERFORMANCE.md). When a thread of this PE progresses the
    /// worker itself (this wait is nested in one of its waits, or another thread waits), the
    /// progress thread stands aside and nobody else would serve the network: the usual wait.
    pub fn wait_until_local(&self, owner: usize, ready: impl FnMut() -> bool) {
        match &self.net {
            Some(net) if !net.progressed_by_a_caller() => {
                let policy =
                    wait::WaitPolicy { spins: 4, yield_for: NETWORK_YIELD_FOR, ..self.network_sleep() };
                wait::wait_until(&policy, self.ctrl.pe(owner), ready)
            }
            _ => self.wait_until(owner, ready),
        }
    }

    /// [`Self::wait_until`] for a word of this PE's own memory that only PEs of other hosts
    /// write, by the network (the leaders' flags): past its looks and yields it sleeps on the
    /// worker's event descriptor itself, holding the worker, so that an arrival wakes it
    /// alone (see [`Net::sleep_on_worker`]).
    pub(crate) fn wait_until_remote(&self, mut ready: impl FnMut() -> bool) {
        match &self.net {
            None => wait::wait_until(&self.wait, self.ctrl.pe(self.my_pe), ready),
            Some(net) => {
                if ready() {
                    return;
                }
                self.wait_progressing(net, self.my_pe, &mut ready, Fed::Network)
            }
        }
    }

    /// [`Self::wait_until`] for a condition on words that every writer notifies with
    /// [`Self::notify`] (the syncs' flags and counters; its full fence is what lets the sleeper
    /// skip `membarrier`): on one host such a sleep need not wake for plain stores, so it backs
    /// off (see [`wait::wait_until_rung`]); across hosts it is the usual wait.
    #[inline]
    fn wait_until_rung(&self, owner: usize, mut ready: impl FnMut() -> bool) {
        match &self.net {
            None => wait::wait_until_rung(&self.wait, self.ctrl.pe(owner), ready),
            Some(_) => self.wait_until(owner, &mut ready),
        }
    }

    /// A wait in a job across hosts: first progress the network here (the progress thread
    /// stands aside meanwhile), yielding after each look, for as long as a waiter would spin and
    /// yield; then sleep as usual, with the progress thread serving the network again and
    /// ringing the doorbell when data arrives, or, for a condition that only the network makes
    /// true ([`Fed::Network`]), on the worker's descriptor itself: one wake-up per arrival
    /// instead of two (64 simulated hosts × 1 PE: barrier 0.55 × the time; docs/PERFORMANCE.md).
    ///
    /// A wait inside another one's condition (a team creation whose completion syncs the team)
    /// never sleeps: the outer wait still holds the progress thread aside, so nobody would
    /// serve the network for this PE meanwhile. It progresses and yields until done.
    #[cold]
    fn wait_progressing(&self, net: &Net, owner: usize, ready: &mut dyn FnMut() -> bool, fed: Fed) {
        thread_local! {
            static DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        struct Nest;
        impl Drop for Nest {
            fn drop(&mut self) {
                DEPTH.with(|d| d.set(d.get() - 1));
            }
        }
        let nested = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get() > 1
        });
        let _nest = Nest;
        {
            let busy = net.busy();
            let start = Instant::now();
            let mut last_delivery = None;
            let mut rounds = 0u32;
            loop {
                let delivered = net.progress();
                if ready() {
                    return;
                }
                if delivered {
                    last_delivery = Some(Instant::now());
                }
                // Give the core away after every look that found nothing: a look at the
                // network is a system call already, so a yield costs little when nobody else
                // wants the core, and when somebody does (another PE, possibly the one to make
                // progress) it gets the core at once. Across 2 simulated hosts x 2 PEs on
                // this 2-core machine a barrier took 23-45 us so and 37-47 us yielding after
                // every 16 looks (`bench/c/coll_bench.c 8 50`, three alternations). A look
                // that delivered something is followed by another at once: the rest of a
                // message (a flag after its data) is often there already.
                if !delivered {
                    std::thread::yield_now();
                }
                rounds += 1;
                if rounds.is_multiple_of(16)
                    && !nested
                    && start.elapsed() >= NETWORK_YIELD_FOR
                    && last_delivery.is_none_or(|at| at.elapsed() >= NETWORK_SERVING_GAP)
                {
                    break;
                }
            }
            // A condition that only the network makes true: sleep on the worker's descriptor,
            // still holding the worker (docs/ARCHITECTURE.md, "Who progresses the worker").
            if fed == Fed::Network {
                // Started before the first sleep, as the doorbell's sleep does: the hang
                // reports stamp when the call began to block.
                let mut watch = wait::Watch::start();
                while let Some(done) = net.sleep_on_worker(NETWORK_SLEEP_LOOK, ready) {
                    if done {
                        return;
                    }
                    watch.look();
                }
            }
            busy.hand_over();
        }
        wait::wait_until(&self.network_sleep(), self.ctrl.pe(owner), ready)
    }

    /// Synchronises the `n` members of a team whose slot is `slot`: this PE is member `me` and
    /// `member(i)` is the world PE of member i. `epoch` counts the team's syncs (from 1); all
    /// members pass the same value. Orders every earlier memory operation of each member before
    /// every later one of any member.
    ///
    /// With a core per PE, dissemination (log2 n rounds of one flag each) is fastest. With more
    /// PEs than cores what costs is how often each PE must be scheduled, so a central counter
    /// on member 0 (arrive once, see the release once) wins.
    pub fn team_sync(&self, slot: usize, n: usize, me: usize, member: impl Fn(usize) -> usize, epoch: u64) {
        if self.spans_hosts(n, &member) {
            self.network_sync(slot, n, me, member, epoch)
        } else if n == 1 {
            fence(Ordering::SeqCst);
        } else if self.uses_central_sync(n) {
            self.central_sync(slot, n, member, epoch)
        } else {
            self.dissemination_sync(slot, n, me, member, epoch)
        }
    }

    /// Whether a team of `n` (> 1) members syncs through the central counter on member 0.
    #[inline]
    pub fn uses_central_sync(&self, n: usize) -> bool {
        self.wait.oversubscribed && n < CENTRAL_MAX_PES
    }

    fn dissemination_sync(
        &self,
        slot: usize,
        n: usize,
        me: usize,
        member: impl Fn(usize) -> usize,
        epoch: u64,
    ) {
        let mut dist = 1usize;
        let mut round = 0usize;
        let my_slot = self.ctrl.slot(self.my_pe, slot);
        while dist < n {
            let to = member((me + dist) % n);
            self.ctrl.slot(to, slot)[round].store(epoch, Ordering::Release);
            self.notify(to);
            let flag = &my_slot[round];
            self.wait_until_rung(self.my_pe, || flag.load(Ordering::Acquire) >= epoch);
            dist <<= 1;
            round += 1;
        }
    }

    /// The sync of a team whose members span hosts: dissemination, each flag written by a
    /// store to a PE of this host and by a network put to another host. A member first
    /// completes its own network operations (quiet), so that the sync orders them as it
    /// orders stores on one host. Waiting progresses the network too.
    fn network_sync(&self, slot: usize, n: usize, me: usize, member: impl Fn(usize) -> usize, epoch: u64) {
        if let Some(net) = &self.net {
            if let Err(e) = net.quiet() {
                fatal(&e);
            }
        }
        self.connect_dissemination("shmem_team_sync", n, me, &member);
        let my_slot = self.ctrl.slot(self.my_pe, slot);
        let (mut dist, mut round) = (1usize, 0usize);
        while dist < n {
            self.store_slot_word("shmem_team_sync", member((me + dist) % n), slot, round, epoch);
            let flag = &my_slot[round];
            self.wait_until(self.my_pe, || flag.load(Ordering::Acquire) >= epoch);
            dist <<= 1;
            round += 1;
        }
    }

    fn central_sync(&self, slot: usize, n: usize, member: impl Fn(usize) -> usize, epoch: u64) {
        let root = member(0);
        // Where and that this PE arrived, for the waits of the others on its core (below).
        let core_aware = n <= CORE_AWARE_MAX_PES && self.n_pes <= CORE_AWARE_MAX_JOB;
        let cpu = if core_aware { rustix::thread::sched_getcpu() as u32 + 1 } else { 0 };
        if core_aware {
            let mine = &self.ctrl.pe(self.my_pe).cpu;
            // Written only when it changes: the line also holds the doorbell words that every
            // writer to this PE reads.
            if mine.load(Ordering::Relaxed) != cpu {
                mine.store(cpu, Ordering::Relaxed);
            }
            self.ctrl.slot(self.my_pe, slot)[CENTRAL_ARRIVED].store(epoch, Ordering::Relaxed);
        }
        let words = self.ctrl.slot(root, slot);
        let (arrivals, release) = (&words[CENTRAL_ARRIVALS], &words[CENTRAL_RELEASE]);
        let count = add_to_tagged_count(arrivals, epoch);
        if count == n as u64 {
            release.store(epoch, Ordering::Release);
            self.notify(root);
            return;
        }
        let released = || release.load(Ordering::Acquire) >= epoch;
        if core_aware && !wait::contended() {
            self.poll_while_core_idle(slot, n, &member, epoch, cpu, released);
        }
        self.wait_until_rung(root, released);
    }

    /// A PE waiting in a central sync whose core has no other PE still to arrive keeps
    /// polling rather than yielding: yielding would only hand the core to a PE that waits too,
    /// and the release, when it comes, would wait for a switch back. It yields as soon as a
    /// member last seen on its core has not arrived, does not poll at all when a PE outside
    /// the team shares its core, and gives up after `yield_for` (the usual wait takes over).
    /// With PEs pinned (oshrun does so when they outnumber the cores) the CPUs are exact: a 4-PE sync on 2 cores took 1.5 µs rather than 2.9 unpinned, and 8, 12
    /// and 16 PEs gained 7-13% over waiting without it. Unpinned, 8 PEs neither gain nor lose.
    fn poll_while_core_idle(
        &self,
        slot: usize,
        n: usize,
        member: &impl Fn(usize) -> usize,
        epoch: u64,
        cpu: u32,
        released: impl Fn() -> bool,
    ) {
        let start = Instant::now();
        let mut last = start;
        let mut rounds = 0u32;
        // The PEs last seen on this CPU, looked up once: each check then reads only their
        // arrival words, lines that PEs of this core wrote. If one of them is not a member,
        // polling could keep it from running while a member waits for it (a row team's sync
        // holding the core that a PE of another row needs): then this PE waits as usual.
        let mut here = [0usize; CORE_AWARE_MAX_PES];
        let mut count = 0;
        for pe in (0..self.n_pes).filter(|&pe| pe != self.my_pe) {
            if self.ctrl.pe(pe).cpu.load(Ordering::Relaxed) != cpu {
                continue;
            }
            if count == here.len() || !(0..n).any(|i| member(i) == pe) {
                return;
            }
            here[count] = pe;
            count += 1;
        }
        let someone_here_to_arrive = || {
            here[..count]
                .iter()
                .any(|&pe| self.ctrl.slot(pe, slot)[CENTRAL_ARRIVED].load(Ordering::Relaxed) < epoch)
        };
        while !released() {
            rounds += 1;
            // Yield now and then anyway: a PE that moved to this core is not seen here.
            if rounds.is_multiple_of(32) || someone_here_to_arrive() {
                std::thread::yield_now();
            } else {
                for _ in 0..64 {
                    std::hint::spin_loop();
                    if released() {
                        return;
                    }
                }
            }
            // A look long after the one before: another process held the core (a busy
            // program beside the PEs), and polling would hold it from the PEs of this core
            // next time: wait as usual, which sleeps (see `wait::contended`).
            let now = Instant::now();
            let gap = now.duration_since(last);
            if gap >= wait::YIELD_STOLEN {
                wait::note_stolen(gap, now);
                return;
            }
            if now.duration_since(start) >= self.wait.yield_for {
                return;
            }
            last = now;
        }
    }

    /// Completes all outstanding memory operations (shmem_quiet / shmem_fence): on shared
    /// memory every store has been issued already; a full fence makes them globally visible.
    /// Across hosts it also waits until every network put and atomic has completed.
    #[inline]
    pub fn quiet(&self) {
        fence(Ordering::SeqCst);
        if let Some(net) = &self.net {
            if let Err(e) = net.quiet() {
                fatal(&e);
            }
        }
    }

    /// Orders this PE's earlier puts and atomics before later ones (shmem_fence): on shared
    /// memory a fence; across hosts also the network's ordering.
    #[inline]
    pub fn fence(&self) {
        fence(Ordering::SeqCst);
        if let Some(net) = &self.net {
            if let Err(e) = net.fence() {
                fatal(&e);
            }
        }
    }
}
