//! The collective front end of symmetric allocation: allocate, free and reallocate, each
//! closed (or opened) by a barrier over the world team that checked mode turns into an
//! agreement on the arguments, and that now and then carries the blocks each PE has dropped.
//! Here, in the team layer, as `impl Runtime`: it needs the world team, its agreement
//! (`agree`) and checked mode (`checked`), which are above the runtime; the heap itself (its
//! local allocations, the dropped blocks) is the runtime's (`runtime::alloc`, issue 30).

use super::agree::{MaxAllreduce, PAYLOAD};
use super::checked;
use crate::error::Result;
use crate::runtime::{Runtime, NO_DROP};

/// Outside checked mode, one collective allocation in this many carries the dropped blocks
/// (an all-reduce); the others close with a sync, as before drops were agreed on: across
/// 32 simulated hosts × 2 PEs an all-reduce at every allocation made them 2.2 × slower.
/// Dropped blocks are thus reused within this many allocations (or frees) of their last drop;
/// an agreement whose every offer was agreed runs another, until none is left to release.
const DROPS_AGREED_EVERY: u64 = 8;
/// Dropped blocks each PE offers per allocation all-reduce (two payload words each).
const DROP_OFFERS: usize = 6;
/// First payload word of the offers: after the checked-mode words (`team::agree`'s ERROR,
/// HASH_MAX and HASH_MIN), which allocations leave alone otherwise.
const DROP_WORDS: usize = 3;
const _: () = assert!(DROP_WORDS + 2 * DROP_OFFERS <= PAYLOAD);

impl Runtime {
    /// Symmetric allocation: same size on every PE gives the same offset everywhere. Collective:
    /// ends with a barrier so that no PE uses the block before every PE has it. Size 0 gives
    /// `None` (after the barrier).
    pub fn sym_alloc(&self, routine: &'static str, size: usize, align: usize) -> Result<Option<usize>> {
        let _call = self.enter_call(routine, Some(&self.teams().world));
        let result = if size == 0 { Ok(None) } else { self.alloc_local(routine, size, align).map(Some) };
        self.allocation_agreed(routine, &[size as i64, align as i64], result)
    }

    /// [`Self::sym_alloc`] that zeroes the block before the closing barrier.
    pub fn sym_alloc_zeroed(&self, routine: &'static str, size: usize, align: usize) -> Result<usize> {
        let _call = self.enter_call(routine, Some(&self.teams().world));
        let addr = self.alloc_local_zeroed(routine, size, align);
        self.allocation_agreed(routine, &[size as i64, align as i64], addr.map(Some))
            .map(|a| a.unwrap_or_default())
    }

    /// The closing barrier of an allocation whose local part gave `result`. In checked mode
    /// the barrier carries (routine, `args`): PEs that passed different ones all get the same
    /// [`Error::CollectiveMismatch`] naming who passed what (and keep no block), where
    /// otherwise their heaps would silently stop being symmetric.
    ///
    /// [`Error::CollectiveMismatch`]: crate::error::Error::CollectiveMismatch
    fn allocation_agreed(
        &self,
        routine: &'static str,
        args: &[i64],
        result: Result<Option<usize>>,
    ) -> Result<Option<usize>> {
        if let Err(e) = self.agree_allocation(routine, args) {
            if let Ok(Some(a)) = result {
                let _ = self.release(routine, a);
            }
            return Err(e);
        }
        result
    }

    /// The barrier of an allocation routine; in checked mode an all-reduce that also checks
    /// that every PE called `routine` with `args` (see [`Self::allocation_agreed`]). That one,
    /// and outside checked mode one in [`DROPS_AGREED_EVERY`], carries the blocks each PE has
    /// dropped and releases those that every PE has dropped (see
    /// [`Self::release_when_all_dropped`]).
    fn agree_allocation(&self, routine: &'static str, args: &[i64]) -> Result<()> {
        // Every PE numbers its collective allocations alike, so all take the same branch.
        let seq = self.next_allocation();
        if !self.checked && seq % DROPS_AGREED_EVERY != DROPS_AGREED_EVERY - 1 {
            self.teams().world.sync_unchecked(self);
            return Ok(());
        }
        let payload = self.offer_dropped();
        let mut agreed = if self.checked {
            let sig = checked::Signature::new(routine, args);
            checked::check_call_carrying(self, &self.teams().world, &sig, payload)?
        } else {
            self.max_allreduce(payload)
        };
        // Every offer agreed: there may be more (every PE sees the same result, so all go on
        // alike), until a round releases fewer than it could.
        while self.release_agreed_drops(&agreed) == DROP_OFFERS {
            agreed = self.max_allreduce(self.offer_dropped());
        }
        Ok(())
    }

    /// A MAX all-reduce of `payload` over the world team.
    fn max_allreduce(&self, payload: [u64; PAYLOAD]) -> [u64; PAYLOAD] {
        let mut ar = MaxAllreduce::start(self, self.teams().world.clone(), payload);
        ar.wait(self);
        *ar.result()
    }

    /// An all-reduce payload with this PE's [`DROP_OFFERS`] smallest dropped offsets, in order:
    /// each as itself and as its complement (so that the MAX all-reduce gives the largest and
    /// the smallest over the PEs); [`NO_DROP`] where it has fewer.
    fn offer_dropped(&self) -> [u64; PAYLOAD] {
        let mut payload = [0u64; PAYLOAD];
        let offers = self.smallest_dropped::<DROP_OFFERS>();
        for (k, v) in offers.into_iter().enumerate() {
            payload[DROP_WORDS + 2 * k] = v;
            payload[DROP_WORDS + 2 * k + 1] = !v;
        }
        payload
    }

    /// Releases the offsets that every PE offered at the same position: each PE's `k`-th
    /// smallest dropped offset is the same there, so every PE has dropped it, and every PE
    /// releases the same blocks at the same step.
    /// Returns how many it released.
    fn release_agreed_drops(&self, agreed: &[u64; PAYLOAD]) -> usize {
        let mut released = Vec::new();
        for k in 0..DROP_OFFERS {
            let (largest, smallest) = (agreed[DROP_WORDS + 2 * k], !agreed[DROP_WORDS + 2 * k + 1]);
            if largest == smallest && largest != NO_DROP {
                released.push(largest as usize);
            }
        }
        if released.is_empty() {
            return 0;
        }
        self.release_dropped(&released);
        released.len()
    }

    /// Collective free: a barrier first, so no PE still reads the block, then the bookkeeping.
    /// In checked mode the barrier checks that every PE frees the same block (its offset in
    /// the heap).
    pub fn sym_free(&self, routine: &'static str, addr: usize) -> Result<()> {
        let _call = self.enter_call(routine, Some(&self.teams().world));
        self.agree_allocation(routine, &self.block_args(addr, None))?;
        self.release(routine, addr)
    }

    /// The compared arguments of a free (`size: None`) or realloc of `addr`: the block's heap
    /// offset, the same on every PE for the same block; for an address that starts no live
    /// block (a pointer from `malloc`, a static, a freed block), [`NOT_A_BLOCK`] and the
    /// address, which checked mode reports as such.
    ///
    /// [`NOT_A_BLOCK`]: checked::NOT_A_BLOCK
    fn block_args(&self, addr: usize, size: Option<usize>) -> Vec<i64> {
        if !self.checked {
            return Vec::new(); // compared in checked mode only
        }
        let mut args = match self.live_block_offset(addr) {
            Some(off) => vec![off as i64],
            None => vec![checked::NOT_A_BLOCK, addr as i64],
        };
        args.extend(size.map(|s| s as i64));
        args
    }

    /// Collective realloc; returns the new address (which may equal the old one).
    pub fn sym_realloc(&self, routine: &'static str, addr: usize, size: usize) -> Result<Option<usize>> {
        let _call = self.enter_call(routine, Some(&self.teams().world));
        if addr == 0 {
            return self.sym_alloc(routine, size, 1);
        }
        if size == 0 {
            self.sym_free(routine, addr)?;
            return Ok(None);
        }
        // Everyone must be done with the old block before it moves.
        self.agree_allocation(routine, &self.block_args(addr, Some(size)))?;
        let result = self.realloc_local(routine, addr, size);
        self.barrier_all();
        result.map(Some)
    }
}
