//! The symmetric heap allocator: pure bookkeeping of offsets, no memory access.
//!
//! Allocation is collective and every PE runs the same sequence of calls on the same sizes, so a
//! deterministic allocator hands out the same offset on every PE: that is what makes an object
//! symmetric. First fit over an ordered free list, with coalescing.

use std::collections::{BTreeMap, HashMap};

/// Smallest alignment of every block: a cache line, so that separate allocations never share one.
pub(crate) const MIN_ALIGN: usize = 64;

/// Offsets handed out by the allocator, relative to the heap start.
#[derive(Debug)]
pub(crate) struct SymHeap {
    capacity: usize,
    /// Free ranges: start offset -> length.
    free: BTreeMap<usize, usize>,
    /// Live blocks: start offset -> length (rounded).
    live: HashMap<usize, usize>,
    in_use: usize,
}

impl SymHeap {
    /// An empty heap of `capacity` bytes.
    pub(crate) fn new(capacity: usize) -> Self {
        let mut free = BTreeMap::new();
        if capacity > 0 {
            free.insert(0, capacity);
        }
        SymHeap { capacity, free, live: HashMap::new(), in_use: 0 }
    }

    /// Capacity in bytes.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes not in use (possibly fragmented).
    pub(crate) fn free_bytes(&self) -> usize {
        self.capacity - self.in_use
    }

    /// Allocates `size` bytes aligned to `align` (a power of two). `None` when it does not fit.
    pub(crate) fn alloc(&mut self, size: usize, align: usize) -> Option<usize> {
        if !align.is_power_of_two() || size == 0 {
            return None;
        }
        let align = align.max(MIN_ALIGN);
        let size = size.checked_add(MIN_ALIGN - 1)? & !(MIN_ALIGN - 1);
        let (start, len, at) = self.free.iter().find_map(|(&start, &len)| {
            let at = start.checked_add(align - 1)? & !(align - 1);
            (at.checked_add(size)? <= start + len).then_some((start, len, at))
        })?;
        self.free.remove(&start);
        if at > start {
            self.free.insert(start, at - start);
        }
        if at + size < start + len {
            self.free.insert(at + size, start + len - (at + size));
        }
        self.live.insert(at, size);
        self.in_use += size;
        Some(at)
    }

    /// Size of the live block at `offset`.
    pub(crate) fn block_len(&self, offset: usize) -> Option<usize> {
        self.live.get(&offset).copied()
    }

    /// Releases the block at `offset`. `false` if no live block starts there.
    pub(crate) fn free(&mut self, offset: usize) -> bool {
        let Some(len) = self.live.remove(&offset) else {
            return false;
        };
        self.in_use -= len;
        let mut start = offset;
        let mut len = len;
        if let Some((&prev, &plen)) = self.free.range(..offset).next_back() {
            if prev + plen == offset {
                self.free.remove(&prev);
                start = prev;
                len += plen;
            }
        }
        if let Some(nlen) = self.free.remove(&(start + len)) {
            len += nlen;
        }
        self.free.insert(start, len);
        true
    }

    /// Grows or shrinks the block at `offset` in place if the following free range allows it.
    /// Returns whether it did.
    pub(crate) fn resize_in_place(&mut self, offset: usize, new_size: usize) -> bool {
        let Some(&old) = self.live.get(&offset) else {
            return false;
        };
        let new = (new_size + MIN_ALIGN - 1) & !(MIN_ALIGN - 1);
        if new == 0 {
            return false;
        }
        if new <= old {
            if new < old {
                self.live.insert(offset, new);
                self.in_use -= old - new;
                // Give the tail back, merging with a following free range.
                let tail = offset + new;
                let mut tlen = old - new;
                if let Some(nlen) = self.free.remove(&(offset + old)) {
                    tlen += nlen;
                }
                self.free.insert(tail, tlen);
            }
            return true;
        }
        let next = offset + old;
        match self.free.get(&next).copied() {
            Some(nlen) if old + nlen >= new => {
                self.free.remove(&next);
                if old + nlen > new {
                    self.free.insert(offset + new, old + nlen - new);
                }
                self.live.insert(offset, new);
                self.in_use += new - old;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn first_fit_reuses_freed_space_and_coalesces() {
        let mut h = SymHeap::new(1 << 20);
        let a = h.alloc(100, 1).unwrap();
        let b = h.alloc(100, 1).unwrap();
        let c = h.alloc(100, 1).unwrap();
        assert_eq!((a, b, c), (0, 128, 256));
        assert!(h.free(b));
        assert!(h.free(a));
        assert_eq!(h.alloc(200, 1), Some(0));
        assert!(!h.free(64), "a pointer inside a block is not a block");
        assert!(h.free(c));
        assert!(h.free(0));
        assert_eq!(h.free_bytes(), 1 << 20);
        assert_eq!(h.alloc(1 << 20, 1), Some(0), "everything coalesced back");
    }

    #[test]
    fn alignment_and_exhaustion() {
        let mut h = SymHeap::new(8192);
        let _ = h.alloc(10, 1).unwrap();
        assert_eq!(h.alloc(10, 4096), Some(4096));
        assert_eq!(h.alloc(10_000, 1), None);
        assert_eq!(h.alloc(0, 1), None);
        assert_eq!(h.alloc(8, 3), None);
    }

    #[test]
    fn resize_in_place_grows_into_free_space() {
        let mut h = SymHeap::new(4096);
        let a = h.alloc(64, 1).unwrap();
        assert!(h.resize_in_place(a, 1000));
        assert_eq!(h.block_len(a), Some(1024));
        let b = h.alloc(64, 1).unwrap();
        assert_eq!(b, 1024);
        assert!(!h.resize_in_place(a, 2000));
        assert!(h.resize_in_place(a, 64));
        assert_eq!(h.alloc(64, 1), Some(64));
    }

    proptest! {
        /// Two heaps fed the same calls agree on every offset (symmetry), every offset honours
        /// its alignment (up to 8 MiB here: the runtime maps each heap on a 1 GiB boundary, so
        /// offsets and addresses agree), and live blocks never overlap.
        #[test]
        fn deterministic_and_disjoint(ops in proptest::collection::vec((0usize..3, 1usize..5000, 0u32..24), 1..200)) {
            let mut h1 = SymHeap::new(1 << 26);
            let mut h2 = SymHeap::new(1 << 26);
            let mut live: Vec<(usize, usize)> = Vec::new();
            for (kind, size, align_log) in ops {
                if kind < 2 || live.is_empty() {
                    let a = h1.alloc(size, 1 << align_log);
                    prop_assert_eq!(a, h2.alloc(size, 1 << align_log));
                    if let Some(off) = a {
                        prop_assert_eq!(off % (1usize << align_log).max(MIN_ALIGN), 0);
                        for &(o, l) in &live {
                            prop_assert!(off + size <= o || o + l <= off);
                        }
                        live.push((off, size));
                    }
                } else {
                    let (off, _) = live.remove(size % live.len());
                    prop_assert!(h1.free(off));
                    prop_assert!(h2.free(off));
                }
            }
            for (off, _) in live { prop_assert!(h1.free(off)); }
            prop_assert_eq!(h1.free_bytes(), 1 << 26);
            prop_assert_eq!(h1.alloc(1 << 26, 1), Some(0));
        }
    }
}
