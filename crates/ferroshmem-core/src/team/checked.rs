//! Checked mode (`SHMEM_DEBUG=1` or `SHMEMX_CHECK_COLLECTIVES=1`): every team creation and team
//! collective carries a hash of (routine, arguments) through its all-reduce; if the hashes
//! differ, every PE learns it at the same time, the PEs exchange what they called, and all of
//! them return the same error, which names the routine, the team and who passed what, instead
//! of hanging.
//!
//! A PE whose own arguments fail the safe API's local checks (a slice too short for the
//! count, say) takes part all the same (issue 13 item 7): it carries [`FAILED_HASH`] through
//! the all-reduce, which every PE sees, and publishes the inputs of its checks; every PE then
//! repeats those checks on them (`team::local_checks`, a pure function of the published
//! words and the team's size) and all return the same [`Error::InvalidArgument`], naming the
//! PE. Without checked mode that PE returns its error at once and the others wait for it.

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
    /// A call whose local argument checks failed: their inputs (`team::local_checks`),
    /// published so that every PE can repeat them. `None` for a call that passed.
    pub failed: Option<Vec<u64>>,
}

/// The hash a PE whose local checks failed carries (no call hashes to it: see
/// [`Signature::hash`]), so the all-reduce's maximum tells every PE that one failed.
pub const FAILED_HASH: u64 = u64::MAX;

impl Signature {
    /// The signature of `routine(args)`; unknown names count as "unknown routine".
    pub fn new(routine: &str, args: &[i64]) -> Self {
        let routine =
            ALIASES.iter().find(|(alias, _)| *alias == routine).map_or(routine, |(_, canonical)| canonical);
        let id = ROUTINES.iter().position(|r| *r == routine).unwrap_or(0);
        Signature { routine: id, args: args.iter().copied().take(MAX_ARGS).collect(), failed: None }
    }

    /// The call of `routine` by a PE whose local checks failed on `inputs` (at most
    /// `MAX_ARGS` words).
    pub fn failed(routine: &str, inputs: &[u64]) -> Self {
        debug_assert!(inputs.len() <= MAX_ARGS);
        Signature {
            failed: Some(inputs.iter().copied().take(MAX_ARGS).collect()),
            args: Vec::new(),
            ..Self::new(routine, &[])
        }
    }

    /// FNV-1a over the routine and the arguments, below [`FAILED_HASH`]; a failed call hashes
    /// to `FAILED_HASH`.
    pub fn hash(&self) -> u64 {
        if self.failed.is_some() {
            return FAILED_HASH;
        }
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
        (h | 1) & !(1 << 63)
    }

    fn render(&self) -> String {
        if self.failed.is_some() {
            return " with arguments that fail its checks".into();
        }
        let name = ROUTINES[self.routine];
        if let Some(addr) = self.not_a_block() {
            return format!("{addr:#x}");
        }
        let args: Vec<String> = match (ALLOCATION_ARGS.iter().find(|(r, _)| *r == name), name) {
            // A free's (or realloc's) first argument is the block's offset in the heap.
            (_, "shmem_free" | "SymSlice::free") => {
                self.args.iter().map(|a| format!("the block at heap offset {a:#x}")).collect()
            }
            (Some((_, names)), _) => {
                self.args.iter().zip(names.iter()).map(|(a, n)| format!("{n} {a}")).collect()
            }
            _ => self.args.iter().map(|a| a.to_string()).collect(),
        };
        format!("({})", args.join(", "))
    }

    /// The address a free or realloc was given when it starts no block of the PE's heap
    /// (published as [`NOT_A_BLOCK`] followed by the address).
    fn not_a_block(&self) -> Option<usize> {
        match self.args[..] {
            [NOT_A_BLOCK, addr, ..] if self.failed.is_none() => Some(addr as usize),
            _ => None,
        }
    }
}

/// The first argument of a checked free or realloc whose pointer starts no block of the
/// symmetric heap (offsets are never negative); the address follows it.
pub(crate) const NOT_A_BLOCK: i64 = -1;

/// The names of the compared arguments of the allocation routines, for the report.
const ALLOCATION_ARGS: &[(&str, &[&str])] = &[
    ("shmem_malloc", &["size", "alignment"]),
    ("shmem_malloc_with_hints", &["size", "alignment"]),
    ("shmem_align", &["size", "alignment"]),
    ("shmem_calloc", &["size", "alignment"]),
    ("Shmem::alloc", &["size", "alignment"]),
    ("shmem_realloc", &["heap offset", "size"]),
];

/// Runs a checked all-reduce of `signature` over `team` (also a barrier); an error naming who
/// passed what if the PEs disagree, or the same error on every PE if one's local checks
/// failed (see the module documentation). A failed `signature` always gives an error.
pub fn check_call(rt: &Runtime, team: &Arc<TeamInner>, signature: &Signature) -> Result<()> {
    check_call_carrying(rt, team, signature, [0; PAYLOAD]).map(drop)
}

/// [`check_call`] whose all-reduce also carries `payload` (every word but [`HASH_MAX`] and
/// [`HASH_MIN`], which it sets), giving its result when the PEs agree.
pub fn check_call_carrying(
    rt: &Runtime,
    team: &Arc<TeamInner>,
    signature: &Signature,
    mut payload: [u64; PAYLOAD],
) -> Result<[u64; PAYLOAD]> {
    let h = signature.hash();
    payload[HASH_MAX] = h;
    payload[HASH_MIN] = !h;
    let mut ar = MaxAllreduce::start(rt, team.clone(), payload);
    ar.wait(rt);
    let r = ar.result();
    if r[HASH_MAX] == !r[HASH_MIN] && r[HASH_MAX] != FAILED_HASH {
        return Ok(*r);
    }
    Err(describe(rt, team, signature))
}

/// [`check_call`] for a borrowed team (the collectives hold `&TeamInner`).
pub fn check_team(rt: &Runtime, team: &TeamInner, signature: &Signature) -> Result<()> {
    match rt.teams().get(team.handle()) {
        Some(arc) => check_call(rt, &arc, signature),
        None => Err(Error::InvalidTeam { routine: ROUTINES[signature.routine] }),
    }
}

/// "PE 0..2, 5" for sorted member numbers.
pub(crate) fn ranges(pes: &[usize]) -> String {
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

/// Bit of the published count word that marks a failed call (its words are then the inputs
/// of its checks, not arguments).
const PUBLISHED_FAILED: u64 = 1 << 16;

/// Every PE publishes its call in its slot of `team`, then all read all and describe the
/// disagreement in the same words. Called by all PEs of the team once a mismatch is known.
pub fn describe_mismatch(rt: &Runtime, team: &Arc<TeamInner>, mine: &Signature) -> String {
    match describe(rt, team, mine) {
        Error::CollectiveMismatch { message } => message,
        e => e.to_string(),
    }
}

/// [`describe_mismatch`] as an error: the same on every PE of `team`.
/// [`Error::InvalidArgument`] when every PE called the same routine and some failed their
/// local checks (naming the first such PE), [`Error::CollectiveMismatch`] otherwise.
pub fn describe(rt: &Runtime, team: &Arc<TeamInner>, mine: &Signature) -> Error {
    let words = rt.ctrl.slot(rt.my_pe, team.slot);
    let (payload, flag) = match &mine.failed {
        Some(inputs) => (inputs.clone(), PUBLISHED_FAILED),
        None => (mine.args.iter().map(|&a| a as u64).collect(), 0),
    };
    words[ARGS_AT].store(mine.routine as u64, Ordering::Relaxed);
    words[ARGS_AT + 1].store(payload.len() as u64 | flag, Ordering::Relaxed);
    for (k, &a) in payload.iter().enumerate() {
        words[ARGS_AT + 2 + k].store(a, Ordering::Relaxed);
    }
    team.sync_unchecked(rt);
    let mut calls: Vec<(Signature, Vec<usize>)> = Vec::new();
    // Mapped here for a PE of this host, fetched through the network (all at once) for another.
    let pes: Vec<usize> = (0..team.n_pes()).map(|i| team.pes.world_pe(i)).collect();
    let published = rt.read_slot_words_of_all("checked mode", &pes, team.slot, ARGS_AT, 2 + MAX_ARGS);
    for (i, w) in published.iter().enumerate() {
        let routine = (w[0] as usize).min(ROUTINES.len() - 1);
        let n = ((w[1] & 0xff) as usize).min(MAX_ARGS);
        let sig = if w[1] & PUBLISHED_FAILED != 0 {
            Signature { routine, args: Vec::new(), failed: Some(w[2..2 + n].to_vec()) }
        } else {
            Signature { routine, args: (0..n).map(|k| w[2 + k] as i64).collect(), failed: None }
        };
        match calls.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, pes)) => pes.push(i),
            None => calls.push((sig, vec![i])),
        }
    }
    // Nobody may overwrite the published calls before everyone has read them.
    team.sync_unchecked(rt);
    let same_routine = calls.iter().all(|(s, _)| s.routine == calls[0].0.routine);
    if same_routine && calls.iter().any(|(s, _)| s.failed.is_some()) {
        return failed_checks(team, &calls);
    }
    Error::CollectiveMismatch { message: mismatch_message(team, &calls, same_routine) }
}

/// The error of a call whose local checks failed on some PEs (`calls`: every published call
/// and its PEs): the checks repeated on the first such PE's inputs, naming it and the others.
fn failed_checks(team: &TeamInner, calls: &[(Signature, Vec<usize>)]) -> Error {
    let mut failed: Vec<(usize, &[u64])> = calls
        .iter()
        .filter_map(|(s, pes)| s.failed.as_deref().map(|inputs| pes.iter().map(move |&i| (i, inputs))))
        .flatten()
        .collect();
    failed.sort_by_key(|&(i, _)| i);
    let (first, inputs) = failed[0];
    let others: Vec<usize> = failed[1..].iter().map(|&(i, _)| i).collect();
    let also = if others.is_empty() { String::new() } else { format!("; {} failed too", ranges(&others)) };
    let routine = ROUTINES[calls[0].0.routine];
    match crate::team::local_checks::local_checks(team.n_pes(), inputs) {
        Err(Error::InvalidArgument { routine, argument, reason }) => Error::InvalidArgument {
            routine,
            argument,
            reason: format!("{reason} (on team PE {first} of {}{also})", team.name()),
        },
        Err(e) => {
            Error::invalid(routine, "arguments", format!("{e} (on team PE {first} of {}{also})", team.name()))
        }
        Ok(_) => Error::invalid(
            routine,
            "arguments",
            format!("team PE {first} of {} failed its local checks{also}", team.name()),
        ),
    }
}

/// The words of a mismatch: who passed or called what.
fn mismatch_message(team: &TeamInner, calls: &[(Signature, Vec<usize>)], same_routine: bool) -> String {
    if same_routine {
        let parts: Vec<String> =
            calls.iter().map(|(s, pes)| format!("{} passed {}", ranges(pes), s.render())).collect();
        let routine = ROUTINES[calls[0].0.routine];
        let what = if calls.iter().any(|(s, _)| s.not_a_block().is_some()) {
            "a pointer that is not a symmetric address (not returned by shmem_malloc, shmem_calloc, \
             shmem_align or shmem_realloc, or already freed) cannot be freed or reallocated"
        } else {
            "the arguments differ between PEs, which is an error: every PE of the team must pass \
             the same ones to this collective call"
        };
        format!("{routine} on {}: {}; {what}", team.name(), parts.join(", "))
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

    #[test]
    fn only_a_failed_call_carries_the_failed_hash() {
        for args in [&[][..], &[0], &[-1, -1, -1], &[i64::MAX, i64::MIN]] {
            assert!(Signature::new("shmem_broadcast", args).hash() < FAILED_HASH);
        }
        assert_eq!(Signature::failed("shmem_broadcast", &[1, 8, 8, 4, 8]).hash(), FAILED_HASH);
    }
}
