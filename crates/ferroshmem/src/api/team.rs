//! The safe API's teams: [`Team`], its creation requests ([`TeamRequest`], [`NewTeams`]) and
//! the `Shmem` methods that split and join (the collectives of a team are in `coll::api`).
use super::*;

pub use crate::team::TeamConfig;
use crate::team::{self as teams, Created, TeamHandle, TeamInner};
use std::sync::Arc;

/// A team (OpenSHMEM 1.5 §9.4). Team PE numbers are `usize` indices into the team; the world
/// numbers of the same PEs come from [`Team::world_pe`] / [`Team::translate_pe`].
///
/// **Argument errors of the collectives.** Each collective checks its counts and slices on
/// this PE before any communication. Members that pass the same counts and the same symmetric
/// slices (which have the same length on every PE) all fail alike. A member whose own
/// arguments fail while the others' pass (a slice too short for the count, another object, a
/// count that overflows only there):
/// - in checked mode (`SHMEMX_CHECK_COLLECTIVES=1` or `SHMEM_DEBUG=1`) still joins the call's
///   checked agreement and tells the others why, and every member returns the same
///   [`Error::InvalidArgument`] naming it (`... (on team PE 2 of SHMEM_TEAM_WORLD)`);
/// - by default returns its error at once without taking part, and the other members wait in
///   the collective for it, for ever (a hang, as in C): finding out would cost an agreement on
///   every call, which is what checked mode adds. `collect`, whose counts differ by design,
///   publishes a bad count instead, so it fails on every member in either mode.
///
/// [`Team::destroy`] is `shmem_team_destroy`: collective (a sync over the team, then the
/// release). Dropping a team that was not destroyed releases it on this PE without any
/// communication, so Drop never blocks or deadlocks (a PE unwinding alone is fine). The one
/// thing Drop cannot ensure is that the other members have finished their last collective on
/// the team; if a new team that excludes a lagging member could reuse the slot, call
/// `destroy()` (or sync a common parent) first. Predefined teams are never destroyed.
///
/// A team's collectives follow one another in its epoch order, so one thread at a time may use
/// it: `Team` is `Send` (move it into the thread that runs its collectives; threads that use
/// different teams run at once, `SHMEM_THREAD_MULTIPLE`) but not `Sync`, so two threads cannot
/// share it:
///
/// ```compile_fail,E0277
/// fn share(team: &ferroshmem::Team<'_>) {
///     std::thread::scope(|s| {
///         s.spawn(|| team.sync());
///         s.spawn(|| team.sync());
///     });
/// }
/// ```
/// ```no_run
/// fn per_thread(a: ferroshmem::Team<'_>, b: ferroshmem::Team<'_>) {
///     std::thread::scope(|s| {
///         s.spawn(move || a.sync());
///         s.spawn(move || b.sync());
///     });
/// }
/// ```
#[derive(Debug)]
pub struct Team<'s> {
    inner: Arc<TeamInner>,
    rt: &'static Runtime,
    /// Borrows the [`Shmem`] it came from, so it cannot outlive finalize.
    _shmem: PhantomData<&'s Shmem>,
    /// Not `Sync` (see above); `Cell<()>` is `Send` and not `Sync`.
    _one_thread_at_a_time: PhantomData<std::cell::Cell<()>>,
}

/// Outcome of a split for this PE: `None` when it is not a member of the new team.
pub type SplitResult<'s> = Result<Option<Team<'s>>>;

/// A team creation in flight (UCC's post/test): complete it with [`TeamRequest::wait`] or
/// poll it with [`TeamRequest::test`]. Other collectives (on other teams) may run meanwhile;
/// the parent team may not be used for collectives until the request completes.
///
/// The request borrows its parent (`'p`), so the parent cannot be dropped or destroyed while
/// the creation runs on its slot (its slot could otherwise serve a new team meanwhile); the
/// teams it makes borrow only the [`Shmem`] (`'s`) and outlive the parent freely:
///
/// ```compile_fail,E0505
/// fn early_drop(shmem: &ferroshmem::Shmem) {
///     let world = shmem.team_world();
///     let parent = world.split_strided(0, 1, shmem.n_pes() as i64, Default::default()).unwrap().unwrap();
///     let req = parent.split_strided_nb(0, 1, 1, Default::default());
///     drop(parent); // the request still runs on the parent's slot
///     let _ = req.wait();
/// }
/// ```
/// ```no_run
/// fn child_outlives_parent(shmem: &ferroshmem::Shmem) {
///     let world = shmem.team_world();
///     let parent = world.split_strided(0, 1, shmem.n_pes() as i64, Default::default()).unwrap().unwrap();
///     let child = parent.split_strided(0, 1, 1, Default::default()).unwrap();
///     parent.destroy().unwrap();
///     drop(child);
/// }
/// ```
///
/// A creation is collective, so dropping a request in flight completes it (blocking, as
/// [`TeamRequest::wait`] does, until the other members have taken part) and then drops the
/// teams it made; otherwise the other members would wait for this PE for ever and its slot
/// reservations would leak. A thread that is unwinding from a panic does not block: it
/// leaves the request as it is.
#[derive(Debug)]
#[must_use = "a team creation must be completed with wait() or test()"]
pub struct TeamRequest<'p, 's> {
    req: Option<teams::CreateRequest>,
    rt: &'static Runtime,
    /// Borrows the [`Shmem`] it came from (its teams will too).
    _shmem: PhantomData<&'s Shmem>,
    /// Borrows the parent team (see above).
    _parent: PhantomData<&'p ()>,
    /// The parent of a split, marked busy until the creation completes.
    parent: Option<teams::Claim>,
}

/// The teams a completed request made on this PE.
#[derive(Debug)]
pub enum NewTeams<'s> {
    /// A strided split or a split by color: the team, or `None` for a non-member.
    One(Option<Team<'s>>),
    /// split_2d: (x-axis team, y-axis team).
    Two(Team<'s>, Team<'s>),
}

impl<'s> TeamRequest<'_, 's> {
    fn new(req: teams::CreateRequest, rt: &'static Runtime, parent: Option<teams::Claim>) -> Self {
        TeamRequest { req: Some(req), rt, _shmem: PhantomData, _parent: PhantomData, parent }
    }

    fn finish(rt: &'static Runtime, created: Created) -> NewTeams<'s> {
        match created {
            Created::One(t) => NewTeams::One(t.map(|inner| Team::new(inner, rt))),
            Created::Two(x, y) => NewTeams::Two(Team::new(x, rt), Team::new(y, rt)),
        }
    }

    /// Advances the creation; `Some` once it is complete on this PE.
    pub fn test(&mut self) -> Option<Result<NewTeams<'s>>> {
        let req = self.req.as_mut()?;
        req.poll(self.rt)?;
        let req = self.req.take()?;
        self.parent = None;
        Some(req.take().map(|c| Self::finish(self.rt, c)))
    }

    /// Completes the creation.
    pub fn wait(mut self) -> Result<NewTeams<'s>> {
        let req = self
            .req
            .take()
            .ok_or_else(|| Error::invalid("TeamRequest::wait", "request", "already completed"))?;
        req.wait(self.rt).map(|c| Self::finish(self.rt, c))
    }
}

impl Shmem {
    fn predefined(&self, handle: TeamHandle) -> Team<'_> {
        Team::new(self.rt.teams().get(handle).expect("predefined teams always exist"), self.rt)
    }

    /// `SHMEM_TEAM_WORLD`.
    pub fn team_world(&self) -> Team<'_> {
        self.predefined(TeamHandle::WORLD)
    }

    /// `SHMEM_TEAM_SHARED`: every PE that shares memory with this one (all of them, on one machine).
    pub fn team_shared(&self) -> Team<'_> {
        self.predefined(TeamHandle::SHARED)
    }

    /// `SHMEMX_TEAM_NODE`: the PEs of this node.
    pub fn team_node(&self) -> Team<'_> {
        self.predefined(TeamHandle::NODE)
    }

    /// `SHMEMX_TEAM_SAME_MYPE_NODE`: the PEs with this PE's node-local number, one per node.
    pub fn team_same_mype_node(&self) -> Team<'_> {
        self.predefined(TeamHandle::SAME_MYPE_NODE)
    }

    /// Draws a unique id for an arbitrary team (`shmemx_team_get_uniqueid`); this PE is its
    /// root and hands it to the members out of band (a put, a broadcast).
    pub fn team_uniqueid(&self) -> Result<u64> {
        teams::unique::get_uniqueid(self.rt)
    }

    /// Starts joining the arbitrary team `uniqueid` as member `pe_idx` of `npes`
    /// (`shmemx_team_init_nb`). Only the members call it; several may be in flight.
    pub fn team_init_nb(
        &self,
        uniqueid: u64,
        npes: usize,
        pe_idx: usize,
        config: TeamConfig,
    ) -> TeamRequest<'_, '_> {
        // Counts beyond i64::MAX are out of range all the same (and refused as such).
        let (npes, pe_idx) =
            (i64::try_from(npes).unwrap_or(i64::MAX), i64::try_from(pe_idx).unwrap_or(i64::MAX));
        const R: &str = "Shmem::team_init";
        let req = teams::init_start(self.rt, R, uniqueid, npes, pe_idx, config.validated(R));
        TeamRequest::new(req, self.rt, None)
    }

    /// Joins the arbitrary team `uniqueid` as member `pe_idx` of `npes` (`shmemx_team_init`).
    pub fn team_init(
        &self,
        uniqueid: u64,
        npes: usize,
        pe_idx: usize,
        config: TeamConfig,
    ) -> Result<Team<'_>> {
        match self.team_init_nb(uniqueid, npes, pe_idx, config).wait()? {
            NewTeams::One(Some(t)) => Ok(t),
            _ => unreachable!("team_init makes this PE's team"),
        }
    }

    /// Teams in use on this PE, capacity, and bytes per team.
    pub fn team_usage(&self) -> teams::TeamUsage {
        self.rt.teams().usage()
    }
}

impl Drop for TeamRequest<'_, '_> {
    fn drop(&mut self) {
        let Some(req) = self.req.take() else { return };
        if std::thread::panicking() {
            return;
        }
        // The teams made on this PE (if it succeeded) are dropped here, which releases them.
        drop(req.wait(self.rt).map(|c| Self::finish(self.rt, c)));
    }
}

impl<'s> Team<'s> {
    fn new(inner: Arc<TeamInner>, rt: &'static Runtime) -> Team<'s> {
        Team { inner, rt, _shmem: PhantomData, _one_thread_at_a_time: PhantomData }
    }

    /// This PE's number in the team.
    pub fn my_pe(&self) -> usize {
        self.inner.my_index
    }

    /// Number of PEs in the team.
    pub fn n_pes(&self) -> usize {
        self.inner.n_pes()
    }

    /// World PE number of team PE `pe`.
    pub fn world_pe(&self, pe: usize) -> Option<usize> {
        (pe < self.n_pes()).then(|| self.inner.pes.world_pe(pe))
    }

    /// Number in `dest` of this team's PE `pe`, if it is a member there.
    pub fn translate_pe(&self, pe: usize, dest: &Team<'_>) -> Option<usize> {
        let r = teams::translate(&self.inner, pe as i64, &dest.inner);
        (r >= 0).then_some(r as usize)
    }

    /// Address in this process of element `i` of `data` on team PE `pe` (`shmem_team_ptr`):
    /// null when that memory cannot be reached with loads and stores from here. A PE number
    /// outside the team is an error.
    pub fn ptr<T: Symmetric>(&self, data: &SymSlice<'_, T>, pe: usize, i: usize) -> Result<*mut T> {
        data.check("Team::ptr", i, 1)?;
        let world = self.world_pe(pe).ok_or(Error::InvalidPe {
            routine: "Team::ptr",
            pe: pe as i64,
            n_pes: self.n_pes(),
        })?;
        data.ptr(world, i)
    }

    /// The team's configuration.
    pub fn config(&self) -> TeamConfig {
        self.inner.config
    }

    /// Whether this is a predefined team.
    pub fn is_predefined(&self) -> bool {
        self.inner.handle().is_predefined()
    }

    /// The C handle of this team on this PE (for mixing with the C ABI).
    pub fn handle(&self) -> TeamHandle {
        self.inner.handle()
    }

    /// Synchronises the team's PEs (`shmem_team_sync`).
    pub fn sync(&self) -> Result<()> {
        let _busy = self.inner.claim("Team::sync");
        teams::team_sync(self.rt, &self.inner, "Team::sync")
    }

    /// Starts a strided split (relative to this team); see [`Team::split_strided`].
    pub fn split_strided_nb(
        &self,
        start: i64,
        stride: i64,
        size: i64,
        config: TeamConfig,
    ) -> TeamRequest<'_, 's> {
        let parent = Some(self.inner.claim("Team::split_strided"));
        let req = teams::split_strided_start(
            self.rt,
            "Team::split_strided",
            self.inner.clone(),
            start,
            stride,
            size,
            config.validated("Team::split_strided"),
        );
        TeamRequest::new(req, self.rt, parent)
    }

    /// `shmem_team_split_strided`: members `start + i * stride` (team numbers of this team),
    /// `i < size`; the stride may be negative (reverse order) or 0 for a team of one.
    /// Collective over this team; `Err` on every PE if any PE fails.
    pub fn split_strided(&self, start: i64, stride: i64, size: i64, config: TeamConfig) -> SplitResult<'s> {
        match self.split_strided_nb(start, stride, size, config).wait()? {
            NewTeams::One(t) => Ok(t),
            NewTeams::Two(..) => unreachable!("a strided split makes one team"),
        }
    }

    /// Starts a 2D split; see [`Team::split_2d`].
    pub fn split_2d_nb(&self, xrange: i64, xconfig: TeamConfig, yconfig: TeamConfig) -> TeamRequest<'_, 's> {
        let parent = Some(self.inner.claim("Team::split_2d"));
        let req = teams::split_2d_start(
            self.rt,
            "Team::split_2d",
            self.inner.clone(),
            xrange,
            xconfig.validated("Team::split_2d"),
            yconfig.validated("Team::split_2d"),
        );
        TeamRequest::new(req, self.rt, parent)
    }

    /// `shmem_team_split_2d`: (row team, column team) of a grid `xrange` wide.
    pub fn split_2d(
        &self,
        xrange: i64,
        xconfig: TeamConfig,
        yconfig: TeamConfig,
    ) -> Result<(Team<'s>, Team<'s>)> {
        match self.split_2d_nb(xrange, xconfig, yconfig).wait()? {
            NewTeams::Two(x, y) => Ok((x, y)),
            NewTeams::One(_) => unreachable!("split_2d makes two teams"),
        }
    }

    /// Starts a split by color and key; see [`Team::split_color`].
    pub fn split_color_nb(&self, color: Option<u32>, key: i64, config: TeamConfig) -> TeamRequest<'_, 's> {
        let parent = Some(self.inner.claim("Team::split_color"));
        let req = teams::split_color_start(
            self.rt,
            "Team::split_color",
            self.inner.clone(),
            Ok(color),
            key,
            config.validated("Team::split_color"),
        );
        TeamRequest::new(req, self.rt, parent)
    }

    /// `shmemx_team_split_color` (like `MPI_Comm_split`): every PE of this team calls it; the
    /// PEs that pass the same `color` form one team, ordered by `key` and then by their number
    /// in this team. `None` (`SHMEMX_COLOR_UNDEFINED`) joins no team and gets `Ok(None)`. One
    /// collective call makes all the teams; `Err` on every PE if any PE fails.
    pub fn split_color(&self, color: Option<u32>, key: i64, config: TeamConfig) -> SplitResult<'s> {
        match self.split_color_nb(color, key, config).wait()? {
            NewTeams::One(t) => Ok(t),
            NewTeams::Two(..) => unreachable!("a split by color makes one team per PE"),
        }
    }

    /// Destroys the team (`shmem_team_destroy`): collective; its slot serves another team
    /// only once every member is done with it (a sync, or release signals: `team::release`).
    /// Predefined teams are refused.
    pub fn destroy(self) -> Result<()> {
        let _busy = self.inner.claim("Team::destroy");
        // Drop then finds the handle stale and does nothing.
        teams::destroy(self.rt, self.inner.handle(), "Team::destroy")
    }

    /// The team object (crate-private: its epochs are the team's collective protocol).
    pub(crate) fn inner(&self) -> &Arc<TeamInner> {
        &self.inner
    }

    /// The runtime this team belongs to (crate-private, as [`runtime::runtime`] is unsafe).
    pub(crate) fn rt(&self) -> &'static Runtime {
        self.rt
    }
}

impl Drop for Team<'_> {
    fn drop(&mut self) {
        if !self.is_predefined() {
            // No sync (the other members need not be dropping it now): the slot waits for
            // their release signals instead (`team::release`).
            let _ = self.rt.teams().destroy(self.inner.handle(), self.rt, teams::SlotRelease::Signals);
        }
    }
}
