//! Hang reports across hosts: the states of the PEs of other hosts, read through the network;
//! the clock of each host, which the instants of its PEs' states refer to; and the report of
//! every PE that oshrun asks PE 0 for when it hands the job to `mpirun`.
//!
//! **Reading.** A PE's `PeState` lives in its control block, which the PE registers with UCX
//! (`net::Region::Ctrl`), so a PE of another host reads it with a one-sided get that needs no
//! help from the program there (its progress thread, or its own waits, serve it). A report
//! starts the gets of every PE it needs at once and waits for all of them together at most
//! [`ANSWER_WITHIN`]; a PE whose answer has not come by then is reported as not answering
//! (its host stopped, or the PE finished and no longer serves the network), and nothing more
//! is asked of it. A get left unfinished keeps its buffer (leaked) for UCX to complete into.
//!
//! **Clocks.** Each host has its own CLOCK_MONOTONIC. A state holds instants of its host's
//! clock (when a wait began to sleep, when the PE left the library: the header's coarse
//! clock), so durations must be measured against that host's clock: whoever advances a host's
//! coarse clock in a job across hosts ([`tick`]: the clock thread of the host's first PE every
//! 50 ms, and every waiter that sleeps, every 20 ms at most) also copies it into the control
//! block of every PE of the host (`ReportWords::host_clock`, in a line of its own beside the
//! state), and the get that reads a PE's state reads that copy with it. No store is added to a
//! library call.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use super::{desc_of_words, now_ms, report_all, Desc, Seen, Snapshot, View};
use crate::ctrl::{REPORT_OFFSET, STATE_OFFSET};
use crate::job::HeaderView;
use crate::net::{Finisher, Net, Region};
use crate::runtime::Runtime;
use crate::team::slot_layout::{DESC_WORDS, W_DESC};

/// How long a report waits for the PEs of other hosts to answer its reads.
pub(crate) const ANSWER_WITHIN: Duration = Duration::from_secs(2);

/// The routine named if a read fails.
const ROUTINE: &str = "hang report";

/// Bytes read from a PE's control block: its `PeState` through `ReportWords::hang_claim`.
const STATE_BYTES: usize = REPORT_OFFSET + 16 - STATE_OFFSET;

/// What a report has read of the PEs of other hosts so far.
pub(crate) struct Remote<'a> {
    rt: &'a Runtime,
    net: &'a Net,
    states: RefCell<BTreeMap<usize, Seen>>,
    descs: RefCell<BTreeMap<(usize, usize), Option<Desc>>>,
}

impl<'a> Remote<'a> {
    /// The reader of a PE of a job across hosts (`None` on one host).
    pub(crate) fn new(rt: &'a Runtime) -> Option<Self> {
        let net = rt.net()?;
        Some(Remote { rt, net, states: RefCell::default(), descs: RefCell::default() })
    }

    /// Reads the states of `pes` (PEs of other hosts) not read yet: every get started at
    /// once, then one wait of at most [`ANSWER_WITHIN`] for all of them.
    pub(crate) fn fetch(&self, pes: impl Iterator<Item = usize>) {
        let todo: Vec<usize> = {
            let known = self.states.borrow();
            pes.filter(|pe| !known.contains_key(pe)).collect()
        };
        if todo.is_empty() {
            return;
        }
        let mut started = Vec::new();
        let mut ops = Vec::new();
        for pe in todo {
            match self.net.get_start(ROUTINE, pe, Region::Ctrl, STATE_OFFSET, STATE_BYTES) {
                Ok(op) => {
                    started.push(pe);
                    ops.push(op);
                }
                Err(_) => {
                    self.states.borrow_mut().insert(pe, Seen::NoAnswer);
                }
            }
        }
        self.net.finish_within(&mut ops, ANSWER_WITHIN, Finisher::Progressing);
        let mut states = self.states.borrow_mut();
        for (pe, op) in started.into_iter().zip(&ops) {
            states.insert(pe, op.bytes().map_or(Seen::NoAnswer, decode_state));
        }
    }

    /// What is known of PE `pe` (of another host), read now if it was not yet.
    pub(crate) fn state(&self, pe: usize) -> Seen {
        self.fetch(std::iter::once(pe));
        self.states.borrow().get(&pe).copied().unwrap_or(Seen::NoAnswer)
    }

    /// The description of the team on `slot` as PE `pe` (of another host) wrote it.
    pub(crate) fn desc(&self, pe: usize, slot: usize) -> Option<Desc> {
        if let Some(d) = self.descs.borrow().get(&(pe, slot)) {
            return *d;
        }
        if matches!(self.state(pe), Seen::NoAnswer) {
            return None;
        }
        let offset = self.rt.slot_word_offset(slot, W_DESC);
        let desc = match self.net.get_start(ROUTINE, pe, Region::Ctrl, offset, DESC_WORDS * 8) {
            Ok(op) => {
                let mut ops = [op];
                self.net.finish_within(&mut ops, ANSWER_WITHIN, Finisher::Progressing);
                match ops[0].bytes() {
                    Some(bytes) => {
                        let mut w = [0u64; DESC_WORDS];
                        for (v, b) in w.iter_mut().zip(bytes.chunks_exact(8)) {
                            *v = u64::from_ne_bytes(b.try_into().expect("8 bytes"));
                        }
                        desc_of_words(&w)
                    }
                    None => {
                        // It answered its state, not this: ask it nothing more.
                        self.states.borrow_mut().insert(pe, Seen::NoAnswer);
                        None
                    }
                }
            }
            Err(_) => None,
        };
        self.descs.borrow_mut().insert((pe, slot), desc);
        desc
    }

    /// Swaps `key` into PE `pe`'s `hang_claim` word; the word's old value, or `None` when
    /// the PE did not answer.
    fn swap_claim(&self, pe: usize, key: u64) -> Option<u64> {
        if matches!(self.state(pe), Seen::NoAnswer) {
            return None;
        }
        let mut ops = [self.net.swap_start(ROUTINE, pe, Region::Ctrl, REPORT_OFFSET + 8, key).ok()?];
        self.net.finish_within(&mut ops, ANSWER_WITHIN, Finisher::Progressing);
        ops[0].reply()
    }
}

/// A state read from another host: the words of `PeState` and of `ReportWords`, in the
/// byte order of this host (the hosts of a job run the same program, so the same kind of CPU).
fn decode_state(bytes: &[u8]) -> Seen {
    let word = |byte: usize| {
        bytes.get(byte..byte + 8).map_or(0, |b| u64::from_ne_bytes(b.try_into().expect("8 bytes")))
    };
    let snapshot = Snapshot::of_words(word(0), word(8), word(16), word(24));
    Seen::State(snapshot, word(REPORT_OFFSET - STATE_OFFSET))
}

/// Claims the report `key` for the job in the control block of `first` (the team's first
/// member): true unless somebody claimed it already. Through the network when `first` is on
/// another host; a host that does not answer cannot refuse.
pub(crate) fn claim_report(view: &View<'_>, rt: &Runtime, first: usize, key: u64) -> bool {
    if rt.topology.is_local(first) {
        return rt.ctrl.pe(first).report.hang_claim.swap(key, Ordering::AcqRel) != key;
    }
    match &view.remote {
        Some(remote) => remote.swap_claim(first, key) != Some(key),
        None => true,
    }
}

/// Advances this host's coarse clock to `now` (when it moved by `step` ms) and, in a job
/// across hosts, copies it into the control block of every PE of the host, where PEs of
/// other hosts read it with the states.
pub(crate) fn tick(rt: &Runtime, now: u64, step: u64) {
    if HeaderView::new(&rt.map).tick_clock(now, step) && rt.net().is_some() {
        for &pe in rt.topology.local_pes() {
            rt.ctrl.pe(pe).report.host_clock.fetch_max(now, Ordering::Relaxed);
        }
    }
}

// ------------------------------------------------------------------------------------------
// oshrun's requests through mpirun
// ------------------------------------------------------------------------------------------

/// Set by oshrun (to `1`) for the PEs of a job it hands to `mpirun`: SIGUSR1 and SIGUSR2,
/// which mpirun forwards to every PE, are then oshrun's requests for the report of every PE,
/// which PE 0 prints: SIGUSR1 on oshrun's SIGUSR1 (the job goes on), SIGUSR2 on its SIGINT
/// (oshrun ends the job once the report is out, [`super::REPORT_END`]).
pub const ENV_OSHRUN_REPORTS: &str = "FERROSHMEM_OSHRUN_REPORTS";

/// The last request signal received (0: none pending).
static REQUESTED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_request(sig: libc::c_int) {
    // An atomic store: async-signal-safe.
    REQUESTED.store(sig, Ordering::Relaxed);
}

/// Installs [`on_request`] for SIGUSR1 and SIGUSR2, unless the program handles them itself
/// (then they stay the program's, and oshrun's requests reach it instead).
fn take_request_signals() {
    for sig in [libc::SIGUSR1, libc::SIGUSR2] {
        // SAFETY: sigaction with a zeroed struct filled below; the handler only stores to an
        // atomic, which is async-signal-safe. The old disposition is read first so that a
        // handler of the program is kept.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                || (old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN)
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_request as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

/// Prints the report of every PE if oshrun asked for one (PE 0, from its clock thread).
fn serve_request(rt: &Runtime) {
    let why = match REQUESTED.swap(0, Ordering::Relaxed) {
        0 => return,
        libc::SIGUSR2 => "SIGINT; ending the job",
        _ => "SIGUSR1; the job goes on",
    };
    let body = report_all(&View::of(rt, now_ms()));
    crate::runtime::report_line(&format!("oshrun: hang report ({why}): what every PE is doing\n{body}"));
}

/// What a job started by a PMIx launcher needs beside the program, started at the end of
/// `shmem_init`: nobody else keeps the host's coarse clock moving (oshrun does on one host),
/// so the host's first PE runs a thread that advances it every 50 ms; and when oshrun handed
/// the job to `mpirun` ([`ENV_OSHRUN_REPORTS`]), every PE takes SIGUSR1 and SIGUSR2 and PE 0's
/// thread prints the report of every PE when asked (within 50 ms).
pub(crate) fn start(rt: &'static Runtime) {
    if !crate::bootstrap::Pmix::launched_by_pmix() {
        return;
    }
    let requests = std::env::var(ENV_OSHRUN_REPORTS).is_ok_and(|v| v == "1");
    if requests {
        take_request_signals();
    }
    if rt.topology.local_pes().first() != Some(&rt.my_pe) || (rt.n_pes == 1 && !requests) {
        return;
    }
    let serves = requests && rt.my_pe == 0;
    let _ = std::thread::Builder::new().name("ferroshmem-clock".into()).spawn(move || loop {
        tick(rt, now_ms(), 1);
        if serves {
            serve_request(rt);
        }
        std::thread::sleep(Duration::from_millis(50));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::Doing;

    /// A state brought from another host carries that host's clock, read from the same block:
    /// durations are measured against it, not against the reader's clock.
    #[test]
    fn a_remote_state_comes_with_its_hosts_clock() {
        let mut bytes = vec![0u8; STATE_BYTES];
        let mut put = |at: usize, v: u64| bytes[at..at + 8].copy_from_slice(&v.to_ne_bytes());
        put(0, Doing::Outside { since_ms: 1_000 }.encode());
        put(8, 17);
        put(REPORT_OFFSET - STATE_OFFSET, 64_000);
        match decode_state(&bytes) {
            Seen::State(s, clock) => {
                assert_eq!(s.doing, Doing::Outside { since_ms: 1_000 });
                assert_eq!(s.seq, 17);
                assert_eq!(clock, 64_000);
            }
            Seen::NoAnswer => panic!("a whole state read as no answer"),
        }
        // A blocked instant counts only with the blocked bit of a call.
        let mut bytes = vec![0u8; STATE_BYTES];
        let call = Doing::InCall { routine: 5, team_slot: Some(0) }.encode();
        bytes[16..24].copy_from_slice(&7u64.to_ne_bytes());
        bytes[..8].copy_from_slice(&call.to_ne_bytes());
        let Seen::State(s, _) = decode_state(&bytes) else { panic!() };
        assert_eq!(s.blocked_since, 0);
        bytes[..8].copy_from_slice(&(call | super::super::BLOCKED).to_ne_bytes());
        let Seen::State(s, _) = decode_state(&bytes) else { panic!() };
        assert_eq!(s.blocked_since, 7);
    }
}
