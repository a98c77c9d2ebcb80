//! The progress thread of a PE across hosts: it sleeps on the worker's event descriptor,
//! progresses the worker when something arrives, and stands aside while a thread of the PE
//! progresses it itself (see `Busy` in the parent module); and the sleep on that descriptor of
//! such a thread, when what it waits for only the network brings (`Net::sleep_on_worker`).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use ferroshmem_wire::ucp::Worker;

use super::{boot_err, monotonic_ns};
use crate::error::{Error, Result};

/// The thread that sleeps on the worker's event descriptor and progresses it on arrival.
pub(super) struct ProgressThread {
    stop: Arc<AtomicBool>,
    worker: Arc<Worker>,
    handle: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
    /// When the thread stands aside: the moment to take the worker back, and its timer.
    pub(super) hand_back: Arc<HandBack>,
    /// The worker's event descriptor (fixed for the worker's life), which this thread sleeps
    /// on, and so does a waiter that keeps the worker (`Net::sleep_on_worker`).
    efd: std::os::fd::RawFd,
}

/// The progress thread's hand-back deadline and the one-shot timer (timerfd) it waits on while
/// it stands aside. Setting a timer is a system call that took 11 µs here (this VM reprograms
/// its timer hardware through the hypervisor): set by every leave, it was 40% of a barrier
/// between 2 simulated hosts × 1 PE (24-25 µs, 10.4 without). Waking the progress thread
/// instead at every deadline to set the timer again (every 200 µs for each PE that runs
/// collectives back to back) cost more with 8 PEs on the 2 cores (4 × 2 barrier 139 against
/// 91 µs with the timer set at every leave). So the timer is set with slack, for twice the
/// hand-back delay, and set again only when it would fire less than one delay after a leave:
/// one system call per 200 µs of back-to-back collectives, no wake-up of the progress thread
/// while they last, and the worker back 200-400 µs after the last leave (4 × 2 barrier 94-103
/// against 127-134 µs with the timer set at every leave, both orders of an alternating A/B).
#[derive(Debug)]
pub(super) struct HandBack {
    timer: std::os::fd::OwnedFd,
    /// `CLOCK_MONOTONIC` nanoseconds after which the progress thread takes the worker back.
    deadline: AtomicU64,
    /// When the timer fires (`CLOCK_MONOTONIC` nanoseconds); 0: not set.
    fires_at: AtomicU64,
}

impl HandBack {
    /// Sets the timer to fire at `at` (`CLOCK_MONOTONIC` nanoseconds).
    fn set_timer(&self, at: u64) {
        self.fires_at.store(at, Ordering::SeqCst);
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec {
                tv_sec: (at / 1_000_000_000) as _,
                tv_nsec: (at % 1_000_000_000).max(1) as _,
            },
        };
        // SAFETY: our timer descriptor, a valid itimerspec (absolute time), no old value wanted.
        unsafe {
            libc::timerfd_settime(
                std::os::fd::AsRawFd::as_raw_fd(&self.timer),
                libc::TFD_TIMER_ABSTIME,
                &spec,
                std::ptr::null_mut(),
            )
        };
    }

    /// The progress thread takes the worker back `after` from now (within twice that),
    /// unless a thread of the PE progresses again by then.
    pub(super) fn after(&self, after: std::time::Duration) {
        let now = monotonic_ns();
        let after = after.as_nanos() as u64;
        // Deadline first, then the look at the timer: the progress thread clears the timer,
        // then reads the deadline (both SeqCst), so one of the two sees the other.
        self.deadline.store(now + after, Ordering::SeqCst);
        let at = self.fires_at.load(Ordering::SeqCst);
        if at == 0 || at < now + after {
            self.set_timer(now + 2 * after);
        }
    }

    /// The progress thread takes the worker back at once: the caller goes to sleep, or the
    /// thread must stop.
    pub(super) fn at_once(&self) {
        let now = monotonic_ns();
        self.deadline.store(now, Ordering::SeqCst);
        self.set_timer(now);
    }

    /// On the progress thread: clears the timer's expiration (if any) and notes it unset.
    fn consume(&self) {
        self.fires_at.store(0, Ordering::SeqCst);
        let mut expirations = 0u64;
        // SAFETY: reads 8 bytes into a u64 from our non-blocking timer (nothing to read: EAGAIN).
        unsafe {
            libc::read(std::os::fd::AsRawFd::as_raw_fd(&self.timer), (&mut expirations as *mut u64).cast(), 8)
        };
    }

    /// On the progress thread, woken while standing aside (by the timer, or the safety net):
    /// whether to take the worker back now; if not, the timer is set for when to look again
    /// (unless a thread of the PE progresses: its leave sets it).
    fn due(&self, busy: &AtomicU32) -> bool {
        self.consume();
        if busy.load(Ordering::SeqCst) > 0 {
            return false;
        }
        let deadline = self.deadline.load(Ordering::SeqCst);
        if monotonic_ns() < deadline {
            self.set_timer(deadline);
            return false;
        }
        true
    }
}

impl ProgressThread {
    pub(super) fn start(
        worker: Arc<Worker>,
        on_activity: Arc<dyn Fn() + Send + Sync>,
        busy: Arc<AtomicU32>,
        my_pe: usize,
    ) -> Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let efd = worker.event_fd().map_err(|e| boot_err("worker event descriptor", e))?;
        // SAFETY: plain system call; the result is checked.
        let tfd =
            unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if tfd < 0 {
            return Err(Error::bootstrap_os(
                "network transport: progress timer",
                std::io::Error::last_os_error(),
            ));
        }
        // SAFETY: a descriptor we just created and own alone.
        let timer = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(tfd) };
        let hand_back =
            Arc::new(HandBack { timer, deadline: AtomicU64::new(0), fires_at: AtomicU64::new(0) });
        let (w, s, t) = (worker.clone(), stop.clone(), hand_back.clone());
        let handle = std::thread::Builder::new()
            .name(format!("ferroshmem-progress-{my_pe}"))
            .spawn(move || {
                let tfd = std::os::fd::AsRawFd::as_raw_fd(&t.timer);
                let mut aside = false;
                while !s.load(Ordering::Acquire) {
                    if aside || busy.load(Ordering::SeqCst) > 0 {
                        // A thread of this PE progresses (or did until lately): wait for the
                        // hand-back timer (5 ms: a safety net), clear it, look again.
                        let mut fds = [libc::pollfd { fd: tfd, events: libc::POLLIN, revents: 0 }];
                        // SAFETY: one valid pollfd on our timer, which this thread holds.
                        unsafe { libc::poll(fds.as_mut_ptr(), 1, 5) };
                        aside = !t.due(&busy);
                        continue;
                    }
                    match w.progress_and_arm() {
                        Ok((armed, _)) => {
                            // Always ring: an event may have been handled by another thread's
                            // progress, or inside the arm, since the waiters last looked.
                            on_activity();
                            if armed {
                                // The worker's descriptor and the hand-back timer: a thread
                                // of this PE may progress the worker while this one sleeps
                                // here without being woken (what it handled signalled
                                // nothing new), and leave work behind that no descriptor
                                // will signal again (the arm came before that progress).
                                // Its hand-back fires the timer, and the worker is
                                // progressed and armed anew (docs/ARCHITECTURE.md, "Who
                                // progresses the worker").
                                let mut fds = [
                                    libc::pollfd { fd: efd, events: libc::POLLIN, revents: 0 },
                                    libc::pollfd { fd: tfd, events: libc::POLLIN, revents: 0 },
                                ];
                                // SAFETY: two valid pollfds; the worker's descriptor lives as
                                // long as the worker, which this thread holds, the timer as
                                // long as `t`. Woken by network activity, the timer, or
                                // `Worker::signal` (stop).
                                unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
                                if fds[1].revents != 0 {
                                    t.consume();
                                }
                                // Woken while a thread of this PE progresses: it is handling
                                // what arrived; stand aside until it leaves.
                                aside = busy.load(Ordering::SeqCst) > 0;
                            }
                        }
                        Err(e) => {
                            report_line(&format!(
                                "ferroshmem: PE {my_pe}: progress thread: arming the UCX worker failed: {e}\n"
                            ));
                            return;
                        }
                    }
                }
            })
            .map_err(|e| Error::bootstrap_os("network transport: starting the progress thread", e))?;
        Ok(ProgressThread { stop, worker, handle: std::sync::Mutex::new(Some(handle)), hand_back, efd })
    }
}

/// Writes a whole line to stderr in one write (lines of different PEs never tear), as the
/// runtime's reporter does; the transport does not call up into the runtime.
fn report_line(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

impl ProgressThread {
    /// Stops the thread and waits for it to end.
    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        let _ = self.worker.signal();
        self.hand_back.at_once();
        if let Some(h) = self.handle.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = h.join();
        }
    }
}

impl Drop for ProgressThread {
    fn drop(&mut self) {
        self.stop();
    }
}

impl super::Net {
    /// For a thread that progresses the worker itself (it holds a [`super::Busy`]) and waits for
    /// what only the network brings: progresses the worker until quiet and arms its event
    /// descriptor; then, unless `ready()` (another thread of this PE, the progress thread
    /// among them, may have delivered it before the arm), sleeps on the descriptor for up to
    /// `timeout`. An arrival wakes this thread alone, where a sleep on the doorbell wakes two
    /// (the progress thread, which progresses and rings, then the waiter). Returns whether
    /// `ready()`; `None` when the worker cannot be armed, or has no progress thread (the
    /// caller sleeps the usual way).
    pub fn sleep_on_worker(
        &self,
        timeout: std::time::Duration,
        ready: &mut dyn FnMut() -> bool,
    ) -> Option<bool> {
        let efd = self.progress.as_ref()?.efd;
        let (armed, handled) = self.worker.progress_and_arm().ok()?;
        if handled > 0 {
            (self.on_activity)();
        }
        if ready() {
            return Some(true);
        }
        if armed {
            let mut fds = [libc::pollfd { fd: efd, events: libc::POLLIN, revents: 0 }];
            let ms = timeout.as_millis().clamp(1, i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd on the worker's descriptor, which lives as long as the
            // worker that `self` holds (the progress thread is stopped before it goes).
            unsafe { libc::poll(fds.as_mut_ptr(), 1, ms) };
        } else {
            std::thread::yield_now();
        }
        Some(false)
    }
}
