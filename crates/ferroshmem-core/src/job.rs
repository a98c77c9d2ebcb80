//! The job file: one memfd per job holding every PE's control block and symmetric heap, and
//! (appended at init) every PE's copy of the program's static data.
//!
//! `oshrun` creates the file and writes the [`JobHeader`]; each PE inherits the descriptor
//! (its number is in `FERROSHMEM_JOB_FD`) and maps it. A program started without `oshrun`
//! creates a one-PE job file itself. The file is sparse: only pages that are touched cost memory,
//! and it vanishes with the last process that holds it, so nothing is left in /dev/shm.
//!
//! Layout (offsets in the file):
//! ```text
//! 0               JobHeader (one page)
//! CTRL_BASE       PE 0 control block, PE 1 control block, ...   (ctrl_stride each)
//! heap_base       PE 0 heap, PE 1 heap, ...                     (heap_size each)
//! static_base     PE 0 static data, PE 1 static data, ...       (sized at init by each PE)
//! ```
#![allow(unsafe_code)]

use std::os::fd::{AsFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{fcntl_add_seals, fcntl_get_seals, ftruncate, memfd_create, MemfdFlags, SealFlags};
use rustix::mm::{mmap, mmap_anonymous, munmap, MapFlags, ProtFlags};

use crate::error::{Error, Result};

/// Environment variable through which oshrun passes the job file descriptor.
pub const ENV_JOB_FD: &str = "FERROSHMEM_JOB_FD";
/// Environment variable through which oshrun passes the PE number.
pub const ENV_PE: &str = "FERROSHMEM_PE";
/// Environment variable that sizes each PE's symmetric heap (`512M`, `2G`, `65536`, ...).
pub const ENV_SYMMETRIC_SIZE: &str = "SHMEM_SYMMETRIC_SIZE";
/// Environment variable that sets how many team slots each PE has (teams it can belong to at once).
pub const ENV_TEAM_SLOTS: &str = "SHMEMX_TEAM_SLOTS";
/// Default symmetric heap per PE: address space only; pages are allocated when touched.
pub const DEFAULT_HEAP_SIZE: usize = 512 << 20;
/// Default number of team slots per PE.
pub const DEFAULT_TEAM_SLOTS: usize = 8192;
const MAGIC: u64 = 0x4645_5252_4f53_484d; // "FERROSHM"
const LAYOUT_VERSION: u32 = 6;
/// Granule of the big regions: a huge-page multiple keeps heaps well aligned.
const REGION_ALIGN: usize = 2 << 20;
/// Page size assumed for mapping granularity (checked at runtime against sysconf).
pub(crate) const PAGE: usize = 4096;
/// Offset of the first PE control block.
pub(crate) const CTRL_BASE: usize = PAGE;
/// Where every word of a team slot lies: part of the layout of the job file, below the teams
/// that use the words.
pub(crate) mod slot_layout;
/// Words of a team slot before its mailboxes (`slot_layout` places each of them).
pub(crate) use slot_layout::SLOT_FIXED_WORDS;

/// Slots of each PE that may wait, deferred, at once (and credits of a PE's slot table,
/// `team::slots`).
pub const DEFER_CREDITS: usize = 4;

/// Slots of each PE in memory for `capacity` that teams may hold: the deferred ones come on
/// top (the one place that says so: this layout, the teams' handle table and slot table).
pub const fn slots_in_memory(capacity: usize) -> usize {
    capacity + DEFER_CREDITS
}
/// Bytes of a team slot's staging area on each PE (after all the slots of its control
/// block): where oversubscribed collectives of medium payloads stage their data, so that they
/// need one sync rather than two (`coll::SHARED_STAGE_BYTES` of it), and then the ring of
/// small broadcasts between hosts (`coll::hier`). Untouched pages cost nothing (the job file
/// is sparse), so only teams that use it pay for it.
pub(crate) const STAGE_BYTES: usize = 148 << 10;
/// Words of one mailbox (a flag word then the payload): two cache lines.
pub(crate) const MAILBOX_WORDS: usize = 16;

/// Rounds of a dissemination pattern over `n` members: ceil(log2 n), at least 1.
pub(crate) const fn dissemination_rounds(n: usize) -> usize {
    let mut r = 1;
    while (1usize << r) < n {
        r += 1;
    }
    r
}

/// Rendezvous records per PE: `shmemx_team_init` creations a PE can host at once as root.
pub(crate) const RDV_RECORDS: usize = 16;
/// Fixed words at the start of a rendezvous record.
pub(crate) const RDV_FIXED_WORDS: usize = 8;
/// Words of one member entry of a rendezvous record.
pub(crate) const RDV_ENTRY_WORDS: usize = 8;

/// Words of one rendezvous record: fixed words, then one entry per PE for each round parity.
pub(crate) const fn rdv_record_words(n_pes: usize) -> usize {
    RDV_FIXED_WORDS + 2 * n_pes * RDV_ENTRY_WORDS
}

/// Words of a team slot for a job of `n_pes`: fixed words, then two mailboxes (by all-reduce
/// parity) for every dissemination round.
pub(crate) const fn slot_words(n_pes: usize) -> usize {
    SLOT_FIXED_WORDS + dissemination_rounds(n_pes) * 2 * MAILBOX_WORDS
}
/// Bytes at the start of each control block before the team slots.
pub(crate) const CTRL_FIXED: usize = 4096;

/// Parses sizes like `512M`, `2G`, `64k`, `1048576` (binary multiples).
pub fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let (digits, mult) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        None => (t, 1usize),
        Some((i, _)) => {
            let unit = t[i..].trim().to_ascii_uppercase();
            let unit = unit.trim_end_matches('B').trim_end_matches('I');
            let mult = match unit {
                "" => 1usize,
                "K" => 1 << 10,
                "M" => 1 << 20,
                "G" => 1 << 30,
                "T" => 1 << 40,
                _ => return None,
            };
            (&t[..i], mult)
        }
    };
    let n: usize = digits.parse().ok()?;
    n.checked_mul(mult)
}

/// Rounds `x` up to a multiple of `to` (a power of two).
pub(crate) const fn round_up(x: usize, to: usize) -> usize {
    (x + to - 1) & !(to - 1)
}

/// The first page of the job file. Written once by the creator, then read-only but for the
/// atomics, which any PE or the launcher may touch.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct JobHeader {
    magic: u64,
    layout_version: u32,
    n_pes: u32,
    /// Cores the creator (oshrun) may run on: one figure for the whole job, so every PE
    /// picks the same algorithms (central or dissemination sync) whatever its own affinity.
    cores: u32,
    heap_size: u64,
    team_slots: u64,
    ctrl_stride: u64,
    heap_base: u64,
    /// `shmem_global_exit`: bit 63 set means requested; bits 32..62 the PE; bits 0..31 the status.
    exit_request: AtomicU64,
    /// The job's coarse clock (CLOCK_MONOTONIC, milliseconds): advanced by oshrun every 50 ms,
    /// by waiters that sleep, and under a PMIx launcher by a ticker of the host's first PE. A
    /// PE leaving the library stamps its state with it (one load, no clock read per call).
    clock_ms: AtomicU64,
    /// The last hang report printed on this host: (team slot + 1) << 40 | the team's call
    /// number. The first waiter to swap it in prints; the others of that call stay quiet.
    hang_reported: AtomicU64,
}

/// Geometry of a job file, derived from the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// PEs of the job.
    pub n_pes: usize,
    /// Bytes of each PE's symmetric heap.
    pub heap_size: usize,
    /// Team slots of each PE that teams may hold (`SHMEMX_TEAM_SLOTS`).
    pub team_slots: usize,
    /// Team slots of each PE in memory: `team_slots` and `team::slots::DEFER_CREDITS` more,
    /// which only slots of destroyed teams waiting to be reused take, so that they never take
    /// one of the slots a program was promised ([`slots_in_memory`]).
    pub slot_count: usize,
    /// Bytes from one PE's control block to the next.
    pub ctrl_stride: usize,
    /// Offset of PE 0's heap in the file.
    pub heap_base: usize,
    /// Words of each team slot.
    pub slot_words: usize,
}

impl Layout {
    /// Computes the layout for `n_pes` PEs with `heap_size` bytes of heap and `team_slots` slots each.
    pub fn new(n_pes: usize, heap_size: usize, team_slots: usize) -> Result<Self> {
        if n_pes == 0 || n_pes > (1 << 24) {
            return Err(Error::bootstrap(format!("unsupported number of PEs: {n_pes}")));
        }
        if heap_size > isize::MAX as usize || team_slots > (1 << 32) {
            return Err(Error::bootstrap(format!(
                "unsupported heap size {heap_size} (SHMEM_SYMMETRIC_SIZE) or team slots {team_slots} (SHMEMX_TEAM_SLOTS)"
            )));
        }
        let heap_size = round_up(heap_size.max(REGION_ALIGN), REGION_ALIGN);
        let slot_words = slot_words(n_pes);
        let slot_count = slots_in_memory(team_slots);
        let stages = round_up(
            CTRL_FIXED + RDV_RECORDS * rdv_record_words(n_pes) * 8 + slot_count * slot_words * 8,
            PAGE,
        );
        let ctrl_stride = stages + slot_count * STAGE_BYTES;
        let heap_base = round_up(CTRL_BASE + n_pes * ctrl_stride, REGION_ALIGN);
        // Every offset of the file, and the address space a PE reserves for it, must fit.
        n_pes
            .checked_mul(heap_size)
            .and_then(|heaps| heaps.checked_add(heap_base))
            .and_then(|len| len.checked_add(MAX_HEAP_ALIGN))
            .filter(|&len| len <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::bootstrap(format!(
                    "a job of {n_pes} PEs with {} of symmetric heap each (SHMEM_SYMMETRIC_SIZE) does not fit in an address space",
                    human_bytes(heap_size)
                ))
            })?;
        Ok(Layout { n_pes, heap_size, team_slots, slot_count, ctrl_stride, heap_base, slot_words })
    }

    /// Offset, inside a control block, of rendezvous record `record` (team_init; the same on
    /// every PE, so a PE of another host reaches a record at this offset of the `Ctrl` region).
    pub fn rdv_record_offset(&self, record: usize) -> usize {
        CTRL_FIXED + record * rdv_record_words(self.n_pes) * 8
    }

    /// Offset, inside a control block, of the first team slot (after the rendezvous records).
    pub fn slots_offset(&self) -> usize {
        CTRL_FIXED + RDV_RECORDS * rdv_record_words(self.n_pes) * 8
    }

    /// Offset, inside a control block, of the first slot's staging area (after the slots).
    pub fn stages_offset(&self) -> usize {
        self.ctrl_stride - self.slot_count * STAGE_BYTES
    }

    /// Offset of PE `pe`'s control block.
    pub fn ctrl_offset(&self, pe: usize) -> usize {
        CTRL_BASE + pe * self.ctrl_stride
    }

    /// First byte after all heaps: where the static-data copies begin.
    pub fn static_base(&self) -> usize {
        self.heap_base + self.n_pes * self.heap_size
    }

    /// Bytes of the file before the static-data copies.
    pub fn fixed_len(&self) -> usize {
        self.static_base()
    }

    /// Address space that every PE of the job reserves: the file up to the static data, plus
    /// the slack that puts its heap on a `MAX_HEAP_ALIGN` boundary.
    pub fn address_space(&self) -> usize {
        self.fixed_len().saturating_add(MAX_HEAP_ALIGN)
    }

    /// Checks, before any PE starts, that a process here can reserve
    /// [`Self::address_space`]: the one hard limit that grows with the job's size and heap
    /// (n × (heap + control block); 47-bit address spaces give a process 128 TiB). The error
    /// names the figures and what to change, instead of every PE failing in its own mmap.
    pub fn check_address_space(&self) -> Result<()> {
        let span = self.address_space();
        // SAFETY: a fresh PROT_NONE reservation at an address the kernel picks aliases nothing,
        // and is unmapped at once.
        let reserved = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                span,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        };
        match reserved {
            Ok(p) => {
                // SAFETY: unmaps exactly the reservation just made.
                let _ = unsafe { munmap(p, span) };
                Ok(())
            }
            Err(e) => Err(Error::bootstrap_os(
                format!(
                "a job of {n} PEs needs {total} of address space in every PE: {n} x ({heap} of symmetric heap \
                 (SHMEM_SYMMETRIC_SIZE) + {ctrl} of control block ({slots} team slots, SHMEMX_TEAM_SLOTS)), \
                 more than a process may reserve here; use fewer PEs, a smaller SHMEM_SYMMETRIC_SIZE \
                 or fewer SHMEMX_TEAM_SLOTS",
                n = self.n_pes,
                total = human_bytes(span),
                heap = human_bytes(self.heap_size),
                ctrl = human_bytes(self.ctrl_stride),
                slots = self.team_slots,
                ),
                e,
            )),
        }
    }
}

/// `bytes` in the largest binary unit that keeps a number of at least 1 (`1.5 GiB`).
pub(crate) fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// An open job file: the descriptor and its layout.
#[derive(Debug)]
pub struct JobFile {
    fd: OwnedFd,
    layout: Layout,
    cores: usize,
}

impl JobFile {
    /// Creates a new job file for `layout` and writes its header. Used by oshrun, and by a
    /// program started without oshrun. The descriptor is inheritable (no CLOEXEC) so that
    /// children started by oshrun receive it.
    pub fn create(layout: Layout) -> Result<Self> {
        Self::create_with_cores(layout, std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// [`Self::create`] recording `cores` as the cores the job's PEs on this host share.
    pub fn create_with_cores(layout: Layout, cores: usize) -> Result<Self> {
        let fd = memfd_create("ferroshmem-job", MemfdFlags::ALLOW_SEALING)
            .map_err(|e| Error::bootstrap_os("memfd_create", e))?;
        ftruncate(&fd, layout.fixed_len() as u64)
            .map_err(|e| Error::bootstrap_os("sizing the job file", e))?;
        // Every mapping of the file (ours, each PE's, the launcher's header) must stay backed:
        // a shrink would turn a read through one into SIGBUS. The file only ever grows
        // (`ensure_len`), so it is sealed against shrinking, and against further seals, before
        // anything maps it or the descriptor is passed on.
        fcntl_add_seals(&fd, SealFlags::SHRINK | SealFlags::SEAL)
            .map_err(|e| Error::bootstrap_os("sealing the job file", e))?;
        let file = JobFile { fd, layout, cores };
        let header = file.map_header()?;
        // SAFETY: the header page was just mapped read-write and nobody else has the file yet.
        unsafe {
            let h = header.mapping.ptr as *mut JobHeader;
            (*h).magic = MAGIC;
            (*h).layout_version = LAYOUT_VERSION;
            (*h).n_pes = layout.n_pes as u32;
            (*h).cores = cores as u32;
            (*h).heap_size = layout.heap_size as u64;
            (*h).team_slots = layout.team_slots as u64;
            (*h).ctrl_stride = layout.ctrl_stride as u64;
            (*h).heap_base = layout.heap_base as u64;
        }
        Ok(file)
    }

    /// Opens the job file whose descriptor was inherited as `raw_fd`, checking its header.
    /// Crate-private: it takes ownership of a descriptor by number (bootstrap does so once).
    pub(crate) fn from_inherited(raw_fd: RawFd) -> Result<Self> {
        // SAFETY: oshrun passed this descriptor number for exactly this purpose; we take
        // ownership of it once, at init, and nothing else in the process uses it.
        let fd = unsafe { OwnedFd::from_raw_fd(raw_fd) };
        rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::CLOEXEC).map_err(|e| {
            Error::bootstrap(format!(
                "job file descriptor {raw_fd} is not open ({e}); was the program started by oshrun?"
            ))
        })?;
        // Mapping a file that someone could shrink is not sound: only sealed ones are job files.
        let seals = fcntl_get_seals(&fd).unwrap_or(SealFlags::empty());
        if !seals.contains(SealFlags::SHRINK) {
            return Err(Error::bootstrap(format!(
                "descriptor {raw_fd} is not a sealed ferroshmem job file (oshrun and the library differ?)"
            )));
        }
        let probe = JobFile { fd, layout: Layout::new(1, 0, 0)?, cores: 1 };
        let header = probe.map_header()?;
        // SAFETY: the header page is mapped and was fully written by the creator before it
        // started any PE; the plain fields are never written again.
        let (magic, version, n_pes, cores, heap_size, team_slots, ctrl_stride, heap_base) = unsafe {
            let h = &*(header.mapping.ptr as *const JobHeader);
            (
                h.magic,
                h.layout_version,
                h.n_pes as usize,
                (h.cores as usize).max(1),
                h.heap_size as usize,
                h.team_slots as usize,
                h.ctrl_stride as usize,
                h.heap_base as usize,
            )
        };
        let layout = Layout::new(n_pes, heap_size, team_slots)?;
        if magic != MAGIC
            || version != LAYOUT_VERSION
            || layout.ctrl_stride != ctrl_stride
            || layout.heap_base != heap_base
        {
            return Err(Error::bootstrap(format!(
                "descriptor {raw_fd} is not a ferroshmem job file of this version (oshrun and the library differ?)"
            )));
        }
        Ok(JobFile { fd: probe.fd, layout, cores })
    }

    /// The file's layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Cores the job runs on, as its creator saw them.
    pub fn cores(&self) -> usize {
        self.cores
    }

    /// The descriptor (for mapping, and for oshrun to pass on).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Clears CLOEXEC so that a child started with exec inherits the descriptor.
    pub fn make_inheritable(&self) -> Result<()> {
        rustix::io::fcntl_setfd(&self.fd, rustix::io::FdFlags::empty())
            .map_err(|e| Error::bootstrap_os("fcntl", e))
    }

    /// Maps the header page (for the launcher, which needs only the exit request).
    pub fn map_header(&self) -> Result<MappedHeader> {
        Ok(MappedHeader { mapping: Mapping::shared(self.fd(), 0, PAGE)? })
    }

    /// Grows the file to at least `len` bytes. Every PE computes the same length, so racing
    /// calls only ever grow it (and the seal set at creation refuses any shrink).
    pub fn ensure_len(&self, len: usize) -> Result<()> {
        let st = rustix::fs::fstat(&self.fd).map_err(|e| Error::bootstrap_os("fstat", e))?;
        if (st.st_size as usize) < len {
            ftruncate(&self.fd, len as u64).map_err(|e| Error::bootstrap_os("growing the job file", e))?;
        }
        Ok(())
    }
}

/// A shared mapping of part of the job file, unmapped on drop. Crate-private: its pointer
/// reaches raw shared memory.
#[derive(Debug)]
pub(crate) struct Mapping {
    pub(crate) ptr: *mut u8,
    pub(crate) len: usize,
}

/// The header page of a job file, mapped by [`JobFile::map_header`] (and unmapped on drop).
#[derive(Debug)]
pub struct MappedHeader {
    mapping: Mapping,
}

impl MappedHeader {
    /// Read access to the header.
    pub fn view(&self) -> HeaderView<'_> {
        HeaderView::new(&self.mapping)
    }
}

// SAFETY: the mapping is plain shared memory; all access through it is by raw pointers or atomics.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

/// Largest alignment that `shmem_align` honours in absolute addresses: the job file is mapped
/// so that this PE's heap starts on such a boundary (see [`Mapping::shared_aligned`]).
pub(crate) const MAX_HEAP_ALIGN: usize = 1 << 30;

impl Mapping {
    /// Maps `len` bytes of `fd` from offset 0 at an address where file offset `aligned_offset`
    /// falls on an `align` boundary (a power of two). The symmetric heap is mapped this way
    /// so that an offset aligned inside the heap is an aligned address on every PE: the kernel
    /// only promises page alignment. Costs `align` bytes of address space for a moment (a
    /// PROT_NONE reservation, trimmed at once), no memory.
    pub(crate) fn shared_aligned(
        fd: BorrowedFd<'_>,
        len: usize,
        aligned_offset: usize,
        align: usize,
    ) -> Result<Self> {
        debug_assert!(align.is_power_of_two() && align >= PAGE);
        let span = len
            .checked_add(align)
            .ok_or_else(|| Error::bootstrap(format!("job file of {len} bytes too large to map")))?;
        // SAFETY: a fresh reservation at an address the kernel picks aliases no Rust object.
        let reserved = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                span,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }
        .map_err(|e| Error::bootstrap_os(format!("reserving {span} bytes of address space"), e))?;
        let lo = reserved as usize;
        // The first address at or above `lo` where `aligned_offset` lands on the boundary.
        let at = (lo + aligned_offset).next_multiple_of(align) - aligned_offset;
        // SAFETY: [at, at + len) lies inside our own reservation (at - lo < align), which
        // nothing else uses; MAP_FIXED replaces just that part of it.
        let ptr = unsafe {
            mmap(
                at as *mut std::ffi::c_void,
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::NORESERVE | MapFlags::FIXED,
                fd,
                0,
            )
        };
        let trim = |ptr: usize, n: usize| {
            if n > 0 {
                // SAFETY: unmaps only what is left of our own reservation.
                let _ = unsafe { munmap(ptr as *mut std::ffi::c_void, n) };
            }
        };
        match ptr {
            Ok(p) => {
                trim(lo, at - lo);
                trim(at + len, lo + span - (at + len));
                Ok(Mapping { ptr: p.cast(), len })
            }
            Err(e) => {
                trim(lo, span);
                Err(Error::bootstrap_os(format!("mmap of {len} bytes of the job file"), e))
            }
        }
    }

    /// Maps `len` bytes at `offset` of `fd`, shared and read-write, anywhere.
    pub(crate) fn shared(fd: BorrowedFd<'_>, offset: usize, len: usize) -> Result<Self> {
        // SAFETY: a fresh mapping at an address the kernel picks aliases no Rust object.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::NORESERVE,
                fd,
                offset as u64,
            )
        }
        .map_err(|e| Error::bootstrap_os(format!("mmap of {len} bytes of the job file"), e))?;
        Ok(Mapping { ptr: ptr.cast(), len })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: we own this mapping; callers stop using the pointer before dropping it.
        let _ = unsafe { munmap(self.ptr.cast(), self.len) };
    }
}

/// Read access to the header through a mapping of the job file that starts at offset 0.
pub struct HeaderView<'a> {
    header: &'a JobHeader,
}

impl std::fmt::Debug for HeaderView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeaderView").field("exit_request", &self.exit_request()).finish()
    }
}

/// A PE's request to end the job (`shmem_global_exit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitRequest {
    /// The PE that asked.
    pub pe: usize,
    /// The status it asked for.
    pub status: i32,
}

impl<'a> HeaderView<'a> {
    /// Views the header at the start of `mapping`, which must map the job file from offset 0
    /// and be at least a page long (crate-private; the launcher uses [`MappedHeader::view`]).
    pub(crate) fn new(mapping: &'a Mapping) -> Self {
        // SAFETY: every mapping passed here starts at file offset 0, where the header lives,
        // and is at least a page long; the header is only mutated through its atomics.
        HeaderView { header: unsafe { &*(mapping.ptr as *const JobHeader) } }
    }

    /// Records a global exit; the first request wins. Returns whether this one was recorded.
    pub fn request_exit(&self, pe: usize, status: i32) -> bool {
        let word = (1u64 << 63) | ((pe as u64 & 0x7fff_ffff) << 32) | (status as u32 as u64);
        self.header.exit_request.compare_exchange(0, word, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    }

    /// The job's coarse clock in milliseconds (0: nobody has advanced it yet).
    #[inline]
    pub fn clock_ms(&self) -> u64 {
        self.header.clock_ms.load(Ordering::Relaxed)
    }

    /// Advances the job's coarse clock to `now_ms` (never back); stores only when it moved by
    /// at least `step_ms`, so that the line every PE reads changes rarely. Whether it stored.
    #[inline]
    pub fn tick_clock(&self, now_ms: u64, step_ms: u64) -> bool {
        if self.header.clock_ms.load(Ordering::Relaxed).saturating_add(step_ms) <= now_ms {
            self.header.clock_ms.fetch_max(now_ms, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Claims the printing of the hang report `key` on this host: true for the first caller.
    pub(crate) fn claim_hang_report(&self, key: u64) -> bool {
        self.header.hang_reported.swap(key, Ordering::AcqRel) != key
    }

    /// The recorded global exit, if any.
    pub fn exit_request(&self) -> Option<ExitRequest> {
        let word = self.header.exit_request.load(Ordering::SeqCst);
        (word >> 63 == 1)
            .then_some(ExitRequest { pe: ((word >> 32) & 0x7fff_ffff) as usize, status: word as u32 as i32 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("64k"), Some(64 << 10));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn layout_regions_do_not_overlap() {
        let l = Layout::new(12, 100 << 20, 4096).unwrap();
        assert!(l.ctrl_offset(11) + l.ctrl_stride <= l.heap_base);
        assert_eq!(l.heap_base % REGION_ALIGN, 0);
        assert_eq!(l.heap_size % REGION_ALIGN, 0);
        assert!(l.heap_size >= 100 << 20);
    }

    #[test]
    fn address_space_is_checked_before_start() {
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        let fits = Layout::new(4, 1 << 20, 16).unwrap();
        fits.check_address_space().unwrap();
        // 4 x 64 TiB: more than any 47-bit (128 TiB) or 56-bit address space allows here.
        let too_big = Layout::new(1 << 16, 1 << 46, 16).unwrap();
        let msg = too_big.check_address_space().unwrap_err().to_string();
        assert!(msg.contains("a job of 65536 PEs needs") && msg.contains("SHMEM_SYMMETRIC_SIZE"), "{msg}");
        let msg = Layout::new(1 << 24, 1 << 50, 16).unwrap_err().to_string();
        assert!(msg.contains("does not fit in an address space"), "{msg}");
        assert!(Layout::new(2, usize::MAX, 16).is_err());
    }

    #[test]
    fn exit_request_round_trips_and_first_wins() {
        let f = JobFile::create(Layout::new(2, 0, 1).unwrap()).unwrap();
        let m = f.map_header().unwrap();
        let h = m.view();
        assert_eq!(h.exit_request(), None);
        assert!(h.request_exit(1, 3));
        assert!(!h.request_exit(0, 9));
        assert_eq!(h.exit_request(), Some(ExitRequest { pe: 1, status: 3 }));
    }

    /// Issue 27 (5): truncating the job file through its descriptor turned a read of a mapped
    /// header into SIGBUS; the seal refuses the shrink, and growing still works.
    #[test]
    fn job_file_cannot_shrink_under_its_mappings() {
        let f = JobFile::create(Layout::new(1, 0, 1).unwrap()).unwrap();
        let header = f.map_header().unwrap();
        let file = std::fs::File::from(f.fd().try_clone_to_owned().unwrap());
        let err = file.set_len(0).expect_err("the job file shrank");
        assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{err}");
        assert_eq!(header.view().exit_request(), None);
        let len = f.layout().fixed_len();
        f.ensure_len(len + PAGE).unwrap();
        assert_eq!(file.metadata().unwrap().len(), (len + PAGE) as u64);
        assert!(file.set_len(len as u64).is_err());
        let more = fcntl_add_seals(f.fd(), SealFlags::GROW).expect_err("seals were not sealed");
        assert_eq!(more, rustix::io::Errno::PERM);
    }

    /// A descriptor of an unsealed file is refused before anything maps it.
    #[test]
    fn unsealed_file_is_not_a_job_file() {
        use std::os::fd::IntoRawFd;
        let fd = memfd_create("not-a-job", MemfdFlags::empty()).unwrap();
        ftruncate(&fd, PAGE as u64).unwrap();
        let raw = fd.into_raw_fd();
        let msg = JobFile::from_inherited(raw).unwrap_err().to_string();
        assert!(msg.contains("not a sealed ferroshmem job file"), "{msg}");
    }
}
