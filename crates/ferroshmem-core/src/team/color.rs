//! The (color, key) exchange of `shmemx_team_split_color`.
//!
//! Each PE of the parent writes its entry (a tag, its color, its key) into words of its own
//! slot of the parent before it joins the slot agreement, and reads everybody's once the
//! agreement has succeeded: finishing the agreement's all-reduce needs every PE's contribution,
//! which each made after writing its entry, so every entry is there (the pattern of
//! `checked::describe_mismatch`, with the agreement in place of a sync). The PEs of other
//! hosts are read through the network, all at once (`Runtime::read_slot_words_of_all`).
//!
//! Entries are double-buffered by the parity of the parent's count of successful split_colors.
//! A PE writes the same buffer again only two successful split_colors later, and the one in
//! between cannot succeed before every PE has contributed to its agreement, which each does
//! after it has read the entries of the one before. Failed split_colors (every PE learns the
//! failure, so nobody reads) do not count, so the count is the same on every PE.

use std::sync::atomic::Ordering;

use crate::error::Error;
use crate::runtime::{fatal, Runtime};
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

/// Reads every member's entry of this round (after the agreement succeeded).
pub fn read_all(
    rt: &Runtime,
    routine: &'static str,
    parent: &TeamInner,
    round: Round,
) -> Vec<(Option<u32>, i64)> {
    let n = parent.n_pes();
    let pes: Vec<usize> = (0..n).map(|i| parent.pes.world_pe(i)).collect();
    // Every entry of another host by a get, all in flight at once: one round trip (across
    // 2 x 2 split_color + destroy took 240-460 us with one get after another).
    let all = rt.read_slot_words_of_all(routine, &pes, parent.slot, round.word, ENTRY_WORDS);
    let mut entries = Vec::with_capacity(n);
    for (i, words) in all.iter().enumerate() {
        let mut w = [0u64; ENTRY_WORDS];
        w.copy_from_slice(words);
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
        let color = w[1].checked_sub(1).map(|c| c as u32);
        entries.push((color, w[2] as i64));
    }
    entries
}

/// Counts a successful split_color on `parent` (every PE of the parent, after reading).
pub fn done(parent: &TeamInner) {
    parent.color_splits.fetch_add(1, Ordering::Relaxed);
}
