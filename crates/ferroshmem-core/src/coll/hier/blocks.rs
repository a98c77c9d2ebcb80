//! Where an alltoall's blocks lie in a buffer: contiguous (`shmem_alltoall`, one element of
//! the block's size) or strided (`shmem_alltoalls`). A strided alltoall across hosts moves in
//! *windows* of each block's elements (`plan::alltoalls_window`), so that every window's
//! packed blocks fit the staging areas the hierarchical forms carry them through, or of one
//! element each when not even that fits (a window of one element is one run of bytes, which
//! the counted form sends straight into its place); a window is itself one hierarchical
//! alltoall of packed blocks, gathered from the sources and scattered into the destinations
//! element by element.

use super::copy;
use crate::team::local_checks::strided_extent;

/// Block `j` of a buffer at `base`: elements `first..first + count` of its `per_block`,
/// element `e` at `base + (j * per_block + e) * stride * elem`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blocks {
    elem: usize,
    per_block: usize,
    stride: usize,
    first: usize,
    count: usize,
}

impl Blocks {
    /// Contiguous blocks of `block` bytes.
    pub(crate) fn contiguous(block: usize) -> Self {
        Blocks { elem: block, per_block: 1, stride: 1, first: 0, count: 1 }
    }

    /// Blocks of `nelems` elements of `elem` bytes, `stride` elements apart.
    pub(crate) fn strided(elem: usize, nelems: usize, stride: usize) -> Self {
        Blocks { elem, per_block: nelems, stride, first: 0, count: nelems }
    }

    /// Elements `first..first + count` of each block (within the block's elements).
    pub(crate) fn window(self, first: usize, count: usize) -> Self {
        debug_assert!(first + count <= self.per_block);
        Blocks { first, count, ..self }
    }

    /// Whether a block's window is one run of bytes (one copy, or one message, moves it):
    /// adjacent elements, or a window of one.
    pub(crate) fn dense(&self) -> bool {
        self.stride == 1 || self.count == 1
    }

    /// Elements per block (the whole block, not the window).
    pub(crate) fn per_block(&self) -> usize {
        self.per_block
    }

    /// Bytes of one block's window, packed.
    pub(crate) fn bytes(&self) -> usize {
        self.count * self.elem
    }

    /// Bytes the buffer spans for `n` blocks (`None` on overflow).
    pub(crate) fn extent(&self, n: usize) -> Option<usize> {
        strided_extent(n, self.per_block, self.stride, self.elem)
    }

    /// Address of element `e` of the window of block `j` (inside the extent for `j < n`).
    fn at(&self, base: usize, j: usize, e: usize) -> usize {
        base + (j * self.per_block + self.first + e) * self.stride * self.elem
    }

    /// Address of block `j`'s window when it is dense.
    pub(crate) fn dense_at(&self, base: usize, j: usize) -> usize {
        debug_assert!(self.dense());
        self.at(base, j, 0)
    }

    /// Appends block `j`'s window of the buffer at `base` to `out`, packed.
    ///
    /// # Safety
    /// The buffer is mapped for the extent of more than `j` blocks and nobody writes the
    /// window during the call.
    pub(crate) unsafe fn gather(&self, base: usize, j: usize, out: &mut Vec<u8>) {
        if self.dense() {
            // SAFETY: the window, inside the caller's extent.
            out.extend_from_slice(unsafe {
                std::slice::from_raw_parts(self.at(base, j, 0) as *const u8, self.bytes())
            });
            return;
        }
        for e in 0..self.count {
            // SAFETY: element e of the window, inside the caller's extent.
            out.extend_from_slice(unsafe {
                std::slice::from_raw_parts(self.at(base, j, e) as *const u8, self.elem)
            });
        }
    }

    /// Writes [`Self::bytes`] packed bytes at `from` into block `i`'s window of the buffer at
    /// `base`.
    ///
    /// # Safety
    /// The buffer is mapped for the extent of more than `i` blocks and only the caller
    /// writes the window; `from` is readable for [`Self::bytes`] and does not overlap it.
    pub(crate) unsafe fn scatter(&self, base: usize, i: usize, from: usize) {
        if self.dense() {
            // SAFETY: forwarded contract.
            unsafe { copy(self.at(base, i, 0), from, self.bytes()) };
            return;
        }
        for e in 0..self.count {
            // SAFETY: element e of the window and of the packed bytes.
            unsafe { copy(self.at(base, i, e), from + e * self.elem, self.elem) };
        }
    }

    /// Copies block `j`'s window of the buffer `from` (laid out as `from_blocks`) into block
    /// `i`'s window of the buffer `to` (laid out as `self`); the windows hold the same bytes.
    ///
    /// # Safety
    /// Both buffers are mapped for their extents of more than `j` (source) and `i`
    /// (destination) blocks; only the caller writes the destination window and nobody the
    /// source window; they do not overlap.
    pub(crate) unsafe fn copy_from(&self, to: usize, i: usize, from_blocks: &Blocks, from: usize, j: usize) {
        debug_assert_eq!(self.bytes(), from_blocks.bytes());
        if self.dense() && from_blocks.dense() {
            // SAFETY: forwarded contract.
            unsafe { copy(self.at(to, i, 0), from_blocks.at(from, j, 0), self.bytes()) };
            return;
        }
        for e in 0..self.count {
            // SAFETY: forwarded contract, element by element.
            unsafe { copy(self.at(to, i, e), from_blocks.at(from, j, e), self.elem) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_of_strided_blocks_gathers_and_scatters_its_elements() {
        // 3 blocks of 4 two-byte elements, stride 3.
        let b = Blocks::strided(2, 4, 3);
        let ext = b.extent(3).unwrap();
        assert_eq!(ext, ((3 * 4 - 1) * 3 + 1) * 2);
        let src: Vec<u8> = (0..ext as u32).map(|x| x as u8).collect();
        let w = b.window(1, 2);
        let mut out = Vec::new();
        // SAFETY: `src` spans the extent of 3 blocks.
        unsafe { w.gather(src.as_ptr() as usize, 2, &mut out) };
        // Block 2, elements 1 and 2: elements 9 and 10 of the buffer, 6 bytes apart.
        assert_eq!(out, vec![54, 55, 60, 61]);
        let mut dst = vec![0u8; ext];
        // SAFETY: `dst` spans the extent; `out` holds the window's bytes.
        unsafe { w.scatter(dst.as_mut_ptr() as usize, 2, out.as_ptr() as usize) };
        assert_eq!(&dst[54..56], &[54, 55]);
        assert_eq!(&dst[60..62], &[60, 61]);
        assert_eq!(dst.iter().filter(|&&x| x != 0).count(), 4);
        // A window of one element is one run of bytes.
        assert!(!w.dense() && b.window(3, 1).dense());
        assert_eq!(b.window(3, 1).dense_at(0, 2), b.at(0, 2, 3));
    }

    #[test]
    fn contiguous_blocks_move_whole() {
        let b = Blocks::strided(4, 2, 1);
        assert!(b.dense() && Blocks::contiguous(8).dense());
        assert_eq!(b.bytes(), Blocks::contiguous(8).bytes());
        assert_eq!(b.extent(5), Some(40));
        let src: Vec<u8> = (0..40).collect();
        let mut dst = vec![0u8; 40];
        let strided = Blocks::strided(4, 2, 2);
        let mut wide = vec![0u8; strided.extent(5).unwrap()];
        // SAFETY: each buffer spans its layout's extent of 5 blocks.
        unsafe {
            b.copy_from(dst.as_mut_ptr() as usize, 1, &b, src.as_ptr() as usize, 3);
            strided.copy_from(wide.as_mut_ptr() as usize, 0, &b, src.as_ptr() as usize, 3);
        }
        assert_eq!(&dst[8..16], &src[24..32]);
        assert_eq!(&wide[0..4], &src[24..28]);
        assert_eq!(&wide[8..12], &src[28..32]);
        assert_eq!(b.extent(usize::MAX), None);
    }
}
