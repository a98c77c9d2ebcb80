//! Hang reports (issue 14): a PE that has waited `SHMEMX_HANG_REPORT` seconds in a team call
//! prints who has not arrived and what each is doing; SIGINT to oshrun prints every PE's state
//! before it ends the job, SIGUSR1 prints it and changes nothing. The programs are in
//! `tests/hang`. Every job has an outer time limit; the tests wait by polling the job's output
//! for the report, never by sleeping a guessed time.

mod common;

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long any one job of these tests may take.
const LIMIT: Duration = Duration::from_secs(60);

/// A running oshrun job whose output is collected as it comes.
struct Job {
    child: Child,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    token: String,
    start: Instant,
}

impl Drop for Job {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Job {
    fn start(program: &str, npes: usize, hang_report: &str) -> Job {
        let exe = common::compile_c(&common::repo_root().join("tests/hang").join(program));
        let token = format!("hang-report-{}-{program}", std::process::id());
        let mut child = Command::new(common::oshrun())
            .args(["-n", &npes.to_string()])
            .arg(&exe)
            .env("SHMEMX_HANG_REPORT", hang_report)
            .env("FERROSHMEM_TEST_JOB_TOKEN", &token)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start oshrun");
        let stdout = common::collect_pipe(child.stdout.take().unwrap());
        let stderr = common::collect_pipe(child.stderr.take().unwrap());
        Job { child, stdout, stderr, token, start: Instant::now() }
    }

    fn stdout(&self) -> String {
        self.stdout.lock().unwrap().clone()
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Polls until `done(stdout, stderr)`; fails the test past the job's limit.
    fn wait_for(&self, what: &str, done: impl Fn(&str, &str) -> bool) {
        while !done(&self.stdout(), &self.stderr()) {
            assert!(
                self.start.elapsed() < LIMIT,
                "no {what} within {LIMIT:?}\nstdout:\n{}\nstderr:\n{}",
                self.stdout(),
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends `signal` (a name for kill(1), which keeps these tests free of unsafe code).
    fn signal(&self, signal: &str) {
        let ok = Command::new("kill").args([&format!("-{signal}"), &self.child.id().to_string()]).status();
        assert!(ok.is_ok_and(|s| s.success()), "kill -{signal}");
    }

    /// Waits for oshrun to end (within the job's limit); its exit code. Asserts that no PE is
    /// left.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let (status, timed_out) = common::wait_within(&mut self.child, self.start, LIMIT, |c| {
            c.kill().ok();
        });
        assert!(!timed_out, "oshrun did not end\nstdout:\n{}\nstderr:\n{}", self.stdout(), self.stderr());
        // The reader threads see the pipes close once every PE has ended (oshrun ends them).
        let deadline = Instant::now() + Duration::from_secs(10);
        while !common::processes_of(&self.token).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(common::processes_of(&self.token).is_empty(), "PEs outlived oshrun");
        (status.code(), self.stdout(), self.stderr())
    }
}

/// Lines of `text` that are neither a report nor one of `allowed`.
fn other_lines<'a>(text: &'a str, allowed: &[&str]) -> Vec<&'a str> {
    text.lines()
        .filter(|l| {
            !l.starts_with(common::PE_REPORT) && !l.starts_with("oshrun: hang report") && !l.starts_with("  ")
        })
        .filter(|l| !allowed.contains(l))
        .collect()
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.lines().collect();
    v.sort_unstable();
    v
}

/// PE 0 in shmem_barrier_all, PE 1 in shmem_team_sync on a duplicate of WORLD: each team's
/// first waiting PE reports the other PE's call; SIGINT then reports both and ends the job.
#[test]
fn mismatched_collectives_are_reported_by_both_teams() {
    let job = Job::start("mismatch.c", 2, "1");
    job.wait_for("two hang reports", |_, err| common::report_blocks(err, common::PE_REPORT).len() >= 2);
    let err = job.stderr();
    let found = common::report_blocks(&err, common::PE_REPORT);
    let world = found.iter().find(|r| r.contains("PE 0 has waited")).expect("PE 0's report");
    let dup = found.iter().find(|r| r.contains("PE 1 has waited")).expect("PE 1's report");
    let dup_name = "split_strided(SHMEM_TEAM_WORLD, 0, 1, 2)";
    // WORLD's calls: 1 the barrier of shmem_init, 2 the split, 3 the barrier.
    assert!(
        world.contains("in shmem_barrier_all on SHMEM_TEAM_WORLD, call 3 (SHMEMX_HANG_REPORT=1;"),
        "{world}"
    );
    assert!(world.contains("  team SHMEM_TEAM_WORLD: 2 PEs (PE 0..1)\n"), "{world}");
    assert!(world.contains("  waiting in this call: PE 0\n"), "{world}");
    assert!(
        world.contains(&format!(
            "  not arrived: PE 1: in shmem_team_sync on {dup_name}, call 1, waiting for "
        )),
        "{world}"
    );
    assert!(dup.contains(&format!("in shmem_team_sync on {dup_name}, call 1 (")), "{dup}");
    assert!(
        dup.contains("  not arrived: PE 0: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 3, waiting for "),
        "{dup}"
    );
    assert_eq!(found.len(), 2, "one report per team call:\n{err}");

    job.signal("INT");
    let (code, out, err) = job.finish();
    assert_eq!(code, Some(130), "{err}");
    let all = common::report_blocks(&err, common::OSHRUN_INT);
    assert_eq!(all.len(), 1, "{err}");
    let all = &all[0];
    assert!(all.contains("  PE 0: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 3, waiting for "), "{all}");
    assert!(
        all.contains(&format!("  PE 1: in shmem_team_sync on {dup_name}, call 1, waiting for ")),
        "{all}"
    );
    assert!(
        all.contains(&format!(
            "  waits in shmem_team_sync on {dup_name}, call 1 (team of 2 PEs: PE 0..1):\n"
        )),
        "{all}"
    );
    assert!(all.contains("    not arrived: PE 0: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 3"), "{all}");
    assert_eq!(sorted_lines(&out), ["PE 0 before", "PE 1 before"]);
    assert_eq!(
        other_lines(&err, &["oshrun: received signal 2 (SIGINT); ending the job"]),
        Vec::<&str>::new()
    );
}

/// PE 1 returns from main at once; the others wait for it in their second barrier: the report
/// says it has exited with status 0.
#[test]
fn a_pe_that_returned_early_is_reported_as_exited() {
    let job = Job::start("early_return.c", 3, "1");
    job.wait_for("a hang report", |_, err| !common::report_blocks(err, common::PE_REPORT).is_empty());
    let found = common::report_blocks(&job.stderr(), common::PE_REPORT);
    let r = &found[0];
    assert!(r.starts_with("ferroshmem: hang report: PE 0 has waited "), "{r}");
    assert!(r.contains("in shmem_barrier_all on SHMEM_TEAM_WORLD, call 3 ("), "{r}");
    assert!(r.contains("  waiting in this call: PE 0, 2\n"), "{r}");
    // oshrun records the exit within 50 ms of it; a report before that says "finished".
    assert!(
        r.contains("  not arrived: PE 1: exited with status 0\n")
            || r.contains("  not arrived: PE 1: finished (returned from shmem_finalize)\n"),
        "{r}"
    );
    job.signal("INT");
    let (code, out, err) = job.finish();
    assert_eq!(code, Some(130), "{err}");
    let all = &common::report_blocks(&err, common::OSHRUN_INT)[0];
    assert!(all.contains("  PE 1: exited with status 0\n"), "{all}");
    assert!(all.contains("    not arrived: PE 1: exited with status 0\n"), "{all}");
    assert_eq!(
        sorted_lines(&out),
        ["PE 0 after the first barrier", "PE 1 leaves", "PE 2 after the first barrier"]
    );
    assert_eq!(
        other_lines(&err, &["oshrun: received signal 2 (SIGINT); ending the job"]),
        Vec::<&str>::new()
    );
}

/// PE 1 loops forever outside the library: the report says for how long it has computed.
#[test]
fn a_pe_computing_forever_is_reported_with_its_time() {
    let job = Job::start("compute.c", 3, "1.5");
    job.wait_for("a hang report", |_, err| !common::report_blocks(err, common::PE_REPORT).is_empty());
    let found = common::report_blocks(&job.stderr(), common::PE_REPORT);
    let r = &found[0];
    // At least the limit; how much more depends on when its wait next woke (sleeps back off).
    let waited: f64 = r
        .strip_prefix("ferroshmem: hang report: PE 0 has waited ")
        .and_then(|rest| rest.split(" s in ").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{r}"));
    assert!(waited >= 1.5, "{r}");
    assert!(
        r.contains(" s in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2 (SHMEMX_HANG_REPORT=1.5;"),
        "{r}"
    );
    let line = r.lines().find(|l| l.starts_with("  not arrived: PE 1: ")).expect("PE 1's line");
    let secs: f64 = line
        .strip_prefix("  not arrived: PE 1: computing outside the library for ")
        .and_then(|rest| rest.strip_suffix(" s"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    // It left the library (shmem_init) before PE 0 began to wait, so at least as long.
    assert!(secs >= 1.5, "{line}");
    job.signal("INT");
    let (code, out, err) = job.finish();
    assert_eq!(code, Some(130), "{err}");
    let all = &common::report_blocks(&err, common::OSHRUN_INT)[0];
    assert!(all.contains("  PE 1: computing outside the library for "), "{all}");
    assert!(all.contains("  PE 2: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2, waiting for "), "{all}");
    assert_eq!(sorted_lines(&out), ["PE 0 ready", "PE 1 ready", "PE 2 ready"]);
    assert_eq!(
        other_lines(&err, &["oshrun: received signal 2 (SIGINT); ending the job"]),
        Vec::<&str>::new()
    );
}

/// SIGUSR1 on a healthy job: the report comes, the job goes on and ends as it would have.
#[test]
fn sigusr1_reports_and_the_job_goes_on() {
    let n = 3;
    let mut job = Job::start("healthy.c", n, "0");
    job.wait_for("every PE ready", |out, _| out.matches(" ready\n").count() == n);
    // Ask until the report shows PE 0 reading its input and the others in the barrier (a PE
    // prints "ready" just before it enters the barrier).
    let mut asked = 0;
    loop {
        job.signal("USR1");
        asked += 1;
        job.wait_for("oshrun's report", |_, err| {
            common::report_blocks(err, common::OSHRUN_USR1).len() >= asked
        });
        let last = common::report_blocks(&job.stderr(), common::OSHRUN_USR1).pop().unwrap();
        let waiting = (1..n).all(|pe| {
            last.contains(&format!("  PE {pe}: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2, waiting"))
                || last.contains(&format!("  PE {pe}: in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2\n"))
        });
        if waiting {
            assert!(last.contains("  PE 0: computing outside the library for "), "{last}");
            assert!(
                last.contains(
                    "  waits in shmem_barrier_all on SHMEM_TEAM_WORLD, call 2 (team of 3 PEs: PE 0..2):\n"
                ),
                "{last}"
            );
            assert!(last.contains("    not arrived: PE 0: computing outside the library"), "{last}");
            break;
        }
    }
    let mut stdin = job.child.stdin.take().unwrap();
    stdin.write_all(b"go\n").unwrap();
    drop(stdin);
    let (code, out, err) = job.finish();
    assert_eq!(code, Some(0), "{err}");
    let mut want: Vec<String> = (0..n).map(|pe| format!("PE {pe} ready")).collect();
    want.extend((0..n).map(|pe| format!("PE {pe} done, sum 3")));
    want.sort_unstable();
    assert_eq!(sorted_lines(&out), want);
    // Only the reports on stderr: no PE-side report (SHMEMX_HANG_REPORT=0), nothing ended.
    assert!(!err.contains(common::PE_REPORT), "{err}");
    assert_eq!(other_lines(&err, &[]), Vec::<&str>::new(), "{err}");
    assert_eq!(common::report_blocks(&err, common::OSHRUN_USR1).len(), asked);
}
