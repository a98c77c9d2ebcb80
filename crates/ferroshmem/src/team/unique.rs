//! Arbitrary teams (NVSHMEM's `team_init`): any subset of WORLD in any order, without a parent.
//!
//! The root draws a unique id (`get_uniqueid`), which names one of its rendezvous records, and
//! hands it to the members out of band. Each member writes an entry (its world PE, the team
//! size it expects, its proposed slot) at its index in the root's record; once all entries of a
//! round are there, every member computes the same outcome from them (no PE has to be the
//! arbiter): the agreed slot, or a new candidate and another round (entries double-buffered by
//! round parity), or the failure. Several creations with different ids proceed at once, each in
//! its own record; a root hosts up to `RDV_RECORDS` at a time.

use std::sync::atomic::Ordering;

use crate::error::{Error, Result};
use crate::job::{RDV_ENTRY_WORDS, RDV_FIXED_WORDS, RDV_RECORDS};
use crate::runtime::Runtime;
use crate::team::codes;

const STATE: usize = 0;
const ARRIVALS: usize = 1;
const ERROR: usize = 2;
const DONE: usize = 3;

const E_TAG: usize = 0;
const E_WORLD_PE: usize = 1;
const E_NPES: usize = 2;
const E_SLOT: usize = 3;
const E_HIGH_WATER: usize = 4;
const E_HASH: usize = 5;

const SEQ_BITS: u32 = 40;
const ROUND_BITS: u32 = 24;

/// Draws a unique id on this PE (the root): `(root << 40) | sequence`.
pub fn get_uniqueid(rt: &Runtime) -> Result<u64> {
    let first = rt.teams.next_uid_seq.fetch_add(1, Ordering::Relaxed);
    for seq in first..first + RDV_RECORDS as u64 {
        let seq = seq & ((1 << SEQ_BITS) - 1);
        if seq == 0 {
            continue;
        }
        let rec = rt.ctrl.rendezvous(rt.my_pe, seq as usize % RDV_RECORDS);
        if rec[STATE].compare_exchange(0, seq, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            for w in [ARRIVALS, ERROR, DONE] {
                rec[w].store(0, Ordering::Relaxed);
            }
            rt.teams.next_uid_seq.fetch_max(seq + 1, Ordering::Relaxed);
            return Ok(((rt.my_pe as u64) << SEQ_BITS) | seq);
        }
    }
    Err(Error::invalid(
        "shmemx_team_get_uniqueid",
        "uniqueid",
        format!("PE {} already hosts {RDV_RECORDS} team creations in flight", rt.my_pe),
    ))
}

/// The outcome every member computes.
#[derive(Debug)]
pub enum InitOutcome {
    Done { members: Vec<u32>, slot: usize, base_epoch: u64 },
    Failed { code: u32, reason: String },
}

/// One member's part in a `team_init`.
#[derive(Debug)]
pub struct Rendezvous {
    root: usize,
    record: usize,
    seq: u64,
    npes: usize,
    idx: usize,
    round: u64,
    candidate: usize,
    reserved: Option<usize>,
    wrote: bool,
    local_error: Option<String>,
    hash: u64,
    finished: bool,
}

impl Rendezvous {
    /// Validates the arguments and prepares to join. `Err` when this PE cannot even take part
    /// (an id that is not one, or sizes out of range): only this PE fails then.
    pub fn start(
        rt: &Runtime,
        routine: &'static str,
        uniqueid: u64,
        npes: i64,
        idx: i64,
        local_error: Option<String>,
        hash: u64,
    ) -> Result<Self> {
        // The rendezvous records are read and written in place on the root: only the PEs of
        // one host can. Every caller in a job across hosts gets this same error, so no member
        // waits for one that failed.
        if rt.topology.spans_hosts() {
            return Err(Error::AcrossHosts { routine, what: "team creation by unique id" });
        }
        let root = (uniqueid >> SEQ_BITS) as usize;
        let seq = uniqueid & ((1 << SEQ_BITS) - 1);
        if root >= rt.n_pes || seq == 0 {
            return Err(Error::invalid(
                routine,
                "uniqueid",
                format!("{uniqueid:#x} was not made by shmemx_team_get_uniqueid"),
            ));
        }
        if npes <= 0 || npes > rt.n_pes as i64 {
            return Err(Error::invalid(routine, "npes", format!("{npes} is not in 1..={}", rt.n_pes)));
        }
        let mut local_error = local_error;
        if idx < 0 || idx >= npes {
            local_error.get_or_insert(format!("pe_idx_in_team {idx} is not in 0..{npes}"));
        }
        Ok(Rendezvous {
            root,
            record: seq as usize % RDV_RECORDS,
            seq,
            npes: npes as usize,
            idx: idx.clamp(0, npes - 1) as usize,
            round: 0,
            candidate: 0,
            reserved: None,
            wrote: false,
            local_error,
            hash,
            finished: false,
        })
    }

    fn entry_at(&self, parity: u64, i: usize) -> usize {
        RDV_FIXED_WORDS + (parity as usize * self.npes + i) * RDV_ENTRY_WORDS
    }

    fn tag(&self) -> u64 {
        (self.seq << ROUND_BITS) | (self.round & ((1 << ROUND_BITS) - 1))
    }

    fn unreserve(&mut self, rt: &Runtime) {
        if let Some(s) = self.reserved.take() {
            rt.teams.slots.lock().unwrap_or_else(|e| e.into_inner()).unreserve(s);
        }
    }

    fn finish(&mut self, rt: &Runtime, outcome: InitOutcome) -> InitOutcome {
        let rec = rt.ctrl.rendezvous(self.root, self.record);
        match &outcome {
            InitOutcome::Done { .. } => {
                if let Some(s) = self.reserved.take() {
                    rt.teams.slots.lock().unwrap_or_else(|e| e.into_inner()).claim(s);
                }
            }
            InitOutcome::Failed { .. } => self.unreserve(rt),
        }
        self.finished = true;
        // The last member to finish frees the record for the root's next id.
        let done = rec[DONE].fetch_add(1, Ordering::AcqRel) + 1;
        if done >= rec[ARRIVALS].load(Ordering::Acquire) && done >= self.npes as u64 {
            rec[STATE].store(0, Ordering::Release);
        }
        outcome
    }

    /// Advances; `Some` once this member knows the outcome.
    pub fn poll(&mut self, rt: &Runtime) -> Option<InitOutcome> {
        if self.finished {
            return None;
        }
        let rec = rt.ctrl.rendezvous(self.root, self.record);
        let parity = self.round & 1;
        if !self.wrote {
            let mut code = self.local_error.as_ref().map_or(0, |_| codes::INVALID_ARGUMENT as u64);
            let mut proposal = (u64::MAX, 0);
            if code == 0 {
                match rt.teams.slots.lock().unwrap_or_else(|e| e.into_inner()).reserve_from(self.candidate) {
                    Some((s, hw)) => {
                        self.reserved = Some(s);
                        proposal = (s as u64, hw);
                    }
                    None => code = codes::NO_SLOT as u64,
                }
            }
            if code != 0 {
                rec[ERROR].fetch_max(code, Ordering::AcqRel);
            } else {
                let e = self.entry_at(parity, self.idx);
                rec[e + E_WORLD_PE].store(rt.my_pe as u64, Ordering::Relaxed);
                rec[e + E_NPES].store(self.npes as u64, Ordering::Relaxed);
                rec[e + E_SLOT].store(proposal.0, Ordering::Relaxed);
                rec[e + E_HIGH_WATER].store(proposal.1, Ordering::Relaxed);
                rec[e + E_HASH].store(self.hash, Ordering::Relaxed);
                rec[e + E_TAG].store(self.tag(), Ordering::Release);
            }
            if self.round == 0 {
                rec[ARRIVALS].fetch_add(1, Ordering::AcqRel);
            }
            rt.notify(self.root);
            self.wrote = true;
        }
        if rec[ARRIVALS].load(Ordering::Acquire) < self.npes as u64 {
            return None;
        }
        let code = rec[ERROR].load(Ordering::Acquire) as u32;
        if code != 0 {
            let reason = self.local_error.clone().unwrap_or_else(|| match code {
                codes::NO_SLOT => "no free team slot on some member (set SHMEMX_TEAM_SLOTS)".into(),
                _ => "another member passed invalid arguments".into(),
            });
            return Some(self.finish(rt, InitOutcome::Failed { code, reason }));
        }
        let tag = self.tag();
        let entries: Vec<usize> = (0..self.npes).map(|i| self.entry_at(parity, i)).collect();
        if entries.iter().any(|&e| rec[e + E_TAG].load(Ordering::Acquire) != tag) {
            return None;
        }
        let read = |e: usize, w: usize| rec[e + w].load(Ordering::Relaxed);
        let members: Vec<u32> = entries.iter().map(|&e| read(e, E_WORLD_PE) as u32).collect();
        let mut seen = vec![false; rt.n_pes];
        let duplicate = members.iter().any(|&m| std::mem::replace(&mut seen[m as usize], true));
        if duplicate || entries.iter().any(|&e| read(e, E_NPES) != self.npes as u64) {
            let reason = if duplicate {
                "two PEs passed the same pe_idx_in_team"
            } else {
                "members passed different npes"
            };
            return Some(
                self.finish(rt, InitOutcome::Failed { code: codes::INVALID_ARGUMENT, reason: reason.into() }),
            );
        }
        if entries.iter().any(|&e| read(e, E_HASH) != self.hash) {
            return Some(self.finish(
                rt,
                InitOutcome::Failed {
                    code: codes::MISMATCH,
                    reason: "members passed different arguments (checked mode)".into(),
                },
            ));
        }
        let slots: Vec<u64> = entries.iter().map(|&e| read(e, E_SLOT)).collect();
        let max = *slots.iter().max().expect("a team has a member");
        if slots.iter().all(|&s| s == max) {
            let base_epoch = entries.iter().map(|&e| read(e, E_HIGH_WATER)).max().unwrap_or(0);
            return Some(self.finish(rt, InitOutcome::Done { members, slot: max as usize, base_epoch }));
        }
        self.unreserve(rt);
        self.candidate = max as usize;
        self.round += 1;
        self.wrote = false;
        self.poll(rt)
    }
}
