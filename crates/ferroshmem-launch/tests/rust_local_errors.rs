//! Local argument errors in the safe API's collectives (issue 13 item 7): a PE whose own
//! arguments fail the checks (here a slice too short for the count) while the others' pass.
//! In checked mode it still joins the call's checked agreement and every PE returns the same
//! error naming it; by default it returns at once and the others wait for it, as documented
//! on `Team` and in docs/ARCHITECTURE.md.

mod common;

use std::time::Duration;

use ferroshmem::coll::Sum;
use ferroshmem::{Error, Shmem, SymSlice};

const CHECKED: &[(&str, &str)] = &[("SHMEMX_CHECK_COLLECTIVES", "1")];

/// Asserts that every PE passed the same `text` (PE 0 compares them all).
fn same_on_every_pe(s: &Shmem, text: &str) {
    if s.my_pe() == 0 {
        println!("every PE: {text}");
    }
    const W: usize = 512;
    let all: SymSlice<u8> = s.alloc(W * s.n_pes()).unwrap();
    let mut mine = text.as_bytes().to_vec();
    mine.resize(W, 0);
    all.put(0, W * s.my_pe(), &mine).unwrap();
    s.barrier_all();
    if s.my_pe() == 0 {
        for (pe, theirs) in all.to_vec().chunks(W).enumerate() {
            assert_eq!(
                String::from_utf8_lossy(theirs),
                String::from_utf8_lossy(&mine),
                "PE {pe} got another error than PE 0"
            );
        }
    }
    all.free().unwrap();
}

/// The error every PE must get: `routine`'s `argument`, with `reason` in its text; returns
/// the text.
fn expect(r: Result<impl std::fmt::Debug, Error>, routine: &str, argument: &str, reason: &str) -> String {
    match r {
        Err(e @ Error::InvalidArgument { .. }) => {
            let Error::InvalidArgument { routine: r, argument: a, .. } = &e else { unreachable!() };
            assert_eq!((*r, *a), (routine, argument), "{e}");
            let text = e.to_string();
            assert!(text.contains(reason), "expected {reason:?} in {text:?}");
            text
        }
        other => panic!("{routine}: expected an invalid {argument}, got {other:?}"),
    }
}

#[test]
fn a_short_slice_on_one_pe_fails_every_pe_alike_in_checked_mode() {
    common::spmd("a_short_slice_on_one_pe_fails_every_pe_alike_in_checked_mode", &[2, 3, 4], CHECKED, |s| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let last = n - 1;
        let world = s.team_world();
        let mut long: SymSlice<i64> = s.alloc(8 * n).unwrap();
        let mut other: SymSlice<i64> = s.alloc(8 * n).unwrap();
        let mut short: SymSlice<i64> = s.alloc(4).unwrap();
        let on_last = format!("(on team PE {last} of SHMEM_TEAM_WORLD)");
        // The last PE passes the short slice where the others pass `long`.
        macro_rules! mine {
            () => {
                if me == last {
                    &mut short
                } else {
                    &mut long
                }
            };
        }

        let e = expect(
            world.broadcast(mine!(), &mut other, 8, 0),
            "Team::broadcast",
            "dest",
            "8 elements needed",
        );
        assert!(e.contains("4 available") && e.contains(&on_last), "{e}");
        same_on_every_pe(s, &e);

        let e = expect(world.fcollect(mine!(), &mut other, 4), "Team::fcollect", "dest", &on_last);
        same_on_every_pe(s, &e);

        let e = expect(world.reduce(Sum, &mut other, mine!(), 8), "Team::reduce", "source", &on_last);
        same_on_every_pe(s, &e);

        let e = expect(world.alltoall(mine!(), &mut other, 4), "Team::alltoall", "dest", &on_last);
        same_on_every_pe(s, &e);

        // A count that overflows on one PE only.
        let count = if me == last { usize::MAX } else { 2 };
        let e = expect(
            world.alltoalls(&mut long, &mut other, 1, 1, count),
            "Team::alltoalls",
            "nelems",
            "overflow",
        );
        same_on_every_pe(s, &e);

        // Two PEs fail, differently: the first is named, the other mentioned.
        let r = match me {
            0 => world.broadcast(&mut short, &mut long, 8, 0),
            _ if me == last => world.broadcast(&mut long, &mut short, 8, 0),
            _ => world.broadcast(&mut long, &mut other, 8, 0),
        };
        let e = expect(r, "Team::broadcast", "dest", "(on team PE 0 of");
        assert!(e.contains(&format!("PE {last} failed too")), "{e}");
        same_on_every_pe(s, &e);

        // An allocation whose size overflows on one PE: nobody keeps a block.
        let len = if me == last { usize::MAX } else { 8 };
        let e = expect(s.alloc::<u64>(len), "Shmem::alloc", "len", &on_last);
        same_on_every_pe(s, &e);

        // The team is still in step: a good collective works.
        for i in 0..8 {
            long.write(i, if me == 0 { 10 + i as i64 } else { -1 }).unwrap();
        }
        world.broadcast_in_place(&mut long, 8, 0).unwrap();
        assert_eq!(long.to_vec()[..8], (10..18).collect::<Vec<i64>>());
        drop(world);
        for x in [long, other, short] {
            x.free().unwrap();
        }
    });
}

/// Without checked mode the PE with the short slice returns its error at once (the error of
/// its own checks, naming no PE); the others, whose checks passed, wait in the reduction for
/// it. It sees after a second that none of them got out, and ends the job with status 7.
#[test]
fn a_short_slice_on_one_pe_leaves_the_others_waiting_by_default() {
    let name = "a_short_slice_on_one_pe_leaves_the_others_waiting_by_default";
    let body = |s: &Shmem| {
        let (me, n) = (s.my_pe(), s.n_pes());
        let last = n - 1;
        let out: SymSlice<u64> = s.alloc(n).unwrap();
        let mut long: SymSlice<i64> = s.alloc(8).unwrap();
        let mut other: SymSlice<i64> = s.alloc(8).unwrap();
        let mut short: SymSlice<i64> = s.alloc(4).unwrap();
        let world = s.team_world();
        let r = world.reduce(Sum, if me == last { &mut short } else { &mut long }, &mut other, 8);
        if me == last {
            let e = expect(r, "Team::reduce", "dest", "8 elements needed (nreduce 8), 4 available");
            assert!(!e.contains("on team PE"), "{e}");
            println!("PE {me} returned at once: {e}");
            std::thread::sleep(Duration::from_secs(1));
            assert!(out.to_vec().iter().all(|&o| o == 0), "another PE got out of the reduction");
            println!("the other PEs still wait in Team::reduce");
            s.global_exit(7);
        }
        r.unwrap();
        out.p(last, me, 1).unwrap();
    };
    if common::run_if_pe(name, body) {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let args = [name, "--exact", "--nocapture", "--test-threads=1"];
    for n in [2, 3] {
        let r = common::run_job(n, &exe, &args, &[(common::SPMD_CHILD, name)], Duration::from_secs(60));
        assert!(!r.timed_out, "{name} at {n} PEs timed out\n{}{}", r.stdout, r.stderr);
        assert_eq!(r.status, Some(7), "{name} at {n} PEs\n{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains(&format!("PE {} returned at once", n - 1)), "{}", r.stdout);
        assert!(r.stdout.contains("the other PEs still wait"), "{}", r.stdout);
    }
}
