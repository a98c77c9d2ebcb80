//! The waiter's side of the hang reports (what a wait that sleeps does, registered into
//! `wait`) and oshrun's report of every PE's state.
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use super::*;

// ------------------------------------------------------------------------------------------
// The waiter's side
// ------------------------------------------------------------------------------------------

/// How often a sleeping waiter reads the clock (it wakes every `SHMEMX_SLEEP_TIMEOUT_MS`).
pub(super) const LOOK_EVERY_MS: u64 = 20;

/// The hang reports' side of a wait that sleeps (`wait::Watch`, which calls these through
/// the observer registered at start-up, so that the waits below do not name this module):
/// records when the wait began to block, keeps the job's clock moving, and prints the hang
/// report once the wait has lasted `SHMEMX_HANG_REPORT`.
pub(crate) const SLEEP_OBSERVER: crate::wait::SleepObserver =
    crate::wait::SleepObserver { begin: begin_watch, look: look_watch };

/// A wait is about to sleep.
pub(super) fn begin_watch(watch: &mut crate::wait::Watch) {
    let Some(rt) = crate::runtime::running() else { return };
    let now = now_ms();
    hosts::tick(rt, now, LOOK_EVERY_MS);
    // The call's first sleeping wait records when; a later wait of the same call keeps it.
    let state = rt.my_state();
    let call = state.call.load(Ordering::Relaxed);
    let since = if call >> KIND_SHIFT != KIND_IN_CALL {
        now
    } else if call & BLOCKED != 0 {
        state.blocked_since.load(Ordering::Relaxed)
    } else {
        // Name the routine now: the others read its id, not this process's reference.
        let id = routine_id_of_ref(state.routine_ref.load(Ordering::Relaxed)) as u64;
        state.blocked_since.store(now, Ordering::Relaxed);
        state.call.store(call | BLOCKED | (id << 32 & ROUTINE_MASK), Ordering::Relaxed);
        now
    };
    *watch =
        crate::wait::Watch { since, next_look: now + LOOK_EVERY_MS, reported: rt.wait.hang_report_ms == 0 };
}

/// The wait woke up and goes on waiting.
pub(super) fn look_watch(watch: &mut crate::wait::Watch) {
    let Some(rt) = crate::runtime::running() else { return };
    let now = now_ms();
    if now < watch.next_look {
        return;
    }
    watch.next_look = now + LOOK_EVERY_MS;
    hosts::tick(rt, now, LOOK_EVERY_MS);
    if !watch.reported && now.saturating_sub(watch.since) >= rt.wait.hang_report_ms {
        watch.reported = true;
        report_hang(rt, now);
    }
}

/// This PE has waited too long in its current call: if the call is on a team, and this PE
/// is the first member of the team (in team order) sleeping in a wait of that call, it prints
/// the report (once per call in the job).
///
/// Who is first is settled on this host without the network (a PE of this host before this
/// one in the call defers to it); then, in a team across hosts, by reading the states of the
/// members of other hosts (one bounded wait for all), deferring to a member of another host
/// that is before this PE and in the call. Two PEs that both believe they are first (a member
/// arrived after the other read its state) are kept from printing twice by two claims: the
/// host's header word, and a word in the control block of the team's first member, swapped
/// through the network from other hosts (skipped when that host does not answer).
#[cold]
pub(super) fn report_hang(rt: &Runtime, now: u64) {
    let me = snapshot(&rt.ctrl, rt.my_pe);
    let Some(call @ (routine, slot, seq)) = me.team_call() else { return };
    let Some(team) = rt.teams().by_slot(slot) else { return };
    let members: Vec<usize> = (0..team.n_pes()).map(|i| team.pes.world_pe(i)).collect();
    // Deferred to: a member in the same call that sleeps in a wait, as this PE does, so that
    // it reports in its turn. One in the call that does not wait (it computes, or is stuck
    // outside a wait: in a lock, a system call) never reports; deferring to it left the job
    // silent (a root whose progress thread kept the worker from it, at 48 hosts).
    let in_call = |s: Option<Snapshot>| {
        s.is_some_and(|s| s.blocked_since != 0 && s.team_call().is_some_and(|c| c.1 == slot && c.2 == seq))
    };
    let local = |pe: usize| rt.topology.is_local(pe);
    let first_here = members.iter().copied().find(|&pe| local(pe) && in_call(Some(snapshot(&rt.ctrl, pe))));
    if first_here.is_some_and(|pe| pe != rt.my_pe) {
        return;
    }
    let view = View::of(rt, now);
    view.prefetch(&members);
    let before_me = members.iter().copied().take_while(|&pe| pe != rt.my_pe);
    if before_me.filter(|&pe| !local(pe)).any(|pe| in_call(view.snapshot(pe))) {
        return;
    }
    // Once per call: by this PE (whose later waits in the same call would find the time
    // passed at once), by one PE of the host, and by one PE of the job.
    static REPORTED: AtomicU64 = AtomicU64::new(0);
    let key = (slot as u64 + 1) << 40 | seq;
    if REPORTED.swap(key, Ordering::Relaxed) == key
        || !HeaderView::new(&rt.map).claim_hang_report(key)
        || !hosts::claim_report(&view, rt, members[0], key)
    {
        return;
    }
    let name = team_name(&view, rt.my_pe, slot);
    let mut text = format!(
        "ferroshmem: hang report: PE {} has waited {} in {} on {name}, call {seq} ({}={}; the job keeps waiting)\n",
        rt.my_pe,
        secs(now.saturating_sub(me.blocked_since)),
        routine_name(routine),
        ENV_HANG_REPORT,
        rt.wait.hang_report_ms as f64 / 1000.0,
    );
    let _ = writeln!(text, "  team {name}: {} PEs ({})", members.len(), ranges(&sorted(&members)));
    call_lines(&view, call, &members, "  ", &mut text);
    crate::runtime::report_line(&text);
}

pub(super) fn sorted(pes: &[usize]) -> Vec<usize> {
    let mut v = pes.to_vec();
    v.sort_unstable();
    v
}

// ------------------------------------------------------------------------------------------
// Every PE's state: oshrun's report
// ------------------------------------------------------------------------------------------

/// How the report of every PE ends: oshrun, which may get it from PE 0 through `mpirun`
/// (jobs across hosts), knows from this line that it is whole.
pub const REPORT_END: &str = "  end of report: ";

/// Every PE's state (oshrun's report on SIGUSR1 and SIGINT), one line each, then the team
/// calls PEs wait in, each once, with who has not arrived when the team's members are known
/// (strided teams and the predefined ones), then [`REPORT_END`].
pub(crate) fn report_all(view: &View<'_>) -> String {
    let n_pes = view.n_pes;
    let all: Vec<usize> = (0..n_pes).collect();
    view.prefetch(&all);
    let mut text = String::new();
    for pe in 0..n_pes {
        let _ = writeln!(text, "  PE {pe}: {}", view.describe(pe));
    }
    let mut calls: Vec<(u32, usize, u64, usize)> = Vec::new();
    for pe in 0..n_pes {
        if let Some((routine, slot, seq)) = view.snapshot(pe).and_then(|s| s.team_call()) {
            if !calls.iter().any(|c| c.1 == slot && c.2 == seq && view.members_of(c.3, slot).contains(&pe)) {
                calls.push((routine, slot, seq, pe));
            }
        }
    }
    for (routine, slot, seq, pe) in calls {
        let members = view.members_of(pe, slot);
        if members.is_empty() {
            continue;
        }
        let _ = writeln!(
            text,
            "  waits in {} on {}, call {seq} (team of {} PEs: {}):",
            routine_name(routine),
            team_name(view, pe, slot),
            members.len(),
            ranges(&sorted(&members))
        );
        call_lines(view, (routine, slot, seq), &members, "    ", &mut text);
    }
    // Hosts none of whose PEs answered, by name.
    if let Some(t) = view.topology {
        for h in 0..t.n_hosts() {
            let pes = t.pes_of_host(h);
            if pes.iter().all(|&pe| matches!(view.seen(pe), Seen::NoAnswer)) {
                let _ = writeln!(
                    text,
                    "  host {} did not answer within {} s ({})",
                    t.host_name(h),
                    hosts::ANSWER_WITHIN.as_secs(),
                    ranges(pes)
                );
            }
        }
    }
    let hosts = view.topology.map_or(1, Topology::n_hosts);
    let _ = writeln!(
        text,
        "{REPORT_END}{n_pes} PE{} on {hosts} host{}",
        if n_pes == 1 { "" } else { "s" },
        if hosts == 1 { "" } else { "s" }
    );
    text
}

/// oshrun's view of a job's states: the header and every control block, mapped read-write
/// because oshrun writes two things, the job's clock and each PE's `ended` word (no PE writes
/// that one); it never writes anything else.
#[derive(Debug)]
pub struct JobStates {
    map: Mapping,
    ctrl: CtrlTable,
    n_pes: usize,
    team_slots: usize,
}

impl JobStates {
    /// Maps the header and the control blocks of `file`.
    pub fn map(file: &JobFile) -> crate::error::Result<Self> {
        let layout = file.layout();
        let map = Mapping::shared(file.fd(), 0, layout.heap_base)?;
        let ctrl = CtrlTable::new(map.ptr, layout);
        Ok(JobStates { map, ctrl, n_pes: layout.n_pes, team_slots: layout.slot_count })
    }

    /// Advances the job's clock (oshrun does so every 50 ms).
    pub fn tick_clock(&self) {
        HeaderView::new(&self.map).tick_clock(now_ms(), 1);
    }

    /// Records that PE `pe`'s process ended: by `signal`, or with `status`.
    pub fn record_end(&self, pe: usize, signal: Option<i32>, status: i32) {
        if pe < self.n_pes {
            self.ctrl.pe(pe).state.ended.store(encode_ended(signal, status), Ordering::Relaxed);
        }
    }

    /// What every PE is doing, one line each, then the team calls PEs wait in and who has
    /// not arrived.
    pub fn report(&self) -> String {
        report_all(&View::mapped(&self.ctrl, self.n_pes, self.team_slots, now_ms()))
    }
}
