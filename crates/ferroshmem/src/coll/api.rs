//! Typed collectives on [`Team`] over symmetric slices. Every member calls the same collective
//! with the same counts (collect excepted) at the same point of its program; the slices are
//! the same symmetric objects on every PE (the same allocation).

//!
//! Every count is checked against the slices before any communication, with checked
//! arithmetic, from values that are the same on every member (the counts, the slices' lengths,
//! the team's size), so a bad count gives every member the same `Err` naming the routine and
//! the argument (collect, whose counts differ, agrees on its members' counts first).

use crate::api::{SymSlice, Symmetric, Team};
use crate::coll::{self, strided_extent, ReduceOp, TeamGroup};
use crate::error::{Error, Result};

/// Checks that `s` (the argument `slice`) holds `need` elements, computed from the argument
/// `count` (`None`: the computation overflowed, which is the count's fault); `counts` describes
/// how `need` was computed.
fn check_len<T: Symmetric>(
    routine: &'static str,
    (slice, count): (&'static str, &'static str),
    s: &SymSlice<'_, T>,
    need: Option<usize>,
    counts: impl FnOnce() -> String,
) -> Result<()> {
    match need {
        Some(need) if need <= s.len() => Ok(()),
        Some(need) => Err(Error::invalid(
            routine,
            slice,
            format!("{need} elements needed ({}), {} available", counts(), s.len()),
        )),
        None => Err(Error::invalid(routine, count, format!("{} overflow", counts()))),
    }
}

/// Bytes of `n` elements of `T`, for an `n` already checked against a slice of `T`.
fn bytes<T: Symmetric>(routine: &'static str, what: &'static str, n: usize) -> Result<usize> {
    n.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::invalid(routine, what, format!("{n} elements overflow")))
}

impl Team<'_> {
    /// `shmem_broadcast`: copies `nelems` elements of `src` on team PE `root` into `dest` on
    /// every member (the root included).
    pub fn broadcast<T: Symmetric>(
        &self,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        nelems: usize,
        root: usize,
    ) -> Result<()> {
        const R: &str = "Team::broadcast";
        let what = || format!("nelems {nelems}");
        check_len(R, ("dest", "nelems"), dest, Some(nelems), what)?;
        check_len(R, ("source", "nelems"), src, Some(nelems), what)?;
        let bytes = bytes::<T>(R, "nelems", nelems)?;
        let _busy = self.inner().claim(R);
        let mut g = TeamGroup::new(self.inner());
        coll::broadcast(
            self.rt(),
            &mut g,
            R,
            dest.as_ptr() as usize,
            src.as_ptr() as usize,
            bytes,
            root,
            true,
        )
    }

    /// `shmem_fcollect`: `nelems` elements from every member, in team order, into `dest`.
    pub fn fcollect<T: Symmetric>(
        &self,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        nelems: usize,
    ) -> Result<()> {
        const R: &str = "Team::fcollect";
        let n = self.n_pes();
        check_len(R, ("dest", "nelems"), dest, nelems.checked_mul(n), || {
            format!("nelems {nelems} times {n} PEs")
        })?;
        check_len(R, ("source", "nelems"), src, Some(nelems), || format!("nelems {nelems}"))?;
        let bytes = bytes::<T>(R, "nelems", nelems)?;
        let _busy = self.inner().claim(R);
        let mut g = TeamGroup::new(self.inner());
        coll::fcollect(self.rt(), &mut g, R, dest.as_ptr() as usize, src.as_ptr() as usize, bytes)
    }

    /// `shmem_collect`: `nelems` (which may differ between members) elements from every member,
    /// concatenated in team order into `dest`. Returns the total number of elements.
    pub fn collect<T: Symmetric>(
        &self,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        nelems: usize,
    ) -> Result<usize> {
        const R: &str = "Team::collect";
        // This member's count may differ from the others': a bad one is not returned at once
        // (the others would wait for this PE) but goes into the collective, which then fails
        // on every member alike.
        let mine = (nelems <= src.len()).then(|| nelems * std::mem::size_of::<T>());
        let cap = bytes::<T>(R, "dest", dest.len())?;
        let _busy = self.inner().claim(R);
        let mut g = TeamGroup::new(self.inner());
        let total =
            coll::collect(self.rt(), &mut g, R, dest.as_ptr() as usize, src.as_ptr() as usize, mine, cap)?;
        Ok(total / std::mem::size_of::<T>().max(1))
    }

    /// `shmem_alltoall`: block `j` (of `nelems` elements) of every member's `src` goes to
    /// block `i` of member `j`'s `dest`, where `i` is the sender.
    pub fn alltoall<T: Symmetric>(
        &self,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        nelems: usize,
    ) -> Result<()> {
        self.alltoalls_as("Team::alltoall", dest, src, 1, 1, nelems)
    }

    /// `shmem_alltoalls`: as [`Team::alltoall`] with element strides `dst` and `sst`.
    pub fn alltoalls<T: Symmetric>(
        &self,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        dst: usize,
        sst: usize,
        nelems: usize,
    ) -> Result<()> {
        self.alltoalls_as("Team::alltoalls", dest, src, dst, sst, nelems)
    }

    /// alltoalls reporting errors as routine `r` (alltoall is its case of unit strides).
    fn alltoalls_as<T: Symmetric>(
        &self,
        r: &'static str,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        dst: usize,
        sst: usize,
        nelems: usize,
    ) -> Result<()> {
        let n = self.n_pes();
        if nelems > 0 && (dst == 0 || sst == 0) {
            return Err(Error::invalid(r, "dst/sst", "strides must be positive"));
        }
        let count = n.checked_mul(nelems).ok_or_else(|| {
            Error::invalid(r, "nelems", format!("{nelems} elements times {n} PEs overflow"))
        })?;
        let extent = |stride: usize, name: &'static str| {
            strided_extent(n, nelems, stride, 1).ok_or_else(|| {
                Error::invalid(r, name, format!("{count} elements at stride {stride} overflow"))
            })
        };
        let what = |stride: usize| move || format!("{count} elements at stride {stride}");
        check_len(r, ("dest", "dst"), dest, Some(extent(dst, "dst")?), what(dst))?;
        check_len(r, ("source", "sst"), src, Some(extent(sst, "sst")?), what(sst))?;
        let _busy = self.inner().claim(r);
        let mut g = TeamGroup::new(self.inner());
        coll::alltoalls(
            self.rt(),
            &mut g,
            r,
            dest.as_ptr() as usize,
            src.as_ptr() as usize,
            std::mem::size_of::<T>(),
            dst,
            sst,
            nelems,
        )
    }

    /// `shmem_OP_reduce`: `dest[k] = op over members of src[k]` for `k < nreduce`, on every
    /// member. `dest` and `src` may be the same slice (in place).
    pub fn reduce<T: Symmetric, O: ReduceOp<T>>(
        &self,
        _op: O,
        dest: &SymSlice<'_, T>,
        src: &SymSlice<'_, T>,
        nreduce: usize,
    ) -> Result<()> {
        const R: &str = "Team::reduce";
        let what = || format!("nreduce {nreduce}");
        check_len(R, ("dest", "nreduce"), dest, Some(nreduce), what)?;
        check_len(R, ("source", "nreduce"), src, Some(nreduce), what)?;
        let _busy = self.inner().claim(R);
        let mut g = TeamGroup::new(self.inner());
        coll::reduce::<T, O>(self.rt(), &mut g, R, dest.as_ptr() as usize, src.as_ptr() as usize, nreduce)
    }

    /// [`Team::reduce`] in place over the first `nreduce` elements of `buf`.
    pub fn reduce_in_place<T: Symmetric, O: ReduceOp<T>>(
        &self,
        op: O,
        buf: &SymSlice<'_, T>,
        nreduce: usize,
    ) -> Result<()> {
        self.reduce(op, buf, buf, nreduce)
    }
}
