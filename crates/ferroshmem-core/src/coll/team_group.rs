//! The group of a team collective ([`TeamGroup`]): flags in the team's slot, epochs from the
//! team, the eager scratch ring, the central exchanges (mailbox or staging halves), the staged
//! broadcast ring and pushed deliveries.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};

use super::{
    copy, EagerBuf, Group, Staging, CENTRAL_WORDS, EAGER_BYTES, SCRATCH_WORDS, SHARED_STAGE_BYTES,
    STAGED_BLOCK_BYTES, STAGED_BROADCAST_BYTES, STAGE_HALF, STAGE_RING, STAGE_RING_BYTES, STAGE_RING_ENTRIES,
    STAGE_TAGS, W_ARRIVE, W_CENTRAL, W_DELIVERED, W_ENTER, W_ENTRANTS, W_LAST, W_SCRATCH, W_STAGE_LAST,
    W_WORD,
};
use crate::error::Result;
use crate::runtime::{add_to_tagged_count, tagged_count, Runtime, CENTRAL_COUNT_BITS};
use crate::team::checked::Signature;
use crate::team::TeamInner;

/// A team collective: flags in the team's slot, epochs from the team.
#[derive(Debug)]
pub struct TeamGroup<'a> {
    team: &'a TeamInner,
    epoch: u64,
    /// Words of a scratch entry in the current eager collective (a tag word, then the payload).
    entry_words: usize,
    /// Whether the current collective is eager (members' data is in their scratch entries).
    eager: bool,
    /// Where the current exchange left its blocks.
    exchanged: Exchanged,
    /// Checked mode: the call was checked already (the safe API checks before it calls).
    prechecked: bool,
}

/// Where [`Group::exchange`] put the members' blocks for this PE.
#[derive(Debug, Clone, Copy)]
enum Exchanged {
    None,
    /// In member 0's mailbox: member i's block for this PE at `row + i * stride`.
    Mailbox {
        row: usize,
        stride: usize,
    },
    /// In each member's staging area, at this offset.
    Staged {
        offset: usize,
    },
}

impl<'a> TeamGroup<'a> {
    /// The next collective of `team`.
    pub fn new(team: &'a TeamInner) -> Self {
        TeamGroup {
            team,
            epoch: 0,
            entry_words: 1,
            eager: false,
            exchanged: Exchanged::None,
            prechecked: false,
        }
    }

    /// [`TeamGroup::new`] for a call already checked in checked mode (by the safe API, which
    /// runs the check itself so that a PE whose own arguments fail still takes part).
    pub fn prechecked(team: &'a TeamInner) -> Self {
        TeamGroup { prechecked: true, ..Self::new(team) }
    }

    /// Before this epoch writes its entry (of `entry` size, `depth` to the ring) of a ring whose
    /// last write is recorded at slot words `last` (epoch) and `last + 1` (entry size): waits
    /// until no member can still read the entry. With the same entry size as the last write,
    /// the entry was last written `depth` blocks ago; with another size any earlier write may
    /// overlap, so it waits past the last one. "No member can read it" means every other
    /// member has started a later collective (see `enter_eager`). When it must look, it waits
    /// for half a ring more, up to the collective this PE is in (which every member can reach
    /// without us), so a root that runs ahead looks at the others' words once per half ring.
    fn wait_ring_free(&self, rt: &Runtime, last: usize, entry: u64, depth: u64) {
        let mine = rt.ctrl.slot(rt.my_pe, self.team.slot);
        let need = if mine[last + 1].load(Ordering::Relaxed) == entry {
            ((self.epoch >> Self::shift(rt)) + 1).saturating_sub(depth) << Self::shift(rt)
        } else {
            mine[last].load(Ordering::Relaxed) + 1
        };
        if need <= 1 || need <= self.team.entered_floor() {
            return;
        }
        let need = (need + ((depth / 2) << Self::shift(rt))).min(self.epoch).max(need);
        // W_ENTER must be seen (and rung) before this PE waits for anyone.
        rt.notify(rt.my_pe);
        let mut floor = u64::MAX;
        for i in (0..self.n()).filter(|&i| i != self.me()) {
            let pe = self.pe(i);
            let enter = &rt.ctrl.slot(pe, self.team.slot)[W_ENTER];
            rt.wait_until(pe, || enter.load(Ordering::Acquire) >= need);
            floor = floor.min(enter.load(Ordering::Acquire));
        }
        self.team.raise_entered_floor(floor);
    }

    /// Epochs per eager collective, as a shift: one, or two when oversubscribed (the central
    /// sync or [`Group::pad_epoch`]), so consecutive eager collectives have consecutive blocks.
    fn shift(rt: &Runtime) -> u32 {
        u32::from(rt.wait.oversubscribed)
    }

    /// Entries in the ring at the current entry size.
    fn depth(&self) -> u64 {
        (SCRATCH_WORDS / self.entry_words) as u64
    }

    /// First word of the current epoch's entry.
    fn entry(&self, rt: &Runtime) -> usize {
        ((self.epoch >> Self::shift(rt)) % self.depth()) as usize * self.entry_words
    }
}

impl Group for TeamGroup<'_> {
    fn check(&mut self, rt: &Runtime, call: impl FnOnce() -> Signature) -> Result<()> {
        if rt.checked && !self.prechecked {
            crate::team::checked::check_team(rt, self.team, &call())?;
        }
        Ok(())
    }

    fn network_sync(&mut self, rt: &Runtime, _routine: &'static str) -> Result<()> {
        self.team.sync_unchecked(rt);
        Ok(())
    }

    fn staging(&self) -> Staging {
        Staging { slot: self.team.slot, base: 0, len: SHARED_STAGE_BYTES }
    }

    fn team(&self) -> Option<&TeamInner> {
        Some(self.team)
    }

    #[inline]
    fn n(&self) -> usize {
        self.team.pes.size()
    }
    #[inline]
    fn me(&self) -> usize {
        self.team.my_index
    }
    #[inline]
    fn pe(&self, i: usize) -> usize {
        self.team.pes.world_pe(i)
    }
    fn enter(&mut self, rt: &Runtime, word: u64) {
        self.epoch = self.team.next_epoch();
        self.eager = false;
        let mine = rt.ctrl.slot(rt.my_pe, self.team.slot);
        mine[W_WORD].store(word, Ordering::Relaxed);
        mine[W_ENTER].store(self.epoch, Ordering::Relaxed);
        // Release: the caller's source writes and the word are visible before the flag.
        mine[W_ARRIVE].store(self.epoch, Ordering::Release);
        rt.notify(rt.my_pe);
    }
    fn wait_member(&self, rt: &Runtime, i: usize) -> u64 {
        let pe = self.pe(i);
        let words = rt.ctrl.slot(pe, self.team.slot);
        let e = self.epoch;
        if self.eager {
            // Eager collectives wait only for members whose entry they read: its tag.
            let tag = &words[W_SCRATCH + self.entry(rt)];
            rt.wait_until(pe, || tag.load(Ordering::Acquire) >= e);
            return 0;
        }
        rt.wait_until(pe, || words[W_ARRIVE].load(Ordering::Acquire) >= e);
        words[W_WORD].load(Ordering::Relaxed)
    }
    /// Every member published `W_ENTER` = this epoch (or a later one) before it arrived in
    /// the sync, so the sync also raises the floor of what the others have entered.
    fn leave(&mut self, rt: &Runtime) {
        self.team.sync_unchecked(rt);
        self.team.raise_entered_floor(self.epoch);
    }
    /// The scratch is a ring of entries of the payload's size, the entry chosen by the epoch's
    /// block (epoch >> shift). Before writing an entry, this PE waits until every member has
    /// started a collective after the last one that could have written the entry's words (a
    /// member reads an entry only during its own epoch, and `W_ENTER` only grows; see
    /// `wait_ring_free`). Entries interleave tag and payload words (even words of the ring are tags: the epoch
    /// that wrote them, whatever the entry size), and readers wait for the entry's first tag:
    /// it is in the payload's cache line, and since an entry is not rewritten while a reader
    /// may still wait for it, `tag >= epoch` means this epoch's data.
    /// `W_ENTER` is set before this wait, so two PEs never wait for each other here. A small
    /// broadcast root can thus run up to `depth` operations ahead of the slowest member.
    fn enter_eager(&mut self, rt: &Runtime, payload: usize, len: usize, common: usize) -> bool {
        debug_assert!(len <= EAGER_BYTES && common <= EAGER_BYTES);
        self.epoch = self.team.next_epoch();
        self.entry_words = 2 * common.div_ceil(8).max(1);
        self.eager = true;
        let mine = rt.ctrl.slot(rt.my_pe, self.team.slot);
        mine[W_ENTER].store(self.epoch, Ordering::Release);
        // A zero-byte collective still publishes a tag (readers wait for it).
        if len > 0 || common == 0 {
            self.wait_ring_free(rt, W_LAST, self.entry_words as u64, self.depth());
            let entry = &mine[W_SCRATCH + self.entry(rt)..];
            let words = len.div_ceil(8);
            if words == 0 {
                entry[0].store(self.epoch, Ordering::Release);
            }
            for w in (0..words).rev() {
                let mut v = [0u8; 8];
                let part = (len - 8 * w).min(8);
                // SAFETY: `payload` is readable for `len` bytes (the caller's checked source).
                unsafe {
                    std::ptr::copy_nonoverlapping((payload + 8 * w) as *const u8, v.as_mut_ptr(), part)
                };
                entry[2 * w + 1].store(u64::from_ne_bytes(v), Ordering::Relaxed);
                // The first tag last, with Release: it publishes the whole entry.
                entry[2 * w].store(self.epoch, if w == 0 { Ordering::Release } else { Ordering::Relaxed });
            }
            mine[W_LAST].store(self.epoch, Ordering::Relaxed);
            mine[W_LAST + 1].store(self.entry_words as u64, Ordering::Relaxed);
        }
        mine[W_ARRIVE].store(self.epoch, Ordering::Release);
        rt.notify(rt.my_pe);
        true
    }
    fn all_entered(&mut self, rt: &Runtime) {
        if rt.wait.oversubscribed {
            self.leave(rt);
        }
    }
    fn exchange(&mut self, rt: &Runtime, src: usize, block: usize, parts: usize, row: usize) -> bool {
        let n = self.n();
        if n < 2 || !rt.uses_central_sync(n) {
            return false;
        }
        let stride = block.div_ceil(8).max(1) * 8;
        let in_mailbox = parts * n * stride <= CENTRAL_WORDS / 2 * 8;
        if !in_mailbox && (parts * block > STAGE_HALF || block > STAGED_BLOCK_BYTES) {
            return false;
        }
        self.epoch = self.team.next_epoch();
        self.eager = false;
        let mine = rt.ctrl.slot(rt.my_pe, self.team.slot);
        mine[W_ENTER].store(self.epoch, Ordering::Release);
        rt.notify(rt.my_pe);
        // Halves alternate with the team's count of exchanges: a PE writes half h again only
        // after the sync of the exchange between, which every member reached after reading
        // half h.
        let half = (self.team.next_central_exchange() & 1) as usize;
        if in_mailbox {
            let words = &rt.ctrl.slot(self.pe(0), self.team.slot)[W_CENTRAL + half * CENTRAL_WORDS / 2..];
            let mailbox = words.as_ptr() as usize;
            let mine = mailbox + self.me() * parts * stride;
            if stride == block {
                // SAFETY: this PE's part of the mailbox half (size checked above), contiguous;
                // no member reads or writes it until the sync below.
                unsafe { copy(mine, src, parts * block) };
            } else {
                for j in 0..parts {
                    // SAFETY: as above, block by block.
                    unsafe { copy(mine + j * stride, src + j * block, block) };
                }
            }
            self.exchanged = Exchanged::Mailbox { row: mailbox + row * stride, stride: parts * stride };
        } else {
            let stage = rt.ctrl.stage(rt.my_pe, self.team.slot) + half * STAGE_HALF;
            // SAFETY: `parts * block` bytes fit the half (checked above); nobody reads it
            // until the sync below.
            unsafe { copy(stage, src, parts * block) };
            self.exchanged = Exchanged::Staged { offset: half * STAGE_HALF + row * block };
        }
        self.leave(rt);
        true
    }
    fn exchanged(&self, rt: &Runtime, i: usize) -> usize {
        match self.exchanged {
            Exchanged::Mailbox { row, stride } => row + i * stride,
            Exchanged::Staged { offset } => rt.ctrl.stage(self.pe(i), self.team.slot) + offset,
            Exchanged::None => unreachable!("no exchange in progress"),
        }
    }
    /// The ring works like the eager scratch ring (entries rewritten only once every member
    /// has started a later collective), with entries on cache-line boundaries and one tag word
    /// per entry in a separate array, written after the payload.
    fn broadcast_staged(
        &mut self,
        rt: &Runtime,
        root: usize,
        src: usize,
        dest: usize,
        nbytes: usize,
        write_dest: bool,
    ) -> bool {
        if !rt.wait.oversubscribed || nbytes == 0 || nbytes > STAGED_BROADCAST_BYTES {
            return false;
        }
        self.epoch = self.team.next_epoch();
        self.eager = false;
        let entry_bytes = nbytes.next_multiple_of(64);
        let depth = (STAGE_RING_BYTES / entry_bytes).min(STAGE_RING_ENTRIES) as u64;
        let shift = Self::shift(rt);
        let index = ((self.epoch >> shift) % depth) as usize;
        let offset = STAGE_RING + index * entry_bytes;
        let tag_at = |pe: usize| {
            let tag = rt.ctrl.stage(pe, self.team.slot) + STAGE_TAGS + index * 8;
            // SAFETY: an 8-byte-aligned word of the tag array, only ever used atomically.
            unsafe { &*(tag as *const AtomicU64) }
        };
        let mine = rt.ctrl.slot(rt.my_pe, self.team.slot);
        mine[W_ENTER].store(self.epoch, Ordering::Release);
        if self.me() == root {
            self.wait_ring_free(rt, W_STAGE_LAST, entry_bytes as u64, depth);
            let entry = rt.ctrl.stage(rt.my_pe, self.team.slot) + offset;
            // SAFETY: the entry lies in this PE's ring and no member reads it any more (waited
            // above); `src` is the caller's checked source.
            unsafe { copy(entry, src, nbytes) };
            tag_at(rt.my_pe).store(self.epoch, Ordering::Release);
            mine[W_STAGE_LAST].store(self.epoch, Ordering::Relaxed);
            mine[W_STAGE_LAST + 1].store(entry_bytes as u64, Ordering::Relaxed);
            rt.notify(rt.my_pe);
            if write_dest {
                // SAFETY: the caller's checked buffers (equal, or not overlapping).
                unsafe { copy(dest, src, nbytes) };
            }
        } else {
            rt.notify(rt.my_pe);
            let pe = self.pe(root);
            let entry = rt.ctrl.stage(pe, self.team.slot) + offset;
            let (tag, e) = (tag_at(pe), self.epoch);
            rt.wait_until(pe, || tag.load(Ordering::Acquire) >= e);
            // SAFETY: the tag says the entry holds this epoch's payload, and the root does not
            // rewrite it before this PE starts a later collective.
            unsafe { copy(dest, entry, nbytes) };
        }
        self.team.next_epoch();
        true
    }
    fn pad_epoch(&mut self, rt: &Runtime) {
        if rt.wait.oversubscribed {
            self.team.next_epoch();
        }
    }
    /// Only with more PEs than cores, where a closing sync means another turn of every PE
    /// on its core; with a core each, pulling and a dissemination sync measured faster (4 KiB
    /// blocks at 2 PEs: 0.21 against 0.27 µs).
    fn can_push(&self, rt: &Runtime) -> bool {
        rt.wait.oversubscribed && self.n() < 1 << CENTRAL_COUNT_BITS
    }
    fn has_entered(&self, rt: &Runtime, i: usize) -> bool {
        rt.ctrl.slot(self.pe(i), self.team.slot)[W_ARRIVE].load(Ordering::Acquire) >= self.epoch
    }
    /// The count carries the epoch, so a word left by an earlier collective (or team on this
    /// slot) restarts at 1. Every writer of a member's word in one epoch waited for it to enter
    /// that epoch, and it leaves the epoch only once all have counted, so writers never mix.
    fn delivered(&self, rt: &Runtime, i: usize) {
        let pe = self.pe(i);
        add_to_tagged_count(&rt.ctrl.slot(pe, self.team.slot)[W_DELIVERED], self.epoch);
        rt.notify(pe);
    }
    fn wait_deliveries(&self, rt: &Runtime) {
        let word = &rt.ctrl.slot(rt.my_pe, self.team.slot)[W_DELIVERED];
        let all = tagged_count(self.epoch, self.n() as u64 - 1);
        if self.n() > 1 {
            rt.wait_until(rt.my_pe, || word.load(Ordering::Acquire) == all);
        }
    }
    /// The entrants word lives on member 0. The last member to enter clears it before it
    /// arrives in the closing sync, so no member can reach the next in-order alltoall (it must
    /// first leave that sync) before the word is clear; a completed alltoall leaves it clear
    /// for whatever team gets the slot next.
    fn in_order(&self, rt: &Runtime) -> bool {
        rt.wait.oversubscribed && (2..=64).contains(&self.n()) && super::in_order::enabled()
    }
    fn enter_in_order(&mut self, rt: &Runtime) -> u64 {
        self.enter(rt, 0);
        let entrants = &rt.ctrl.slot(self.pe(0), self.team.slot)[W_ENTRANTS];
        // The closing sync (`leave`) releases nobody before the last entrant, which cleared
        // the word, arrives.
        super::in_order::enter(entrants, self.me(), self.n())
    }
    fn fetch(&self, rt: &Runtime, i: usize, buf: &mut EagerBuf) -> usize {
        let entry = &rt.ctrl.slot(self.pe(i), self.team.slot)[W_SCRATCH + self.entry(rt)..];
        for (w, b) in buf.0.iter_mut().enumerate().take(self.entry_words / 2) {
            *b = entry[2 * w + 1].load(Ordering::Relaxed);
        }
        buf.0.as_ptr() as usize
    }
}
