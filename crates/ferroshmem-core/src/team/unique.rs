//! Arbitrary teams (NVSHMEM's `team_init`): any subset of WORLD in any order, without a parent.
//!
//! The root draws a unique id (`get_uniqueid`), which names one of its rendezvous records, and
//! hands it to the members out of band. Each member writes an entry (its world PE, the team
//! size it expects, its proposed slot) at its index in the root's record; once all entries of a
//! round are there, every member computes the same outcome from them (no PE has to be the
//! arbiter): the agreed slot, or a new candidate and another round (entries double-buffered by
//! round parity), or the failure. Several creations with different ids proceed at once, each in
//! its own record; a root hosts up to `RDV_RECORDS` at a time.
//!
//! **Across hosts.** The record stays in the root's control block. Members on the root's host
//! read and write it in place with CPU atomics and ring the root's doorbell. A member on
//! another host reaches it through the network, at the record's offset in the root's `Ctrl`
//! region (the same as in its own):
//! - its entry by a put of the payload words, a fence, then a put of the tag word;
//! - the ARRIVALS and DONE counters and the STATE word by network atomics on those words, and
//!   the ERROR maximum by a compare-and-swap loop (UCX has no max). UCX over TCP runs them on
//!   the root's host as CPU atomics (in the thread that progresses the root's worker, its
//!   progress thread), so they mix with the in-place atomics of the PEs there, as the AMOs and
//!   locks do. Words that the root's host changes by atomics are never written by a put;
//! - it reads the record by one network get of the words up to the end of the round's
//!   entries. The copy behind a get reads its words in no known order (and may tear a word
//!   that changes meanwhile), so a look that would decide (everybody arrived, and an error or
//!   every tag of the round present) is confirmed by reads made after it: ARRIVALS by a
//!   network atomic (once), then a second get, whose words are all final by then (an entry's
//!   payload lands before its tag, and an error is raised before its arrival is counted);
//! - before counting itself DONE it fences, so none of its puts can land in the record once
//!   the last member has freed it for a new id.
//!
//! Nothing rings a bell on its host when the record changes: it learns of changes by looking
//! again (`team::wait_creation` spaces the looks).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::atomic::AmoOp;
use crate::error::{Error, Result};
use crate::job::{RDV_ENTRY_WORDS, RDV_FIXED_WORDS, RDV_RECORDS};
use crate::net::{Net, Region};
use crate::runtime::{fatal, Delivery, Runtime};
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
/// Words of an entry after its tag (E_WORLD_PE..=E_HASH).
const E_PAYLOAD: usize = 5;

const SEQ_BITS: u32 = 40;
const ROUND_BITS: u32 = 24;

/// Draws a unique id on this PE (the root): `(root << 40) | sequence`.
pub fn get_uniqueid(rt: &Runtime) -> Result<u64> {
    let first = rt.teams().next_uid_seq.fetch_add(1, Ordering::Relaxed);
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
            rt.teams().next_uid_seq.fetch_max(seq + 1, Ordering::Relaxed);
            return Ok(((rt.my_pe as u64) << SEQ_BITS) | seq);
        }
    }
    Err(Error::invalid(
        "shmemx_team_get_uniqueid",
        "uniqueid",
        format!("PE {} already hosts {RDV_RECORDS} team creations in flight", rt.my_pe),
    ))
}

/// A rendezvous record as one member reaches it: in place (the root is on this host) or
/// through the network (the root is on another host).
struct Record<'a> {
    rt: &'a Runtime,
    routine: &'static str,
    root: usize,
    index: usize,
    /// The network, when the root is on another host.
    net: Option<&'a Net>,
}

impl<'a> Record<'a> {
    fn new(rt: &'a Runtime, routine: &'static str, root: usize, index: usize) -> Self {
        let net = rt.net().filter(|_| !rt.topology.is_local(root));
        Record { rt, routine, root, index, net }
    }

    /// The record's words, mapped here (the root is on this host).
    fn words(&self) -> &'a [AtomicU64] {
        self.rt.ctrl.rendezvous(self.root, self.index)
    }

    /// Offset of word `w` in the root's `Ctrl` region.
    fn offset(&self, w: usize) -> usize {
        self.rt.layout.rdv_record_offset(self.index) + w * 8
    }

    fn amo(&self, net: &Net, w: usize, op: AmoOp<u64>) -> u64 {
        net.amo(self.routine, self.root, Region::Ctrl, self.offset(w), op).unwrap_or_else(|e| fatal(&e))
    }

    /// Adds one to counter `w`; the new count. What this member wrote to the record before
    /// is visible with the count on this host; across hosts the caller orders what matters.
    fn count(&self, w: usize) -> u64 {
        match self.net {
            None => {
                let c = self.words()[w].fetch_add(1, Ordering::AcqRel) + 1;
                self.rt.notify(self.root);
                c
            }
            Some(net) => self.amo(net, w, AmoOp::FetchAdd(1)) + 1,
        }
    }

    /// Raises ERROR to at least `code`; complete at the root when it returns.
    fn raise_error(&self, code: u64) {
        match self.net {
            None => {
                self.words()[ERROR].fetch_max(code, Ordering::AcqRel);
                self.rt.notify(self.root);
            }
            Some(net) => {
                let mut cur = 0;
                while cur < code {
                    match self.amo(net, ERROR, AmoOp::CompareSwap { cond: cur, value: code }) {
                        prev if prev == cur => break,
                        prev => cur = prev,
                    }
                }
            }
        }
    }

    /// Word `w`, read atomically (across hosts by a network atomic: a get's copy may tear a
    /// word that changes meanwhile).
    fn load(&self, w: usize) -> u64 {
        match self.net {
            None => self.words()[w].load(Ordering::Acquire),
            Some(net) => self.amo(net, w, AmoOp::Fetch),
        }
    }

    /// Stores `v` into word `w` (Release on this host; a network atomic swap across hosts, since
    /// the root may be running a compare-and-swap on the word).
    fn store(&self, w: usize, v: u64) {
        match self.net {
            None => self.words()[w].store(v, Ordering::Release),
            Some(net) => {
                self.amo(net, w, AmoOp::Set(v));
            }
        }
    }

    /// Writes the entry at word `e`: the payload, then the tag, so that a reader that sees
    /// the tag sees the payload.
    fn post_entry(&self, e: usize, payload: &[u64; E_PAYLOAD], tag: u64) {
        const _: () = assert!(E_TAG == 0 && E_HASH == E_PAYLOAD);
        self.rt.post_words(
            self.routine,
            self.root,
            &self.words()[e..=e + E_PAYLOAD],
            payload,
            tag,
            Delivery::Puts,
        );
    }

    /// Orders this member's earlier writes to the record before its later ones (across hosts a
    /// network fence; on this host every store is already in place).
    fn order_writes(&self) {
        if let Some(net) = self.net {
            if let Err(e) = net.fence() {
                crate::runtime::fatal(&e);
            }
        }
    }

    /// Words `from..to` of the record: on this host loads in order, each Acquire (so a counter
    /// is read before what it counts and a tag before its payload); across hosts one get.
    fn read(&self, from: usize, to: usize) -> Vec<u64> {
        match self.net {
            None => self.words()[from..to].iter().map(|w| w.load(Ordering::Acquire)).collect(),
            Some(net) => {
                let mut bytes = vec![0u8; (to - from) * 8];
                if let Err(e) = net.get(self.routine, self.root, Region::Ctrl, self.offset(from), &mut bytes)
                {
                    fatal(&e);
                }
                bytes.chunks_exact(8).map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes"))).collect()
            }
        }
    }
}

/// The outcome every member computes.
#[derive(Debug)]
pub enum InitOutcome {
    /// The team is made.
    Done {
        /// World PEs of the members, in team order.
        members: Vec<u32>,
        /// The team's slot.
        slot: usize,
        /// Its first epoch comes after this one.
        base_epoch: u64,
    },
    /// It is not: the same code and reason on every member.
    Failed {
        /// A `team::codes` value.
        code: u32,
        /// What went wrong.
        reason: String,
    },
}

/// One member's part in a `team_init`.
#[derive(Debug)]
pub struct Rendezvous {
    routine: &'static str,
    root: usize,
    record: usize,
    seq: u64,
    npes: usize,
    idx: usize,
    round: u64,
    candidate: usize,
    reserved: Option<usize>,
    wrote: bool,
    /// Every member has arrived (seen once; ARRIVALS does not change after that).
    arrived: bool,
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
            routine,
            root,
            record: seq as usize % RDV_RECORDS,
            seq,
            npes: npes as usize,
            idx: idx.clamp(0, npes - 1) as usize,
            round: 0,
            candidate: 0,
            reserved: None,
            wrote: false,
            arrived: false,
            local_error,
            hash,
            finished: false,
        })
    }

    /// Whether the root's record is mapped here: then every write to it rings the root's
    /// doorbell, and a waiter sleeps on that. Otherwise (the root is on another host) nothing
    /// rings a bell here when the record changes, and a waiter polls.
    pub fn root_on_this_host(&self, rt: &Runtime) -> bool {
        rt.net().is_none() || rt.topology.is_local(self.root)
    }

    /// The world PE that drew the id and hosts the record.
    pub fn root(&self) -> usize {
        self.root
    }

    fn entry_at(&self, parity: u64, i: usize) -> usize {
        RDV_FIXED_WORDS + (parity as usize * self.npes + i) * RDV_ENTRY_WORDS
    }

    fn tag(&self) -> u64 {
        (self.seq << ROUND_BITS) | (self.round & ((1 << ROUND_BITS) - 1))
    }

    fn unreserve(&mut self, rt: &Runtime) {
        if let Some(s) = self.reserved.take() {
            rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner()).unreserve(s);
        }
    }

    fn finish(&mut self, rt: &Runtime, outcome: InitOutcome) -> InitOutcome {
        let rec = Record::new(rt, self.routine, self.root, self.record);
        match &outcome {
            InitOutcome::Done { .. } => {
                if let Some(s) = self.reserved.take() {
                    rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner()).claim(s);
                }
            }
            InitOutcome::Failed { .. } => self.unreserve(rt),
        }
        self.finished = true;
        // The last member to finish frees the record for the root's next id. Every member's
        // reads of the record are complete by now; its puts (an entry of a round that failed
        // may still be on its way) land before its DONE count.
        rec.order_writes();
        let done = rec.count(DONE);
        if done >= self.npes as u64 && done >= rec.load(ARRIVALS) {
            rec.store(STATE, 0);
        }
        outcome
    }

    /// Round 0 ended with an entry missing: two members passed the same index.
    fn fail_shared_index(&mut self, rt: &Runtime) -> InitOutcome {
        let reason = format!(
            "two PEs passed the same pe_idx_in_team (or different npes): no PE wrote some index of 0..{}",
            self.npes
        );
        self.finish(rt, InitOutcome::Failed { code: codes::INVALID_ARGUMENT, reason })
    }

    /// Advances; `Some` once this member knows the outcome.
    pub fn poll(&mut self, rt: &Runtime) -> Option<InitOutcome> {
        if self.finished {
            return None;
        }
        let rec = Record::new(rt, self.routine, self.root, self.record);
        let parity = self.round & 1;
        if !self.wrote {
            let mut code = self.local_error.as_ref().map_or(0, |_| codes::INVALID_ARGUMENT as u64);
            let mut proposal = (u64::MAX, 0);
            if code == 0 {
                match rt.teams().available_slots(rt).reserve_from(self.candidate) {
                    Some((s, hw)) => {
                        self.reserved = Some(s);
                        proposal = (s as u64, hw);
                    }
                    None => code = codes::NO_SLOT as u64,
                }
            }
            // An error is raised before this member's arrival is counted (complete at the
            // root on either path), so a member that sees everybody arrived sees every error.
            if code != 0 {
                rec.raise_error(code);
            } else {
                let payload = [rt.my_pe as u64, self.npes as u64, proposal.0, proposal.1, self.hash];
                rec.post_entry(self.entry_at(parity, self.idx), &payload, self.tag());
            }
            if self.round == 0 {
                // The entry lands before the arrival counts: once everybody arrived, the
                // entries of round 0 are final (a missing one means two members share an index).
                rec.order_writes();
                rec.count(ARRIVALS);
            }
            self.wrote = true;
        }
        let (first, end) = (self.entry_at(parity, 0), self.entry_at(parity, self.npes));
        let tag = self.tag();
        let tags_present = |entries: &[u64]| entries.chunks_exact(RDV_ENTRY_WORDS).all(|e| e[E_TAG] == tag);
        // In round 0 every member posts its entry before its arrival counts, so once all have
        // arrived an entry still missing is one that two members wrote: the same pe_idx_in_team
        // (or different npes) on two PEs. Every member sees the same final record and fails
        // alike, where waiting for the missing entry would hang them all.
        let first_round = self.round == 0;
        let (error, entries) = match rec.net {
            None => {
                // ARRIVALS, then ERROR, then each tag before its payload (Acquire loads).
                let fixed = rec.read(0, RDV_FIXED_WORDS);
                self.arrived = self.arrived || fixed[ARRIVALS] >= self.npes as u64;
                if !self.arrived {
                    return None;
                }
                if fixed[ERROR] != 0 {
                    (fixed[ERROR], Vec::new())
                } else {
                    let entries = rec.read(first, end);
                    if !tags_present(&entries) {
                        if first_round {
                            return Some(self.fail_shared_index(rt));
                        }
                        return None;
                    }
                    (0, entries)
                }
            }
            Some(_) => {
                // One get; if it would decide, confirm with reads made after it completed.
                let look = rec.read(0, end);
                let arrived = self.arrived || look[ARRIVALS] >= self.npes as u64;
                if !arrived || (look[ERROR] == 0 && !tags_present(&look[first..]) && !first_round) {
                    return None;
                }
                if !self.arrived {
                    if rec.load(ARRIVALS) < self.npes as u64 {
                        return None;
                    }
                    self.arrived = true;
                }
                let look = rec.read(0, end);
                if look[ERROR] == 0 && !tags_present(&look[first..]) {
                    if first_round {
                        return Some(self.fail_shared_index(rt));
                    }
                    return None;
                }
                (look[ERROR], look[first..].to_vec())
            }
        };
        if error != 0 {
            let code = error as u32;
            let reason = self.local_error.clone().unwrap_or_else(|| match code {
                codes::NO_SLOT => "no free team slot on some member (set SHMEMX_TEAM_SLOTS)".into(),
                _ => "another member passed invalid arguments".into(),
            });
            return Some(self.finish(rt, InitOutcome::Failed { code, reason }));
        }
        let entry = |i: usize| &entries[i * RDV_ENTRY_WORDS..(i + 1) * RDV_ENTRY_WORDS];
        let members: Vec<u32> = (0..self.npes).map(|i| entry(i)[E_WORLD_PE] as u32).collect();
        let mut seen = vec![false; rt.n_pes];
        let duplicate = members.iter().any(|&m| std::mem::replace(&mut seen[m as usize], true));
        if duplicate || (0..self.npes).any(|i| entry(i)[E_NPES] != self.npes as u64) {
            let reason = if duplicate {
                "two PEs passed the same pe_idx_in_team"
            } else {
                "members passed different npes"
            };
            return Some(
                self.finish(rt, InitOutcome::Failed { code: codes::INVALID_ARGUMENT, reason: reason.into() }),
            );
        }
        if (0..self.npes).any(|i| entry(i)[E_HASH] != self.hash) {
            return Some(self.finish(
                rt,
                InitOutcome::Failed {
                    code: codes::MISMATCH,
                    reason: "members passed different arguments (checked mode)".into(),
                },
            ));
        }
        let slots: Vec<u64> = (0..self.npes).map(|i| entry(i)[E_SLOT]).collect();
        let max = *slots.iter().max().expect("a team has a member");
        if slots.iter().all(|&s| s == max) {
            let base_epoch = (0..self.npes).map(|i| entry(i)[E_HIGH_WATER]).max().unwrap_or(0);
            return Some(self.finish(rt, InitOutcome::Done { members, slot: max as usize, base_epoch }));
        }
        self.unreserve(rt);
        self.candidate = max as usize;
        self.round += 1;
        self.wrote = false;
        self.poll(rt)
    }
}
