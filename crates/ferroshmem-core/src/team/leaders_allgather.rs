//! All-gather of words among the leaders of a team's hosts by Bruck's exchange, as a state
//! machine: the leaders' level of `team::host_allgather` (a collect's counts, a split_color's
//! entries).
//!
//! Each group's block is `per_member` words for each of its members. In step `s` a leader
//! sends the blocks of the `min(2^s, L - 2^s)` groups from its own on to the leader `2^s`
//! groups back, and receives those of the leader `2^s` groups on: `ceil(log2 L)` steps, one
//! message each. Messages land in the receiver's staging area from [`WORDS_AT`] on (step `s`
//! after the bounds of the steps before, [`step_bound`]), flagged in its `FROM_BELOW + s`,
//! once it raised this leader's `FROM_ABOVE + s` in this operation (which it does when it
//! begins): nobody writes there before the receiver has entered the operation, so it has
//! finished reading the last one. No other form of a team across hosts uses that part of the
//! staging area.
use std::sync::atomic::Ordering;

use crate::runtime::FlagWord;
use crate::team::across_hosts::{Op, FROM_ABOVE, FROM_BELOW};
use crate::team::host_groups::Shape;
use crate::team::tree;

/// Where the all-gathers' messages land in a staging area (after the part that the staged
/// exchanges of `coll::hier` use), and where a leader leaves the whole result for its members.
pub(crate) const WORDS_AT: usize = 64 << 10;
/// Bytes of the staging area from [`WORDS_AT`] that the all-gathers may use.
pub(crate) const WORDS_BYTES: usize = 16 << 10;

/// Whether an all-gather of `per_member` words per member fits a team of this shape: the
/// whole result (for the members) and the messages of all the steps (on a leader) each fit
/// [`WORDS_BYTES`]. The same answer on every member.
pub(crate) fn fits(shape: &Shape, per_member: usize) -> bool {
    let bytes = |count: usize| count.checked_mul(per_member).and_then(|w| w.checked_mul(8));
    shape.hosts >= 2
        && bytes(shape.members).is_some_and(|b| b <= WORDS_BYTES)
        && (shape.hosts - 1).checked_mul(shape.widest).and_then(bytes).is_some_and(|b| b <= WORDS_BYTES)
}

/// The most bytes step `s` carries: `min(2^s, L - 2^s)` groups' blocks, at most `widest`
/// members of `per_member` words each. The steps' bounds add up to `(L - 1) widest
/// per_member` words.
pub(crate) fn step_bound(shape: &Shape, per_member: usize, s: usize) -> usize {
    (1usize << s).min(shape.hosts - (1 << s)) * shape.widest * per_member * 8
}

/// Where one leader's all-gather stands.
#[derive(Debug)]
pub(crate) struct LeadersAllgather {
    per_member: usize,
    /// Whether this leader raised the words that let the others send to it.
    entered: bool,
    /// The step in progress, and whether its message went.
    step: usize,
    sent: bool,
    /// Where the current step's message lands in the staging area.
    offset: usize,
    /// The team's shape (for the steps' bounds), taken when this leader enters.
    shape: Option<Shape>,
}

impl LeadersAllgather {
    pub(crate) fn new(per_member: usize) -> Self {
        LeadersAllgather { per_member, entered: false, step: 0, sent: false, offset: WORDS_AT, shape: None }
    }

    /// Advances as far as it can without waiting, on a leader whose `blocks` (indexed by
    /// group) holds its own group's block; true once it holds every group's. The caller
    /// checked [`fits`].
    pub(crate) fn poll(&mut self, op: &Op<'_>, blocks: &mut [Vec<u64>]) -> bool {
        let (l, r) = (op.groups.len(), op.groups.mine());
        let steps = tree::depth(l) as usize;
        if !self.entered {
            for s in 0..steps {
                op.raise((r + (1 << s)) % l, FROM_ABOVE + s);
            }
            self.entered = true;
        }
        let shape = *self.shape.get_or_insert_with(|| Shape::of(op.groups));
        while self.step < steps {
            let s = self.step;
            let dist = 1usize << s;
            let count = dist.min(l - dist);
            if !self.sent {
                if !op.raised(FROM_ABOVE + s) {
                    return false;
                }
                let mut message = Vec::with_capacity(step_bound(&shape, self.per_member, s));
                for d in 0..count {
                    for w in &blocks[(r + d) % l] {
                        message.extend_from_slice(&w.to_ne_bytes());
                    }
                }
                op.rt.put_stage_flagged(
                    op.routine,
                    op.leader_of((r + l - dist) % l),
                    op.team.slot,
                    self.offset,
                    &message,
                    FlagWord::Slot(FROM_BELOW + s),
                    op.flag_value(0),
                );
                self.sent = true;
            }
            if !op.raised(FROM_BELOW + s) {
                return false;
            }
            let stage = op.rt.stage_addr(op.team.slot) + self.offset;
            let mut word = 0;
            for d in 0..count {
                let g = (r + dist + d) % l;
                let len = op.groups.members(g).len() * self.per_member;
                // SAFETY: step s's message landed in our staging area (its flag is up): the
                // blocks of `count` groups, `len` words each, within the step's bound (inside
                // WORDS_BYTES: `fits`); nobody writes there before we raise this step's word
                // in a later operation.
                let words = unsafe { std::slice::from_raw_parts((stage as *const u64).add(word), len) };
                blocks[g] = words.to_vec();
                word += len;
            }
            self.offset += step_bound(&shape, self.per_member, s);
            self.step += 1;
            self.sent = false;
        }
        true
    }
}

impl Op<'_> {
    /// Whether this leader's word `w` reached this operation's value (the test of
    /// [`Op::wait_raised`]).
    pub(crate) fn raised(&self, w: usize) -> bool {
        self.word(self.rt.my_pe, w).load(Ordering::Acquire) >= self.flag_value(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bounds_add_up_to_every_other_group() {
        for per_member in [1, 2] {
            for widest in [1, 3] {
                for l in 2..300 {
                    let s = Shape::uniform(l, widest);
                    let total: usize =
                        (0..tree::depth(l) as usize).map(|k| step_bound(&s, per_member, k)).sum();
                    assert_eq!(total, (l - 1) * widest * per_member * 8, "{l} x {widest}");
                }
            }
        }
    }

    #[test]
    fn fits_up_to_the_region() {
        assert!(fits(&Shape::uniform(2048, 1), 1));
        assert!(!fits(&Shape::uniform(2049, 1), 1));
        assert!(fits(&Shape::uniform(1024, 1), 2));
        assert!(!fits(&Shape::uniform(1025, 1), 2));
        assert!(fits(&Shape::uniform(2, 512), 2));
        assert!(!fits(&Shape::uniform(2, 513), 2));
        assert!(!fits(&Shape::uniform(1, 4), 1));
    }
}
