//! The (color, key) exchange of `shmemx_team_split_color`.
//!
//! Each PE of the parent writes its entry (a tag, its color, its key) into words of its own
//! slot of the parent before it joins the slot agreement, and reads everybody's once the
//! agreement has succeeded: finishing the agreement's all-reduce needs every PE's contribution,
//! which each made after writing its entry, so every entry is there (the pattern of
//! `checked::describe_mismatch`, with the agreement in place of a sync).
//!
//! On one host every PE reads every entry ([`read_all`]). Across hosts the entries move
//! hierarchically ([`HostExchange`], the parent's next collective operation, on every PE of
//! the parent whatever its color, through `team::host_allgather`): each leader reads its
//! host's entries, the leaders all-gather them by Bruck's exchange (ceil(log2 L) network
//! steps among the L leaders, no network traffic from any other PE), and each leader hands
//! the whole table to its host's members. Reading every entry of another host by a get from every
//! PE took n² round trips and an endpoint from every PE to every PE: split_color + destroy
//! over 64 simulated hosts took 42-61 ms against split_strided's 5 ms. Beyond what the
//! staging areas' part for the all-gathers holds (1 024 members: [`hierarchical`]), the gets.
//!
//! Entries are double-buffered by the parity of the parent's count of successful split_colors.
//! A PE writes the same buffer again only two successful split_colors later, and the one in
//! between cannot succeed before every PE has contributed to its agreement, which each does
//! after it has read the entries of the one before. Failed split_colors (every PE learns the
//! failure, so nobody reads) do not count, so the count is the same on every PE.

use std::sync::atomic::Ordering;

use crate::error::Error;
use crate::runtime::{fatal, Runtime};
use crate::team::across_hosts::Op;
use crate::team::host_allgather::HostAllgather;
use crate::team::host_groups::{HostGroups, Shape};
use crate::team::leaders_allgather;
use crate::team::TeamInner;

use crate::team::slot_layout::{COLOR_ENTRY_WORDS as ENTRY_WORDS, W_COLOR};

/// Where this split's entries go: the buffer and the tag that marks them as this split's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    word: usize,
    tag: u64,
}

impl Round {
    /// The round of the next split_color on `parent`.
    pub fn next(parent: &TeamInner) -> Round {
        let done = parent.color_splits.load(Ordering::Relaxed);
        Round { word: W_COLOR + (done & 1) as usize * ENTRY_WORDS, tag: done + 1 }
    }
}

/// Writes this PE's entry into its slot of `parent`.
pub fn publish(rt: &Runtime, parent: &TeamInner, round: Round, color: Option<u32>, key: i64) {
    let words = &rt.ctrl.slot(rt.my_pe, parent.slot)[round.word..round.word + ENTRY_WORDS];
    words[1].store(color.map_or(0, |c| c as u64 + 1), Ordering::Relaxed);
    words[2].store(key as u64, Ordering::Relaxed);
    words[0].store(round.tag, Ordering::Release);
}

/// A member's entry: its color, if defined, and its key.
pub type Entry = (Option<u32>, i64);

/// Words of an entry that the hierarchical exchange carries (its color and key; the tag is
/// checked where the entry is read from its PE's slot).
const CARRIED_WORDS: usize = 2;

/// Whether the entries of a split_color over a parent of these host groups move
/// hierarchically ([`HostExchange`]): the one place where the form is chosen, the same on
/// every PE of the parent.
pub fn hierarchical(groups: &HostGroups) -> bool {
    leaders_allgather::fits(&Shape::of(groups), CARRIED_WORDS)
}

/// Member `i`'s entry from its words of this round (the tag first), or a stop of the job when
/// they are not this round's.
fn entry_of(routine: &'static str, parent: &TeamInner, round: Round, i: usize, w: &[u64]) -> Entry {
    if w[0] != round.tag {
        // Cannot happen while the PEs of the parent make its creations in the same order
        // (see the module docs): stop the job rather than make a wrong team.
        fatal(&Error::invalid(
            routine,
            "parent_team",
            format!(
                "PE {i} of {} published the entry of split_color {} where {} was expected (creations on the parent in different orders?)",
                parent.name(),
                w[0],
                round.tag
            ),
        ));
    }
    decode(w[1], w[2])
}

fn decode(color: u64, key: u64) -> Entry {
    (color.checked_sub(1).map(|c| c as u32), key as i64)
}

/// Reads every member's entry of this round (after the agreement succeeded).
pub fn read_all(rt: &Runtime, routine: &'static str, parent: &TeamInner, round: Round) -> Vec<Entry> {
    let n = parent.n_pes();
    let pes: Vec<usize> = (0..n).map(|i| parent.pes.world_pe(i)).collect();
    // Every entry of another host by a get, all in flight at once: one round trip (across
    // 2 x 2 split_color + destroy took 240-460 us with one get after another).
    let all = rt.read_slot_words_of_all(routine, &pes, parent.slot, round.word, ENTRY_WORDS);
    all.iter().enumerate().map(|(i, words)| entry_of(routine, parent, round, i, words)).collect()
}

/// The hierarchical exchange of the entries over a parent across hosts, as a state machine
/// (a non-blocking creation polls it): the parent's next collective operation after the
/// agreement, on every PE of the parent, an all-gather of each member's color and key in two
/// levels (`team::host_allgather`), the leaders reading their members' entries from their
/// slots (tag-checked).
#[derive(Debug)]
pub struct HostExchange {
    epoch: u64,
    gather: HostAllgather,
    entries: Option<Vec<Entry>>,
}

impl HostExchange {
    /// Starts the exchange as `parent`'s next collective operation.
    pub fn start(parent: &TeamInner) -> Self {
        HostExchange { epoch: parent.next_epoch(), gather: HostAllgather::new(CARRIED_WORDS), entries: None }
    }

    /// Advances as far as it can without waiting; the entries once this PE has them all.
    pub fn poll(
        &mut self,
        rt: &Runtime,
        routine: &'static str,
        parent: &TeamInner,
        groups: &HostGroups,
        round: Round,
    ) -> Option<Vec<Entry>> {
        if self.entries.is_none() {
            let op = Op { rt, team: parent, groups, routine, epoch: self.epoch, local_waits: true };
            // Every member published its entry before it joined the agreement, which
            // succeeded: each entry is in place (and its owner writes that buffer again only
            // two split_colors later: see the module docs).
            let read = |i: usize, out: &mut Vec<u64>| {
                let words = &rt.ctrl.slot(op.pe(i), parent.slot)[round.word..round.word + ENTRY_WORDS];
                let w: Vec<u64> = words.iter().map(|w| w.load(Ordering::Acquire)).collect();
                let (color, key) = entry_of(routine, parent, round, i, &w);
                out.extend([color.map_or(0, |c| c as u64 + 1), key as u64]);
            };
            self.entries = self
                .gather
                .poll(&op, read)
                .map(|table| table.chunks_exact(CARRIED_WORDS).map(|w| decode(w[0], w[1])).collect());
            if self.entries.is_none() {
                // What this PE waits for needs other PEs to run (its leader, the other
                // leaders), and a program may poll a non-blocking creation in a tight loop:
                // give the core away.
                std::thread::yield_now();
            }
        }
        self.entries.take()
    }
}

/// Counts a successful split_color on `parent` (every PE of the parent, after reading).
pub fn done(parent: &TeamInner) {
    parent.color_splits.fetch_add(1, Ordering::Relaxed);
}
