//! The symmetric allocation front end: allocate, free and reallocate on this PE's heap, each
//! closed (or opened) by a barrier that checked mode turns into an agreement on the arguments.
#![allow(unsafe_code)]

use super::Runtime;
use crate::error::{Error, Result};
use crate::job;
use crate::team;
use crate::team::agree::{MaxAllreduce, PAYLOAD};

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
/// An empty offer (no heap offset is this large).
const NO_DROP: u64 = u64::MAX;

impl Runtime {
    /// Takes `size` bytes from this PE's allocator (no synchronisation).
    fn alloc_local(&self, routine: &'static str, size: usize, align: usize) -> Result<usize> {
        if !align.is_power_of_two() {
            return Err(Error::invalid(routine, "alignment", format!("{align} is not a power of two")));
        }
        if align > job::MAX_HEAP_ALIGN {
            return Err(Error::invalid(
                routine,
                "alignment",
                format!("{align} is above the largest supported alignment, {}", job::MAX_HEAP_ALIGN),
            ));
        }
        let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
        heap.alloc(size, align).map(|off| self.my_heap + off).ok_or_else(|| Error::OutOfMemory {
            routine,
            size,
            free: heap.free_bytes(),
            capacity: heap.capacity(),
        })
    }

    /// Symmetric allocation: same size on every PE gives the same offset everywhere. Collective:
    /// ends with a barrier so that no PE uses the block before every PE has it. Size 0 gives
    /// `None` (after the barrier).
    pub fn sym_alloc(&self, routine: &'static str, size: usize, align: usize) -> Result<Option<usize>> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        let result = if size == 0 { Ok(None) } else { self.alloc_local(routine, size, align).map(Some) };
        self.allocation_agreed(routine, &[size as i64, align as i64], result)
    }

    /// [`Self::sym_alloc`] that zeroes the block before the closing barrier.
    pub fn sym_alloc_zeroed(&self, routine: &'static str, size: usize, align: usize) -> Result<usize> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        let addr = self.alloc_local(routine, size, align);
        if let Ok(a) = addr {
            // SAFETY: a fresh live block of `size` bytes in our mapped heap; no PE can address it
            // before the barrier below.
            unsafe { std::ptr::write_bytes(a as *mut u8, 0, size) };
        }
        self.allocation_agreed(routine, &[size as i64, align as i64], addr.map(Some))
            .map(|a| a.unwrap_or_default())
    }

    /// The closing barrier of an allocation whose local part gave `result`. In checked mode
    /// the barrier carries (routine, `args`): PEs that passed different ones all get the same
    /// [`Error::CollectiveMismatch`] naming who passed what (and keep no block), where
    /// otherwise their heaps would silently stop being symmetric.
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
        let seq = self.allocations.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if !self.checked && seq % DROPS_AGREED_EVERY != DROPS_AGREED_EVERY - 1 {
            self.teams.world.sync_unchecked(self);
            return Ok(());
        }
        let payload = self.offer_dropped();
        let mut agreed = if self.checked {
            let sig = team::checked::Signature::new(routine, args);
            team::checked::check_call_carrying(self, &self.teams.world, &sig, payload)?
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
        let mut ar = MaxAllreduce::start(self, self.teams.world.clone(), payload);
        ar.wait(self);
        *ar.result()
    }

    /// `SymSlice`'s Drop: the block at `addr` is released on this PE once every PE has
    /// dropped it (or freed it), at the closing all-reduce of a later collective allocation or
    /// free. Releasing it at once would let the next allocation's placement depend on when
    /// the drop ran: a drop on another thread, racing an allocation, could then come before
    /// it on one PE and after it on another, and the heaps would stop being symmetric.
    pub fn release_when_all_dropped(&self, addr: usize) {
        let off = addr.wrapping_sub(self.my_heap);
        self.dropped.lock().unwrap_or_else(|e| e.into_inner()).insert(off);
    }

    /// An all-reduce payload with this PE's [`DROP_OFFERS`] smallest dropped offsets, in order:
    /// each as itself and as its complement (so that the MAX all-reduce gives the largest and
    /// the smallest over the PEs); [`NO_DROP`] where it has fewer.
    fn offer_dropped(&self) -> [u64; PAYLOAD] {
        let mut payload = [0u64; PAYLOAD];
        let dropped = self.dropped.lock().unwrap_or_else(|e| e.into_inner());
        let mut offers = dropped.iter().map(|&off| off as u64);
        for k in 0..DROP_OFFERS {
            let v = offers.next().unwrap_or(NO_DROP);
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
        let mut dropped = self.dropped.lock().unwrap_or_else(|e| e.into_inner());
        let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
        for &off in &released {
            dropped.remove(&off);
            heap.free(off);
        }
        released.len()
    }

    /// Collective free: a barrier first, so no PE still reads the block, then the bookkeeping.
    /// In checked mode the barrier checks that every PE frees the same block (its offset in
    /// the heap).
    pub fn sym_free(&self, routine: &'static str, addr: usize) -> Result<()> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        self.agree_allocation(routine, &self.block_args(addr, None))?;
        self.release(routine, addr)
    }

    /// The compared arguments of a free (`size: None`) or realloc of `addr`: the block's heap
    /// offset, the same on every PE for the same block; for an address that starts no live
    /// block (a pointer from `malloc`, a static, a freed block), [`NOT_A_BLOCK`] and the
    /// address, which checked mode reports as such.
    ///
    /// [`NOT_A_BLOCK`]: team::checked::NOT_A_BLOCK
    fn block_args(&self, addr: usize, size: Option<usize>) -> Vec<i64> {
        if !self.checked {
            return Vec::new(); // compared in checked mode only
        }
        let off = addr.wrapping_sub(self.my_heap);
        let live = off < self.heap_size
            && self.allocator.lock().unwrap_or_else(|e| e.into_inner()).block_len(off).is_some();
        let mut args = if live { vec![off as i64] } else { vec![team::checked::NOT_A_BLOCK, addr as i64] };
        args.extend(size.map(|s| s as i64));
        args
    }

    /// The bookkeeping of a free, without the barrier.
    pub fn release(&self, routine: &'static str, addr: usize) -> Result<()> {
        let off = addr.wrapping_sub(self.my_heap);
        let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
        if off < self.heap_size && heap.free(off) {
            Ok(())
        } else {
            Err(Error::InvalidFree { routine, addr })
        }
    }

    /// Collective realloc; returns the new address (which may equal the old one).
    pub fn sym_realloc(&self, routine: &'static str, addr: usize, size: usize) -> Result<Option<usize>> {
        let _call = self.enter_call(routine, Some(&self.teams.world));
        if addr == 0 {
            return self.sym_alloc(routine, size, 1);
        }
        if size == 0 {
            self.sym_free(routine, addr)?;
            return Ok(None);
        }
        // Everyone must be done with the old block before it moves.
        let off = addr.wrapping_sub(self.my_heap);
        self.agree_allocation(routine, &self.block_args(addr, Some(size)))?;
        let result = {
            let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
            match (off < self.heap_size).then(|| heap.block_len(off)).flatten() {
                None => Err(Error::InvalidFree { routine, addr }),
                Some(_) if heap.resize_in_place(off, size) => Ok(addr),
                Some(old_len) => match heap.alloc(size, 1) {
                    None => Err(Error::OutOfMemory {
                        routine,
                        size,
                        free: heap.free_bytes(),
                        capacity: heap.capacity(),
                    }),
                    Some(new_off) => {
                        let new = self.my_heap + new_off;
                        // SAFETY: both blocks lie in our mapped heap and are distinct live
                        // blocks; nobody else touches them between the barriers.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                addr as *const u8,
                                new as *mut u8,
                                old_len.min(size),
                            )
                        };
                        heap.free(off);
                        Ok(new)
                    }
                },
            }
        };
        self.barrier_all();
        result.map(Some)
    }
}
