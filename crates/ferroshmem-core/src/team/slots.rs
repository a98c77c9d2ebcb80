//! This PE's team slots: which are free, which are reserved by a creation in progress, and the
//! highest epoch each has seen (so a new team on a slot counts on from there and never needs
//! its words reset).
//!
//! Two-level bitmap: finding the lowest free slot at or after a candidate costs
//! O(capacity / 4096) words, whatever the number of live teams.
//!
//! A slot released by a destroy that did not synchronise (`team::release`) is *pending*
//! until the team's other members have said that they are done with it: each adds one to
//! the slot's `W_RELEASED` word on this PE, and the table knows how many such signals the
//! slot's teams have owed in all (`owed`), so the slot becomes available again once the
//! word reaches that total. The word only grows; no signal of a later team can arrive
//! before the slot is available again (a later team on the slot needs this PE's claim).
//!
//! A slot released by a *deferred* destroy (`team::release`, teams across hosts) is
//! *deferred* until this PE finishes a slot agreement over a parent that holds all of the
//! team's members: each of them joined that agreement after its own destroy. At most
//! [`DEFER_CREDITS`] slots of this PE are deferred or belong to live teams whose destroy
//! will defer: such a team holds a *credit* from its creation on, and gives it back when its
//! slot is available again. The table has that many slots beyond its capacity, so deferred
//! slots never take a slot that the program was promised: a reservation fails only when the
//! slots in use and reserved reach the capacity.

/// Slots of each PE that may wait, deferred, at once, and the slots in memory for a capacity
/// (defined with the job's layout, which sizes the slots; see there).
pub use crate::job::{slots_in_memory, DEFER_CREDITS};

/// Free/reserved bookkeeping of one PE's slots.
#[derive(Debug)]
pub struct SlotTable {
    /// Slots that teams may hold at once (the table has `DEFER_CREDITS` more).
    capacity: usize,
    /// Slots reserved by creations in progress.
    reserved: usize,
    /// Credits for deferred destroys not held by a live team or a deferred slot.
    credits: usize,
    /// Bit set = slot available (free and not reserved).
    avail: Vec<u64>,
    /// Bit set = word of `avail` has at least one bit set.
    summary: Vec<u64>,
    /// Highest epoch used on each slot by teams now gone (or live teams' starting points).
    high_water: Vec<u64>,
    /// Release signals owed to each slot by its teams so far (cumulative).
    owed: Vec<u64>,
    /// Slots released but not yet available: their signals have not all arrived.
    pending: Vec<usize>,
    in_use: usize,
}

impl SlotTable {
    /// All `capacity` slots available except the first `predefined` (taken by predefined teams).
    pub fn new(capacity: usize, predefined: usize) -> Self {
        let slots = slots_in_memory(capacity);
        let words = slots.div_ceil(64);
        let mut t = SlotTable {
            capacity,
            reserved: 0,
            credits: DEFER_CREDITS,
            avail: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            high_water: vec![0; slots],
            owed: vec![0; slots],
            pending: Vec::new(),
            in_use: 0,
        };
        for s in predefined..slots {
            t.set_avail(s, true);
        }
        t.in_use = predefined.min(capacity);
        t
    }

    fn set_avail(&mut self, s: usize, on: bool) {
        let (w, b) = (s / 64, s % 64);
        if on {
            self.avail[w] |= 1 << b;
        } else {
            self.avail[w] &= !(1 << b);
        }
        let (sw, sb) = (w / 64, w % 64);
        if self.avail[w] != 0 {
            self.summary[sw] |= 1 << sb;
        } else {
            self.summary[sw] &= !(1 << sb);
        }
    }

    fn is_avail(&self, s: usize) -> bool {
        s < self.high_water.len() && self.avail[s / 64] & (1 << (s % 64)) != 0
    }

    /// Lowest available slot `>= from`.
    pub fn lowest_available_from(&self, from: usize) -> Option<usize> {
        if from >= self.high_water.len() {
            return None;
        }
        let w = from / 64;
        let here = self.avail[w] & (!0u64 << (from % 64));
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        // Next word with anything available, through the summary.
        let next_word = w + 1;
        let mut sw = next_word / 64;
        if sw >= self.summary.len() {
            return None;
        }
        let mut bits =
            self.summary[sw] & if next_word.is_multiple_of(64) { !0 } else { !0u64 << (next_word % 64) };
        loop {
            if bits != 0 {
                let word = sw * 64 + bits.trailing_zeros() as usize;
                return Some(word * 64 + self.avail[word].trailing_zeros() as usize);
            }
            sw += 1;
            if sw >= self.summary.len() {
                return None;
            }
            bits = self.summary[sw];
        }
    }

    /// Reserves the lowest available slot `>= from` for a creation in progress; returns it
    /// with its high-water epoch. None when there is none, or when the slots in use and
    /// reserved already reach the capacity.
    pub fn reserve_from(&mut self, from: usize) -> Option<(usize, u64)> {
        if self.in_use + self.reserved >= self.capacity {
            return None;
        }
        let s = self.lowest_available_from(from)?;
        self.reserve(s);
        Some((s, self.high_water[s]))
    }

    /// Reserves `s` for a creation in progress (it must be available).
    pub fn reserve(&mut self, s: usize) {
        debug_assert!(self.is_avail(s));
        self.set_avail(s, false);
        self.reserved += 1;
    }

    /// Gives back a reservation that the creation did not keep.
    pub fn unreserve(&mut self, s: usize) {
        self.set_avail(s, true);
        self.reserved -= 1;
    }

    /// Turns a reservation into a slot in use.
    pub fn claim(&mut self, s: usize) {
        self.in_use += 1;
        self.reserved -= 1;
        debug_assert!(!self.is_avail(s));
    }

    /// Takes `n` credits for deferred destroys, all or none; true if taken.
    pub fn take_credits(&mut self, n: usize) -> bool {
        let ok = self.credits >= n;
        if ok {
            self.credits -= n;
        }
        ok
    }

    /// Gives back `n` credits (of a team that will not defer, or a deferred slot available again).
    pub fn give_credits(&mut self, n: usize) {
        self.credits += n;
        debug_assert!(self.credits <= DEFER_CREDITS);
    }

    /// Frees a slot in use whose team's destroy deferred: it is neither available nor
    /// pending until [`Self::undefer`]; the team's credit stays taken until then.
    pub fn defer(&mut self, s: usize, last_epoch: u64) {
        self.high_water[s] = self.high_water[s].max(last_epoch);
        self.in_use -= 1;
    }

    /// Makes a deferred slot available again and gives back its credit.
    pub fn undefer(&mut self, s: usize) {
        self.set_avail(s, true);
        self.give_credits(1);
    }

    /// Frees a slot in use, remembering the last epoch its team reached. `signals`: how many
    /// release signals the team's other members will send (0: they are known to be done, the
    /// slot is available at once); until they have all arrived the slot is pending.
    pub fn release(&mut self, s: usize, last_epoch: u64, signals: u64) {
        self.high_water[s] = self.high_water[s].max(last_epoch);
        self.in_use -= 1;
        if signals == 0 {
            self.set_avail(s, true);
        } else {
            self.owed[s] += signals;
            self.pending.push(s);
        }
    }

    /// Makes available every pending slot whose signals have all arrived (`received(s)`: the
    /// slot's signal count on this PE); true when none is left pending.
    pub fn settle(&mut self, received: impl Fn(usize) -> u64) -> bool {
        let mut i = 0;
        while i < self.pending.len() {
            let s = self.pending[i];
            if received(s) >= self.owed[s] {
                self.pending.swap_remove(i);
                self.set_avail(s, true);
            } else {
                i += 1;
            }
        }
        self.pending.is_empty()
    }

    /// The pending slots with the signal count each needs.
    pub fn pending(&self) -> Vec<(usize, u64)> {
        self.pending.iter().map(|&s| (s, self.owed[s])).collect()
    }

    /// Highest epoch slot `s` has seen on this PE.
    pub fn high_water(&self, s: usize) -> u64 {
        self.high_water[s]
    }

    /// Slots in use (teams this PE belongs to, predefined ones included).
    pub fn in_use(&self) -> usize {
        self.in_use
    }

    /// Total slots.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lowest_available_matches_a_linear_scan(cap in 1usize..9000, ops in proptest::collection::vec((0usize..9000, any::<bool>()), 0..300), from in 0usize..9100) {
            let mut t = SlotTable::new(cap, 4.min(cap));
            let slots = slots_in_memory(cap);
            let mut model: Vec<bool> = (0..slots).map(|s| s >= 4).collect();
            for (s, take) in ops {
                let s = s % slots;
                if take && model[s] { t.reserve(s); t.claim(s); model[s] = false; }
                else if !take && !model[s] && s >= 4 { t.release(s, 7, 0); model[s] = true; }
            }
            let expected = (from..slots).find(|&s| model[s]);
            prop_assert_eq!(t.lowest_available_from(from), expected);
        }
    }

    #[test]
    fn reservations_hide_slots_until_given_back() {
        let mut t = SlotTable::new(200, 4);
        assert_eq!(t.lowest_available_from(0), Some(4));
        t.reserve(4);
        assert_eq!(t.lowest_available_from(0), Some(5));
        t.unreserve(4);
        assert_eq!(t.lowest_available_from(0), Some(4));
        for s in 4..200 {
            t.reserve_from(s).expect("a slot below the capacity");
            t.claim(s);
        }
        assert_eq!(t.reserve_from(0), None, "the capacity is reached");
        assert_eq!(t.lowest_available_from(0), Some(200), "the slots beyond it are for deferred slots");
        assert_eq!(t.in_use(), 200);
        t.release(130, 99, 0);
        assert_eq!(t.lowest_available_from(5), Some(130));
        assert_eq!(t.high_water(130), 99);
    }

    #[test]
    fn a_slot_released_with_signals_owed_waits_for_them() {
        let mut t = SlotTable::new(8, 4);
        t.reserve(4);
        t.claim(4);
        t.release(4, 10, 3);
        assert_eq!(t.in_use(), 4);
        assert_eq!(t.lowest_available_from(0), Some(5));
        assert!(!t.settle(|_| 2));
        assert_eq!(t.pending(), vec![(4, 3)]);
        assert!(t.settle(|_| 3));
        assert_eq!(t.lowest_available_from(0), Some(4));
        // The count is cumulative: the next team on the slot owes three more.
        t.reserve(4);
        t.claim(4);
        t.release(4, 20, 3);
        assert!(!t.settle(|_| 5));
        assert!(t.settle(|_| 6));
        assert_eq!(t.high_water(4), 20);
    }

    #[test]
    fn a_deferred_slot_holds_its_credit_until_undeferred() {
        let mut t = SlotTable::new(8, 4);
        for _ in 0..DEFER_CREDITS {
            assert!(t.take_credits(1));
        }
        assert!(!t.take_credits(1), "credits are bounded");
        let (s, _) = t.reserve_from(0).unwrap();
        t.claim(s);
        t.defer(s, 30);
        assert_eq!(t.in_use(), 4);
        assert_ne!(t.lowest_available_from(0), Some(s), "a deferred slot is not available");
        assert!(t.settle(|_| 0), "a deferred slot is not pending on signals");
        t.undefer(s);
        assert_eq!(t.lowest_available_from(0), Some(s));
        assert_eq!(t.high_water(s), 30);
        assert!(t.take_credits(1), "undefer gave the credit back");
    }
}
