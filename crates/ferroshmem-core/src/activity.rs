//! Hang reports: every PE publishes what it is doing in its control block
//! (`ctrl::PeState`, its state word `ctrl::Doing`), and a PE that has waited too long in a
//! team call, or oshrun on SIGINT/SIGUSR1, prints who is where.
//!
//! An observer: the layers below publish their calls themselves (`runtime::calls`, and
//! `Runtime::enter_call` in `team`), the teams describe themselves (`team::desc`), and a wait
//! that sleeps tells the observer that this module registers at start-up (`wait::observe_sleeps`,
//! `SLEEP_OBSERVER`): nothing below calls this module (issue 30). `start`, the one module
//! above it, gives the runtime's start its observer, threshold and `shmem_init` state word,
//! and starts its threads (`start_host_duties`).
//!
//! What a call costs: the routine's id (looked up once per name, then a cache hit), a load
//! and a store of the team's call number, two Relaxed stores on entry and one on exit, plus
//! a load of the job's coarse clock (a header word that changes every 50 ms). No fence, no
//! clock read: the time is read only when a wait starts to sleep (`wait::wait_until`'s slow
//! path), where the hang check also lives.
//!
//! Who reads the words: the other PEs of the host (their mapping of the job file), oshrun
//! (its own mapping of the control blocks), and in a job across hosts the PEs of the other
//! hosts, through the network (`hosts`: one-sided gets of the registered control blocks, with
//! a bounded wait, and each host's clock read beside the states). A report therefore covers
//! every host: the PE-side report names what every member of the team is doing wherever it
//! runs, and one PE of the job prints it; under `oshrun --host`, oshrun's SIGUSR1 and SIGINT
//! reach the PEs through mpirun and PE 0 prints the report of every PE (`View` is the one
//! reader of all three).
#![allow(unsafe_code)]

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::ctrl::Doing;
use crate::ctrl::{CtrlTable, BLOCKED, KIND_IN_CALL, KIND_SHIFT, ROUTINE_MASK};
use crate::job::slot_layout::{DESC_WORDS, W_DESC};
use crate::job::{HeaderView, JobFile, Mapping};
use crate::runtime::Runtime;
use crate::team::desc::{desc_of_words, Desc, Made};
use crate::topology::Topology;

mod hosts;
mod report;
mod routines;
pub(crate) use hosts::start as start_host_duties;
pub use hosts::ENV_OSHRUN_REPORTS;
pub use report::*;
pub use routines::*;

/// Environment variable: seconds a PE waits in a team call before a hang report (default
/// 60, 0 turns reports off; fractions allowed).
pub const ENV_HANG_REPORT: &str = "SHMEMX_HANG_REPORT";
/// Default of [`ENV_HANG_REPORT`], in seconds.
pub const DEFAULT_HANG_REPORT_S: f64 = 60.0;

/// The hang report threshold from the environment, in milliseconds (0: off).
pub fn hang_report_ms_from_env() -> u64 {
    hang_report_ms(std::env::var(ENV_HANG_REPORT).ok().as_deref())
}

/// The threshold that the text of [`ENV_HANG_REPORT`] asks for (the default when absent or not
/// a non-negative number of seconds).
fn hang_report_ms(text: Option<&str>) -> u64 {
    let secs = text
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(DEFAULT_HANG_REPORT_S);
    (secs * 1000.0) as u64
}

/// CLOCK_MONOTONIC in milliseconds: the same clock in every process of a host.
pub fn now_ms() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1000 + t.tv_nsec as u64 / 1_000_000
}

/// How oshrun records that a PE's process ended (`PeState::ended`).
pub fn encode_ended(signal: Option<i32>, status: i32) -> u64 {
    match signal {
        Some(sig) => 3 << 62 | sig as u32 as u64,
        None => 1 << 63 | status as u32 as u64,
    }
}

// ------------------------------------------------------------------------------------------
// The end of shmem_init
// ------------------------------------------------------------------------------------------

impl Runtime {
    /// Publishes that this PE left the library (the end of `shmem_init`, whose state is
    /// published before the runtime exists). Under a PMIx launcher the host's clock may not
    /// have been advanced yet (its thread starts after this): then this PE does.
    pub(crate) fn publish_outside(&self) {
        let mut clock = HeaderView::new(&self.map).clock_ms();
        if clock == 0 {
            clock = now_ms();
            hosts::tick(self, clock, 1);
        }
        self.my_state().call.store(Doing::Outside { since_ms: clock }.encode(), Ordering::Relaxed);
    }
}

// ------------------------------------------------------------------------------------------
// Team descriptions (written by the teams at creation, `team::desc`)
// ------------------------------------------------------------------------------------------

/// The name of the team on `slot` as PE `pe` knows it: a predefined name, or how it was
/// made ("split_strided(SHMEM_TEAM_WORLD, 0, 2, 4)").
pub(crate) fn team_name(view: &View<'_>, pe: usize, slot: usize) -> String {
    team_name_depth(view, pe, slot, 0)
}

fn team_name_depth(view: &View<'_>, pe: usize, slot: usize, depth: usize) -> String {
    match slot {
        0 => return "SHMEM_TEAM_WORLD".into(),
        1 => return "SHMEM_TEAM_SHARED".into(),
        2 => return "SHMEMX_TEAM_NODE".into(),
        3 => return "SHMEMX_TEAM_SAME_MYPE_NODE".into(),
        _ => {}
    }
    let Some((made, _)) = view.desc(pe, slot) else {
        return format!("team {slot}");
    };
    let parent = |p: usize| {
        if depth >= 3 {
            format!("team {p}")
        } else {
            team_name_depth(view, pe, p, depth + 1)
        }
    };
    match made {
        Made::SplitStrided { parent: p, start, stride, size } => {
            format!("split_strided({}, {start}, {stride}, {size})", parent(p))
        }
        Made::Split2dRow { parent: p, xrange } => format!("split_2d({}, {xrange}) x-axis", parent(p)),
        Made::Split2dColumn { parent: p, xrange } => format!("split_2d({}, {xrange}) y-axis", parent(p)),
        Made::SplitColor { parent: p, color } => format!("split_color({}) color {color}", parent(p)),
        Made::Init { npes } => format!("team_init of {npes} PEs"),
    }
}

/// The description on `slot` of PE `pe`, read through this process's mapping.
fn read_desc(ctrl: &CtrlTable, pe: usize, slot: usize) -> Option<Desc> {
    let words = &ctrl.slot(pe, slot)[W_DESC..W_DESC + DESC_WORDS];
    let tag = words[0].load(Ordering::Acquire);
    let mut w = [tag; DESC_WORDS];
    for (v, word) in w.iter_mut().zip(words).skip(1) {
        *v = word.load(Ordering::Relaxed);
    }
    desc_of_words(&w)
}

// ------------------------------------------------------------------------------------------
// Reading states: this host's mapping, and the network for the PEs of other hosts
// ------------------------------------------------------------------------------------------

/// One PE's published state, read at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Snapshot {
    pub doing: Doing,
    pub seq: u64,
    pub blocked_since: u64,
    pub ended: u64,
}

pub(crate) fn snapshot(ctrl: &CtrlTable, pe: usize) -> Snapshot {
    let s = &ctrl.pe(pe).state;
    let call = s.call.load(Ordering::Relaxed);
    let blocked = call >> KIND_SHIFT == KIND_IN_CALL && call & BLOCKED != 0;
    Snapshot::of_words(
        call,
        s.seq.load(Ordering::Relaxed),
        if blocked { s.blocked_since.load(Ordering::Relaxed) } else { 0 },
        s.ended.load(Ordering::Relaxed),
    )
}

impl Snapshot {
    /// The state that the words `call`, `seq`, `blocked_since` and `ended` of a `PeState`
    /// say (`blocked_since` counts only while the call's blocked bit is set).
    fn of_words(call: u64, seq: u64, blocked_since: u64, ended: u64) -> Self {
        let blocked = call >> KIND_SHIFT == KIND_IN_CALL && call & BLOCKED != 0;
        Snapshot {
            doing: Doing::decode(call),
            seq,
            blocked_since: if blocked { blocked_since } else { 0 },
            ended,
        }
    }

    /// The team call this PE is in: (routine, slot, call number).
    fn team_call(&self) -> Option<(u32, usize, u64)> {
        match self.doing {
            Doing::InCall { routine, team_slot: Some(slot) } if self.ended == 0 => {
                Some((routine, slot, self.seq))
            }
            _ => None,
        }
    }
}

/// What a report knows of one PE.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seen {
    /// Its published state, and the time on its host's clock when it was read (ms; 0: not
    /// known).
    State(Snapshot, u64),
    /// Its host did not answer within [`hosts::ANSWER_WITHIN`].
    NoAnswer,
}

/// Where a report reads the states of PEs: the PEs of this host through this process's
/// mapping of their control blocks (every PE, for oshrun), the others through the network
/// (`hosts::Remote`: one-sided reads of their registered control blocks, each host's answer
/// waited for a bounded time).
pub(crate) struct View<'a> {
    ctrl: &'a CtrlTable,
    n_pes: usize,
    team_slots: usize,
    /// This host's clock when the report began.
    now: u64,
    /// Where every PE runs (`None`: all on this host, as oshrun sees its job).
    topology: Option<&'a Topology>,
    remote: Option<hosts::Remote<'a>>,
}

impl std::fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").field("n_pes", &self.n_pes).field("remote", &self.remote.is_some()).finish()
    }
}

impl<'a> View<'a> {
    /// Every PE's control block mapped here (oshrun's view of a one-host job).
    pub(crate) fn mapped(ctrl: &'a CtrlTable, n_pes: usize, team_slots: usize, now: u64) -> Self {
        View { ctrl, n_pes, team_slots, now, topology: None, remote: None }
    }

    /// A PE's view: its host's PEs mapped, those of other hosts read through the network.
    pub(crate) fn of(rt: &'a Runtime, now: u64) -> Self {
        View {
            ctrl: &rt.ctrl,
            n_pes: rt.n_pes,
            team_slots: rt.layout.slot_count,
            now,
            topology: Some(&rt.topology),
            remote: hosts::Remote::new(rt),
        }
    }

    /// Whether `pe`'s control block is mapped in this process.
    fn is_mapped(&self, pe: usize) -> bool {
        match (&self.remote, self.topology) {
            (Some(_), Some(t)) => t.is_local(pe),
            _ => true,
        }
    }

    /// Reads the states of the PEs of other hosts among `pes` at once: one bounded wait for
    /// all of them, rather than one per PE.
    fn prefetch(&self, pes: &[usize]) {
        if let Some(r) = &self.remote {
            r.fetch(pes.iter().copied().filter(|&pe| !self.is_mapped(pe)));
        }
    }

    /// What is known of PE `pe`.
    fn seen(&self, pe: usize) -> Seen {
        if self.is_mapped(pe) {
            return Seen::State(snapshot(self.ctrl, pe), self.now);
        }
        match &self.remote {
            Some(r) => r.state(pe),
            None => Seen::NoAnswer,
        }
    }

    /// PE `pe`'s state, if its host answered.
    fn snapshot(&self, pe: usize) -> Option<Snapshot> {
        match self.seen(pe) {
            Seen::State(s, _) => Some(s),
            Seen::NoAnswer => None,
        }
    }

    /// The description of the team on `slot` as PE `pe` wrote it (`None`: not there, not a
    /// slot, or its host did not answer).
    fn desc(&self, pe: usize, slot: usize) -> Option<Desc> {
        if slot >= self.team_slots || pe >= self.n_pes {
            return None;
        }
        if self.is_mapped(pe) {
            return read_desc(self.ctrl, pe, slot);
        }
        self.remote.as_ref()?.desc(pe, slot)
    }

    /// The world PEs of the team on `slot` as PE `pe` describes it (empty when not known).
    fn members_of(&self, pe: usize, slot: usize) -> Vec<usize> {
        let n = self.n_pes;
        match (slot, self.topology) {
            (0, _) => (0..n).collect(),
            // One host (oshrun): SHARED and NODE are every PE; SAME_MYPE_NODE is one PE.
            (1 | 2, None) => (0..n).collect(),
            (3, None) => vec![pe],
            (1 | 2, Some(t)) => t.pes_of_host(t.host_of(pe)).to_vec(),
            (3, Some(t)) => {
                let rank = t.local_rank(pe);
                (0..n).filter(|&p| t.local_rank(p) == rank).collect()
            }
            _ => match self.desc(pe, slot) {
                Some((_, Some((start, stride, size)))) => (0..size.min(n) as i64)
                    .map(|i| start.saturating_add(i.saturating_mul(stride)))
                    .filter(|&p| p >= 0 && (p as usize) < n)
                    .map(|p| p as usize)
                    .collect(),
                _ => Vec::new(),
            },
        }
    }

    /// "host NAME" of `pe` ("this host" when every PE is on it).
    fn host_name(&self, pe: usize) -> String {
        match self.topology {
            Some(t) => format!("host {}", t.host_name(t.host_of(pe))),
            None => "this host".into(),
        }
    }

    /// "PE 2..3 (host b); PE 5 (host c)": PEs that did not answer, by host.
    fn by_host(&self, pes: &[usize]) -> String {
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        for &pe in pes {
            let host = self.host_name(pe);
            match groups.iter_mut().find(|g| g.0 == host) {
                Some(g) => g.1.push(pe),
                None => groups.push((host, vec![pe])),
            }
        }
        let parts: Vec<String> =
            groups.iter().map(|(host, pes)| format!("{} ({host})", ranges(&sorted(pes)))).collect();
        parts.join("; ")
    }

    /// What PE `pe` is doing, in words: "in shmem_team_sync on SHMEM_TEAM_WORLD, call 17,
    /// waiting for 63 s", "computing outside the library for 63 s", "exited with status 0".
    /// Durations are measured on the PE's own host's clock.
    pub(crate) fn describe(&self, pe: usize) -> String {
        let (s, now) = match self.seen(pe) {
            Seen::State(s, now) => (s, now),
            Seen::NoAnswer => {
                return format!(
                    "did not answer within {} s ({})",
                    hosts::ANSWER_WITHIN.as_secs(),
                    self.host_name(pe)
                )
            }
        };
        if s.ended != 0 {
            let code = s.ended as u32;
            return if s.ended >> 62 == 3 {
                format!("was killed by signal {code}")
            } else {
                format!("exited with status {code}")
            };
        }
        let ago = |t: u64| {
            if t == 0 || now == 0 {
                String::new()
            } else {
                format!(" for {}", secs(now.saturating_sub(t)))
            }
        };
        match s.doing {
            Doing::Starting => "starting (not in shmem_init yet)".into(),
            Doing::InCall { routine, team_slot } => {
                let mut text = format!("in {}", routine_name(routine));
                if let Some(slot) = team_slot {
                    let _ = write!(text, " on {}, call {}", team_name(self, pe, slot), s.seq);
                }
                if s.blocked_since != 0 {
                    let _ = write!(text, ", waiting{}", ago(s.blocked_since));
                }
                text
            }
            Doing::Outside { since_ms } => format!("computing outside the library{}", ago(since_ms)),
            Doing::Finished { .. } => "finished (returned from shmem_finalize)".into(),
        }
    }
}

/// "2.5 s", "63 s".
fn secs(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} s", ms / 1000)
    }
}

/// "PE 0..2, 5" for sorted PE numbers.
fn ranges(pes: &[usize]) -> String {
    if pes.is_empty() {
        return "none".into();
    }
    crate::team::checked::ranges(pes)
}

/// The lines about one team call: who waits in it, and what each member that has not
/// arrived is doing. `members` are world PEs in team order.
fn call_lines(view: &View<'_>, call: (u32, usize, u64), members: &[usize], indent: &str, out: &mut String) {
    let (_, slot, seq) = call;
    view.prefetch(members);
    let mut waiting = Vec::new();
    let mut beyond = Vec::new();
    let mut missing = Vec::new();
    let mut silent = Vec::new();
    for &pe in members {
        let Some(s) = view.snapshot(pe) else {
            silent.push(pe);
            continue;
        };
        match s.team_call() {
            Some((_, sl, q)) if sl == slot && q == seq => waiting.push(pe),
            Some((_, sl, q)) if sl == slot && q > seq => beyond.push(pe),
            _ => missing.push(pe),
        }
    }
    let _ = writeln!(out, "{indent}waiting in this call: {}", ranges(&sorted(&waiting)));
    let mut differ = false;
    for &pe in &waiting {
        // A routine is named once its wait sleeps (0 until then: nothing to compare).
        if view
            .snapshot(pe)
            .and_then(|s| s.team_call())
            .is_some_and(|c| c.0 != call.0 && c.0 != 0 && call.0 != 0)
        {
            differ = true;
            let _ = writeln!(out, "{indent}  PE {pe} is in a different routine: {}", view.describe(pe));
        }
    }
    if !beyond.is_empty() {
        let _ = writeln!(out, "{indent}done with this call: {}", ranges(&sorted(&beyond)));
    }
    if missing.is_empty() && silent.is_empty() {
        let why = if differ { " (in different routines: the calls do not match)" } else { "" };
        let _ = writeln!(out, "{indent}every member has arrived{why}");
    }
    for &pe in &missing {
        let _ = writeln!(out, "{indent}not arrived: PE {pe}: {}", view.describe(pe));
    }
    if !silent.is_empty() {
        let _ = writeln!(
            out,
            "{indent}did not answer within {} s: {}",
            hosts::ANSWER_WITHIN.as_secs(),
            view.by_host(&silent)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routine_ids_name_their_routines() {
        for name in [
            "shmem_team_sync",
            "shmem_barrier_all",
            "shmem_broadcastmem",
            "shmem_int_sum_reduce",
            "shmem_longdouble_max_reduce",
            "shmem_complexd_prod_reduce",
            "shmem_uint64_fcollect",
            "shmem_int_collect",
            "shmem_broadcast64",
            "shmem_long_wait_until_all_vector",
            "shmem_team_split_strided",
            "Team::sync",
        ] {
            let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
            let id = routine_id(leaked);
            assert_ne!(id, 0, "{name}");
            assert_eq!(routine_name(id), name);
            assert_eq!(routine_id(leaked), id, "cached");
        }
        assert_eq!(routine_name(routine_id("shmem_nonsense")), "a library call");
    }

    #[test]
    fn states_round_trip() {
        for d in [
            Doing::Starting,
            Doing::InCall { routine: 77, team_slot: Some(5) },
            Doing::InCall { routine: 3, team_slot: None },
            Doing::Outside { since_ms: 123_456_789 },
            Doing::Finished { since_ms: 42 },
        ] {
            assert_eq!(Doing::decode(d.encode()), d);
        }
    }

    #[test]
    fn the_threshold_is_read_in_seconds() {
        assert_eq!(hang_report_ms(None), 60_000);
        assert_eq!(hang_report_ms(Some("0")), 0);
        assert_eq!(hang_report_ms(Some("1.5")), 1500);
        assert_eq!(hang_report_ms(Some(" 2 ")), 2000);
        assert_eq!(hang_report_ms(Some("-1")), 60_000);
        assert_eq!(hang_report_ms(Some("soon")), 60_000);
    }

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[0, 1, 2, 5]), "PE 0..2, 5");
        assert_eq!(ranges(&[]), "none");
    }
}
