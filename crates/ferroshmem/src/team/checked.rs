//! Checked mode (`SHMEM_DEBUG=1` or `SHMEMX_CHECK_COLLECTIVES=1`): every team creation and team
//! collective carries a hash of (routine, arguments) through its all-reduce; if the hashes
//! differ, every PE learns it at the same time, the PEs exchange what they called, and all of
//! them return the same error, which names the routine, the team and who passed what, instead
//! of hanging.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::runtime::Runtime;
use crate::team::agree::{MaxAllreduce, HASH_MAX, HASH_MIN, PAYLOAD};
use crate::team::TeamInner;

/// Routines whose calls are checked. The index travels between PEs.
pub const ROUTINES: &[&str] = &[
    "unknown routine",
    "shmem_team_sync",
    "shmem_team_split_strided",
    "shmem_team_split_2d",
    "shmem_sync_all",
    "shmem_barrier_all",
    "shmem_broadcast",
    "shmem_collect",
    "shmem_fcollect",
    "shmem_alltoall",
    "shmem_alltoalls",
    "shmem_reduce",
    "shmem_and_reduce",
    "shmem_or_reduce",
    "shmem_xor_reduce",
    "shmem_max_reduce",
    "shmem_min_reduce",
    "shmem_sum_reduce",
    "shmem_prod_reduce",
    "Team::split_strided",
    "Team::split_2d",
    "Team::sync",
    "shmemx_team_init",
    "shmem_team_destroy",
    "shmem_malloc",
    "shmem_malloc_with_hints",
    "shmem_align",
    "shmem_calloc",
    "shmem_realloc",
    "shmem_free",
    "Shmem::alloc",
    "SymSlice::free",
    "shmemx_team_split_color",
];

/// Names that are the same collective as another (a blocking call matches its `_nb` form).
const ALIASES: &[(&str, &str)] = &[
    ("shmemx_team_split_strided_nb", "shmem_team_split_strided"),
    ("shmemx_team_split_2d_nb", "shmem_team_split_2d"),
    ("shmemx_team_init_nb", "shmemx_team_init"),
    ("Shmem::team_init", "shmemx_team_init"),
    ("Team::destroy", "shmem_team_destroy"),
    ("shmemx_team_split_color_nb", "shmemx_team_split_color"),
    ("Team::split_color", "shmemx_team_split_color"),
];

use crate::team::slot_layout::{CHECKED_ARGS as ARGS_AT, MAX_ARGS};

/// A collective call: which routine, with which arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// Index of the routine in [`ROUTINES`].
    pub routine: usize,
    /// Its arguments, as they are compared.
    pub args: Vec<i64>,
}

impl Signature {
    /// The signature of `routine(args)`; unknown names count as "unknown routine".
    pub fn new(routine: &str, args: &[i64]) -> Self {
        let routine =
            ALIASES.iter().find(|(alias, _)| *alias == routine).map_or(routine, |(_, canonical)| canonical);
        let id = ROUTINES.iter().position(|r| *r == routine).unwrap_or(0);
        Signature { routine: id, args: args.iter().copied().take(MAX_ARGS).collect() }
    }

    /// FNV-1a over the routine and the arguments.
    pub fn hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |v: u64| {
            for b in v.to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
            }
        };
        eat(self.routine as u64);
        eat(self.args.len() as u64);
        for &a in &self.args {
            eat(a as u64);
        }
        h | 1
    }

    fn render(&self) -> String {
        let args: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        format!("({})", args.join(", "))
    }
}

/// Runs a checked all-reduce of `signature` over `team` (also a barrier); an error naming who
/// passed what if the PEs disagree.
pub fn check_call(rt: &Runtime, team: &Arc<TeamInner>, signature: &Signature) -> Result<()> {
    let h = signature.hash();
    let mut payload = [0u64; PAYLOAD];
    payload[HASH_MAX] = h;
    payload[HASH_MIN] = !h;
    let mut ar = MaxAllreduce::start(rt, team.clone(), payload);
    ar.wait(rt);
    let r = ar.result();
    if r[HASH_MAX] == !r[HASH_MIN] {
        return Ok(());
    }
    Err(Error::CollectiveMismatch { message: describe_mismatch(rt, team, signature) })
}

/// [`check_call`] for a borrowed team (the collectives hold `&TeamInner`).
pub fn check_team(rt: &Runtime, team: &TeamInner, signature: &Signature) -> Result<()> {
    match rt.teams.get(team.handle()) {
        Some(arc) => check_call(rt, &arc, signature),
        None => Err(Error::InvalidTeam { routine: ROUTINES[signature.routine] }),
    }
}

/// "PE 0..2, 5" for sorted member numbers.
fn ranges(pes: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pes.len() {
        let mut j = i;
        while j + 1 < pes.len() && pes[j + 1] == pes[j] + 1 {
            j += 1;
        }
        out.push(if j > i { format!("{}..{}", pes[i], pes[j]) } else { pes[i].to_string() });
        i = j + 1;
    }
    format!("PE {}", out.join(", "))
}

/// Every PE publishes its call in its slot of `team`, then all read all and describe the
/// disagreement in the same words. Called by all PEs of the team once a mismatch is known.
pub fn describe_mismatch(rt: &Runtime, team: &Arc<TeamInner>, mine: &Signature) -> String {
    let words = rt.ctrl.slot(rt.my_pe, team.slot);
    words[ARGS_AT].store(mine.routine as u64, Ordering::Relaxed);
    words[ARGS_AT + 1].store(mine.args.len() as u64, Ordering::Relaxed);
    for (k, &a) in mine.args.iter().enumerate() {
        words[ARGS_AT + 2 + k].store(a as u64, Ordering::Relaxed);
    }
    team.sync_unchecked(rt);
    let mut calls: Vec<(Signature, Vec<usize>)> = Vec::new();
    for i in 0..team.n_pes() {
        // Mapped here for a PE of this host, fetched through the network for another.
        let w = rt.read_slot_words("checked mode", team.pes.world_pe(i), team.slot, ARGS_AT, 2 + MAX_ARGS);
        let routine = (w[0] as usize).min(ROUTINES.len() - 1);
        let n = (w[1] as usize).min(MAX_ARGS);
        let args = (0..n).map(|k| w[2 + k] as i64).collect();
        let sig = Signature { routine, args };
        match calls.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, pes)) => pes.push(i),
            None => calls.push((sig, vec![i])),
        }
    }
    // Nobody may overwrite the published calls before everyone has read them.
    team.sync_unchecked(rt);
    let same_routine = calls.iter().all(|(s, _)| s.routine == calls[0].0.routine);
    if same_routine {
        let parts: Vec<String> =
            calls.iter().map(|(s, pes)| format!("{} passed {}", ranges(pes), s.render())).collect();
        format!("{} on {}: {}", ROUTINES[calls[0].0.routine], team.name(), parts.join(", "))
    } else {
        let parts: Vec<String> = calls
            .iter()
            .map(|(s, pes)| format!("{} called {}{}", ranges(pes), ROUTINES[s.routine], s.render()))
            .collect();
        format!("collective calls on {} do not match: {}", team.name(), parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[0, 1, 2, 5]), "PE 0..2, 5");
        assert_eq!(ranges(&[3]), "PE 3");
        assert_eq!(ranges(&[0, 2, 3, 4, 9, 10]), "PE 0, 2..4, 9..10");
    }

    #[test]
    fn hashes_tell_calls_apart() {
        let a = Signature::new("shmem_team_split_strided", &[0, 2, 4]);
        let b = Signature::new("shmem_team_split_strided", &[0, 2, 3]);
        let c = Signature::new("shmem_team_sync", &[0, 2, 4]);
        assert_ne!(a.hash(), b.hash());
        assert_ne!(a.hash(), c.hash());
        assert_eq!(a.hash(), Signature::new("shmem_team_split_strided", &[0, 2, 4]).hash());
    }
}
