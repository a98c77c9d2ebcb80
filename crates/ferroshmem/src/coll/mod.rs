//! Collectives on shared memory: broadcast, collect, fcollect, alltoall(s) and reductions over
//! a team or a deprecated active set.
//!
//! With a core per PE, small payloads (at most [`EAGER_BYTES`] per PE) are *eager*: each PE
//! copies its payload into a ring of tagged entries in its team slot and returns once it has
//! read what it needs from the others' entries, without a closing sync (see [`TeamGroup`]'s
//! `enter_eager`).
//!
//! With more PEs than cores, what costs is how often each PE must be scheduled, so every
//! collective that needs every member makes one central sync ([`Group::exchange`]): small
//! contributions go into a mailbox on member 0 (`W_CENTRAL`), medium ones (up to
//! [`STAGE_HALF`]) into each member's staging area (`job::STAGE_BYTES` per slot, after the
//! slots); broadcasts up to [`STAGED_BROADCAST_BYTES`] go through a ring in the root's staging
//! area with no sync at all ([`Group::broadcast_staged`]).
//!
//! Larger ones *pull*: a PE announces that it has entered the operation (its source is ready
//! and its destination is free), the others read its source straight from its mapped memory
//! (one copy), and only the owner writes its destination, except in the large reduction, where
//! the PE that reduced a chunk writes it into every member's destination after every member has
//! entered. A closing sync makes every source reusable on return. Larger alltoalls with more PEs
//! than cores *push* instead ([`Group::can_push`]): each block is written into its owner's
//! destination once the owner has entered and counted there (`W_DELIVERED`); nobody reads
//! another PE's buffers, so there is no closing sync.
//!
//! Synchronisation lives on the team's own slot (slot words 64..384 placed by `team::slot_layout`: `W_ARRIVE`, `W_WORD`,
//! `W_ENTER`, the scratch ring, the central mailbox; the team sync before them), with epochs
//! from `TeamInner::next_epoch`, so only the team's members take part and teams can run
//! collectives concurrently. An active set has no slot: it uses the caller's `pSync` array as
//! [`ActiveSet`] describes.
//!
//! A slot is reused by a new team only once no PE of the old team can still read this PE's
//! rings or staging area: `shmem_team_destroy` syncs the team first or waits for every
//! member's release signal, and a Rust `Team` dropped without `destroy` waits for the
//! signals (`team::release`).
#![allow(unsafe_code)]

mod across;
pub mod active;
pub mod api;
pub(crate) mod hier;
pub mod ops;

use std::sync::atomic::{fence, AtomicU64, Ordering};

use crate::atomic::AmoOp;
use crate::error::{Error, Result};
use crate::runtime::{add_to_tagged_count, tagged_count, Runtime, CENTRAL_COUNT_BITS};
use crate::team::checked::Signature;
use crate::team::TeamInner;
pub use ops::{And, Complex, Max, Min, Or, Prod, ReduceOp, Sum, Xor};

pub(crate) use crate::team::slot_layout::{
    CENTRAL_WORDS, SCRATCH_WORDS, W_ARRIVE, W_CENTRAL, W_DELIVERED, W_ENTER, W_LAST, W_SCRATCH, W_STAGE_LAST,
    W_WORD,
};
/// Payload words of the largest eager entry (each payload word has a tag word beside it).
pub const EAGER_WORDS: usize = 12;
/// Payloads up to this size go through the scratch ring (eager: no closing sync).
pub const EAGER_BYTES: usize = EAGER_WORDS * 8;
/// Bytes at the start of a slot's staging area (`job::STAGE_BYTES`) that the collectives
/// within one host, the hierarchical exchanges ([`HIER_STAGE_BYTES`]) and the active sets use;
/// the rest belongs to the ring of small broadcasts between hosts (`hier`).
pub const SHARED_STAGE_BYTES: usize = 80 << 10;
const _: () = assert!(SHARED_STAGE_BYTES < crate::job::STAGE_BYTES);
/// Staging area of a team slot ([`SHARED_STAGE_BYTES`] per PE): two halves for staged exchanges,
/// then the ring of staged broadcasts, then the ring's tags (one word per entry, apart from
/// the payloads so that a payload word left by entries of another size never looks like one).
pub const STAGE_HALF: usize = 32 << 10;
/// Largest block staged (and so the largest staged fcollect or reduction): above it, writing
/// the block into the staging area and having the others read it there costs more than the
/// sync it saves (the pull path reads the sources, which stay in cache from call to call, and
/// reductions split the work from 16 KiB). An alltoall of n such blocks may use a whole half.
pub const STAGED_BLOCK_BYTES: usize = 8 << 10;
/// Offset of the staged broadcast ring in the staging area.
pub const STAGE_RING: usize = 2 * STAGE_HALF;
/// Most entries of the staged ring.
pub const STAGE_RING_ENTRIES: usize = 128;
/// Offset of the tag words of the staged ring.
pub const STAGE_TAGS: usize = SHARED_STAGE_BYTES - STAGE_RING_ENTRIES * 8;
/// Bytes of the staged broadcast ring.
pub const STAGE_RING_BYTES: usize = STAGE_TAGS - STAGE_RING;
/// Largest staged broadcast (the ring then holds at least two entries).
pub const STAGED_BROADCAST_BYTES: usize = STAGE_RING_BYTES / 2 / 64 * 64;
const _: () = assert!(SCRATCH_WORDS >= 4 * EAGER_WORDS);

/// A copy of one eager payload, aligned for every reducible type (long double: 16 bytes).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
pub struct EagerBuf(pub [u64; EAGER_WORDS]);

impl EagerBuf {
    /// An empty buffer.
    pub const fn new() -> Self {
        EagerBuf([0; EAGER_WORDS])
    }
}

impl Default for EagerBuf {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a collective across hosts may stage data: bytes `base..base + len` of every member's
/// staging area of team slot `slot`.
#[derive(Debug, Clone, Copy)]
pub struct Staging {
    /// The team slot.
    pub slot: usize,
    /// First byte.
    pub base: usize,
    /// Bytes.
    pub len: usize,
}

/// Bytes at the start of a slot's staging area that the hierarchical collectives (`hier`) use;
/// the rest of the world team's staging area serves the deprecated active sets that span
/// hosts (which have no slot of their own). Hierarchical exchanges have no closing sync, so
/// their part must be theirs alone; the flat collectives of `across` begin and end with a sync.
pub const HIER_STAGE_BYTES: usize = 64 << 10;
const _: () = assert!(HIER_STAGE_BYTES < SHARED_STAGE_BYTES);

/// Reductions of at least this many bytes split the index range across the members
/// (reduce-scatter, then each member writes its chunk to every member).
pub const REDUCE_SCATTER_BYTES: usize = 16 << 10;

/// The PEs taking part in one collective and how they meet.
pub trait Group {
    /// Checked mode: verifies that every member makes this same call (teams only; an active
    /// set has no place to compare calls). `call` builds the signature, only in checked mode:
    /// it costs more than a small collective.
    fn check(&mut self, _rt: &Runtime, _call: impl FnOnce() -> Signature) -> Result<()> {
        Ok(())
    }
    /// Number of members.
    fn n(&self) -> usize;
    /// This PE's member index.
    fn me(&self) -> usize;
    /// World PE of member `i`.
    fn pe(&self, i: usize) -> usize;
    /// Announces that this PE entered the collective, publishing `word` (collect's count).
    fn enter(&mut self, rt: &Runtime, word: u64);
    /// Whether the members run on more than one host (then the collectives of `across` run).
    fn spans_hosts(&self, rt: &Runtime) -> bool {
        rt.spans_hosts(self.n(), |i| self.pe(i))
    }
    /// A sync of every member that works across hosts (`across` frames its collectives with it).
    fn network_sync(&mut self, rt: &Runtime, routine: &'static str) -> Result<()>;
    /// The staging area that the flat collectives across hosts (`across`) may use.
    fn staging(&self) -> Staging;
    /// The team, for a team collective (an active set has none).
    fn team(&self) -> Option<&TeamInner> {
        None
    }
    /// Waits until member `i` has entered; returns the word it published.
    fn wait_member(&self, rt: &Runtime, i: usize) -> u64;
    /// Ends the collective: returns once no member reads or writes this PE's buffers.
    fn leave(&mut self, rt: &Runtime);
    /// Eager entry (every member must make the same choice, with the same `common`, the
    /// payload size of a member that has one): copies `len` bytes (0 or `common`) at `payload`
    /// into this PE's scratch for this epoch, then enters. Members then read each other's
    /// scratch ([`Group::fetch`]) after [`Group::wait_member`], and the collective needs no
    /// closing sync, since no user buffer of another PE is read. False (nothing done) when the
    /// group has no scratch.
    fn enter_eager(&mut self, _rt: &Runtime, _payload: usize, _len: usize, _common: usize) -> bool {
        false
    }
    /// Before reading every member's scratch: with more PEs than cores, one central sync
    /// (each PE scheduled once to arrive, once to leave) costs less than waiting on each
    /// member's flag in turn; otherwise nothing (the flags are checked one by one).
    fn all_entered(&mut self, _rt: &Runtime) {}
    /// Oversubscribed exchanges (fcollect, alltoall, reductions) of small and medium
    /// payloads, in one central sync and no closing one: this PE's `parts` blocks of `block`
    /// bytes at `src` are copied either into one mailbox on member 0 (all of a member's blocks
    /// side by side, members one after the other: a PE writes one run of cache lines, and the
    /// few lines a PE then reads are shared by every PE of its core) or, when too big for it,
    /// into this PE's staging area. Then
    /// [`Group::exchanged`] gives where member i's block of row `row` is, valid until this
    /// PE's next collective on the group. False (nothing done) when the group has neither or
    /// the blocks fit neither; every member makes the same choice.
    fn exchange(&mut self, _rt: &Runtime, _src: usize, _block: usize, _parts: usize, _row: usize) -> bool {
        false
    }
    /// After [`Group::exchange`]: the address of member `i`'s block for this PE.
    fn exchanged(&self, _rt: &Runtime, _i: usize) -> usize {
        unreachable!("only groups whose exchange succeeds have exchanged blocks")
    }
    /// Oversubscribed broadcasts up to [`STAGED_BROADCAST_BYTES`]: the root copies its payload
    /// into a ring in its staging area and returns; the others copy it from there, with no
    /// sync, so the root runs up to the ring's depth (128 entries of 64 bytes, fewer of larger
    /// ones) ahead of the slowest member, and each PE, once scheduled, gets through many.
    /// `write_dest`: copy into this PE's `dest` (false on a root that must leave its dest
    /// alone). False (nothing done) when not applicable; every member makes the same choice.
    fn broadcast_staged(
        &mut self,
        _rt: &Runtime,
        _root: usize,
        _src: usize,
        _dest: usize,
        _nbytes: usize,
        _write_dest: bool,
    ) -> bool {
        false
    }
    /// Whether members may write their blocks straight into each other's destination once
    /// the owner has entered, counting them ([`Group::delivered`]) so that the owner returns
    /// once all have arrived: no closing sync, since nobody reads another member's buffers.
    /// Every member makes the same choice.
    fn can_push(&self, _rt: &Runtime) -> bool {
        false
    }
    /// Whether member `i` has entered the current collective (no wait).
    fn has_entered(&self, _rt: &Runtime, _i: usize) -> bool {
        unreachable!("only groups that can push ask")
    }
    /// Counts one block written into member `i`'s destination (after the copy).
    fn delivered(&self, _rt: &Runtime, _i: usize) {
        unreachable!("only groups that can push deliver")
    }
    /// Waits until every other member has delivered its block to this PE.
    fn wait_deliveries(&self, _rt: &Runtime) {
        unreachable!("only groups that can push deliver")
    }
    /// After an eager broadcast: keeps eager collectives two epochs long when oversubscribed
    /// (as the others are with their sync), so consecutive ones alternate scratch buffers.
    fn pad_epoch(&mut self, _rt: &Runtime) {}
    /// Copies member `i`'s payload of the current (eager) collective into `buf`; returns
    /// `buf`'s address.
    fn fetch(&self, _rt: &Runtime, _i: usize, _buf: &mut EagerBuf) -> usize {
        unreachable!("only groups whose enter_eager succeeds have scratch")
    }
}

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
    fn leave(&mut self, rt: &Runtime) {
        self.team.sync_unchecked(rt);
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
            self.team.sync_unchecked(rt);
            // Every member published W_ENTER = this epoch before it arrived.
            self.team.raise_entered_floor(self.epoch);
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
        self.team.sync_unchecked(rt);
        // Every member published W_ENTER = this epoch before it arrived.
        self.team.raise_entered_floor(self.epoch);
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
    fn fetch(&self, rt: &Runtime, i: usize, buf: &mut EagerBuf) -> usize {
        let entry = &rt.ctrl.slot(self.pe(i), self.team.slot)[W_SCRATCH + self.entry(rt)..];
        for (w, b) in buf.0.iter_mut().enumerate().take(self.entry_words / 2) {
            *b = entry[2 * w + 1].load(Ordering::Relaxed);
        }
        buf.0.as_ptr() as usize
    }
}

/// Words of `pSync` an active-set collective uses (SHMEM_*_SYNC_SIZE is at least this): the
/// barrier's two, collect's count and, once per set, the slot agreement of its team
/// (`active`).
pub const PSYNC_WORDS: usize = 4;

/// A deprecated active set (`PE_start`, `logPE_stride`, `PE_size`) with the caller's `pSync`
/// (symmetric, `SHMEM_SYNC_VALUE` = 0 everywhere on entry; restored to 0 before return).
///
/// `pSync[0]` on the first member counts arrivals, `pSync[1]` on each other member is its
/// release flag, `pSync[2]` carries collect's count. A barrier: each member adds one to the
/// counter and waits for its flag, then clears it; the first member waits until the counter
/// shows every other member, clears it, then sets every flag. Every word is back at 0 before
/// the PE that owns it can see the next arrival, so the same pSync serves the next call.
#[derive(Debug)]
pub struct ActiveSet {
    start: usize,
    stride: usize,
    size: usize,
    me: usize,
    psync: usize,
    /// Whether the members run on more than one host.
    spans_hosts: bool,
}

impl ActiveSet {
    /// An active set whose arguments [`Self::check`] accepted (`active::active_group` makes
    /// them: it checks, then looks for the set's team before it builds this).
    fn checked(rt: &Runtime, start: usize, stride: usize, size: usize, me: usize, psync: usize) -> Self {
        let spans_hosts = rt.spans_hosts(size, |i| start + i * stride);
        ActiveSet { spans_hosts, start, stride, size, me, psync }
    }

    /// Checks the triplet against the job and this PE's membership, and `pSync`: (start,
    /// stride, size, this PE's index).
    fn check(
        rt: &Runtime,
        routine: &'static str,
        start: i64,
        log_stride: i64,
        size: i64,
        psync: usize,
    ) -> Result<(usize, usize, usize, usize)> {
        if !(0..31).contains(&log_stride) {
            return Err(Error::invalid(routine, "logPE_stride", format!("{log_stride}")));
        }
        let stride = 1i64 << log_stride;
        if start < 0 || size < 1 || start + (size - 1) * stride >= rt.n_pes as i64 {
            return Err(Error::invalid(
                routine,
                "PE_start/logPE_stride/PE_size",
                format!("({start}, {log_stride}, {size}) does not fit {} PEs", rt.n_pes),
            ));
        }
        let me = rt.my_pe as i64 - start;
        if me < 0 || me & (stride - 1) != 0 || me >> log_stride >= size {
            return Err(Error::invalid(
                routine,
                "PE_start/logPE_stride/PE_size",
                format!("PE {} is not in the active set ({start}, {log_stride}, {size})", rt.my_pe),
            ));
        }
        Self::check_psync(rt, routine, psync)?;
        Ok((start as usize, stride as usize, size as usize, (me >> log_stride) as usize))
    }

    /// Checks that `pSync` is 8-byte aligned and symmetric for [`PSYNC_WORDS`] words.
    #[inline]
    fn check_psync(rt: &Runtime, routine: &'static str, psync: usize) -> Result<()> {
        if !psync.is_multiple_of(8) {
            return Err(Error::invalid(routine, "pSync", "not 8-byte aligned"));
        }
        rt.translate(routine, psync, PSYNC_WORDS * 8, rt.my_pe as i64).map(|_| ())
    }

    fn word(&self, rt: &Runtime, member: usize, k: usize) -> &AtomicU64 {
        let pe = self.pe(member);
        let a = rt.remote_addr(self.psync + 8 * k, 8, pe).expect("pSync was checked symmetric");
        // SAFETY: pSync is symmetric, 8-byte aligned and at least PSYNC_WORDS long on every
        // member (checked at `new`); every access to it during a collective is atomic.
        unsafe { &*(a as *const AtomicU64) }
    }

    /// A barrier over the active set through pSync (see the type's documentation).
    pub fn barrier(&self, rt: &Runtime) {
        if self.spans_hosts {
            if let Err(e) = self.network_barrier(rt, "shmem_barrier") {
                crate::runtime::fatal(&e);
            }
            return;
        }
        if self.size == 1 {
            fence(Ordering::SeqCst);
            return;
        }
        let root = self.pe(0);
        let counter = self.word(rt, 0, 0);
        if self.me == 0 {
            let want = (self.size - 1) as u64;
            rt.wait_until(root, || counter.load(Ordering::Acquire) == want);
            counter.store(0, Ordering::Relaxed);
            for i in 1..self.size {
                self.word(rt, i, 1).store(1, Ordering::Release);
                rt.notify(self.pe(i));
            }
        } else {
            counter.fetch_add(1, Ordering::AcqRel);
            rt.notify(root);
            let flag = self.word(rt, self.me, 1);
            rt.wait_until(rt.my_pe, || flag.load(Ordering::Acquire) != 0);
            flag.store(0, Ordering::Relaxed);
        }
    }
}

impl ActiveSet {
    /// The barrier of an active set that spans hosts, through the same pSync words: the
    /// arrivals are network fetch-adds on the first member's counter (the PEs of its host add
    /// with hardware atomics, those of other hosts through UCX, which runs them on the owner as
    /// atomics too), the releases stores or network puts. Each member completes its own network
    /// operations first (quiet), so the barrier orders them.
    fn network_barrier(&self, rt: &Runtime, routine: &'static str) -> Result<()> {
        rt.quiet();
        if self.size == 1 {
            return Ok(());
        }
        let psync = self.psync as *const u64;
        if self.me == 0 {
            // SAFETY: pSync was checked symmetric and 8-byte aligned at `new`; this PE's own
            // words are mapped here and only ever accessed atomically during a collective.
            let counter = unsafe { &*(psync as *const AtomicU64) };
            let want = (self.size - 1) as u64;
            rt.wait_until(rt.my_pe, || counter.load(Ordering::Acquire) == want);
            counter.store(0, Ordering::Relaxed);
            for i in 1..self.size {
                // SAFETY: pSync word 1, symmetric and aligned (checked at `new`).
                unsafe { crate::atomic::amo(rt, routine, psync.add(1), self.pe(i) as i64, AmoOp::Set(1))? };
            }
        } else {
            // SAFETY: pSync word 0, symmetric and aligned (checked at `new`).
            unsafe { crate::atomic::amo(rt, routine, psync, self.pe(0) as i64, AmoOp::FetchAdd(1))? };
            // SAFETY: as above, this PE's own word 1.
            let flag = unsafe { &*(psync.add(1) as *const AtomicU64) };
            rt.wait_until(rt.my_pe, || flag.load(Ordering::Acquire) != 0);
            flag.store(0, Ordering::Relaxed);
        }
        Ok(())
    }
}

impl Group for ActiveSet {
    fn spans_hosts(&self, _rt: &Runtime) -> bool {
        self.spans_hosts
    }
    fn network_sync(&mut self, rt: &Runtime, routine: &'static str) -> Result<()> {
        self.network_barrier(rt, routine)
    }
    fn staging(&self) -> Staging {
        Staging { slot: 0, base: HIER_STAGE_BYTES, len: SHARED_STAGE_BYTES - HIER_STAGE_BYTES }
    }
    fn n(&self) -> usize {
        self.size
    }
    fn me(&self) -> usize {
        self.me
    }
    fn pe(&self, i: usize) -> usize {
        self.start + i * self.stride
    }
    fn enter(&mut self, rt: &Runtime, word: u64) {
        if word != 0 {
            self.word(rt, self.me, 2).store(word, Ordering::Relaxed);
        }
        self.barrier(rt);
    }
    fn wait_member(&self, rt: &Runtime, i: usize) -> u64 {
        self.word(rt, i, 2).load(Ordering::Relaxed)
    }
    fn leave(&mut self, rt: &Runtime) {
        self.barrier(rt);
        self.word(rt, self.me, 2).store(0, Ordering::Relaxed);
    }
}

/// Address of `len` bytes at local symmetric `addr` as mapped for world PE `pe`.
#[inline]
fn at(rt: &Runtime, routine: &'static str, addr: usize, len: usize, pe: usize) -> Result<usize> {
    if len == 0 {
        // Nothing is read or written (zero elements): any address, NULL included, will do.
        return Ok(addr);
    }
    rt.remote_addr(addr, len, pe).ok_or(Error::NotSymmetric { routine, addr, len })
}

/// Copies `len` bytes (`src` and `dst` must not overlap unless equal).
///
/// # Safety
/// Both ranges are mapped, and no one else writes them during the copy.
#[inline]
unsafe fn copy(dst: usize, src: usize, len: usize) {
    // The small collectives copy many 8- and 4-byte blocks: a load and a store, not a call.
    // SAFETY: forwarded contract (every arm); the accesses are unaligned-tolerant.
    unsafe {
        match len {
            8 => std::ptr::write_unaligned(dst as *mut u64, std::ptr::read_unaligned(src as *const u64)),
            4 => std::ptr::write_unaligned(dst as *mut u32, std::ptr::read_unaligned(src as *const u32)),
            0 => {}
            _ if dst != src => std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, len),
            _ => {}
        }
    }
}

/// A collective of zero bytes moves nothing but still synchronises the group, as the
/// specification says; its buffers (NULL is fine) are not looked at.
fn sync_without_data(rt: &Runtime, g: &mut impl Group) -> Result<()> {
    g.enter(rt, 0);
    g.leave(rt);
    Ok(())
}

/// Broadcast of `nbytes` from member `root`'s `src` to every member's `dest`. With
/// `update_root` false (the deprecated forms), the root's `dest` is left alone.
#[allow(clippy::too_many_arguments)]
pub fn broadcast(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
    root: usize,
    update_root: bool,
) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    broadcast_body(rt, g, routine, dest, src, nbytes, root, update_root)
}

/// The work of [`broadcast`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn broadcast_body(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
    root: usize,
    update_root: bool,
) -> Result<()> {
    g.check(rt, || Signature::new("shmem_broadcast", &[nbytes as i64, root as i64]))?;
    if root >= g.n() {
        return Err(Error::invalid(routine, "PE_root", format!("{root} not below team size {}", g.n())));
    }
    if g.spans_hosts(rt) {
        return across::broadcast(rt, g, routine, dest, src, nbytes, root, update_root);
    }
    if nbytes == 0 {
        return sync_without_data(rt, g);
    }
    at(rt, routine, dest, nbytes, rt.my_pe)?;
    let root_src = at(rt, routine, src, nbytes, g.pe(root))?;
    if g.broadcast_staged(rt, root, src, dest, nbytes, g.me() != root || update_root) {
        return Ok(());
    }
    if nbytes <= EAGER_BYTES {
        let len = if g.me() == root { nbytes } else { 0 };
        if g.enter_eager(rt, src, len, nbytes) {
            if g.me() != root || update_root {
                g.wait_member(rt, root);
                // SAFETY: the root's scratch holds this epoch's data until we move on.
                unsafe { copy(dest, g.fetch(rt, root, &mut EagerBuf::new()), nbytes) };
            }
            g.pad_epoch(rt);
            return Ok(());
        }
    }
    g.enter(rt, 0);
    if g.me() != root || update_root {
        g.wait_member(rt, root);
        // SAFETY: the root has entered, so its source is ready and stays unchanged until the
        // closing sync; our destination is written by us alone.
        unsafe { copy(dest, root_src, nbytes) };
    }
    g.leave(rt);
    Ok(())
}

/// fcollect: every member's `nbytes` from `src` concatenated in member order into `dest`.
pub fn fcollect(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    fcollect_body(rt, g, routine, dest, src, nbytes)
}

/// The work of [`fcollect`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn fcollect_body(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: usize,
) -> Result<()> {
    g.check(rt, || Signature::new("shmem_fcollect", &[nbytes as i64]))?;
    if g.spans_hosts(rt) {
        return across::fcollect(rt, g, routine, dest, src, nbytes);
    }
    if nbytes == 0 {
        return sync_without_data(rt, g);
    }
    let n = g.n();
    at(rt, routine, dest, nbytes * n, rt.my_pe)?;
    at(rt, routine, src, nbytes, rt.my_pe)?;
    if g.exchange(rt, src, nbytes, 1, 0) {
        for i in 0..n {
            // SAFETY: the exchange holds every member's block until our next collective.
            unsafe { copy(dest + i * nbytes, g.exchanged(rt, i), nbytes) };
        }
        return Ok(());
    }
    if nbytes <= EAGER_BYTES && g.enter_eager(rt, src, nbytes, nbytes) {
        g.all_entered(rt);
        for k in 0..n {
            let i = (g.me() + k) % n;
            g.wait_member(rt, i);
            // SAFETY: member i's scratch holds this epoch's block until we move on.
            unsafe { copy(dest + i * nbytes, g.fetch(rt, i, &mut EagerBuf::new()), nbytes) };
        }
        return Ok(());
    }
    g.enter(rt, 0);
    for k in 0..n {
        let i = (g.me() + k) % n;
        g.wait_member(rt, i);
        let from = at(rt, routine, src, nbytes, g.pe(i))?;
        // SAFETY: member i entered: its source is ready and unchanged until the closing sync.
        unsafe { copy(dest + i * nbytes, from, nbytes) };
    }
    g.leave(rt);
    Ok(())
}

/// collect: like fcollect with a different byte count on each member; `dest_cap` bounds the
/// total. Returns the total bytes. `nbytes` is `None` when this member's count is invalid
/// (more than its source holds): it still takes part, so that every member fails with the same
/// error instead of the others waiting for it.
#[allow(clippy::too_many_arguments)]
pub fn collect(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: Option<usize>,
    dest_cap: usize,
) -> Result<usize> {
    let _call = rt.enter_call(routine, g.team());
    collect_body(rt, g, routine, dest, src, nbytes, dest_cap)
}

/// The work of [`collect`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn collect_body(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    nbytes: Option<usize>,
    dest_cap: usize,
) -> Result<usize> {
    g.check(rt, || Signature::new("shmem_collect", &[]))?;
    if g.spans_hosts(rt) {
        return across::collect(rt, g, routine, dest, src, nbytes, dest_cap);
    }
    let n = g.n();
    if let Some(nbytes) = nbytes {
        at(rt, routine, src, nbytes, rt.my_pe)?;
    }
    // The count travels +1 so that an active set's word 0 still means "nothing published".
    g.enter(rt, nbytes.map_or(INVALID_COUNT, |b| b as u64) + 1);
    let mut counts = Vec::with_capacity(n);
    for i in 0..n {
        counts.push(g.wait_member(rt, i).wrapping_sub(1));
    }
    // Every member computes the same total, so all fail (and still sync) together.
    let checked = collect_total(routine, &counts, dest_cap)
        .and_then(|total| at(rt, routine, dest, total, rt.my_pe).map(|_| total));
    let total = match checked {
        Ok(total) => total,
        Err(e) => {
            g.leave(rt);
            return Err(e);
        }
    };
    let mut off = 0;
    for (i, &len) in counts.iter().enumerate() {
        let len = len as usize;
        let from = at(rt, routine, src, len, g.pe(i))?;
        // SAFETY: member i entered (waited above); its source is stable until the sync.
        unsafe { copy(dest + off, from, len) };
        off += len;
    }
    g.leave(rt);
    Ok(total)
}

/// The count a member of a collect publishes when its own count is invalid (no source can
/// hold that many bytes).
const INVALID_COUNT: u64 = u64::MAX - 1;

/// The total of a collect's byte counts (the same on every member, who all see the same
/// counts): an error naming `nelems` if a member's count is invalid, or the total overflows
/// or exceeds `dest_cap`.
fn collect_total(routine: &'static str, counts: &[u64], dest_cap: usize) -> Result<usize> {
    if let Some(i) = counts.iter().position(|&c| c == INVALID_COUNT) {
        return Err(Error::invalid(
            routine,
            "nelems",
            format!("team PE {i} passed more elements than its source holds"),
        ));
    }
    let total = counts
        .iter()
        .try_fold(0usize, |acc, &c| acc.checked_add(usize::try_from(c).ok()?))
        .ok_or_else(|| Error::invalid(routine, "nelems", "the members' counts add up beyond usize::MAX"))?;
    if total > dest_cap {
        return Err(Error::invalid(routine, "dest", format!("{total} bytes collected, room for {dest_cap}")));
    }
    Ok(total)
}

/// Bytes spanned by `n * nelems` elements of `elem` bytes, `stride` elements apart (an
/// alltoalls buffer): `((n * nelems - 1) * stride + 1) * elem`, 0 for no elements, `None` when
/// it does not fit in a `usize`.
pub fn strided_extent(n: usize, nelems: usize, stride: usize, elem: usize) -> Option<usize> {
    match n.checked_mul(nelems)? {
        0 => Some(0),
        count => (count - 1).checked_mul(stride)?.checked_add(1)?.checked_mul(elem),
    }
}

/// alltoalls: block `j` of member `i`'s `src` (`nelems` elements of `elem` bytes, stride `sst`
/// elements, starting at element `j * nelems * sst`) goes to block `i` of member `j`'s `dest`
/// (stride `dst`). alltoall is `dst = sst = 1`.
#[allow(clippy::too_many_arguments)]
pub fn alltoalls(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    elem: usize,
    dst: usize,
    sst: usize,
    nelems: usize,
) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    alltoalls_body(rt, g, routine, dest, src, elem, dst, sst, nelems)
}

/// The work of [`alltoalls`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn alltoalls_body(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    elem: usize,
    dst: usize,
    sst: usize,
    nelems: usize,
) -> Result<()> {
    g.check(rt, || Signature::new("shmem_alltoalls", &[elem as i64, dst as i64, sst as i64, nelems as i64]))?;
    let n = g.n();
    if nelems > 0 && (dst == 0 || sst == 0) {
        return Err(Error::invalid(routine, "dst/sst", "strides must be positive"));
    }
    // Checked before any communication, from arguments that are the same on every member.
    let (Some(dest_extent), Some(src_extent)) =
        (strided_extent(n, nelems, dst, elem), strided_extent(n, nelems, sst, elem))
    else {
        return Err(Error::invalid(
            routine,
            "nelems",
            format!("{nelems} elements per PE at strides {dst}/{sst} over {n} PEs overflow"),
        ));
    };
    if g.spans_hosts(rt) {
        return if nelems == 0 || elem == 0 {
            g.network_sync(rt, routine)
        } else {
            across::alltoalls(rt, g, routine, dest, src, elem, dst, sst, nelems)
        };
    }
    if nelems == 0 || elem == 0 {
        return sync_without_data(rt, g);
    }
    at(rt, routine, dest, dest_extent, rt.my_pe)?;
    at(rt, routine, src, src_extent, rt.my_pe)?;
    let me = g.me();
    let block = nelems * elem;
    if dst == 1 && sst == 1 && g.exchange(rt, src, block, n, me) {
        for i in 0..n {
            // SAFETY: the exchange holds every member's block for us until our next collective.
            unsafe { copy(dest + i * block, g.exchanged(rt, i), block) };
        }
        return Ok(());
    }
    if dst == 1 && sst == 1 && src_extent <= EAGER_BYTES && g.enter_eager(rt, src, src_extent, src_extent) {
        g.all_entered(rt);
        for k in 0..n {
            let i = (me + k) % n;
            g.wait_member(rt, i);
            // SAFETY: member i's scratch holds its whole source for this epoch.
            unsafe { copy(dest + i * block, g.fetch(rt, i, &mut EagerBuf::new()) + me * block, block) };
        }
        return Ok(());
    }
    let copy_block = |to: usize, from: usize| {
        if dst == 1 && sst == 1 {
            // SAFETY: (both callers) checked extents; nobody else touches this block now.
            unsafe { copy(to, from, block) };
        } else {
            for e in 0..nelems {
                // SAFETY: as above, element by element.
                unsafe { copy(to + e * dst * elem, from + e * sst * elem, elem) };
            }
        }
    };
    if g.can_push(rt) {
        // Push: block j goes straight into member j's dest once j has entered (its dest is
        // free), members that have entered first; then this PE waits for the n - 1 blocks
        // pushed to it. Only this PE reads its source, so no closing sync is needed.
        for j in 0..n {
            at(rt, routine, dest, dest_extent, g.pe(j))?;
        }
        g.enter(rt, 0);
        let push = |j: usize| -> Result<()> {
            g.wait_member(rt, j);
            let to = at(rt, routine, dest, dest_extent, g.pe(j))? + me * nelems * dst * elem;
            copy_block(to, src + j * nelems * sst * elem);
            if j != me {
                g.delivered(rt, j);
            }
            Ok(())
        };
        // First every member already in (up to 64 of them: a bit each), then the rest in turn.
        let mut pushed = 0u64;
        if n <= 64 {
            for j in (0..n).map(|k| (me + k) % n).filter(|&j| g.has_entered(rt, j)) {
                push(j)?;
                pushed |= 1 << j;
            }
        }
        for j in (0..n).map(|k| (me + k) % n).filter(|&j| j >= 64 || pushed & (1 << j) == 0) {
            push(j)?;
        }
        g.wait_deliveries(rt);
        return Ok(());
    }
    g.enter(rt, 0);
    for k in 0..n {
        let i = (me + k) % n;
        g.wait_member(rt, i);
        let from = at(rt, routine, src, src_extent, g.pe(i))? + me * nelems * sst * elem;
        // Member i entered: its source is stable until the closing sync; this block of dest
        // is ours.
        copy_block(dest + i * nelems * dst * elem, from);
    }
    g.leave(rt);
    Ok(())
}

/// `acc[k] = op(acc[k], src[k])`.
#[inline]
fn combine<T: Copy, O: ReduceOp<T>>(acc: &mut [T], src: &[T]) {
    for (a, &s) in acc.iter_mut().zip(src) {
        *a = O::apply(*a, s);
    }
}

/// `addr` when it is aligned for `T`, else a copy of its `len` bytes in `buf`.
///
/// # Safety
/// `addr` must be readable for `len` bytes (at most `EAGER_BYTES`).
#[inline]
unsafe fn aligned<T>(addr: usize, len: usize, buf: &mut EagerBuf) -> usize {
    if addr.is_multiple_of(std::mem::align_of::<T>()) {
        return addr;
    }
    assert!(len <= EAGER_BYTES, "a staged payload is always aligned");
    // SAFETY: forwarded contract; `buf` holds EAGER_BYTES.
    unsafe { copy(buf.0.as_mut_ptr() as usize, addr, len) };
    buf.0.as_ptr() as usize
}

/// The small reduction: `payload(i, buf)` gives the address of member i's `count` elements
/// (aligned for T, valid until the next call); the result, reduced in member order, goes to
/// `dest`.
#[inline]
fn reduce_small<T: Copy, O: ReduceOp<T>>(
    dest: usize,
    count: usize,
    n: usize,
    mut payload: impl FnMut(usize, &mut EagerBuf) -> usize,
) {
    let nbytes = count * std::mem::size_of::<T>();
    let mut small = [std::mem::MaybeUninit::<T>::uninit(); EAGER_BYTES];
    let mut big: Vec<T> = Vec::new();
    let acc = if nbytes <= EAGER_BYTES {
        &mut small[..count]
    } else {
        big.reserve_exact(count);
        &mut big.spare_capacity_mut()[..count]
    };
    let mut buf = EagerBuf::new();
    // SAFETY: member 0's payload holds `count` elements of T; MaybeUninit<T> has T's layout.
    unsafe { copy(acc.as_mut_ptr() as usize, payload(0, &mut buf), nbytes) };
    // SAFETY: fully initialised just above.
    let acc: &mut [T] = unsafe { &mut *(acc as *mut [std::mem::MaybeUninit<T>] as *mut [T]) };
    for i in 1..n {
        // SAFETY: `payload` gives `count` aligned elements of T.
        let theirs = unsafe { std::slice::from_raw_parts(payload(i, &mut buf) as *const T, count) };
        combine::<T, O>(acc, theirs);
    }
    // SAFETY: the caller's dest, checked to hold `count` elements.
    unsafe { copy(dest, acc.as_ptr() as usize, nbytes) };
}

/// The routine under which checked mode compares a reduction with operation `op` (`O::NAME`):
/// one per operation, so a sum on one PE against a max on another is a mismatch.
pub(crate) fn checked_reduce_name(op: &str) -> &'static str {
    match op {
        "and" => "shmem_and_reduce",
        "or" => "shmem_or_reduce",
        "xor" => "shmem_xor_reduce",
        "max" => "shmem_max_reduce",
        "min" => "shmem_min_reduce",
        "sum" => "shmem_sum_reduce",
        "prod" => "shmem_prod_reduce",
        _ => "shmem_reduce",
    }
}

/// Reduces `count` elements of every member's `src` with `O` into every member's `dest`
/// (`dest == src` is allowed: in place).
pub fn reduce<T: Copy, O: ReduceOp<T>>(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    count: usize,
) -> Result<()> {
    let _call = rt.enter_call(routine, g.team());
    reduce_body::<T, O>(rt, g, routine, dest, src, count)
}

/// The work of [`reduce`], out of line: the public routine only publishes the call
/// (hang reports) around it, and this code stays laid out as it was.
#[inline(never)]
fn reduce_body<T: Copy, O: ReduceOp<T>>(
    rt: &Runtime,
    g: &mut impl Group,
    routine: &'static str,
    dest: usize,
    src: usize,
    count: usize,
) -> Result<()> {
    g.check(rt, || {
        Signature::new(checked_reduce_name(O::NAME), &[count as i64, std::mem::size_of::<T>() as i64])
    })?;
    if g.spans_hosts(rt) {
        return across::reduce::<T, O>(rt, g, routine, dest, src, count);
    }
    let size = std::mem::size_of::<T>();
    let nbytes = count * size;
    let align = std::mem::align_of::<T>();
    if count == 0 {
        return sync_without_data(rt, g);
    }
    if !dest.is_multiple_of(align) || !src.is_multiple_of(align) {
        return Err(Error::invalid(routine, "dest/source", "not aligned for the element type"));
    }
    at(rt, routine, dest, nbytes, rt.my_pe)?;
    at(rt, routine, src, nbytes, rt.my_pe)?;
    if dest != src && dest < src + nbytes && src < dest + nbytes {
        return Err(Error::invalid(routine, "dest/source", "overlap without being the same object"));
    }
    let n = g.n();
    let me = g.me();
    // Small and medium: every member reduces all members' payloads in member order, straight
    // into dest (nobody reads our source or dest, so in place needs nothing special).
    if n > 1 && nbytes <= STAGED_BLOCK_BYTES && g.exchange(rt, src, nbytes, 1, 0) {
        // SAFETY: the exchange holds every member's `count` elements until our next collective.
        reduce_small::<T, O>(dest, count, n, |i, buf| unsafe {
            aligned::<T>(g.exchanged(rt, i), nbytes, buf)
        });
        return Ok(());
    }
    if n > 1 && nbytes <= EAGER_BYTES && g.enter_eager(rt, src, nbytes, nbytes) {
        g.all_entered(rt);
        reduce_small::<T, O>(dest, count, n, |i, buf| {
            g.wait_member(rt, i);
            g.fetch(rt, i, buf)
        });
        return Ok(());
    }
    let srcs: Vec<usize> = (0..n).map(|i| at(rt, routine, src, nbytes, g.pe(i))).collect::<Result<_>>()?;
    g.enter(rt, 0);
    // Used by both paths below: a member's source is read only after it entered and is stable
    // until the closing sync (the specification forbids changing it during the call).
    let slice = |a: usize, from: usize, len: usize| {
        // SAFETY: mapped, aligned memory of at least `from + len` elements (checked above).
        unsafe { std::slice::from_raw_parts((a + from * size) as *const T, len) }
    };
    if n == 1 {
        // SAFETY: our own buffers, checked above.
        unsafe { copy(dest, src, nbytes) };
    } else if nbytes < REDUCE_SCATTER_BYTES {
        // Every member reduces the whole array from all sources, in member order.
        let mut acc: Vec<T> = Vec::with_capacity(count);
        g.wait_member(rt, 0);
        acc.extend_from_slice(slice(srcs[0], 0, count));
        for (i, &s) in srcs.iter().enumerate().skip(1) {
            g.wait_member(rt, i);
            combine::<T, O>(&mut acc, slice(s, 0, count));
        }
        // Others may still read our source (dest may be it): write dest after the sync.
        g.leave(rt);
        // SAFETY: our own dest, nobody reads it now.
        unsafe { copy(dest, acc.as_ptr() as usize, nbytes) };
        return Ok(());
    } else {
        // Reduce-scatter: member j reduces chunk j and writes it into every member's dest.
        let chunk = count.div_ceil(n);
        let lo = (me * chunk).min(count);
        let hi = ((me + 1) * chunk).min(count);
        let mut acc: Vec<T> = Vec::with_capacity(hi - lo);
        g.wait_member(rt, 0);
        acc.extend_from_slice(slice(srcs[0], lo, hi - lo));
        for (i, &s) in srcs.iter().enumerate().skip(1) {
            g.wait_member(rt, i);
            combine::<T, O>(&mut acc, slice(s, lo, hi - lo));
        }
        for k in 0..n {
            let i = (me + k) % n;
            let to = at(rt, routine, dest, nbytes, g.pe(i))? + lo * size;
            // SAFETY: every member entered (waited above); chunk [lo, hi) of any member's
            // dest (or in-place source) is touched by this PE alone during the call.
            unsafe { copy(to, acc.as_ptr() as usize, (hi - lo) * size) };
        }
    }
    g.leave(rt);
    Ok(())
}
