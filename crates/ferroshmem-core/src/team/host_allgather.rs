//! All-gather of a few words per member over a team across hosts, in two levels, as a state
//! machine: the collects' counts (`coll::hier::collect`, which waits for it) and the entries
//! of a split_color (`team::color`, whose non-blocking creation polls it) go through it.
//!
//! One collective operation of the team (its epoch is the caller's `Op`'s): each member that
//! is not its host's leader publishes its words where its leader can read them (the caller's
//! business), arrives at its leader and waits for its release, then reads the whole table
//! from its own staging area (from `leaders_allgather::WORDS_AT`, where the leader writes only
//! after the member arrived in a later operation). A leader waits for its members' arrivals,
//! reads their words, runs the leaders' all-gather (`team::leaders_allgather`: Bruck's
//! exchange, ceil(log2 L) network steps, no network traffic from any other PE), copies the
//! table into each member's staging area and releases them, ringing each one's doorbell (so a
//! member may wait on its own, as a creation's wait does).

use std::sync::atomic::Ordering;

use crate::runtime::{tagged_count, CENTRAL_ARRIVALS, CENTRAL_RELEASE};
use crate::team::across_hosts::Op;
use crate::team::leaders_allgather::{LeadersAllgather, WORDS_AT};

/// Where one PE's all-gather stands.
#[derive(Debug)]
pub(crate) struct HostAllgather {
    per_member: usize,
    /// Member: whether it arrived. Leader: whether its host's block is read.
    began: bool,
    allgather: LeadersAllgather,
    /// Leader: each group's block of words.
    blocks: Vec<Vec<u64>>,
}

impl HostAllgather {
    /// An all-gather of `per_member` words per member (the team's shape must fit:
    /// `leaders_allgather::fits`).
    pub(crate) fn new(per_member: usize) -> Self {
        HostAllgather {
            per_member,
            began: false,
            allgather: LeadersAllgather::new(per_member),
            blocks: Vec::new(),
        }
    }

    /// Advances as far as it can without waiting, as part of `op`; once this PE has it, the
    /// table: `per_member` words for each member, in team order. On a leader, `read(i, out)`
    /// appends local member `i`'s words to `out` (called for each local member, the leader
    /// included, once they all arrived: what they published before arriving is there).
    pub(crate) fn poll(&mut self, op: &Op<'_>, read: impl FnMut(usize, &mut Vec<u64>)) -> Option<Vec<u64>> {
        if op.is_leader() {
            self.poll_leader(op, read)
        } else {
            self.poll_member(op)
        }
    }

    /// Polls until this PE has the table, waiting on its own doorbell in between.
    pub(crate) fn wait(&mut self, op: &Op<'_>, mut read: impl FnMut(usize, &mut Vec<u64>)) -> Vec<u64> {
        let mut table = None;
        op.rt.wait_until(op.rt.my_pe, || {
            table = self.poll(op, &mut read);
            table.is_some()
        });
        table.expect("the wait ends once the table is here")
    }

    fn poll_member(&mut self, op: &Op<'_>) -> Option<Vec<u64>> {
        let leader = op.my_leader();
        if !self.began {
            op.arrive(leader);
            self.began = true;
        }
        if op.word(leader, CENTRAL_RELEASE).load(Ordering::Acquire) < op.epoch {
            return None;
        }
        let words = op.team.n_pes() * self.per_member;
        let stage = op.rt.stage_addr(op.team.slot) + WORDS_AT;
        // SAFETY: the table's words in our staging area from WORDS_AT (they fit: `leaders_allgather::fits`),
        // written by our leader before its release, which we saw; it writes there again only
        // after we arrived in a later operation.
        Some(unsafe { std::slice::from_raw_parts(stage as *const u64, words) }.to_vec())
    }

    fn poll_leader(&mut self, op: &Op<'_>, mut read: impl FnMut(usize, &mut Vec<u64>)) -> Option<Vec<u64>> {
        let (rt, team, groups) = (op.rt, op.team, op.groups);
        let mine = groups.members(groups.mine());
        if !self.began {
            let others = op.local_others();
            if others > 0
                && op.word(rt.my_pe, CENTRAL_ARRIVALS).load(Ordering::Acquire)
                    < tagged_count(op.epoch, others)
            {
                return None;
            }
            let mut block = Vec::with_capacity(mine.len() * self.per_member);
            for &i in mine {
                read(i, &mut block);
            }
            debug_assert_eq!(block.len(), mine.len() * self.per_member);
            self.blocks = vec![Vec::new(); groups.len()];
            self.blocks[groups.mine()] = block;
            self.began = true;
        }
        if !self.allgather.poll(op, &mut self.blocks) {
            if let Some(net) = rt.net() {
                let _ = net.progress();
            }
            return None;
        }
        let k = self.per_member;
        let mut table = vec![0u64; team.n_pes() * k];
        for (g, block) in self.blocks.iter().enumerate() {
            for (&i, w) in groups.members(g).iter().zip(block.chunks_exact(k)) {
                table[i * k..(i + 1) * k].copy_from_slice(w);
            }
        }
        for &i in &mine[1..] {
            let to = rt.ctrl.stage(op.pe(i), team.slot) + WORDS_AT;
            // SAFETY: member i's staging area (mapped here: same host), the table's words from
            // WORDS_AT (they fit: `leaders_allgather::fits`); i arrived in this operation, and reads them only
            // after our release.
            unsafe { std::ptr::copy_nonoverlapping(table.as_ptr(), to as *mut u64, table.len()) };
        }
        op.release();
        // Members may wait on their own doorbells (a creation's wait, `wait`).
        for &i in &mine[1..] {
            rt.notify(op.pe(i));
        }
        Some(table)
    }
}
