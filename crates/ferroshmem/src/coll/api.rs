//! Typed collectives on [`Team`] over symmetric slices. Every member calls the same collective
//! with the same counts (collect excepted) at the same point of its program; the slices are
//! the same symmetric objects on every PE (the same allocation).

use crate::api::{SymSlice, Symmetric, Team};
use crate::coll::{self, ReduceOp, TeamGroup};
use crate::error::{Error, Result};

fn check_len<T: Symmetric>(
    routine: &'static str,
    what: &'static str,
    s: &SymSlice<T>,
    need: usize,
) -> Result<()> {
    if need > s.len() {
        return Err(Error::invalid(routine, what, format!("{need} elements needed, {} available", s.len())));
    }
    Ok(())
}

impl Team {
    /// `shmem_broadcast`: copies `nelems` elements of `src` on team PE `root` into `dest` on
    /// every member (the root included).
    pub fn broadcast<T: Symmetric>(
        &self,
        dest: &SymSlice<T>,
        src: &SymSlice<T>,
        nelems: usize,
        root: usize,
    ) -> Result<()> {
        const R: &str = "Team::broadcast";
        check_len(R, "dest", dest, nelems)?;
        check_len(R, "source", src, nelems)?;
        let bytes = nelems * std::mem::size_of::<T>();
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
    pub fn fcollect<T: Symmetric>(&self, dest: &SymSlice<T>, src: &SymSlice<T>, nelems: usize) -> Result<()> {
        const R: &str = "Team::fcollect";
        check_len(R, "dest", dest, nelems * self.n_pes())?;
        check_len(R, "source", src, nelems)?;
        let bytes = nelems * std::mem::size_of::<T>();
        let mut g = TeamGroup::new(self.inner());
        coll::fcollect(self.rt(), &mut g, R, dest.as_ptr() as usize, src.as_ptr() as usize, bytes)
    }

    /// `shmem_collect`: `nelems` (which may differ between members) elements from every member,
    /// concatenated in team order into `dest`. Returns the total number of elements.
    pub fn collect<T: Symmetric>(
        &self,
        dest: &SymSlice<T>,
        src: &SymSlice<T>,
        nelems: usize,
    ) -> Result<usize> {
        const R: &str = "Team::collect";
        check_len(R, "source", src, nelems)?;
        let size = std::mem::size_of::<T>();
        let mut g = TeamGroup::new(self.inner());
        let cap = dest.len() * size;
        let total = coll::collect(
            self.rt(),
            &mut g,
            R,
            dest.as_ptr() as usize,
            src.as_ptr() as usize,
            nelems * size,
            cap,
        )?;
        Ok(total / size.max(1))
    }

    /// `shmem_alltoall`: block `j` (of `nelems` elements) of every member's `src` goes to
    /// block `i` of member `j`'s `dest`, where `i` is the sender.
    pub fn alltoall<T: Symmetric>(&self, dest: &SymSlice<T>, src: &SymSlice<T>, nelems: usize) -> Result<()> {
        self.alltoalls(dest, src, 1, 1, nelems)
    }

    /// `shmem_alltoalls`: as [`Team::alltoall`] with element strides `dst` and `sst`.
    pub fn alltoalls<T: Symmetric>(
        &self,
        dest: &SymSlice<T>,
        src: &SymSlice<T>,
        dst: usize,
        sst: usize,
        nelems: usize,
    ) -> Result<()> {
        const R: &str = "Team::alltoalls";
        let extent = |s: usize| if nelems == 0 { 0 } else { (self.n_pes() * nelems - 1) * s + 1 };
        check_len(R, "dest", dest, extent(dst))?;
        check_len(R, "source", src, extent(sst))?;
        let mut g = TeamGroup::new(self.inner());
        coll::alltoalls(
            self.rt(),
            &mut g,
            R,
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
        dest: &SymSlice<T>,
        src: &SymSlice<T>,
        nreduce: usize,
    ) -> Result<()> {
        const R: &str = "Team::reduce";
        check_len(R, "dest", dest, nreduce)?;
        check_len(R, "source", src, nreduce)?;
        let mut g = TeamGroup::new(self.inner());
        coll::reduce::<T, O>(self.rt(), &mut g, R, dest.as_ptr() as usize, src.as_ptr() as usize, nreduce)
    }

    /// [`Team::reduce`] in place over the first `nreduce` elements of `buf`.
    pub fn reduce_in_place<T: Symmetric, O: ReduceOp<T>>(
        &self,
        op: O,
        buf: &SymSlice<T>,
        nreduce: usize,
    ) -> Result<()> {
        self.reduce(op, buf, buf, nreduce)
    }
}
