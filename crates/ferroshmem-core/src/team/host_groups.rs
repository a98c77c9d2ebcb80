//! How a team's members fall on hosts: one *group* per host that holds members, the group's
//! members in team order, groups in the order of their first member. The first member of a
//! group is its *leader*: the collectives of a team across hosts (`coll::hier`) move data
//! between hosts only from leader to leader (alltoall: from a leader to every member) and
//! within a host through shared memory.
//!
//! Pure arithmetic on team indices, so that it can be checked against a model.

/// The host groups of one team, seen from one of its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostGroups {
    /// Team indices of each group's members, in team order.
    groups: Vec<Vec<usize>>,
    /// Group of every team index.
    group_of: Vec<u32>,
    /// This PE's group.
    mine: usize,
}

impl HostGroups {
    /// Groups of the `n` members of a team whose member `i` runs on host `host_of(i)`; this PE
    /// is member `me`.
    pub fn new(n: usize, me: usize, host_of: impl Fn(usize) -> usize) -> Self {
        assert!(me < n, "member {me} of a team of {n}");
        // Host -> group: a map, since a job may span thousands of hosts.
        let mut hosts: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut group_of = Vec::with_capacity(n);
        for i in 0..n {
            let g = *hosts.entry(host_of(i)).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
            group_of.push(g as u32);
        }
        let mine = group_of[me] as usize;
        HostGroups { groups, group_of, mine }
    }

    /// Number of groups (hosts holding members).
    #[inline]
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// Whether there are no groups (never: a team has a member).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Team indices of group `g`'s members, in team order.
    #[inline]
    pub fn members(&self, g: usize) -> &[usize] {
        &self.groups[g]
    }

    /// Team index of group `g`'s leader (its first member).
    #[inline]
    pub fn leader(&self, g: usize) -> usize {
        self.groups[g][0]
    }

    /// Group of team member `i`.
    #[inline]
    pub fn group_of(&self, i: usize) -> usize {
        self.group_of[i] as usize
    }

    /// This PE's group.
    #[inline]
    pub fn mine(&self) -> usize {
        self.mine
    }

    /// The groups other than this PE's, starting after it (so that the leaders do not all
    /// send to the same group first).
    pub fn others(&self) -> impl Iterator<Item = usize> + '_ {
        let l = self.len();
        (1..l).map(move |k| (self.mine + k) % l)
    }

    /// Group `g`'s members as runs of consecutive team indices `(first, count)`: a host's
    /// members are often contiguous in team order, and a run moves in one transfer.
    pub fn runs(&self, g: usize) -> Vec<(usize, usize)> {
        runs_of(self.groups[g].iter().copied())
    }

    /// The members of groups `range` as runs of consecutive team indices `(first, count)`,
    /// in team order: what a leader holding those groups' data sends in one transfer per run
    /// (one run when hosts hold consecutive members). The same on every PE.
    pub fn runs_of_groups(&self, range: std::ops::Range<usize>) -> Vec<(usize, usize)> {
        let mut members: Vec<usize> = self.groups[range].iter().flatten().copied().collect();
        members.sort_unstable();
        runs_of(members.into_iter())
    }
}

/// Ascending team indices as runs of consecutive ones `(first, count)`.
fn runs_of(ascending: impl Iterator<Item = usize>) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in ascending {
        match runs.last_mut() {
            Some((first, count)) if *first + *count == i => *count += 1,
            _ => runs.push((i, 1)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hosts_in_order_of_first_member() {
        // Team order 0..6 on hosts 7, 3, 7, 5, 3, 7 (a team in arbitrary order across hosts).
        let hosts = [7, 3, 7, 5, 3, 7];
        let g = HostGroups::new(6, 4, |i| hosts[i]);
        assert_eq!(g.len(), 3);
        assert_eq!(g.members(0), &[0, 2, 5]);
        assert_eq!(g.members(1), &[1, 4]);
        assert_eq!(g.members(2), &[3]);
        assert_eq!(g.mine(), 1);
        assert_eq!(g.leader(1), 1);
        assert_eq!(g.others().collect::<Vec<_>>(), vec![2, 0]);
        assert_eq!(g.runs(0), vec![(0, 1), (2, 1), (5, 1)]);
        let block = HostGroups::new(6, 0, |i| i / 3);
        assert_eq!(block.runs(1), vec![(3, 3)]);
    }

    proptest! {
        #[test]
        fn groups_partition_the_team(hosts in proptest::collection::vec(0usize..6, 1..48), me_seed in 0usize..1000) {
            let n = hosts.len();
            let me = me_seed % n;
            let g = HostGroups::new(n, me, |i| hosts[i]);
            // Every member in exactly one group, the group of its host; groups in team order.
            let mut seen = vec![false; n];
            for k in 0..g.len() {
                let m = g.members(k);
                prop_assert!(!m.is_empty());
                prop_assert!(m.windows(2).all(|w| w[0] < w[1]));
                prop_assert_eq!(g.leader(k), m[0]);
                for &i in m {
                    prop_assert!(!seen[i]);
                    seen[i] = true;
                    prop_assert_eq!(g.group_of(i), k);
                    prop_assert_eq!(hosts[i], hosts[m[0]]);
                }
                // Runs cover the members exactly.
                let from_runs: Vec<usize> = g.runs(k).iter().flat_map(|&(f, c)| f..f + c).collect();
                prop_assert_eq!(&from_runs[..], m);
            }
            prop_assert!(seen.iter().all(|&s| s));
            // The runs of a range of groups cover exactly those groups' members.
            let mid = me_seed % (g.len() + 1);
            let mut want: Vec<usize> = (0..mid).flat_map(|k| g.members(k).to_vec()).collect();
            want.sort_unstable();
            let got: Vec<usize> = g.runs_of_groups(0..mid).iter().flat_map(|&(f, c)| f..f + c).collect();
            prop_assert_eq!(got, want);
            // Leaders in increasing team order; distinct groups are distinct hosts.
            for k in 1..g.len() {
                prop_assert!(g.leader(k - 1) < g.leader(k));
                prop_assert!(hosts[g.leader(k - 1)] != hosts[g.leader(k)]);
            }
            prop_assert_eq!(g.group_of(me), g.mine());
            prop_assert_eq!(g.others().count(), g.len() - 1);
        }
    }
}
