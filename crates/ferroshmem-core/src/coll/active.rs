//! The deprecated active-set collectives (`PE_start`, `logPE_stride`, `PE_size`, `pSync`) run
//! as team collectives: an active set of the whole world is the world team, and any other
//! set within one host becomes, at its first collective, a team of its own that this PE
//! keeps for the rest of the job. So old programs get the team algorithms (eager rings,
//! staging, the hierarchy across hosts) instead of the pSync algorithms, which frame every
//! collective with two barriers: at 8 PEs on this machine an 8-byte `shmem_broadcast64` took
//! 39-42 µs per call in a batch where the world team's broadcast took 0.19 µs.
//!
//! Making a set's team needs no PE outside the set: its members agree on a slot through the
//! set's own `pSync` (words 2 and 3, next to the barrier's 0 and 1): each publishes the lowest
//! slot it can reserve from a common candidate and that slot's epoch high-water mark, they
//! meet at the set's barrier, each reads all the proposals, they meet again, and either all
//! proposed the same slot (the team's, starting above every high-water mark) or everyone
//! retries from the largest proposal. Every member reaches the same outcome; a set for which
//! some member has no free slot keeps the pSync algorithms, on every member alike. A set that
//! spans hosts (other than the world) keeps them too: its members could not read each other's
//! pSync words in place.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::ActiveSet;
use crate::error::Result;
use crate::runtime::Runtime;
use crate::team::TeamInner;

/// Where an active-set collective runs.
#[derive(Debug)]
pub enum SetGroup {
    /// On the world team (`Teams::world`): the set is every PE.
    World,
    /// On the set's team.
    Team(Arc<TeamInner>),
    /// Through the pSync algorithms (no team could be made for the set).
    Set(ActiveSet),
}

/// The group an active-set collective of `routine` runs on: checks the triplet and `pSync`
/// (`ActiveSet::check`), then takes the set's team, making it at the set's first
/// collective (a collective step of every member: each calls this with the same set).
pub fn active_group(
    rt: &Runtime,
    routine: &'static str,
    start: i64,
    log_stride: i64,
    size: i64,
    psync: usize,
) -> Result<SetGroup> {
    if start == 0 && log_stride == 0 && size == rt.n_pes as i64 {
        // The whole world, the common case of old programs: only pSync needs checking (the
        // general check below divides by the stride, which costs more than an eager
        // broadcast's own work at 8 PEs).
        ActiveSet::check_psync(rt, routine, psync)?;
        return Ok(SetGroup::World);
    }
    let (start, stride, size, me) = ActiveSet::check(rt, routine, start, log_stride, size, psync)?;
    let key = (start, stride, size);
    let known = rt.teams().active_sets.lock().unwrap_or_else(|e| e.into_inner()).get(&key).cloned();
    if let Some(Some(team)) = known {
        return Ok(SetGroup::Team(team));
    }
    let set = ActiveSet::checked(rt, start, stride, size, me, psync);
    if set.size < 2 || set.spans_hosts {
        return Ok(SetGroup::Set(set));
    }
    let team = match known {
        Some(team) => team,
        None => {
            let team = make_team(rt, &set);
            rt.teams().active_sets.lock().unwrap_or_else(|e| e.into_inner()).insert(key, team.clone());
            team
        }
    };
    Ok(match team {
        Some(team) => SetGroup::Team(team),
        None => SetGroup::Set(set),
    })
}

/// Makes the team of `set` (within one host), or `None` on every member when some member has
/// no free slot.
fn make_team(rt: &Runtime, set: &ActiveSet) -> Option<Arc<TeamInner>> {
    let (slot, base_epoch) = agree_on_slot(rt, set)?;
    let pes = crate::team::pe_set::PeSet::Strided {
        start: set.start as u32,
        stride: set.stride as i64,
        size: set.size as u32,
    };
    Some(rt.teams().adopt(pes, set.me, slot, base_epoch))
}

/// The slot agreement of a set's members through its pSync words 2 (the proposed slot + 1, 0
/// for none) and 3 (that slot's epoch high-water mark); see the module documentation.
fn agree_on_slot(rt: &Runtime, set: &ActiveSet) -> Option<(usize, u64)> {
    let mut candidate = 0;
    rt.teams().settle_releases(rt);
    loop {
        let proposal = rt.teams().available_slots(rt).reserve_from(candidate);
        let (mine, high_water) = proposal.map_or((0, 0), |(s, hw)| (s as u64 + 1, hw));
        set.word(rt, set.me, 2).store(mine, Ordering::Relaxed);
        set.word(rt, set.me, 3).store(high_water, Ordering::Relaxed);
        set.barrier(rt);
        let (mut lowest, mut highest, mut base_epoch) = (u64::MAX, 0, 0);
        for i in 0..set.size {
            let p = set.word(rt, i, 2).load(Ordering::Relaxed);
            lowest = lowest.min(p);
            highest = highest.max(p);
            base_epoch = base_epoch.max(set.word(rt, i, 3).load(Ordering::Relaxed));
        }
        set.barrier(rt);
        set.word(rt, set.me, 2).store(0, Ordering::Relaxed);
        set.word(rt, set.me, 3).store(0, Ordering::Relaxed);
        let mut slots = rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((s, _)) = proposal {
            if lowest != 0 && lowest == highest {
                slots.claim(s);
                return Some((s, base_epoch));
            }
            slots.unreserve(s);
        }
        if lowest == 0 {
            return None;
        }
        candidate = (highest - 1) as usize;
    }
}
