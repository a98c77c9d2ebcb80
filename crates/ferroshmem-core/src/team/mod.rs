//! Teams: membership arithmetic ([`pe_set`]), this PE's team slots ([`slots`]), agreement among
//! PEs ([`agree`]), and here the team objects, their handles, creation and destruction.
//!
//! A team occupies one slot on each of its PEs, the same slot number on all of them, chosen by
//! agreement at creation. The slot holds the team's synchronisation words. Epochs (the count of
//! a team's collective operations) only grow, and a new team on a slot starts above every epoch
//! that slot has seen on any member, so nothing is ever reset and creation needs one agreement
//! and no further synchronisation. A slot is handed to a new team only once every member of
//! the old one is done with it (small collectives return before their readers have read the
//! writer's slot): destroy syncs the team, or signals its members and keeps the slot pending
//! until they have signalled back (`release`); Rust's Drop always signals, so it never blocks.
#![allow(unsafe_code)]

pub(crate) mod across_hosts;
pub mod agree;
mod alloc;
mod create;
pub use create::*;
pub mod checked;
pub mod color;
pub(crate) mod desc;
pub mod host_groups;
pub mod local_checks;
pub mod pe_set;
pub mod release;
/// The layout of a team slot lives with the job file's layout (`job`), below the teams.
pub(crate) use crate::job::slot_layout;
pub(crate) mod host_allgather;
pub(crate) mod leaders_allgather;
pub mod slots;
pub(crate) mod tree;
pub mod unique;
mod world;
pub(crate) use world::install;

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::error::{Error, Result};
use crate::runtime::{CallGuard, Runtime};
use across_hosts::BroadcastRing;
use agree::{Agreed, SlotAgreement};
use checked::Signature;
use desc::Made;
use host_groups::{HostGroups, Shape};
use pe_set::{check_triplet, PeSet};
use slots::SlotTable;

/// Team configuration (`shmem_team_config_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TeamConfig {
    /// Contexts reserved for the team (`SHMEM_TEAM_NUM_CONTEXTS`).
    pub num_contexts: i32,
}

impl TeamConfig {
    /// This configuration, or the error every team creation gives for it (C and Rust alike):
    /// `num_contexts` must not be negative.
    pub fn validated(self, routine: &'static str) -> Result<TeamConfig> {
        if self.num_contexts < 0 {
            return Err(Error::invalid(
                routine,
                "config",
                format!("num_contexts {} is negative", self.num_contexts),
            ));
        }
        Ok(self)
    }
}

/// A team handle as C sees it: 0 is `SHMEM_TEAM_INVALID`, 1-4 the predefined teams, others
/// `(generation << 32) | (slot + 1)`, so a destroyed handle is recognised, not dereferenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TeamHandle(pub u64);

impl TeamHandle {
    /// `SHMEM_TEAM_INVALID`.
    pub const INVALID: TeamHandle = TeamHandle(0);
    /// `SHMEM_TEAM_WORLD`.
    pub const WORLD: TeamHandle = TeamHandle(1);
    /// `SHMEM_TEAM_SHARED`: the PEs of this host.
    pub const SHARED: TeamHandle = TeamHandle(2);
    /// `SHMEMX_TEAM_NODE`: the PEs of this host.
    pub const NODE: TeamHandle = TeamHandle(3);
    /// `SHMEMX_TEAM_SAME_MYPE_NODE`: the PEs with this PE's local rank on every host.
    pub const SAME_MYPE_NODE: TeamHandle = TeamHandle(4);

    fn slot(self) -> usize {
        (self.0 as u32 as usize).wrapping_sub(1)
    }

    fn generation(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// Whether this is one of the predefined teams.
    pub fn is_predefined(self) -> bool {
        (1..=PREDEFINED as u64).contains(&self.0)
    }
}

/// Slots of the predefined teams (0: WORLD, 1: SHARED, 2: NODE, 3: SAME_MYPE_NODE).
pub const PREDEFINED: usize = 4;

/// What kind of team this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamKind {
    /// `SHMEM_TEAM_WORLD`.
    World,
    /// `SHMEM_TEAM_SHARED`.
    Shared,
    /// `SHMEMX_TEAM_NODE`.
    Node,
    /// `SHMEMX_TEAM_SAME_MYPE_NODE`.
    SameMypeNode,
    /// A team the program made.
    User,
}

/// One team as this PE knows it.
#[derive(Debug)]
pub struct TeamInner {
    /// The members (world PEs, in team order).
    pub pes: PeSet,
    /// This PE's number in the team.
    pub my_index: usize,
    /// The team's slot (the same on every member).
    pub slot: usize,
    /// The configuration it was made with.
    pub config: TeamConfig,
    /// Predefined or made by the program.
    pub kind: TeamKind,
    epoch: AtomicU64,
    /// This PE's calls on the team so far (collectives, syncs, creations from it): the call
    /// number that hang reports show (`activity`). Beside `epoch`, which every call takes.
    calls: AtomicU64,
    allreduces: AtomicU64,
    handle: AtomicU64,
    destroyed: AtomicBool,
    /// A lower bound of every other member's published collective start (slot word
    /// `coll::W_ENTER`), so an eager collective rescans the members only when it needs more.
    entered_floor: AtomicU64,
    /// Central mailbox exchanges on this team so far (which half of the mailbox is next).
    central_exchanges: AtomicU64,
    /// The team's host groups when its members span hosts and the hierarchical collectives
    /// apply (see [`TeamInner::host_groups`]); computed at first use.
    host_groups: OnceLock<Option<HostGroups>>,
    /// Exchanges through staging areas between hosts so far (which half of the staging area
    /// is next, see `coll::hier`).
    staged_exchanges: AtomicU64,
    /// The flag value that every other host group's flag on a leader reaches once each of
    /// them entered the latest staged exchange (the credit of the next one, see `coll::hier`).
    staged_credit: AtomicU64,
    /// What this PE knows of the team's ring of small broadcasts between hosts (see
    /// `coll::hier::broadcast_ring`); made at first use.
    broadcast_ring: OnceLock<BroadcastRing>,
    /// Whether an operation of the safe Rust API is under way on this team (see
    /// [`TeamInner::claim`]).
    busy: AtomicBool,
    /// Successful `split_color`s with this team as the parent (which buffer of
    /// [`color`] entries is next).
    color_splits: AtomicU64,
    /// Whether `shmem_team_destroy` defers the release of the slot instead of synchronising
    /// (`release`): decided by the creation's agreement, the same on every member; the team
    /// then holds a credit of this PE's slot table (`slots`).
    defers_destroy: bool,
}

impl TeamInner {
    fn new(
        pes: PeSet,
        my_index: usize,
        slot: usize,
        base_epoch: u64,
        config: TeamConfig,
        kind: TeamKind,
    ) -> Self {
        TeamInner {
            pes,
            my_index,
            slot,
            config,
            kind,
            epoch: AtomicU64::new(base_epoch),
            allreduces: AtomicU64::new(0),
            handle: AtomicU64::new(0),
            destroyed: AtomicBool::new(false),
            entered_floor: AtomicU64::new(0),
            central_exchanges: AtomicU64::new(0),
            host_groups: OnceLock::new(),
            staged_exchanges: AtomicU64::new(0),
            staged_credit: AtomicU64::new(0),
            broadcast_ring: OnceLock::new(),
            busy: AtomicBool::new(false),
            color_splits: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            defers_destroy: false,
        }
    }

    /// The same team, whose destroy defers (it holds one of this PE's credits).
    fn deferring(mut self, defers: bool) -> Self {
        self.defers_destroy = defers;
        self
    }

    /// Numbers this PE's next call on the team (from 1). A load and a store, not an atomic
    /// add: a team's calls follow one another.
    #[inline]
    pub fn next_call_seq(&self) -> u64 {
        let n = self.calls.load(Ordering::Relaxed) + 1;
        self.calls.store(n, Ordering::Relaxed);
        n
    }

    /// Marks the team busy for one operation of the safe Rust API (a collective, or a creation
    /// with this team as the parent, until it completes), which the epoch protocol needs to be
    /// the team's only one. The Rust `Team` is not `Sync`, but the predefined teams have a
    /// `Team` per call of `Shmem::team_world` (and `Shmem`'s own barriers and allocations run
    /// on the world team), and a creation in flight uses its parent: a second operation while
    /// one is under way panics, naming both, rather than break the protocol.
    pub fn claim(self: &Arc<Self>, routine: &'static str) -> Claim {
        if self.busy.swap(true, Ordering::Acquire) {
            panic!(
                "{routine} on {}: another operation on this team is under way (a collective in \
                 another thread, or a team creation from it still in flight); a team's collective \
                 operations must follow one another",
                self.name()
            );
        }
        Claim(self.clone())
    }

    /// Number of PEs.
    #[inline]
    pub fn n_pes(&self) -> usize {
        self.pes.size()
    }

    /// The handle registered for this team on this PE.
    pub fn handle(&self) -> TeamHandle {
        TeamHandle(self.handle.load(Ordering::Relaxed))
    }

    /// Takes the epoch of the team's next collective operation.
    #[inline]
    pub fn next_epoch(&self) -> u64 {
        self.epoch.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Counts the team's all-reduces (the mailbox parity of `agree::MaxAllreduce`).
    #[inline]
    pub fn next_allreduce(&self) -> u64 {
        self.allreduces.fetch_add(1, Ordering::Relaxed)
    }

    /// What this PE knows of every other member's collective start: all have published at
    /// least this epoch.
    #[inline]
    pub fn entered_floor(&self) -> u64 {
        self.entered_floor.load(Ordering::Relaxed)
    }

    /// Records that every other member has published at least `epoch`.
    #[inline]
    pub fn raise_entered_floor(&self, epoch: u64) {
        self.entered_floor.fetch_max(epoch, Ordering::Relaxed);
    }

    /// Counts the team's central mailbox exchanges (see `coll::Group::exchange_central`).
    #[inline]
    pub fn next_central_exchange(&self) -> u64 {
        self.central_exchanges.fetch_add(1, Ordering::Relaxed)
    }

    /// Last epoch used.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// Name used in messages: `SHMEM_TEAM_WORLD`, `team 5`, ...
    pub fn name(&self) -> String {
        match self.kind {
            TeamKind::World => "SHMEM_TEAM_WORLD".into(),
            TeamKind::Shared => "SHMEM_TEAM_SHARED".into(),
            TeamKind::Node => "SHMEMX_TEAM_NODE".into(),
            TeamKind::SameMypeNode => "SHMEMX_TEAM_SAME_MYPE_NODE".into(),
            TeamKind::User => format!("team {}", self.slot),
        }
    }

    /// Synchronises the team's PEs without checking (the building block of team_sync).
    #[inline]
    pub fn sync_unchecked(&self, rt: &Runtime) {
        let epoch = self.next_epoch();
        if let Some(groups) = self.host_groups(rt) {
            return across_hosts::sync(rt, self, groups, epoch);
        }
        rt.team_sync(self.slot, self.pes.size(), self.my_index, |i| self.pes.world_pe(i), epoch);
    }

    /// The team's host groups, when its members span hosts: then its syncs and collectives
    /// are hierarchical (`coll::hier`). `None` for a team within one host (the shared-memory
    /// algorithms, unchanged). The same answer on every member.
    #[inline]
    pub fn host_groups(&self, rt: &Runtime) -> Option<&HostGroups> {
        rt.net()?;
        self.host_groups
            .get_or_init(|| {
                let n = self.pes.size();
                let groups = HostGroups::new(n, self.my_index, |i| rt.topology.host_of(self.pes.world_pe(i)));
                let hierarchical = groups.len() > 1;
                if hierarchical && groups.leader(groups.mine()) == self.my_index {
                    // A leader talks to every other leader (over many hosts, to its partners
                    // in the trees): connect to them all at once, so that their wire-ups
                    // overlap (`Net::connect_all`); a failure shows again, and is reported,
                    // at the first transfer with that leader.
                    let world = |i: usize| self.pes.world_pe(i);
                    let _ = if Shape::of(&groups).trees_only() {
                        rt.connect_all("team set-up", groups.tree_partners().map(world))
                    } else {
                        rt.connect_all("team set-up", (0..groups.len()).map(|g| world(groups.leader(g))))
                    };
                }
                hierarchical.then_some(groups)
            })
            .as_ref()
    }

    /// Takes the numbers of the next `k` exchanges through staging areas between hosts (see
    /// `coll::hier`), whose every group's flags reach `entered` once its host entered them.
    /// Returns the first number, and the flag value that marks the previous staged exchange
    /// as entered by every group (0: none). Every member takes the same numbers and values.
    #[inline]
    pub fn take_staged_exchanges(&self, k: u64, entered: u64) -> (u64, u64) {
        let first = self.staged_exchanges.fetch_add(k, Ordering::Relaxed);
        (first, self.staged_credit.swap(entered, Ordering::Relaxed))
    }

    /// The team's broadcast ring between hosts, over `groups` host groups.
    pub(crate) fn broadcast_ring(&self, groups: usize) -> &BroadcastRing {
        self.broadcast_ring.get_or_init(|| BroadcastRing::new(groups))
    }
}

impl Runtime {
    /// Publishes that this PE is in `routine` on `team` (its next team call) until the guard
    /// drops (hang reports, `runtime::calls`). A call nested in another on the same team (a
    /// barrier inside `shmem_malloc`) keeps the outer one.
    #[inline(always)]
    pub fn enter_call(&self, routine: &'static str, team: Option<&TeamInner>) -> CallGuard<'_> {
        self.enter_call_on(routine, team.map(|t| t.slot), || team.map_or(0, |t| t.next_call_seq()))
    }
}

/// A team marked busy by [`TeamInner::claim`], until dropped.
#[derive(Debug)]
pub struct Claim(Arc<TeamInner>);

impl Drop for Claim {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::Release);
    }
}

/// Translates `src_pe` of `src` into its number in `dst`; -1 when out of range or not a member.
#[inline]
pub fn translate(src: &TeamInner, src_pe: i64, dst: &TeamInner) -> i64 {
    if src_pe < 0 || src_pe >= src.pes.size() as i64 {
        return -1;
    }
    dst.pes.index_of(src.pes.world_pe(src_pe as usize)).map_or(-1, |i| i as i64)
}

/// One slot's entry of the handle table: the generation of the latest handle issued on the
/// slot, and the team while it lives. Behind a lock, so a lookup that races a destroy (C
/// threads may do that) gets either the team, with its own count, or nothing; never a
/// reference to a freed team.
#[derive(Default)]
struct HandleEntry {
    generation: u32,
    team: Option<Arc<TeamInner>>,
}

/// [`HandleEntry`] for lock-free readers ([`Teams::get_unguarded`]).
#[derive(Default)]
struct Mirror {
    generation: AtomicU32,
    team: AtomicPtr<TeamInner>,
}

/// Figures for `SHMEM_INFO` and `shmemx_team_info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamUsage {
    /// Teams this PE belongs to now (predefined included).
    pub in_use: usize,
    /// Teams this PE can belong to at once (`SHMEMX_TEAM_SLOTS`).
    pub capacity: usize,
    /// Shared-memory bytes a team costs on each member (its slot).
    pub slot_bytes: usize,
    /// Private bytes a team costs on each member (its object, without list membership).
    pub object_bytes: usize,
    /// Shared-memory bytes of the team's staging area on each member: address space, which
    /// becomes memory only as collectives of medium payloads with more PEs than cores use it.
    pub stage_bytes: usize,
}

/// This PE's teams: slot table and handle table (indexed by slot).
pub struct Teams {
    pub(crate) slots: Mutex<SlotTable>,
    entries: Box<[RwLock<HandleEntry>]>,
    /// Lock-free copies of the entries (generation, team pointer) for [`Teams::get_unguarded`]:
    /// written under the entry's write lock, the pointer valid while the entry holds the Arc.
    mirrors: Box<[Mirror]>,
    slot_bytes: usize,
    /// The world team.
    pub world: Arc<TeamInner>,
    /// Sequence of this PE's unique ids (team_init).
    pub(crate) next_uid_seq: AtomicU64,
    /// The teams of the active sets this PE's deprecated collectives used, by (start, stride,
    /// size); `None`: no team could be made, the set takes the pSync algorithms
    /// (`coll::active`).
    pub(crate) active_sets: Mutex<ActiveSetTeams>,
    /// Slots whose team's destroy deferred (`release`), waiting for an agreement over a
    /// parent that holds all of the team's members.
    deferred: Mutex<Vec<DeferredSlot>>,
    /// Numbers the deferrals (a slot may be deferred again once reused).
    deferrals: AtomicU64,
}

/// A slot of a destroyed team, not yet available again (see `slots`).
#[derive(Debug)]
struct DeferredSlot {
    slot: usize,
    seq: u64,
    members: PeSet,
}

/// How `Teams::destroy` gives the team's slot back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotRelease {
    /// The members synchronised: available at once.
    Synced,
    /// Release signals to the other members; pending until theirs arrived.
    Signals,
    /// Deferred until an agreement over a parent that holds every member.
    Deferred,
}

/// The teams of active sets, by (start, stride, size).
pub(crate) type ActiveSetTeams = std::collections::HashMap<(usize, usize, usize), Option<Arc<TeamInner>>>;

impl std::fmt::Debug for Teams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Teams").field("usage", &self.usage()).finish()
    }
}

impl Teams {
    /// The predefined teams of PE `my_pe` in a job of `n_pes` with `capacity` slots.
    pub fn new(
        my_pe: usize,
        n_pes: usize,
        capacity: usize,
        slot_bytes: usize,
        topology: &crate::topology::Topology,
    ) -> Result<Self> {
        if capacity < PREDEFINED + 1 {
            return Err(Error::bootstrap(format!(
                "SHMEMX_TEAM_SLOTS={capacity}: at least {} needed",
                PREDEFINED + 1
            )));
        }
        let slot_count = slots::slots_in_memory(capacity);
        let entries: Box<[RwLock<HandleEntry>]> = (0..slot_count).map(|_| RwLock::default()).collect();
        let mirrors: Box<[Mirror]> = (0..slot_count).map(|_| Mirror::default()).collect();
        let world = Arc::new(TeamInner::new(
            PeSet::world(n_pes),
            my_pe,
            0,
            0,
            TeamConfig::default(),
            TeamKind::World,
        ));
        let teams = Teams {
            slots: Mutex::new(SlotTable::new(capacity, PREDEFINED)),
            entries,
            mirrors,
            slot_bytes,
            world: world.clone(),
            next_uid_seq: AtomicU64::new(1),
            active_sets: Mutex::default(),
            deferred: Mutex::default(),
            deferrals: AtomicU64::new(0),
        };
        teams.publish(world, 0);
        // SHARED and NODE hold the PEs of this host; SAME_MYPE_NODE the PEs with this PE's
        // local rank on every host (one host: every PE, and this PE alone). The teams of
        // different hosts (or local ranks) are disjoint, so they share one slot number.
        let as_team = |pes: &[usize]| {
            let set = PeSet::from_list(pes.iter().map(|&pe| pe as u32).collect(), n_pes);
            let me = set.index_of(my_pe).expect("this PE is in its own host's teams");
            (set, me)
        };
        let (local, local_me) = as_team(topology.local_pes());
        for (slot, kind) in [(1, TeamKind::Shared), (2, TeamKind::Node)] {
            teams.publish(
                Arc::new(TeamInner::new(local.clone(), local_me, slot, 0, TeamConfig::default(), kind)),
                0,
            );
        }
        let (same, same_me) = as_team(&topology.same_local_rank());
        teams.publish(
            Arc::new(TeamInner::new(same, same_me, 3, 0, TeamConfig::default(), TeamKind::SameMypeNode)),
            0,
        );
        Ok(teams)
    }

    fn publish(&self, team: Arc<TeamInner>, generation: u32) -> TeamHandle {
        let handle = TeamHandle(((generation as u64) << 32) | (team.slot as u64 + 1));
        team.handle.store(handle.0, Ordering::Relaxed);
        let mut entry = self.entries[team.slot].write().unwrap_or_else(|e| e.into_inner());
        debug_assert!(entry.team.is_none());
        let mirror = &self.mirrors[team.slot];
        mirror.team.store(Arc::as_ptr(&team).cast_mut(), Ordering::Release);
        mirror.generation.store(generation, Ordering::Release);
        *entry = HandleEntry { generation, team: Some(team) };
        handle
    }

    /// Registers the team of an active set (`coll::active`), whose members agreed on `slot`
    /// (claimed here) and on starting after `base_epoch`.
    pub(crate) fn adopt(&self, pes: PeSet, me: usize, slot: usize, base_epoch: u64) -> Arc<TeamInner> {
        let team = Arc::new(TeamInner::new(pes, me, slot, base_epoch, TeamConfig::default(), TeamKind::User));
        self.register(team.clone());
        team
    }

    /// Registers a newly created team on its (claimed) slot; returns its handle.
    fn register(&self, team: Arc<TeamInner>) -> TeamHandle {
        let generation = self.entries[team.slot]
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .generation
            .wrapping_add(1)
            .max(1);
        self.publish(team, generation)
    }

    /// The team behind `handle`, with its own reference count: it stays valid however long
    /// the caller keeps it, even past the team's destruction (which only unregisters the
    /// handle). `None` for INVALID, a destroyed team or a value that was never a handle.
    ///
    /// No reference into the table escapes, so a team cannot be read after it is freed
    /// (issue 13: this returned a `&'static TeamInner` that dangled once the team was dropped):
    ///
    /// ```compile_fail,E0308
    /// use ferroshmem_core::team::{TeamHandle, TeamInner};
    /// fn keep(h: TeamHandle) -> &'static TeamInner {
    ///     // SAFETY: none needed; this must not compile.
    ///     let rt = unsafe { ferroshmem_core::runtime::runtime("keep") }.unwrap();
    ///     rt.teams().get(h).unwrap()
    /// }
    /// ```
    #[inline]
    pub fn get(&self, handle: TeamHandle) -> Option<Arc<TeamInner>> {
        let entry = self.entries.get(handle.slot())?.read().unwrap_or_else(|e| e.into_inner());
        if entry.generation != handle.generation() {
            return None;
        }
        entry.team.clone()
    }

    /// The team behind `handle`, borrowed without a lock or a reference count: the C ABI's
    /// lookup (`shmem_team_my_pe`, `shmem_team_translate_pe`, every team collective), a few
    /// nanoseconds where [`Self::get`] takes a lock and an atomic count (measured: C
    /// `shmem_team_translate_pe` 4 ns this way, 17 ns through `get`).
    ///
    /// # Safety
    /// No thread may destroy the team behind `handle` while the returned reference lives
    /// (OpenSHMEM makes using a team concurrently with its destruction erroneous, and a C
    /// caller's lookup lives for one call). A handle already destroyed, or never a handle,
    /// gives `None`.
    #[inline]
    pub unsafe fn get_unguarded(&self, handle: TeamHandle) -> Option<&TeamInner> {
        let mirror = self.mirrors.get(handle.slot())?;
        if mirror.generation.load(Ordering::Acquire) != handle.generation() {
            return None;
        }
        let p = mirror.team.load(Ordering::Acquire);
        // SAFETY: a non-null mirror pointer is that of the Arc its entry holds (published
        // before the generation, cleared before the entry drops it), and the caller promises
        // that nobody destroys this team while the reference lives.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    /// The live team on `slot` (for hang reports, which know a team by its slot).
    pub fn by_slot(&self, slot: usize) -> Option<Arc<TeamInner>> {
        self.entries.get(slot)?.read().unwrap_or_else(|e| e.into_inner()).team.clone()
    }

    /// Releases the team behind `handle` on this PE (see [`destroy`] for
    /// `shmem_team_destroy`) in the way `how` says.
    pub fn destroy(&self, handle: TeamHandle, rt: &Runtime, how: SlotRelease) -> Result<()> {
        const ROUTINE: &str = "shmem_team_destroy";
        if handle == TeamHandle::INVALID {
            return Ok(());
        }
        if handle.is_predefined() {
            return Err(Error::invalid(
                ROUTINE,
                "team",
                "a predefined team cannot be destroyed; nothing was destroyed",
            ));
        }
        let team = {
            let entry = self.entries.get(handle.slot()).ok_or(Error::InvalidTeam { routine: ROUTINE })?;
            let mut entry = entry.write().unwrap_or_else(|e| e.into_inner());
            if entry.generation != handle.generation() {
                return Err(Error::InvalidTeam { routine: ROUTINE });
            }
            let mirror = &self.mirrors[handle.slot()];
            mirror.generation.store(0, Ordering::Release);
            mirror.team.store(std::ptr::null_mut(), Ordering::Release);
            entry.team.take().ok_or(Error::InvalidTeam { routine: ROUTINE })?
        };
        team.destroyed.store(true, Ordering::Relaxed);
        // Only a team made to defer may: any other asked to is released by signals, which
        // need nothing of the other members.
        let how =
            if how == SlotRelease::Deferred && !team.defers_destroy { SlotRelease::Signals } else { how };
        if how == SlotRelease::Deferred {
            let seq = self.deferrals.fetch_add(1, Ordering::Relaxed);
            let mut deferred = self.deferred.lock().unwrap_or_else(|e| e.into_inner());
            deferred.push(DeferredSlot { slot: team.slot, seq, members: team.pes.clone() });
            self.slots.lock().unwrap_or_else(|e| e.into_inner()).defer(team.slot, team.epoch());
            return Ok(());
        }
        let signals = if how == SlotRelease::Signals { release::signal_done(rt, &team, ROUTINE) } else { 0 };
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.release(team.slot, team.epoch(), signals);
        if team.defers_destroy {
            slots.give_credits(1);
        }
        Ok(())
    }

    /// The deferred slots (slot, deferral number) that an agreement over `parent` settles:
    /// those of teams whose every member is in `parent`.
    pub(crate) fn deferred_covered_by(&self, parent: &TeamInner) -> Vec<(usize, u64)> {
        let deferred = self.deferred.lock().unwrap_or_else(|e| e.into_inner());
        let world = parent.kind == TeamKind::World;
        deferred
            .iter()
            .filter(|d| {
                world || (0..d.members.size()).all(|i| parent.pes.index_of(d.members.world_pe(i)).is_some())
            })
            .map(|d| (d.slot, d.seq))
            .collect()
    }

    /// Makes the deferred slots of `settled` (from [`Self::deferred_covered_by`], before an
    /// agreement that has now finished) available again.
    pub(crate) fn settle_deferred(&self, settled: &[(usize, u64)]) {
        if settled.is_empty() {
            return;
        }
        let mut deferred = self.deferred.lock().unwrap_or_else(|e| e.into_inner());
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        deferred.retain(|d| {
            let done = settled.contains(&(d.slot, d.seq));
            if done {
                slots.undefer(d.slot);
            }
            !done
        });
    }

    /// Waits until every slot this PE released is available again (`release`): the first
    /// step of every team creation, before any slot is proposed, so that every PE proposes
    /// from the same table as if destroy had synchronised.
    pub(crate) fn settle_releases(&self, rt: &Runtime) {
        loop {
            let pending = {
                let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
                if slots.settle(|s| release::received(rt, s)) {
                    return;
                }
                slots.pending()
            };
            rt.wait_until(rt.my_pe, || pending.iter().all(|&(s, owed)| release::received(rt, s) >= owed));
        }
    }

    /// The slot table, with the pending slots whose signals have arrived made available (no
    /// waiting: for reservations after a creation's first, see [`Self::settle_releases`]).
    pub(crate) fn available_slots(&self, rt: &Runtime) -> std::sync::MutexGuard<'_, SlotTable> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.settle(|s| release::received(rt, s));
        slots
    }

    /// Teams in use, capacity and bytes per team.
    pub fn usage(&self) -> TeamUsage {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        TeamUsage {
            in_use: slots.in_use(),
            capacity: slots.capacity(),
            slot_bytes: self.slot_bytes,
            object_bytes: std::mem::size_of::<TeamInner>() + std::mem::size_of::<RwLock<HandleEntry>>(),
            stage_bytes: crate::job::STAGE_BYTES,
        }
    }
}

/// `shmem_team_destroy`: this PE releases the team's slot once every member has finished
/// every operation on it (an eager collective's reader may still be reading another member's
/// slot): by signalling the other members and keeping the slot pending until they have
/// signalled back (`release`), or, for large teams and in checked mode, by a sync over the
/// team first. INVALID is a no-op; predefined teams are refused.
pub fn destroy(rt: &Runtime, handle: TeamHandle, routine: &'static str) -> Result<()> {
    if handle != TeamHandle::INVALID && !handle.is_predefined() {
        if let Some(team) = rt.teams().get(handle) {
            if team.defers_destroy {
                // Everything this PE sent for the team lands before it joins the agreement
                // that settles the slot (`release`).
                rt.quiet();
                return rt.teams().destroy(handle, rt, SlotRelease::Deferred);
            }
            if !release::signals(rt, &team) {
                team_sync(rt, &team, routine)?;
                return rt.teams().destroy(handle, rt, SlotRelease::Synced);
            }
        }
    }
    rt.teams().destroy(handle, rt, SlotRelease::Signals)
}

/// Checked or unchecked team sync (`shmem_team_sync`).
pub fn team_sync(rt: &Runtime, team: &TeamInner, routine: &'static str) -> Result<()> {
    let _call = rt.enter_call(routine, Some(team));
    if !rt.checked {
        team.sync_unchecked(rt);
        return Ok(());
    }
    checked::check_team(rt, team, &Signature::new(routine, &[]))
}
