//! Routine ids: a library call published by number (hang reports read the number, not this
//! process's string), typed routines (`shmem_TYPE_sum_reduce`) folded into one template and a
//! type.
#![allow(unsafe_code)]

use super::*;

/// Type names of the typed routines (`shmem_TYPE_sum_reduce`); index + 1 is the type's part
/// of a routine id. `32` and `64` are the sized deprecated forms (`shmem_broadcast32`).
pub(super) const TYPES: &[&str] = &[
    "float",
    "double",
    "longdouble",
    "char",
    "schar",
    "short",
    "int",
    "long",
    "longlong",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "ulonglong",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "size",
    "ptrdiff",
    "complexf",
    "complexd",
    "32",
    "64",
];
pub(super) const TYPE_BITS: u32 = 6;

/// The routines a state can name; `{}` stands for a type of [`TYPES`]. The index is the
/// routine's part of its id (0: a routine not in this list).
pub(super) const ROUTINES: &[&str] = &[
    "a library call",
    "shmem_init",
    "shmem_init_thread",
    "shmem_finalize",
    "shmem_barrier_all",
    "shmem_sync_all",
    "shmem_team_sync",
    "shmem_team_destroy",
    "shmem_team_split_strided",
    "shmem_team_split_2d",
    "shmemx_team_split_color",
    "shmemx_team_init",
    "shmemx_team_create_wait",
    "shmemx_team_split_strided_nb",
    "shmemx_team_split_2d_nb",
    "shmemx_team_split_color_nb",
    "shmemx_team_init_nb",
    "shmem_broadcastmem",
    "shmem_collectmem",
    "shmem_fcollectmem",
    "shmem_alltoallmem",
    "shmem_alltoallsmem",
    "shmem_{}_broadcast",
    "shmem_{}_collect",
    "shmem_{}_fcollect",
    "shmem_{}_alltoall",
    "shmem_{}_alltoalls",
    "shmem_{}_and_reduce",
    "shmem_{}_or_reduce",
    "shmem_{}_xor_reduce",
    "shmem_{}_max_reduce",
    "shmem_{}_min_reduce",
    "shmem_{}_sum_reduce",
    "shmem_{}_prod_reduce",
    "shmem_{}_and_to_all",
    "shmem_{}_or_to_all",
    "shmem_{}_xor_to_all",
    "shmem_{}_max_to_all",
    "shmem_{}_min_to_all",
    "shmem_{}_sum_to_all",
    "shmem_{}_prod_to_all",
    "shmem_broadcast{}",
    "shmem_collect{}",
    "shmem_fcollect{}",
    "shmem_alltoall{}",
    "shmem_alltoalls{}",
    "shmem_barrier",
    "shmem_sync",
    "shmem_malloc",
    "shmem_malloc_with_hints",
    "shmem_align",
    "shmem_calloc",
    "shmem_realloc",
    "shmem_free",
    "shmem_set_lock",
    "shmem_{}_wait_until",
    "shmem_{}_wait_until_all",
    "shmem_{}_wait_until_any",
    "shmem_{}_wait_until_some",
    "shmem_{}_wait_until_all_vector",
    "shmem_{}_wait_until_any_vector",
    "shmem_{}_wait_until_some_vector",
    "shmem_{}_wait",
    "shmem_signal_wait_until",
    "Shmem::init",
    "Shmem::finalize",
    "Shmem::barrier_all",
    "Shmem::sync_all",
    "Shmem::alloc",
    "Shmem::team_init",
    "SymSlice::free",
    "SymSlice::wait_until",
    "Lock::lock",
    "Team::sync",
    "Team::destroy",
    "Team::split_strided",
    "Team::split_2d",
    "Team::split_color",
    "Team::broadcast",
    "Team::collect",
    "Team::fcollect",
    "Team::alltoall",
    "Team::alltoalls",
    "Team::reduce",
    "TeamRequest::wait",
];

/// The id of the routine whose name `reference` (made by `ctrl::routine_ref` in this process)
/// points to.
pub(super) fn routine_id_of_ref(reference: u64) -> u32 {
    let (ptr, len) = ((reference & ((1 << 48) - 1)) as *const u8, (reference >> 48) as usize);
    if ptr.is_null() {
        return 0;
    }
    // SAFETY: made from a `&'static str` of this process (its address and length, which a
    // name under 64 KiB keeps whole): the bytes live for the whole process.
    let name = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) };
    routine_id(name)
}

/// The id of routine `name` (0 when it is not in the list). Parsed once per name; then a
/// lookup by the string's address.
#[inline]
pub fn routine_id(name: &'static str) -> u32 {
    let key = name.as_ptr() as u64 | (name.len() as u64) << 48;
    if name.len() >= 1 << 16 || name.as_ptr() as u64 >> 48 != 0 {
        return parse_routine(name);
    }
    let start = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - CACHE_BITS)) as usize;
    for probe in 0..8 {
        let e = &CACHE[(start + probe) % CACHE.len()];
        match e.key.load(Ordering::Acquire) {
            k if k == key => return e.id.load(Ordering::Relaxed) as u32,
            0 => return cache_routine(name, key, e),
            _ => {}
        }
    }
    parse_routine(name)
}

pub(super) const CACHE_BITS: u32 = 10;

pub(super) struct CacheEntry {
    key: AtomicU64,
    id: AtomicU64,
}

pub(super) static CACHE: [CacheEntry; 1 << CACHE_BITS] =
    [const { CacheEntry { key: AtomicU64::new(0), id: AtomicU64::new(0) } }; 1 << CACHE_BITS];

#[cold]
pub(super) fn cache_routine(name: &'static str, key: u64, entry: &CacheEntry) -> u32 {
    let id = parse_routine(name);
    // Whoever claims the empty entry fills it; a racing thread just parses again.
    if entry.key.compare_exchange(0, u64::MAX, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
        entry.id.store(id as u64, Ordering::Relaxed);
        entry.key.store(key, Ordering::Release);
    }
    id
}

pub(super) fn parse_routine(name: &str) -> u32 {
    for (i, template) in ROUTINES.iter().enumerate().skip(1) {
        match template.split_once("{}") {
            None if *template == name => return (i as u32) << TYPE_BITS,
            None => {}
            Some((pre, post)) => {
                let Some(middle) = name.strip_prefix(pre).and_then(|r| r.strip_suffix(post)) else {
                    continue;
                };
                if let Some(t) = TYPES.iter().position(|t| *t == middle) {
                    return (i as u32) << TYPE_BITS | (t as u32 + 1);
                }
            }
        }
    }
    0
}

/// The name of routine `id` (see [`routine_id`]).
pub fn routine_name(id: u32) -> String {
    let template = ROUTINES.get((id >> TYPE_BITS) as usize).copied().unwrap_or(ROUTINES[0]);
    match (id & ((1 << TYPE_BITS) - 1)) as usize {
        0 => template.to_string(),
        t => template.replace("{}", TYPES.get(t - 1).copied().unwrap_or("?")),
    }
}
