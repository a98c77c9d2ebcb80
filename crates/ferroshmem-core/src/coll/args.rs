//! The arguments of the collectives that take many, as every member passes them down the
//! layers (`algorithms`, then `across`, then `hier`): addresses are this process's, of
//! symmetric buffers that each layer checks before it touches them.

/// A broadcast: `nbytes` from member `root`'s `src` to every member's `dest`. With
/// `update_root` false (the deprecated forms), the root's `dest` is left alone.
#[derive(Debug, Clone, Copy)]
pub struct Broadcast {
    /// Where every member receives.
    pub dest: usize,
    /// Where the root's data is (every member passes its own address of it).
    pub src: usize,
    /// Bytes.
    pub nbytes: usize,
    /// The root's index in the team or set.
    pub root: usize,
    /// Whether the root's `dest` receives the data too.
    pub update_root: bool,
}

/// A collect: this member's `nbytes` at `src` go into every member's `dest` after the
/// blocks of the members before it. `nbytes` is `None` when this member's count is invalid
/// (more than its source holds): it still takes part, so that every member fails alike.
#[derive(Debug, Clone, Copy)]
pub struct Collect {
    /// Where every member receives every block.
    pub dest: usize,
    /// This member's block.
    pub src: usize,
    /// This member's bytes (`None`: invalid).
    pub nbytes: Option<usize>,
    /// Bytes `dest` holds: a larger total fails on every member.
    pub dest_cap: usize,
}

/// An alltoalls: block `j` of member `i`'s `src` (`nelems` elements of `elem` bytes, stride
/// `sst` elements, starting at element `j * nelems * sst`) goes to block `i` of member `j`'s
/// `dest` (stride `dst`). alltoall is `dst = sst = 1`.
#[derive(Debug, Clone, Copy)]
pub struct Alltoalls {
    /// Where this member receives.
    pub dest: usize,
    /// What this member sends.
    pub src: usize,
    /// Bytes of an element.
    pub elem: usize,
    /// Stride of `dest`, in elements.
    pub dst: usize,
    /// Stride of `src`, in elements.
    pub sst: usize,
    /// Elements per block.
    pub nelems: usize,
}

impl Alltoalls {
    /// A contiguous alltoall of `nelems` elements of `elem` bytes per member.
    pub fn contiguous(dest: usize, src: usize, elem: usize, nelems: usize) -> Self {
        Alltoalls { dest, src, elem, dst: 1, sst: 1, nelems }
    }
}
