//! What a collective needs of the PEs taking part: the [`Group`] trait, and the sizes and
//! buffers shared by every group (eager payloads, the staging area's parts).

use super::SCRATCH_WORDS;
use crate::error::Result;
use crate::runtime::Runtime;
use crate::team::checked::Signature;
use crate::team::TeamInner;

/// Payload words of the largest eager entry (each payload word has a tag word beside it).
pub const EAGER_WORDS: usize = 12;
/// Payloads up to this size go through the scratch ring (eager: no closing sync).
pub const EAGER_BYTES: usize = EAGER_WORDS * 8;
/// Bytes at the start of a slot's staging area (`job::STAGE_BYTES`) that the collectives
/// within one host, the hierarchical exchanges ([`HIER_STAGE_BYTES`]) and the active sets use;
/// the rest belongs to the ring of small broadcasts between hosts (`hier`).
pub const SHARED_STAGE_BYTES: usize = 80 << 10;
const _: () = assert!(SHARED_STAGE_BYTES < crate::job::STAGE_BYTES);
/// Staging area of a team slot ([`SHARED_STAGE_BYTES`] per PE): two halves for staged exchanges,
/// then the ring of staged broadcasts, then the ring's tags (one word per entry, apart from
/// the payloads so that a payload word left by entries of another size never looks like one).
pub const STAGE_HALF: usize = 32 << 10;
/// Largest block staged (and so the largest staged fcollect or reduction): above it, writing
/// the block into the staging area and having the others read it there costs more than the
/// sync it saves (the pull path reads the sources, which stay in cache from call to call, and
/// reductions split the work from 16 KiB). An alltoall of n such blocks may use a whole half.
pub const STAGED_BLOCK_BYTES: usize = 8 << 10;
/// Offset of the staged broadcast ring in the staging area.
pub const STAGE_RING: usize = 2 * STAGE_HALF;
/// Most entries of the staged ring.
pub const STAGE_RING_ENTRIES: usize = 128;
/// Offset of the tag words of the staged ring.
pub const STAGE_TAGS: usize = SHARED_STAGE_BYTES - STAGE_RING_ENTRIES * 8;
/// Bytes of the staged broadcast ring.
pub const STAGE_RING_BYTES: usize = STAGE_TAGS - STAGE_RING;
/// Largest staged broadcast (the ring then holds at least two entries).
pub const STAGED_BROADCAST_BYTES: usize = STAGE_RING_BYTES / 2 / 64 * 64;
const _: () = assert!(SCRATCH_WORDS >= 4 * EAGER_WORDS);

/// A copy of one eager payload, aligned for every reducible type (long double: 16 bytes).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
pub struct EagerBuf(pub [u64; EAGER_WORDS]);

impl EagerBuf {
    /// An empty buffer.
    pub const fn new() -> Self {
        EagerBuf([0; EAGER_WORDS])
    }
}

impl Default for EagerBuf {
    fn default() -> Self {
        Self::new()
    }
}

/// Where a collective across hosts may stage data: bytes `base..base + len` of every member's
/// staging area of team slot `slot`.
#[derive(Debug, Clone, Copy)]
pub struct Staging {
    /// The team slot.
    pub slot: usize,
    /// First byte.
    pub base: usize,
    /// Bytes.
    pub len: usize,
}

/// Bytes at the start of a slot's staging area that the hierarchical collectives (`hier`) use;
/// the rest of the world team's staging area serves the deprecated active sets that span
/// hosts (which have no slot of their own). Hierarchical exchanges have no closing sync, so
/// their part must be theirs alone; the flat collectives of `across` begin and end with a sync.
pub const HIER_STAGE_BYTES: usize = 64 << 10;
const _: () = assert!(HIER_STAGE_BYTES < SHARED_STAGE_BYTES);

/// Reductions of at least this many bytes split the index range across the members
/// (reduce-scatter, then each member writes its chunk to every member).
pub const REDUCE_SCATTER_BYTES: usize = 16 << 10;

/// The PEs taking part in one collective and how they meet.
pub trait Group {
    /// Checked mode: verifies that every member makes this same call (teams only; an active
    /// set has no place to compare calls). `call` builds the signature, only in checked mode:
    /// it costs more than a small collective.
    fn check(&mut self, _rt: &Runtime, _call: impl FnOnce() -> Signature) -> Result<()> {
        Ok(())
    }
    /// Number of members.
    fn n(&self) -> usize;
    /// This PE's member index.
    fn me(&self) -> usize;
    /// World PE of member `i`.
    fn pe(&self, i: usize) -> usize;
    /// Announces that this PE entered the collective, publishing `word` (collect's count).
    fn enter(&mut self, rt: &Runtime, word: u64);
    /// Whether the members run on more than one host (then the collectives of `across` run).
    fn spans_hosts(&self, rt: &Runtime) -> bool {
        rt.spans_hosts(self.n(), |i| self.pe(i))
    }
    /// A sync of every member that works across hosts (`across` frames its collectives with it).
    fn network_sync(&mut self, rt: &Runtime, routine: &'static str) -> Result<()>;
    /// The staging area that the flat collectives across hosts (`across`) may use.
    fn staging(&self) -> Staging;
    /// The team, for a team collective (an active set has none).
    fn team(&self) -> Option<&TeamInner> {
        None
    }
    /// Waits until member `i` has entered; returns the word it published.
    fn wait_member(&self, rt: &Runtime, i: usize) -> u64;
    /// Ends the collective: returns once no member reads or writes this PE's buffers.
    fn leave(&mut self, rt: &Runtime);
    /// Eager entry (every member must make the same choice, with the same `common`, the
    /// payload size of a member that has one): copies `len` bytes (0 or `common`) at `payload`
    /// into this PE's scratch for this epoch, then enters. Members then read each other's
    /// scratch ([`Group::fetch`]) after [`Group::wait_member`], and the collective needs no
    /// closing sync, since no user buffer of another PE is read. False (nothing done) when the
    /// group has no scratch.
    fn enter_eager(&mut self, _rt: &Runtime, _payload: usize, _len: usize, _common: usize) -> bool {
        false
    }
    /// Before reading every member's scratch: with more PEs than cores, one central sync
    /// (each PE scheduled once to arrive, once to leave) costs less than waiting on each
    /// member's flag in turn; otherwise nothing (the flags are checked one by one).
    fn all_entered(&mut self, _rt: &Runtime) {}
    /// Oversubscribed exchanges (fcollect, alltoall, reductions) of small and medium
    /// payloads, in one central sync and no closing one: this PE's `parts` blocks of `block`
    /// bytes at `src` are copied either into one mailbox on member 0 (all of a member's blocks
    /// side by side, members one after the other: a PE writes one run of cache lines, and the
    /// few lines a PE then reads are shared by every PE of its core) or, when too big for it,
    /// into this PE's staging area. Then
    /// [`Group::exchanged`] gives where member i's block of row `row` is, valid until this
    /// PE's next collective on the group. False (nothing done) when the group has neither or
    /// the blocks fit neither; every member makes the same choice.
    fn exchange(&mut self, _rt: &Runtime, _src: usize, _block: usize, _parts: usize, _row: usize) -> bool {
        false
    }
    /// After [`Group::exchange`]: the address of member `i`'s block for this PE.
    fn exchanged(&self, _rt: &Runtime, _i: usize) -> usize {
        unreachable!("only groups whose exchange succeeds have exchanged blocks")
    }
    /// Oversubscribed broadcasts up to [`STAGED_BROADCAST_BYTES`]: the root copies its payload
    /// into a ring in its staging area and returns; the others copy it from there, with no
    /// sync, so the root runs up to the ring's depth (128 entries of 64 bytes, fewer of larger
    /// ones) ahead of the slowest member, and each PE, once scheduled, gets through many.
    /// `write_dest`: copy into this PE's `dest` (false on a root that must leave its dest
    /// alone). False (nothing done) when not applicable; every member makes the same choice.
    fn broadcast_staged(
        &mut self,
        _rt: &Runtime,
        _root: usize,
        _src: usize,
        _dest: usize,
        _nbytes: usize,
        _write_dest: bool,
    ) -> bool {
        false
    }
    /// Whether members may write their blocks straight into each other's destination once
    /// the owner has entered, counting them ([`Group::delivered`]) so that the owner returns
    /// once all have arrived: no closing sync, since nobody reads another member's buffers.
    /// Every member makes the same choice.
    fn can_push(&self, _rt: &Runtime) -> bool {
        false
    }
    /// Whether member `i` has entered the current collective (no wait).
    fn has_entered(&self, _rt: &Runtime, _i: usize) -> bool {
        unreachable!("only groups that can push ask")
    }
    /// Counts one block written into member `i`'s destination (after the copy).
    fn delivered(&self, _rt: &Runtime, _i: usize) {
        unreachable!("only groups that can push deliver")
    }
    /// Waits until every other member has delivered its block to this PE.
    fn wait_deliveries(&self, _rt: &Runtime) {
        unreachable!("only groups that can push deliver")
    }
    /// Whether alltoalls may go in order ([`Group::enter_in_order`]): oversubscribed groups of
    /// 2 to 64 members with a place for the entrants word. Every member gives the same answer.
    fn in_order(&self, _rt: &Runtime) -> bool {
        false
    }
    /// After [`Group::in_order`]: enters the alltoall and returns the members that entered
    /// before this PE (a bit each), in one atomic order that every member sees alike. Of each
    /// pair of members, the one that entered second moves both blocks between them (its own
    /// into the other's destination, the other's into its own); so each byte is copied once,
    /// and a PE runs once per alltoall however the scheduler orders them. [`Group::leave`] ends
    /// it, once this PE has moved its pairs.
    fn enter_in_order(&mut self, _rt: &Runtime) -> u64 {
        unreachable!("only groups that go in order enter in order")
    }
    /// After an eager broadcast: keeps eager collectives two epochs long when oversubscribed
    /// (as the others are with their sync), so consecutive ones alternate scratch buffers.
    fn pad_epoch(&mut self, _rt: &Runtime) {}
    /// Copies member `i`'s payload of the current (eager) collective into `buf`; returns
    /// `buf`'s address.
    fn fetch(&self, _rt: &Runtime, _i: usize, _buf: &mut EagerBuf) -> usize {
        unreachable!("only groups whose enter_eager succeeds have scratch")
    }
}
