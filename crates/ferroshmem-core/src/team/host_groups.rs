//! How a team's members fall on hosts: one *group* per host that holds members, the group's
//! members in team order, groups in the order of their first member. The first member of a
//! group is its *leader*: the collectives of a team across hosts (`coll::hier`) move data
//! between hosts only from leader to leader (alltoall: from a leader to every member) and
//! within a host through shared memory.
//!
//! Pure arithmetic on team indices, so that it can be checked against a model; and the team's
//! `Shape` across hosts, from which every hierarchical collective first chooses whether the
//! leaders' trees carry it (`coll::hier::plan` chooses the rest): here, below the collectives,
//! because a team's set-up connects its leader to the leaders it will talk to
//! (`HostGroups::tree_partners` when every collective takes the trees, issue 30).

use crate::team::tree;

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

    /// The team indices of the leaders this group's leader talks to in any tree of the leaders
    /// (`coll::hier::wide`): those `2^k` groups before and after it (connected at the team's
    /// set-up, so that their wire-ups overlap).
    pub(crate) fn tree_partners(&self) -> impl Iterator<Item = usize> + '_ {
        let (l, me) = (self.len(), self.mine());
        (0..tree::depth(l))
            .flat_map(move |k| [(me + (1 << k)) % l, (me + l - (1 << k) % l) % l])
            .filter(move |&g| g != me)
            .map(move |g| self.leader(g))
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

/// Teams over at least this many hosts take the trees for every collective: the forms for
/// fewer hosts need three slot words per group.
pub(crate) const WIDE_FROM: usize = crate::job::slot_layout::MAX_GROUPS + 1;
/// Syncs, reductions and fcollect take the trees from this many hosts on. Over 16 and 32
/// simulated hosts x 1 PE the trees took 8-byte and 4 KiB float sums 970 and 980 us against
/// 1 280-1 350 and 3 260-3 370 (16 hosts), 3 640-3 720 and 3 680-4 560 against 5 440-5 670 and
/// 21 700-23 600 (32 hosts); fcollect 850-890 against 1 270-1 420 (16) and 2 680-3 070 against
/// 5 630-6 230 (32), where every leader sends to every leader (`bench/c/coll_bench.c 4096 5`,
/// two alternations). With the tree sync and the eager forms (`coll::hier::wide`), over
/// 8 hosts x 1 the trees took barrier 166-168, 8-byte sum 169-173 and fcollect 164-172 us
/// against 363-368, 374 and 357-358 (three alternations), over 4 x 1 barrier 53-57 against
/// 64-66 and sums 56-57 against 63-65; over 4 x 2 they were even (71-83 against 75-79, the
/// figures of docs/PERFORMANCE.md's table of 4 hosts), over 2 x 2 slower (23 against 15): from
/// 5 hosts, leaving the measured tables of up to 4 hosts as they were.
pub(crate) const TREE_REDUCTIONS_FROM: usize = 5;
/// Alltoalls of small blocks take Bruck's exchange among the leaders from this many hosts on:
/// over 8, 16 and 32 simulated hosts x 1 the 8-byte alltoall took 285-298, 1 050-1 170 and
/// 4 130-4 410 us so against 303-373, 1 440-1 630 and 8 180-8 490 with a message from every
/// leader to every leader; over 4 x 1 and 4 x 2 it was slower (85-88 against 64-69, 96-110
/// against 82-85; `bench/c/coll_bench.c 8 5`, two or three alternations).
const BRUCK_FROM: usize = 8;

/// The collectives whose algorithm between hosts is chosen from the team's [`Shape`] (whether
/// the trees carry them here, their other forms in `coll::hier::plan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Collective {
    Broadcast,
    Fcollect,
    Reduce,
    Alltoall,
}

/// What the choice depends on of a team across hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Host groups (L).
    pub hosts: usize,
    /// Members of the largest group.
    pub widest: usize,
    /// Members of the team (n).
    pub members: usize,
    /// `FSH_HIER_TREES_FROM` (at least 2): every collective takes the trees from that many
    /// hosts, as the tests do to run the trees on a few hosts. The launcher gives every PE the
    /// same environment, so they all agree.
    pub trees_from: Option<usize>,
}

impl Shape {
    /// For tests: `hosts` hosts of `widest` members each, no forcing setting.
    #[cfg(test)]
    pub(crate) fn uniform(hosts: usize, widest: usize) -> Shape {
        Shape { hosts, widest, members: hosts * widest, trees_from: None }
    }

    /// The shape of a team of these host groups, with the job's agreed settings
    /// (`crate::settings`: `FSH_HIER_TREES_FROM`).
    pub(crate) fn of(groups: &HostGroups) -> Shape {
        let trees_from = crate::settings::agreed().trees_from;
        let hosts = groups.len();
        let widest = (0..hosts).map(|g| groups.members(g).len()).max().unwrap_or(1);
        let members = (0..hosts).map(|g| groups.members(g).len()).sum();
        Shape { hosts, widest, members, trees_from }
    }

    /// Whether `collective` takes the leaders' trees: from [`TREE_REDUCTIONS_FROM`] hosts for
    /// reductions and fcollect, from [`BRUCK_FROM`] for alltoalls, from [`WIDE_FROM`] for
    /// broadcasts (or `trees_from`).
    pub(crate) fn takes_trees(&self, collective: Collective) -> bool {
        let from = self.trees_from.unwrap_or(match collective {
            Collective::Reduce | Collective::Fcollect => TREE_REDUCTIONS_FROM,
            Collective::Alltoall => BRUCK_FROM,
            Collective::Broadcast => WIDE_FROM,
        });
        self.hosts >= from.min(WIDE_FROM)
    }

    /// Whether every collective takes the trees: the leaders then talk only to their partners
    /// in them (whom to connect to ahead).
    pub(crate) fn trees_only(&self) -> bool {
        [Collective::Broadcast, Collective::Fcollect, Collective::Reduce, Collective::Alltoall]
            .into_iter()
            .all(|c| self.takes_trees(c))
    }
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

    fn shape(hosts: usize, widest: usize) -> Shape {
        Shape::uniform(hosts, widest)
    }

    #[test]
    fn trees_from_five_hosts_for_reductions_eight_for_alltoalls_41_for_broadcasts() {
        for l in [2, 4, 5, 7, 8, 9, 40, 41, 64] {
            let s = shape(l, 1);
            assert_eq!(s.takes_trees(Collective::Reduce), l >= 5, "{l}");
            assert_eq!(s.takes_trees(Collective::Fcollect), l >= 5, "{l}");
            assert_eq!(s.takes_trees(Collective::Broadcast), l >= 41, "{l}");
            assert_eq!(s.takes_trees(Collective::Alltoall), l >= 8, "{l}");
            assert_eq!(s.trees_only(), l >= 41, "{l}");
        }
        let forced = Shape { trees_from: Some(2), ..shape(4, 2) };
        assert!(forced.trees_only());
        // Forcing never keeps a team of more than MAX_GROUPS hosts off the trees.
        let late = Shape { trees_from: Some(1000), ..shape(64, 1) };
        assert!(late.trees_only());
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
