//! Collectives on shared memory: broadcast, collect, fcollect, alltoall(s) and reductions over
//! a team or a deprecated active set.
//!
//! With a core per PE, small payloads (at most [`EAGER_BYTES`] per PE) are *eager*: each PE
//! copies its payload into a ring of tagged entries in its team slot and returns once it has
//! read what it needs from the others' entries, without a closing sync (see [`TeamGroup`]'s
//! `enter_eager`).
//!
//! With more PEs than cores, what costs is how often each PE must be scheduled, so every
//! collective that needs every member makes one central sync ([`Group::exchange`]): small
//! contributions go into a mailbox on member 0 (`W_CENTRAL`), medium ones (up to
//! [`STAGE_HALF`]) into each member's staging area (`job::STAGE_BYTES` per slot, after the
//! slots); broadcasts up to [`STAGED_BROADCAST_BYTES`] go through a ring in the root's staging
//! area with no sync at all ([`Group::broadcast_staged`]).
//!
//! Larger ones *pull*: a PE announces that it has entered the operation (its source is ready
//! and its destination is free), the others read its source straight from its mapped memory
//! (one copy), and only the owner writes its destination, except in the large reduction, where
//! the PE that reduced a chunk writes it into every member's destination after every member has
//! entered. A closing sync makes every source reusable on return. Larger alltoalls with more PEs
//! than cores *push* instead ([`Group::can_push`]): each block is written into its owner's
//! destination once the owner has entered and counted there (`W_DELIVERED`); nobody reads
//! another PE's buffers, so there is no closing sync. Medium alltoalls with more PEs than
//! cores go *in order* ([`Group::enter_in_order`], `in_order`): of each pair of members, the
//! one that entered second moves both blocks, then one central sync.
//!
//! Synchronisation lives on the team's own slot (slot words 64..384 placed by `team::slot_layout`: `W_ARRIVE`, `W_WORD`,
//! `W_ENTER`, the scratch ring, the central mailbox; the team sync before them), with epochs
//! from `TeamInner::next_epoch`, so only the team's members take part and teams can run
//! collectives concurrently. An active set has no slot: it uses the caller's `pSync` array as
//! [`ActiveSet`] describes.
//!
//! A slot is reused by a new team only once no PE of the old team can still read this PE's
//! rings or staging area: `shmem_team_destroy` syncs the team first or waits for every
//! member's release signal, and a Rust `Team` dropped without `destroy` waits for the
//! signals (`team::release`).
//!
//! Rooms: `group` holds the [`Group`] trait (how the members of one collective meet)
//! and the sizes shared by every group; `team_group` the team's group ([`TeamGroup`]: eager
//! rings, staging, exchanges, pushes); `active_set` the deprecated active set's pSync group
//! ([`ActiveSet`]); `algorithms` the collectives written once over any group (broadcast,
//! fcollect, collect, alltoall(s), reductions); `active` how an active set finds its team;
//! `in_order` the entrants word of in-order alltoalls; `args` the arguments of the collectives
//! that take many; `hier` and `across` the
//! collectives of teams across hosts; `api` the safe API's team
//! collectives; `ops` the reduction operators.
#![allow(unsafe_code)]

mod across;
pub mod active;
mod active_set;
mod algorithms;
mod args;
mod group;
pub(crate) mod hier;
mod in_order;
/// The local argument checks of the safe API's team calls (they live in the team layer, whose
/// checked mode repeats them).
pub use crate::team::local_checks;
pub mod ops;
mod team_group;

pub use ops::{And, Complex, Max, Min, Or, Prod, ReduceOp, Sum, Xor};

pub use crate::team::local_checks::strided_extent;
pub(crate) use crate::team::slot_layout::{
    CENTRAL_WORDS, SCRATCH_WORDS, W_ARRIVE, W_CENTRAL, W_DELIVERED, W_ENTER, W_ENTRANTS, W_LAST, W_SCRATCH,
    W_STAGE_LAST, W_WORD,
};
pub use active_set::{ActiveSet, PSYNC_WORDS};
pub use algorithms::checked_reduce_name;
pub use algorithms::{alltoalls, broadcast, collect, fcollect, reduce};
use algorithms::{at, collect_total, combine, copy, INVALID_COUNT};
pub use args::{Alltoalls, Broadcast, Collect};
pub use group::{
    EagerBuf, Group, Staging, EAGER_BYTES, EAGER_WORDS, HIER_STAGE_BYTES, REDUCE_SCATTER_BYTES,
    SHARED_STAGE_BYTES, STAGED_BLOCK_BYTES, STAGED_BROADCAST_BYTES, STAGE_HALF, STAGE_RING, STAGE_RING_BYTES,
    STAGE_RING_ENTRIES, STAGE_TAGS,
};
pub use team_group::TeamGroup;
