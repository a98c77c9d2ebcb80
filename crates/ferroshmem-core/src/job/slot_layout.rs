//! Where every word of a team slot lies, in one place. A slot (`job::slot_words` words of a
//! PE's control block) holds everything a team's synchronisation needs on that PE; the
//! modules that use a field import it from here, and [`FIELDS`] lists them all so that a
//! compile-time check proves no two overlap (the one intended alias, the all-reduce result
//! of teams across hosts in the central mailbox, is named as such below).
//!
//! Words after [`SLOT_HOST_WORDS`] are used only by teams whose members span hosts, and hold
//! nothing but epochs and epoch-tagged counts (see `coll::hier`). After [`SLOT_FIXED_WORDS`]
//! come the mailboxes of the dissemination all-reduce (`job::slot_words`).

use crate::job::MAILBOX_WORDS;

/// Words of the dissemination sync, one per round (up to 2^32 PEs).
pub(crate) const SYNC_ROUNDS: usize = 32;
/// (On member 0) the arrivals of the central sync, a tagged count.
pub(crate) const CENTRAL_ARRIVALS: usize = SYNC_ROUNDS;
/// (On every member) the last epoch at which it arrived in a central sync.
pub(crate) const CENTRAL_ARRIVED: usize = SYNC_ROUNDS + 4;
/// (On member 0) the last released epoch of the central sync.
pub(crate) const CENTRAL_RELEASE: usize = SYNC_ROUNDS + 8;
/// Checked mode: where PEs publish their call (routine, argument count, arguments) when a
/// mismatch is found (`team::checked`).
pub(crate) const CHECKED_ARGS: usize = 48;
/// Arguments a checked-mode signature can carry.
pub(crate) const MAX_ARGS: usize = 12;
/// The epoch of the collective a member has entered (`coll`).
pub(crate) const W_ARRIVE: usize = 64;
/// A value a member publishes for the current collective (collect: its count).
pub(crate) const W_WORD: usize = 72;
/// (Private to their owner) the last epoch that wrote this PE's scratch ring, and the entry
/// size (words) of that write.
pub(crate) const W_LAST: usize = 73;
/// The epoch of the collective a member has started (set before any wait, so a PE waiting for
/// it never waits on a PE that waits for it).
pub(crate) const W_ENTER: usize = 75;
/// (Private to their owner) the last epoch that wrote this PE's staged broadcast ring, and the
/// entry size (bytes) of that write.
pub(crate) const W_STAGE_LAST: usize = 76;
/// The blocks other members pushed into this PE's destination in the current collective, a
/// tagged count (a cache line of its own).
pub(crate) const W_DELIVERED: usize = 80;
/// (On member 0) the members that have entered the current in-order alltoall, a bit each
/// (`coll::Group::enter_in_order`); the last to enter clears it (a cache line of its own).
pub(crate) const W_ENTRANTS: usize = 88;
/// The two buffers of `split_color` entries (`team::color`).
pub(crate) const W_COLOR: usize = 96;
/// Words of one `split_color` entry: tag, color + 1 (0: undefined), key.
pub(crate) const COLOR_ENTRY_WORDS: usize = 4;
/// The team's description for hang reports (how it was made; `activity`), written by each
/// member into its own slot when the team is made.
pub(crate) const W_DESC: usize = 104;
/// Words of the description.
pub(crate) const DESC_WORDS: usize = 8;
/// Release signals: every other member of a team destroyed without a sync adds one here
/// when it is done with the team (`team::release`), by a store or a counted message.
pub(crate) const W_RELEASED: usize = 112;
/// The scratch ring of eager collectives.
pub(crate) const W_SCRATCH: usize = 128;
/// Words of the scratch ring: entries of the payload's size, one per eager collective in turn
/// (64 entries of an 8-byte payload: how far a small broadcast's root may run ahead).
pub(crate) const SCRATCH_WORDS: usize = 128;
/// The central mailbox (member 0's is used): two halves used in turn.
pub(crate) const W_CENTRAL: usize = 256;
/// Words of the central mailbox.
pub(crate) const CENTRAL_WORDS: usize = 128;
/// First word used only by teams whose members span hosts. Nothing but epochs (and
/// epoch-tagged counts) is ever written from there on, by any team: a new team on the slot
/// starts above every epoch its members' slots have seen, so a word left by an older team
/// never looks like a new team's signal.
pub(crate) const SLOT_HOST_WORDS: usize = 384;
/// (Teams across hosts, on a hub) the local members done reading its buffers, a tagged count.
pub(crate) const W_DONE: usize = SLOT_HOST_WORDS;
/// (Teams across hosts, on a leader) the epoch of the team-creation all-reduce whose result
/// it published for its host (`team::agree`).
pub(crate) const W_AGREE_RESULT: usize = SLOT_HOST_WORDS + 1;
/// (Teams across hosts) where a leader publishes the all-reduce result for its host's
/// members: the central mailbox, which such a team uses for nothing else (the alias).
pub(crate) const AGREE_RESULT_WORDS: usize = W_CENTRAL;
/// (Teams across hosts) the counted messages this PE received (`coll::hier`).
pub(crate) const W_COUNTED: usize = SLOT_HOST_WORDS + 2;
/// (Teams across hosts) the put flags, one per host group.
pub(crate) const W_FLAGS: usize = SLOT_HOST_WORDS + 8;
/// (Teams across hosts) the signals of the leaders' trees (`coll::hier::wide`), indexed by
/// the distance to the writer: 32 from the leaders after this one, 32 from those before.
pub(crate) const W_TREE: usize = 512;
/// Words of the trees' signals.
pub(crate) const TREE_WORDS: usize = 64;
/// Words of a slot before its mailboxes.
pub(crate) const SLOT_FIXED_WORDS: usize = W_TREE + TREE_WORDS;
/// Most host groups for which the hierarchical algorithms give each group flag words (three
/// each); over more hosts every collective takes the leaders' trees (`coll::hier::wide`).
pub(crate) const MAX_GROUPS: usize = (W_TREE - W_FLAGS) / 3;
/// (Teams across hosts) the message flags, two per host group (one per parity of the staged
/// exchanges). Apart from [`W_FLAGS`]: a word written by messages is never written by a put.
pub(crate) const W_MSG_FLAGS: usize = W_FLAGS + MAX_GROUPS;

/// Every field of the fixed part of a slot: (name, first word, words).
pub(crate) const FIELDS: &[(&str, usize, usize)] = &[
    ("dissemination sync", 0, SYNC_ROUNDS),
    ("central arrivals", CENTRAL_ARRIVALS, 1),
    ("central arrived", CENTRAL_ARRIVED, 1),
    ("central release", CENTRAL_RELEASE, 1),
    ("checked-mode arguments", CHECKED_ARGS, 2 + MAX_ARGS),
    ("arrive", W_ARRIVE, 1),
    ("word", W_WORD, 1),
    ("scratch ring's last write", W_LAST, 2),
    ("enter", W_ENTER, 1),
    ("staged ring's last write", W_STAGE_LAST, 2),
    ("delivered", W_DELIVERED, 8),
    ("alltoall entrants", W_ENTRANTS, 8),
    ("split_color entries", W_COLOR, 2 * COLOR_ENTRY_WORDS),
    ("team description", W_DESC, DESC_WORDS),
    ("release signals", W_RELEASED, 1),
    ("scratch ring", W_SCRATCH, SCRATCH_WORDS),
    ("central mailbox", W_CENTRAL, CENTRAL_WORDS),
    ("done", W_DONE, 1),
    ("agreement result", W_AGREE_RESULT, 1),
    ("counted", W_COUNTED, 1),
    ("put flags", W_FLAGS, MAX_GROUPS),
    ("message flags", W_MSG_FLAGS, 2 * MAX_GROUPS),
    ("tree signals", W_TREE, TREE_WORDS),
];

/// Whether `fields` lie within `0..end` and no two of them share a word.
const fn disjoint_within(fields: &[(&str, usize, usize)], end: usize) -> bool {
    let mut i = 0;
    while i < fields.len() {
        let (_, a, n) = fields[i];
        if n == 0 || a + n > end {
            return false;
        }
        let mut j = i + 1;
        while j < fields.len() {
            let (_, b, m) = fields[j];
            if a < b + m && b < a + n {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

const _: () = assert!(disjoint_within(FIELDS, SLOT_FIXED_WORDS));
// The words of teams across hosts come after every other field.
const _: () = assert!(W_CENTRAL + CENTRAL_WORDS <= SLOT_HOST_WORDS);
// A mailbox is two cache lines.
const _: () = assert!(MAILBOX_WORDS == 16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overlap_is_caught() {
        assert!(disjoint_within(FIELDS, SLOT_FIXED_WORDS));
        assert!(!disjoint_within(&[("a", 0, 4), ("b", 3, 1)], 8));
        assert!(!disjoint_within(&[("a", 6, 4)], 8));
        assert!(disjoint_within(&[("a", 0, 4), ("b", 4, 4)], 8));
    }
}
