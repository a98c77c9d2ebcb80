//! Destroying a team without waiting for its other members.
//!
//! A member must not reuse a team's slot while another member may still touch its copy of
//! it: a PE that returned early from an eager collective (a broadcast's root) may still be
//! read from by the others, and messages from other hosts may still be on their way. A sync
//! at destroy rules that out, but costs a barrier per destroy (across two hosts as much as
//! the split that made the team). Instead each member, when it destroys (or drops) the team,
//! tells every other member that it is done with it: one atomic add into their copy of the
//! slot's `W_RELEASED` word (a counted message to another host, after a fence so that it
//! lands after everything this PE sent for the team), and returns. Its own copy of the slot
//! stays pending in the slot table until the others' signals have all arrived, and the next
//! team creation on this PE waits for that first (`Teams::settle_releases`): never later
//! than a synchronising destroy would have waited, and usually not at all, since the others'
//! signals travel while this PE goes on.
//!
//! `shmem_team_destroy` takes this path for teams within one host with a core per PE (see
//! [`signals`] for why not the others). Teams across hosts made while their members had
//! credits *defer* instead (see [`defers`]): no signal and no sync, the slot waits for the
//! next creation over a parent that holds them all. The other teams synchronise at destroy
//! and owe no signals. A Rust `Team` dropped without `destroy` (which cannot synchronise: the other
//! members need not be dropping it at the same time) always signals, so its slot is not
//! reused before every member is done with it either.

use std::sync::atomic::Ordering;

use crate::runtime::Runtime;
use crate::team::slot_layout::W_RELEASED;
use crate::team::TeamInner;

/// Largest team whose destroy signals its members instead of synchronising them: each member
/// sends one signal to each other member, so beyond this a sync (logarithmic) costs less.
pub const SIGNAL_MAX_PES: usize = 256;

/// Whether destroying `team` signals its members instead of synchronising them (the same
/// answer on every member).
pub fn signals(rt: &Runtime, team: &TeamInner) -> bool {
    let sync = destroy_syncs();
    let n = team.n_pes();
    // Within one host and with a core per PE only: with more PEs than cores a central sync
    // costs each member two runs, where signals wake a waiting member once per signal; and
    // between hosts each signal is a message whose sending and handling cost more than the
    // sync saves (split_strided + destroy across 2 hosts x 2 PEs: 82 us with signals, 70
    // with the sync). Both conditions are the same on every member.
    let spans_hosts = rt.net().is_some() && rt.spans_hosts(n, |i| team.pes.world_pe(i));
    !sync && !rt.checked && n <= SIGNAL_MAX_PES && !rt.wait.oversubscribed && !spans_hosts
}

/// Whether a new team of members `pes` defers its destroy (if every member that joins it has
/// a credit, `slots`): a team across hosts, unchecked. Its destroy then neither synchronises
/// nor signals: each member completes its own network operations (quiet) and returns, and
/// keeps the slot *deferred* until it has finished a slot agreement (a team creation) over a
/// parent that holds every member of the team. Each member joins that agreement after its
/// own destroy (collective calls come in the same order on every PE), so by the time it
/// finishes, every member is done with the team and every message sent for it has landed;
/// the sync that a destroy across hosts would cost is the agreement that the next creation
/// pays anyway. The same answer on every member.
pub fn defers(rt: &Runtime, pes: &crate::team::PeSet) -> bool {
    rt.net().is_some() && !rt.checked && !destroy_syncs() && rt.spans_hosts(pes.size(), |i| pes.world_pe(i))
}

/// `FSH_DESTROY_SYNC=1`: every destroy synchronises (for A/B measurements of the two forms;
/// one of the job's agreed settings, `crate::settings`).
fn destroy_syncs() -> bool {
    crate::settings::agreed().destroy_sync
}

/// Tells every other member of `team` that this PE is done with it (after everything this PE
/// sent for the team); returns how many signals this PE's own copy of the slot is owed in turn.
pub fn signal_done(rt: &Runtime, team: &TeamInner, routine: &'static str) -> u64 {
    for i in (0..team.n_pes()).filter(|&i| i != team.my_index) {
        rt.add_to_slot_word(routine, team.pes.world_pe(i), team.slot, W_RELEASED);
    }
    (team.n_pes() - 1) as u64
}

/// The release signals this PE's copy of `slot` has received.
pub fn received(rt: &Runtime, slot: usize) -> u64 {
    rt.ctrl.slot(rt.my_pe, slot)[W_RELEASED].load(Ordering::Acquire)
}
