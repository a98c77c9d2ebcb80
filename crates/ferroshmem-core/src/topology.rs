//! Which host every PE runs on. It comes from the bootstrap (oshrun: one host; PMIx: the
//! launcher's node ids), never from probing memory: namespaces and containers share a kernel,
//! so "can I map it" says nothing about where a PE is.

/// The hosts of a job and the PEs on each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// Host number (dense, from 0, in order of first appearance in world order) of every PE.
    host_of: Vec<u32>,
    /// Index of every PE among the PEs of its host (its local rank, in world order).
    local_rank_of: Vec<u32>,
    /// The PEs of every host, in world order.
    hosts: Vec<Vec<usize>>,
    /// Every host's name as its PEs gave it (empty: not known).
    names: Vec<String>,
    my_pe: usize,
}

impl Topology {
    /// Every PE on one host (oshrun, or a program started alone).
    pub fn single_host(n_pes: usize, my_pe: usize) -> Self {
        Self::from_host_ids(&vec![0; n_pes], my_pe)
    }

    /// From any per-PE host identifier (PMIx node ids): PEs with equal ids share a host.
    pub fn from_host_ids(ids: &[u32], my_pe: usize) -> Self {
        assert!(my_pe < ids.len(), "PE {my_pe} of a job of {}", ids.len());
        let mut seen: Vec<u32> = Vec::new();
        let mut hosts: Vec<Vec<usize>> = Vec::new();
        let mut host_of = Vec::with_capacity(ids.len());
        let mut local_rank_of = Vec::with_capacity(ids.len());
        for (pe, id) in ids.iter().enumerate() {
            let h = match seen.iter().position(|s| s == id) {
                Some(h) => h,
                None => {
                    seen.push(*id);
                    hosts.push(Vec::new());
                    hosts.len() - 1
                }
            };
            host_of.push(h as u32);
            local_rank_of.push(hosts[h].len() as u32);
            hosts[h].push(pe);
        }
        let names = vec![String::new(); hosts.len()];
        Topology { host_of, local_rank_of, hosts, names, my_pe }
    }

    /// Names the hosts: `names[pe]` is the name PE `pe` gave its host (the name of a host is
    /// the one given by its first PE).
    pub fn with_names(mut self, names: &[String]) -> Self {
        for (h, pes) in self.hosts.iter().enumerate() {
            if let Some(name) = pes.first().and_then(|&pe| names.get(pe)) {
                self.names[h].clone_from(name);
            }
        }
        self
    }

    /// Host `h`'s name ("host N", counting from 1, when not known).
    pub fn host_name(&self, h: usize) -> String {
        match self.names.get(h) {
            Some(name) if !name.is_empty() => name.clone(),
            _ => format!("host {}", h + 1),
        }
    }

    /// Number of PEs in the job.
    pub fn n_pes(&self) -> usize {
        self.host_of.len()
    }

    /// Number of hosts.
    pub fn n_hosts(&self) -> usize {
        self.hosts.len()
    }

    /// Whether the job runs on more than one host.
    pub fn spans_hosts(&self) -> bool {
        self.hosts.len() > 1
    }

    /// The host of `pe`.
    pub fn host_of(&self, pe: usize) -> usize {
        self.host_of[pe] as usize
    }

    /// Whether `pe` runs on this PE's host (its memory is mapped here).
    #[inline]
    pub fn is_local(&self, pe: usize) -> bool {
        self.host_of[pe] == self.host_of[self.my_pe]
    }

    /// The PEs of this PE's host, in world order.
    pub fn local_pes(&self) -> &[usize] {
        &self.hosts[self.host_of[self.my_pe] as usize]
    }

    /// The PEs of host `h`, in world order.
    pub fn pes_of_host(&self, h: usize) -> &[usize] {
        &self.hosts[h]
    }

    /// `pe`'s index among the PEs of its host.
    pub fn local_rank(&self, pe: usize) -> usize {
        self.local_rank_of[pe] as usize
    }

    /// The PEs whose local rank equals this PE's, one per host that has one, in world order.
    pub fn same_local_rank(&self) -> Vec<usize> {
        let mine = self.local_rank_of[self.my_pe];
        (0..self.n_pes()).filter(|&pe| self.local_rank_of[pe] == mine).collect()
    }

    /// Whether every PE of `members` runs on one host.
    pub fn on_one_host(&self, mut members: impl Iterator<Item = usize>) -> bool {
        match members.next() {
            None => true,
            Some(first) => {
                let h = self.host_of[first];
                members.all(|pe| self.host_of[pe] == h)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ragged_hosts() {
        // Hosts a (PEs 0, 1, 4), b (2, 3), c (5): ids as a launcher may give them.
        let ids = [7, 7, 3, 3, 7, 9];
        let t = Topology::from_host_ids(&ids, 4);
        assert_eq!(t.n_hosts(), 3);
        assert!(t.spans_hosts());
        assert_eq!(t.local_pes(), &[0, 1, 4]);
        assert_eq!(t.local_rank(4), 2);
        assert_eq!(t.same_local_rank(), vec![4]);
        let t = Topology::from_host_ids(&ids, 0);
        assert_eq!(t.same_local_rank(), vec![0, 2, 5]);
        assert!(t.is_local(1) && !t.is_local(2));
        assert!(t.on_one_host([0, 4].into_iter()) && !t.on_one_host([0, 5].into_iter()));
        let names: Vec<String> = ["a", "a", "b", "b", "a", "c"].map(String::from).to_vec();
        let t = t.with_names(&names);
        assert_eq!((t.host_name(0), t.host_name(1), t.host_name(2)), ("a".into(), "b".into(), "c".into()));
        let one = Topology::single_host(3, 1);
        assert_eq!(one.host_name(0), "host 1");
        assert!(!one.spans_hosts());
        assert_eq!(one.local_pes(), &[0, 1, 2]);
    }

    proptest! {
        /// Hosts partition the PEs; local ranks number each host's PEs 0.. in world order;
        /// same_local_rank holds exactly one PE of every host large enough.
        #[test]
        fn hosts_partition_the_job(ids in proptest::collection::vec(0u32..5, 1..40), me in 0usize..40) {
            let me = me % ids.len();
            let t = Topology::from_host_ids(&ids, me);
            let mut all: Vec<usize> = (0..t.n_hosts()).flat_map(|h| t.pes_of_host(h).to_vec()).collect();
            all.sort_unstable();
            prop_assert_eq!(all, (0..ids.len()).collect::<Vec<_>>());
            for h in 0..t.n_hosts() {
                for (k, &pe) in t.pes_of_host(h).iter().enumerate() {
                    prop_assert_eq!(t.local_rank(pe), k);
                    prop_assert_eq!(t.host_of(pe), h);
                    prop_assert_eq!(t.is_local(pe), ids[pe] == ids[me]);
                }
            }
            let same = t.same_local_rank();
            let want = (0..t.n_hosts()).filter(|&h| t.pes_of_host(h).len() > t.local_rank(me)).count();
            prop_assert_eq!(same.len(), want);
            prop_assert!(same.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(same.contains(&me));
        }
    }
}
