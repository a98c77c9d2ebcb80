//! Agreement among a team's PEs without a central party: a dissemination all-reduce (MAX on
//! words) through mailboxes in the team's slot, and on top of it the choice of free team slots
//! (GUIDE.md §1: every PE proposes its lowest available slot at or after a common candidate;
//! equal proposals win; otherwise the candidate moves to the largest proposal and they try
//! again). Both are state machines advanced by `poll`, so team creation can be non-blocking.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::job::{MAILBOX_WORDS, SLOT_FIXED_WORDS};
use crate::runtime::Runtime;
use crate::team::TeamInner;

/// Payload words of one all-reduce.
pub const PAYLOAD: usize = MAILBOX_WORDS - 1;
// The agreement's result fits the central mailbox (`slot_layout::AGREE_RESULT_WORDS`, the alias).
const _: () = assert!(PAYLOAD <= crate::job::slot_layout::CENTRAL_WORDS);

/// A MAX all-reduce of `PAYLOAD` words over a team, in ceil(log2 n) rounds. Each round sends
/// the running maximum to member `me + 2^k` and takes the one of `me - 2^k`. Mailboxes are
/// double-buffered by the parity of the team's all-reduce count: a member can be at most one
/// all-reduce ahead of another (finishing one needs everybody's contribution to it).
///
/// When PEs outnumber cores and the team is small, each member instead publishes its words in
/// its own mailbox and reads everybody's: every PE then needs to run only twice (publish, then
/// collect), which is what costs when PEs wait for a core.
#[derive(Debug)]
pub struct MaxAllreduce {
    team: Arc<TeamInner>,
    epoch: u64,
    /// Which of the two mailboxes: alternates with each all-reduce of the team (not with each
    /// epoch: small collectives between two all-reduces do not wait for everyone, so only
    /// all-reduces bound how far ahead a member can be).
    parity: usize,
    round: usize,
    sent: bool,
    all_read: bool,
    /// A team across hosts: the all-reduce is hierarchical (see [`MaxAllreduce::poll_hier`]).
    hier: Option<HierStep>,
    acc: [u64; PAYLOAD],
}

/// Where a hierarchical all-reduce stands on this PE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HierStep {
    /// A member: publish in its own mailbox, then wait for the leader's result.
    Member,
    /// A leader: wait for its host's members' words.
    Gather,
    /// A leader: dissemination with the other leaders, this round.
    Leaders(usize),
    Done,
}

/// Slot word (on a leader) that tells the leader's host that the result of the all-reduce of
/// this epoch is in the leader's central mailbox words.
const W_RESULT: usize = crate::team::slot_layout::W_AGREE_RESULT;
use crate::team::slot_layout::AGREE_RESULT_WORDS as RESULT_WORDS;

/// Largest team that uses the publish-and-read-all form when oversubscribed.
const ALL_READ_MAX_PES: usize = 16;

/// `acc[k] = max(acc[k], words[k])` over a mailbox's payload words.
fn fold_max(acc: &mut [u64; PAYLOAD], words: &[AtomicU64]) {
    for (a, w) in acc.iter_mut().zip(words) {
        *a = (*a).max(w.load(Ordering::Relaxed));
    }
}

impl MaxAllreduce {
    /// Starts an all-reduce of `values` as the team's next collective operation.
    pub fn start(rt: &Runtime, team: Arc<TeamInner>, values: [u64; PAYLOAD]) -> Self {
        let epoch = team.next_epoch();
        let parity = (team.next_allreduce() & 1) as usize;
        let n = team.n_pes();
        // Reading everybody's mailbox needs them mapped: only a team within one host.
        let all_read = rt.wait.oversubscribed
            && n > 1
            && n <= ALL_READ_MAX_PES
            && !rt.spans_hosts(n, |i| team.pes.world_pe(i));
        let hier = team.host_groups(rt).map(|g| {
            if g.leader(g.mine()) == team.my_index {
                HierStep::Gather
            } else {
                HierStep::Member
            }
        });
        MaxAllreduce { team, epoch, parity, round: 0, sent: false, all_read, hier, acc: values }
    }

    /// Whether this PE takes part as a member (not a leader) of a team across hosts: all it
    /// waits for is its leader's result, a word of a PE of this host.
    pub fn waits_on_this_host(&self) -> bool {
        self.hier == Some(HierStep::Member)
    }

    /// The all-reduce of a team across hosts, in three steps: the members of a host publish
    /// their words in their own mailbox (of this parity, round 0: only its owner writes a
    /// member's mailboxes in a team across hosts), the host's leader folds them, the leaders
    /// run the dissemination among themselves through their round mailboxes (written from
    /// other hosts by two puts with a fence), and each leader publishes the result in its
    /// central mailbox words, flagged in [`W_RESULT`]. A member reads the result before it
    /// publishes in the next all-reduce, and a leader writes the next result only after every
    /// member published, so one result buffer is enough. One network step for 2 hosts (the
    /// flat dissemination over every member took ceil(log2 n) steps).
    fn poll_hier(&mut self, rt: &Runtime) -> bool {
        let team = self.team.clone();
        let groups = team.host_groups(rt).expect("a team across hosts has host groups");
        let slot = team.slot;
        let own_box = SLOT_FIXED_WORDS + self.parity * MAILBOX_WORDS;
        let leader = team.pes.world_pe(groups.leader(groups.mine()));
        loop {
            match self.hier.expect("set at start") {
                HierStep::Done => return true,
                HierStep::Member => {
                    if !self.sent {
                        let mine = &rt.ctrl.slot(rt.my_pe, slot)[own_box..own_box + MAILBOX_WORDS];
                        for (w, v) in mine[1..].iter().zip(self.acc) {
                            w.store(v, Ordering::Relaxed);
                        }
                        mine[0].store(self.epoch, Ordering::Release);
                        rt.notify(leader);
                        self.sent = true;
                    }
                    let words = rt.ctrl.slot(leader, slot);
                    if words[W_RESULT].load(Ordering::Acquire) < self.epoch {
                        return false;
                    }
                    for (a, w) in self.acc.iter_mut().zip(&words[RESULT_WORDS..RESULT_WORDS + PAYLOAD]) {
                        *a = w.load(Ordering::Relaxed);
                    }
                    self.hier = Some(HierStep::Done);
                }
                HierStep::Gather => {
                    let members = groups.members(groups.mine());
                    let boxes = |i: usize| {
                        &rt.ctrl.slot(team.pes.world_pe(i), slot)[own_box..own_box + MAILBOX_WORDS]
                    };
                    if members[1..].iter().any(|&i| boxes(i)[0].load(Ordering::Acquire) < self.epoch) {
                        return false;
                    }
                    for &i in &members[1..] {
                        fold_max(&mut self.acc, &boxes(i)[1..]);
                    }
                    self.hier = Some(HierStep::Leaders(0));
                }
                HierStep::Leaders(round) => {
                    let l = groups.len();
                    if (1usize << round) >= l {
                        let words = rt.ctrl.slot(rt.my_pe, slot);
                        for (w, &v) in words[RESULT_WORDS..RESULT_WORDS + PAYLOAD].iter().zip(&self.acc) {
                            w.store(v, Ordering::Relaxed);
                        }
                        words[W_RESULT].store(self.epoch, Ordering::Release);
                        // The members wait on their own doorbells (a creation's wait).
                        for &i in groups.members(groups.mine()) {
                            rt.notify(team.pes.world_pe(i));
                        }
                        self.hier = Some(HierStep::Done);
                        continue;
                    }
                    let to = team.pes.world_pe(groups.leader((groups.mine() + (1 << round)) % l));
                    if !self.dissemination_round(rt, round, to) {
                        return false;
                    }
                    self.hier = Some(HierStep::Leaders(round + 1));
                }
            }
        }
    }

    /// Publish in our own mailbox, then reduce everybody's once all are there.
    fn poll_all_read(&mut self, rt: &Runtime) -> bool {
        let slot = self.team.slot;
        let mailbox = SLOT_FIXED_WORDS + self.parity * MAILBOX_WORDS;
        let n = self.team.n_pes();
        if !self.sent {
            let mine = &rt.ctrl.slot(rt.my_pe, slot)[mailbox..mailbox + MAILBOX_WORDS];
            for (w, v) in mine[1..].iter().zip(self.acc) {
                w.store(v, Ordering::Relaxed);
            }
            mine[0].store(self.epoch, Ordering::Release);
            for i in 0..n {
                rt.notify(self.team.pes.world_pe(i));
            }
            self.sent = true;
        }
        let boxes =
            |i: usize| &rt.ctrl.slot(self.team.pes.world_pe(i), slot)[mailbox..mailbox + MAILBOX_WORDS];
        if (0..n).any(|i| boxes(i)[0].load(Ordering::Acquire) < self.epoch) {
            return false;
        }
        for i in 0..n {
            fold_max(&mut self.acc, &boxes(i)[1..]);
        }
        self.round = usize::MAX;
        true
    }

    /// Advances as far as possible without waiting; true when the result is ready.
    pub fn poll(&mut self, rt: &Runtime) -> bool {
        if self.hier.is_some() {
            return self.poll_hier(rt);
        }
        if self.all_read {
            return self.round == usize::MAX || self.poll_all_read(rt);
        }
        let n = self.team.pes.size();
        let me = self.team.my_index;
        if self.round == 0 && !self.sent {
            rt.connect_dissemination("team agreement", n, me, |i| self.team.pes.world_pe(i));
        }
        while (1usize << self.round) < n {
            let to = self.team.pes.world_pe((me + (1 << self.round)) % n);
            if !self.dissemination_round(rt, self.round, to) {
                return false;
            }
            self.round += 1;
        }
        true
    }

    /// Round `round` of a dissemination: sends the running maximum to world PE `to` (once)
    /// and folds in what this round's mailbox received; false while it has not arrived.
    fn dissemination_round(&mut self, rt: &Runtime, round: usize, to: usize) -> bool {
        let slot = self.team.slot;
        let mailbox = SLOT_FIXED_WORDS + (round * 2 + self.parity) * MAILBOX_WORDS;
        if !self.sent {
            rt.post_slot_words("team agreement", to, slot, mailbox, &self.acc, self.epoch);
            self.sent = true;
        }
        let mine = &rt.ctrl.slot(rt.my_pe, slot)[mailbox..mailbox + MAILBOX_WORDS];
        if mine[0].load(Ordering::Acquire) < self.epoch {
            if let Some(net) = rt.net() {
                let _ = net.progress();
            }
            return false;
        }
        fold_max(&mut self.acc, &mine[1..]);
        self.sent = false;
        true
    }

    /// Polls until done, sleeping between polls as waits do.
    pub fn wait(&mut self, rt: &Runtime) {
        rt.wait_until(rt.my_pe, || self.poll(rt));
    }

    /// The reduced words (valid once `poll` returned true).
    pub fn result(&self) -> &[u64; PAYLOAD] {
        &self.acc
    }
}

// Payload word positions of a slot agreement. Minima travel as bitwise complements so that
// everything is one MAX. Every checked operation (checked.rs) uses the same positions for the
// error and the hash, so that PEs that called different routines still read each other right.
/// Payload word of the largest error code.
pub const ERROR: usize = 0;
/// Payload word of the largest hash of the call (checked mode).
pub const HASH_MAX: usize = 1;
/// Payload word of the smallest hash of the call (as a complement).
pub const HASH_MIN: usize = 2;
const PROPOSAL_MAX: usize = 3; // + 2 * axis
const PROPOSAL_MIN: usize = 4; // + 2 * axis
const HIGH_WATER: usize = 7; // + axis
/// Payload word: 1 if some PE that joins a new team across hosts had no credit for a
/// deferred destroy (`slots`), so no team of this creation defers its destroy.
const NO_CREDIT: usize = 9;

/// How many slots one agreement can choose (split_2d needs two: rows and columns).
pub const MAX_AXES: usize = 2;

/// What every PE learns from an agreement (the same on all of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agreed {
    /// Slots chosen (one per axis) and the epoch the new teams start after.
    Slots {
        /// The slot of each axis.
        slots: [usize; MAX_AXES],
        /// The new teams' first epochs come after this one.
        base_epoch: u64,
        /// Whether this PE's new team of each axis defers its destroy (it holds a credit).
        defers: [bool; MAX_AXES],
    },
    /// Some PE failed with this code (the largest code reported).
    Failed(u32),
    /// The PEs did not call the same routine with the same arguments (checked mode).
    Mismatch,
}

/// Choosing `axes` team slots over a parent team, free on every PE that joins a new team.
#[derive(Debug)]
pub struct SlotAgreement {
    parent: Arc<TeamInner>,
    axes: usize,
    /// Whether this PE needs the slots (is a member of a new team).
    member: bool,
    local_error: u32,
    hash: u64,
    candidate: [usize; MAX_AXES],
    reserved: [Option<usize>; MAX_AXES],
    round: Option<MaxAllreduce>,
    /// Which axes' new teams (of this PE) span hosts, so would defer their destroy.
    spanning: [bool; MAX_AXES],
    /// Whether this PE took a credit for each spanning axis.
    credited: bool,
    /// The deferred slots this agreement settles once finished (`Teams::deferred_covered_by`).
    settles: Vec<(usize, u64)>,
}

/// Error code of a PE that found no available slot.
pub const NO_SLOT: u32 = 2;

impl SlotAgreement {
    /// Whether everything this PE waits for in the agreement is written by PEs of its host
    /// (see [`MaxAllreduce::waits_on_this_host`]); the same for every round of it.
    pub fn waits_on_this_host(&self) -> bool {
        self.round.as_ref().is_some_and(MaxAllreduce::waits_on_this_host)
    }

    /// Starts choosing `axes` (0 to 2) slots. `local_error` (0 for none) makes every PE fail
    /// with at least that code; `hash` (0 when unchecked) must agree on every PE.
    /// `spanning`: which of this PE's new teams span hosts (their destroy defers if every
    /// such member has a credit for it).
    pub fn start(
        rt: &Runtime,
        parent: Arc<TeamInner>,
        axes: usize,
        member: bool,
        local_error: u32,
        hash: u64,
        spanning: [bool; MAX_AXES],
    ) -> Self {
        let settles = rt.teams().deferred_covered_by(&parent);
        let mut a = SlotAgreement {
            round: None,
            parent,
            axes,
            member,
            local_error,
            hash,
            candidate: [0; MAX_AXES],
            reserved: [None; MAX_AXES],
            spanning,
            credited: false,
            settles,
        };
        if member && local_error == 0 {
            rt.teams().settle_releases(rt);
        }
        let payload = a.propose(rt);
        a.round = Some(MaxAllreduce::start(rt, a.parent.clone(), payload));
        a
    }

    /// Reserves this PE's proposals at or after the candidates and builds the payload.
    fn propose(&mut self, rt: &Runtime) -> [u64; PAYLOAD] {
        let mut p = [0u64; PAYLOAD];
        let mut error = self.local_error;
        p[HASH_MAX] = self.hash;
        p[HASH_MIN] = !self.hash;
        for axis in 0..MAX_AXES {
            p[PROPOSAL_MIN + 2 * axis] = !u64::MAX; // identity for non-members / unused axes
        }
        if self.member && error == 0 {
            let mut slots = rt.teams().available_slots(rt);
            let mut from = 0;
            for axis in 0..self.axes {
                from = from.max(self.candidate[axis]);
                match slots.reserve_from(from) {
                    Some((s, high_water)) => {
                        self.reserved[axis] = Some(s);
                        p[PROPOSAL_MAX + 2 * axis] = s as u64;
                        p[PROPOSAL_MIN + 2 * axis] = !(s as u64);
                        p[HIGH_WATER + axis] = high_water;
                        from = s + 1;
                    }
                    None => {
                        error = NO_SLOT;
                        break;
                    }
                }
            }
        }
        let wanted = self.wanted_credits();
        if self.member && error == 0 && wanted > 0 && !self.credited {
            self.credited = rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner()).take_credits(wanted);
        }
        p[NO_CREDIT] = u64::from(wanted > 0 && !self.credited);
        p[ERROR] = error as u64;
        p
    }

    /// Credits this PE needs: one per new team of its that spans hosts.
    fn wanted_credits(&self) -> usize {
        self.spanning.iter().filter(|&&s| s).count()
    }

    /// Gives back this PE's credits (no team of this creation defers its destroy).
    fn uncredit(&mut self, rt: &Runtime) {
        if std::mem::take(&mut self.credited) {
            let n = self.wanted_credits();
            rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner()).give_credits(n);
        }
    }

    /// The agreement has finished (whatever its outcome): every PE of the parent joined it,
    /// each after its own destroys, so the deferred slots of teams within the parent are free.
    fn finished(&mut self, rt: &Runtime) {
        rt.teams().settle_deferred(&std::mem::take(&mut self.settles));
    }

    fn unreserve(&mut self, rt: &Runtime) {
        if self.reserved.iter().any(Option::is_some) {
            let mut slots = rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner());
            for r in self.reserved.iter_mut() {
                if let Some(s) = r.take() {
                    slots.unreserve(s);
                }
            }
        }
    }

    /// Advances; `Some` when every PE knows the outcome. On `Slots`, this PE's reservations
    /// (if a member) are now its claims.
    pub fn poll(&mut self, rt: &Runtime) -> Option<Agreed> {
        let round = self.round.as_mut().expect("an agreement always has a round in flight");
        if !round.poll(rt) {
            return None;
        }
        let r = *round.result();
        if r[ERROR] != 0 {
            self.unreserve(rt);
            self.uncredit(rt);
            self.finished(rt);
            return Some(Agreed::Failed(r[ERROR] as u32));
        }
        if r[HASH_MAX] != !r[HASH_MIN] {
            self.unreserve(rt);
            self.uncredit(rt);
            self.finished(rt);
            return Some(Agreed::Mismatch);
        }
        // An axis without any member (split_color where every PE passed an undefined color)
        // has only the identity proposals: there is nothing to choose.
        let nobody = |a: usize| r[PROPOSAL_MIN + 2 * a] == !u64::MAX;
        let converged =
            (0..self.axes).all(|a| nobody(a) || r[PROPOSAL_MAX + 2 * a] == !r[PROPOSAL_MIN + 2 * a]);
        if converged {
            let mut slots = [0usize; MAX_AXES];
            let mut base_epoch = 0;
            for a in 0..self.axes {
                slots[a] = r[PROPOSAL_MAX + 2 * a] as usize;
                base_epoch = base_epoch.max(r[HIGH_WATER + a]);
            }
            if self.member {
                let mut table = rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner());
                for r in self.reserved.iter_mut() {
                    if let Some(s) = r.take() {
                        table.claim(s);
                    }
                }
            }
            if r[NO_CREDIT] != 0 {
                self.uncredit(rt);
            }
            let mut defers = [false; MAX_AXES];
            for (d, &s) in defers.iter_mut().zip(&self.spanning) {
                *d = s && self.credited;
            }
            self.finished(rt);
            return Some(Agreed::Slots { slots, base_epoch, defers });
        }
        // Move every candidate up to the largest proposal (kept increasing along the axes)
        // and try again: candidates only grow, so this ends.
        self.unreserve(rt);
        let mut floor = 0;
        for a in 0..self.axes {
            self.candidate[a] = (r[PROPOSAL_MAX + 2 * a] as usize).max(floor);
            floor = self.candidate[a] + 1;
        }
        let payload = self.propose(rt);
        self.round = Some(MaxAllreduce::start(rt, self.parent.clone(), payload));
        self.poll(rt)
    }

    /// Polls until the outcome is known.
    pub fn wait(&mut self, rt: &Runtime) -> Agreed {
        let mut out = None;
        rt.wait_until(rt.my_pe, || {
            out = self.poll(rt);
            out.is_some()
        });
        out.expect("wait_until returns once poll gave an outcome")
    }
}
