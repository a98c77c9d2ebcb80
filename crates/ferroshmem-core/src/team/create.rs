//! Team creation: the requests (blocking and non-blocking) of the splits, `split_color` and
//! arbitrary teams by unique id, each an agreement on a free slot (`agree`) and, for the
//! arbitrary teams, a rendezvous (`unique`); how a creation waits; its error codes.
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;

/// Error codes of a failed team creation (returned to C; the largest over all PEs wins).
pub mod codes {
    /// An argument is invalid on some PE.
    pub const INVALID_ARGUMENT: u32 = 1;
    /// Some PE has no free team slot.
    pub const NO_SLOT: u32 = super::agree::NO_SLOT;
    /// Checked mode: the PEs did not make the same call.
    pub const MISMATCH: u32 = 3;
}

/// What a creation produces on this PE.
#[derive(Debug)]
pub enum Created {
    /// One new team (or none: not a member).
    One(Option<Arc<TeamInner>>),
    /// split_2d: the x-axis (row) and y-axis (column) teams.
    Two(Arc<TeamInner>, Arc<TeamInner>),
}

#[derive(Debug)]
pub(super) enum Plan {
    /// Membership of the new team if this PE is in it.
    One(Option<(PeSet, TeamConfig)>),
    Two((PeSet, TeamConfig), (PeSet, TeamConfig)),
    /// split_color: this PE's color (`None`: undefined, no team), whose entry (with its key)
    /// is published in `round`; the membership is known once every PE's entry can be read.
    Color {
        color: Option<u32>,
        config: TeamConfig,
        round: color::Round,
    },
}

#[derive(Debug)]
pub(super) enum Progress {
    /// A split: slot agreement over the parent, then (split_color across hosts) the
    /// hierarchical exchange of the entries, `agreed` holding the agreement's outcome
    /// meanwhile.
    Split {
        parent: Arc<TeamInner>,
        agreement: SlotAgreement,
        agreed: Option<Agreed>,
        exchange: Option<Box<color::HostExchange>>,
    },
    /// team_init: rendezvous in the root's record.
    Init { rendezvous: unique::Rendezvous, config: TeamConfig },
    /// Failed before any communication (this PE alone).
    Failed,
}

/// A team creation in progress (the state of `*_nb` requests, and of blocking creation).
#[derive(Debug)]
pub struct CreateRequest {
    routine: &'static str,
    progress: Progress,
    plan: Plan,
    local_error: Option<Error>,
    signature: Signature,
    outcome: Option<Result<()>>,
    created: Option<Created>,
    /// How the new teams are made (their description for hang reports; split_2d's columns
    /// are told apart from its rows when made).
    made: Made,
    /// The parent's slot and this creation's call number on it (hang reports).
    call: Option<(usize, u64)>,
}

impl CreateRequest {
    fn start(
        rt: &Runtime,
        routine: &'static str,
        parent: Arc<TeamInner>,
        plan: Result<Plan>,
        signature: Signature,
        made: Made,
    ) -> CreateRequest {
        let call = Some((parent.slot, parent.next_call_seq()));
        let (plan, local_error) = match plan {
            Ok(p) => (p, None),
            Err(e) => (Plan::One(None), Some(e)),
        };
        let (axes, member) = match &plan {
            Plan::One(m) => (1, m.is_some()),
            Plan::Two(..) => (2, true),
            // One slot for all the colors' teams: they are disjoint, so they share it (as the
            // rows of split_2d do).
            Plan::Color { color, .. } => (1, color.is_some()),
        };
        let code = local_error.as_ref().map_or(0, |_| codes::INVALID_ARGUMENT);
        let hash = if rt.checked { signature.hash() } else { 0 };
        let spanning = match &plan {
            Plan::One(Some((pes, _))) => [release::defers(rt, pes), false],
            Plan::Two((x, _), (y, _)) => [release::defers(rt, x), release::defers(rt, y)],
            // A color's members are known only once the agreement has succeeded: every PE
            // with a color takes a credit if the parent spans hosts (the same on every
            // member), and gives it back afterwards if its team turns out not to.
            Plan::Color { color: Some(_), .. } => [release::defers(rt, &parent.pes), false],
            Plan::One(None) | Plan::Color { color: None, .. } => [false, false],
        };
        let agreement = SlotAgreement::start(rt, parent.clone(), axes, member, code, hash, spanning);
        CreateRequest {
            routine,
            progress: Progress::Split { parent, agreement, agreed: None, exchange: None },
            plan,
            local_error,
            signature,
            outcome: None,
            created: None,
            made,
            call,
        }
    }

    /// Advances; `Some` once finished (the same success or error code on every PE).
    pub fn poll(&mut self, rt: &Runtime) -> Option<&Result<()>> {
        if self.outcome.is_none() {
            let outcome = match &mut self.progress {
                Progress::Split { parent, agreement, agreed, exchange } => {
                    if agreed.is_none() {
                        *agreed = Some(agreement.poll(rt)?);
                    }
                    // A split_color that succeeded over a parent across hosts: its entries
                    // move hierarchically, the parent's next operation on every PE.
                    let mut entries = None;
                    if let (Some(Agreed::Slots { .. }), Plan::Color { round, .. }) = (&*agreed, &self.plan) {
                        if let Some(groups) = parent.host_groups(rt).filter(|g| color::hierarchical(g)) {
                            let ex =
                                exchange.get_or_insert_with(|| Box::new(color::HostExchange::start(parent)));
                            entries = Some(ex.poll(rt, self.routine, parent, groups, *round)?);
                        }
                    }
                    let agreed = agreed.take().expect("the agreement's outcome is kept until finished");
                    self.finish(rt, agreed, entries)
                }
                Progress::Init { rendezvous, config } => {
                    let config = *config;
                    match rendezvous.poll(rt)? {
                        unique::InitOutcome::Done { members, slot, base_epoch } => {
                            let pes = PeSet::from_list(members, rt.n_pes);
                            let me = pes.index_of(rt.my_pe).expect("a member wrote its own entry");
                            desc::describe_team(rt, slot, self.made, &pes);
                            let team =
                                Arc::new(TeamInner::new(pes, me, slot, base_epoch, config, TeamKind::User));
                            rt.teams().register(team.clone());
                            self.created = Some(Created::One(Some(team)));
                            Ok(())
                        }
                        unique::InitOutcome::Failed { code, reason } => {
                            Err(Error::TeamCreate { routine: self.routine, code, reason })
                        }
                    }
                }
                Progress::Failed => {
                    Err(self.local_error.take().unwrap_or(Error::InvalidTeam { routine: self.routine }))
                }
            };
            self.outcome = Some(outcome);
        }
        self.outcome.as_ref()
    }

    /// Polls until finished.
    pub fn wait(mut self, rt: &Runtime) -> Result<Created> {
        let _call = self.publish(rt, self.routine);
        let waiter = self.waiter(rt);
        wait_creation(rt, waiter, || self.poll(rt).is_some());
        self.take()
    }

    /// Publishes that this PE is in `routine` (the creation's own, or the routine that waits
    /// for it) on the parent, in the creation's call, until the guard drops (hang reports).
    pub fn publish<'a>(&self, rt: &'a Runtime, routine: &'static str) -> CallGuard<'a> {
        rt.enter_call_as(routine, self.call)
    }

    /// The routine that started this creation.
    pub fn routine(&self) -> &'static str {
        self.routine
    }

    /// How a thread that waits for this request should wait (see [`wait_creation`]).
    pub fn waiter(&self, rt: &Runtime) -> Waiter {
        match &self.progress {
            Progress::Init { rendezvous, .. } if rendezvous.root_on_this_host(rt) => {
                Waiter::Bell(rendezvous.root())
            }
            Progress::Init { .. } if self.outcome.is_none() => Waiter::Poll,
            Progress::Split { agreement, .. } if self.outcome.is_none() && agreement.waits_on_this_host() => {
                Waiter::Local(rt.my_pe)
            }
            _ => Waiter::Bell(rt.my_pe),
        }
    }

    /// The result of a finished request (consumes it).
    pub fn take(mut self) -> Result<Created> {
        match self.outcome.take() {
            Some(Ok(())) => Ok(self.created.take().expect("a successful creation made its teams")),
            Some(Err(e)) => Err(e),
            None => Err(Error::invalid(self.routine, "request", "not complete yet")),
        }
    }

    /// The creation's outcome from the agreement's (and, for a split_color whose entries
    /// were exchanged hierarchically, those `entries`).
    fn finish(&mut self, rt: &Runtime, agreed: Agreed, entries: Option<Vec<color::Entry>>) -> Result<()> {
        let routine = self.routine;
        match agreed {
            Agreed::Failed(code) => Err(match self.local_error.take() {
                Some(e) => Error::TeamCreate { routine, code, reason: e.to_string() },
                None if code == codes::NO_SLOT => Error::TeamCreate {
                    routine,
                    code,
                    reason: format!(
                        "no free team slot on some PE (each PE can belong to {} teams at once; set SHMEMX_TEAM_SLOTS)",
                        rt.layout.team_slots
                    ),
                },
                None => Error::TeamCreate { routine, code, reason: "another PE of the parent team passed invalid arguments".into() },
            }),
            Agreed::Mismatch => {
                let Progress::Split { parent, .. } = &self.progress else { unreachable!("only splits agree") };
                let message = checked::describe_mismatch(rt, parent, &self.signature);
                Err(Error::TeamCreate { routine, code: codes::MISMATCH, reason: message })
            }
            Agreed::Slots { slots, base_epoch, defers } => {
                let made = self.made;
                let make = |(pes, config): (PeSet, TeamConfig), axis: usize, made: Made, defers: bool| {
                    let me = pes.index_of(rt.my_pe).expect("a planned member is in its team");
                    let slot = slots[axis];
                    desc::describe_team(rt, slot, made, &pes);
                    let team =
                        Arc::new(TeamInner::new(pes, me, slot, base_epoch, config, TeamKind::User).deferring(defers));
                    rt.teams().register(team.clone());
                    team
                };
                let plan = std::mem::replace(&mut self.plan, Plan::One(None));
                self.created = Some(match plan {
                    Plan::One(m) => Created::One(m.map(|m| make(m, 0, made, defers[0]))),
                    Plan::Two(x, y) => {
                        let column = match made {
                            Made::Split2dRow { parent, xrange } => Made::Split2dColumn { parent, xrange },
                            other => other,
                        };
                        Created::Two(make(x, 0, made, defers[0]), make(y, 1, column, defers[1]))
                    }
                    Plan::Color { color, config, round } => {
                        let Progress::Split { parent, .. } = &self.progress else {
                            unreachable!("split_color agrees over its parent")
                        };
                        let team = color.map(|_| {
                            let entries = entries.unwrap_or_else(|| color::read_all(rt, routine, parent, round));
                            let pes = parent
                                .pes
                                .split_color(&entries, parent.my_index, rt.n_pes)
                                .expect("this PE's color is defined");
                            // Every member of the color decides alike: the agreement's answer
                            // and the team's own span.
                            let spans = release::defers(rt, &pes);
                            if defers[0] && !spans {
                                rt.teams().slots.lock().unwrap_or_else(|e| e.into_inner()).give_credits(1);
                            }
                            make((pes, config), 0, made, defers[0] && spans)
                        });
                        color::done(parent);
                        Created::One(team)
                    }
                });
                Ok(())
            }
        }
    }
}

/// How a thread waits for a team creation to advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiter {
    /// On the doorbell of this PE (of this host): what the creation waits for is written into
    /// its memory, and every writer rings it (a split: this PE's own mailboxes; team_init: the
    /// root's rendezvous record).
    Bell(usize),
    /// As `Bell`, where only PEs of this host write what the creation waits for (a member of
    /// a split across hosts waits for its host's leader): the wait leaves the network to the
    /// progress thread (`Runtime::wait_until_local`).
    Local(usize),
    /// By looking again with growing pauses: what the creation waits for is on another host
    /// and nothing rings a bell here when it changes (team_init whose root is on another host).
    Poll,
}

/// The shortest and longest pause of a [`Waiter::Poll`] wait between two looks. Each look is
/// a network round trip (spent progressing the worker) that the root's progress thread
/// serves, and PEs may outnumber cores: the pause is a quarter of the time waited so far, so a
/// member learns of the outcome at most a quarter of its wait after it is there, and never
/// more than `POLL_PAUSE.1` (a long wait then costs a look per millisecond).
pub(super) const POLL_PAUSE: (Duration, Duration) = (Duration::from_micros(5), Duration::from_millis(1));

/// Waits until `ready()` (a creation's poll) holds, as `waiter` says.
pub fn wait_creation(rt: &Runtime, waiter: Waiter, mut ready: impl FnMut() -> bool) {
    match waiter {
        Waiter::Bell(pe) => rt.wait_until(pe, ready),
        Waiter::Local(pe) => rt.wait_until_local(pe, ready),
        Waiter::Poll => {
            let start = Instant::now();
            let mut watch = None;
            while !ready() {
                std::thread::sleep((start.elapsed() / 4).clamp(POLL_PAUSE.0, POLL_PAUSE.1));
                // Past the short pauses this wait sleeps: watch it as a sleeping wait.
                watch.get_or_insert_with(crate::wait::Watch::start).look();
            }
        }
    }
}

/// Starts `shmem_team_split_strided` (start, stride, size relative to the parent).
pub fn split_strided_start(
    rt: &Runtime,
    routine: &'static str,
    parent: Arc<TeamInner>,
    start: i64,
    stride: i64,
    size: i64,
    config: Result<TeamConfig>,
) -> CreateRequest {
    let n = parent.n_pes();
    let plan = config.and_then(|config| {
        check_triplet(n, start, stride, size).map_err(|e| {
            Error::invalid(
                routine,
                "start/stride/size",
                format!("({start}, {stride}, {size}) on a parent of {n} PEs: {e}"),
            )
        })?;
        let set = parent.pes.split_strided(start, stride, size, rt.n_pes);
        Ok(Plan::One(set.index_of(rt.my_pe).map(|_| (set, config))))
    });
    let signature = Signature::new(routine, &[start, stride, size]);
    let made = Made::SplitStrided { parent: parent.slot, start, stride, size };
    CreateRequest::start(rt, routine, parent, plan, signature, made)
}

/// Starts `shmem_team_split_2d`: rows (x-axis teams) of `xrange` PEs and columns (y-axis).
pub fn split_2d_start(
    rt: &Runtime,
    routine: &'static str,
    parent: Arc<TeamInner>,
    xrange: i64,
    xconfig: Result<TeamConfig>,
    yconfig: Result<TeamConfig>,
) -> CreateRequest {
    let n = parent.n_pes();
    let plan = (|| {
        if xrange <= 0 {
            return Err(Error::invalid(routine, "xrange", format!("{xrange} is not positive")));
        }
        let (xconfig, yconfig) = (xconfig?, yconfig?);
        let x = (xrange as usize).min(n);
        let me = parent.my_index;
        let row = parent.pes.row(me / x, x, rt.n_pes);
        let col = parent.pes.column(me % x, x, rt.n_pes);
        Ok(Plan::Two((row, xconfig), (col, yconfig)))
    })();
    let signature = Signature::new(routine, &[xrange]);
    let made = Made::Split2dRow { parent: parent.slot, xrange };
    CreateRequest::start(rt, routine, parent, plan, signature, made)
}

/// Starts `shmemx_team_split_color`: the PEs of `parent` with the same color form a team,
/// ordered by key and then by parent PE number; `None` (undefined) is in no team. One
/// agreement over the parent chooses one slot for all the teams; the (color, key) entries
/// travel beside it (see [`color`]). `color` and `config` are `Err` for this PE's invalid
/// arguments, which fail the creation on every PE.
pub fn split_color_start(
    rt: &Runtime,
    routine: &'static str,
    parent: Arc<TeamInner>,
    color: Result<Option<u32>>,
    key: i64,
    config: Result<TeamConfig>,
) -> CreateRequest {
    let made = Made::SplitColor {
        parent: parent.slot,
        color: match &color {
            Ok(Some(c)) => *c as i64,
            _ => -1,
        },
    };
    let plan = color.and_then(|color| {
        let config = config?;
        let round = color::Round::next(&parent);
        color::publish(rt, &parent, round, color, key);
        Ok(Plan::Color { color, config, round })
    });
    // Colors and keys differ between PEs by design: only the routine must match.
    let signature = Signature::new(routine, &[]);
    CreateRequest::start(rt, routine, parent, plan, signature, made)
}

/// Starts `shmemx_team_init`: this PE joins the team of unique id `uniqueid` as member
/// `pe_idx` of `npes`.
pub fn init_start(
    rt: &Runtime,
    routine: &'static str,
    uniqueid: u64,
    npes: i64,
    pe_idx: i64,
    config: Result<TeamConfig>,
) -> CreateRequest {
    let signature = Signature::new(routine, &[npes]);
    let hash = if rt.checked { signature.hash() } else { 0 };
    let (config, config_error) = match config {
        Ok(c) => (c, None),
        Err(e) => (TeamConfig::default(), Some(e.to_string())),
    };
    rt.teams().settle_releases(rt);
    let (progress, local_error) =
        match unique::Rendezvous::start(rt, routine, uniqueid, npes, pe_idx, config_error, hash) {
            Ok(rendezvous) => (Progress::Init { rendezvous, config }, None),
            Err(e) => (Progress::Failed, Some(e)),
        };
    CreateRequest {
        routine,
        progress,
        plan: Plan::One(None),
        local_error,
        signature,
        outcome: None,
        created: None,
        made: Made::Init { npes },
        call: None,
    }
}
