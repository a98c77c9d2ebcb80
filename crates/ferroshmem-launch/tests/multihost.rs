//! Jobs across hosts, simulated on this machine: `tests/multihost/with-hosts.sh` makes each
//! host a network namespace with its own address and hostname, and this test runs C programs
//! with `oshrun --host ...`, which hands them to Open MPI's `mpirun` (PMIx bootstrap, UCX
//! between hosts forced onto TCP, shared memory within a host).
//!
//! For each layout (2 hosts x 2 PEs; 3 hosts with 2, 2 and 1 PEs; 3 hosts x 4 PEs; 4 hosts
//! with 2, 1, 2 and 1 PEs; the last again with the trees of many hosts, [`TREES_LAYOUTS`],
//! with the team and collective cases; and, unless `FSH_MULTIHOST_SCALE=0` (`only`: them
//! alone), the layouts of many hosts of [`scale_layouts`], 64 x 1, 32 x 2 and 48 ragged hosts,
//! with the cases marked `at_scale`)
//! the test re-executes itself
//! inside `with-hosts.sh` (`FSH_INNER` set), where it runs every program with a timeout:
//! the one-sided, memory, lifecycle and launcher C tests, the team and collective C tests, the
//! specification's Example 12 (12 PEs, its lines compared as a set), and SPMD tests of the
//! Rust API (teams, collectives, threads).
//! Then, on the layouts of the one-sided cases, the tests that signal oshrun (hang reports of
//! every PE across hosts on SIGUSR1 and SIGINT).
//! Last, nothing of its runs may be left (`check-clean.sh RUNID...`, the runs this test made:
//! simulated hosts of other runs, going on or killed before, are not its business).
//! Needs root, `ip` and `mpirun`; without them it says so and, under CI, fails.
//! Prints `multihost: N passed, M failed`. `FSH_MULTIHOST_ONLY=TEXT` runs only the cases whose
//! name contains TEXT (while working on them).

mod common;
#[path = "multihost/plain_mpirun.rs"]
mod plain_mpirun;
#[path = "multihost/signals.rs"]
mod signals;

use signals::{Hosts, SIGNAL_TESTS};

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Layouts: hosts and PEs per host, as `with-hosts.sh` takes them (ragged hosts included).
/// Four hosts: the first layout where the leaders' trees (small broadcasts) have a level
/// below the root's children.
const LAYOUTS: &[&str] = &["2:2,2", "3:2,2,1", "3:4,4,4", "4:2,1,2,1"];
/// The layouts of the progress and fault tests.
const ONE_SIDED_LAYOUTS: &[&str] = &["2:2,2", "3:2,2,1"];

/// A layout whose name ends so runs the team and collective cases with the leaders' trees of
/// many hosts (`FSH_HIER_TREES_FROM=2`, `coll::hier::wide`) on its few hosts.
const TREES: &str = "+trees";
/// The layout of the trees: four hosts, so that a tree has a level below the root's children.
const TREES_LAYOUTS: &[&str] = &["4:2,1,2,1+trees"];

/// Example 12's output on any number of PEs: the dimensions it chose, then each PE of the
/// grid once at `(x, y, z)`, where `mype = x + xdim * (y + ydim * z)`.
fn example_12_grid(out: &str) -> Result<(), String> {
    let dims = out
        .lines()
        .find_map(|l| {
            let v: Vec<usize> =
                l.strip_prefix("xdim = ")?.split([',', '=']).filter_map(|w| w.trim().parse().ok()).collect();
            (v.len() == 3).then(|| (v[0], v[1], v[2]))
        })
        .ok_or("no line \"xdim = X, ydim = Y, zdim = Z\"")?;
    let (xdim, ydim, zdim) = dims;
    let mut seen = vec![false; xdim * ydim * zdim];
    for l in out.lines().filter(|l| l.starts_with('(') && l.contains(" is mype = ")) {
        let nums: Vec<usize> =
            l.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
        let [x, y, z, pe] = nums[..] else { return Err(format!("a line not of the grid: {l:?}")) };
        if x >= xdim
            || y >= ydim
            || z >= zdim
            || pe != x + xdim * (y + ydim * z)
            || std::mem::replace(&mut seen[pe], true)
        {
            return Err(format!("wrong or repeated: {l:?} for dimensions {dims:?}"));
        }
    }
    match seen.iter().position(|&s| !s) {
        Some(pe) => Err(format!("PE {pe} of the {dims:?} grid is missing")),
        None => Ok(()),
    }
}

/// Whether `case` exercises teams or collectives (what the trees layouts run).
fn is_collective_case(case: &Case) -> bool {
    ["team", "coll", "bcast", "alltoall", "scale"].iter().any(|w| case.name().contains(w))
}

/// Layouts of many hosts (issue 28): 64 hosts x 1 PE, 32 hosts x 2 PEs, and 48 ragged hosts of
/// 1-3 PEs (1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 3, 1 over and over: 64 PEs, the most some tests take).
/// Only the cases marked `at_scale` run on them: every one of these jobs starts a daemon on
/// each host, and the 2 cores run them all (at 64 x 1: coll_team.c about 85 s, team_strided.c
/// about 25 s, team_split_2d.c about 20 s).
fn scale_layouts() -> Vec<String> {
    let layout = |counts: Vec<usize>| {
        let list: Vec<String> = counts.iter().map(usize::to_string).collect();
        format!("{}:{}", counts.len(), list.join(","))
    };
    vec![
        layout(vec![1; 64]),
        layout(vec![2; 32]),
        layout([1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 3, 1].iter().copied().cycle().take(48).collect()),
    ]
}

/// The longest a job may take on the layouts of few hosts.
const JOB_LIMIT: Duration = Duration::from_secs(300);
/// ... and on those of many: coll_team.c took 151 s at 64 x 1, 213 s at 32 x 2 and 237 s on
/// the 48 ragged hosts in one test run of the ninth session, when its first all-pairs
/// alltoall made thousands of connections at once (120-162 s since they are made in batches:
/// docs/ARCHITECTURE.md, "PEs silent for seconds on 48 simulated hosts").
const SCALE_JOB_LIMIT: Duration = Duration::from_secs(600);

/// The peer watch's limit on the layouts of many hosts (the default is 20 s): on the 48 ragged
/// hosts and 32 x 2 team_split_color.c left PEs silent past the default's 10 s in 4 of 5 runs
/// (debug, eleventh session, with split_color's hierarchical exchange; 2 of 3 with its gets
/// before); the cause is not known (docs/ARCHITECTURE.md, "PEs silent for seconds on 48
/// simulated hosts").
const SCALE_PEER_TIMEOUT: (&str, &str) = ("SHMEMX_PEER_TIMEOUT_MS", "60000");

/// Whether `layout` is one of [`scale_layouts`].
fn is_scale_layout(layout: &str) -> bool {
    scale_layouts().iter().any(|l| l == layout)
}

/// What runs: a C program (built with oshcc), or one SPMD test of a Rust test binary
/// (`common::spmd`: the binary re-executed as the PEs, the test's body between init and
/// finalize).
#[derive(Clone, Copy)]
enum Program {
    C(&'static str),
    Rust { binary: &'static str, test: &'static str },
}

/// One program of the suite: what it must end with.
struct Case {
    program: Program,
    expect_exit: i32,
    /// A substring of the combined output.
    expect_output: Option<&'static str>,
    /// A file whose lines stdout must hold, in any order (lines of different hosts interleave).
    stdout_as_set: Option<&'static str>,
    /// Upper bound of the whole job (fault cases must end promptly).
    max_ms: Option<u128>,
    /// Extra environment of the PEs.
    env: &'static [(&'static str, &'static str)],
    /// Run on these layouts only (of the few hosts; see `at_scale` for the many).
    only_on: Option<&'static [&'static str]>,
    /// Arguments of a C program.
    args: &'static [&'static str],
    /// A check of the combined output beyond `expect_output`.
    check: Option<Check>,
    /// Also run on the layouts of many hosts ([`scale_layouts`]).
    at_scale: bool,
}

/// A check of a job's combined output: why it fails, if it does.
type Check = fn(&str) -> Result<(), String>;

const fn case(source: &'static str) -> Case {
    Case {
        program: Program::C(source),
        expect_exit: 0,
        expect_output: None,
        stdout_as_set: None,
        max_ms: None,
        env: &[],
        only_on: None,
        args: &[],
        check: None,
        at_scale: false,
    }
}

const fn rust(binary: &'static str, test: &'static str) -> Case {
    Case { program: Program::Rust { binary, test }, ..case("") }
}

const CASES: &[Case] = &[
    // One-sided, memory, lifecycle, launcher.
    case("tests/c/rma.c"),
    case("tests/c/amo.c"),
    case("tests/c/p2p.c"),
    case("tests/c/p2p_any_fair.c"),
    case("tests/c/lifecycle.c"),
    case("tests/c/memory.c"),
    case("tests/c/align.c"),
    case("tests/launch/no_finalize.c"),
    Case { expect_output: Some("hosts: "), at_scale: true, ..case("tests/multihost/c/hosts.c") },
    // The first collectives of a job of many hosts, each checked (on every layout).
    Case { expect_output: Some("scale: ok at "), at_scale: true, ..case("tests/multihost/c/scale.c") },
    // Progress and faults on the layouts of the one-sided acceptance (12 PEs and their 12
    // progress threads on this machine's 2 cores measure its scheduler, not the library).
    Case {
        expect_output: Some("progress: 1000 gets"),
        only_on: Some(ONE_SIDED_LAYOUTS),
        ..case("tests/multihost/c/progress.c")
    },
    Case {
        expect_exit: 3,
        max_ms: Some(10_000),
        only_on: Some(ONE_SIDED_LAYOUTS),
        ..case("tests/launch/global_exit.c")
    },
    Case {
        expect_exit: 7,
        max_ms: Some(10_000),
        only_on: Some(ONE_SIDED_LAYOUTS),
        ..case("tests/launch/exit_status.c")
    },
    Case {
        expect_exit: 137,
        expect_output: Some("exited on signal 9"),
        max_ms: Some(10_000),
        only_on: Some(ONE_SIDED_LAYOUTS),
        ..case("tests/multihost/c/fault_kill.c")
    },
    // Teams and collectives.
    Case { at_scale: true, ..case("tests/c/team_strided.c") },
    Case { at_scale: true, ..case("tests/c/team_split_2d.c") },
    case("tests/c/team_nb.c"),
    case("tests/c/team_queries.c"),
    case("tests/c/team_ctx.c"),
    Case {
        expect_output: Some("a predefined team cannot be destroyed"),
        ..case("tests/c/team_destroy_predefined.c")
    },
    case("tests/c/team_capacity.c"),
    // Deferred destroys (teams across hosts): slots reused late, never early, never lost.
    Case { env: &[("SHMEMX_TEAM_SLOTS", "40")], ..case("tests/c/team_destroy_deferred.c") },
    case("tests/c/team_init.c"),
    Case { at_scale: true, ..case("tests/c/team_split_color.c") },
    // The settings that choose an algorithm, and checked mode, are PE 0's: only PE 0 keeps
    // FSH_HIER_TREES_FROM and SHMEMX_CHECK_COLLECTIVES.
    Case {
        env: &[("FSH_HIER_TREES_FROM", "2"), ("SHMEMX_CHECK_COLLECTIVES", "1")],
        expect_output: Some("settings: ok at "),
        only_on: Some(&["4:2,1,2,1"]),
        ..case("tests/multihost/c/settings_agree.c")
    },
    Case {
        env: &[("SHMEMX_CHECK_COLLECTIVES", "1")],
        expect_output: Some("shmem_team_split_strided on SHMEM_TEAM_WORLD: PE 0"),
        ..case("tests/c/team_checked.c")
    },
    Case { at_scale: true, ..case("tests/c/coll_team.c") },
    case("tests/c/bcast_back_to_back.c"),
    case("tests/c/alltoall_back_to_back.c"),
    // Hang reports across hosts: one PE computes for 3 s while the others wait in a barrier;
    // PE 0 alone reports, naming what the PEs of every host do. The slow PE on PE 0's host,
    // then on another one.
    Case {
        env: &[("SHMEMX_HANG_REPORT", "0.5")],
        check: Some(|out| slow_pe_reported(out, 1)),
        only_on: Some(ONE_SIDED_LAYOUTS),
        ..case("tests/c/hang_slow.c")
    },
    Case {
        env: &[("SHMEMX_HANG_REPORT", "0.5")],
        args: &["3"],
        check: Some(|out| slow_pe_reported(out, 3)),
        only_on: Some(ONE_SIDED_LAYOUTS),
        ..case("tests/c/hang_slow.c")
    },
    Case { only_on: Some(ONE_SIDED_LAYOUTS), ..case("tests/c/coll_active.c") },
    // 2 MiB long double reductions: about 190 rounds between leaders each at 3 hosts, over
    // 300 s on this 2-core machine: on 2 hosts only for now.
    Case { only_on: Some(&["2:2,2"]), ..case("tests/c/coll_longdouble.c") },
    Case { only_on: Some(ONE_SIDED_LAYOUTS), ..case("tests/c/zero_length.c") },
    Case {
        stdout_as_set: Some("examples/c/team_split_2d_3d.12.out"),
        only_on: Some(&["3:4,4,4"]),
        ..case("examples/c/team_split_2d_3d.c")
    },
    // Example 12 on the layouts of many hosts (its output there is not the specification's,
    // which is for 12 PEs: checked by its arithmetic).
    Case {
        only_on: Some(&[]),
        at_scale: true,
        check: Some(example_12_grid),
        ..case("examples/c/team_split_2d_3d.c")
    },
    // The safe Rust API.
    rust("rust_teams", "strided_splits_number_and_translate"),
    rust("rust_teams", "invalid_triplets_fail_on_every_pe"),
    rust("rust_teams", "split_2d_rows_and_columns"),
    rust("rust_teams", "nonblocking_creation_overlaps_other_collectives"),
    rust("rust_teams", "arbitrary_teams_by_unique_id_two_in_flight"),
    rust("rust_teams", "split_color_against_a_model"),
    rust("rust_teams", "threads_run_collectives_on_different_teams_at_once"),
    Case {
        only_on: Some(ONE_SIDED_LAYOUTS),
        ..rust("rust_teams", "thousands_of_teams_and_cycles_leak_nothing")
    },
    rust("rust_coll", "every_collective_on_world_evens_reversed"),
    rust("rust_coll", "concurrent_collectives_on_rows_and_columns_from_two_threads"),
    rust("rust_coll", "eager_collectives_back_to_back"),
    Case { only_on: Some(ONE_SIDED_LAYOUTS), ..rust("rust_coll", "pushed_alltoalls_back_to_back") },
    rust("rust_coll", "strided_alltoalls_of_large_elements"),
];

impl Case {
    fn name(&self) -> String {
        match self.program {
            Program::C(source) if self.args.is_empty() => source.to_string(),
            Program::C(source) => format!("{source} {}", self.args.join(" ")),
            Program::Rust { binary, test } => format!("{binary}::{test}"),
        }
    }
}

/// The newest build of the integration-test binary `name` (cargo names it `name-HASH`).
fn rust_test_binary(name: &str) -> Option<PathBuf> {
    let deps = common::repo_root().join("target/debug/deps");
    std::fs::read_dir(deps)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|f| f.to_str()).is_some_and(|f| {
                f.strip_prefix(name).and_then(|r| r.strip_prefix('-')).is_some_and(|h| !h.contains('.'))
            })
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
}

/// Inside `with-hosts.sh`: runs every case on the simulated hosts.
fn inner(layout: &str, cases: &[(Option<PathBuf>, &Case)]) -> (usize, usize) {
    let hostlist = std::env::var("FSH_HOSTLIST").expect("with-hosts.sh exports FSH_HOSTLIST");
    // with-hosts.sh's mpirun options, less its --host (oshrun passes ours).
    let words: Vec<String> = std::env::var("FSH_MPIRUN_ARGS")
        .expect("with-hosts.sh exports FSH_MPIRUN_ARGS")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "--host" {
            i += 2;
            continue;
        }
        kept.push(words[i].clone());
        i += 1;
    }
    let mpirun_args = kept.join(" ");
    let npes: usize =
        hostlist.split(',').map(|h| h.rsplit(':').next().unwrap().parse::<usize>().unwrap()).sum();
    let (mut passed, mut failed) = (0, 0);
    let only = std::env::var("FSH_MULTIHOST_ONLY").unwrap_or_default();
    for (exe, case) in cases {
        // The layouts of many hosts run the cases marked for them, whatever `only_on` says.
        let runs_here = if is_scale_layout(layout) {
            case.at_scale
        } else {
            case.only_on.is_none_or(|l| l.contains(&layout))
        };
        if !runs_here
            || !case.name().contains(&only)
            || (layout.ends_with(TREES) && !is_collective_case(case))
        {
            continue;
        }
        let name = format!("{} on {layout}", case.name());
        let Some(exe) = exe else {
            failed += 1;
            println!("FAIL {name}: its binary is not built (cargo test --no-run first)");
            continue;
        };
        let mut cmd = oshrun_across(&hostlist, npes, &mpirun_args, exe);
        cmd.args(case.args);
        if is_scale_layout(layout) {
            // Every PE of these layouts shares this machine's 2 cores with the hosts' daemons:
            // see SCALE_PEER_TIMEOUT (docs/ARCHITECTURE.md, "PEs silent for seconds on 48
            // simulated hosts").
            cmd.env(SCALE_PEER_TIMEOUT.0, SCALE_PEER_TIMEOUT.1);
        }
        if let Program::Rust { test, .. } = case.program {
            cmd.args([test, "--exact", "--nocapture", "--test-threads=1"]).env(common::SPMD_CHILD, test).env(
                "OSHRUN_MPIRUN_ARGS",
                format!("{mpirun_args} -x FSH_HOSTLIST -x {}", common::SPMD_CHILD),
            );
        }
        for (k, v) in case.env {
            cmd.env(k, v);
        }
        let deadline = if is_scale_layout(layout) { SCALE_JOB_LIMIT } else { JOB_LIMIT };
        let (code, out, elapsed, timed_out) =
            common::run_with_deadline(cmd, deadline, Duration::from_secs(2));
        let ended_ms =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis();
        // A fault case prints "fault: PE p on HOST raises SIGKILL at T ms": the job must end
        // within 2 s of T, and the launcher's report must name the PE, its host and the signal.
        let fault = out.lines().find_map(|l| {
            let rest = l.strip_prefix("fault: PE ")?;
            let (pe, rest) = rest.split_once(" on ")?;
            let (host, rest) = rest.split_once(" raises SIGKILL at ")?;
            Some((pe.to_owned(), host.to_owned(), rest.trim_end_matches(" ms").parse::<u128>().ok()?))
        });
        let fault_verdict = match &fault {
            None if case.name().contains("fault_") => Some("no fault line printed".to_string()),
            None => None,
            Some((pe, host, at)) => {
                let report = out.lines().any(|l| {
                    l.contains(&format!("rank {pe} ")) && l.contains(host.as_str()) && l.contains("signal 9")
                });
                if ended_ms.saturating_sub(*at) > 2000 + 50 {
                    Some(format!("the job ended {} ms after the kill", ended_ms - at))
                } else if !report {
                    Some(format!("no line names PE {pe}, host {host} and signal 9"))
                } else {
                    println!(
                        "     PE {pe} on {host} killed: the job ended {} ms later",
                        ended_ms.saturating_sub(*at)
                    );
                    None
                }
            }
        };
        let set_verdict = case.stdout_as_set.and_then(|f| {
            let want = std::fs::read_to_string(common::repo_root().join(f)).unwrap();
            let mut want: Vec<&str> = want.lines().collect();
            let mut got: Vec<&str> = out.lines().filter(|l| want.contains(l)).collect();
            want.sort_unstable();
            got.sort_unstable();
            (got != want).then(|| format!("stdout does not hold the lines of {f}"))
        });
        let check_verdict = case.check.and_then(|check| check(&out).err());
        let verdict = if let Some(why) = fault_verdict.or(set_verdict).or(check_verdict) {
            Err(why)
        } else if timed_out {
            Err(format!("timed out after {} s", deadline.as_secs()))
        } else if code != Some(case.expect_exit) {
            Err(format!("exit {code:?}, expected {}", case.expect_exit))
        } else if case.expect_output.is_some_and(|s| !out.contains(s)) {
            Err(format!("output lacks {:?}", case.expect_output.unwrap()))
        } else if case.max_ms.is_some_and(|m| elapsed.as_millis() > m) {
            Err(format!("took {} ms, more than {} ms", elapsed.as_millis(), case.max_ms.unwrap()))
        } else {
            Ok(())
        };
        match verdict {
            Ok(()) => {
                passed += 1;
                println!("ok   {name} ({} ms)", elapsed.as_millis());
                for line in out.lines().filter(|l| l.starts_with("progress:") || l.starts_with("hosts:")) {
                    println!("     {line}");
                }
            }
            Err(why) => {
                failed += 1;
                println!("FAIL {name}: {why}\n{out}");
            }
        }
    }
    if ONE_SIDED_LAYOUTS.contains(&layout) {
        let ctx = Hosts { hostlist: hostlist.clone(), mpirun_args, npes };
        for (name, test) in SIGNAL_TESTS.iter().filter(|(name, _)| name.contains(&only)) {
            let start = Instant::now();
            match test(&ctx) {
                Ok(()) => {
                    passed += 1;
                    println!("ok   {name} on {layout} ({} ms)", start.elapsed().as_millis());
                }
                Err(why) => {
                    failed += 1;
                    println!("FAIL {name} on {layout}: {why}");
                }
            }
        }
    }
    (passed, failed)
}

/// `oshrun -n npes --host hostlist exe` on the simulated hosts (UCX on their network).
fn oshrun_across(hostlist: &str, npes: usize, mpirun_args: &str, exe: &std::path::Path) -> Command {
    let mut cmd = Command::new(common::oshrun());
    cmd.args(["-n", &npes.to_string(), "--host", hostlist])
        .arg(exe)
        .env("OSHRUN_MPIRUN_ARGS", format!("{mpirun_args} -x FSH_HOSTLIST"))
        .env("UCX_TLS", "tcp,self")
        .env("UCX_NET_DEVICES", "eth0")
        .env("UCX_WARN_UNUSED_ENV_VARS", "n");
    cmd
}

// ------------------------------------------------------------------------------------------
// Hang reports across hosts
// ------------------------------------------------------------------------------------------

/// `tests/c/hang_slow.c` with `slow` computing: one report in the whole job, by PE 0, which
/// names the slow PE's state (from whatever host) and the waiting PEs of every host, and no
/// host left out.
fn slow_pe_reported(out: &str, slow: usize) -> Result<(), String> {
    let reports = common::report_blocks(out, common::PE_REPORT);
    let [r] = reports.as_slice() else {
        return Err(format!("{} hang reports, expected one", reports.len()));
    };
    let npes: usize = std::env::var("FSH_HOSTLIST")
        .map_err(|e| e.to_string())?
        .split(',')
        .map(|h| h.rsplit(':').next().unwrap().parse::<usize>().unwrap())
        .sum();
    let waiting: Vec<String> = (0..npes).filter(|&pe| pe != slow).map(|pe| pe.to_string()).collect();
    let wants = [
        "ferroshmem: hang report: PE 0 has waited ".to_string(),
        " s in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2 (SHMEMX_HANG_REPORT=0.5;".to_string(),
        format!("  team SHMEM_TEAM_WORLD: {npes} PEs (PE 0..{})\n", npes - 1),
        format!("  not arrived: PE {slow}: computing outside the library for "),
    ];
    if let Some(w) = wants.iter().find(|w| !r.contains(w.as_str())) {
        return Err(format!("the report lacks {w:?}:\n{r}"));
    }
    // Every other PE, of every host, is named as waiting in the call.
    let line = r.lines().find(|l| l.starts_with("  waiting in this call: PE ")).unwrap_or("");
    let named = expand_ranges(line.trim_start_matches("  waiting in this call: PE "));
    if named != waiting.iter().map(|p| p.parse::<usize>().unwrap()).collect::<Vec<_>>() {
        return Err(format!("waiting in this call should be PE {}:\n{r}", waiting.join(", ")));
    }
    let secs: f64 = r
        .lines()
        .find_map(|l| {
            l.strip_prefix(&format!("  not arrived: PE {slow}: computing outside the library for "))
        })
        .and_then(|rest| rest.strip_suffix(" s"))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no duration for PE {slow}:\n{r}"))?;
    // It left the library (shmem_init) about when PE 0 began to wait (the coarse clock: 50 ms).
    if !(0.4..30.0).contains(&secs) {
        return Err(format!("PE {slow} computing for {secs} s:\n{r}"));
    }
    if r.contains("did not answer") || r.contains("other hosts") {
        return Err(format!("a host is missing from the report:\n{r}"));
    }
    Ok(())
}

/// "0..2, 4" -> [0, 1, 2, 4].
fn expand_ranges(text: &str) -> Vec<usize> {
    let mut v = Vec::new();
    for part in text.split(", ") {
        match part.split_once("..") {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    v.extend(a..=b);
                }
            }
            None => v.extend(part.parse::<usize>()),
        }
    }
    v
}

fn main() {
    let root = common::repo_root();
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    let missing: Vec<&str> =
        [("root", common::is_root()), ("ip", common::have("ip")), ("mpirun", common::have("mpirun"))]
            .into_iter()
            .filter(|(_, ok)| !ok)
            .map(|(what, _)| what)
            .collect();
    if !missing.is_empty() {
        println!("multihost: cannot simulate hosts here (missing: {})", missing.join(", "));
        println!("multihost: 0 passed, {} failed", usize::from(ci));
        if ci {
            std::process::exit(1);
        }
        return;
    }
    let mut cases: Vec<(Option<PathBuf>, &Case)> = Vec::new();
    for c in CASES {
        let exe = match c.program {
            Program::C(source) => Some(common::compile_c(&root.join(source))),
            Program::Rust { binary, .. } => rust_test_binary(binary),
        };
        cases.push((exe, c));
    }
    if let Ok(layout) = std::env::var("FSH_INNER") {
        println!("multihost[{layout}]: run {}", std::env::var("FSH_RUNID").unwrap_or_default());
        let (p, f) = inner(&layout, &cases);
        println!("multihost[{layout}]: {p} passed, {f} failed");
        std::process::exit(i32::from(f > 0));
    }
    let shm_before = common::dev_shm();
    let script = root.join("tests/multihost/with-hosts.sh");
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut runs: Vec<String> = Vec::new();
    // FSH_MULTIHOST_SCALE: 0 leaves the layouts of many hosts out, "only" runs only them.
    let scale = scale_layouts();
    let which = std::env::var("FSH_MULTIHOST_SCALE").unwrap_or_default();
    let mut layouts: Vec<&str> =
        if which == "only" { Vec::new() } else { LAYOUTS.iter().chain(TREES_LAYOUTS).copied().collect() };
    if which != "0" {
        layouts.extend(scale.iter().map(String::as_str));
    }
    for layout in layouts {
        let mut cmd = Command::new("bash");
        let hosts = layout.strip_suffix(TREES).unwrap_or(layout);
        cmd.arg(&script).arg(hosts).arg("--").arg(std::env::current_exe().unwrap()).env("FSH_INNER", layout);
        if hosts != layout {
            cmd.env("FSH_HIER_TREES_FROM", "2");
        }
        // Every job of a layout within its limit; those of many hosts have longer ones.
        let deadline =
            if is_scale_layout(hosts) { Duration::from_secs(1500) } else { Duration::from_secs(900) };
        let (code, out, elapsed, timed_out) =
            common::run_with_deadline(cmd, deadline, Duration::from_secs(2));
        print!("{out}");
        let tag = format!("multihost[{layout}]: ");
        runs.extend(out.lines().find_map(|l| l.strip_prefix(&format!("{tag}run ")).map(str::to_owned)));
        let summary = out.lines().rev().find_map(|l| l.strip_prefix(&tag).map(str::to_owned));
        match summary.as_deref().and_then(common::parse_counts) {
            Some((p, f)) => {
                passed += p;
                failed += f;
            }
            None => {
                failed += 1;
                println!(
                    "FAIL layout {layout}: with-hosts.sh ended with {code:?} after {} s{}",
                    elapsed.as_secs(),
                    if timed_out { " (timed out)" } else { "" }
                );
            }
        }
    }
    // Nothing of ours may be left: no file in /dev/shm (the job files are memfds), and of each
    // run no namespace, link, /etc/hosts line, temp dir or process. Other runs going on at the
    // same time (or killed before this one began) are not ours to judge.
    for why in common::left_behind(&shm_before, &runs) {
        failed += 1;
        println!("{why}");
    }
    println!("multihost: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
