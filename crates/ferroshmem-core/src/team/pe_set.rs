//! Team arithmetic: which world PEs a team holds, in which order. Pure functions, no I/O.
//!
//! A strided team (start, stride, size in world PE numbers; the stride may be negative, and is
//! 0 only for a team of one) covers every team a strided or 2D split of a strided team can
//! make, so only arbitrary teams (`team_init`) and splits by color need the list form. Translation is O(1) for strided teams and
//! O(1) through a dense reverse map for lists.

use std::sync::Arc;

/// The ordered set of world PEs of a team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeSet {
    /// Member i is world PE `start + i * stride`.
    Strided {
        /// World PE of member 0.
        start: u32,
        /// Distance between consecutive members (negative: descending).
        stride: i64,
        /// Members.
        size: u32,
    },
    /// Member i is `members[i]`; `index[world_pe]` is its member number or -1.
    List {
        /// World PE of each member.
        members: Arc<[u32]>,
        /// Member number of each world PE, -1 for none.
        index: Arc<[i32]>,
    },
}

/// Why a triplet does not describe a subset of the parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TripletError {
    /// `size` is zero or negative.
    Size,
    /// `start` is outside the parent.
    Start,
    /// A zero stride with more than one member.
    ZeroStride,
    /// Some member `start + i * stride` is outside the parent.
    Member,
}

impl std::fmt::Display for TripletError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TripletError::Size => "size must be positive",
            TripletError::Start => "start is not a PE of the parent team",
            TripletError::ZeroStride => "stride 0 is allowed only for a team of one PE",
            TripletError::Member => "a member start + i * stride falls outside the parent team",
        })
    }
}

/// Checks a (start, stride, size) triplet against a parent of `n` PEs.
pub fn check_triplet(n: usize, start: i64, stride: i64, size: i64) -> Result<(), TripletError> {
    if size <= 0 {
        return Err(TripletError::Size);
    }
    if start < 0 || start >= n as i64 {
        return Err(TripletError::Start);
    }
    if stride == 0 && size > 1 {
        return Err(TripletError::ZeroStride);
    }
    let last = start as i128 + stride as i128 * (size as i128 - 1);
    if last < 0 || last >= n as i128 {
        return Err(TripletError::Member);
    }
    Ok(())
}

impl PeSet {
    /// Every PE of a job of `n` PEs, in order.
    pub fn world(n: usize) -> Self {
        PeSet::Strided { start: 0, stride: 1, size: n as u32 }
    }

    /// A team of the given world PEs in the given order (no duplicates). Becomes strided when
    /// the PEs form an arithmetic progression.
    pub fn from_list(members: Vec<u32>, world_size: usize) -> Self {
        let size = members.len();
        if size == 1 {
            return PeSet::Strided { start: members[0], stride: 1, size: 1 };
        }
        let stride = members[1] as i64 - members[0] as i64;
        if stride != 0 && members.windows(2).all(|w| w[1] as i64 - w[0] as i64 == stride) {
            return PeSet::Strided { start: members[0], stride, size: size as u32 };
        }
        let mut index = vec![-1i32; world_size];
        for (i, &pe) in members.iter().enumerate() {
            index[pe as usize] = i as i32;
        }
        PeSet::List { members: members.into(), index: index.into() }
    }

    /// Number of members.
    #[inline]
    pub fn size(&self) -> usize {
        match self {
            PeSet::Strided { size, .. } => *size as usize,
            PeSet::List { members, .. } => members.len(),
        }
    }

    /// World PE of member `i` (`i < size`).
    #[inline]
    pub fn world_pe(&self, i: usize) -> usize {
        match self {
            PeSet::Strided { start, stride, .. } => (*start as i64 + i as i64 * stride) as usize,
            PeSet::List { members, .. } => members[i] as usize,
        }
    }

    /// Member number of world PE `pe`, if it is a member.
    #[inline]
    pub fn index_of(&self, pe: usize) -> Option<usize> {
        match self {
            PeSet::Strided { start, stride, size } => {
                let d = pe as i64 - *start as i64;
                // Contiguous and reversed teams (the common ones) need no division.
                let i = match *stride {
                    1 => d,
                    -1 => -d,
                    0 => return (d == 0).then_some(0),
                    s if d % s != 0 => return None,
                    s => d / s,
                };
                (i >= 0 && i < *size as i64).then_some(i as usize)
            }
            PeSet::List { index, .. } => match index.get(pe) {
                Some(&i) if i >= 0 => Some(i as usize),
                _ => None,
            },
        }
    }

    /// The subset (start + i * stride for i < size), numbered relative to this team. The
    /// triplet must be valid ([`check_triplet`]).
    pub fn split_strided(&self, start: i64, stride: i64, size: i64, world_size: usize) -> PeSet {
        debug_assert!(check_triplet(self.size(), start, stride, size).is_ok());
        match self {
            PeSet::Strided { start: s0, stride: st0, .. } => PeSet::Strided {
                start: (*s0 as i64 + start * st0) as u32,
                stride: if size == 1 { 1 } else { stride * st0 },
                size: size as u32,
            },
            PeSet::List { .. } => PeSet::from_list(
                (0..size).map(|i| self.world_pe((start + i * stride) as usize) as u32).collect(),
                world_size,
            ),
        }
    }

    /// `split_color`: the team of parent member `me` when member `i` passed
    /// `entries[i] = (color, key)`: the members with `me`'s color, ordered by key and then by
    /// parent member number. `None` when `me`'s color is undefined. `entries` has one entry per
    /// member of this team.
    pub fn split_color(&self, entries: &[(Option<u32>, i64)], me: usize, world_size: usize) -> Option<PeSet> {
        debug_assert_eq!(entries.len(), self.size());
        let color = entries[me].0?;
        let mut members: Vec<(i64, usize)> =
            entries.iter().enumerate().filter(|(_, e)| e.0 == Some(color)).map(|(i, e)| (e.1, i)).collect();
        // (key, parent number) pairs are distinct, so an unstable sort gives the one order.
        members.sort_unstable();
        Some(PeSet::from_list(
            members.into_iter().map(|(_, i)| self.world_pe(i) as u32).collect(),
            world_size,
        ))
    }

    /// The (x, y) grid of `split_2d` with `xrange` columns (already clamped to 1..=size):
    /// row `y` (the x-axis team) and column `x` (the y-axis team), as splits of this team.
    pub fn row(&self, y: usize, xrange: usize, world_size: usize) -> PeSet {
        let n = self.size();
        let start = y * xrange;
        let len = xrange.min(n - start);
        self.split_strided(start as i64, 1, len as i64, world_size)
    }

    /// Column `x` of the grid (see [`PeSet::row`]).
    pub fn column(&self, x: usize, xrange: usize, world_size: usize) -> PeSet {
        let n = self.size();
        let len = (n - x).div_ceil(xrange);
        self.split_strided(x as i64, xrange as i64, len as i64, world_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The brute-force model: a team is the explicit list of world PEs.
    fn model_split(parent: &[u32], start: i64, stride: i64, size: i64) -> Option<Vec<u32>> {
        if size <= 0 {
            return None;
        }
        let mut out = Vec::new();
        for i in 0..size {
            let p = start + i * stride;
            if p < 0 || p >= parent.len() as i64 {
                return None;
            }
            out.push(parent[p as usize]);
        }
        if stride == 0 && size > 1 {
            return None;
        }
        Some(out)
    }

    fn members(set: &PeSet) -> Vec<u32> {
        (0..set.size()).map(|i| set.world_pe(i) as u32).collect()
    }

    fn check_against_model(set: &PeSet, model: &[u32], world: usize) -> Result<(), TestCaseError> {
        prop_assert_eq!(members(set), model.to_vec());
        for pe in 0..world {
            prop_assert_eq!(set.index_of(pe), model.iter().position(|&m| m as usize == pe));
        }
        Ok(())
    }

    /// An arbitrary team: a random permutation prefix of the world.
    fn arbitrary_team(world: usize) -> impl Strategy<Value = Vec<u32>> {
        Just((0..world as u32).collect::<Vec<_>>())
            .prop_shuffle()
            .prop_flat_map(move |v| (1..=world).prop_map(move |k| v[..k].to_vec()))
    }

    proptest! {
        #[test]
        fn strided_split_matches_model(world in 1usize..40, start in -3i64..45, stride in -12i64..12, size in -2i64..45) {
            let parent = PeSet::world(world);
            let model = model_split(&members(&parent), start, stride, size);
            let checked = check_triplet(world, start, stride, size);
            prop_assert_eq!(checked.is_ok(), model.is_some(), "validity of ({}, {}, {})", start, stride, size);
            if let Some(model) = model {
                check_against_model(&parent.split_strided(start, stride, size, world), &model, world)?;
            }
        }

        #[test]
        fn nested_and_arbitrary_splits_match_model(
            world in 1usize..30,
            team in (1usize..30).prop_flat_map(arbitrary_team),
            a in (0i64..30, -6i64..6, 1i64..30),
            b in (0i64..30, -6i64..6, 1i64..30),
        ) {
            let team: Vec<u32> = team.into_iter().filter(|&p| (p as usize) < world).collect();
            prop_assume!(!team.is_empty());
            let set = PeSet::from_list(team.clone(), world);
            check_against_model(&set, &team, world)?;
            if let Some(m1) = model_split(&team, a.0, a.1, a.2) {
                let s1 = set.split_strided(a.0, a.1, a.2, world);
                check_against_model(&s1, &m1, world)?;
                if let Some(m2) = model_split(&m1, b.0, b.1, b.2) {
                    check_against_model(&s1.split_strided(b.0, b.1, b.2, world), &m2, world)?;
                }
            }
        }

        #[test]
        fn split_2d_grid_matches_model(world in 1usize..40, sub in (0i64..4, 1i64..4), xrange in 1usize..50) {
            let parent_all = PeSet::world(world);
            let size = ((world as i64 - sub.0) + sub.1 - 1) / sub.1;
            prop_assume!(size >= 1);
            let parent = parent_all.split_strided(sub.0, sub.1, size, world);
            let pm = members(&parent);
            let n = pm.len();
            let x = xrange.min(n);
            for (pe, &world_pe) in pm.iter().enumerate() {
                let (cx, cy) = (pe % x, pe / x);
                let row = parent.row(cy, x, world);
                let col = parent.column(cx, x, world);
                let row_model: Vec<u32> = (0..n).filter(|p| p / x == cy).map(|p| pm[p]).collect();
                let col_model: Vec<u32> = (0..n).filter(|p| p % x == cx).map(|p| pm[p]).collect();
                check_against_model(&row, &row_model, world)?;
                check_against_model(&col, &col_model, world)?;
                prop_assert_eq!(row.index_of(world_pe as usize), Some(cx));
                prop_assert_eq!(col.index_of(world_pe as usize), Some(cy));
            }
        }

        #[test]
        fn translation_between_any_two_teams(world in 1usize..30, t1 in (1usize..30).prop_flat_map(arbitrary_team), t2 in (1usize..30).prop_flat_map(arbitrary_team)) {
            let t1: Vec<u32> = t1.into_iter().filter(|&p| (p as usize) < world).collect();
            let t2: Vec<u32> = t2.into_iter().filter(|&p| (p as usize) < world).collect();
            prop_assume!(!t1.is_empty() && !t2.is_empty());
            let (s1, s2) = (PeSet::from_list(t1.clone(), world), PeSet::from_list(t2.clone(), world));
            for (i, &pe) in t1.iter().enumerate() {
                let expected = t2.iter().position(|&p| p == pe);
                prop_assert_eq!(s2.index_of(s1.world_pe(i)), expected);
            }
        }
    }

    /// The model of split_color: member `p`'s team number is how many members of its color
    /// come before it by (key, parent number); the team lists them in that order.
    fn model_color(parent: &[u32], entries: &[(Option<u32>, i64)], me: usize) -> Option<Vec<u32>> {
        let color = entries[me].0?;
        let same: Vec<usize> = (0..parent.len()).filter(|&q| entries[q].0 == Some(color)).collect();
        let rank = |p: usize| same.iter().filter(|&&q| (entries[q].1, q) < (entries[p].1, p)).count();
        let mut team = vec![0u32; same.len()];
        for &q in &same {
            team[rank(q)] = parent[q];
        }
        Some(team)
    }

    /// Random (color, key) entries: few colors and keys, so that teams share PEs and keys tie.
    fn color_entries(n: usize) -> impl Strategy<Value = Vec<(Option<u32>, i64)>> {
        proptest::collection::vec((proptest::option::weighted(0.85, 0u32..4), -3i64..3), n)
    }

    /// (world size, parent members, one (color, key) entry per member).
    type ParentCase = (usize, Vec<u32>, Vec<(Option<u32>, i64)>);

    /// A parent team (the world, or an arbitrary team) with one entry per member.
    fn parent_with_entries() -> impl Strategy<Value = ParentCase> {
        (1usize..=12)
            .prop_flat_map(|world| {
                (Just(world), prop_oneof![Just((0..world as u32).collect()), arbitrary_team(world)])
            })
            .prop_flat_map(|(world, parent)| {
                let n = parent.len();
                (Just(world), Just(parent), color_entries(n))
            })
    }

    proptest! {
        #[test]
        fn split_color_matches_model((world, parent, entries) in parent_with_entries()) {
            let set = PeSet::from_list(parent.clone(), world);
            let n = parent.len();
            let teams: Vec<Option<PeSet>> = (0..n).map(|me| set.split_color(&entries, me, world)).collect();
            for me in 0..n {
                let model = model_color(&parent, &entries, me);
                prop_assert_eq!(teams[me].is_some(), model.is_some());
                let (Some(team), Some(model)) = (&teams[me], model) else { continue };
                // Membership and order, and index_of for every world PE.
                check_against_model(team, &model, world)?;
                // This PE is in its own team, at its rank.
                let mine = team.index_of(parent[me] as usize);
                prop_assert_eq!(mine.map(|i| team.world_pe(i)), Some(parent[me] as usize));
                // translate_pe from the parent: a member of the same color maps to its rank,
                // everybody else to nothing; and back.
                for q in 0..n {
                    let to = team.index_of(set.world_pe(q));
                    prop_assert_eq!(to.is_some(), entries[q].0 == entries[me].0);
                    if let Some(i) = to {
                        prop_assert_eq!(set.index_of(team.world_pe(i)), Some(q));
                    }
                }
                // Every member of the color computes the same team.
                for q in 0..n {
                    if entries[q].0 == entries[me].0 {
                        prop_assert_eq!(teams[q].as_ref(), Some(team));
                    }
                }
            }
        }

        #[test]
        fn nested_split_color_matches_model(
            (world, parent, entries) in parent_with_entries(),
            inner in color_entries(12),
        ) {
            let set = PeSet::from_list(parent.clone(), world);
            for me in 0..parent.len() {
                let (Some(team), Some(model)) = (set.split_color(&entries, me, world), model_color(&parent, &entries, me)) else { continue };
                // Split the team again: member i of the team passes inner[i].
                let inner = &inner[..team.size()];
                let my_index = team.index_of(parent[me] as usize).unwrap();
                let nested = team.split_color(inner, my_index, world);
                let nested_model = model_color(&model, inner, my_index);
                prop_assert_eq!(nested.is_some(), nested_model.is_some());
                if let (Some(nested), Some(nested_model)) = (nested, nested_model) {
                    check_against_model(&nested, &nested_model, world)?;
                }
            }
        }
    }

    #[test]
    fn split_color_orders_by_key_then_parent_number() {
        let w = PeSet::world(6);
        // Colors 0 1 0 1 - 0, keys 5 0 5 -1 0 2: color 0 is PEs 5 (key 2), 0 and 2 (key 5, by number).
        let e = [(Some(0), 5), (Some(1), 0), (Some(0), 5), (Some(1), -1), (None, 0), (Some(0), 2)];
        assert_eq!(members(&w.split_color(&e, 0, 6).unwrap()), vec![5, 0, 2]);
        assert_eq!(members(&w.split_color(&e, 1, 6).unwrap()), vec![3, 1]);
        assert_eq!(w.split_color(&e, 4, 6), None);
        // Equal keys in parent order of a reversed parent.
        let rev = w.split_strided(5, -1, 6, 6);
        let same = [(Some(7), 0); 6];
        assert_eq!(members(&rev.split_color(&same, 3, 6).unwrap()), vec![5, 4, 3, 2, 1, 0]);
    }

    #[test]
    fn negative_stride_reverses() {
        let w = PeSet::world(8);
        let r = w.split_strided(7, -1, 8, 8);
        assert_eq!(members(&r), vec![7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(r.index_of(7), Some(0));
        let evens_reversed = r.split_strided(1, 2, 4, 8);
        assert_eq!(members(&evens_reversed), vec![6, 4, 2, 0]);
    }

    #[test]
    fn invalid_triplets_are_named() {
        assert_eq!(check_triplet(4, 0, 1, 0), Err(TripletError::Size));
        assert_eq!(check_triplet(4, 4, 1, 1), Err(TripletError::Start));
        assert_eq!(check_triplet(4, -1, 1, 1), Err(TripletError::Start));
        assert_eq!(check_triplet(4, 0, 0, 2), Err(TripletError::ZeroStride));
        assert_eq!(check_triplet(4, 0, 0, 1), Ok(()));
        assert_eq!(check_triplet(4, 1, 2, 2), Ok(()));
        assert_eq!(check_triplet(4, 1, 2, 3), Err(TripletError::Member));
        assert_eq!(check_triplet(4, 3, -1, 4), Ok(()));
        assert_eq!(check_triplet(4, 2, -1, 4), Err(TripletError::Member));
    }
}
