//! Waiting that stays fast when PEs have a core each and stays live when they outnumber cores:
//! spin briefly, then yield the core, then sleep on the memory owner's shared futex doorbell.
//!
//! Protocol (a Dekker pair, hence the barriers of `sync_prims::barrier`: SeqCst fences, or
//! `membarrier` on the waiter's side and a compiler barrier on the writer's where the kernel
//! allows): a waiter reads the doorbell, arms it, registers in `sleepers`, makes its barrier,
//! re-checks its condition, and sleeps only if the doorbell is unchanged. A writer changes
//! memory, makes its barrier, and if the owner has sleepers and the bell is
//! armed, disarms it, bumps the doorbell and wakes them. Either the writer sees the
//! registration, or the waiter's re-check sees the write; and a bell disarmed by an earlier
//! writer has changed the doorbell after the waiter read it, so that waiter does not sleep.
//! Only the first write after a waiter falls asleep pays for a wake: a PE asleep in a barrier
//! does not make every put to it a system call. The futex sleep also has a timeout, so a
//! change made by a plain local store (which rings no bell) is still noticed.
//!
//! Loom model-checks this very code (module `loom_model` at the end: one and two writers, two
//! waiters, re-arming after a wake for another word, PEs outnumbering cores or not, plain
//! stores noticed by the timeout): built with `--cfg loom`, the atomics, the yield and the futex
//! come from loom (`sync_prims`). `tests/loom.rs` runs it within the normal test command.
#![allow(unsafe_code)]

pub(crate) mod slice;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::ctrl::PeCtrl;
// std's and rustix's in a normal build, loom's under `--cfg loom` (see `sync_prims`).
use crate::sync_prims::{barrier, futex, spin_loop, yield_now};

/// How long each phase of a wait lasts; chosen once per PE from the PE/core ratio.
#[derive(Debug, Clone, Copy)]
pub struct WaitPolicy {
    /// Condition checks with a pause between them before yielding.
    pub spins: u32,
    /// How long to keep yielding before sleeping.
    pub yield_for: Duration,
    /// Upper bound of one futex sleep (the safety net for changes that ring no bell).
    pub sleep_for: Duration,
    /// More PEs than cores: algorithms should minimise how often each PE must run.
    pub oversubscribed: bool,
    /// After a wake-up for a change it does not care about, look by yielding for a while
    /// before sleeping again (see `wait_slow`); not when PEs outnumber cores, nor in the waits
    /// of jobs across hosts (`Runtime::wait_until`).
    pub yield_after_wake: bool,
    /// A wait in a team call that has slept this long prints a hang report (`SHMEMX_HANG_REPORT`,
    /// milliseconds; 0: never).
    pub hang_report_ms: u64,
}

impl WaitPolicy {
    /// A policy for `n_pes` PEs sharing `cores` cores (the job's figure, the same on every
    /// PE: algorithms chosen from it must agree).
    pub fn for_job(n_pes: usize, cores: usize) -> Self {
        let oversubscribed = n_pes > cores;
        WaitPolicy {
            // 2 000 checks: some tens of microseconds. With 20 000 (a millisecond), 2 PEs beside
            // 4 busy loops each spun through its partner's lost slices and fell into 0.65-0.72
            // ms barriers in 3 runs of 4, against 0.7-34 µs; idle, the figures did not move
            // (`bench/c/coll_bench.c` at 2 PEs: 0.96-1.03).
            spins: if oversubscribed { 4 } else { 2_000 },
            yield_for: Duration::from_micros(if oversubscribed { 2_000 } else { 200 }),
            // SHMEMX_SLEEP_TIMEOUT_MS: the safety-net bound of one sleep (default 2 ms).
            sleep_for: Duration::from_millis(
                std::env::var("SHMEMX_SLEEP_TIMEOUT_MS")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(2)
                    .max(1),
            ),
            oversubscribed,
            yield_after_wake: !oversubscribed,
            // Set by the runtime (`SHMEMX_HANG_REPORT`, read by the hang reports).
            hang_report_ms: 0,
        }
    }
}

/// One wait that went to sleep, as its observer sees it (hang reports: when it began to
/// block, when to look at the clock next, whether it reported).
#[derive(Debug, Clone, Copy, Default)]
pub struct Watch {
    /// When the call began to block (the job's coarse clock, ms).
    pub since: u64,
    /// When to look at the clock again.
    pub next_look: u64,
    /// The report was printed (or is off).
    pub reported: bool,
}

/// Who watches waits that sleep: registered once at start-up by the layer above
/// (`activity::SLEEP_OBSERVER`, the hang reports), so that waiting does not depend on it.
#[derive(Debug, Clone, Copy)]
pub struct SleepObserver {
    /// A wait is about to sleep.
    pub begin: fn(&mut Watch),
    /// It woke up and goes on waiting.
    pub look: fn(&mut Watch),
}

static OBSERVER: std::sync::OnceLock<SleepObserver> = std::sync::OnceLock::new();

/// Registers the observer of sleeping waits (once per process; later calls change nothing).
pub fn observe_sleeps(observer: SleepObserver) {
    let _ = OBSERVER.set(observer);
}

impl Watch {
    /// A wait is about to sleep (whoever observes is told).
    pub fn start() -> Self {
        let mut watch = Watch { reported: true, ..Watch::default() };
        if let Some(o) = OBSERVER.get() {
            (o.begin)(&mut watch);
        }
        watch
    }

    /// The wait woke up and goes on waiting.
    #[inline]
    pub fn look(&mut self) {
        if let Some(o) = OBSERVER.get() {
            (o.look)(self);
        }
    }
}

static SLEEPS: AtomicU64 = AtomicU64::new(0);
static TIMEOUTS: AtomicU64 = AtomicU64::new(0);

/// (futex sleeps, sleeps that ended by timeout rather than a wake) of this process so far: a
/// timeout means nobody rang for a change, which only plain local stores should cause.
pub fn sleep_stats() -> (u64, u64) {
    (SLEEPS.load(Ordering::Relaxed), TIMEOUTS.load(Ordering::Relaxed))
}

/// Longest futex sleep of [`wait_until_rung`].
pub const RUNG_SLEEP_MAX: Duration = Duration::from_secs(1);

/// First futex sleep bound of [`wait_until_rung`] (doubled after each timeout). These waits
/// need no safety net (every writer of their words rings), and a short bound costs on a busy
/// machine: a sync's sleep that outlasts it (its waker queued behind a busy program's slice)
/// times out, wakes, looks and sleeps again, a wake-up and two switches on a core already
/// short of time, and its timer fires before the kernel's tick. 4 PEs on this VM's 2 cores
/// beside 2 busy loops, 10 000 barriers: with a first bound of 2 ms, 720-890 timer interrupts
/// on the 2 CPUs (the tick alone is about 400) and 82-92 µs per barrier; with 64 ms, 337-444
/// and 63-80 µs (three alternations, `perf stat -a -e irq_vectors:local_timer_entry`).
const RUNG_FIRST_SLEEP: Duration = Duration::from_millis(64);

/// Waits until `ready()` holds. `owner` is the control block of the PE whose memory the
/// condition reads: writers to that PE ring its doorbell.
#[inline]
pub fn wait_until(policy: &WaitPolicy, owner: &PeCtrl, mut ready: impl FnMut() -> bool) {
    if ready() {
        return;
    }
    wait_slow(policy, owner, policy.sleep_for, Writers::Any, &mut ready)
}

/// [`wait_until`] for a condition that only changes through writers that ring `owner`'s
/// doorbell with [`notify`], whose full fence is the writer's half of the Dekker pair (the
/// library's own sync words; never a plain store of the program, nor a put's
/// [`notify_after_copy`]): the sleeper's half is then a full fence too (`Writers::Fenced`),
/// and the safety net of a timed sleep is not needed, so each sleep that ends by timeout
/// doubles the next one, up to [`RUNG_SLEEP_MAX`]. With a fixed 2 ms bound every sleeper woke
/// 500 times a second: 1023 PEs waiting in `shmem_init`'s barrier for the last PEs to start
/// took the two cores with half a million wake-ups a second, and the start of 1024 PEs took
/// 20 s (71% of the samples in the waits), when it ended at all.
#[inline]
pub fn wait_until_rung(policy: &WaitPolicy, owner: &PeCtrl, mut ready: impl FnMut() -> bool) {
    if ready() {
        return;
    }
    wait_slow(policy, owner, RUNG_SLEEP_MAX.max(policy.sleep_for), Writers::Fenced, &mut ready)
}

/// Who changes the condition a wait sleeps on, which decides the waiter's half of the Dekker
/// pair (`sync_prims::barrier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writers {
    /// Any writer, a put's light barrier included: the waiter makes the heavy half
    /// (`membarrier` where the process registered for it).
    Any,
    /// Only writers that make a full fence before they look for sleepers ([`notify`]: the
    /// syncs' flags and counters): a full fence on the waiter's side completes the pair. The
    /// heavy half interrupts every core that runs a PE (an IPI, a VM exit here) and takes a
    /// kernel-wide lock: 4 PEs on this machine's 2 cores beside 2 busy loops, whose waits
    /// sleep at every sync, spent 15% of their time there.
    Fenced,
}

#[cold]
fn wait_slow(
    policy: &WaitPolicy,
    owner: &PeCtrl,
    max_sleep: Duration,
    writers: Writers,
    ready: &mut dyn FnMut() -> bool,
) {
    // Under contention a wait spins briefly and then sleeps (see `contended`), a wait on the
    // program's memory too: a 4-PE ping-pong beside 2 busy loops took 2-32 µs a step so,
    // 0.05-69 yielding first (and with 4 busy loops 108-230 against 380-410). A spin that was
    // itself preempted for a slice (a look [`CONTENDED_GAP`] or more after the one before)
    // goes to sleep at once as well.
    let contended_now = contended();
    let spins = if contended_now { policy.spins.min(CONTENDED_SPINS) } else { policy.spins };
    let mut sleep_at_once = contended_now;
    let mut last_look: Option<Instant> = None;
    for i in 0..spins {
        spin_loop();
        if ready() {
            return;
        }
        if i % 256 == 255 {
            let now = Instant::now();
            if let Some(before) = last_look {
                let gap = now.duration_since(before);
                if gap >= CONTENDED_GAP {
                    note_stolen(gap, now);
                    sleep_at_once = true;
                    break;
                }
            }
            last_look = Some(now);
        }
    }
    if !sleep_at_once && yield_until(policy.yield_for, ready) {
        return;
    }
    let mut sleep = match writers {
        Writers::Any => policy.sleep_for,
        Writers::Fenced => RUNG_FIRST_SLEEP.max(policy.sleep_for).min(max_sleep),
    };
    // Only waits that sleep read the clock: when this one began to block (for hang reports),
    // and after each wake-up whether it has waited long enough for a report.
    let mut watch = Watch::start();
    loop {
        let timeout =
            rustix::time::Timespec { tv_sec: sleep.as_secs() as _, tv_nsec: sleep.subsec_nanos() as _ };
        let bell = owner.doorbell.load(Ordering::SeqCst);
        owner.armed.store(1, Ordering::SeqCst);
        owner.sleepers.fetch_add(1, Ordering::SeqCst);
        // The waiter's half of the Dekker pair (the writer's is the fence in `notify`): the
        // re-check below reads with whatever ordering the caller chose (Acquire, as a rule),
        // and without a SeqCst fence between the registration and it, the memory model lets
        // the re-check miss the write while the writer misses the registration. x86 cannot
        // do that (the locked add is a full barrier) but the model can, and loom finds it
        // (`loom_model` below): a lost wake-up. The fence is on the path that is about to sleep
        // (and, where writers use a compiler barrier only, it is `membarrier`: `sync_prims`).
        match writers {
            Writers::Any => barrier::waiter(),
            Writers::Fenced => barrier::full(),
        }
        if ready() {
            owner.sleepers.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        // A shared (not PRIVATE) futex: the word is in a MAP_SHARED memfd, so the kernel keys
        // it by file page and a wake from any process reaches us. EAGAIN, EINTR and ETIMEDOUT
        // all just mean "look again".
        let slept = futex::wait(&owner.doorbell, futex::Flags::empty(), bell, Some(&timeout));
        SLEEPS.fetch_add(1, Ordering::Relaxed);
        if slept == Err(rustix::io::Errno::TIMEDOUT) {
            TIMEOUTS.fetch_add(1, Ordering::Relaxed);
            sleep = (sleep * 2).min(max_sleep);
        }
        owner.sleepers.fetch_sub(1, Ordering::SeqCst);
        if ready() {
            return;
        }
        watch.look();
        // Rung for a write this wait does not care about (a put into the heap while it waits
        // for a sync word: the doorbell is the PE's): look by yielding for a while before
        // arming the bell again, or every such write would pay a wake-up. A 128 KiB put
        // stream into a PE waiting in a barrier ran at 1.7 GB/s so (a wake per put) against
        // 55 GB/s for gets in the same run. Not when PEs outnumber cores: there the yielding
        // takes turns from the PEs that share the core (a barrier of 8 PEs took 6.7 µs
        // instead of 5.3), and a woken PE often finds the core taken long enough anyway.
        // Where arming makes a `membarrier` (`sync_prims::barrier`), which interrupts every
        // core running a PE, for four times as long: a stream of 8 MiB puts into a PE waiting
        // in a barrier ran 5-15% slower with one such interruption per 200 µs.
        if policy.yield_after_wake && slept != Err(rustix::io::Errno::TIMEDOUT) && !sleep_at_once {
            let rearm_after = if writers == Writers::Any && barrier::waiter_is_heavy() {
                4 * policy.yield_for
            } else {
                policy.yield_for
            };
            if yield_until(rearm_after, ready) {
                return;
            }
        }
    }
}

/// A yield that gave the core away for this long handed it to a process that runs whole
/// time slices (a busy program beside the PEs, or a PE that computes): from then on this wait
/// sleeps rather than yields (see [`yield_until`]).
pub(crate) const YIELD_STOLEN: Duration = Duration::from_micros(100);

/// How long after a second stolen turn within [`STEALS_WITHIN`] (a turn is stolen when a
/// wait lost its core for [`CONTENDED_GAP`] or more: a yield that returned that late, or a
/// look that came that long after the one before) every wait of this PE sleeps after at most
/// [`CONTENDED_SPINS`] checks, without polling or yielding first. While the load lasts the
/// turns will be stolen again, and each steal costs a time slice of the other process (4 ms
/// ticks on this machine's kernel), whereas a sleeper is woken by the write it waits for and,
/// with its short slice (`slice`), preempts the busy process. After this long the waits poll
/// and yield again, and the next steal, if the load is still there, starts another such period
/// at once (the one before it is less than [`STEALS_WITHIN`] old).
const CONTENDED_FOR: Duration = Duration::from_millis(20);

/// The shortest loss of the core that counts as stolen: ten times the slice the PEs ask for
/// (`slice`), so that PEs taking turns on a core at their pace do not count, while a process
/// with the scheduler's default slice (0.75-3 ms) or the 4 ms ticks of this machine's kernel
/// does.
const CONTENDED_GAP: Duration = Duration::from_millis(1);

/// The checks of a contended wait before it sleeps: some microseconds, which catch a partner
/// that runs on another core at this moment, far less than a wake-up costs here (11-37 µs).
const CONTENDED_SPINS: u32 = 512;

/// Two steals this close make the waits [`contended`]. A PE of our own that computes also
/// keeps the core until a tick: 8 PEs on the 2 idle cores saw 2-6 such steals each in 3 s of
/// barriers, and with one steal enough, those barriers took 4.5-4.65 µs instead of 4.2-4.35;
/// beside 2 busy loops each of 4 PEs saw one every 20-25 ms, as soon as it polled again.
const STEALS_WITHIN: Duration = Duration::from_millis(50);

/// When a turn of this process was last stolen, and until when its waits are contended
/// (nanoseconds since [`clock_origin`]; 0: never).
static LAST_STEAL: AtomicU64 = AtomicU64::new(0);
static CONTENDED_UNTIL: AtomicU64 = AtomicU64::new(0);

fn clock_origin() -> Instant {
    static ORIGIN: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

fn since_origin(at: Instant) -> u64 {
    at.saturating_duration_since(clock_origin()).as_nanos() as u64
}

/// A wait of this process lost its core for `gap`, until `now` (see [`contended`]). Not under
/// loom: the clock must not steer its executions (a model's step under a loaded machine can
/// take a millisecond, and the waits of later executions then took another path: loom stopped
/// with "Reached unexpected exploration state").
pub(crate) fn note_stolen(gap: Duration, now: Instant) {
    if cfg!(loom) || gap < CONTENDED_GAP {
        return;
    }
    let at = since_origin(now).max(1);
    let before = LAST_STEAL.swap(at, Ordering::Relaxed);
    if let Some(until) = contended_until(before, at) {
        CONTENDED_UNTIL.store(until, Ordering::Relaxed);
    }
}

/// Until when the waits are contended after a steal at `at` whose predecessor was at `before`
/// (nanoseconds since [`clock_origin`]; 0: none): `None` unless the two are within
/// [`STEALS_WITHIN`].
fn contended_until(before: u64, at: u64) -> Option<u64> {
    (before != 0 && at.saturating_sub(before) <= STEALS_WITHIN.as_nanos() as u64)
        .then(|| at + CONTENDED_FOR.as_nanos() as u64)
}

/// Whether this PE's waits sleep at once, their turns stolen lately by another process (see
/// [`CONTENDED_FOR`]).
pub(crate) fn contended() -> bool {
    if cfg!(loom) {
        return false;
    }
    let until = CONTENDED_UNTIL.load(Ordering::Relaxed);
    until != 0 && since_origin(Instant::now()) < until
}

/// Yields the core and looks again, for `how_long`; whether `ready()` came true. Ends early
/// when one yield gave the core away for [`YIELD_STOLEN`] or more: yielding helps when the
/// other runnable tasks are PEs that look and yield back within microseconds, but a process
/// that computes keeps the core for a whole time slice, and a yielding PE then gets it back
/// only after every such process had its slice, at each look. A PE that sleeps instead is
/// woken by the write it waits for, and with a short slice of its own (`slice`) it runs soon
/// after. 4 PEs on this machine's 2 cores with 2 busy loops beside them: 1.4-1.7 ms per
/// barrier when every wait yielded for its 2 ms, 1.3-1.4 ms with this alone, 0.11-0.13 ms with
/// the short slices too (`bench/c/busy_bench.c`).
fn yield_until(how_long: Duration, ready: &mut dyn FnMut() -> bool) -> bool {
    let start = Instant::now();
    let mut last = start;
    loop {
        yield_now();
        if ready() {
            return true;
        }
        let now = Instant::now();
        let gap = now.duration_since(last);
        if gap >= YIELD_STOLEN {
            note_stolen(gap, now);
            return false;
        }
        if now.duration_since(start) >= how_long {
            return false;
        }
        last = now;
    }
}

/// Tells sleepers on `owner`'s memory that it changed. Call after the write.
#[inline]
pub fn notify(owner: &PeCtrl) {
    barrier::full();
    look_for_sleepers(owner);
}

/// [`notify`] after a copy of many bytes (a put): the writer's half of the pair is the light
/// barrier where this process has one (`sync_prims::barrier`), since a full fence would drain
/// the store buffer after the copy. Flags and counters keep the full fence of [`notify`]: a
/// sync's flag reached its partner sooner with it (a 2-PE barrier took 0.063 µs with the
/// light barrier, 0.051 with the fence).
#[inline]
pub fn notify_after_copy(owner: &PeCtrl) {
    barrier::writer();
    look_for_sleepers(owner);
}

#[inline]
fn look_for_sleepers(owner: &PeCtrl) {
    // Acquire: seeing a registration makes the waiter's earlier `armed` store visible too.
    if owner.sleepers.load(Ordering::Acquire) != 0 && owner.armed.load(Ordering::Relaxed) != 0 {
        ring(owner);
    }
}

#[cold]
fn ring(owner: &PeCtrl) {
    if owner.armed.swap(0, Ordering::SeqCst) == 0 {
        return; // Another writer rang since the waiter armed the bell.
    }
    owner.doorbell.fetch_add(1, Ordering::SeqCst);
    // The kernel reads the count as an int: u32::MAX would be -1 and wake a single waiter.
    let _ = futex::wake(&owner.doorbell, futex::Flags::empty(), i32::MAX as u32);
}

/// Loom models of the protocol, run on the functions above (`sync_prims` gives them loom's
/// atomics, spin hint and yield, and a model of the futex as the kernel implements it): a
/// waiter never sleeps through the write it waits for, whatever the interleaving, with one or
/// two writers or two waiters, whether PEs outnumber cores or not (after a wake-up for a write
/// it does not care about, a waiter yields before it re-arms the bell only when they do not).
/// A lost wake-up leaves the waiter asleep with nobody to wake it: loom reports a deadlock.
/// Run with `RUSTFLAGS="--cfg loom" cargo test -p ferroshmem --release --lib loom` (the test
/// `tests/loom.rs` runs it as part of the normal test command).
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_first_steal_alone_does_not_make_the_waits_contended() {
        assert_eq!(contended_until(0, 7 * MS), None);
    }

    #[test]
    fn two_steals_within_the_window_make_the_waits_contended_for_a_while() {
        let within = STEALS_WITHIN.as_nanos() as u64;
        let period = CONTENDED_FOR.as_nanos() as u64;
        assert_eq!(contended_until(5 * MS, 5 * MS + within), Some(5 * MS + within + period));
        assert_eq!(contended_until(5 * MS, 6 * MS), Some(6 * MS + period));
    }

    #[test]
    fn steals_further_apart_than_the_window_do_not() {
        let within = STEALS_WITHIN.as_nanos() as u64;
        assert_eq!(contended_until(5 * MS, 5 * MS + within + 1), None);
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use crate::sync_prims::AtomicU32;
    use loom::sync::Arc;
    use loom::thread;

    /// A PE's control block and two words of its memory: the one a waiter waits for, and one
    /// it does not care about.
    struct Pe {
        ctrl: PeCtrl,
        flag: AtomicU32,
        other: AtomicU32,
    }

    impl Pe {
        fn new() -> Arc<Pe> {
            Arc::new(Pe { ctrl: PeCtrl::for_loom(), flag: AtomicU32::new(0), other: AtomicU32::new(0) })
        }

        /// A put of `flag` (a plus one, as counters and epochs grow), then the writer's
        /// notification, as the runtime's stores to another PE's memory do.
        fn bump_flag(&self) {
            self.flag.fetch_add(1, Ordering::Release);
            notify(&self.ctrl);
        }

        /// A put to a word the waiter does not wait for.
        fn put_other(&self) {
            self.other.store(1, Ordering::Release);
            notify(&self.ctrl);
        }

        /// A waiter's condition, with the runtime's ordering (Acquire).
        fn flag_at_least(&self, n: u32) -> bool {
            self.flag.load(Ordering::Acquire) >= n
        }
    }

    /// One spin, no time spent yielding (one round of yields: the clock must not steer loom's
    /// executions), so that every phase of a wait runs and the model stays small.
    fn policy(oversubscribed: bool) -> WaitPolicy {
        WaitPolicy {
            spins: 1,
            yield_for: Duration::ZERO,
            sleep_for: Duration::from_millis(2),
            oversubscribed,
            yield_after_wake: !oversubscribed,
            hang_report_ms: 0,
        }
    }

    fn check(preemptions: usize, model: impl Fn() + Sync + Send + 'static) {
        let mut builder = loom::model::Builder::new();
        // LOOM_MAX_PREEMPTIONS, when set, wins (e.g. 3 for a deeper run).
        builder.preemption_bound.get_or_insert(preemptions);
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let start = N.load(Ordering::SeqCst);
        builder.check(move || {
            N.fetch_add(1, Ordering::SeqCst);
            model()
        });
        eprintln!("ITER {}", N.load(Ordering::SeqCst) - start);
    }

    fn spawn(pe: &Arc<Pe>, f: impl FnOnce(&Pe) + 'static) -> thread::JoinHandle<()> {
        let pe = pe.clone();
        thread::spawn(move || f(&pe))
    }

    #[test]
    fn loom_a_write_wakes_the_sleeper() {
        for oversubscribed in [false, true] {
            check(3, move || {
                let pe = Pe::new();
                let writer = spawn(&pe, Pe::bump_flag);
                wait_until(&policy(oversubscribed), &pe.ctrl, || pe.flag_at_least(1));
                writer.join().unwrap();
            });
        }
    }

    #[test]
    fn loom_a_write_wakes_a_rung_wait() {
        check(3, || {
            let pe = Pe::new();
            let writer = spawn(&pe, Pe::bump_flag);
            wait_until_rung(&policy(false), &pe.ctrl, || pe.flag_at_least(1));
            writer.join().unwrap();
        });
    }

    /// The waiter is rung for a put it does not care about, yields (or not, oversubscribed),
    /// re-arms the bell, and must be rung again for its flag.
    #[test]
    fn loom_a_wake_for_another_word_rearms_the_bell() {
        for oversubscribed in [false, true] {
            check(2, move || {
                let pe = Pe::new();
                let other = spawn(&pe, Pe::put_other);
                let writer = spawn(&pe, Pe::bump_flag);
                wait_until(&policy(oversubscribed), &pe.ctrl, || pe.flag_at_least(1));
                other.join().unwrap();
                writer.join().unwrap();
            });
        }
    }

    /// Two writes, the first of which disarms the bell: the second wait must arm it again.
    #[test]
    fn loom_two_writes_two_waits() {
        check(2, || {
            let pe = Pe::new();
            let writers = [spawn(&pe, Pe::bump_flag), spawn(&pe, Pe::bump_flag)];
            let policy = policy(false);
            wait_until(&policy, &pe.ctrl, || pe.flag_at_least(1));
            wait_until(&policy, &pe.ctrl, || pe.flag_at_least(2));
            for w in writers {
                w.join().unwrap();
            }
        });
    }

    /// Two waiters (two PEs waiting on one PE's memory) and one write: both wake.
    #[test]
    fn loom_one_write_wakes_two_sleepers() {
        check(2, || {
            let pe = Pe::new();
            let policy = policy(true);
            let waiter = spawn(&pe, move |pe| wait_until(&policy, &pe.ctrl, || pe.flag_at_least(1)));
            let writer = spawn(&pe, Pe::bump_flag);
            wait_until(&policy, &pe.ctrl, || pe.flag_at_least(1));
            waiter.join().unwrap();
            writer.join().unwrap();
        });
    }

    /// A plain store rings no bell: the sleep's timeout is what notices it.
    #[test]
    fn loom_a_plain_store_is_seen_after_a_timeout() {
        for oversubscribed in [false, true] {
            check(3, move || {
                futex::sleeps_time_out();
                let pe = Pe::new();
                let writer = spawn(&pe, |pe| pe.flag.store(1, Ordering::Release));
                wait_until(&policy(oversubscribed), &pe.ctrl, || pe.flag_at_least(1));
                writer.join().unwrap();
            });
        }
    }
}
