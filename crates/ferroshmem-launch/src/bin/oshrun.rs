//! `oshrun -n N prog args...`: starts N PEs of an OpenSHMEM program as processes sharing one job
//! file, forwards signals, and ends the whole job as soon as one PE fails.
//!
//! PEs inherit oshrun's stdout and stderr, so their lines reach the terminal in the order they
//! were written (the C library makes stdout line-buffered). When a PE fails, oshrun prints one
//! line naming it and the cause, ends the other PEs (SIGTERM, then SIGKILL after 300 ms) and exits
//! with the failing PE's status (128 + signal number for a signal). Each PE is also tied to
//! oshrun's life (PR_SET_PDEATHSIG), so nothing outlives the job. When the PEs outnumber the
//! CPUs oshrun may use, each PE is pinned to one of them, round-robin (`--bind-to`).
//!
//! Hang reports: oshrun maps the job's control blocks (`JobStates`), keeps the job's coarse
//! clock moving (every 50 ms, with which PEs stamp the time they leave the library), records
//! how each PE ended, and prints every PE's state on SIGUSR1 (the job goes on) and on SIGINT
//! before it ends the job.
//!
//! Across hosts (`--host h1:2,h2:2` or `--hostfile FILE`) oshrun hands the job to Open MPI's
//! `mpirun` (`$OSHRUN_MPIRUN`, default `mpirun` from PATH), which starts the PEs on the hosts
//! and serves them PMIx; the PEs bootstrap from PMIx (see the core's `bootstrap` module).
//! oshrun stays mpirun's parent, so that SIGUSR1 and SIGINT still print the report of every
//! PE, of every host: PE 0 prints it when mpirun forwards oshrun's request to the PEs (see
//! `run_with_mpirun`).
#![allow(unsafe_code)]

use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use ferroshmem::launch::{self as job, HeaderView, JobFile, JobStates, Layout};

const USAGE: &str =
    "usage: oshrun -n N [--bind-to auto|core|none] [--host LIST | --hostfile FILE] [--] program [args...]
  -n, -np, --npes N   number of PEs to start (default 1)
  --host LIST         run across hosts (e.g. h1:2,h2:2): hands the job to mpirun
  --hostfile FILE     the same with an Open MPI hostfile
  --mca KEY VALUE     passed to mpirun (only with --host/--hostfile; so is $OSHRUN_MPIRUN_ARGS)
  --bind-to WHERE     core: PE i runs only on the (i mod k)-th of the k CPUs oshrun may use;
                      none: PEs go where the scheduler puts them; auto (default): core when
                      the PEs outnumber those CPUs, else none
  -h, --help          this text
environment: SHMEM_SYMMETRIC_SIZE (per-PE symmetric heap, e.g. 512M, 2G; default 512M),
             SHMEMX_TEAM_SLOTS (teams a PE can belong to at once; default 8192), SHMEM_DEBUG=1,
             SHMEMX_HANG_REPORT (seconds a PE waits in a team call before a report; default 60, 0 off)
signals:     SIGUSR1 prints what every PE is doing; SIGINT prints it, then ends the job
             (across hosts PE 0 prints it: the PEs take SIGUSR1 and SIGUSR2 as oshrun's requests)";

/// Grace between SIGTERM and SIGKILL when ending a job.
const KILL_GRACE: Duration = Duration::from_millis(300);

struct Args {
    npes: usize,
    bind: Bind,
    /// `--host` / `--hostfile`, given as mpirun takes them.
    hosts: Vec<String>,
    /// `--mca KEY VALUE` triples for mpirun.
    mpirun_extra: Vec<String>,
    program: String,
    args: Vec<String>,
}

/// Whether oshrun pins each PE to one CPU (`--bind-to`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bind {
    /// Pin when the PEs outnumber the CPUs: syncs then wait less for a fuller or a changing
    /// core, and the core-aware wait knows which PEs share its core (docs/ARCHITECTURE.md,
    /// "The job file": 4-PE barrier 1.5 µs pinned, 2.9 µs not, on 2 cores).
    Auto,
    Core,
    None,
}

impl Bind {
    fn parse(v: &str) -> Result<Self, String> {
        match v {
            "auto" => Ok(Bind::Auto),
            "core" => Ok(Bind::Core),
            "none" => Ok(Bind::None),
            _ => Err(format!("--bind-to {v}: expected auto, core or none")),
        }
    }
}

fn parse_args() -> Result<Args, String> {
    let mut argv = std::env::args().skip(1);
    let mut npes = 1usize;
    let mut bind = Bind::Auto;
    let mut hosts = Vec::new();
    let mut mpirun_extra = Vec::new();
    while let Some(a) = argv.next() {
        match a.as_str() {
            "--bind-to" => bind = Bind::parse(&argv.next().ok_or("--bind-to needs auto, core or none")?)?,
            s if s.starts_with("--bind-to=") => bind = Bind::parse(&s["--bind-to=".len()..])?,
            "-n" | "-np" | "--np" | "--npes" | "-N" => {
                let v = argv.next().ok_or_else(|| format!("{a} needs a number"))?;
                npes = v.parse().map_err(|_| format!("{a} {v}: not a number of PEs"))?;
            }
            "--host" | "--hostfile" => {
                let v = argv.next().ok_or_else(|| format!("{a} needs a value"))?;
                hosts.extend([a.clone(), v]);
            }
            "--mca" => {
                let k = argv.next().ok_or("--mca needs a key and a value")?;
                let v = argv.next().ok_or("--mca needs a key and a value")?;
                mpirun_extra.extend(["--mca".to_string(), k, v]);
            }
            "-h" | "--help" => return Err(String::new()),
            "--" => {
                let program = argv.next().ok_or("no program given")?;
                return Ok(Args { npes, bind, hosts, mpirun_extra, program, args: argv.collect() });
            }
            s if s.starts_with("-n") && s[2..].parse::<usize>().is_ok() => npes = s[2..].parse().unwrap_or(1),
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            _ => return Ok(Args { npes, bind, hosts, mpirun_extra, program: a, args: argv.collect() }),
        }
    }
    Err("no program given".into())
}

fn size_from_env(name: &str, default: usize) -> Result<usize, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(v) => job::parse_size(&v)
            .ok_or_else(|| format!("{name}={v:?} is not a size (examples: 65536, 512M, 2G)")),
    }
}

fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    format!("signal {sig} ({name})")
}

/// The CPUs this process may run on, in order.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data, filled by the kernel; CPU_ISSET reads within it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

/// The CPU set of each PE (`None`: left to the scheduler).
fn placement(bind: Bind, npes: usize) -> Vec<Option<libc::cpu_set_t>> {
    let cpus = allowed_cpus();
    let pin = match bind {
        Bind::Core => cpus.len() > 1,
        Bind::Auto => cpus.len() > 1 && npes > cpus.len(),
        Bind::None => false,
    };
    (0..npes)
        .map(|pe| {
            pin.then(|| {
                // SAFETY: as in allowed_cpus; the CPU is below CPU_SETSIZE (it came from a set).
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    libc::CPU_SET(cpus[pe % cpus.len()], &mut set);
                    set
                }
            })
        })
        .collect()
}

/// The signals oshrun handles synchronously (blocked, then taken with sigtimedwait).
fn handled_signals() -> libc::sigset_t {
    // SAFETY: sigset_t is plain data; sigemptyset initialises it before use.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGCHLD, libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGUSR1] {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

struct Pe {
    pid: i32,
    running: bool,
}

struct Job {
    pes: Vec<Pe>,
    /// Exit status of the job once something failed (first failure wins).
    failure: Option<i32>,
    /// When the remaining PEs were sent SIGTERM.
    ending_since: Option<Instant>,
}

impl Job {
    fn running(&self) -> usize {
        self.pes.iter().filter(|p| p.running).count()
    }

    fn signal_all(&self, sig: i32) {
        for p in self.pes.iter().filter(|p| p.running) {
            // SAFETY: kill on a child we started and have not reaped (so the pid is ours).
            unsafe { libc::kill(p.pid, sig) };
        }
    }

    fn end(&mut self, status: i32) {
        if self.failure.is_none() {
            self.failure = Some(status);
        }
        if self.ending_since.is_none() {
            self.ending_since = Some(Instant::now());
            self.signal_all(libc::SIGTERM);
        }
    }
}

/// The user's limit on processes (`RLIMIT_NPROC`), for the message of a failed fork.
fn process_limit() -> String {
    // SAFETY: getrlimit writes the plain struct it is given.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return "unlimited".into();
    }
    lim.rlim_cur.to_string()
}

/// Finds `program` as `execvp` would: a name with a slash as it is, else the first executable
/// file of that name in `$PATH` (an empty entry is the current directory).
fn resolve_program(program: &str) -> std::io::Result<std::path::PathBuf> {
    let executable = |p: &std::path::Path| -> std::io::Result<()> {
        if !std::fs::metadata(p)?.is_file() {
            return Err(std::io::Error::from_raw_os_error(libc::EACCES));
        }
        Ok(rustix::fs::access(p, rustix::fs::Access::EXEC_OK)?)
    };
    if program.contains('/') {
        let p = std::path::PathBuf::from(program);
        return executable(&p).map(|()| p);
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| executable(p).is_ok())
        .ok_or_else(|| std::io::Error::from_raw_os_error(libc::ENOENT))
}

/// Starts PEs with `fork` and `execve`, without waiting for each one's exec.
///
/// `std::process::Command::spawn` waits until the child has exec'd (it reads a pipe that
/// exec closes) so that it can report a failed exec: every PE cost oshrun a round trip through
/// the scheduler, and with hundreds of PEs already competing for the cores it took 2.5 ms a PE
/// (512 PEs: 1.29 s of the 1.33 s their start took). Here the program is looked up once
/// before the first fork (a missing one is reported at once, as before), everything the child
/// needs is prepared before it, and a child whose exec fails says so and exits 127, which
/// oshrun reports like any failed PE. Forking directly is sound because oshrun never starts a
/// thread.
struct Launcher {
    path: std::ffi::CString,
    /// The program's name, then its arguments.
    argv: Vec<std::ffi::CString>,
    /// Every variable of oshrun's environment but the job's own, then the job file's.
    env: Vec<std::ffi::CString>,
    /// The program as the user named it (for messages).
    program: String,
}

impl Launcher {
    fn new(args: &Args, path: &std::path::Path, fd: i32) -> Result<Self, String> {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let c =
            |bytes: &[u8], what: &str| CString::new(bytes).map_err(|_| format!("{what} contains a NUL byte"));
        let path = c(path.as_os_str().as_bytes(), "the program's path")?;
        let argv = std::iter::once(args.program.as_str())
            .chain(args.args.iter().map(String::as_str))
            .map(|a| c(a.as_bytes(), "an argument"))
            .collect::<Result<Vec<_>, _>>()?;
        let mut env = Vec::new();
        for (k, v) in std::env::vars_os() {
            if k == job::ENV_JOB_FD || k == job::ENV_PE {
                continue;
            }
            let mut kv = k.as_bytes().to_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            env.push(c(&kv, "an environment variable")?);
        }
        env.push(c(format!("{}={fd}", job::ENV_JOB_FD).as_bytes(), "the job file")?);
        Ok(Launcher { path, argv, env, program: args.program.clone() })
    }

    /// Forks PE `pe` (pinned to `cpus` if given) and returns its pid; the child execs the
    /// program.
    fn start(&self, pe: usize, cpus: Option<&libc::cpu_set_t>) -> std::io::Result<i32> {
        let pe_var = std::ffi::CString::new(format!("{}={pe}", job::ENV_PE)).expect("digits only");
        let argv: Vec<*const libc::c_char> =
            self.argv.iter().map(|a| a.as_ptr()).chain(std::iter::once(std::ptr::null())).collect();
        let envp: Vec<*const libc::c_char> =
            self.env.iter().map(|e| e.as_ptr()).chain([pe_var.as_ptr(), std::ptr::null()]).collect();
        // SAFETY: oshrun has one thread, so the forked child holds no lock another thread
        // held; until exec it runs async-signal-safe calls only: reset the signal mask and
        // SIGPIPE (as Command does: oshrun blocks the signals it handles, and Rust ignores
        // SIGPIPE), pin the PE (a failure only leaves it unpinned), ask the kernel to kill the
        // PE if oshrun dies and check that oshrun did not die already, then exec with vectors
        // prepared before the fork. Only a failed exec writes a message (one thread: safe).
        unsafe {
            let pid = libc::fork();
            if pid < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if pid > 0 {
                return Ok(pid);
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            if let Some(cpus) = cpus {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), cpus);
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 || libc::getppid() == 1 {
                libc::_exit(127);
            }
            libc::execve(self.path.as_ptr(), argv.as_ptr(), envp.as_ptr());
            // oshrun has one thread, so its forked child may format a message; one write
            // keeps it whole beside the other PEs' lines.
            let msg = format!("oshrun: cannot start {}: {}\n", self.program, std::io::Error::last_os_error());
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(127)
        }
    }
}

fn run(args: Args) -> Result<i32, String> {
    if args.npes == 0 {
        return Err("-n 0: a job needs at least one PE".into());
    }
    let heap = size_from_env(job::ENV_SYMMETRIC_SIZE, job::DEFAULT_HEAP_SIZE)?;
    let program = match resolve_program(&args.program) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("oshrun: cannot start {}: {e}", args.program);
            return Ok(127); // a shell's status for a command it cannot run
        }
    };
    let slots = size_from_env(job::ENV_TEAM_SLOTS, job::DEFAULT_TEAM_SLOTS)?;
    let layout = Layout::new(args.npes, heap, slots).map_err(|e| e.report().to_string())?;
    layout.check_address_space().map_err(|e| e.report().to_string())?;
    let file = JobFile::create(layout).map_err(|e| e.report().to_string())?;
    file.make_inheritable().map_err(|e| e.report().to_string())?;
    let header_map = file.map_header().map_err(|e| e.report().to_string())?;
    let header = header_map.view();
    // What every PE is doing (hang reports): oshrun keeps the job's clock and records how
    // each PE ended.
    let states = JobStates::map(&file).map_err(|e| e.report().to_string())?;
    states.tick_clock();
    use std::os::fd::AsRawFd;
    let fd = file.fd().as_raw_fd();

    let set = handled_signals();
    // SAFETY: blocking signals in our own (single-threaded) process; the children unblock them.
    unsafe { libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };

    let mut job = Job { pes: Vec::with_capacity(args.npes), failure: None, ending_since: None };
    let launcher = Launcher::new(&args, &program, fd)?;
    for (pe, cpus) in placement(args.bind, args.npes).into_iter().enumerate() {
        match launcher.start(pe, cpus.as_ref()) {
            Ok(pid) => job.pes.push(Pe { pid, running: true }),
            Err(e) => {
                eprintln!(
                    "oshrun: cannot start PE {pe} of {}: fork: {e} (at most {} processes: `ulimit -u`)",
                    args.npes,
                    process_limit()
                );
                job.end(127);
                break;
            }
        }
    }

    while job.running() > 0 {
        let timeout = libc::timespec { tv_sec: 0, tv_nsec: 50_000_000 };
        // SAFETY: `set` holds blocked signals; info is written by the kernel.
        let sig = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::sigtimedwait(&set, &mut info, &timeout)
        };
        states.tick_clock();
        match sig {
            libc::SIGUSR1 => print_report(&states, "SIGUSR1; the job goes on"),
            libc::SIGINT | libc::SIGTERM | libc::SIGHUP | libc::SIGQUIT => {
                if job.failure.is_none() {
                    if sig == libc::SIGINT && job.ending_since.is_none() {
                        print_report(&states, "SIGINT; ending the job");
                    }
                    eprintln!("oshrun: received {}; ending the job", signal_name(sig));
                }
                job.end(128 + sig);
            }
            _ => {}
        }
        reap(&mut job, &header, &states);
        if let Some(since) = job.ending_since {
            if since.elapsed() >= KILL_GRACE {
                job.signal_all(libc::SIGKILL);
            }
        }
    }
    Ok(job.failure.unwrap_or(0))
}

/// Prints what every PE is doing (SIGUSR1, SIGINT) in one write, so PEs' lines never tear it.
fn print_report(states: &JobStates, why: &str) {
    use std::io::Write;
    let text = format!("oshrun: hang report ({why}): what every PE is doing\n{}", states.report());
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Collects every PE that has ended and decides what its end means for the job.
fn reap(job: &mut Job, header: &HeaderView<'_>, states: &JobStates) {
    loop {
        let mut status = 0;
        // SAFETY: waitpid on our own children, non-blocking.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return;
        }
        let Some(pe) = job.pes.iter().position(|p| p.pid == pid) else {
            continue;
        };
        job.pes[pe].running = false;
        if libc::WIFSIGNALED(status) {
            states.record_end(pe, Some(libc::WTERMSIG(status)), 0);
        } else if libc::WIFEXITED(status) {
            states.record_end(pe, None, libc::WEXITSTATUS(status));
        }
        if job.ending_since.is_some() && job.failure.is_some() {
            continue; // Already ending; this is one of the PEs we stopped.
        }
        if let Some(req) = header.exit_request() {
            if req.status != 0 {
                eprintln!("oshrun: PE {} called shmem_global_exit({}); ending the job", req.pe, req.status);
            }
            job.end(req.status);
            // A global exit with status 0 is not a failure, but still ends the job.
            continue;
        }
        let (failed, code, cause) = if libc::WIFEXITED(status) {
            let code = libc::WEXITSTATUS(status);
            (code != 0, code, format!("exited with status {code}"))
        } else if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            (true, 128 + sig, format!("was killed by {}", signal_name(sig)))
        } else {
            continue;
        };
        if failed {
            eprintln!("oshrun: PE {pe} (pid {pid}) {cause}; ending the job");
            job.end(code);
        }
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(msg) => {
            if msg.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("oshrun: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !args.hosts.is_empty() {
        return run_with_mpirun(args);
    }
    if !args.mpirun_extra.is_empty() {
        eprintln!("oshrun: --mca is for jobs across hosts (--host or --hostfile)");
        return ExitCode::from(2);
    }
    match run(args) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(msg) => {
            eprintln!("oshrun: {msg}");
            ExitCode::from(2)
        }
    }
}

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
fn run_with_mpirun(args: Args) -> ExitCode {
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
const REPORT_WAIT: Duration = Duration::from_secs(10);
/// How long mpirun may take to end the job after SIGTERM before oshrun kills it (its daemons
/// then end the PEs as they lose it).
const MPIRUN_END_WAIT: Duration = Duration::from_secs(10);

/// How long mpirun may take to end the job after a PE reported a lost peer before oshrun
/// kills it: its abort waits for every host's daemon, the lost host's too, for ever.
const LOST_PEER_END_WAIT: Duration = Duration::from_secs(3);

/// Where the end of the job stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
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
struct Mpirun {
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
                self.status.get_or_insert(ferroshmem::runtime::ERROR_EXIT_STATUS);
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
fn write_stderr(bytes: &[u8]) {
    use std::io::Write;
    if !bytes.is_empty() {
        let _ = std::io::stderr().lock().write_all(bytes);
    }
}
