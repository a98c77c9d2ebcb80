//! oshrun's side of a job across hosts: `mpirun` started as oshrun's child, signals passed on
//! as report requests, its stderr copied through (and watched for a lost peer's report).
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use super::*;

/// Runs the job across hosts through `mpirun`, which oshrun starts and stays the parent of.
/// The variables that configure ferroshmem and UCX travel to every host (`-x`). mpirun forwards
/// SIGUSR1 and SIGUSR2 to every PE, and the PEs take them as oshrun's requests for the report
/// of every PE ([`job::ENV_OSHRUN_REPORTS`]), which PE 0 prints (it alone can read the states
/// of every host: see the core's `activity` module); so:
///
/// - SIGUSR1 is passed on as SIGUSR1: PE 0 prints the report, the job goes on;
/// - SIGINT is passed on as SIGUSR2: PE 0 prints the report, and once its last line
///   ([`job::REPORT_END`]) has come through, oshrun ends the job (SIGTERM to mpirun, which
///   ends every PE and its daemons); without a report within [`REPORT_WAIT`], it ends the job
///   anyway. A second SIGINT, SIGTERM, SIGHUP or SIGQUIT end it at once.
///
/// mpirun runs in a process group of its own, so that a Ctrl-C at the terminal reaches oshrun
/// alone (mpirun would end the job at once). A process group that is not the terminal's
/// foreground cannot read the terminal (mpirun does not even try), so when stdin is a
/// terminal oshrun reads it while in the foreground and passes it on through a pipe; otherwise
/// mpirun reads stdin itself. mpirun's stderr (which carries the PEs') goes through oshrun,
/// which copies it as it comes and leaves out mpirun's notes about the signals oshrun asked it
/// to forward ("mpirun: Forwarding signal 10 to job"). oshrun exits with mpirun's status, or
/// 128 + the signal that ended the job.
pub(super) fn run_with_mpirun(args: Args) -> ExitCode {
    let mpirun = std::env::var("OSHRUN_MPIRUN").unwrap_or_else(|_| "mpirun".into());
    let mut cmd = Command::new(&mpirun);
    cmd.args(&args.hosts).args(["-np", &args.npes.to_string()]);
    // When a PE fails, mpirun ends the others with SIGTERM and, by default, waits a second
    // before SIGKILL on every host: a 3-host job took 2.0 s to end after a PE was killed,
    // 0.02 s with no wait. PEs hold nothing that outlives them (memfd, sockets), so end them
    // at once; a later --mca of the user's overrides this.
    cmd.args(["--mca", "odls_base_sigkill_timeout", "0"]);
    match args.bind {
        // Each PE has a progress thread that must run while the PE computes: bound to the PE's
        // one core it could only take turns with it (1 MiB puts between two hosts: 510 MB/s
        // bound, 1530 MB/s not; docs/PERFORMANCE.md).
        Bind::Auto | Bind::None => {
            cmd.args(["--bind-to", "none"]);
        }
        Bind::Core => {
            cmd.args(["--bind-to", "core"]);
        }
    }
    cmd.args(&args.mpirun_extra);
    if let Ok(extra) = std::env::var("OSHRUN_MPIRUN_ARGS") {
        cmd.args(extra.split_whitespace());
    }
    let mut exported: Vec<String> = std::env::vars()
        .map(|(k, _)| k)
        .filter(|k| ["SHMEM_", "SHMEMX_", "UCX_", "RUST_", "FSH_HIER_"].iter().any(|p| k.starts_with(p)))
        .collect();
    exported.sort();
    for name in exported {
        cmd.args(["-x", &name]);
    }
    cmd.args(["-x", &format!("{}=1", job::ENV_OSHRUN_REPORTS)]);
    cmd.arg(&args.program).args(&args.args);
    // SAFETY: isatty only reads the descriptor's kind.
    let relay_stdin = unsafe { libc::isatty(0) } == 1;
    if relay_stdin {
        cmd.stdin(std::process::Stdio::piped());
    }
    cmd.stderr(std::process::Stdio::piped());
    let set = handled_signals();
    // SAFETY: blocking signals in our own (single-threaded) process; mpirun unblocks them.
    unsafe { libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    // SAFETY: between fork and exec the child only makes async-signal-safe calls: it unblocks
    // every signal, moves to a process group of its own, and asks for SIGTERM should oshrun
    // die (mpirun then ends the job), checking that oshrun did not die already.
    unsafe {
        cmd.pre_exec(|| {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            libc::setpgid(0, 0);
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 || libc::getppid() == 1 {
                return Err(std::io::Error::other("oshrun ended"));
            }
            Ok(())
        });
    }
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(err) => {
            eprintln!(
                "oshrun: cannot run {mpirun} for a job across hosts: {err} (install Open MPI, or set OSHRUN_MPIRUN)"
            );
            return ExitCode::from(2);
        }
    };
    match Mpirun::new(child, &set).and_then(|m| m.run()) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(msg) => {
            eprintln!("oshrun: {msg}");
            ExitCode::from(2)
        }
    }
}

/// How long oshrun waits, after a SIGINT, for PE 0's report before it ends the job anyway
/// (the report itself waits at most 2 s for a host that does not answer, per kind of read).
pub(super) const REPORT_WAIT: Duration = Duration::from_secs(10);
/// How long mpirun may take to end the job after SIGTERM before oshrun kills it (its daemons
/// then end the PEs as they lose it).
pub(super) const MPIRUN_END_WAIT: Duration = Duration::from_secs(10);

/// How long mpirun may take to end the job after a PE reported a lost peer before oshrun
/// kills it: its abort waits for every host's daemon, the lost host's too, for ever.
pub(super) const LOST_PEER_END_WAIT: Duration = Duration::from_secs(3);

/// Where the end of the job stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    No,
    /// PE 0 was asked for the report at this time; whether its first line came.
    AwaitingReport {
        since: Instant,
        started: bool,
    },
    /// mpirun was told to end the job at this time; whether it was killed since.
    Ending {
        since: Instant,
        killed: bool,
    },
    /// A PE reported a lost peer at this time (and is ending the job through PMIx).
    PeerLost {
        since: Instant,
    },
}

/// oshrun's side of a job run by mpirun.
pub(super) struct Mpirun {
    child: std::process::Child,
    /// The signals oshrun takes, readable here.
    signals: std::os::fd::OwnedFd,
    err: Option<std::process::ChildStderr>,
    stdin: Option<std::process::ChildStdin>,
    /// Bytes of mpirun's stderr not yet copied (the part of a line not ended yet).
    pending: Vec<u8>,
    /// The signal that ended the job (its status is 128 + it).
    ended_by: Option<i32>,
    /// The status oshrun ends with whatever mpirun's (a job it killed after a lost peer).
    status: Option<i32>,
    stage: Stage,
}

impl Mpirun {
    fn new(mut child: std::process::Child, set: &libc::sigset_t) -> Result<Self, String> {
        // SAFETY: a signalfd for signals this (single-threaded) process has blocked.
        let fd = unsafe { libc::signalfd(-1, set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK) };
        if fd < 0 {
            return Err(format!("signalfd: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: a descriptor we just created and own alone.
        let signals = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        let err = child.stderr.take();
        let stdin = child.stdin.take();
        Ok(Mpirun {
            child,
            signals,
            err,
            stdin,
            pending: Vec::new(),
            ended_by: None,
            status: None,
            stage: Stage::No,
        })
    }

    /// Sends `sig` to mpirun (while it runs).
    fn signal(&self, sig: i32) {
        // SAFETY: kill on our child, not yet reaped (we reap it only once it has ended).
        unsafe { libc::kill(self.child.id() as i32, sig) };
    }

    /// Ends the job: SIGTERM to mpirun.
    fn end(&mut self, sig: i32) {
        if self.ended_by.is_none() {
            self.ended_by = Some(sig);
        }
        if !matches!(self.stage, Stage::Ending { .. }) {
            eprintln!("oshrun: received {}; ending the job", signal_name(sig));
            self.stage = Stage::Ending { since: Instant::now(), killed: false };
            self.signal(libc::SIGTERM);
        }
    }

    fn run(mut self) -> Result<i32, String> {
        use std::os::fd::AsRawFd;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let err_fd = self.err.as_ref().map_or(-1, |e| e.as_raw_fd());
            // SAFETY: getpgrp and tcgetpgrp only read the process's and the terminal's state.
            let foreground = unsafe { libc::tcgetpgrp(0) == libc::getpgrp() };
            let in_fd = if self.stdin.is_some() && foreground { 0 } else { -1 };
            let mut fds = [
                libc::pollfd { fd: self.signals.as_raw_fd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: err_fd, events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: in_fd, events: libc::POLLIN, revents: 0 },
            ];
            // SAFETY: three valid pollfds (a negative descriptor is skipped by poll).
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 3, 50) };
            if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return Err(format!("poll: {}", std::io::Error::last_os_error()));
            }
            if fds[0].revents != 0 {
                self.take_signals();
            }
            if fds[1].revents != 0 {
                self.copy_stderr(&mut buf);
            } else {
                // Quiet for a poll's time: what is left of a line goes out as it is.
                self.flush_pending();
            }
            if fds[2].revents != 0 {
                self.copy_stdin(&mut buf);
            }
            self.check_ending();
            if let Some(status) = self.child.try_wait().map_err(|e| format!("waiting for mpirun: {e}"))? {
                // Whatever mpirun wrote before it ended comes through before oshrun ends; a
                // process that mpirun started and that outlives it could hold the pipe open,
                // so the pipe's end is waited for only while something comes (100 ms gaps, 5 s
                // in all).
                let drain = Instant::now();
                while let Some(fd) = self.err.as_ref().map(|e| e.as_raw_fd()) {
                    let mut pfd = [libc::pollfd { fd, events: libc::POLLIN, revents: 0 }];
                    // SAFETY: one valid pollfd.
                    if unsafe { libc::poll(pfd.as_mut_ptr(), 1, 100) } <= 0
                        || drain.elapsed() > Duration::from_secs(5)
                    {
                        break;
                    }
                    self.copy_stderr(&mut buf);
                }
                self.flush_pending();
                return Ok(match self.ended_by {
                    _ if self.status.is_some() => self.status.unwrap_or_default(),
                    Some(sig) => 128 + sig,
                    None => status.code().unwrap_or_else(|| {
                        128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0)
                    }),
                });
            }
        }
    }

    fn take_signals(&mut self) {
        use std::os::fd::AsRawFd;
        loop {
            // SAFETY: signalfd_siginfo is plain data, filled by the kernel.
            let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
            let size = std::mem::size_of::<libc::signalfd_siginfo>();
            // SAFETY: reads one record into `info`, of its size, from our signalfd.
            let n = unsafe {
                libc::read(self.signals.as_raw_fd(), (&mut info as *mut libc::signalfd_siginfo).cast(), size)
            };
            if n != size as isize {
                return;
            }
            let sig = info.ssi_signo as i32;
            match sig {
                libc::SIGUSR1 if self.stage == Stage::No => self.signal(libc::SIGUSR1),
                libc::SIGINT if self.stage == Stage::No => {
                    self.ended_by = Some(sig);
                    self.stage = Stage::AwaitingReport { since: Instant::now(), started: false };
                    self.signal(libc::SIGUSR2);
                }
                libc::SIGINT | libc::SIGTERM | libc::SIGHUP | libc::SIGQUIT => self.end(sig),
                _ => {}
            }
        }
    }

    /// Ends the job once the awaited report is out (or late), and kills mpirun if it does not
    /// end.
    fn check_ending(&mut self) {
        match self.stage {
            Stage::AwaitingReport { since, .. } if since.elapsed() >= REPORT_WAIT => {
                eprintln!("oshrun: PE 0 printed no report within {} s", REPORT_WAIT.as_secs());
                self.end(libc::SIGINT);
            }
            Stage::PeerLost { since } if since.elapsed() >= LOST_PEER_END_WAIT => {
                eprintln!(
                    "oshrun: mpirun did not end the job within {} s of the report of a lost peer; \
                     killing it (the other hosts' daemons end their PEs)",
                    LOST_PEER_END_WAIT.as_secs()
                );
                self.status.get_or_insert(ferroshmem_core::runtime::ERROR_EXIT_STATUS);
                self.stage = Stage::Ending { since: Instant::now(), killed: true };
                self.signal(libc::SIGKILL);
            }
            Stage::Ending { since, killed: false } if since.elapsed() >= MPIRUN_END_WAIT => {
                self.stage = Stage::Ending { since, killed: true };
                self.signal(libc::SIGKILL);
            }
            _ => {}
        }
    }

    /// Reads what mpirun wrote to its stderr and copies every whole line on.
    fn copy_stderr(&mut self, buf: &mut [u8]) {
        use std::io::Read;
        let Some(err) = self.err.as_mut() else { return };
        match err.read(buf) {
            Ok(0) | Err(_) => {
                self.err = None;
                return;
            }
            Ok(n) => self.pending.extend_from_slice(&buf[..n]),
        }
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(end) = self.pending[start..].iter().position(|&b| b == b'\n').map(|i| start + i + 1) {
            let line = &self.pending[start..end];
            start = end;
            let text = String::from_utf8_lossy(line);
            let text = text.trim_end_matches('\n');
            // mpirun's note about a signal it forwards for oshrun.
            if text.ends_with(": Forwarding signal 10 to job")
                || text.ends_with(": Forwarding signal 12 to job")
            {
                continue;
            }
            if self.stage == Stage::No
                && text.starts_with("ferroshmem: PE ")
                && text.contains(job::LOST_PEER_REPORT)
            {
                self.stage = Stage::PeerLost { since: Instant::now() };
            }
            if let Stage::AwaitingReport { since, started } = self.stage {
                if text.starts_with("oshrun: hang report (SIGINT") {
                    self.stage = Stage::AwaitingReport { since, started: true };
                } else if started && text.starts_with(job::REPORT_END) {
                    out.extend_from_slice(line);
                    write_stderr(&out);
                    out.clear();
                    self.end(libc::SIGINT);
                    continue;
                }
            }
            out.extend_from_slice(line);
        }
        self.pending.drain(..start);
        write_stderr(&out);
    }

    /// Copies out the part of a line that has waited a whole poll for its end.
    fn flush_pending(&mut self) {
        if !self.pending.is_empty() {
            write_stderr(&self.pending);
            self.pending.clear();
        }
    }

    /// Passes what the terminal typed on to mpirun (which gives it to PE 0).
    fn copy_stdin(&mut self, buf: &mut [u8]) {
        use std::io::{Read, Write};
        let n = match std::io::stdin().lock().read(buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return,
            Err(_) => 0,
        };
        let written = match self.stdin.as_mut() {
            Some(pipe) if n > 0 => pipe.write_all(&buf[..n]).is_ok(),
            _ => false,
        };
        if !written {
            // End of input (or mpirun stopped reading it): mpirun sees the end too.
            self.stdin = None;
        }
    }
}

/// Writes `bytes` to stderr in one write (lines of PEs stay whole).
pub(super) fn write_stderr(bytes: &[u8]) {
    use std::io::Write;
    if !bytes.is_empty() {
        let _ = std::io::stderr().lock().write_all(bytes);
    }
}
