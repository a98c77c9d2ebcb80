//! Publishing this PE's library calls in its control block (`ctrl::PeState`, the words that
//! the hang reports of `activity` read): entering a call, leaving it ([`CallGuard`]'s drop),
//! and the end of `shmem_finalize`. Here, in the runtime, because every layer from the runtime
//! up publishes its calls, and the hang reports only observe them (issue 30: this lived in
//! `activity`, which the lower layers thus called). `Runtime::enter_call`, which takes the
//! team whose call it is, is the team layer's (`team`), on [`Runtime::enter_call_on`].

use std::sync::atomic::Ordering;

use super::Runtime;
use crate::ctrl::{routine_ref, Doing, PeState, KIND_IN_CALL, KIND_SHIFT};
use crate::job::HeaderView;

/// A published library call: on drop the PE is "outside the library" again (or back in the
/// call it was nested in).
#[must_use]
#[derive(Debug)]
pub struct CallGuard<'a> {
    rt: Option<&'a Runtime>,
    prev_call: u64,
    prev_seq: u64,
    prev_ref: u64,
}

impl Runtime {
    /// This PE's published state.
    #[inline]
    pub(crate) fn my_state(&self) -> &PeState {
        &self.ctrl.pe(self.my_pe).state
    }

    /// Publishes that this PE is in `routine` on the team on `slot`, if any, until the guard
    /// drops; `next_seq` takes the team's next call number. A call nested in another on the
    /// same team (a barrier inside `shmem_malloc`) keeps the outer one (and takes no number).
    #[inline(always)]
    pub(crate) fn enter_call_on(
        &self,
        routine: &'static str,
        slot: Option<usize>,
        next_seq: impl FnOnce() -> u64,
    ) -> CallGuard<'_> {
        let state = self.my_state();
        let prev_call = state.call.load(Ordering::Relaxed);
        let mut seq = 0;
        if let Some(slot) = slot {
            if prev_call >> KIND_SHIFT == KIND_IN_CALL && prev_call & 0xffff_ffff == slot as u64 + 1 {
                return CallGuard { rt: None, prev_call, prev_seq: 0, prev_ref: 0 };
            }
            seq = next_seq();
        }
        self.publish_call(state, prev_call, routine, slot.map(|s| (s, seq)))
    }

    /// `Runtime::enter_call` with the team's slot and call number given (a team creation took
    /// its number from the parent when it started), or with no team.
    #[inline]
    pub fn enter_call_as(&self, routine: &'static str, team: Option<(usize, u64)>) -> CallGuard<'_> {
        let state = self.my_state();
        self.publish_call(state, state.call.load(Ordering::Relaxed), routine, team)
    }

    /// Entry costs three stores: the routine's name is kept as this process's reference to it
    /// and named (its id looked up) only when the call's wait begins to sleep (`wait::Watch`,
    /// observed by the hang reports).
    #[inline(always)]
    fn publish_call<'a>(
        &'a self,
        state: &PeState,
        prev_call: u64,
        routine: &'static str,
        team: Option<(usize, u64)>,
    ) -> CallGuard<'a> {
        // The previous call (number and name) matters only to a nested call, which restores it.
        let (prev_seq, prev_ref) = if prev_call >> KIND_SHIFT == KIND_IN_CALL {
            (state.seq.load(Ordering::Relaxed), state.routine_ref.load(Ordering::Relaxed))
        } else {
            (0, 0)
        };
        state.routine_ref.store(routine_ref(routine), Ordering::Relaxed);
        state.seq.store(team.map_or(0, |t| t.1), Ordering::Relaxed);
        let doing = Doing::InCall { routine: 0, team_slot: team.map(|t| t.0) };
        state.call.store(doing.encode(), Ordering::Relaxed);
        CallGuard { rt: Some(self), prev_call, prev_seq, prev_ref }
    }

    /// Publishes that this PE returned from `shmem_finalize`.
    pub(crate) fn publish_finished(&self) {
        let clock = HeaderView::new(&self.map).clock_ms();
        self.my_state().call.store(Doing::Finished { since_ms: clock }.encode(), Ordering::Relaxed);
    }
}

impl Drop for CallGuard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        let Some(rt) = self.rt else { return };
        let state = rt.my_state();
        if self.prev_call >> KIND_SHIFT == KIND_IN_CALL {
            state.seq.store(self.prev_seq, Ordering::Relaxed);
            state.routine_ref.store(self.prev_ref, Ordering::Relaxed);
            state.call.store(self.prev_call, Ordering::Relaxed);
        } else {
            let clock = HeaderView::new(&rt.map).clock_ms();
            state.call.store(Doing::Outside { since_ms: clock }.encode(), Ordering::Relaxed);
        }
    }
}
