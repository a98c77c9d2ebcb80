//! Lost hosts: every PE of a job across hosts checks, now and then, that the PEs of other
//! hosts it holds endpoints to still answer; one that does not within the time limit ends
//! the job with a report naming it and its host. Launchers end a job when a process exits or
//! dies, but a host that stops answering (its network cut, its node down) closes no
//! connection and ends no process that the launcher watches: the others would wait for it for
//! ever (issue 29).
//!
//! A *probe* is a one-sided read of 8 bytes of the peer's control block: its progress thread
//! (or its own waits, or a blocking call of it) answers without the program's help, so a PE
//! that computes for an hour outside the library still answers, while a stopped host does
//! not. The watch runs on a thread of its own that sleeps between rounds: every
//! [`PROBE_EVERY`] (or half the limit, if shorter) it probes each connected peer that has no
//! probe in flight, and a probe still unanswered half the limit after it left names a lost
//! host: found within the limit whatever the PEs are doing (waiting for it, talking to it, or
//! computing). A probe that fails with an error rather than silence means the peer's process
//! ended without finalizing (a PE that finalized exits only after every PE did, in the
//! launcher's closing fence): the launcher most often ends the job then, but not always (srun
//! does not when the PE was alone on its host), so [`LAUNCHER_GRACE`] later the watch ends it
//! too; with a round every second, that is about 3 s after the peer ended. Sooner still when
//! UCX itself sees the connection close: endpoints carry UCX's peer error handling
//! (`Net::failed_peer`), and a failed endpoint wakes the watch at once, so the job ends
//! [`LAUNCHER_GRACE`] after the peer's process did (and UCX reports the failure instead of
//! ending this process, as it may without error handling). Nothing is probed
//! once this PE finalized: its peers may then stop serving the network (they wait in the
//! launcher's closing fence).
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::{Runtime, ERROR_EXIT_STATUS};
use crate::ctrl::STATE_OFFSET;
use crate::net::{Finisher, Pending, Region};

/// The time limit within which a lost peer is found, in milliseconds (0: never probe).
pub(crate) const ENV_PEER_TIMEOUT: &str = "SHMEMX_PEER_TIMEOUT_MS";
/// Its default: a host that stops answering ends the job within 20 s.
const DEFAULT_PEER_TIMEOUT: Duration = Duration::from_secs(20);
/// The shortest limit taken (a probe round must not keep a loaded machine busy).
const MIN_PEER_TIMEOUT: Duration = Duration::from_millis(200);

/// What the report of a lost peer says after "ferroshmem: PE n": oshrun watches for it, and
/// ends the job itself if `mpirun` does not (its abort waits for the lost host's daemon).
pub const LOST_PEER_REPORT: &str = ": lost PE ";

/// How often the watch probes (at most): a peer whose process ended is found within about
/// this, plus [`LAUNCHER_GRACE`]. Each round costs one 8-byte read per connected peer.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// How long the watch leaves the launcher to end a job whose PE ended before finalizing.
const LAUNCHER_GRACE: Duration = Duration::from_secs(2);

/// The routine a failed probe is reported under.
const ROUTINE: &str = "peer watch";

/// The limit `SHMEMX_PEER_TIMEOUT_MS` asks for (`None`: never probe).
fn peer_timeout(text: Option<&str>) -> Option<Duration> {
    match text.map(|t| t.trim().parse::<u64>()) {
        None | Some(Err(_)) => Some(DEFAULT_PEER_TIMEOUT),
        Some(Ok(0)) => None,
        Some(Ok(ms)) => Some(Duration::from_millis(ms).max(MIN_PEER_TIMEOUT)),
    }
}

/// Starts this PE's watch, in a job across hosts unless `SHMEMX_PEER_TIMEOUT_MS=0`.
pub(crate) fn start(rt: &'static Runtime) {
    if rt.net().is_none() {
        return;
    }
    let Some(limit) = peer_timeout(std::env::var(ENV_PEER_TIMEOUT).ok().as_deref()) else { return };
    let _ = std::thread::Builder::new().name("ferroshmem-peers".into()).spawn(move || watch(rt, limit));
}

fn done(rt: &Runtime) -> bool {
    rt.finalized.load(Ordering::SeqCst) || rt.exiting.load(Ordering::SeqCst)
}

fn watch(rt: &'static Runtime, limit: Duration) {
    let Some(net) = rt.net() else { return };
    let half = limit / 2;
    let every = half.min(PROBE_EVERY);
    let name = |pe: usize| format!("PE {pe} (on {})", rt.topology.host_name(rt.topology.host_of(pe)));
    // The probes in flight: to whom and when each left, and the operations (carried over
    // from round to round until answered).
    let mut sent: Vec<(usize, Instant)> = Vec::new();
    let mut ops: Vec<Pending> = Vec::new();
    loop {
        // Woken early by an endpoint that fails (UCX's peer error handling): the peer's
        // process ended, its connection closed.
        net.wait_for_failed_peer(every);
        if done(rt) {
            return;
        }
        let mut failed: Vec<String> = net
            .failed_peer()
            .map(|(pe, status)| format!("{} (its connection failed: {status})", name(pe)))
            .into_iter()
            .collect();
        // A failed endpoint ends the job below: nothing more to probe.
        let to_probe = if failed.is_empty() { net.connected_pes() } else { Vec::new() };
        for pe in to_probe {
            if sent.iter().any(|&(p, _)| p == pe) {
                continue;
            }
            match net.get_start(ROUTINE, pe, Region::Ctrl, STATE_OFFSET, 8) {
                Ok(op) => {
                    sent.push((pe, Instant::now()));
                    ops.push(op);
                }
                // UCX fails a read at once on an endpoint whose peer it saw go (its connection
                // closed): that peer's process ended.
                Err(e) => failed.push(format!("{} ({e})", name(pe))),
            }
        }
        if !ops.is_empty() {
            // The progress thread serves the answers: this thread does not progress the worker.
            net.finish_within(&mut ops, every, Finisher::Served);
        }
        if done(rt) {
            return;
        }
        let mut silent = Vec::new();
        let mut i = 0;
        while i < ops.len() {
            let (pe, left) = sent[i];
            match ops[i].test() {
                None if left.elapsed() < half => {
                    i += 1;
                    continue;
                }
                None => silent.push(name(pe)),
                Some(Err(e)) => failed.push(format!("{} ({e})", name(pe))),
                Some(Ok(())) => {}
            }
            sent.swap_remove(i);
            drop(ops.swap_remove(i));
        }
        if !silent.is_empty() {
            rt.report(format_args!(
                "lost {}: no answer to a network probe within {:.1} s (a host stopped, or the network \
                 between it and {} is cut); ending the job ({ENV_PEER_TIMEOUT}={})",
                silent.join(", "),
                half.as_secs_f64(),
                rt.topology.host_name(rt.topology.host_of(rt.my_pe)),
                limit.as_millis(),
            ));
            // The line must read as oshrun looks for it.
            debug_assert!(format!(": lost {}", silent[0]).starts_with(LOST_PEER_REPORT));
            rt.global_exit(ERROR_EXIT_STATUS);
        }
        if !failed.is_empty() {
            // The peer's process ended without finalizing (its connection failed). Its launcher
            // most often ends the job already, with that PE's status and report: give it the
            // time to. Some do not (srun, when the PE was alone on its host).
            std::thread::sleep(LAUNCHER_GRACE);
            rt.report(format_args!(
                "lost {}: its process ended before finalizing, or its connection broke; ending the job",
                failed.join(", ")
            ));
            rt.global_exit(ERROR_EXIT_STATUS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_read_from_the_environment() {
        assert_eq!(peer_timeout(None), Some(DEFAULT_PEER_TIMEOUT));
        assert_eq!(peer_timeout(Some("0")), None);
        assert_eq!(peer_timeout(Some(" 4000 ")), Some(Duration::from_secs(4)));
        assert_eq!(peer_timeout(Some("5")), Some(MIN_PEER_TIMEOUT));
        assert_eq!(peer_timeout(Some("soon")), Some(DEFAULT_PEER_TIMEOUT));
    }
}
