//! The words and staging areas of team slots on any PE: stores, flagged posts and counted
//! messages (a store and a doorbell on this host, the network to another), and reads.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};

use super::{fatal, Runtime};
use crate::ctrl::PeCtrl;
use crate::error::{Error, Result};
use crate::job;
use crate::net::{Completion, FlagUpdate, Region};

/// Largest counted message ([`Runtime::put_counted`]): a larger transfer is split, so no
/// receiver needs to assemble more than this at once.
pub const COUNTED_CHUNK: usize = 1 << 20;

/// How many counted messages [`Runtime::put_counted`] sends for `len` bytes (one at least).
pub const fn counted_messages(len: usize) -> usize {
    if len == 0 {
        1
    } else {
        len.div_ceil(COUNTED_CHUNK)
    }
}

impl Runtime {
    /// Offset in this PE's control block (its `Ctrl` region) of word `word` of team slot `slot`:
    /// the same offset on every PE.
    #[inline]
    pub fn slot_word_offset(&self, slot: usize, word: usize) -> usize {
        self.ctrl.slot(self.my_pe, slot)[word].as_ptr() as usize - self.my_ctrl
    }

    /// Writes `value` into word `word` of team slot `slot` on PE `pe` and tells its waiters:
    /// a store and a doorbell on this host, a network put to another host (whose progress
    /// thread rings the bell there).
    pub fn store_slot_word(&self, routine: &'static str, pe: usize, slot: usize, word: usize, value: u64) {
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                if let Err(e) =
                    net.put_word(routine, pe, Region::Ctrl, self.slot_word_offset(slot, word), value)
                {
                    fatal(&e);
                }
            }
            _ => {
                self.ctrl.slot(pe, slot)[word].store(value, Ordering::Release);
                self.notify(pe);
            }
        }
    }

    /// Adds one to word `word` of team slot `slot` on PE `pe` and tells its waiters, after
    /// everything this PE sent to `pe` before: an atomic add and a doorbell on this host; to
    /// another host a fence and a counted message (whose receiver's progress thread rings the
    /// bell). A word written so is written no other way.
    pub fn add_to_slot_word(&self, routine: &'static str, pe: usize, slot: usize, word: usize) {
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                if let Err(e) = net.fence() {
                    fatal(&e);
                }
                let offset = self.slot_word_offset(slot, word);
                if let Err(e) = net.put_flagged(routine, pe, Region::Ctrl, 0, &[], offset, FlagUpdate::Add(1))
                {
                    fatal(&e);
                }
            }
            _ => {
                self.ctrl.slot(pe, slot)[word].fetch_add(1, Ordering::Release);
                self.notify(pe);
            }
        }
    }

    /// Writes `payload` into the words after `word` of team slot `slot` on PE `pe`, then
    /// `flag` into `word` itself (see [`Self::post_words`]), by one flagged message to another
    /// host: the slot's mailboxes, whose flags (epochs) only grow and whose every message its
    /// receiver waits for.
    pub fn post_slot_words(
        &self,
        routine: &'static str,
        pe: usize,
        slot: usize,
        word: usize,
        payload: &[u64],
        flag: u64,
    ) {
        self.post_words(
            routine,
            pe,
            &self.ctrl.slot(pe, slot)[word..=word + payload.len()],
            payload,
            flag,
            Delivery::Message,
        )
    }

    /// Writes `payload` into `words[1..]` and then `flag` into `words[0]`, where `words` are
    /// words of PE `pe`'s control block (as mapped here): a reader that sees the flag sees the
    /// payload. On this host stores (the flag with Release) and a doorbell; to another host
    /// (`delivery`) one flagged message or two puts with a fence between them, at the words'
    /// offset in `pe`'s control block (the same offset on every PE).
    pub fn post_words(
        &self,
        routine: &'static str,
        pe: usize,
        words: &[AtomicU64],
        payload: &[u64],
        flag: u64,
        delivery: Delivery,
    ) {
        assert_eq!(words.len(), payload.len() + 1, "{routine}: a flag word and the payload's words");
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let bytes: Vec<u8> = payload.iter().flat_map(|w| w.to_ne_bytes()).collect();
                let at = words.as_ptr() as usize - (self.ctrl.pe(pe) as *const PeCtrl as usize);
                let sent = match delivery {
                    Delivery::Message => net.put_flagged(
                        routine,
                        pe,
                        Region::Ctrl,
                        at + 8,
                        &bytes,
                        at,
                        FlagUpdate::AtLeast(flag),
                    ),
                    Delivery::Puts => net
                        .put(routine, pe, Region::Ctrl, at + 8, &bytes, Completion::Announced)
                        .and_then(|()| net.fence())
                        .and_then(|()| net.put_word(routine, pe, Region::Ctrl, at, flag)),
                };
                if let Err(e) = sent {
                    fatal(&e);
                }
            }
            _ => {
                for (w, &v) in words[1..].iter().zip(payload) {
                    w.store(v, Ordering::Relaxed);
                }
                words[0].store(flag, Ordering::Release);
                self.notify(pe);
            }
        }
    }

    /// Address in this process of this PE's staging area of team slot `slot`.
    #[inline]
    pub fn stage_addr(&self, slot: usize) -> usize {
        self.ctrl.stage(self.my_pe, slot)
    }

    /// Offset in the control region (the same on every PE) of the staging area of team slot
    /// `slot`: where network operations address another PE's.
    #[inline]
    fn stage_offset(&self, slot: usize) -> usize {
        self.stage_addr(slot) - self.my_ctrl
    }

    /// Word `i` of this PE's staging area of team slot `slot`.
    pub fn read_stage_word(&self, slot: usize, i: usize) -> u64 {
        assert!(i < job::STAGE_BYTES / 8, "word {i} is past the staging area");
        // SAFETY: inside this PE's mapped staging area (checked above), 8-byte aligned (the
        // area is page aligned); the caller read it after a sync, nobody writes it meanwhile.
        unsafe { std::ptr::read_volatile((self.stage_addr(slot) + i * 8) as *const u64) }
    }

    /// Word `i` (8-byte aligned, `i * 8` below `job::STAGE_BYTES`) of PE `pe`'s staging area of
    /// team slot `slot`, a PE of this host, as an atomic: words there that serve as flags
    /// (`coll::hier`'s broadcast ring) are only ever accessed atomically.
    pub fn stage_word(&self, pe: usize, slot: usize, i: usize) -> &AtomicU64 {
        assert!(i < job::STAGE_BYTES / 8, "word {i} is past the staging area");
        assert!(
            pe < self.n_pes && slot < self.layout.slot_count && self.topology.is_local(pe),
            "staging word of PE {pe}, slot {slot}: not a slot of a PE of this host"
        );
        // SAFETY: inside PE `pe`'s staging area, mapped here for the life of the process (same
        // host), 8-byte aligned (the area is page aligned); only ever used atomically.
        unsafe { &*((self.ctrl.stage(pe, slot) + i * 8) as *const AtomicU64) }
    }

    /// Copies `bytes` to `offset` of PE `pe`'s staging area of team slot `slot`, then raises
    /// the word `flag` of that slot or staging area to at least `value` and tells its waiters:
    /// a reader that sees the word sees the bytes. On this host a copy, an atomic maximum and
    /// a doorbell; to another host one flagged message (`Net::put_flagged`). Words written so
    /// are written no other way.
    #[allow(clippy::too_many_arguments)]
    pub fn put_stage_flagged(
        &self,
        routine: &'static str,
        pe: usize,
        slot: usize,
        offset: usize,
        bytes: &[u8],
        flag: FlagWord,
        value: u64,
    ) {
        check_stage_range(routine, offset, bytes.len());
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let stage = self.stage_offset(slot);
                let at = stage + offset;
                let flag = match flag {
                    FlagWord::Slot(word) => self.slot_word_offset(slot, word),
                    FlagWord::Stage(i) => {
                        check_stage_range(routine, i * 8, 8);
                        stage + i * 8
                    }
                };
                if let Err(e) =
                    net.put_flagged(routine, pe, Region::Ctrl, at, bytes, flag, FlagUpdate::AtLeast(value))
                {
                    fatal(&e);
                }
            }
            _ => {
                self.copy_into_stage(pe, slot, offset, bytes);
                let word = match flag {
                    FlagWord::Slot(word) => &self.ctrl.slot(pe, slot)[word],
                    FlagWord::Stage(i) => self.stage_word(pe, slot, i),
                };
                word.fetch_max(value, Ordering::AcqRel);
                self.notify(pe);
            }
        }
    }

    /// Sends `len` bytes at this PE's `src` to the symmetric `dest` on PE `pe` of another
    /// host as counted messages (one per [`COUNTED_CHUNK`] bytes, [`counted_messages`] of
    /// them), each of which adds one to word `word` of that PE's slot `slot` once its bytes
    /// landed. The receiver read that word before the messages could be sent and waits until
    /// it grew by their number: no staging, no fence, no flag put; the data goes straight
    /// into the destination, which its receiver must have said is free.
    ///
    /// # Safety
    /// `src` must be readable for `len` bytes.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn put_counted(
        &self,
        routine: &'static str,
        pe: usize,
        dest: usize,
        src: usize,
        len: usize,
        slot: usize,
        word: usize,
    ) -> Result<()> {
        let net = match &self.net {
            Some(net) if !self.topology.is_local(pe) => net,
            _ => panic!("{routine}: a counted message to PE {pe} of this host"),
        };
        let (region, offset) =
            self.region_of(dest, len).ok_or(Error::NotSymmetric { routine, addr: dest, len })?;
        let flag = self.slot_word_offset(slot, word);
        for k in 0..counted_messages(len) {
            let lo = k * COUNTED_CHUNK;
            let n = COUNTED_CHUNK.min(len - lo);
            // SAFETY: `src + lo .. + n` lies in the caller's readable range.
            let bytes = unsafe { std::slice::from_raw_parts((src + lo) as *const u8, n) };
            net.put_flagged(routine, pe, region, offset + lo, bytes, flag, FlagUpdate::Add(1))?;
        }
        Ok(())
    }

    /// Copies `bytes` to `offset` of the staging area of team slot `slot` of PE `pe`, a PE
    /// of this host; the caller checked the range (`check_stage_range`).
    fn copy_into_stage(&self, pe: usize, slot: usize, offset: usize, bytes: &[u8]) {
        // SAFETY: PE `pe`'s staging area is mapped here (same host) and holds STAGE_BYTES,
        // `offset + bytes.len()` of them at most (checked by the caller); the collective's
        // protocol keeps others off that range meanwhile.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (self.ctrl.stage(pe, slot) + offset) as *mut u8,
                bytes.len(),
            )
        };
    }

    /// Copies `bytes` to `offset` of PE `pe`'s staging area of team slot `slot`: a copy on
    /// this host, a network put to another (`completion`: who learns that it landed).
    pub fn put_stage_bytes(
        &self,
        routine: &'static str,
        pe: usize,
        slot: usize,
        offset: usize,
        bytes: &[u8],
        completion: Completion,
    ) {
        check_stage_range(routine, offset, bytes.len());
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let at = self.stage_offset(slot) + offset;
                if let Err(e) = net.put(routine, pe, Region::Ctrl, at, bytes, completion) {
                    fatal(&e);
                }
            }
            _ => {
                self.copy_into_stage(pe, slot, offset, bytes);
                self.notify(pe);
            }
        }
    }

    /// Words `word..word + n` of team slot `slot` on each of `pes`: loads on this host, and
    /// for the PEs of other hosts gets that are all in flight at once.
    pub fn read_slot_words_of_all(
        &self,
        routine: &'static str,
        pes: &[usize],
        slot: usize,
        word: usize,
        n: usize,
    ) -> Vec<Vec<u64>> {
        let local = |pe: usize| -> Vec<u64> {
            self.ctrl.slot(pe, slot)[word..word + n].iter().map(|w| w.load(Ordering::Acquire)).collect()
        };
        let Some(net) = &self.net else {
            return pes.iter().map(|&pe| local(pe)).collect();
        };
        let remote: Vec<usize> = pes.iter().copied().filter(|&pe| !self.topology.is_local(pe)).collect();
        let mut ops = Vec::with_capacity(remote.len());
        for &pe in &remote {
            match net.get_start(routine, pe, Region::Ctrl, self.slot_word_offset(slot, word), n * 8) {
                Ok(op) => ops.push(op),
                Err(e) => fatal(&e),
            }
        }
        if let Err(e) = net.finish_all(routine, &remote, &mut ops) {
            fatal(&e);
        }
        let mut fetched = ops.iter().map(|op| {
            let bytes = op.bytes().expect("a finished get holds its bytes");
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes")))
                .collect::<Vec<u64>>()
        });
        pes.iter()
            .map(|&pe| {
                if self.topology.is_local(pe) {
                    local(pe)
                } else {
                    fetched.next().expect("one get per PE of another host")
                }
            })
            .collect()
    }

    /// Word `i` of PE `pe`'s staging area of team slot `slot`: a load on this host (Acquire), a
    /// network get from another.
    pub fn read_stage_word_of(&self, routine: &'static str, pe: usize, slot: usize, i: usize) -> u64 {
        assert!(i < job::STAGE_BYTES / 8, "word {i} is past the staging area");
        match &self.net {
            Some(net) if !self.topology.is_local(pe) => {
                let mut bytes = [0u8; 8];
                let offset = self.stage_offset(slot) + i * 8;
                if let Err(e) = net.get(routine, pe, Region::Ctrl, offset, &mut bytes) {
                    fatal(&e);
                }
                u64::from_ne_bytes(bytes)
            }
            _ => self.stage_word(pe, slot, i).load(Ordering::Acquire),
        }
    }
}

/// Stops with a clear message when `len` bytes at `offset` would pass the end of a staging
/// area (an internal error: the collectives size what they stage).
fn check_stage_range(routine: &'static str, offset: usize, len: usize) {
    assert!(
        offset.checked_add(len).is_some_and(|end| end <= job::STAGE_BYTES),
        "{routine}: staging area overflow"
    );
}

/// Where the flag of [`Runtime::put_stage_flagged`] is, in the receiver's team slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagWord {
    /// Word `n` of the slot's words.
    Slot(usize),
    /// Word `n` of the slot's staging area.
    Stage(usize),
}

/// How [`Runtime::post_words`] reaches a PE of another host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// One flagged message (`Net::put_flagged`): one send, the flag raised to at least its
    /// value. For flags that only grow and whose every message its receiver waits for.
    Message,
    /// The payload by a put, a fence, the flag by a put: ordered with this PE's later network
    /// operations by the fences they take (a `team_init` entry must land before its sender
    /// counts itself done, see `team::unique`).
    Puts,
}
