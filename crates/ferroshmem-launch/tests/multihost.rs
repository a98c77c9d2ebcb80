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
//! Needs root, `ip` and `mpirun`; without them it says so and, under CI, fails.
//! Prints `multihost: N passed, M failed`. `FSH_MULTIHOST_ONLY=TEXT` runs only the cases whose
//! name contains TEXT (while working on them).

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
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

/// Whether `case` exercises teams or collectives (what the trees layouts run).
fn is_collective_case(case: &Case) -> bool {
    ["team", "coll", "bcast", "alltoall", "scale"].iter().any(|w| case.name().contains(w))
}

/// Layouts of many hosts (issue 28): 64 hosts x 1 PE, 32 hosts x 2 PEs, and 48 ragged hosts of
/// 1-3 PEs (1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 3, 1 over and over: 64 PEs, the most some tests take).
/// Only the cases marked `at_scale` run on them: every one of these jobs starts a daemon on
/// each host, and the 2 cores run them all (at 64 x 1: coll_team.c about 85 s, team_strided.c
/// about 33 s, team_split_2d.c about 140 s, the last left out for that).
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
    /// Run on these layouts only.
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
    case("tests/c/team_split_2d.c"),
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
        if case.only_on.is_some_and(|l| !l.contains(&layout))
            || !case.name().contains(&only)
            || (is_scale_layout(layout) && !case.at_scale)
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
        if let Program::Rust { test, .. } = case.program {
            cmd.args([test, "--exact", "--nocapture", "--test-threads=1"]).env(common::SPMD_CHILD, test).env(
                "OSHRUN_MPIRUN_ARGS",
                format!("{mpirun_args} -x FSH_HOSTLIST -x {}", common::SPMD_CHILD),
            );
        }
        for (k, v) in case.env {
            cmd.env(k, v);
        }
        let (code, out, elapsed, timed_out) =
            common::run_with_deadline(cmd, Duration::from_secs(300), Duration::from_secs(2));
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
            Err("timed out after 300 s".to_string())
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

/// The simulated hosts of one layout, for the tests that signal oshrun.
struct Hosts {
    hostlist: String,
    mpirun_args: String,
    npes: usize,
}

/// How long a job of the signal tests may take in all.
const LIVE_LIMIT: Duration = Duration::from_secs(120);

/// A running job whose output is collected as it comes.
struct Live {
    child: std::process::Child,
    stdout: std::sync::Arc<std::sync::Mutex<String>>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    start: Instant,
}

impl Drop for Live {
    fn drop(&mut self) {
        // A test that failed half-way: end the job (oshrun ends mpirun, which ends the PEs).
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
            let deadline = Instant::now() + Duration::from_secs(15);
            while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Live {
    fn start(hosts: &Hosts, program: &str, args: &[&str]) -> Live {
        let exe = common::compile_c(&common::repo_root().join(program));
        let mut cmd = oshrun_across(&hosts.hostlist, hosts.npes, &hosts.mpirun_args, &exe);
        cmd.args(args);
        Live::spawn(cmd)
    }

    /// `program` run by oshrun at a terminal: `script` (util-linux) gives it a pseudo-terminal
    /// as its stdin, stdout and stderr, and copies what this test writes to the terminal (so
    /// "\x03" is a Ctrl-C, which the terminal sends to its foreground process group) and what
    /// the job writes to its stdout.
    fn at_terminal(hosts: &Hosts, program: &str, args: &[&str]) -> Live {
        let exe = common::compile_c(&common::repo_root().join(program));
        let mut job = oshrun_across(&hosts.hostlist, hosts.npes, &hosts.mpirun_args, &exe);
        job.args(args);
        let line: Vec<String> = std::iter::once(job.get_program())
            .chain(job.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let mut cmd = Command::new("script");
        cmd.args(["-q", "-f", "-e", "-c", &line.join(" "), "/dev/null"]);
        for (k, v) in job.get_envs() {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
        Live::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> Live {
        cmd.env("SHMEMX_HANG_REPORT", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start oshrun");
        let stdout = common::collect_pipe(child.stdout.take().unwrap());
        let stderr = common::collect_pipe(child.stderr.take().unwrap());
        Live { child, stdout, stderr, start: Instant::now() }
    }

    fn stdout(&self) -> String {
        self.stdout.lock().unwrap().clone()
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Polls the output until `done(stdout, stderr)`; an error past the job's limit.
    fn wait_for(&self, what: &str, done: impl Fn(&str, &str) -> bool) -> Result<(), String> {
        while !done(&self.stdout(), &self.stderr()) {
            if self.start.elapsed() > LIVE_LIMIT {
                return Err(format!(
                    "no {what} within {LIVE_LIMIT:?}\nstdout:\n{}\nstderr:\n{}",
                    self.stdout(),
                    self.stderr()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    /// Sends `signal` to oshrun (a name for kill(1)).
    fn signal(&self, signal: &str) -> Result<(), String> {
        let ok = Command::new("kill").args([&format!("-{signal}"), &self.child.id().to_string()]).status();
        ok.is_ok_and(|s| s.success()).then_some(()).ok_or_else(|| format!("kill -{signal} failed"))
    }

    /// Asks for reports (SIGUSR1) until one shows `ready(report)`; that report. Each request
    /// waits for its report (its last line) before the next.
    fn report_until(&self, asked: &mut usize, ready: impl Fn(&str) -> bool) -> Result<String, String> {
        loop {
            self.signal("USR1")?;
            *asked += 1;
            let n = *asked;
            self.wait_for("PE 0's report", |_, err| {
                common::report_blocks(err, common::OSHRUN_USR1)
                    .iter()
                    .filter(|r| r.contains(ferroshmem::launch::REPORT_END))
                    .count()
                    >= n
            })?;
            let last = common::report_blocks(&self.stderr(), common::OSHRUN_USR1).pop().unwrap_or_default();
            if ready(&last) {
                return Ok(last);
            }
        }
    }

    /// Waits for oshrun to end (within the job's limit): its exit code and output.
    fn finish(mut self) -> Result<(Option<i32>, String, String), String> {
        let (status, timed_out) = common::wait_within(&mut self.child, self.start, LIVE_LIMIT, |c| {
            let _ = Command::new("kill").args(["-TERM", &c.id().to_string()]).status();
        });
        if timed_out {
            return Err(format!(
                "oshrun did not end\nstdout:\n{}\nstderr:\n{}",
                self.stdout(),
                self.stderr()
            ));
        }
        // The collecting threads have the rest once the pipes close (every writer ended).
        let deadline = Instant::now() + Duration::from_secs(10);
        let closed = || {
            std::sync::Arc::strong_count(&self.stdout) == 1 && std::sync::Arc::strong_count(&self.stderr) == 1
        };
        while !closed() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok((status.code(), self.stdout(), self.stderr()))
    }
}

/// A PE's line in a report, as it reads when the PE waits in the world's barrier number 2.
fn in_barrier(report: &str, pe: usize) -> bool {
    let line = format!("  PE {pe}: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2");
    report.contains(&format!("{line}, waiting for ")) || report.contains(&format!("{line}\n"))
}

/// The lines of `err` that are neither in an oshrun report nor one of `allowed`. Open MPI's
/// launcher warns, now and then, that it could not move a daemon it started into
/// a process group of its own (`[host:pid] plm:rsh: Warning: setpgid(...) failed in parent`:
/// the daemon had already exec'd), which has nothing to do with the job's reports.
fn other_lines<'a>(err: &'a str, allowed: &[&str]) -> Vec<&'a str> {
    err.lines()
        .filter(|l| !l.starts_with("oshrun: hang report (") && !l.starts_with("  ") && !allowed.contains(l))
        .filter(|l| !(l.starts_with('[') && l.contains("] plm:rsh: Warning: setpgid(")))
        .collect()
}

/// The tests that signal oshrun, run on the layouts of the one-sided cases.
/// A test that runs its own jobs on the simulated hosts: why it fails, if it does.
type HostsTest = fn(&Hosts) -> Result<(), String>;

const SIGNAL_TESTS: &[(&str, HostsTest)] = &[
    ("hang report on SIGUSR1 to oshrun, a healthy job", sigusr1_on_a_healthy_job),
    ("hang report on SIGINT to oshrun, a hung job", sigint_reports_then_ends_the_job),
    ("hang report on SIGUSR1 to oshrun, a host stopped", a_stopped_host_is_named),
    ("hang report on Ctrl-C at a terminal, and typed input", at_a_terminal),
    ("a host whose network is cut ends the job", a_cut_host_ends_the_job),
];

/// The peer watch's limit in [`a_cut_host_ends_the_job`] (`SHMEMX_PEER_TIMEOUT_MS`).
const CUT_LIMIT: Duration = Duration::from_secs(4);

/// `tests/multihost/c/fault_cut.c` (barriers in a loop) with the last host's network cut
/// (`ip link set eth0 down` in its namespace) once the loop runs: the PEs of the other hosts
/// must find its PEs lost within the peer watch's limit (4 s here), report them with their
/// host, and the job must end non-zero within a few seconds more (oshrun kills mpirun, whose
/// abort waits for the lost host's daemon). The link comes up again once the job ended, and
/// nothing of the job may be left then.
fn a_cut_host_ends_the_job(hosts: &Hosts) -> Result<(), String> {
    let n = hosts.npes;
    let names = std::env::var("FSH_HOSTS").map_err(|e| e.to_string())?;
    let host = names.rsplit(',').next().unwrap_or_default().to_string();
    let per_host: usize = hosts.hostlist.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let first = n - per_host;
    let exe = common::compile_c(&common::repo_root().join("tests/multihost/c/fault_cut.c"));
    let mut cmd = oshrun_across(&hosts.hostlist, n, &hosts.mpirun_args, &exe);
    cmd.env("SHMEMX_PEER_TIMEOUT_MS", CUT_LIMIT.as_millis().to_string());
    let job = Live::spawn(cmd);
    job.wait_for("barrier loop", |out, _| out.contains("cut: looping"))?;
    let link = |state: &str| {
        let ok = Command::new("ip").args(["-n", &host, "link", "set", "eth0", state]).status();
        ok.is_ok_and(|s| s.success()).then_some(()).ok_or_else(|| format!("ip link set eth0 {state} failed"))
    };
    link("down")?;
    let cut = Instant::now();
    let ended = job.finish();
    let took = cut.elapsed();
    link("up")?;
    let (code, _, err) = ended?;
    let named = format!(": lost PE {first} (on {host})");
    if !err.lines().any(|l| l.starts_with("ferroshmem: PE ") && l.contains(&named)) {
        return Err(format!("no report line holds {named:?}:\n{err}"));
    }
    if code != Some(255) {
        return Err(format!("exit {code:?}, expected 255\n{err}"));
    }
    // The watch's limit, oshrun's wait for mpirun, and slack for a loaded machine.
    if took > CUT_LIMIT + Duration::from_secs(10) {
        return Err(format!("the job ended {} ms after the cut", took.as_millis()));
    }
    println!("     {host} cut: the job ended {} ms later", took.as_millis());
    no_process_left()
}

/// `tests/hang/healthy.c`: PE 0 reads a line while the others wait in a barrier. SIGUSR1 to
/// oshrun prints PE 0's report of every PE of every host; the job goes on and ends as it
/// would have, and stderr holds nothing but the reports.
fn sigusr1_on_a_healthy_job(hosts: &Hosts) -> Result<(), String> {
    let n = hosts.npes;
    let mut job = Live::start(hosts, "tests/hang/healthy.c", &[]);
    job.wait_for("every PE ready", |out, _| out.matches(" ready\n").count() == n)?;
    let mut asked = 0;
    let report = job.report_until(&mut asked, |r| (1..n).all(|pe| in_barrier(r, pe)))?;
    let n_hosts = hosts.hostlist.split(',').count();
    for want in [
        "  PE 0: computing outside the library for ".to_string(),
        format!(
            "  waits in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2 (team of {n} PEs: PE 0..{}):\n",
            n - 1
        ),
        "    not arrived: PE 0: computing outside the library for ".to_string(),
        format!("{}{n} PEs on {n_hosts} hosts\n", ferroshmem::launch::REPORT_END),
    ] {
        if !report.contains(&want) {
            return Err(format!("the report lacks {want:?}:\n{report}"));
        }
    }
    {
        use std::io::Write;
        let mut stdin = job.child.stdin.take().unwrap();
        stdin.write_all(b"go\n").map_err(|e| format!("writing to oshrun: {e}"))?;
    }
    let (code, out, err) = job.finish()?;
    if code != Some(0) {
        return Err(format!("exit {code:?}, expected 0\n{err}"));
    }
    let sum: usize = (0..n).sum();
    let mut want: Vec<String> = (0..n).map(|pe| format!("PE {pe} ready")).collect();
    want.extend((0..n).map(|pe| format!("PE {pe} done, sum {sum}")));
    want.sort_unstable();
    let mut got: Vec<&str> = out.lines().collect();
    got.sort_unstable();
    if got != want {
        return Err(format!("stdout:\n{out}"));
    }
    let others = other_lines(&err, &[]);
    if !others.is_empty()
        || common::report_blocks(&err, common::OSHRUN_USR1).len() != asked
        || err.contains(common::PE_REPORT)
    {
        return Err(format!("stderr should hold the {asked} reports only:\n{err}"));
    }
    Ok(())
}

/// `tests/hang/compute.c` with the last PE computing for ever, once every PE is ready and a
/// SIGUSR1 report shows every other PE waiting in the barrier; with the reports asked so far.
fn last_pe_computing(hosts: &Hosts) -> Result<(Live, usize), String> {
    let (n, last) = (hosts.npes, hosts.npes - 1);
    let job = Live::start(hosts, "tests/hang/compute.c", &[&last.to_string()]);
    job.wait_for("every PE ready", |out, _| out.matches(" ready\n").count() == n)?;
    let mut asked = 0;
    job.report_until(&mut asked, |r| (0..last).all(|pe| in_barrier(r, pe)))?;
    Ok((job, asked))
}

/// `tests/hang/compute.c` with the last PE (on the last host) computing for ever while the
/// others wait in a barrier. SIGINT to oshrun prints the report of every PE of every host,
/// then ends the job: exit 130, and no process of the job left in the hosts or outside them
/// (`check-clean.sh --processes`).
fn sigint_reports_then_ends_the_job(hosts: &Hosts) -> Result<(), String> {
    let last = hosts.npes - 1;
    // Once every other PE waits in the barrier, the SIGINT report has something fixed to say.
    let (job, _) = last_pe_computing(hosts)?;
    job.signal("INT")?;
    let sent = Instant::now();
    let (code, _, err) = job.finish()?;
    let took = sent.elapsed();
    if code != Some(130) {
        return Err(format!("exit {code:?}, expected 130\n{err}"));
    }
    let reports = common::report_blocks(&err, common::OSHRUN_INT);
    let [report] = reports.as_slice() else {
        return Err(format!("{} SIGINT reports, expected one:\n{err}", reports.len()));
    };
    // The PE before the last runs on another host than PE 0 in every layout here.
    for want in [
        format!("  PE {last}: computing outside the library for "),
        "  PE 0: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2, waiting for ".to_string(),
        format!("  PE {}: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2, waiting for ", last - 1),
        format!("    not arrived: PE {last}: computing outside the library for "),
        ferroshmem::launch::REPORT_END.to_string(),
    ] {
        if !report.contains(&want) {
            return Err(format!("the report lacks {want:?}:\n{report}"));
        }
    }
    let ended = "oshrun: received signal 2 (SIGINT); ending the job";
    let after = err.split(common::OSHRUN_INT).nth(1).unwrap_or("");
    if !after.contains(ended) {
        return Err(format!("no {ended:?} after the report:\n{err}"));
    }
    let others = other_lines(&err, &[ended]);
    if !others.is_empty() {
        return Err(format!("stderr has more than the reports: {others:?}\n{err}"));
    }
    if took > Duration::from_secs(20) {
        return Err(format!("the job took {} ms to end after SIGINT", took.as_millis()));
    }
    // Nothing of the job left: the PEs and daemons in the hosts, mpirun outside them.
    no_process_left()
}

/// `tests/hang/compute.c` as above, with every PE of the last host stopped (SIGSTOP): the
/// report comes anyway, within the bounded wait for that host, and names it as not answering;
/// once they go on (SIGCONT) the next report sees them again, and SIGINT ends the job.
fn a_stopped_host_is_named(hosts: &Hosts) -> Result<(), String> {
    let (n, last) = (hosts.npes, hosts.npes - 1);
    let (job, mut asked) = last_pe_computing(hosts)?;
    // The last host: its name and its PEs (hosts are filled in order), their processes.
    let names = std::env::var("FSH_HOSTS").map_err(|e| e.to_string())?;
    let host = names.rsplit(',').next().unwrap_or_default().to_string();
    let per_host: usize = hosts.hostlist.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let first = n - per_host;
    let exe = common::compile_c(&common::repo_root().join("tests/hang/compute.c"));
    let pids = Command::new("ip").args(["netns", "pids", &host]).output().map_err(|e| e.to_string())?;
    let pids: Vec<String> = String::from_utf8_lossy(&pids.stdout)
        .split_whitespace()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.starts_with(exe.as_os_str().as_encoded_bytes()))
        })
        .map(str::to_owned)
        .collect();
    if pids.len() != per_host {
        return Err(format!("found {} PE processes on {host}, expected {per_host}", pids.len()));
    }
    let kill = |sig: &str| Command::new("kill").arg(format!("-{sig}")).args(&pids).status();
    kill("STOP").map_err(|e| e.to_string())?;
    let asked_at = Instant::now();
    let report = job.report_until(&mut asked, |_| true);
    let took = asked_at.elapsed();
    kill("CONT").map_err(|e| e.to_string())?;
    let report = report?;
    let silent = if per_host == 1 { format!("PE {first}") } else { format!("PE {first}..{last}") };
    for want in [
        format!("  PE {last}: did not answer within 2 s (host {host})\n"),
        "  PE 0: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2, waiting for ".to_string(),
        format!("    did not answer within 2 s: {silent} (host {host})\n"),
        format!("  host {host} did not answer within 2 s ({silent})\n"),
    ] {
        if !report.contains(&want) {
            return Err(format!("the report lacks {want:?}:\n{report}"));
        }
    }
    if took > Duration::from_secs(10) {
        return Err(format!("the report took {} ms", took.as_millis()));
    }
    // Going on, the host answers again.
    let again = job.report_until(&mut asked, |_| true)?;
    if !again.contains(&format!("  PE {last}: computing outside the library")) {
        return Err(format!("after SIGCONT:\n{again}"));
    }
    job.signal("INT")?;
    let (code, _, err) = job.finish()?;
    if code != Some(130) {
        return Err(format!("exit {code:?}, expected 130\n{err}"));
    }
    no_process_left()
}

/// oshrun at a terminal, as a user runs it: a line typed at the terminal reaches PE 0 (mpirun,
/// in a process group of its own, cannot read the terminal: oshrun passes it on), and a Ctrl-C
/// (which the terminal sends to oshrun's process group alone) prints the report of every PE of
/// every host, then ends the job with 130 and leaves nothing behind.
fn at_a_terminal(hosts: &Hosts) -> Result<(), String> {
    use std::io::Write;
    if !common::have("script") {
        return Err("needs `script` (util-linux) to give oshrun a terminal".into());
    }
    let n = hosts.npes;
    let mut job = Live::at_terminal(hosts, "tests/hang/healthy.c", &[]);
    job.wait_for("every PE ready", |out, _| out.matches(" ready").count() == n)?;
    let mut stdin = job.child.stdin.take().unwrap();
    stdin.write_all(b"go\r").map_err(|e| format!("typing: {e}"))?;
    let sum: usize = (0..n).sum();
    job.wait_for("every PE done", |out, _| out.matches(&format!(" done, sum {sum}")).count() == n)?;
    drop(stdin);
    let (code, out, _) = job.finish()?;
    if code != Some(0) {
        return Err(format!("healthy.c at a terminal: exit {code:?}\n{out}"));
    }

    let last = n - 1;
    let mut job = Live::at_terminal(hosts, "tests/hang/compute.c", &[&last.to_string()]);
    job.wait_for("every PE ready", |out, _| out.matches(" ready").count() == n)?;
    let mut stdin = job.child.stdin.take().unwrap();
    // Every PE has taken oshrun's signals once it printed "ready"; what each PE shows then
    // (in the barrier yet or not) is the business of the tests above.
    stdin.write_all(b"\x03").map_err(|e| format!("typing Ctrl-C: {e}"))?;
    let ended = "oshrun: received signal 2 (SIGINT); ending the job";
    job.wait_for("the end of the job", |out, _| out.contains(ended))?;
    drop(stdin);
    let (code, out, _) = job.finish()?;
    if code != Some(130) {
        return Err(format!("Ctrl-C at a terminal: exit {code:?}, expected 130\n{out}"));
    }
    // The terminal ends lines with "\r\n" and echoes the Ctrl-C as "^C" before the report.
    let report = common::report_blocks(&out.replace('\r', "").replace("^C", ""), common::OSHRUN_INT)
        .pop()
        .unwrap_or_default();
    for want in [
        format!("  PE {last}: computing outside the library for "),
        format!("{}{n} PEs on ", ferroshmem::launch::REPORT_END),
    ] {
        if !report.contains(&want) {
            return Err(format!("the report lacks {want:?}:\n{out}"));
        }
    }
    no_process_left()
}

/// No process of the run's jobs left, in the hosts or outside them (`check-clean.sh
/// --processes`). The last exits of a job's daemons may trail oshrun's by a moment: looks
/// again for up to 10 s.
fn no_process_left() -> Result<(), String> {
    let runid = std::env::var("FSH_RUNID").map_err(|e| e.to_string())?;
    let script = common::repo_root().join("tests/multihost/check-clean.sh");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = Command::new("bash").arg(&script).args(["--processes", &runid]).output();
        let out = out.map_err(|e| format!("check-clean.sh: {e}"))?;
        if out.status.success() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("left behind:\n{}", String::from_utf8_lossy(&out.stdout)));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
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
        let (p, f) = inner(&layout, &cases);
        println!("multihost[{layout}]: {p} passed, {f} failed");
        std::process::exit(i32::from(f > 0));
    }
    let shm_before = common::dev_shm();
    let script = root.join("tests/multihost/with-hosts.sh");
    let (mut passed, mut failed) = (0usize, 0usize);
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
        let (code, out, elapsed, timed_out) =
            common::run_with_deadline(cmd, Duration::from_secs(900), Duration::from_secs(2));
        print!("{out}");
        let summary = out
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix(&format!("multihost[{layout}]: ")).map(str::to_owned));
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
    // Nothing of ours may be left: no file in /dev/shm (the job files are memfds), no
    // namespace, link, /etc/hosts line or process.
    if let Some(why) = common::shm_left_since(&shm_before) {
        failed += 1;
        println!("{why}");
    }
    let clean = Command::new("bash").arg(root.join("tests/multihost/check-clean.sh")).status();
    if !clean.is_ok_and(|s| s.success()) {
        failed += 1;
        println!("FAIL check-clean.sh: simulated hosts left something behind");
    }
    println!("multihost: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
