//! oshrun's own behaviour: signals reach every PE, a program without oshrun is one PE.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ferroshmem::{Compare, Shmem, SymSlice};

const CHILD: &str = "FERROSHMEM_LAUNCHER_TEST";

/// In a PE: say "ready", then block forever in a wait nobody satisfies.
fn blocked_pe() {
    let s = Shmem::init().unwrap();
    let flag: SymSlice<u64> = s.alloc(1).unwrap();
    println!("ready {}", s.my_pe());
    flag.wait_until(0, Compare::Eq, 1).unwrap();
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn sigterm_to_oshrun_ends_every_pe() {
    if std::env::var(CHILD).is_ok() {
        return blocked_pe();
    }
    let exe = std::env::current_exe().unwrap();
    let n = 4;
    let token = format!("sigterm-test-{}", std::process::id());
    let child = Command::new(common::oshrun())
        .args(["-n", &n.to_string()])
        .arg(&exe)
        .args(["sigterm_to_oshrun_ends_every_pe", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("FERROSHMEM_TEST_JOB_TOKEN", &token)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // If an assertion fails, the guard kills oshrun, and with it the PEs.
    let mut child = KillOnDrop(child);
    let child = &mut child.0;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ready = 0;
    while ready < n {
        let line = lines.next().expect("PE output ended before all were ready").unwrap();
        if line.contains("ready ") {
            ready += 1;
        }
    }
    assert_eq!(common::processes_of(&token).len(), n + 1, "oshrun and its PEs");
    // kill(1) keeps this test free of unsafe code.
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "oshrun did not end after SIGTERM");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(status.code(), Some(128 + 15));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("received signal 15 (SIGTERM); ending the job"), "{err}");
    assert!(common::processes_of(&token).is_empty(), "PEs outlived oshrun");
}

#[test]
fn program_without_oshrun_is_one_pe() {
    if std::env::var(CHILD).is_ok() {
        let s = Shmem::init().unwrap();
        assert_eq!((s.my_pe(), s.n_pes()), (0, 1));
        let x: SymSlice<u32> = s.alloc(4).unwrap();
        x.p(0, 3, 11).unwrap();
        assert_eq!(x.read(3).unwrap(), 11);
        s.barrier_all();
        println!("single PE ok");
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["program_without_oshrun_is_one_pe", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("FERROSHMEM_JOB_FD")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("single PE ok"));
}

#[test]
fn bad_command_lines_are_refused() {
    let out = Command::new(common::oshrun()).args(["-n", "0", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least one PE"));
    let out = Command::new(common::oshrun()).args(["-n", "2", "/nonexistent/program"]).output().unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/program"));
    // A file that exists and may be executed but is no program: the PE that tried says why.
    let junk = common::scratch_dir().join(format!("not-a-program-{}", std::process::id()));
    std::fs::write(&junk, b"\x00\x01 no program").unwrap();
    std::fs::set_permissions(&junk, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = Command::new(common::oshrun()).args(["-n", "3"]).arg(&junk).output().unwrap();
    std::fs::remove_file(&junk).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(127), "{err}");
    assert!(err.contains("cannot start") && err.contains("Exec format error"), "{err}");
    let out = Command::new(common::oshrun()).args(["--bind-to", "socket", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bind-to socket: expected auto, core or none"));
    // 4096 x 64 TiB: more address space than a process has (47 or 57 bits): said at start.
    let out = Command::new(common::oshrun())
        .env("SHMEM_SYMMETRIC_SIZE", "64T")
        .args(["-n", "4096", "true"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a job of 4096 PEs needs 256.0 PiB of address space in every PE"), "{err}");
    let out =
        Command::new(common::oshrun()).env("SHMEM_SYMMETRIC_SIZE", "lots").args(["true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SHMEM_SYMMETRIC_SIZE"));
}

/// PEs pinned differently still pick the same algorithms (the job's core count decides, not
/// each PE's affinity): PE 1 alone on one core would otherwise think itself oversubscribed
/// and sync through the central counter while PE 0 used dissemination.
#[test]
fn pes_with_different_affinity_agree() {
    let prog = common::compile_c(&common::repo_root().join("tests/c/coll_team.c"));
    let script = r#"if [ "$FERROSHMEM_PE" = 1 ]; then exec taskset -c 0 "$0"; else exec "$0"; fi"#;
    let sh = std::path::Path::new("/bin/sh");
    let prog = prog.to_str().unwrap();
    let r = common::run_job(2, sh, &["-c", script, prog], &[], Duration::from_secs(120));
    assert!(!r.timed_out && r.status == Some(0), "status {:?}\n{}\n{}", r.status, r.stdout, r.stderr);
}

/// `--bind-to`: with more PEs than CPUs (auto) or when asked (core), PE i runs only on the
/// (i mod k)-th allowed CPU; with 2 to k PEs (auto), PE i on the i-th of their slices of the
/// CPUs; one PE, or `none`, keeps oshrun's CPUs. The inner oshrun runs on CPUs 0 and 1, or 0-2
/// (taskset); each PE prints the CPUs the kernel lets it use.
#[test]
fn pes_are_pinned_round_robin_when_they_outnumber_cpus_else_to_slices() {
    let online = std::thread::available_parallelism().map_or(1, |n| n.get());
    if online < 2 {
        eprintln!("one CPU: nothing to pin round-robin");
        return;
    }
    let taskset = std::path::Path::new("/usr/bin/taskset");
    let oshrun = common::oshrun();
    let script = r#"echo "pe $FERROSHMEM_PE cpus $(grep Cpus_allowed_list /proc/self/status | cut -f2)""#;
    let cases: [(&str, &str, &str, [&str; 4]); 6] = [
        ("0,1", "auto", "4", ["0", "1", "0", "1"]),
        ("0,1", "none", "4", ["0-1"; 4]),
        ("0,1", "auto", "2", ["0", "1", "", ""]),
        ("0,1", "auto", "1", ["0-1", "", "", ""]),
        ("0,1", "core", "2", ["0", "1", "", ""]),
        ("0-2", "auto", "2", ["0", "1-2", "", ""]),
    ];
    for (allowed, bind, n, want) in cases {
        if allowed == "0-2" && online < 3 {
            continue;
        }
        let args =
            ["-c", allowed, oshrun.to_str().unwrap(), "-n", n, "--bind-to", bind, "/bin/sh", "-c", script];
        let r = common::run_job(1, taskset, &args, &[], Duration::from_secs(60));
        assert!(!r.timed_out && r.status == Some(0), "{bind} {n}: {:?}\n{}", r.status, r.stderr);
        for (pe, cpus) in want.iter().enumerate().take(n.parse().unwrap()) {
            let line = format!("pe {pe} cpus {cpus}\n");
            assert!(r.stdout.contains(&line), "--bind-to {bind} -n {n}: no line {line:?} in\n{}", r.stdout);
        }
    }
}

/// Every PE on one CPU (the inner oshrun pinned with taskset, so the job knows it has one
/// core; the outer oshrun is only the harness's way to launch with a timeout and a leftover
/// check): waits must hand the core over, never poll it away from a PE that still has to
/// arrive.
#[test]
fn all_pes_on_one_core_complete() {
    let prog = common::compile_c(&common::repo_root().join("tests/c/coll_team.c"));
    let taskset = std::path::Path::new("/usr/bin/taskset");
    let oshrun = common::oshrun();
    for n in ["2", "4"] {
        let r = common::run_job(
            1,
            taskset,
            &["-c", "0", oshrun.to_str().unwrap(), "-n", n, prog.to_str().unwrap()],
            &[],
            Duration::from_secs(120),
        );
        assert!(!r.timed_out && r.status == Some(0), "{n} PEs: {:?}\n{}\n{}", r.status, r.stdout, r.stderr);
    }
}

/// 256 PEs (128 a core here) with the default heap start, reach each other, print and end
/// well within the time limit: start-up grows with the job size, not its square (issue 12.3;
/// 1024 PEs took more than 200 s, docs/PERFORMANCE.md "Start-up of many PEs").
#[test]
fn a_job_of_256_pes_starts_prints_and_ends() {
    let n = 256;
    let prog = common::compile_c(&common::repo_root().join("tests/launch/many_pes.c"));
    let r = common::run_job(n, &prog, &[], &[], Duration::from_secs(60));
    assert!(!r.timed_out, "{n} PEs did not end within 60 s; stderr:\n{}", r.stderr);
    assert_eq!(r.status, Some(0), "stderr:\n{}", r.stderr);
    let mut lines: Vec<&str> = r.stdout.lines().collect();
    lines.sort_unstable();
    let mut want: Vec<String> = (0..n)
        .map(|me| {
            let left = (me + n - 1) % n;
            let right = 1000 + (me + 1) % n;
            format!("PE {me} of {n}: {n} arrived, left {left}, right {right}")
        })
        .collect();
    want.sort_unstable();
    assert_eq!(lines, want, "stderr:\n{}", r.stderr);
    eprintln!("{n} PEs: {:.2} s", r.elapsed.as_secs_f64());
}

/// The leftover check of every test job looks at our own names in /dev/shm only: a file that
/// another program makes there during a job (here the job itself makes one named as Open
/// MPI's shared-memory segments are) does not fail the job, while one named as ours does.
#[test]
fn leftover_check_sees_only_our_names_in_dev_shm() {
    let tag = format!("{}", std::process::id());
    let foreign = format!("/dev/shm/vader_segment.leftover-test.{tag}");
    let ours = format!("/dev/shm/ferroshmem-leftover-test.{tag}");
    assert!(!common::could_be_ours("vader_segment.vm.0.1") && common::could_be_ours("ferroshmem-job"));
    let touch = |path: &str| {
        let script = format!("touch {path}");
        common::run_job_unlocked(
            1,
            std::path::Path::new("/bin/sh"),
            &["-c", &script],
            &[],
            Duration::from_secs(30),
        )
    };
    // No job of a test running beside this one may see the file of our name.
    let _only_us = common::DEV_SHM_LOCK.write().unwrap_or_else(|e| e.into_inner());
    let r = touch(&foreign);
    let made = std::path::Path::new(&foreign).exists();
    std::fs::remove_file(&foreign).ok();
    assert!(made && r.status == Some(0), "the job did not make {foreign}: {r:?}");
    let flagged = std::panic::catch_unwind(|| touch(&ours));
    let made = std::path::Path::new(&ours).exists();
    std::fs::remove_file(&ours).ok();
    assert!(made, "the job did not make {ours}");
    let message = flagged.expect_err("a file of ours left in /dev/shm must fail the job");
    let message = message.downcast_ref::<String>().map_or("", String::as_str);
    assert!(message.contains("the job left files in /dev/shm"), "{message}");
}

/// A program started as one of several tasks by a launcher without PMIx (`srun --mpi=none` or
/// `--mpi=pmi2`, a PMI launcher) fails at init, naming the launcher option to use, instead
/// of running as N jobs of one PE; alone (one task, or an allocation's shell) it is one PE.
#[test]
fn tasks_of_a_launcher_without_pmix_are_refused() {
    let prog = common::compile_c(&common::repo_root().join("tests/c/rma.c"));
    let run = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(&prog);
        for var in
            ["FERROSHMEM_JOB_FD", "PMIX_RANK", "PMIX_NAMESPACE", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS"]
        {
            cmd.env_remove(var);
        }
        cmd.env_remove("OMPI_COMM_WORLD_SIZE").env_remove("PMI_SIZE").envs(env.iter().copied());
        let (out, timed_out) = common::output_within(&mut cmd, Duration::from_secs(30));
        assert!(!timed_out, "{env:?}: timed out");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    for (env, instead) in [
        (&[("SLURM_PROCID", "1"), ("SLURM_STEP_NUM_TASKS", "4")][..], "srun --mpi=pmix"),
        (&[("PMI_SIZE", "2"), ("PMI_RANK", "0")][..], "srun --mpi=pmix"),
        (&[("OMPI_COMM_WORLD_SIZE", "3")][..], "oshrun --host"),
    ] {
        let (code, stderr, _) = run(env);
        assert_eq!(code, Some(255), "{env:?}: {stderr}");
        assert!(stderr.contains("without PMIx") && stderr.contains(instead), "{env:?}: {stderr}");
    }
    for env in [&[("SLURM_PROCID", "0"), ("SLURM_STEP_NUM_TASKS", "1")][..], &[("SLURM_NTASKS", "4")][..]] {
        let (code, stderr, stdout) = run(env);
        assert!(code == Some(0) && stdout.contains("ok at 1 PEs"), "{env:?}: {code:?} {stderr}");
    }
}
