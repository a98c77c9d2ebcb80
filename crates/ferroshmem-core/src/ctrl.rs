//! Per-PE control blocks in the job file: the doorbell that sleeping waiters listen on, what
//! the PE is doing (its state word, [`Doing`], for hang reports), and the team slots
//! (synchronisation words for each team a PE belongs to).
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU32, AtomicU64};

use crate::job::{rdv_record_words, Layout, CTRL_FIXED, RDV_RECORDS};
use crate::sync_prims;

/// The fixed head of a PE's control block: one cache line (aligned to it), whose words every
/// waiter on this PE and every writer that may have to wake one touch together. The three
/// doorbell words are the wait protocol's (`wait`), so their type comes from `sync_prims`:
/// std's `AtomicU32`, or loom's when loom model-checks the protocol.
#[repr(C, align(64))]
#[derive(Debug)]
pub struct PeCtrl {
    /// Bumped (then futex-woken) by any writer that finds `sleepers` nonzero.
    pub doorbell: sync_prims::AtomicU32,
    /// Number of threads (of any PE) asleep waiting for this PE's memory to change.
    pub sleepers: sync_prims::AtomicU32,
    /// Set by a waiter about to sleep, cleared by the one writer that rings for it: later
    /// writers then skip the wake system call until a waiter sleeps again.
    pub armed: sync_prims::AtomicU32,
    /// The CPU this PE last ran a central sync on, plus one (0: not known yet).
    pub cpu: AtomicU32,
    _pad: [u8; 64 - HEAD_WORDS],
    /// Keeps `state` away from the doorbell's line and its neighbour (the adjacent-line
    /// prefetcher pairs lines), which every writer to this PE reads.
    _gap: [u8; STATE_OFFSET - 64],
    /// What this PE is doing, for hang reports (its own cache line: only this PE writes it,
    /// except `ended`, which oshrun writes once the process has ended).
    pub state: PeState,
    /// Keeps `report` off the prefetch pair of `state`'s line.
    _gap2: [u8; REPORT_OFFSET - STATE_OFFSET - 64],
    /// Words that other PEs write for hang reports (never this PE's calls).
    pub report: ReportWords,
}

/// Words of a control block written by others for hang reports, in a line of their own: a PE
/// of another host reads them with the block's `state` in one get (`activity`).
#[repr(C, align(64))]
#[derive(Debug)]
pub struct ReportWords {
    /// The host's clock (CLOCK_MONOTONIC ms, as the job header's coarse clock), copied here
    /// by whoever ticks that clock in a job across hosts (0: not yet): the clock that the
    /// instants of `state` refer to, for a reader on another host, whose clock differs.
    pub host_clock: AtomicU64,
    /// The last hang report claimed for a team whose first member is this PE: (slot + 1) << 40
    /// | the team's call number, swapped in by the reporting PE (CPU atomics from this host,
    /// network atomics from the others), so that one report is printed per call in the job.
    pub hang_claim: AtomicU64,
    _pad: [u8; 48],
}

/// What a PE publishes about itself for hang reports (see `activity`): read by the other PEs
/// of its host, by oshrun, and by the PEs of other hosts through the network (the block is
/// registered with UCX); written with Relaxed stores and never fenced.
#[repr(C, align(64))]
#[derive(Debug)]
pub struct PeState {
    /// [`Doing`] encoded: in a call (routine id, team slot), outside the library since a
    /// clock time, or finished.
    pub call: AtomicU64,
    /// The team's call number of the call in `call` (this PE's count of calls on the team).
    pub seq: AtomicU64,
    /// The clock (CLOCK_MONOTONIC ms) when the current call's wait began to sleep (valid
    /// while `call` has its blocked bit).
    pub blocked_since: AtomicU64,
    /// Written by oshrun when the process ended: bit 63, bit 62 for a signal, the status or
    /// signal number in the low 32 bits.
    pub ended: AtomicU64,
    /// The routine's name as this process has it (address | length << 48): turned into the
    /// routine's id in `call` only when a wait begins to sleep, so a call costs no look-up.
    /// Meaningful to this PE alone.
    pub routine_ref: AtomicU64,
    _pad: [u8; 24],
}

// ------------------------------------------------------------------------------------------
// The state word (`PeState::call`): written by the PE's calls (`runtime::calls`), read by
// the hang reports (`activity`); here, below both, with the words it describes.
// ------------------------------------------------------------------------------------------

pub(crate) const KIND_SHIFT: u32 = 62;
pub(crate) const KIND_IN_CALL: u64 = 1;
pub(crate) const KIND_OUTSIDE: u64 = 2;
pub(crate) const KIND_FINISHED: u64 = 3;
pub(crate) const LOW_MASK: u64 = (1 << KIND_SHIFT) - 1;
/// In a call's word: its wait has begun to sleep, and `PeState::blocked_since` says when (so
/// leaving a call, which writes a new word, needs no second store to clear the time).
pub(crate) const BLOCKED: u64 = 1 << 61;
pub(crate) const ROUTINE_MASK: u64 = BLOCKED - 1;

/// What a PE is doing, as its `PeState::call` word says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doing {
    /// Nothing published yet: before `shmem_init` mapped the job.
    Starting,
    /// In a library call.
    InCall {
        /// The routine's id (`activity::routine_name`); 0 until it is named, when the call's
        /// wait begins to sleep.
        routine: u32,
        /// The slot of the team the call is on, if any.
        team_slot: Option<usize>,
    },
    /// Outside the library.
    Outside {
        /// Since this clock time (ms; 0 unknown).
        since_ms: u64,
    },
    /// Returned from `shmem_finalize`.
    Finished {
        /// At this clock time (ms).
        since_ms: u64,
    },
}

impl Doing {
    /// The word that says this.
    #[inline]
    pub fn encode(self) -> u64 {
        match self {
            Doing::Starting => 0,
            Doing::InCall { routine, team_slot } => {
                KIND_IN_CALL << KIND_SHIFT
                    | (routine as u64) << 32
                    | team_slot.map_or(0, |s| (s as u64 + 1) & 0xffff_ffff)
            }
            Doing::Outside { since_ms } => KIND_OUTSIDE << KIND_SHIFT | (since_ms & LOW_MASK),
            Doing::Finished { since_ms } => KIND_FINISHED << KIND_SHIFT | (since_ms & LOW_MASK),
        }
    }

    /// What `word` says.
    #[inline]
    pub fn decode(word: u64) -> Self {
        match word >> KIND_SHIFT {
            KIND_IN_CALL => {
                let slot = word & 0xffff_ffff;
                Doing::InCall {
                    routine: ((word & ROUTINE_MASK) >> 32) as u32,
                    team_slot: (slot != 0).then(|| slot as usize - 1),
                }
            }
            KIND_OUTSIDE => Doing::Outside { since_ms: word & LOW_MASK },
            KIND_FINISHED => Doing::Finished { since_ms: word & LOW_MASK },
            _ => Doing::Starting,
        }
    }
}

/// This process's reference to a routine's name (see [`PeState::routine_ref`]).
#[inline(always)]
pub(crate) fn routine_ref(name: &'static str) -> u64 {
    name.as_ptr() as u64 | (name.len().min(0xffff) as u64) << 48
}

/// Bytes of the four words that open a control block (16; more under loom, whose atomics are
/// larger, and whose control blocks are never mapped).
const HEAD_WORDS: usize = 3 * std::mem::size_of::<sync_prims::AtomicU32>() + std::mem::size_of::<AtomicU32>();

/// Offset of [`PeState`] in a control block (the `Ctrl` region a PE registers for the
/// network starts at its block, so this is also the offset a PE of another host reads).
pub(crate) const STATE_OFFSET: usize = 2048;
/// Offset of [`ReportWords`] in a control block.
pub(crate) const REPORT_OFFSET: usize = STATE_OFFSET + 128;
const _: () = assert!(std::mem::size_of::<PeCtrl>() <= CTRL_FIXED);
const _: () = assert!(std::mem::offset_of!(PeCtrl, state) == STATE_OFFSET);
const _: () = assert!(std::mem::offset_of!(PeCtrl, report) == REPORT_OFFSET);

#[cfg(all(loom, test))]
impl PeCtrl {
    /// A control block outside shared memory, for the loom models of `wait` (loom's atomics
    /// are made inside a model, so they cannot live in the job file).
    pub(crate) fn for_loom() -> Self {
        let word = || AtomicU64::new(0);
        PeCtrl {
            doorbell: sync_prims::AtomicU32::new(0),
            sleepers: sync_prims::AtomicU32::new(0),
            armed: sync_prims::AtomicU32::new(0),
            cpu: AtomicU32::new(0),
            _pad: [0; 64 - HEAD_WORDS],
            _gap: [0; STATE_OFFSET - 64],
            state: PeState {
                call: word(),
                seq: word(),
                blocked_since: word(),
                ended: word(),
                routine_ref: word(),
                _pad: [0; 24],
            },
            _gap2: [0; REPORT_OFFSET - STATE_OFFSET - 64],
            report: ReportWords { host_clock: word(), hang_claim: word(), _pad: [0; 48] },
        }
    }
}

/// Addresses of every PE's control block inside this process's mapping of the job file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CtrlTable {
    base: *mut u8,
    layout: Layout,
}

// SAFETY: the table only hands out references to atomics in shared memory.
unsafe impl Send for CtrlTable {}
// SAFETY: as above.
unsafe impl Sync for CtrlTable {}

impl CtrlTable {
    /// `base` is where file offset 0 is mapped; the mapping covers every control block and
    /// outlives the table (the runtime never unmaps it).
    pub(crate) fn new(base: *mut u8, layout: Layout) -> Self {
        CtrlTable { base, layout }
    }

    /// PE `pe`'s control block head.
    #[inline]
    pub(crate) fn pe(&self, pe: usize) -> &PeCtrl {
        debug_assert!(pe < self.layout.n_pes);
        // SAFETY: the offset lies inside the mapped control region (pe < n_pes), is 64-byte
        // aligned (page-aligned blocks), and the block holds only atomics.
        unsafe { &*(self.base.add(self.layout.ctrl_offset(pe)) as *const PeCtrl) }
    }

    /// The words of rendezvous record `record` on PE `pe` (team_init hosted by that PE).
    pub(crate) fn rendezvous(&self, pe: usize, record: usize) -> &[AtomicU64] {
        debug_assert!(pe < self.layout.n_pes && record < RDV_RECORDS);
        let words = rdv_record_words(self.layout.n_pes);
        // SAFETY: records lie between the fixed head and the team slots of the PE's block
        // (Layout sizes ctrl_stride for them); only 8-byte-aligned atomics live there.
        unsafe {
            let p = self.base.add(self.layout.ctrl_offset(pe) + self.layout.rdv_record_offset(record))
                as *const AtomicU64;
            std::slice::from_raw_parts(p, words)
        }
    }

    /// Address of the staging area (`job::STAGE_BYTES`, page aligned) of team slot `slot`
    /// on PE `pe`.
    #[inline]
    pub(crate) fn stage(&self, pe: usize, slot: usize) -> usize {
        debug_assert!(pe < self.layout.n_pes && slot < self.layout.slot_count);
        self.base as usize
            + self.layout.ctrl_offset(pe)
            + self.layout.stages_offset()
            + slot * crate::job::STAGE_BYTES
    }

    /// The words of team slot `slot` on PE `pe`.
    #[inline]
    pub(crate) fn slot(&self, pe: usize, slot: usize) -> &[AtomicU64] {
        debug_assert!(pe < self.layout.n_pes && slot < self.layout.slot_count);
        let words = self.layout.slot_words;
        // SAFETY: slots follow the fixed head inside the PE's block; `slot < slot_count` keeps
        // the range inside ctrl_stride. Only 8-byte-aligned atomics live there.
        unsafe {
            let p = self.base.add(self.layout.ctrl_offset(pe) + self.layout.slots_offset() + slot * words * 8)
                as *const AtomicU64;
            std::slice::from_raw_parts(p, words)
        }
    }
}
