//! Which form each hierarchical collective takes: pure functions of the team's shape (its
//! host groups), the operation's size and the settings every PE shares, the one place where
//! the choice is made (issue 28 item 2, issue 30), but for its first step: whether the
//! leaders' trees carry the collective is the shape's own answer ([`Shape::takes_trees`], in
//! `team::host_groups`), since a team's set-up needs it to connect to the leaders it will talk
//! to. Every member computes the same answer from the same shape and arguments, so they all
//! take the same form. The measurements behind each bound are in the doc comments of its
//! constant and in docs/ARCHITECTURE.md.

use super::{HIER_STAGE_BYTES, SHARED_STAGE_BYTES};
pub(crate) use crate::team::host_groups::{Collective, Shape};
use crate::team::leaders_allgather;
use crate::team::tree;

/// Half of the staging area that staged exchanges use (alternating halves).
pub(super) const STAGE_HALF: usize = HIER_STAGE_BYTES / 2;
/// Results up to this size are copied by the leader into its host's members' destinations
/// (one copy each, no reply) instead of being read by them from the leader's (which then
/// waits for each member to say it is done: two more hand-overs between PEs of a host).
pub(super) const PUSH_MAX: usize = 32 << 10;
/// Broadcasts up to this size go through the staging areas, half an area per chunk (each
/// chunk a staged exchange, so the root's leader sends chunk c + 1 while the others copy
/// chunk c); larger ones go straight into the destinations once the receiving leaders
/// entered.
pub(super) const STAGED_BROADCAST_MAX: usize = 4 * STAGE_HALF;
/// Bytes of an entry of the small broadcasts' rings (`broadcast::broadcast_ring`): the
/// largest broadcast that takes them.
pub(super) const RING_ENTRY_BYTES: usize = 4 << 10;
/// Levels of the rings' trees that have credit words (`broadcast::RING_CREDIT_WORDS`): up
/// to 2^40 hosts.
pub(crate) const RING_CREDIT_LEVELS: usize = 40;
/// Bits of a flag value below the epoch: the chunk of a reduction (`Op::flag_value`).
pub(super) use crate::team::across_hosts::CHUNK_BITS;

// The part of the staging area after the staged exchanges' halves is that of the leaders'
// all-gathers of words (`team::leaders_allgather`: a collect's counts, a split_color's entries).
const _: () = assert!(
    leaders_allgather::WORDS_AT == HIER_STAGE_BYTES
        && leaders_allgather::WORDS_AT + leaders_allgather::WORDS_BYTES == SHARED_STAGE_BYTES,
    "the all-gathers' part of the staging area lies between the staged exchanges' halves and the rings"
);

/// The largest partial of an eager reduction up the leaders' tree (`wide::reduce_eager`).
pub(crate) const EAGER_PARTIAL_BYTES: usize = 128;
/// Where a leader's parts for its children's eager partials begin in its staging area (the
/// small broadcasts' ring header page, after the ring's words: `broadcast` checks that they
/// do not meet).
pub(crate) const EAGER_PARTIALS_AT: usize = SHARED_STAGE_BYTES + 1024;
/// Children a leader has parts for: trees of up to 2^24 hosts.
pub(crate) const EAGER_PARTIAL_CHILDREN: u32 = 24;
/// Bytes of a leader's region for its children's eager data (`wide::reduce_eager`'s parts;
/// `wide::gather_eager` packs its children's subtrees in it): the largest eager gather.
pub(crate) const EAGER_REGION_BYTES: usize = EAGER_PARTIAL_CHILDREN as usize * EAGER_PARTIAL_BYTES;

/// The forms of a broadcast of `nbytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BroadcastForm {
    /// The small broadcasts' rings (`broadcast::broadcast_ring`), unless turned off.
    Ring,
    /// Staged exchanges, half a staging area per chunk.
    Staged,
    /// Counted messages from the root's leader into every other leader's destination.
    Counted,
    /// Down the leaders' tree rooted at the root's host.
    Tree,
}

/// A broadcast's form (`rings`: `FSH_HIER_BROADCAST_RING` is not 0).
pub(crate) fn broadcast(shape: &Shape, nbytes: usize, rings: bool) -> BroadcastForm {
    if nbytes <= RING_ENTRY_BYTES && rings && tree::depth(shape.hosts) as usize <= RING_CREDIT_LEVELS {
        BroadcastForm::Ring
    } else if shape.takes_trees(Collective::Broadcast) {
        BroadcastForm::Tree
    } else if nbytes <= STAGED_BROADCAST_MAX {
        BroadcastForm::Staged
    } else {
        BroadcastForm::Counted
    }
}

/// The forms of a reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReduceForm {
    /// Chunk by chunk through staged exchanges, `chunks` of them.
    Staged { chunk: usize, chunks: u64 },
    /// The partial results straight into destinations, after a meeting of the leaders (l - 1
    /// network steps, one at two hosts, in place of `chunks` staged exchanges).
    Direct { chunk: usize, chunks: u64 },
    /// Up and down the leaders' tree.
    Tree,
    /// Up the leaders' tree eagerly, partials of at most [`EAGER_PARTIAL_BYTES`], then down
    /// (`wide::reduce_eager`).
    EagerTree,
    /// More chunks than a flag can number.
    TooLarge,
}

/// A reduction's form, for `count` elements of `size` bytes.
pub(crate) fn reduce(shape: &Shape, count: usize, size: usize) -> ReduceForm {
    if shape.takes_trees(Collective::Reduce) {
        let eager = count.checked_mul(size).is_some_and(|b| b <= EAGER_PARTIAL_BYTES)
            && tree::depth(shape.hosts) <= EAGER_PARTIAL_CHILDREN;
        return if eager { ReduceForm::EagerTree } else { ReduceForm::Tree };
    }
    let l = shape.hosts;
    let chunk = (STAGE_HALF / l / size.max(1)).max(1);
    let chunks = count.div_ceil(chunk);
    if chunks >= 1 << (CHUNK_BITS - 1) {
        return ReduceForm::TooLarge;
    }
    let chunks = chunks as u64;
    if chunks > 1 && (l == 2 || chunks > l as u64) {
        ReduceForm::Direct { chunk, chunks }
    } else {
        ReduceForm::Staged { chunk, chunks }
    }
}

/// The forms of an fcollect of `all` bytes in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FcollectForm {
    /// Every leader's host blocks to every other leader in one staged exchange.
    Staged,
    /// Counted messages into the other leaders' destinations once they met.
    Counted,
    /// Up and down the leaders' tree.
    Tree,
    /// Up the leaders' tree eagerly, a result of at most [`EAGER_REGION_BYTES`], then down
    /// (`wide::gather_eager`).
    EagerTree,
}

/// Whether a gather up the leaders' tree of a result of `all` bytes goes eagerly.
pub(crate) fn gather_is_eager(all: usize) -> bool {
    all <= EAGER_REGION_BYTES
}

/// An fcollect's form.
pub(crate) fn fcollect(shape: &Shape, all: usize) -> FcollectForm {
    if shape.takes_trees(Collective::Fcollect) {
        if gather_is_eager(all) {
            FcollectForm::EagerTree
        } else {
            FcollectForm::Tree
        }
    } else if all <= STAGE_HALF {
        FcollectForm::Staged
    } else {
        FcollectForm::Counted
    }
}

/// The forms of an alltoall of `block`-byte blocks (`all` bytes per member).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AlltoallForm {
    /// Each leader sends each other leader its host's blocks for that host in one message.
    ByHost,
    /// Each leader sends each member of the other hosts its host's blocks for it.
    Staged,
    /// Bruck's exchange among the leaders (`wide::alltoall`), its steps laid out so.
    Bruck(BruckSteps),
    /// Every PE sends its own blocks into their destinations once the leaders met.
    Counted,
}

/// Where the steps of Bruck's alltoall among the leaders land in the receivers' staging
/// areas (`wide::alltoall`), within their first `HIER_STAGE_BYTES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BruckSteps {
    /// Each of the `steps` has a slice of its own, and a leader lets every step send to it
    /// when it begins: where a step's message fits its slice.
    Slices { steps: usize },
    /// The steps alternate the two halves, and a leader lets step `s + 2` send only once it
    /// has read step `s`'s message out of their half: room for 3-6 × larger steps, for one
    /// more "you may send" on the way of each step after the second (over 16 simulated hosts
    /// the 8- and 64-byte alltoalls took 1.3-1.4 × longer so, where the 4 KiB one took 0.57 ×).
    Halves,
}

impl BruckSteps {
    /// Where step `s`'s message lands.
    pub(crate) fn at(self, s: usize) -> usize {
        match self {
            BruckSteps::Slices { steps } => s * (HIER_STAGE_BYTES / steps),
            BruckSteps::Halves => (s % 2) * STAGE_HALF,
        }
    }

    /// How many steps a leader lets send when it begins (the others: step `s + 2` once it
    /// read step `s`).
    pub(crate) fn let_send_first(self) -> usize {
        match self {
            BruckSteps::Slices { steps } => steps,
            BruckSteps::Halves => 2,
        }
    }
}

/// How Bruck's alltoall of `block`-byte blocks lays out its steps over a team of this shape,
/// if a step's bound (`ceil(L / 2)` host-pair parts of at most `widest^2` blocks each) fits
/// at all: slices while it fits a step's slice, else halves.
pub(crate) fn bruck_steps(shape: &Shape, block: usize) -> Option<BruckSteps> {
    let (l, widest) = (shape.hosts, shape.widest);
    let steps = tree::depth(l).max(1) as usize;
    let bound = l.div_ceil(2).checked_mul(widest * widest).and_then(|b| b.checked_mul(block))?;
    if bound <= HIER_STAGE_BYTES / steps {
        Some(BruckSteps::Slices { steps })
    } else if bound <= STAGE_HALF {
        Some(BruckSteps::Halves)
    } else {
        None
    }
}

/// An alltoall's form. Bruck's exchange over many hosts when every step's message fits the
/// staging area ([`bruck_steps`]).
pub(crate) fn alltoall(shape: &Shape, block: usize, all: usize) -> AlltoallForm {
    let widest = shape.widest;
    if shape.takes_trees(Collective::Alltoall) {
        match bruck_steps(shape, block) {
            Some(steps) => AlltoallForm::Bruck(steps),
            None => AlltoallForm::Counted,
        }
    } else if all.checked_mul(widest).is_some_and(|b| b <= STAGE_HALF) {
        AlltoallForm::ByHost
    } else if all <= STAGE_HALF {
        AlltoallForm::Staged
    } else {
        AlltoallForm::Counted
    }
}

/// Whether a collect is hierarchical (`hier::collect`): every member's count fits the staging
/// area's part for the counts, and so do the leaders' steps (their bounds add up to
/// (L - 1) × widest words; `leaders_allgather::fits`). Beyond (2 048 members, or hosts of
/// more than 16 KiB / 8 / (L - 1) PEs) collect stays flat.
pub(crate) fn collect_is_hierarchical(shape: &Shape) -> bool {
    leaders_allgather::fits(shape, 1)
}

/// Whether the leader pushes a result of `bytes` into its members' destinations.
pub(crate) fn push(bytes: usize) -> bool {
    bytes <= PUSH_MAX
}

/// Elements per window of a strided alltoall across hosts (`blocks::Blocks::window`): the
/// most, up to `nelems`, whose packed blocks (`elem` bytes each, over `n` members) take a form
/// that carries them through the staging areas, since the counted form sends straight into
/// contiguous destinations; 1 when not even one element per block fits (a window of one
/// element is contiguous, and takes the counted form).
pub(crate) fn alltoalls_window(shape: &Shape, n: usize, elem: usize, nelems: usize) -> usize {
    let fits = |len: usize| {
        len.checked_mul(elem)
            .and_then(|block| Some((block, block.checked_mul(n)?)))
            .is_some_and(|(block, all)| alltoall(shape, block, all) != AlltoallForm::Counted)
    };
    if nelems <= 1 || !fits(1) {
        return 1;
    }
    // The forms only grow towards counted with the block, so the fitting lengths are 1..=len.
    let (mut lo, mut hi) = (1, nelems);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_forms_by_size() {
        let s = Shape::uniform(4, 2);
        assert_eq!(broadcast(&s, 8, true), BroadcastForm::Ring);
        assert_eq!(broadcast(&s, 8, false), BroadcastForm::Staged);
        assert_eq!(broadcast(&s, RING_ENTRY_BYTES + 1, true), BroadcastForm::Staged);
        assert_eq!(broadcast(&s, STAGED_BROADCAST_MAX + 1, true), BroadcastForm::Counted);
        // The rings have no cap on hosts; without them, the trees over many hosts.
        assert_eq!(broadcast(&Shape::uniform(64, 1), 8, true), BroadcastForm::Ring);
        assert_eq!(broadcast(&Shape::uniform(64, 1), 8, false), BroadcastForm::Tree);
        assert_eq!(broadcast(&Shape::uniform(64, 1), RING_ENTRY_BYTES + 1, true), BroadcastForm::Tree);
    }

    #[test]
    fn reductions_go_direct_when_chunks_outnumber_hosts() {
        let s = Shape::uniform(4, 2);
        assert!(matches!(reduce(&s, 1, 4), ReduceForm::Staged { chunks: 1, .. }));
        let chunk = STAGE_HALF / 4 / 4;
        assert!(matches!(reduce(&s, chunk * 4, 4), ReduceForm::Staged { chunks: 4, .. }));
        assert!(matches!(reduce(&s, chunk * 5, 4), ReduceForm::Direct { chunks: 5, .. }));
        assert!(matches!(reduce(&Shape::uniform(2, 1), chunk * 2 * 2, 4), ReduceForm::Direct { .. }));
        assert_eq!(reduce(&Shape::uniform(16, 1), 1, 4), ReduceForm::EagerTree);
        assert_eq!(reduce(&Shape::uniform(16, 1), EAGER_PARTIAL_BYTES / 4, 4), ReduceForm::EagerTree);
        assert_eq!(reduce(&Shape::uniform(16, 1), EAGER_PARTIAL_BYTES / 4 + 1, 4), ReduceForm::Tree);
        assert_eq!(reduce(&s, usize::MAX / 4, 4), ReduceForm::TooLarge);
    }

    #[test]
    fn small_fcollects_over_many_hosts_go_eagerly() {
        assert_eq!(fcollect(&Shape::uniform(64, 1), 64 * 8), FcollectForm::EagerTree);
        assert_eq!(fcollect(&Shape::uniform(64, 1), EAGER_REGION_BYTES), FcollectForm::EagerTree);
        assert_eq!(fcollect(&Shape::uniform(64, 1), EAGER_REGION_BYTES + 1), FcollectForm::Tree);
        assert_eq!(fcollect(&Shape::uniform(4, 2), 64), FcollectForm::Staged);
        assert_eq!(EAGER_REGION_BYTES, 3072);
    }

    #[test]
    fn strided_windows_fit_the_staging_areas() {
        // Few hosts: staged while n windows fit half a staging area.
        let s = Shape::uniform(4, 2);
        assert_eq!(alltoalls_window(&s, 8, 1, 10), 10);
        assert_eq!(alltoalls_window(&s, 8, 8, 1 << 20), STAGE_HALF / 8 / 8);
        // Many hosts: Bruck's bound (64 x 1: 32 parts of a block a step in half an area).
        let wide = Shape::uniform(64, 1);
        assert_eq!(alltoalls_window(&wide, 64, 1, 4096), 1024);
        assert_eq!(alltoalls_window(&wide, 64, 8, 4096), 128);
        // Not one element fits: one at a time (counted).
        assert_eq!(alltoalls_window(&wide, 64, 4096, 4), 1);
        assert_eq!(alltoall(&wide, 4096, 4096 * 64), AlltoallForm::Counted);
    }

    #[test]
    fn bruck_steps_take_slices_then_halves() {
        let wide = Shape::uniform(64, 1);
        assert_eq!(bruck_steps(&wide, 8), Some(BruckSteps::Slices { steps: 6 }));
        assert_eq!(bruck_steps(&wide, 341), Some(BruckSteps::Slices { steps: 6 }));
        assert_eq!(bruck_steps(&wide, 342), Some(BruckSteps::Halves));
        assert_eq!(bruck_steps(&wide, 1024), Some(BruckSteps::Halves));
        assert_eq!(bruck_steps(&wide, 1025), None);
        // Slices fit the area, halves alternate.
        let slices = BruckSteps::Slices { steps: 6 };
        assert!(slices.at(5) + HIER_STAGE_BYTES / 6 <= HIER_STAGE_BYTES);
        assert_eq!((BruckSteps::Halves.at(2), BruckSteps::Halves.at(3)), (0, STAGE_HALF));
    }

    #[test]
    fn alltoall_forms() {
        // Few hosts: by host while the whole exchange of the widest host fits half a staging area.
        let s = Shape::uniform(4, 2);
        assert_eq!(alltoall(&s, 8, 64), AlltoallForm::ByHost);
        assert_eq!(alltoall(&s, STAGE_HALF / 8, STAGE_HALF), AlltoallForm::Staged);
        assert_eq!(alltoall(&s, STAGE_HALF, STAGE_HALF * 8), AlltoallForm::Counted);
        // Many hosts: Bruck for small blocks (64 x 1: a step of 32 parts of 8 B), else counted.
        let wide = Shape::uniform(64, 1);
        assert_eq!(alltoall(&wide, 8, 512), AlltoallForm::Bruck(BruckSteps::Slices { steps: 6 }));
        assert_eq!(alltoall(&wide, 1024, 1024 * 64), AlltoallForm::Bruck(BruckSteps::Halves));
        assert_eq!(alltoall(&wide, 1025, 1025 * 64), AlltoallForm::Counted);
        assert_eq!(alltoall(&wide, 4096, 4096 * 64), AlltoallForm::Counted);
    }

    #[test]
    fn collect_is_hierarchical_up_to_2048_members() {
        assert!(collect_is_hierarchical(&Shape::uniform(64, 1)));
        assert!(collect_is_hierarchical(&Shape::uniform(2, 1024)));
        assert!(!collect_is_hierarchical(&Shape::uniform(2, 1025)));
        assert!(collect_is_hierarchical(&Shape::uniform(2048, 1)));
        assert!(!collect_is_hierarchical(&Shape::uniform(2049, 1)));
    }
}
