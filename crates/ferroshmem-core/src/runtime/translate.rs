//! Address translation: where the symmetric range of some PE is (mapped in this process, or
//! on another host through the network).

use super::Runtime;
use crate::error::{Error, Result};
use crate::net::Region;

impl Runtime {
    /// How many waiting PEs sleep on the doorbell of PE `pe` (of this host) now: a test hook.
    pub fn sleepers_on(&self, pe: usize) -> u32 {
        self.ctrl.pe(pe).sleepers.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Checks a PE number against the world.
    #[inline]
    pub fn check_pe(&self, routine: &'static str, pe: i64) -> Result<usize> {
        if pe >= 0 && (pe as u64) < self.n_pes as u64 {
            Ok(pe as usize)
        } else {
            Err(Error::InvalidPe { routine, pe, n_pes: self.n_pes })
        }
    }

    /// Address on PE `pe` (mapped in this process) of the symmetric object at local `addr`, if
    /// all `len` bytes of it are symmetric. `pe` must already be checked.
    /// `None` also for a PE on another host: its memory is not mapped here.
    #[inline]
    pub fn remote_addr(&self, addr: usize, len: usize, pe: usize) -> Option<usize> {
        if self.multi_host && !self.topology.is_local(pe) {
            return None;
        }
        let off = addr.wrapping_sub(self.my_heap);
        if off < self.heap_size && len <= self.heap_size - off {
            return Some(self.heaps + pe * self.heap_size + off);
        }
        let off = addr.wrapping_sub(self.static_start);
        if off < self.static_len && len <= self.static_len - off {
            return Some(self.static_bases[pe] + off);
        }
        // A zero-length access at the very end of a region is harmless.
        if len == 0 && (addr == self.my_heap + self.heap_size || addr == self.static_start + self.static_len)
        {
            return Some(addr);
        }
        None
    }

    /// [`Self::remote_addr`] with both checks, for one routine.
    #[inline]
    /// A zero-length access reads and writes nothing, so its address is not checked (NULL is
    /// fine, as OpenSHMEM 1.5 says) and comes back as it was: callers must not dereference it.
    pub fn translate(&self, routine: &'static str, addr: usize, len: usize, pe: i64) -> Result<usize> {
        let pe = self.check_pe(routine, pe)?;
        if len == 0 {
            return Ok(addr);
        }
        self.remote_addr(addr, len, pe).ok_or(Error::NotSymmetric { routine, addr, len })
    }

    /// Where the `len` bytes of the local symmetric object at `addr` are on PE `pe`: mapped
    /// here (the PEs of this host) or reached through the network (the others). Checks the
    /// PE and that the whole range is symmetric. A zero-length range is `Mapped(addr)`
    /// unchecked: nothing will be accessed.
    #[inline(always)]
    pub fn target(&self, routine: &'static str, addr: usize, len: usize, pe: i64) -> Result<Target> {
        let pe = self.check_pe(routine, pe)?;
        // The common case first, as cheap as a plain translation: mapped here.
        match self.remote_addr(addr, len, pe) {
            Some(a) if len > 0 => Ok(Target::Mapped(a)),
            _ => self.target_slow(routine, addr, len, pe),
        }
    }

    /// [`Self::target`] for a zero length, another host, or an address that is not symmetric.
    #[cold]
    fn target_slow(&self, routine: &'static str, addr: usize, len: usize, pe: usize) -> Result<Target> {
        if len == 0 {
            return Ok(Target::Mapped(addr));
        }
        if !self.multi_host || self.topology.is_local(pe) {
            return Err(Error::NotSymmetric { routine, addr, len });
        }
        let (region, offset) = self.region_of(addr, len).ok_or(Error::NotSymmetric { routine, addr, len })?;
        Ok(Target::Net { pe, region, offset })
    }

    /// The symmetric region and offset of the local range `[addr, addr + len)`.
    pub(super) fn region_of(&self, addr: usize, len: usize) -> Option<(Region, usize)> {
        let off = addr.wrapping_sub(self.my_heap);
        if off < self.heap_size && len <= self.heap_size - off {
            return Some((Region::Heap, off));
        }
        let off = addr.wrapping_sub(self.static_start);
        if off < self.static_len && len <= self.static_len - off {
            return Some((Region::Statics, off));
        }
        None
    }

    /// Start of this PE's symmetric heap.
    pub fn heap_start(&self) -> usize {
        self.my_heap
    }

    /// Bytes of each PE's symmetric heap.
    pub fn heap_size(&self) -> usize {
        self.heap_size
    }
}

/// Where a symmetric range of some PE is (see [`Runtime::target`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Mapped in this process at this address (a PE of this host).
    Mapped(usize),
    /// On a PE of another host: `offset` bytes into its `region`.
    Net { pe: usize, region: Region, offset: usize },
}
