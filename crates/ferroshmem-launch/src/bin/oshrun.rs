//! `oshrun -n N prog args...`: starts N PEs of an OpenSHMEM program as processes sharing one job
//! file, forwards signals, and ends the whole job as soon as one PE fails.
//!
//! PEs inherit oshrun's stdout and stderr, so their lines reach the terminal in the order they
//! were written (the C library makes stdout line-buffered). When a PE fails, oshrun prints one
//! line naming it and the cause, ends the other PEs (SIGTERM, then SIGKILL after 300 ms) and exits
//! with the failing PE's status (128 + signal number for a signal). Each PE is also tied to
//! oshrun's life (PR_SET_PDEATHSIG), so nothing outlives the job. When the PEs outnumber the
//! CPUs oshrun may use, each PE is pinned to one of them, round-robin; with 2 PEs or more but no
//! more PEs than CPUs, each to its own slice of them (`--bind-to`).
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

#[path = "oshrun/mpirun.rs"]
mod mpirun;
use mpirun::run_with_mpirun;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use ferroshmem_core::launch::{self as job, HeaderView, JobFile, JobStates, Layout};

const USAGE: &str =
    "usage: oshrun -n N [--bind-to auto|core|none] [--host LIST | --hostfile FILE] [--] program [args...]
  -n, -np, --npes N   number of PEs to start (default 1)
  --host LIST         run across hosts (e.g. h1:2,h2:2): hands the job to mpirun
  --hostfile FILE     the same with an Open MPI hostfile
  --mca KEY VALUE     passed to mpirun (only with --host/--hostfile; so is $OSHRUN_MPIRUN_ARGS)
  --bind-to WHERE     core: PE i runs only on the (i mod k)-th of the k CPUs oshrun may use;
                      none: PEs go where the scheduler puts them; auto (default): core when
                      the PEs outnumber those CPUs, else PE i on the i-th of N slices of them
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

/// Where oshrun pins each PE (`--bind-to`; `cpu_lists` has the rule).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bind {
    /// Pin to one CPU when the PEs outnumber the CPUs: syncs then wait less for a fuller or a
    /// changing core, and the core-aware wait knows which PEs share its core
    /// (docs/ARCHITECTURE.md, "The job file": 4-PE barrier 1.5 µs pinned, 2.9 µs not, on 2
    /// cores); else to disjoint slices of the CPUs, so that two PEs never share one.
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
    cpu_lists(bind, npes, &allowed_cpus())
        .into_iter()
        .map(|list| {
            list.map(|cpus| {
                // SAFETY: cpu_set_t is plain data, zeroed then filled by CPU_SET; every CPU
                // came from a set the kernel filled, so it is below CPU_SETSIZE.
                unsafe {
                    let mut set: libc::cpu_set_t = std::mem::zeroed();
                    for cpu in cpus {
                        libc::CPU_SET(cpu, &mut set);
                    }
                    set
                }
            })
        })
        .collect()
}

/// The CPUs of each PE, from the `cpus` oshrun may use (`None`: left to the scheduler).
/// - More PEs than CPUs (`auto`), or `core`: PE i on the (i mod k)-th CPU alone.
/// - `auto` with 2 to k PEs: PE i on the i-th of `npes` consecutive slices of the CPUs (a
///   domain of about k / npes CPUs), so that no two PEs of the job ever share a CPU while the
///   threads of one PE still spread over its domain. Left to itself, the scheduler put both PEs
///   of a 2-PE job on one of this machine's 2 CPUs beside busy programs, for the whole job, in 6
///   of 18 jobs (every sync 50-200 µs instead of 0.05-0.2; docs/ARCHITECTURE.md, "The job
///   file"). Jobs started side by side share the slices rather than crowding onto the first
///   CPUs.
/// - One PE, one CPU, or `none`: nothing.
fn cpu_lists(bind: Bind, npes: usize, cpus: &[usize]) -> Vec<Option<Vec<usize>>> {
    let k = cpus.len();
    let one_each = |pe: usize| Some(vec![cpus[pe % k]]);
    match bind {
        _ if k < 2 => vec![None; npes],
        Bind::None => vec![None; npes],
        Bind::Core => (0..npes).map(one_each).collect(),
        Bind::Auto if npes > k => (0..npes).map(one_each).collect(),
        Bind::Auto if npes < 2 => vec![None; npes],
        // npes <= k, so each slice holds at least one CPU.
        Bind::Auto => (0..npes).map(|pe| Some(cpus[pe * k / npes..(pe + 1) * k / npes].to_vec())).collect(),
    }
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

#[cfg(test)]
mod tests {
    use super::{cpu_lists, Bind};

    fn lists(bind: Bind, npes: usize, k: usize) -> Vec<Option<Vec<usize>>> {
        cpu_lists(bind, npes, &(0..k).collect::<Vec<_>>())
    }

    #[test]
    fn outnumbering_pes_take_one_cpu_each_round_robin() {
        let want: Vec<_> = [0, 1, 2, 0, 1].iter().map(|&c| Some(vec![c])).collect();
        assert_eq!(lists(Bind::Auto, 5, 3), want);
        assert_eq!(lists(Bind::Core, 5, 3), want);
    }

    #[test]
    fn fewer_pes_than_cpus_take_disjoint_domains_covering_every_cpu() {
        for k in 2..40 {
            for npes in 2..=k {
                let got = lists(Bind::Auto, npes, k);
                let all: Vec<usize> = got.iter().flat_map(|l| l.clone().unwrap()).collect();
                assert_eq!(all, (0..k).collect::<Vec<_>>(), "{npes} PEs on {k} CPUs");
                for l in &got {
                    let len = l.as_ref().unwrap().len();
                    assert!(len == k / npes || len == k.div_ceil(npes), "{npes} PEs on {k} CPUs: {got:?}");
                }
            }
        }
        assert_eq!(lists(Bind::Auto, 2, 3), vec![Some(vec![0]), Some(vec![1, 2])]);
    }

    #[test]
    fn one_pe_one_cpu_or_none_leave_the_scheduler_free() {
        assert_eq!(lists(Bind::Auto, 1, 8), vec![None]);
        assert_eq!(lists(Bind::Auto, 4, 1), vec![None; 4]);
        assert_eq!(lists(Bind::Core, 4, 1), vec![None; 4]);
        assert_eq!(lists(Bind::None, 4, 2), vec![None; 4]);
        assert_eq!(lists(Bind::Core, 2, 4), vec![Some(vec![0]), Some(vec![1])]);
    }
}
