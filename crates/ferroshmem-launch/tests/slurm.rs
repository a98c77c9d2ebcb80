//! Jobs under Slurm, on simulated hosts: `tests/multihost/with-slurm.sh` makes a Slurm cluster
//! of network-namespace hosts (munged, slurmctld, one slurmd per host; Slurm installed from the
//! distribution if missing), and this test runs C programs built with oshcc as
//! `srun --mpi=pmix -N H -n P ./prog` from the root namespace (UCX between hosts forced onto
//! TCP, shared memory within a host).
//!
//! Two clusters of 3 hosts, each run re-executing this test inside `with-slurm.sh`
//! (`FSH_INNER` set), where every job has a timeout and its exit status, time and report lines
//! are checked:
//! - [`FULL`], 2 declared CPUs per host: 12 PEs oversubscribed (`-O`, 4 per host): the
//!   placement, the specification's Example 12 (its lines compared as a set), the team and
//!   collective C tests;
//! - [`RAGGED`], 2, 2 and 1 CPUs (PE 4 alone on the last host): the placement, the team and
//!   collective C tests at 5 PEs, then the faults: `shmem_global_exit(3)` of the lone PE, the
//!   lone PE returning 7 from main without finalizing, the lone PE killed (each also under
//!   `srun -K`), a PE that shares its host killed, `srun --mpi=none` refused at init, and
//!   last the last host's network cut (`ip link set eth0 down`) under the peer watch.
//!
//! After every job, no process of it may be left in the hosts (but slurmd); after each
//! cluster, nothing of it at all (`check-clean.sh RUNID`: namespaces, links, /etc/hosts, temp
//! dir, and the daemons, which carry FSH_RUNID in their environment), nor in /dev/shm.
//! Needs root and `ip` (and Slurm, or apt-get to install it); without them it says so and,
//! under CI, fails. Prints `slurm: N passed, M failed`. `FSH_SLURM_ONLY=TEXT` runs only the
//! cases whose name contains TEXT.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Three hosts declaring 2 CPUs each: 6 PEs fill them, 12 need `srun -O` (4 per host).
const FULL: &str = "3:2,2,2";
/// Three hosts declaring 2, 2 and 1 CPUs: `-n 5` puts PE 4 alone on the last host.
const RAGGED: &str = "3:2,2,1";
const CLUSTERS: &[&str] = &[FULL, RAGGED];

/// How a job must end.
#[derive(Clone, Copy)]
enum Exit {
    Code(i32),
    NonZero,
}

/// One srun job.
struct Case {
    /// What the case shows (the name printed).
    name: &'static str,
    /// The cluster it runs on.
    cluster: &'static str,
    /// The C program and its arguments.
    source: &'static str,
    args: &'static [&'static str],
    /// srun's options (all but the program).
    srun: &'static [&'static str],
    /// Extra environment of the PEs.
    env: &'static [(&'static str, &'static str)],
    expect: Exit,
    /// Upper bound of the whole job.
    max_ms: Option<u128>,
    /// Upper bound from the fault (the program's "fault: ... at T ms" line) to the job's end.
    after_fault_ms: Option<u128>,
    /// A file whose lines stdout must hold, in any order (lines of different hosts interleave).
    stdout_as_set: Option<&'static str>,
    /// A check of the combined output: why it fails, if it does.
    check: Option<Check>,
    /// The placement hosts.c must find, as PEs per host, when not the cluster's layout.
    per_host: Option<usize>,
    /// The job's time limit.
    limit: Duration,
}

/// What a check sees of the cluster.
struct Cluster {
    hosts: Vec<String>,
}

type Check = fn(&str, &Cluster) -> Result<(), String>;

const NORMAL: Duration = Duration::from_secs(300);
/// Fault jobs must end within 15 s; past this they are taken as hung.
const FAULT: Duration = Duration::from_secs(40);

const fn case(
    name: &'static str,
    cluster: &'static str,
    source: &'static str,
    srun: &'static [&'static str],
) -> Case {
    Case {
        name,
        cluster,
        source,
        args: &[],
        srun,
        env: &[],
        expect: Exit::Code(0),
        max_ms: None,
        after_fault_ms: None,
        stdout_as_set: None,
        check: None,
        per_host: None,
        limit: NORMAL,
    }
}

const N12: &[&str] = &["--mpi=pmix", "-N", "3", "-n", "12", "-O"];
const N5: &[&str] = &["--mpi=pmix", "-N", "3", "-n", "5"];
const N5K: &[&str] = &["--mpi=pmix", "-N", "3", "-n", "5", "-K"];

/// The lone PE that ends without finalizing: what the peer watch was made for (srun ends only
/// that host's step; the others would wait in the barrier for ever).
/// Plain srun does not end the job when a PE alone on its host ends without finalizing (its
/// host's slurmstepd ends with it and no PMIx event reaches the others): ferroshmem's peer
/// watch does, 2 s (its grace for the launcher) after UCX reports the closed connection, or at
/// worst after a probe round (1 s) more, with a line naming the PE. The bound leaves 7 s for a
/// loaded machine.
const LONE_PE_ENDS_WITHIN_MS: u128 = 10_000;

/// A report of ferroshmem naming PE 4: the peer watch's ("lost PE 4 (on HOST)"), or, when a
/// transfer with PE 4 was in flight as it died, that transfer's failure ("transfer with PE 4
/// on another host failed"), which ends the job sooner.
fn watch_names(out: &str, host: &str) -> Result<(), String> {
    let lost = format!(": lost PE 4 (on {host})");
    let transfer = "transfer with PE 4 on another host failed";
    if out.lines().any(|l| l.starts_with("ferroshmem: PE ") && (l.contains(&lost) || l.contains(transfer))) {
        Ok(())
    } else {
        Err(format!("no line of ferroshmem holds {lost:?} or {transfer:?}"))
    }
}

const CASES: &[Case] = &[
    // Placement: the hosts and local ranks the PEs find are the layout's.
    Case {
        per_host: Some(4),
        check: Some(|o, _| has(o, "hosts: 12 PEs on 3 hosts")),
        ..case("placement", FULL, "tests/multihost/c/hosts.c", N12)
    },
    Case {
        stdout_as_set: Some("examples/c/team_split_2d_3d.12.out"),
        ..case("Example 12", FULL, "examples/c/team_split_2d_3d.c", N12)
    },
    case("teams", FULL, "tests/c/coll_team.c", N12),
    case("teams", FULL, "tests/c/team_strided.c", N12),
    case("teams", FULL, "tests/c/team_split_2d.c", N12),
    case("teams", FULL, "tests/c/team_split_color.c", N12),
    case("teams", FULL, "tests/c/alltoall_back_to_back.c", N12),
    Case {
        check: Some(|o, _| has(o, "hosts: 5 PEs on 3 hosts")),
        ..case("placement", RAGGED, "tests/multihost/c/hosts.c", N5)
    },
    case("teams", RAGGED, "tests/c/coll_team.c", N5),
    case("teams", RAGGED, "tests/c/team_strided.c", N5),
    case("teams", RAGGED, "tests/c/team_split_2d.c", N5),
    case("teams", RAGGED, "tests/c/team_split_color.c", N5),
    case("teams", RAGGED, "tests/c/alltoall_back_to_back.c", N5),
    // Faults of PE 4, alone on the last host. shmem_global_exit calls PMIx_Abort: srun ends
    // the job with the status.
    Case {
        expect: Exit::Code(3),
        max_ms: Some(10_000),
        // The abort kills every task, PE 4 too, most often before srun sees it exit: srun
        // names it either way. (No line says which PE called shmem_global_exit: ferroshmem
        // prints none, srun does not show the abort's message.)
        check: Some(|o, c| {
            srun_names(o, &c.hosts[2], 4, "Exited with exit code 3")
                .or_else(|_| srun_names(o, &c.hosts[2], 4, "Killed"))
        }),
        limit: FAULT,
        ..case("lone PE calls shmem_global_exit(3)", RAGGED, "tests/launch/global_exit.c", N5)
    },
    Case {
        args: &["exit", "4"],
        expect: Exit::NonZero,
        after_fault_ms: Some(LONE_PE_ENDS_WITHIN_MS),
        check: Some(|o, c| {
            srun_names(o, &c.hosts[2], 4, "Exited with exit code 7").and_then(|_| watch_names(o, &c.hosts[2]))
        }),
        limit: FAULT,
        ..case("lone PE returns 7 without finalizing", RAGGED, "tests/multihost/c/slurm_fault.c", N5)
    },
    Case {
        args: &["exit", "4"],
        expect: Exit::NonZero,
        after_fault_ms: Some(15_000),
        check: Some(|o, c| srun_names(o, &c.hosts[2], 4, "Exited with exit code 7")),
        limit: FAULT,
        ..case(
            "lone PE returns 7 without finalizing, srun -K",
            RAGGED,
            "tests/multihost/c/slurm_fault.c",
            N5K,
        )
    },
    Case {
        args: &["kill", "4"],
        expect: Exit::NonZero,
        after_fault_ms: Some(LONE_PE_ENDS_WITHIN_MS),
        check: Some(|o, c| srun_names(o, &c.hosts[2], 4, "Killed").and_then(|_| watch_names(o, &c.hosts[2]))),
        limit: FAULT,
        ..case("lone PE killed (SIGKILL)", RAGGED, "tests/multihost/c/slurm_fault.c", N5)
    },
    Case {
        args: &["kill", "4"],
        expect: Exit::NonZero,
        after_fault_ms: Some(15_000),
        check: Some(|o, c| srun_names(o, &c.hosts[2], 4, "Killed")),
        limit: FAULT,
        ..case("lone PE killed (SIGKILL), srun -K", RAGGED, "tests/multihost/c/slurm_fault.c", N5K)
    },
    // PE 3 shares the second host with PE 2: its slurmstepd sees the task end and srun ends
    // the step.
    Case {
        args: &["kill", "3"],
        expect: Exit::NonZero,
        after_fault_ms: Some(5_000),
        check: Some(|o, c| srun_names(o, &c.hosts[1], 3, "Killed")),
        limit: FAULT,
        ..case("PE sharing its host killed (SIGKILL)", RAGGED, "tests/multihost/c/slurm_fault.c", N5)
    },
    // Without PMIx every task would be a job of one PE: each refuses at init, naming the fix.
    Case {
        expect: Exit::NonZero,
        max_ms: Some(10_000),
        check: Some(mpi_none_refused),
        limit: FAULT,
        ..case(
            "srun --mpi=none refused",
            RAGGED,
            "tests/multihost/c/scale.c",
            &["--mpi=none", "-N", "2", "-n", "4"],
        )
    },
];

/// `text` holds `want`.
fn has(text: &str, want: &str) -> Result<(), String> {
    if text.contains(want) {
        Ok(())
    } else {
        Err(format!("the output lacks {want:?}"))
    }
}

/// srun's line on the task of PE `pe` on `host` says `how` (srun's own report of the fault).
fn srun_names(out: &str, host: &str, pe: usize, how: &str) -> Result<(), String> {
    let task = format!("srun: error: {host}: task {pe}: {how}");
    // srun groups tasks of one host that ended alike: "tasks 3-4: Killed".
    let grouped = out.lines().any(|l| {
        l.strip_prefix(&format!("srun: error: {host}: tasks "))
            .and_then(|r| r.strip_suffix(&format!(": {how}")))
            .is_some_and(|range| {
                range.split(',').any(|part| match part.split_once('-') {
                    Some((a, b)) => {
                        a.parse::<usize>().is_ok_and(|a| a <= pe) && b.parse::<usize>().is_ok_and(|b| pe <= b)
                    }
                    None => part.parse::<usize>() == Ok(pe),
                })
            })
    });
    if out.lines().any(|l| l == task) || grouped {
        Ok(())
    } else {
        Err(format!("no line says {task:?}"))
    }
}

/// `srun --mpi=none -N 2 -n 4`: each of the 4 tasks says it needs `srun --mpi=pmix`; none runs
/// as a job of one PE.
fn mpi_none_refused(out: &str, _: &Cluster) -> Result<(), String> {
    let refusals =
        out.lines().filter(|l| l.starts_with("ferroshmem: ") && l.contains("srun --mpi=pmix")).count();
    if refusals != 4 {
        return Err(format!("{refusals} tasks name `srun --mpi=pmix`, expected 4"));
    }
    if out.contains("ok at 1 PEs") {
        return Err("a task ran as a job of one PE".into());
    }
    Ok(())
}

fn now_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis()
}

/// `srun OPTIONS exe` with UCX on the hosts' network (srun hands its environment to the tasks).
fn srun(options: &[&str], exe: &Path) -> Command {
    let mut cmd = Command::new("srun");
    cmd.args(options)
        .arg(exe)
        .env("UCX_TLS", "tcp,self")
        .env("UCX_NET_DEVICES", "eth0")
        .env("UCX_WARN_UNUSED_ENV_VARS", "n");
    cmd
}

/// The processes inside the simulated hosts other than slurmd (a job's slurmstepd and tasks),
/// with their command lines.
fn job_processes(hosts: &[String]) -> Vec<String> {
    let mut left = Vec::new();
    for host in hosts {
        let Ok(out) = Command::new("ip").args(["netns", "pids", host]).output() else { continue };
        for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z');
            if comm.trim() == "slurmd" || comm.is_empty() || zombie {
                continue;
            }
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            left.push(format!("{host}: {pid} {}", cmdline.trim()));
        }
    }
    left
}

/// No process of the last job left in the hosts: its slurmstepds end a moment after srun, so
/// this looks again for up to `wait`.
fn no_job_left(hosts: &[String], wait: Duration) -> Result<(), String> {
    let deadline = Instant::now() + wait;
    loop {
        let left = job_processes(hosts);
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "left in the hosts {} s after the job:\n  {}",
                wait.as_secs(),
                left.join("\n  ")
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Inside `with-slurm.sh`: runs the cases of `layout`, then (on [`RAGGED`]) the network cut.
fn inner(layout: &str) -> (usize, usize) {
    let root = common::repo_root();
    let hosts: Vec<String> = std::env::var("FSH_SLURM_NODES")
        .expect("with-slurm.sh exports FSH_SLURM_NODES")
        .split(',')
        .map(str::to_owned)
        .collect();
    let cluster = Cluster { hosts: hosts.clone() };
    let only = std::env::var("FSH_SLURM_ONLY").unwrap_or_default();
    let (mut passed, mut failed) = (0, 0);
    for case in CASES.iter().filter(|c| c.cluster == layout) {
        let name =
            format!("{}: {} {} ({})", case.name, case.source, case.args.join(" "), case.srun.join(" "));
        if !name.contains(&only) {
            continue;
        }
        let exe = common::compile_c(&root.join(case.source));
        let mut cmd = srun(case.srun, &exe);
        cmd.args(case.args);
        for (k, v) in case.env {
            cmd.env(k, v);
        }
        if let Some(k) = case.per_host {
            let list: Vec<String> = hosts.iter().map(|h| format!("{h}:{k}")).collect();
            cmd.env("FSH_HOSTLIST", list.join(","));
        }
        let (code, out, elapsed, timed_out) =
            common::run_with_deadline(cmd, case.limit, Duration::from_secs(5));
        let ended_ms = now_ms();
        // "fault: PE p on HOST exits 7 at T ms" / "... raises SIGKILL at T ms".
        let fault_at = out.lines().find_map(|l| {
            let rest = l.strip_prefix("fault: PE ")?;
            rest.rsplit_once(" at ")?.1.strip_suffix(" ms")?.parse::<u128>().ok()
        });
        let after_fault = fault_at.map(|t| ended_ms.saturating_sub(t));
        let set_verdict = case.stdout_as_set.and_then(|f| {
            let want = std::fs::read_to_string(root.join(f)).unwrap();
            let mut want: Vec<&str> = want.lines().collect();
            let mut got: Vec<&str> = out.lines().filter(|l| want.contains(l)).collect();
            want.sort_unstable();
            got.sort_unstable();
            (got != want).then(|| format!("stdout does not hold the lines of {f}"))
        });
        let verdict = if timed_out {
            Err(format!("did not end within {} s (srun was then sent SIGTERM)", case.limit.as_secs()))
        } else if match case.expect {
            Exit::Code(c) => code != Some(c),
            Exit::NonZero => code == Some(0) || code.is_none(),
        } {
            Err(format!(
                "exit {code:?}, expected {}",
                match case.expect {
                    Exit::Code(c) => c.to_string(),
                    Exit::NonZero => "non-zero".into(),
                }
            ))
        } else if let Some(why) = set_verdict {
            Err(why)
        } else if let Some(Err(why)) = case.check.map(|c| c(&out, &cluster)) {
            Err(why)
        } else if case.max_ms.is_some_and(|m| elapsed.as_millis() > m) {
            Err(format!("took {} ms, more than {} ms", elapsed.as_millis(), case.max_ms.unwrap()))
        } else if case.after_fault_ms.is_some() && fault_at.is_none() {
            Err("no fault line printed".into())
        } else if let (Some(m), Some(t)) = (case.after_fault_ms, after_fault) {
            if t > m {
                Err(format!("the job ended {t} ms after the fault, more than {m} ms"))
            } else {
                Ok(())
            }
        } else {
            Ok(())
        };
        // Whatever the verdict, nothing of the job may stay (a timed-out job was cancelled).
        let verdict = verdict.and_then(|()| no_job_left(&hosts, Duration::from_secs(10)));
        let how = format!(
            "exit {}, {} ms{}",
            code.map_or("?".into(), |c| c.to_string()),
            elapsed.as_millis(),
            after_fault.map_or(String::new(), |t| format!(", ended {t} ms after the fault"))
        );
        match verdict {
            Ok(()) => {
                passed += 1;
                println!("ok   {name} on {layout} ({how})");
            }
            Err(why) => {
                failed += 1;
                println!("FAIL {name} on {layout}: {why} ({how})\n{out}");
                // A hung job's processes must not spill into the next case.
                let _ = no_job_left(&hosts, Duration::from_secs(20));
            }
        }
    }
    if layout == RAGGED && "a host whose network is cut ends the job".contains(&only) {
        let start = Instant::now();
        match a_cut_host_ends_the_job(&hosts) {
            Ok(note) => {
                passed += 1;
                println!(
                    "ok   a host whose network is cut ends the job on {layout} ({} ms)\n     {note}",
                    start.elapsed().as_millis()
                );
            }
            Err(why) => {
                failed += 1;
                println!("FAIL a host whose network is cut ends the job on {layout}: {why}");
            }
        }
    }
    (passed, failed)
}

/// The peer watch's limit in [`a_cut_host_ends_the_job`] (`SHMEMX_PEER_TIMEOUT_MS`).
const CUT_LIMIT: Duration = Duration::from_secs(4);

/// `tests/multihost/c/fault_cut.c` (barriers in a loop) on [`RAGGED`] with the last host's
/// network cut once the loop runs: the PEs of the other hosts find PE 4 lost within the peer
/// watch's limit (4 s), report it with its host and end the job (PMIx_Abort); srun must end
/// non-zero within the limit and 11 s more (srun waits up to 4 s for the steps of a cancelled
/// job, then gives up on the cut host's). The PE on the cut host cannot be told: it is still
/// there when srun ends, and must be gone within 20 s of the link coming up again (slurmctld
/// reaches its slurmd again). Then the cluster must run a job on all hosts again.
fn a_cut_host_ends_the_job(hosts: &[String]) -> Result<String, String> {
    let last = hosts.last().unwrap().clone();
    let exe = common::compile_c(&common::repo_root().join("tests/multihost/c/fault_cut.c"));
    let mut cmd = srun(N5, &exe);
    cmd.env("SHMEMX_PEER_TIMEOUT_MS", CUT_LIMIT.as_millis().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("srun: {e}"))?;
    let stdout = common::collect_pipe(child.stdout.take().unwrap());
    let stderr = common::collect_pipe(child.stderr.take().unwrap());
    let text = |p: &std::sync::Arc<std::sync::Mutex<String>>| p.lock().unwrap().clone();
    let link = |state: &str| {
        let ok = Command::new("ip").args(["-n", &last, "link", "set", "eth0", state]).status();
        ok.is_ok_and(|s| s.success()).then_some(()).ok_or_else(|| format!("ip link set eth0 {state} failed"))
    };
    while !text(&stdout).contains("cut: looping") {
        if start.elapsed() > Duration::from_secs(120) || child.try_wait().ok().flatten().is_some() {
            let _ = child.kill();
            return Err(format!("no barrier loop\nstdout:\n{}\nstderr:\n{}", text(&stdout), text(&stderr)));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    link("down")?;
    let cut = Instant::now();
    let (status, timed_out) = common::wait_within(&mut child, cut, Duration::from_secs(60), |c| {
        let _ = Command::new("kill").args(["-TERM", &c.id().to_string()]).status();
    });
    let took = cut.elapsed();
    // What is left on the cut host while it is cut off (the PE, its slurmstepd).
    let stranded = job_processes(std::slice::from_ref(&last));
    link("up")?;
    let restored = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(10);
    while (std::sync::Arc::strong_count(&stdout) > 1 || std::sync::Arc::strong_count(&stderr) > 1)
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let err = text(&stderr);
    let code = common::exit_code(status);
    if timed_out {
        return Err(format!(
            "srun did not end within 60 s of the cut (then SIGTERM); on {last}: {stranded:?}\n{err}"
        ));
    }
    let named = format!(": lost PE 4 (on {last})");
    if !err.lines().any(|l| l.starts_with("ferroshmem: PE ") && l.contains(&named)) {
        return Err(format!("no report line holds {named:?}:\n{err}"));
    }
    if code == Some(0) || code.is_none() {
        return Err(format!("exit {code:?}, expected non-zero\n{err}"));
    }
    if took > CUT_LIMIT + Duration::from_secs(11) {
        return Err(format!("srun ended {} ms after the cut\n{err}", took.as_millis()));
    }
    // Back on the network, the job's last processes go.
    no_job_left(hosts, Duration::from_secs(20))?;
    let gone = restored.elapsed();
    // And the cluster takes jobs on every host again (the cut node answers slurmctld again).
    let hello = common::compile_c(&common::repo_root().join("tests/multihost/c/hosts.c"));
    let again = srun(N5, &hello);
    let (code2, out2, _, t2) =
        common::run_with_deadline(again, Duration::from_secs(90), Duration::from_secs(5));
    if t2 || code2 != Some(0) {
        return Err(format!("after the link came up, a job on all hosts: exit {code2:?}\n{out2}"));
    }
    no_job_left(hosts, Duration::from_secs(10))?;
    Ok(format!(
        "{last} cut: srun ended {} ms later with exit {}; left on {last} meanwhile: {}; gone {} ms after the link came up",
        took.as_millis(),
        code.unwrap_or(-1),
        if stranded.is_empty() { "nothing".to_string() } else { stranded.join("; ") },
        gone.as_millis()
    ))
}

fn main() {
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    if let Ok(layout) = std::env::var("FSH_INNER") {
        println!("slurm[{layout}]: run {}", std::env::var("FSH_RUNID").unwrap_or_default());
        let (p, f) = inner(&layout);
        println!("slurm[{layout}]: {p} passed, {f} failed");
        std::process::exit(i32::from(f > 0));
    }
    let slurm =
        common::have("srun") && common::have("slurmctld") && common::have("slurmd") && common::have("munged");
    let missing: Vec<&str> = [
        ("root", common::is_root()),
        ("ip", common::have("ip")),
        ("Slurm or apt-get", slurm || common::have("apt-get")),
    ]
    .into_iter()
    .filter(|(_, ok)| !ok)
    .map(|(what, _)| what)
    .collect();
    if !missing.is_empty() {
        println!("slurm: cannot make a Slurm cluster here (missing: {})", missing.join(", "));
        println!("slurm: 0 passed, {} failed", usize::from(ci));
        if ci {
            std::process::exit(1);
        }
        return;
    }
    let root = common::repo_root();
    let shm_before = common::dev_shm();
    let script = root.join("tests/multihost/with-slurm.sh");
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut runs: Vec<String> = Vec::new();
    for &layout in CLUSTERS {
        let mut cmd = Command::new("bash");
        cmd.arg(&script).arg(layout).arg("--").arg(std::env::current_exe().unwrap()).env("FSH_INNER", layout);
        let (code, out, elapsed, timed_out) =
            common::run_with_deadline(cmd, Duration::from_secs(900), Duration::from_secs(5));
        print!("{out}");
        let tag = format!("slurm[{layout}]: ");
        runs.extend(out.lines().find_map(|l| l.strip_prefix(&format!("{tag}run ")).map(str::to_owned)));
        let summary = out.lines().rev().find_map(|l| l.strip_prefix(&tag).and_then(common::parse_counts));
        match summary {
            Some((p, f)) => {
                passed += p;
                failed += f;
            }
            None if code == Some(77) && !ci => {
                println!("slurm: skipped {layout}: with-slurm.sh cannot make a cluster here (exit 77)");
            }
            None => {
                failed += 1;
                println!(
                    "FAIL cluster {layout}: with-slurm.sh ended with {code:?} after {} s{}",
                    elapsed.as_secs(),
                    if timed_out { " (timed out)" } else { "" }
                );
            }
        }
    }
    // Nothing of ours may be left: no file in /dev/shm (the job files are memfds), and of each
    // run no namespace, link, /etc/hosts line, temp dir or process (the daemons included: they
    // carry FSH_RUNID). Other runs going on at the same time are not ours to judge.
    for why in common::left_behind(&shm_before, &runs) {
        failed += 1;
        println!("{why}");
    }
    println!("slurm: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
