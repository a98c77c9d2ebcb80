//! The deprecated active set's own group ([`ActiveSet`]): the triplet, the caller's `pSync`
//! and its barrier, on one host or across hosts. Used when a set has no team (`active`).
#![allow(unsafe_code)]

use std::sync::atomic::{fence, AtomicU64, Ordering};

use super::{Group, Staging, HIER_STAGE_BYTES, SHARED_STAGE_BYTES};
use crate::atomic::AmoOp;
use crate::error::{Error, Result};
use crate::runtime::Runtime;

/// Words of `pSync` an active-set collective uses (SHMEM_*_SYNC_SIZE is at least this): the
/// barrier's two, collect's count and, once per set, the slot agreement of its team
/// (`active`).
pub const PSYNC_WORDS: usize = 4;

/// A deprecated active set (`PE_start`, `logPE_stride`, `PE_size`) with the caller's `pSync`
/// (symmetric, `SHMEM_SYNC_VALUE` = 0 everywhere on entry; restored to 0 before return).
///
/// `pSync[0]` on the first member counts arrivals, `pSync[1]` on each other member is its
/// release flag, `pSync[2]` carries collect's count. A barrier: each member adds one to the
/// counter and waits for its flag, then clears it; the first member waits until the counter
/// shows every other member, clears it, then sets every flag. Every word is back at 0 before
/// the PE that owns it can see the next arrival, so the same pSync serves the next call.
#[derive(Debug)]
pub struct ActiveSet {
    pub(super) start: usize,
    pub(super) stride: usize,
    pub(super) size: usize,
    pub(super) me: usize,
    psync: usize,
    /// Whether the members run on more than one host.
    pub(super) spans_hosts: bool,
}

impl ActiveSet {
    /// An active set whose arguments [`Self::check`] accepted (`active::active_group` makes
    /// them: it checks, then looks for the set's team before it builds this).
    pub(super) fn checked(
        rt: &Runtime,
        start: usize,
        stride: usize,
        size: usize,
        me: usize,
        psync: usize,
    ) -> Self {
        let spans_hosts = rt.spans_hosts(size, |i| start + i * stride);
        ActiveSet { spans_hosts, start, stride, size, me, psync }
    }

    /// Checks the triplet against the job and this PE's membership, and `pSync`: (start,
    /// stride, size, this PE's index).
    pub(super) fn check(
        rt: &Runtime,
        routine: &'static str,
        start: i64,
        log_stride: i64,
        size: i64,
        psync: usize,
    ) -> Result<(usize, usize, usize, usize)> {
        if !(0..31).contains(&log_stride) {
            return Err(Error::invalid(routine, "logPE_stride", format!("{log_stride}")));
        }
        let stride = 1i64 << log_stride;
        if start < 0 || size < 1 || start + (size - 1) * stride >= rt.n_pes as i64 {
            return Err(Error::invalid(
                routine,
                "PE_start/logPE_stride/PE_size",
                format!("({start}, {log_stride}, {size}) does not fit {} PEs", rt.n_pes),
            ));
        }
        let me = rt.my_pe as i64 - start;
        if me < 0 || me & (stride - 1) != 0 || me >> log_stride >= size {
            return Err(Error::invalid(
                routine,
                "PE_start/logPE_stride/PE_size",
                format!("PE {} is not in the active set ({start}, {log_stride}, {size})", rt.my_pe),
            ));
        }
        Self::check_psync(rt, routine, psync)?;
        Ok((start as usize, stride as usize, size as usize, (me >> log_stride) as usize))
    }

    /// Checks that `pSync` is 8-byte aligned and symmetric for [`PSYNC_WORDS`] words.
    #[inline]
    pub(super) fn check_psync(rt: &Runtime, routine: &'static str, psync: usize) -> Result<()> {
        if !psync.is_multiple_of(8) {
            return Err(Error::invalid(routine, "pSync", "not 8-byte aligned"));
        }
        rt.translate(routine, psync, PSYNC_WORDS * 8, rt.my_pe as i64).map(|_| ())
    }

    pub(super) fn word(&self, rt: &Runtime, member: usize, k: usize) -> &AtomicU64 {
        let pe = self.pe(member);
        let a = rt.remote_addr(self.psync + 8 * k, 8, pe).expect("pSync was checked symmetric");
        // SAFETY: pSync is symmetric, 8-byte aligned and at least PSYNC_WORDS long on every
        // member (checked at `new`); every access to it during a collective is atomic.
        unsafe { &*(a as *const AtomicU64) }
    }

    /// A barrier over the active set through pSync (see the type's documentation).
    pub fn barrier(&self, rt: &Runtime) {
        if self.spans_hosts {
            if let Err(e) = self.network_barrier(rt, "shmem_barrier") {
                crate::runtime::fatal(&e);
            }
            return;
        }
        if self.size == 1 {
            fence(Ordering::SeqCst);
            return;
        }
        let root = self.pe(0);
        let counter = self.word(rt, 0, 0);
        if self.me == 0 {
            let want = (self.size - 1) as u64;
            rt.wait_until(root, || counter.load(Ordering::Acquire) == want);
            counter.store(0, Ordering::Relaxed);
            for i in 1..self.size {
                self.word(rt, i, 1).store(1, Ordering::Release);
                rt.notify(self.pe(i));
            }
        } else {
            counter.fetch_add(1, Ordering::AcqRel);
            rt.notify(root);
            let flag = self.word(rt, self.me, 1);
            rt.wait_until(rt.my_pe, || flag.load(Ordering::Acquire) != 0);
            flag.store(0, Ordering::Relaxed);
        }
    }
}

impl ActiveSet {
    /// The barrier of an active set that spans hosts, through the same pSync words: the
    /// arrivals are network fetch-adds on the first member's counter (the PEs of its host add
    /// with hardware atomics, those of other hosts through UCX, which runs them on the owner as
    /// atomics too), the releases stores or network puts. Each member completes its own network
    /// operations first (quiet), so the barrier orders them.
    fn network_barrier(&self, rt: &Runtime, routine: &'static str) -> Result<()> {
        rt.quiet();
        if self.size == 1 {
            return Ok(());
        }
        let psync = self.psync as *const u64;
        if self.me == 0 {
            // SAFETY: pSync was checked symmetric and 8-byte aligned at `new`; this PE's own
            // words are mapped here and only ever accessed atomically during a collective.
            let counter = unsafe { &*(psync as *const AtomicU64) };
            let want = (self.size - 1) as u64;
            rt.wait_until(rt.my_pe, || counter.load(Ordering::Acquire) == want);
            counter.store(0, Ordering::Relaxed);
            for i in 1..self.size {
                // SAFETY: pSync word 1, symmetric and aligned (checked at `new`).
                unsafe { crate::atomic::amo(rt, routine, psync.add(1), self.pe(i) as i64, AmoOp::Set(1))? };
            }
        } else {
            // SAFETY: pSync word 0, symmetric and aligned (checked at `new`).
            unsafe { crate::atomic::amo(rt, routine, psync, self.pe(0) as i64, AmoOp::FetchAdd(1))? };
            // SAFETY: as above, this PE's own word 1.
            let flag = unsafe { &*(psync.add(1) as *const AtomicU64) };
            rt.wait_until(rt.my_pe, || flag.load(Ordering::Acquire) != 0);
            flag.store(0, Ordering::Relaxed);
        }
        Ok(())
    }
}

impl Group for ActiveSet {
    fn spans_hosts(&self, _rt: &Runtime) -> bool {
        self.spans_hosts
    }
    fn network_sync(&mut self, rt: &Runtime, routine: &'static str) -> Result<()> {
        self.network_barrier(rt, routine)
    }
    fn staging(&self) -> Staging {
        Staging { slot: 0, base: HIER_STAGE_BYTES, len: SHARED_STAGE_BYTES - HIER_STAGE_BYTES }
    }
    fn n(&self) -> usize {
        self.size
    }
    fn me(&self) -> usize {
        self.me
    }
    fn pe(&self, i: usize) -> usize {
        self.start + i * self.stride
    }
    fn enter(&mut self, rt: &Runtime, word: u64) {
        if word != 0 {
            self.word(rt, self.me, 2).store(word, Ordering::Relaxed);
        }
        self.barrier(rt);
    }
    fn wait_member(&self, rt: &Runtime, i: usize) -> u64 {
        self.word(rt, i, 2).load(Ordering::Relaxed)
    }
    fn leave(&mut self, rt: &Runtime) {
        self.barrier(rt);
        self.word(rt, self.me, 2).store(0, Ordering::Relaxed);
    }
}
