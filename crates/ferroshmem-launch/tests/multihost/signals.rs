//! The tests that run their own jobs on the simulated hosts of a layout: hang reports on
//! signals to oshrun (a healthy job, a hung one, a stopped host, at a terminal) and a host
//! whose network is cut (the peer watch).
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::*;

/// The simulated hosts of one layout, for the tests that signal oshrun.
pub(super) struct Hosts {
    pub(super) hostlist: String,
    pub(super) mpirun_args: String,
    pub(super) npes: usize,
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
                    .filter(|r| r.contains(ferroshmem_core::launch::REPORT_END))
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
pub(super) type HostsTest = fn(&Hosts) -> Result<(), String>;

pub(super) const SIGNAL_TESTS: &[(&str, HostsTest)] = &[
    ("hang report on SIGUSR1 to oshrun, a healthy job", sigusr1_on_a_healthy_job),
    ("hang report on SIGINT to oshrun, a hung job", sigint_reports_then_ends_the_job),
    ("hang report on SIGUSR1 to oshrun, a host stopped", a_stopped_host_is_named),
    ("hang report on Ctrl-C at a terminal, and typed input", at_a_terminal),
    ("a host whose network is cut ends the job", a_cut_host_ends_the_job),
    ("faults under mpirun started directly", super::plain_mpirun::faults_under_plain_mpirun),
    (
        "a host whose network is cut, under mpirun started directly",
        super::plain_mpirun::a_cut_host_under_plain_mpirun,
    ),
];

/// The peer watch's limit in [`a_cut_host_ends_the_job`] (`SHMEMX_PEER_TIMEOUT_MS`).
pub(super) const CUT_LIMIT: Duration = Duration::from_secs(4);

/// `tests/multihost/c/fault_cut.c` (barriers in a loop) with the last host's network cut
/// (`ip link set eth0 down` in its namespace) once the loop runs: the PEs of the other hosts
/// must find its PEs lost within the peer watch's limit (4 s here), report them with their
/// host, and the job must end non-zero within a few seconds more (oshrun kills mpirun, whose
/// abort waits for the lost host's daemon). The link comes up again once the job ended, and
/// nothing of the job may be left then.
fn a_cut_host_ends_the_job(hosts: &Hosts) -> Result<(), String> {
    let exe = common::compile_c(&common::repo_root().join("tests/multihost/c/fault_cut.c"));
    let mut cmd = oshrun_across(&hosts.hostlist, hosts.npes, &hosts.mpirun_args, &exe);
    cmd.env("SHMEMX_PEER_TIMEOUT_MS", CUT_LIMIT.as_millis().to_string());
    let cut = cut_the_last_host(hosts, cmd)?;
    if cut.code != Some(255) {
        return Err(format!("exit {:?}, expected 255\n{}", cut.code, cut.output));
    }
    // The watch's limit, oshrun's wait for mpirun, and slack for a loaded machine.
    if cut.took > CUT_LIMIT + Duration::from_secs(10) {
        return Err(format!("the job ended {} ms after the cut", cut.took.as_millis()));
    }
    println!("     {} cut: the job ended {} ms later", cut.host, cut.took.as_millis());
    no_process_left()
}

/// How a job ended whose last host's network was cut ([`cut_the_last_host`]).
pub(super) struct Cut {
    pub(super) code: Option<i32>,
    /// Its stdout and stderr.
    pub(super) output: String,
    /// The cut host.
    pub(super) host: String,
    /// From the cut to the end of the job.
    pub(super) took: Duration,
}

/// Runs `cmd` (a job of `tests/multihost/c/fault_cut.c`, barriers in a loop, on `hosts`),
/// cuts the last host's network (`ip link set eth0 down` in its namespace) once the loop runs,
/// waits for the job to end and brings the link up again. An error unless a report line names
/// the first PE of the cut host and the host (`: lost PE n (on HOST)`).
pub(super) fn cut_the_last_host(hosts: &Hosts, cmd: Command) -> Result<Cut, String> {
    let names = std::env::var("FSH_HOSTS").map_err(|e| e.to_string())?;
    let host = names.rsplit(',').next().unwrap_or_default().to_string();
    let per_host: usize = hosts.hostlist.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let first = hosts.npes - per_host;
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
    let (code, out, err) = ended?;
    let output = format!("{out}{err}");
    let named = format!(": lost PE {first} (on {host})");
    if !output.lines().any(|l| l.starts_with("ferroshmem: PE ") && l.contains(&named)) {
        return Err(format!("no report line holds {named:?}:\n{output}"));
    }
    Ok(Cut { code, output, host, took })
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
        format!("{}{n} PEs on {n_hosts} hosts\n", ferroshmem_core::launch::REPORT_END),
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
        ferroshmem_core::launch::REPORT_END.to_string(),
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
        format!("{}{n} PEs on ", ferroshmem_core::launch::REPORT_END),
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
pub(super) fn no_process_left() -> Result<(), String> {
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
