//! Making the main program's global and static variables symmetric (GUIDE.md §2).
//!
//! At init each PE finds the writable part of its executable's data segment (after RELRO),
//! copies it into its own slot of the job file, and maps that slot over the same addresses with
//! MAP_FIXED | MAP_SHARED: the program keeps running on identical bytes, now in shared memory.
//! The slots of all PEs lie end to end in the file and are mapped once, together (one mapping
//! per PE, not one per PE and copy), so a remote static variable is at
//! `slot_base[pe] + (addr - segment_start)`. All PEs run the same executable, so offsets agree
//! even where ASLR put the segment at different addresses.
//!
//! Sound only while no other thread writes the segment during the copy-and-remap, which is why
//! it happens inside init, before the program's own threads are expected to touch OpenSHMEM.
#![allow(unsafe_code)]

use std::ffi::c_void;

use rustix::mm::{mmap, MapFlags, ProtFlags};

use crate::error::{Error, Result};
use crate::job::{round_up, JobFile, Mapping, PAGE};

/// Page-aligned writable range of the main executable that becomes symmetric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    pub start: usize,
    pub len: usize,
}

/// Finds the main program's writable PT_LOAD range, minus its RELRO prefix.
pub(crate) fn find_main_segment() -> Option<Segment> {
    let mut found: Option<Segment> = None;
    // SAFETY: dl_iterate_phdr calls our callback with valid `dl_phdr_info` pointers for the
    // duration of each call; we read them only inside the callback.
    unsafe {
        libc::dl_iterate_phdr(Some(callback), (&mut found as *mut Option<Segment>).cast::<c_void>());
    }
    found
}

unsafe extern "C" fn callback(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> libc::c_int {
    // SAFETY: `data` is the `Option<Segment>` passed by find_main_segment; `info` is valid for
    // this call and its phdr array has dlpi_phnum entries (dl_iterate_phdr's contract).
    unsafe {
        let found = &mut *(data as *mut Option<Segment>);
        let info = &*info;
        let base = info.dlpi_addr as usize;
        let phdrs = std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize);
        let relro_end = phdrs
            .iter()
            .find(|p| p.p_type == libc::PT_GNU_RELRO)
            .map(|p| base + p.p_vaddr as usize + p.p_memsz as usize);
        // The main program is the first object reported; stop after it (return nonzero).
        for p in phdrs.iter().filter(|p| p.p_type == libc::PT_LOAD && p.p_flags & libc::PF_W != 0) {
            let seg_start = base + p.p_vaddr as usize;
            let seg_end = seg_start + p.p_memsz as usize;
            // ld.so write-protects RELRO rounded *down* to a page, so the page holding the end
            // of RELRO stays writable: start there.
            let from = match relro_end {
                Some(r) if r > seg_start && r <= seg_end => r & !(PAGE - 1),
                _ => seg_start & !(PAGE - 1),
            };
            let to = round_up(seg_end, PAGE);
            if to > from {
                *found = Some(Segment { start: from, len: to - from });
            }
        }
        1
    }
}

/// The static segment as every PE sees it: local range and where each PE's copy is mapped here.
#[derive(Debug)]
pub(crate) struct SharedStatics {
    pub segment: Segment,
    /// Address of PE i's copy in this process (our own entry is `segment.start`).
    pub bases: Vec<usize>,
    /// Every PE's copy (ours too, but ours is used at its original address).
    _all: Mapping,
}

impl SharedStatics {
    /// Moves this PE's segment into the job file and maps the copy of every PE for which
    /// `is_local` holds (the PEs of this host; the others are reached through the network
    /// and get base 0).
    pub(crate) fn share(
        job: &JobFile,
        my_pe: usize,
        segment: Segment,
        is_local: impl Fn(usize) -> bool,
    ) -> Result<Self> {
        let layout = job.layout();
        let stride = segment.len;
        let slot = |pe: usize| layout.static_base() + pe * stride;
        let total = layout.n_pes.checked_mul(stride).ok_or_else(|| {
            Error::bootstrap(format!("static data of {stride} bytes times {} PEs is too large", layout.n_pes))
        })?;
        job.ensure_len(slot(0) + total)?;
        // Every PE's copy in one mapping: one mmap per PE rather than one per PE and copy (a
        // job of n PEs made n^2 mappings of the job file, 19% of the start-up of 256 PEs,
        // docs/PERFORMANCE.md "Start-up").
        let all = Mapping::shared(job.fd(), slot(0), total)?;
        // Copy our bytes into our slot...
        // SAFETY: the source is our own mapped, writable segment; the destination our slot
        // inside the fresh mapping `all` (my_pe < n_pes); they do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(segment.start as *const u8, all.ptr.add(my_pe * stride), stride)
        };
        // ...then put the slot over the segment. Same bytes, now shared.
        // SAFETY: MAP_FIXED replaces exactly the page range of our writable data segment with
        // a mapping that holds identical content; no other thread runs during init.
        unsafe {
            mmap(
                segment.start as *mut c_void,
                stride,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::FIXED,
                job.fd(),
                slot(my_pe) as u64,
            )
        }
        .map_err(|e| Error::bootstrap_os("remapping static data into shared memory", e))?;
        let bases = (0..layout.n_pes)
            .map(|pe| match pe {
                _ if pe == my_pe => segment.start,
                _ if !is_local(pe) => 0,
                _ => all.ptr as usize + pe * stride,
            })
            .collect();
        Ok(SharedStatics { segment, bases, _all: all })
    }
}
