//! Teams through the safe Rust API on real PEs (1, 2, 3, 6, 7 and 12 PEs).

mod common;

use ferroshmem::{Error, NewTeams, SymSlice, TeamConfig};
use std::time::Duration;

const PE_COUNTS: &[usize] = &[1, 2, 3, 6, 7, 12];

const DEFAULT: TeamConfig = TeamConfig { num_contexts: 0 };

#[test]
fn strided_splits_number_and_translate() {
    common::spmd("strided_splits_number_and_translate", PE_COUNTS, &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let world = s.team_world();
        // Evens (Example 11).
        let evens = world.split_strided(0, 2, n.div_ceil(2) as i64, DEFAULT).unwrap();
        match &evens {
            Some(t) => {
                assert_eq!(me % 2, 0);
                assert_eq!(t.my_pe(), me / 2);
                assert_eq!(t.n_pes(), n.div_ceil(2));
                assert_eq!(t.translate_pe(t.my_pe(), &world), Some(me));
                t.sync().unwrap();
            }
            None => assert_eq!(me % 2, 1),
        }
        // Reversed world.
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        assert_eq!(rev.my_pe(), n - 1 - me);
        assert_eq!(world.translate_pe(me, &rev), Some(n - 1 - me));
        assert_eq!(rev.translate_pe(n, &world), None, "src_pe == size is out of range");
        rev.sync().unwrap();
        // A split of the reversed team: its evens, reversed order kept.
        let sub = rev.split_strided(0, 2, n.div_ceil(2) as i64, DEFAULT).unwrap();
        if (n - 1 - me) % 2 == 0 {
            let sub = sub.unwrap();
            assert_eq!(sub.my_pe(), (n - 1 - me) / 2);
            assert_eq!(sub.world_pe(0), Some(n - 1));
            if let Some(e) = &evens {
                let mine = sub.translate_pe(sub.my_pe(), e);
                assert_eq!(mine, Some(me / 2));
            }
        } else {
            assert!(sub.is_none());
        }
        // Zero stride, size 1.
        let solo = world.split_strided((n - 1) as i64, 0, 1, DEFAULT).unwrap();
        assert_eq!(solo.is_some(), me == n - 1);
        s.barrier_all();
    });
}

#[test]
fn invalid_triplets_fail_on_every_pe() {
    common::spmd("invalid_triplets_fail_on_every_pe", PE_COUNTS, &[], |s| {
        let n = s.n_pes() as i64;
        let world = s.team_world();
        for (start, stride, size) in
            [(0, 1, 0), (n, 1, 1), (-1, 1, 1), (0, 0, 2.min(n + 1)), (0, 1, n + 1), (n - 1, -1, n + 1)]
        {
            if stride == 0 && size == 1 {
                continue;
            }
            let r = world.split_strided(start, stride, size, DEFAULT);
            assert!(
                matches!(r, Err(Error::TeamCreate { code: 1, .. })),
                "({start}, {stride}, {size}) gave {r:?}"
            );
        }
        // Only one PE passes a bad triplet: every PE still fails with the same code.
        let bad_size = if s.my_pe() == 0 { 0 } else { n };
        let r = world.split_strided(0, 1, bad_size, DEFAULT);
        assert!(matches!(r, Err(Error::TeamCreate { code: 1, .. })), "{r:?}");
        // The world still works after failures.
        let t = world.split_strided(0, 1, n, DEFAULT).unwrap().unwrap();
        t.sync().unwrap();
        assert!(s.team_world().destroy().is_err(), "predefined teams cannot be destroyed");
        s.barrier_all();
    });
}

#[test]
fn split_2d_rows_and_columns() {
    common::spmd("split_2d_rows_and_columns", PE_COUNTS, &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let world = s.team_world();
        for xrange in [1, 2, 3, 5, n as i64, n as i64 + 4] {
            let x = (xrange as usize).min(n);
            let (row, col) = world.split_2d(xrange, DEFAULT, TeamConfig { num_contexts: 2 }).unwrap();
            assert_eq!(row.my_pe(), me % x);
            assert_eq!(col.my_pe(), me / x);
            assert_eq!(row.n_pes(), x.min(n - (me / x) * x));
            assert_eq!(col.n_pes(), (n - me % x).div_ceil(x));
            assert_eq!(col.config().num_contexts, 2);
            row.sync().unwrap();
            col.sync().unwrap();
            // Data moves along a row: everyone puts its world number into its row neighbour.
            let cell: SymSlice<u64> = s.alloc(1).unwrap();
            let right = row.world_pe((row.my_pe() + 1) % row.n_pes()).unwrap();
            cell.p(right, 0, me as u64).unwrap();
            s.barrier_all();
            let left = row.world_pe((row.my_pe() + row.n_pes() - 1) % row.n_pes()).unwrap();
            assert_eq!(cell.read(0).unwrap(), left as u64);
            row.destroy().unwrap();
            col.destroy().unwrap();
        }
        assert!(matches!(world.split_2d(0, DEFAULT, DEFAULT), Err(Error::TeamCreate { code: 1, .. })));
        s.barrier_all();
    });
}

#[test]
fn thousands_of_teams_and_cycles_leak_nothing() {
    common::spmd("thousands_of_teams_and_cycles_leak_nothing", &[1, 2, 3, 7], &[], |s| {
        let world = s.team_world();
        let before = s.team_usage();
        for _ in 0..2000 {
            let t = world.split_strided(0, 1, s.n_pes() as i64, DEFAULT).unwrap().unwrap();
            t.destroy().unwrap();
        }
        assert_eq!(s.team_usage(), before, "2000 split/destroy cycles leave nothing behind");
        let mut live = Vec::new();
        for _ in 0..4096 {
            live.push(world.split_strided(0, 1, s.n_pes() as i64, DEFAULT).unwrap().unwrap());
        }
        assert_eq!(s.team_usage().in_use, before.in_use + 4096);
        live[4095].sync().unwrap();
        live[17].sync().unwrap();
        drop(live);
        assert_eq!(s.team_usage(), before);
        s.barrier_all();
    });
}

#[test]
fn nonblocking_creation_overlaps_other_collectives() {
    common::spmd("nonblocking_creation_overlaps_other_collectives", PE_COUNTS, &[], |s| {
        let n = s.n_pes();
        let world = s.team_world();
        let other = world.split_strided(0, 1, n as i64, DEFAULT).unwrap().unwrap();
        let mut req = world.split_2d_nb(2, DEFAULT, DEFAULT);
        // The same number of collectives on another team on every PE while the creation is in
        // flight, polling it in between (it may complete at any point on any PE).
        let mut done = None;
        for _ in 0..50 {
            other.sync().unwrap();
            if done.is_none() {
                done = req.test();
            }
        }
        let teams = match done {
            Some(r) => r.unwrap(),
            None => req.wait().unwrap(),
        };
        match teams {
            NewTeams::Two(x, y) => {
                assert_eq!(x.my_pe(), s.my_pe() % 2.min(n));
                y.sync().unwrap();
            }
            NewTeams::One(_) => panic!("split_2d makes two teams"),
        }
        s.barrier_all();
    });
}

/// The model of a split by color: the parent numbers of member `p`'s team in team order
/// (`None`: undefined color).
fn color_model(entries: &[(Option<u32>, i64)], p: usize) -> Option<Vec<usize>> {
    let color = entries[p].0?;
    let mut team: Vec<usize> = (0..entries.len()).filter(|&q| entries[q].0 == Some(color)).collect();
    team.sort_by_key(|&q| (entries[q].1, q));
    Some(team)
}

/// Checks `team`, what parent member `parent.my_pe()` got from a split of `parent` by
/// `entries`, against the model: size, number, translate_pe both ways, world numbers; and
/// syncs it.
fn check_color_team(
    parent: &ferroshmem::Team,
    entries: &[(Option<u32>, i64)],
    team: &Option<ferroshmem::Team>,
) {
    let p = parent.my_pe();
    match (color_model(entries, p), team) {
        (None, None) => {}
        (Some(model), Some(t)) => {
            assert_eq!(t.n_pes(), model.len(), "{entries:?}");
            assert_eq!(Some(t.my_pe()), model.iter().position(|&q| q == p), "{entries:?}");
            for (rank, &q) in model.iter().enumerate() {
                assert_eq!(parent.translate_pe(q, t), Some(rank), "{entries:?}");
                assert_eq!(t.translate_pe(rank, parent), Some(q), "{entries:?}");
                assert_eq!(t.world_pe(rank), parent.world_pe(q), "{entries:?}");
            }
            for q in (0..entries.len()).filter(|q| !model.contains(q)) {
                assert_eq!(parent.translate_pe(q, t), None, "{entries:?}");
            }
            assert_eq!(t.translate_pe(model.len(), parent), None);
            t.sync().unwrap();
        }
        (model, team) => panic!("{entries:?}: model {model:?}, team {team:?}"),
    }
}

#[test]
fn split_color_against_a_model() {
    common::spmd("split_color_against_a_model", PE_COUNTS, &[], |s| {
        use proptest::strategy::{Strategy, ValueTree};
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let n = s.n_pes();
        let world = s.team_world();
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        // Every PE draws the same cases: proptest's generator with a fixed seed (no shrinking,
        // which each PE would do on its own).
        let mut runner =
            TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &[14; 32]));
        let entries_of = |len: usize, runner: &mut TestRunner| {
            proptest::collection::vec((proptest::option::weighted(0.85, 0u32..4), -3i64..3), len)
                .new_tree(runner)
                .unwrap()
                .current()
        };
        for round in 0..40 {
            let parent = if round % 2 == 0 { &world } else { &rev };
            let entries = entries_of(n, &mut runner);
            let (color, key) = entries[parent.my_pe()];
            let config = TeamConfig { num_contexts: round % 3 };
            let team = if round % 4 == 3 {
                match parent.split_color_nb(color, key, config).wait().unwrap() {
                    NewTeams::One(t) => t,
                    NewTeams::Two(..) => panic!("a split by color makes one team"),
                }
            } else {
                parent.split_color(color, key, config).unwrap()
            };
            check_color_team(parent, &entries, &team);
            if let Some(t) = &team {
                assert_eq!(t.config(), config);
            }
            // Nested: every team splits again (each team draws its own entries; the teams
            // split at once, disjoint).
            let inner = entries_of(12, &mut runner);
            if let Some(t) = &team {
                let inner = &inner[..t.n_pes()];
                let (c, k) = inner[t.my_pe()];
                let nested = t.split_color(c, k, DEFAULT).unwrap();
                check_color_team(t, inner, &nested);
                if let Some(nt) = nested {
                    nt.destroy().unwrap();
                }
            }
            if let Some(t) = team {
                t.destroy().unwrap();
            }
        }
        // Everybody undefined: no team, no error.
        assert!(world.split_color(None, 0, DEFAULT).unwrap().is_none());
        s.barrier_all();
    });
}

#[test]
fn checked_mode_names_who_passed_what() {
    common::spmd(
        "checked_mode_names_who_passed_what",
        &[2, 3, 6],
        &[("SHMEMX_CHECK_COLLECTIVES", "1")],
        |s| {
            let me = s.my_pe() as i64;
            let world = s.team_world();
            let size = if me == 1 { 1 } else { 2 };
            let err = world.split_strided(0, 1, size, DEFAULT).unwrap_err().to_string();
            let n = s.n_pes();
            let others = match n {
                2 => "PE 0".to_string(),
                3 => "PE 0, 2".to_string(),
                _ => format!("PE 0, 2..{}", n - 1),
            };
            let expected = format!(
                "Team::split_strided on SHMEM_TEAM_WORLD: {others} passed (0, 1, 2), PE 1 passed (0, 1, 1)"
            );
            assert!(err.contains(&expected), "{err}\nexpected: {expected}");
            // A sync against a split: the routines differ.
            let err = if me == 0 {
                world.sync().unwrap_err()
            } else {
                world.split_strided(0, 1, 1, DEFAULT).unwrap_err()
            };
            assert!(
                err.to_string()
                    .contains("collective calls on SHMEM_TEAM_WORLD do not match: PE 0 called Team::sync()"),
                "{err}"
            );
            world.sync().unwrap();
            // A collective whose PEs disagree on the root, then one that agrees.
            let mut buf: SymSlice<u64> = s.alloc(1).unwrap();
            let root = if me == 1 { 1 } else { 0 };
            let err = world.broadcast_in_place(&mut buf, 1, root).unwrap_err().to_string();
            assert!(err.starts_with("shmem_broadcast on SHMEM_TEAM_WORLD: "), "{err}");
            assert!(err.contains("PE 1 passed (8, 1)"), "{err}");
            world.broadcast_in_place(&mut buf, 1, 0).unwrap();
            // Destroy is checked too.
            let t = world.split_strided(0, 1, s.n_pes() as i64, DEFAULT).unwrap().unwrap();
            t.destroy().unwrap();
        },
    );
}

#[test]
fn arbitrary_teams_by_unique_id_two_in_flight() {
    common::spmd("arbitrary_teams_by_unique_id_two_in_flight", PE_COUNTS, &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        // PE 0 draws two ids and puts them into every PE.
        let ids: SymSlice<u64> = s.alloc(2).unwrap();
        if me == 0 {
            let (a, b) = (s.team_uniqueid().unwrap(), s.team_uniqueid().unwrap());
            assert_ne!(a, b);
            for pe in 0..n {
                ids.put(pe, 0, &[a, b]).unwrap();
            }
        }
        s.barrier_all();
        let (a, b) = (ids.read(0).unwrap(), ids.read(1).unwrap());
        // Team A: everyone, rotated by one. Team B: the even PEs, reversed.
        let idx_a = (me + 1) % n;
        let evens = n.div_ceil(2);
        let mut req_a = s.team_init_nb(a, n, idx_a, DEFAULT);
        let mut req_b = (me % 2 == 0).then(|| s.team_init_nb(b, evens, evens - 1 - me / 2, DEFAULT));
        let (mut ta, mut tb) = (None, None);
        while ta.is_none() || (req_b.is_some() && tb.is_none()) {
            if ta.is_none() {
                ta = req_a.test();
            }
            if let (Some(r), None) = (req_b.as_mut(), &tb) {
                tb = r.test();
            }
        }
        let NewTeams::One(Some(ta)) = ta.unwrap().unwrap() else { panic!("team A") };
        assert_eq!(ta.my_pe(), idx_a);
        assert_eq!(ta.world_pe(idx_a), Some(me));
        assert_eq!(ta.translate_pe(0, &s.team_world()), Some(n - 1));
        ta.sync().unwrap();
        if let Some(tb) = tb {
            let NewTeams::One(Some(tb)) = tb.unwrap() else { panic!("team B") };
            assert_eq!(tb.my_pe(), evens - 1 - me / 2);
            assert_eq!(tb.world_pe(0), Some(2 * (evens - 1)));
            assert_eq!(ta.translate_pe(idx_a, &tb), Some(evens - 1 - me / 2));
            tb.sync().unwrap();
            // A split of an arbitrary team.
            let sub = tb.split_strided(0, 2, tb.n_pes().div_ceil(2) as i64, DEFAULT).unwrap();
            assert_eq!(sub.is_some(), tb.my_pe() % 2 == 0);
        } else if me % 2 == 1 && n > 1 {
            assert!(ta.translate_pe(idx_a, &s.team_world()).is_some());
        }
        s.barrier_all();
        // The ids' records are free again: PE 0 can draw more than 16 more.
        if me == 0 {
            for _ in 0..40 {
                let id = s.team_uniqueid().unwrap();
                let t = s.team_init(id, 1, 0, DEFAULT).unwrap();
                assert_eq!(t.n_pes(), 1);
            }
        }
        s.barrier_all();
    });
}

#[test]
fn threads_run_collectives_on_different_teams_at_once() {
    common::spmd("threads_run_collectives_on_different_teams_at_once", &[1, 2, 3, 6], &[], |s| {
        let world = s.team_world();
        let (row, col) = world.split_2d(2, DEFAULT, DEFAULT).unwrap();
        let parent_a = world.split_strided(0, 1, s.n_pes() as i64, DEFAULT).unwrap().unwrap();
        let parent_b =
            world.split_strided(s.n_pes() as i64 - 1, -1, s.n_pes() as i64, DEFAULT).unwrap().unwrap();
        // Each thread owns its teams (a Team is Send, not Sync).
        std::thread::scope(|scope| {
            let a = scope.spawn(move || {
                for _ in 0..200 {
                    row.sync().unwrap();
                }
                // Team creation from this thread while the other thread creates from another parent.
                for _ in 0..50 {
                    let t = parent_a.split_strided(0, 1, parent_a.n_pes() as i64, DEFAULT).unwrap().unwrap();
                    t.sync().unwrap();
                    t.destroy().unwrap();
                }
            });
            let b = scope.spawn(move || {
                for _ in 0..200 {
                    col.sync().unwrap();
                    // Queries while the other thread runs collectives on its teams.
                    assert_eq!(col.translate_pe(col.my_pe(), &s.team_world()), Some(s.my_pe()));
                }
                for _ in 0..50 {
                    let t = parent_b.split_strided(0, 1, parent_b.n_pes() as i64, DEFAULT).unwrap().unwrap();
                    t.sync().unwrap();
                    t.destroy().unwrap();
                }
            });
            a.join().unwrap();
            b.join().unwrap();
        });
        s.barrier_all();
    });
}

/// Writes through the pointer it gets, which needs `unsafe`, as any use of a raw pointer does.
#[test]
#[allow(unsafe_code)]
fn team_ptr_numbers_pes_in_the_team() {
    common::spmd("team_ptr_numbers_pes_in_the_team", &[1, 2, 5], &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let data: SymSlice<u64> = s.alloc(4).unwrap();
        let world = s.team_world();
        let rev = world.split_strided(n as i64 - 1, -1, n as i64, DEFAULT).unwrap().unwrap();
        for pe in 0..n {
            // Team PE `pe` of the reversed team is world PE n - 1 - pe.
            assert_eq!(rev.ptr(&data, pe, 2).unwrap(), data.ptr(n - 1 - pe, 2).unwrap());
            assert!(!rev.ptr(&data, pe, 2).unwrap().is_null());
        }
        assert!(matches!(rev.ptr(&data, n, 0), Err(Error::InvalidPe { .. })), "PE n is outside the team");
        assert!(data.ptr(0, 4).is_err(), "element 4 of 4 is out of bounds");
        // A store through the pointer of reversed PE 0 lands on world PE n - 1.
        if me == 0 {
            let p = rev.ptr(&data, 0, 1).unwrap();
            // SAFETY: p addresses element 1 of world PE n - 1's copy, which nobody else
            // touches until the barrier below.
            unsafe { p.write_volatile(77) };
        }
        s.barrier_all();
        if me == n - 1 {
            assert_eq!(data.read(1).unwrap(), 77);
        }
        s.barrier_all();
        rev.destroy().unwrap();
        data.free().unwrap();
    });
}

/// Dropping a team creation in flight completes it (issue 13): the other members are not left
/// waiting in the agreement, and no slot stays reserved or in use on the PE that dropped it.
#[test]
fn dropped_requests_complete_and_release_their_slots() {
    common::spmd("dropped_requests_complete_and_release_their_slots", &[1, 2, 3, 6], &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let world = s.team_world();
        let before = s.team_usage().in_use;
        // Every PE drops its request.
        for _ in 0..20 {
            drop(world.split_strided_nb(0, 1, n as i64, DEFAULT));
            drop(world.split_2d_nb(2, DEFAULT, DEFAULT));
        }
        assert_eq!(s.team_usage().in_use, before);
        // PE 0 drops its request; the others wait for the creation, which PE 0's drop takes
        // part in (before issue 13 they waited for ever).
        let req = world.split_2d_nb(2, DEFAULT, DEFAULT);
        if me == 0 {
            drop(req);
        } else {
            match req.wait().unwrap() {
                NewTeams::Two(x, y) => {
                    assert_eq!(x.n_pes(), 2.min(n - me / 2 * 2));
                    assert_eq!(y.n_pes(), (n - me % 2).div_ceil(2));
                }
                NewTeams::One(_) => panic!("split_2d makes two teams"),
            }
        }
        // The parent is in step on every PE, and nothing is left in use.
        let t = world.split_strided(0, 1, n as i64, DEFAULT).unwrap().unwrap();
        t.sync().unwrap();
        t.destroy().unwrap();
        assert_eq!(s.team_usage().in_use, before);
        // Unique-id teams too: every member drops its join request.
        let uid: SymSlice<u64> = s.alloc(1).unwrap();
        if me == 0 {
            let id = s.team_uniqueid().unwrap();
            for pe in 0..n {
                uid.p(pe, 0, id).unwrap();
            }
        }
        s.barrier_all();
        drop(s.team_init_nb(uid.read(0).unwrap(), n, n - 1 - me, DEFAULT));
        assert_eq!(s.team_usage().in_use, before);
        world.sync().unwrap();
    });
}

/// Runs `body` as a job of `npes` PEs that must fail (every PE panics) with `message`.
fn spmd_panics(name: &str, npes: usize, body: fn(&ferroshmem::Shmem), message: &str) {
    if common::run_if_pe(name, body) {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let args = [name, "--exact", "--nocapture", "--test-threads=1"];
    let r = common::run_job(npes, &exe, &args, &[(common::SPMD_CHILD, name)], Duration::from_secs(120));
    assert!(!r.timed_out, "{name} timed out\n{}{}", r.stdout, r.stderr);
    assert_ne!(r.status, Some(0), "{name} should have failed\n{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(message), "{name}: no {message:?} in\n{}", r.stderr);
}

/// A team's collectives take its epochs in order: a collective on a team while a creation from
/// it is in flight (or while another thread runs one on it, through a second handle of a
/// predefined team) panics with a clear message instead of breaking the protocol.
#[test]
fn a_team_busy_with_a_creation_refuses_collectives() {
    let name = "a_team_busy_with_a_creation_refuses_collectives";
    spmd_panics(
        name,
        2,
        |s| {
            let world = s.team_world();
            let req = world.split_strided_nb(0, 1, s.n_pes() as i64, DEFAULT);
            let _ = s.team_world().sync();
            drop(req);
        },
        "Team::sync on SHMEM_TEAM_WORLD: another operation on this team is under way",
    );
}

/// The claim is released when the creation completes (by wait, test or drop), and after every
/// collective, so operations that follow one another all work.
#[test]
fn a_team_is_free_again_after_each_operation() {
    common::spmd("a_team_is_free_again_after_each_operation", &[1, 3], &[], |s| {
        let world = s.team_world();
        let n = s.n_pes() as i64;
        let t = world.split_strided_nb(0, 1, n, DEFAULT).wait().unwrap();
        world.sync().unwrap();
        let mut req = world.split_strided_nb(0, 1, n, DEFAULT);
        let u = loop {
            if let Some(r) = req.test() {
                break r.unwrap();
            }
        };
        world.sync().unwrap();
        drop(world.split_2d_nb(1, DEFAULT, DEFAULT));
        s.barrier_all();
        let mut a: SymSlice<u64> = s.alloc(4).unwrap();
        world.broadcast_in_place(&mut a, 4, 0).unwrap();
        a.free().unwrap();
        drop((t, u));
        world.sync().unwrap();
    });
}

/// A team dropped without `destroy` while another member still has to read a broadcast from
/// it: the root's next team, made from a parent without that member, must not reuse the
/// slot (and overwrite the root's ring entries) before the member is done with it. The slot
/// waits for the member's release signal (`team::release`); before, a dropped team's slot was
/// reused at once and the lagging reader waited for an entry that had been overwritten.
/// With a core per PE (`SHMEMX_CORES`), where the broadcast's root returns at once.
#[test]
fn a_dropped_team_slot_waits_for_its_lagging_members() {
    common::spmd("a_dropped_team_slot_waits_for_its_lagging_members", &[3], &[("SHMEMX_CORES", "8")], |s| {
        let me = s.my_pe();
        let world = s.team_world();
        // PEs 0 and 2, made once: their later teams need no agreement with PE 1.
        let edges = world.split_strided(0, 2, 2, DEFAULT).unwrap();
        let (mut src, mut dst): (SymSlice<i64>, SymSlice<i64>) = (s.alloc(1).unwrap(), s.alloc(1).unwrap());
        for round in 0..20i64 {
            // PEs 0 and 1; PE 0 is the root and returns at once.
            let pair = world.split_strided(0, 1, 2, DEFAULT).unwrap();
            if let Some(pair) = &pair {
                if me == 0 {
                    src.write(0, 1_000 + round).unwrap();
                } else {
                    // Provoke the race: PE 1 reads late (a delay, not a synchronisation).
                    let until = std::time::Instant::now() + Duration::from_millis(5);
                    while std::time::Instant::now() < until {
                        std::hint::spin_loop();
                    }
                }
                pair.broadcast(&mut dst, &mut src, 1, 0).unwrap();
                assert_eq!(dst.read(0).unwrap(), 1_000 + round, "round {round}: the pair's broadcast");
            }
            drop(pair);
            // PE 0's next team, with PE 2 only, whose slot is the pair's if it is free; a run of
            // broadcasts that goes round PE 0's ring.
            if let Some(edges) = &edges {
                let next = edges.split_strided(0, 1, 2, DEFAULT).unwrap().unwrap();
                for k in 0..200 {
                    if me == 0 {
                        src.write(0, -k).unwrap();
                    }
                    next.broadcast(&mut dst, &mut src, 1, 0).unwrap();
                    assert_eq!(dst.read(0).unwrap(), -k, "round {round}: the next team's broadcast {k}");
                }
            }
        }
        s.barrier_all();
    });
}

/// A negative `num_contexts` is refused by every team creation, as the C API refuses it
/// (`invalid argument config: num_contexts -1 is negative`), on every PE: when all pass it,
/// each returns that error; when one PE alone does, it gets that error and the others that
/// another PE passed invalid arguments, as for the other argument errors of a split. The
/// parent stays usable. Before, the Rust API made the teams.
#[test]
fn negative_num_contexts_is_refused() {
    common::spmd("negative_num_contexts_is_refused", &[1, 2, 3], &[], |s| {
        let (me, n) = (s.my_pe(), s.n_pes() as i64);
        let world = s.team_world();
        let bad = TeamConfig { num_contexts: -1 };
        let refused = |r: ferroshmem::Result<()>, routine: &str| {
            let e = r.expect_err("a negative num_contexts must be refused");
            let want = format!("{routine}: invalid argument config: num_contexts -1 is negative");
            assert!(e.to_string().contains(&want), "{routine}: {e:?}");
        };
        refused(world.split_strided(0, 1, n, bad).map(drop), "Team::split_strided");
        refused(world.split_2d(1, bad, DEFAULT).map(drop), "Team::split_2d");
        refused(world.split_2d(1, DEFAULT, bad).map(drop), "Team::split_2d");
        refused(world.split_color(Some(0), 0, bad).map(drop), "Team::split_color");
        let mut uid: SymSlice<u64> = s.alloc(1).unwrap();
        if me == 0 {
            uid.write(0, s.team_uniqueid().unwrap()).unwrap();
        }
        world.broadcast_in_place(&mut uid, 1, 0).unwrap();
        refused(s.team_init(uid.read(0).unwrap(), n as usize, me, bad).map(drop), "Shmem::team_init");
        // One PE alone: every PE fails, and the creation still completes everywhere.
        let one = |pe: usize| if me == pe { bad } else { DEFAULT };
        let last = n as usize - 1;
        let lone = |r: ferroshmem::Result<()>, routine: &str| {
            let e = r.expect_err("a creation with one PE's negative num_contexts must fail everywhere");
            let want = if me == last {
                format!("{routine}: invalid argument config: num_contexts -1 is negative")
            } else {
                "another PE of the parent team passed invalid arguments".to_string()
            };
            assert!(e.to_string().contains(&want), "{routine}: {e:?}");
        };
        lone(world.split_strided(0, 1, n, one(last)).map(drop), "Team::split_strided");
        lone(world.split_color(Some(0), 0, one(last)).map(drop), "Team::split_color");
        lone(world.split_2d(1, DEFAULT, one(last)).map(drop), "Team::split_2d");
        // The world is still in step, and good configurations still work.
        world.sync().unwrap();
        let t = world.split_strided(0, 1, n, TeamConfig { num_contexts: 0 }).unwrap().unwrap();
        assert_eq!(t.config().num_contexts, 0);
        t.destroy().unwrap();
        s.barrier_all();
    });
}
