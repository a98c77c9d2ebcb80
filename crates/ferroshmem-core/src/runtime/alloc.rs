//! The symmetric heap of this PE: allocate, free and reallocate locally, the blocks dropped
//! and not yet released, and the count of collective allocations. The collective front end
//! (`Runtime::sym_alloc`, `sym_free`, `sym_realloc`: each closed, or opened, by a barrier over
//! the world team that checked mode turns into an agreement on the arguments, and that
//! carries the dropped blocks) is the team layer's (`team::alloc`), since it needs the world
//! team (issue 30).
#![allow(unsafe_code)]

use std::sync::atomic::Ordering;

use super::Runtime;
use crate::error::{Error, Result};
use crate::job;

/// An empty offer of a dropped block (no heap offset is this large).
pub(crate) const NO_DROP: u64 = u64::MAX;

impl Runtime {
    /// Takes `size` bytes from this PE's allocator (no synchronisation).
    pub(crate) fn alloc_local(&self, routine: &'static str, size: usize, align: usize) -> Result<usize> {
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

    /// [`Self::alloc_local`], the block zeroed.
    pub(crate) fn alloc_local_zeroed(
        &self,
        routine: &'static str,
        size: usize,
        align: usize,
    ) -> Result<usize> {
        let addr = self.alloc_local(routine, size, align);
        if let Ok(a) = addr {
            // SAFETY: a fresh live block of `size` bytes in our mapped heap; no PE can address it
            // before the closing barrier of the allocation (`team::alloc`).
            unsafe { std::ptr::write_bytes(a as *mut u8, 0, size) };
        }
        addr
    }

    /// Numbers this PE's collective allocations (and frees): every PE numbers them alike.
    #[inline]
    pub(crate) fn next_allocation(&self) -> u64 {
        self.allocations.fetch_add(1, Ordering::Relaxed)
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

    /// This PE's `N` smallest dropped offsets, in order; [`NO_DROP`] where it has fewer.
    pub(crate) fn smallest_dropped<const N: usize>(&self) -> [u64; N] {
        let dropped = self.dropped.lock().unwrap_or_else(|e| e.into_inner());
        let mut offers = dropped.iter().map(|&off| off as u64);
        std::array::from_fn(|_| offers.next().unwrap_or(NO_DROP))
    }

    /// Releases the dropped blocks at heap offsets `released` (every PE has dropped them).
    pub(crate) fn release_dropped(&self, released: &[usize]) {
        let mut dropped = self.dropped.lock().unwrap_or_else(|e| e.into_inner());
        let mut heap = self.allocator.lock().unwrap_or_else(|e| e.into_inner());
        for &off in released {
            dropped.remove(&off);
            heap.free(off);
        }
    }

    /// The heap offset of the live block that starts at `addr`, if one does.
    pub(crate) fn live_block_offset(&self, addr: usize) -> Option<usize> {
        let off = addr.wrapping_sub(self.my_heap);
        let live = off < self.heap_size
            && self.allocator.lock().unwrap_or_else(|e| e.into_inner()).block_len(off).is_some();
        live.then_some(off)
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

    /// The local part of a collective realloc of the block at `addr` to `size` bytes (both
    /// not 0), between its barriers: resized in place, or moved (copied into a new block, the
    /// old one freed). Returns the new address (which may equal the old one).
    pub(crate) fn realloc_local(&self, routine: &'static str, addr: usize, size: usize) -> Result<usize> {
        let off = addr.wrapping_sub(self.my_heap);
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
                        std::ptr::copy_nonoverlapping(addr as *const u8, new as *mut u8, old_len.min(size))
                    };
                    heap.free(off);
                    Ok(new)
                }
            },
        }
    }
}
