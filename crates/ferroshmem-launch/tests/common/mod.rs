//! Running oshrun from tests: every launch has a timeout, and after every launch nothing of the
//! job may remain (no process of the program, no new file in /dev/shm).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn oshrun() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oshrun"))
}

pub fn oshcc() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_oshcc"))
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Where tests put what they build.
pub fn scratch_dir() -> PathBuf {
    let dir = repo_root().join("target/test-programs");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a finished (or timed-out) job left.
#[derive(Debug)]
pub struct JobResult {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub timed_out: bool,
}

/// The files in /dev/shm that a job of ours could leave: those whose name starts with
/// `ferroshmem` (the library's shared memory is memfds, which leave nothing; anything it
/// ever names in /dev/shm carries that prefix). Files of other programs (Open MPI's
/// `vader_segment.*`, say) come and go on a shared machine and do not change the verdict.
pub fn dev_shm() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/dev/shm")
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    v.retain(|name| could_be_ours(name));
    v.sort();
    v
}

/// Held for reading by every [`run_job`]; for writing by a test that leaves a file of our
/// names in /dev/shm on purpose, so that no job of a parallel test sees it.
pub static DEV_SHM_LOCK: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Whether a file of /dev/shm named `name` could be left by one of our jobs (see [`dev_shm`]).
pub fn could_be_ours(name: &str) -> bool {
    name.starts_with("ferroshmem")
}

/// Environment variable that marks every process of one test job.
const JOB_TOKEN: &str = "FERROSHMEM_TEST_JOB_TOKEN";

fn new_token() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Live processes carrying the job token `token` in their environment.
pub fn processes_of(token: &str) -> Vec<u32> {
    let needle = format!("{JOB_TOKEN}={token}");
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/environ"))
                        .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()))
                        && std::fs::read_to_string(format!("/proc/{pid}/stat"))
                            .is_ok_and(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `cmd` to its end, or kills it after `limit`; its output, and whether it was killed.
/// The pipes are drained on threads, so a chatty command cannot block on a full pipe.
pub fn output_within(cmd: &mut Command, limit: Duration) -> (Output, bool) {
    let start = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start command");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).ok();
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).ok();
        v
    });
    let (status, timed_out) = wait_within(&mut child, start, limit, |c| {
        c.kill().ok();
    });
    (Output { status, stdout: t_out.join().unwrap(), stderr: t_err.join().unwrap() }, timed_out)
}

/// Waits for `child` (started at `start`) to end; past `limit` calls `stop` on it, then waits
/// for it. Its exit status, and whether it had to be stopped.
pub fn wait_within(
    child: &mut std::process::Child,
    start: Instant,
    limit: Duration,
    stop: impl FnOnce(&mut std::process::Child),
) -> (std::process::ExitStatus, bool) {
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return (st, false);
        }
        if start.elapsed() > limit {
            stop(child);
            return (child.wait().unwrap(), true);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `oshrun -n npes program args` with `env`, killing it after `timeout`. Asserts that no
/// process of `program` and no /dev/shm file outlives the job.
pub fn run_job(
    npes: usize,
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    timeout: Duration,
) -> JobResult {
    // A test that makes a file of our names on purpose holds this lock for writing.
    let _shm = DEV_SHM_LOCK.read().unwrap_or_else(|e| e.into_inner());
    run_job_unlocked(npes, program, args, env, timeout)
}

/// [`run_job`] without taking [`DEV_SHM_LOCK`] (for the test that holds it for writing).
pub fn run_job_unlocked(
    npes: usize,
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    timeout: Duration,
) -> JobResult {
    let shm_before = dev_shm();
    let start = Instant::now();
    let token = new_token();
    let mut cmd = Command::new(oshrun());
    cmd.env(JOB_TOKEN, &token);
    cmd.arg("-n").arg(npes.to_string()).arg(program).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (output, timed_out) = output_within(&mut cmd, timeout);
    let elapsed = start.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    // PEs die with oshrun (PR_SET_PDEATHSIG); give the kernel a moment to deliver that on a timeout.
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut left = processes_of(&token);
    while !left.is_empty() && timed_out && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        left = processes_of(&token);
    }
    assert!(left.is_empty(), "processes of {} left after the job: {left:?}", program.display());
    assert_eq!(shm_before, dev_shm(), "the job left files in /dev/shm");
    JobResult { status: output.status.code(), stdout, stderr, elapsed, timed_out }
}

/// Compiles a C program (a C++ one for a `.cpp` source: oshcc with `OSHCC_CC=c++`, C++17) with
/// oshcc into the scratch directory; returns the executable.
///
/// Tests of one binary run in parallel and several compile the same source: the linker writes
/// a name of its own and the finished file is renamed into place, so no test ever executes a
/// file that another test's linker still holds open for writing (`ETXTBSY`, "Text file busy").
pub fn compile_c(source: &Path) -> PathBuf {
    let stem = source.file_stem().unwrap().to_string_lossy().into_owned();
    let parent = source.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    let exe = scratch_dir().join(format!("{parent}-{stem}"));
    let partial = scratch_dir().join(format!("{parent}-{stem}.{}", new_token()));
    let cxx = source.extension().is_some_and(|x| x == "cpp");
    let mut cmd = Command::new(oshcc());
    if cxx {
        cmd.env("OSHCC_CC", "c++");
    }
    let out: Output = cmd
        .arg(if cxx { "-std=c++17" } else { "-std=gnu11" })
        .args(["-O1", "-g", "-Wall", "-Werror"])
        .arg(source)
        .arg("-lm")
        .arg("-o")
        .arg(&partial)
        .output()
        .expect("run oshcc");
    if !out.status.success() {
        std::fs::remove_file(&partial).ok();
    }
    assert!(
        out.status.success(),
        "oshcc {} failed:\n{}{}",
        source.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&partial, &exe).expect("move the executable into place");
    exe
}

/// Environment variable telling a re-executed test binary which test body to run as a PE.
pub const SPMD_CHILD: &str = "FERROSHMEM_SPMD_TEST";

/// In a PE of a test job (the process carries [`SPMD_CHILD`]): runs `body` between init and
/// finalize when the job is test `name`'s, and says true (the caller returns). In the test
/// process itself: false.
pub fn run_if_pe(name: &str, body: fn(&ferroshmem::Shmem)) -> bool {
    let Ok(which) = std::env::var(SPMD_CHILD) else {
        return false;
    };
    if which == name {
        let shmem = ferroshmem::Shmem::init().expect("init");
        body(&shmem);
        shmem.finalize();
    }
    true
}

/// Runs `body` as an SPMD program under oshrun at each PE count. In the test process it
/// launches this same test binary (only test `name`, marked by [`SPMD_CHILD`]) as the PEs; in a
/// PE it runs the body between init and finalize. Every job has a timeout and a leftover check.
pub fn spmd(name: &str, npes: &[usize], env: &[(&str, &str)], body: fn(&ferroshmem::Shmem)) {
    if run_if_pe(name, body) {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut env = env.to_vec();
    env.push((SPMD_CHILD, name));
    for &n in npes {
        let r = run_job(
            n,
            &exe,
            &[name, "--exact", "--nocapture", "--test-threads=1"],
            &env,
            Duration::from_secs(180),
        );
        assert!(!r.timed_out, "{name} at {n} PEs timed out\n{}{}", r.stdout, r.stderr);
        assert_eq!(
            r.status,
            Some(0),
            "{name} at {n} PEs failed\nstdout:\n{}\nstderr:\n{}",
            r.stdout,
            r.stderr
        );
    }
}

/// The first line of a PE's hang report.
pub const PE_REPORT: &str = "ferroshmem: hang report: ";
/// The first line of oshrun's report on SIGUSR1.
pub const OSHRUN_USR1: &str = "oshrun: hang report (SIGUSR1; the job goes on): what every PE is doing";
/// The first line of oshrun's report on SIGINT.
pub const OSHRUN_INT: &str = "oshrun: hang report (SIGINT; ending the job): what every PE is doing";

/// The blocks of `text` (hang reports) that begin with a line starting with `head`, each
/// through the lines that follow it starting with two spaces.
pub fn report_blocks(text: &str, head: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with(head) {
            out.extend(current.take());
            current = Some(format!("{line}\n"));
        } else if line.starts_with("  ") && current.is_some() {
            current.as_mut().unwrap().push_str(&format!("{line}\n"));
        } else {
            out.extend(current.take());
        }
    }
    out.extend(current);
    out
}

/// Reads `pipe` to its end on a thread of its own, into the returned text (what a test polls
/// while a job runs).
pub fn collect_pipe(
    mut pipe: impl std::io::Read + Send + 'static,
) -> std::sync::Arc<std::sync::Mutex<String>> {
    let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = text.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    text
}

/// Whether this process runs as root (the simulated hosts need it).
pub fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Whether `tool` is on the PATH.
pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A process's exit code, 128 + the signal for one that a signal ended.
pub fn exit_code(st: std::process::ExitStatus) -> Option<i32> {
    st.code().or_else(|| std::os::unix::process::ExitStatusExt::signal(&st).map(|s| 128 + s))
}

/// Runs `cmd` with a deadline, its stdout and stderr together in a file of the scratch
/// directory; returns (exit code, combined output, elapsed, timed out). Past the deadline the
/// command gets SIGTERM (a launcher ends its job then), and SIGKILL `grace` later.
pub fn run_with_deadline(
    mut cmd: Command,
    limit: Duration,
    grace: Duration,
) -> (Option<i32>, String, Duration, bool) {
    let start = Instant::now();
    let out_path = scratch_dir().join(format!("job-{}.out", std::process::id()));
    let out = std::fs::File::create(&out_path).unwrap();
    cmd.stdout(out.try_clone().unwrap()).stderr(out).stdin(Stdio::null());
    let mut child = cmd.spawn().expect("start the job");
    let (status, timed_out) = wait_within(&mut child, start, limit, |c| {
        let _ = Command::new("kill").args(["-TERM", &c.id().to_string()]).status();
        std::thread::sleep(grace);
        c.kill().ok();
    });
    let elapsed = start.elapsed();
    let text = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    (exit_code(status), text, elapsed, timed_out)
}

/// "N passed, M failed..." -> (N, M): the summary line of a suite run inside simulated hosts.
pub fn parse_counts(s: &str) -> Option<(usize, usize)> {
    let (p, rest) = s.split_once(" passed, ")?;
    let f = rest.split_whitespace().next()?;
    Some((p.trim().parse().ok()?, f.parse().ok()?))
}

/// What a suite's simulated hosts left behind: the files the jobs left in /dev/shm since
/// `shm_before` (`dev_shm()` then: the job files are memfds, nothing of ours belongs there), and
/// anything of the runs `runs` of `with-hosts.sh` (`check-clean.sh RUNID...`: namespaces,
/// links, /etc/hosts lines, temp dirs, processes). Runs of others, going on at the same time
/// or killed before, are not looked at. One failure message per finding.
pub fn left_behind(shm_before: &[String], runs: &[String]) -> Vec<String> {
    let mut found: Vec<String> = shm_left_since(shm_before).into_iter().collect();
    if !runs.is_empty() {
        let clean =
            Command::new("bash").arg(repo_root().join("tests/multihost/check-clean.sh")).args(runs).status();
        if !clean.is_ok_and(|s| s.success()) {
            found.push(format!(
                "FAIL check-clean.sh {}: the simulated hosts left something behind",
                runs.join(" ")
            ));
        }
    }
    found
}

/// The files the jobs left in /dev/shm since `before` (`dev_shm()` then): a failure message,
/// if any (the job files are memfds: nothing of ours belongs there).
pub fn shm_left_since(before: &[String]) -> Option<String> {
    let after = dev_shm();
    let left: Vec<&String> = after.iter().filter(|f| !before.contains(f)).collect();
    (!left.is_empty()).then(|| format!("FAIL /dev/shm: the jobs left {left:?}"))
}
