//! The local argument checks of the safe API's team calls, as a pure function of the team's
//! size and a few words, so that in checked mode every PE can repeat a failed PE's checks on
//! the words it published (`team::checked`); the safe API (crate `ferroshmem`) runs them before
//! each call, through `coll::local_checks` (a re-export of this module).
//!
//! Here, in the team layer beside checked mode, and not in `coll`: checked mode repeats them
//! when a team call's agreement fails, and the teams are below the collectives (issue 30).

use crate::error::{Error, Result};

/// Bytes spanned by `n * nelems` elements of `elem` bytes, `stride` elements apart (an
/// alltoalls buffer): `((n * nelems - 1) * stride + 1) * elem`, 0 for no elements, `None` when
/// it does not fit in a `usize`.
pub fn strided_extent(n: usize, nelems: usize, stride: usize, elem: usize) -> Option<usize> {
    match n.checked_mul(nelems)? {
        0 => Some(0),
        count => (count - 1).checked_mul(stride)?.checked_add(1)?.checked_mul(elem),
    }
}

// The first word of the inputs of [`local_checks`]: which call's checks. The other words:
// element size, count, length of dest, length of source, then (alltoalls) the two strides.
/// Team::broadcast.
pub const BROADCAST: u64 = 1;
/// Team::fcollect.
pub const FCOLLECT: u64 = 2;
/// Team::alltoall.
pub const ALLTOALL: u64 = 3;
/// Team::alltoalls.
pub const ALLTOALLS: u64 = 4;
/// Team::reduce.
pub const REDUCE: u64 = 5;
/// `Shmem::alloc`: element size, count.
pub const ALLOC: u64 = 6;

/// Checks that a slice of length `len` (the argument `slice`) holds `need` elements, computed
/// from the argument `count` (`None`: the computation overflowed, which is the count's fault);
/// `counts` describes how `need` was computed.
fn check_len(
    routine: &'static str,
    (slice, count): (&'static str, &'static str),
    len: usize,
    need: Option<usize>,
    counts: impl FnOnce() -> String,
) -> Result<()> {
    match need {
        Some(need) if need <= len => Ok(()),
        Some(need) => Err(Error::invalid(
            routine,
            slice,
            format!("{need} elements needed ({}), {len} available", counts()),
        )),
        None => Err(Error::invalid(routine, count, format!("{} overflow", counts()))),
    }
}

/// Bytes of `n` elements of `size` bytes.
pub fn bytes(routine: &'static str, what: &'static str, n: usize, size: usize) -> Result<usize> {
    n.checked_mul(size).ok_or_else(|| Error::invalid(routine, what, format!("{n} elements overflow")))
}

/// The local argument checks of a safe-API call on a team of `n` PEs, from `inputs` (see the
/// constants above); the byte count the call moves (0 where it does not need one). Pure, so
/// that in checked mode every PE can repeat a failed PE's checks on its published inputs.
pub fn local_checks(n: usize, inputs: &[u64]) -> Result<usize> {
    let at = |k: usize| inputs.get(k).map_or(0, |&v| v as usize);
    let (size, count, dest, src) = (at(1), at(2), at(3), at(4));
    match inputs.first().copied().unwrap_or(0) {
        BROADCAST => {
            const R: &str = "Team::broadcast";
            let what = || format!("nelems {count}");
            check_len(R, ("dest", "nelems"), dest, Some(count), what)?;
            check_len(R, ("source", "nelems"), src, Some(count), what)?;
            bytes(R, "nelems", count, size)
        }
        FCOLLECT => {
            const R: &str = "Team::fcollect";
            check_len(R, ("dest", "nelems"), dest, count.checked_mul(n), || {
                format!("nelems {count} times {n} PEs")
            })?;
            check_len(R, ("source", "nelems"), src, Some(count), || format!("nelems {count}"))?;
            bytes(R, "nelems", count, size)
        }
        kind @ (ALLTOALL | ALLTOALLS) => {
            let r = if kind == ALLTOALL { "Team::alltoall" } else { "Team::alltoalls" };
            let (dst, sst) = (at(5), at(6));
            if count > 0 && (dst == 0 || sst == 0) {
                return Err(Error::invalid(r, "dst/sst", "strides must be positive"));
            }
            let total = n.checked_mul(count).ok_or_else(|| {
                Error::invalid(r, "nelems", format!("{count} elements times {n} PEs overflow"))
            })?;
            let extent = |stride: usize, name: &'static str| {
                strided_extent(n, count, stride, 1).ok_or_else(|| {
                    Error::invalid(r, name, format!("{total} elements at stride {stride} overflow"))
                })
            };
            let what = |stride: usize| move || format!("{total} elements at stride {stride}");
            check_len(r, ("dest", "dst"), dest, Some(extent(dst, "dst")?), what(dst))?;
            check_len(r, ("source", "sst"), src, Some(extent(sst, "sst")?), what(sst))?;
            Ok(0)
        }
        REDUCE => {
            const R: &str = "Team::reduce";
            let what = || format!("nreduce {count}");
            check_len(R, ("dest", "nreduce"), dest, Some(count), what)?;
            check_len(R, ("source", "nreduce"), src, Some(count), what)?;
            Ok(0)
        }
        ALLOC => bytes("Shmem::alloc", "len", count, size),
        kind => Err(Error::invalid("checked mode", "inputs", format!("unknown local checks {kind}"))),
    }
}
