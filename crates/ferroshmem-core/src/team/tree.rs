//! Binomial trees over `l` parties numbered relative to the root (party 0): the shape in
//! which the leaders of many hosts broadcast, gather and reduce (`coll::hier::wide`; here in
//! the team layer, whose set-up connects to the tree partners ahead, `host_groups`). Party `v`'s
//! parent is `v - lowbit(v)`, its children are `v + 2^j` for every `2^j < lowbit(v)` (every
//! `2^j < l` at the root) below `l`, and its subtree is the contiguous run
//! `v..v + lowbit(v)`: a party holds a consecutive range of parties' data, which moves in
//! one transfer. Every party is at most `ceil(log2 l)` steps from the root. Pure arithmetic,
//! checked against a model below.

/// The exponent `k` of party `v`'s distance `2^k` to its parent (`v - 2^k`), or `None` for
/// the root.
#[inline]
pub(crate) fn parent(v: usize) -> Option<u32> {
    (v != 0).then(|| v.trailing_zeros())
}

/// The exponents `j` of party `v`'s children `v + 2^j` in a tree of `l` parties, ascending
/// (the smallest subtree first; reversed, the largest).
pub(crate) fn children(v: usize, l: usize) -> impl DoubleEndedIterator<Item = u32> {
    let below = if v == 0 { usize::BITS } else { v.trailing_zeros() };
    // v + 2^j grows with j: the children are the first `count` exponents.
    let count = (0..below)
        .take_while(|&j| 1usize.checked_shl(j).and_then(|d| v.checked_add(d)).is_some_and(|c| c < l))
        .count() as u32;
    0..count
}

/// The end of party `v`'s subtree `v..subtree_end(v, l)` in a tree of `l` parties.
#[inline]
pub(crate) fn subtree_end(v: usize, l: usize) -> usize {
    if v == 0 {
        l
    } else {
        v.saturating_add(1 << v.trailing_zeros()).min(l)
    }
}

/// Steps from the root to the farthest party of a tree of `l` parties: `ceil(log2 l)`.
pub(crate) fn depth(l: usize) -> u32 {
    l.max(1).next_power_of_two().trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Steps from the root to `v`.
    fn steps(mut v: usize) -> u32 {
        let mut s = 0;
        while let Some(k) = parent(v) {
            v -= 1 << k;
            s += 1;
        }
        s
    }

    #[test]
    fn small_trees_by_hand() {
        assert_eq!(children(0, 1).count(), 0);
        assert_eq!(children(0, 5).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(children(4, 5).count(), 0);
        assert_eq!(children(4, 8).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(children(6, 8).collect::<Vec<_>>(), vec![0]);
        assert_eq!(parent(6), Some(1));
        assert_eq!(subtree_end(4, 6), 6);
        assert_eq!(subtree_end(4, 64), 8);
        assert_eq!(depth(1), 0);
        assert_eq!(depth(64), 6);
        assert_eq!(depth(65), 7);
    }

    proptest! {
        /// Every party but the root is the child of exactly its parent; the children's
        /// subtrees, after the party itself, tile its own in ascending order; nobody is
        /// farther than `depth(l)` from the root.
        #[test]
        fn tree_is_a_binomial_tiling(l in 1usize..600) {
            let mut seen = vec![0u32; l];
            for v in 0..l {
                let mut next = v + 1;
                for j in children(v, l) {
                    let c = v + (1 << j);
                    prop_assert_eq!(c, next);
                    prop_assert_eq!(parent(c), Some(j));
                    seen[c] += 1;
                    next = subtree_end(c, l);
                }
                prop_assert_eq!(next, subtree_end(v, l));
                prop_assert!(steps(v) <= depth(l));
            }
            prop_assert_eq!(seen[0], 0);
            prop_assert!(seen[1..].iter().all(|&s| s == 1));
        }
    }
}
