//! Typed collectives on [`Team`] over symmetric slices. Every member calls the same collective
//! with the same counts (collect excepted) at the same point of its program; the slices are
//! the same symmetric objects on every PE (the same allocation).
//!
//! They take their slices by `&mut` (`broadcast_in_place` and `reduce_in_place` one slice):
//! their copies are plain `memcpy` (the code the C API shares), and a `SymSlice` is the only
//! handle of its block in this process, so an exclusive borrow keeps every other thread of
//! this process off every PE's copy of `dest` and `src` while the call runs: no data race (see
//! "Data races" on [`SymSlice`]).
//!
//! ```compile_fail,E0502
//! fn race(team: &ferroshmem::Team<'_>, mut a: ferroshmem::SymSlice<'_, u64>, mut b: ferroshmem::SymSlice<'_, u64>) {
//!     std::thread::scope(|s| {
//!         s.spawn(|| a.write(0, 1)); // another thread touching the destination ...
//!         team.broadcast(&mut a, &mut b, 1, 0).unwrap(); // ... while a collective writes it
//!     });
//! }
//! ```

//!
//! Every count is checked against the slices before any communication, with checked
//! arithmetic, from values that are the same on every member (the counts, the slices' lengths,
//! the team's size), so a bad count gives every member the same `Err` naming the routine and
//! the argument (collect, whose counts differ, agrees on its members' counts first).
//!
//! Those checks are `local_checks`: a pure function of the team's size and a few words (the
//! counts, the slices' lengths, the element size). A PE whose slice is too short fails them
//! alone. In checked mode it still joins the call's checked agreement, carrying those words,
//! and every member repeats its checks on them, so all return the same error naming it
//! (`team::checked`). Without checked mode it returns its error at once, before any
//! communication, and the other members, whose checks passed, wait in the collective for a PE
//! that never comes (the program hangs): checking would need an agreement on every call, which
//! is what checked mode adds. Members that pass the same counts and the same symmetric slices
//! (which have the same length on every PE) always fail alike.

use crate::api::{SymSlice, Symmetric, Team};
use crate::coll::{self, checked_reduce_name, ReduceOp, TeamGroup};
use crate::error::Result;
use crate::team::checked::{self, Signature};
use ferroshmem_core::coll::local_checks::{
    bytes, local_checks, ALLTOALL, ALLTOALLS, BROADCAST, FCOLLECT, REDUCE,
};

/// The inputs of [`local_checks`] for a call of `kind` on `dest` and `src`, `count` elements.
fn inputs<T: Symmetric>(kind: u64, count: usize, dest: &SymSlice<'_, T>, src: &SymSlice<'_, T>) -> [u64; 7] {
    let size = std::mem::size_of::<T>() as u64;
    [kind, size, count as u64, dest.len() as u64, src.len() as u64, 0, 0]
}

impl Team<'_> {
    /// Runs [`local_checks`] on `inputs` (at most `MAX_ARGS` words); in checked mode also the
    /// call's checked agreement (`routine` with the arguments `args` builds from the checks'
    /// value), which a PE whose checks failed joins too, so that every member returns the same
    /// error. The caller holds the team's claim; the collective then runs on a
    /// [`TeamGroup::prechecked`].
    fn checks(
        &self,
        inputs: &[u64],
        routine: &'static str,
        args: impl FnOnce(usize) -> Vec<i64>,
    ) -> Result<usize> {
        let local = local_checks(self.n_pes(), inputs);
        if !self.rt().checked {
            return local;
        }
        let call = match &local {
            Ok(v) => Signature::new(routine, &args(*v)),
            Err(_) => Signature::failed(routine, inputs),
        };
        checked::check_call(self.rt(), self.inner(), &call)?;
        local
    }

    /// `shmem_broadcast`: copies `nelems` elements of `src` on team PE `root` into `dest` on
    /// every member (the root included).
    pub fn broadcast<T: Symmetric>(
        &self,
        dest: &mut SymSlice<'_, T>,
        src: &mut SymSlice<'_, T>,
        nelems: usize,
        root: usize,
    ) -> Result<()> {
        self.broadcast_from(dest, src, nelems, root)
    }

    /// [`Team::broadcast`] with one slice as source (on the root) and destination.
    pub fn broadcast_in_place<T: Symmetric>(
        &self,
        buf: &mut SymSlice<'_, T>,
        nelems: usize,
        root: usize,
    ) -> Result<()> {
        self.broadcast_from(buf, buf, nelems, root)
    }

    /// [`Team::broadcast`] on borrowed slices (exclusive in the public forms: see the module
    /// documentation).
    fn broadcast_from<T: Symmetric>(
        &self,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        nelems: usize,
        root: usize,
    ) -> Result<()> {
        const R: &str = "Team::broadcast";
        let _busy = self.inner().claim(R);
        let bytes = self.checks(&inputs(BROADCAST, nelems, dest, src)[..5], "shmem_broadcast", |bytes| {
            vec![bytes as i64, root as i64]
        })?;
        let mut g = TeamGroup::prechecked(self.inner());
        coll::broadcast(
            self.rt(),
            &mut g,
            R,
            coll::Broadcast {
                dest: dest.as_ptr() as usize,
                src: src.as_ptr() as usize,
                nbytes: bytes,
                root,
                update_root: true,
            },
        )
    }

    /// `shmem_fcollect`: `nelems` elements from every member, in team order, into `dest`.
    pub fn fcollect<T: Symmetric>(
        &self,
        dest: &mut SymSlice<'_, T>,
        src: &mut SymSlice<'_, T>,
        nelems: usize,
    ) -> Result<()> {
        const R: &str = "Team::fcollect";
        let _busy = self.inner().claim(R);
        let bytes = self.checks(&inputs(FCOLLECT, nelems, dest, src)[..5], "shmem_fcollect", |bytes| {
            vec![bytes as i64]
        })?;
        let mut g = TeamGroup::prechecked(self.inner());
        coll::fcollect(self.rt(), &mut g, R, dest.as_ptr() as usize, src.as_ptr() as usize, bytes)
    }

    /// `shmem_collect`: `nelems` (which may differ between members) elements from every member,
    /// concatenated in team order into `dest`. Returns the total number of elements.
    pub fn collect<T: Symmetric>(
        &self,
        dest: &mut SymSlice<'_, T>,
        src: &mut SymSlice<'_, T>,
        nelems: usize,
    ) -> Result<usize> {
        const R: &str = "Team::collect";
        // This member's count may differ from the others': a bad one is not returned at once
        // (the others would wait for this PE) but goes into the collective, which then fails
        // on every member alike (in either mode).
        let mine = (nelems <= src.len()).then(|| nelems * std::mem::size_of::<T>());
        let cap = bytes(R, "dest", dest.len(), std::mem::size_of::<T>())?;
        let _busy = self.inner().claim(R);
        let mut g = TeamGroup::new(self.inner());
        let total = coll::collect(
            self.rt(),
            &mut g,
            R,
            coll::Collect {
                dest: dest.as_ptr() as usize,
                src: src.as_ptr() as usize,
                nbytes: mine,
                dest_cap: cap,
            },
        )?;
        Ok(total / std::mem::size_of::<T>().max(1))
    }

    /// `shmem_alltoall`: block `j` (of `nelems` elements) of every member's `src` goes to
    /// block `i` of member `j`'s `dest`, where `i` is the sender.
    pub fn alltoall<T: Symmetric>(
        &self,
        dest: &mut SymSlice<'_, T>,
        src: &mut SymSlice<'_, T>,
        nelems: usize,
    ) -> Result<()> {
        self.alltoalls_as(ALLTOALL, "Team::alltoall", dest, src, 1, 1, nelems)
    }

    /// `shmem_alltoalls`: as [`Team::alltoall`] with element strides `dst` and `sst`.
    pub fn alltoalls<T: Symmetric>(
        &self,
        dest: &mut SymSlice<'_, T>,
        src: &mut SymSlice<'_, T>,
        dst: usize,
        sst: usize,
        nelems: usize,
    ) -> Result<()> {
        self.alltoalls_as(ALLTOALLS, "Team::alltoalls", dest, src, dst, sst, nelems)
    }

    /// alltoalls reporting errors as routine `r` (alltoall is its case of unit strides).
    #[allow(clippy::too_many_arguments)]
    fn alltoalls_as<T: Symmetric>(
        &self,
        kind: u64,
        r: &'static str,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        dst: usize,
        sst: usize,
        nelems: usize,
    ) -> Result<()> {
        let _busy = self.inner().claim(r);
        let mut inputs = inputs(kind, nelems, dest, src);
        inputs[5..].copy_from_slice(&[dst as u64, sst as u64]);
        let size = std::mem::size_of::<T>();
        self.checks(&inputs, "shmem_alltoalls", |_| {
            vec![size as i64, dst as i64, sst as i64, nelems as i64]
        })?;
        let mut g = TeamGroup::prechecked(self.inner());
        let args = coll::Alltoalls {
            dest: dest.as_ptr() as usize,
            src: src.as_ptr() as usize,
            elem: size,
            dst,
            sst,
            nelems,
        };
        coll::alltoalls(self.rt(), &mut g, r, args)
    }

    /// `shmem_OP_reduce`: `dest[k] = op over members of src[k]` for `k < nreduce`, on every
    /// member. `dest` and `src` may be the same slice (in place).
    pub fn reduce<T: Symmetric, O: ReduceOp<T>>(
        &self,
        op: O,
        dest: &mut SymSlice<'_, T>,
        src: &mut SymSlice<'_, T>,
        nreduce: usize,
    ) -> Result<()> {
        self.reduce_from(op, dest, src, nreduce)
    }

    /// [`Team::reduce`] on borrowed slices (exclusive in the public forms).
    fn reduce_from<T: Symmetric, O: ReduceOp<T>>(
        &self,
        _op: O,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        nreduce: usize,
    ) -> Result<()> {
        const R: &str = "Team::reduce";
        let _busy = self.inner().claim(R);
        let size = std::mem::size_of::<T>() as i64;
        self.checks(&inputs(REDUCE, nreduce, dest, src)[..5], checked_reduce_name(O::NAME), |_| {
            vec![nreduce as i64, size]
        })?;
        let mut g = TeamGroup::prechecked(self.inner());
        coll::reduce::<T, O>(self.rt(), &mut g, R, dest.as_ptr() as usize, src.as_ptr() as usize, nreduce)
    }

    /// [`Team::reduce`] in place over the first `nreduce` elements of `buf`.
    pub fn reduce_in_place<T: Symmetric, O: ReduceOp<T>>(
        &self,
        op: O,
        buf: &mut SymSlice<'_, T>,
        nreduce: usize,
    ) -> Result<()> {
        self.reduce_from(op, buf, buf, nreduce)
    }
}
