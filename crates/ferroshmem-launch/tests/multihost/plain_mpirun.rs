//! Faults under Open MPI's `mpirun` started directly, as a user who never heard of oshrun
//! starts a job (issue 29): a PE that calls `shmem_global_exit`, returns non-zero without
//! finalizing, or is killed, alone on its host or not, while the others wait in a barrier.
//! `mpirun` must end the job with that PE's status, name the PE, and leave nothing behind.
//! A host whose network is cut: the PEs of the other hosts end with the peer watch's report,
//! and `mpirun` ends once its TCP connection to the lost host's daemon gives up
//! ([`a_cut_host_under_plain_mpirun`]).
use std::process::Command;
use std::time::Duration;

use super::signals::{Hosts, CUT_LIMIT};
use super::*;

/// One fault: the program and its arguments, the status `mpirun` must return and, where
/// mpirun prints one, its line naming the PE (after `shmem_global_exit` it prints none: the
/// status is the check).
struct Fault {
    program: &'static str,
    args: &'static [&'static str],
    status: i32,
    says: Option<&'static str>,
}

/// Each must end within this, from `mpirun`'s start (the launch of a few simulated hosts is
/// about 1 s of it; a loaded machine needs the rest).
const FAULT_LIMIT: Duration = Duration::from_secs(20);

const FAULTS: &[Fault] = &[
    Fault { program: "tests/launch/global_exit.c", args: &[], status: 3, says: None },
    Fault { program: "tests/launch/exit_status.c", args: &[], status: 7, says: Some("Exit code:    7") },
    // The last PE (alone on its host in the layout 3:2,2,1).
    Fault {
        program: "tests/multihost/c/slurm_fault.c",
        args: &["exit", "LAST"],
        status: 7,
        says: Some("Exit code:    7"),
    },
    Fault {
        program: "tests/multihost/c/slurm_fault.c",
        args: &["kill", "LAST"],
        status: 137,
        says: Some("exited on signal 9 (Killed)"),
    },
    // PE 1, which shares its host with PE 0.
    Fault {
        program: "tests/multihost/c/slurm_fault.c",
        args: &["kill", "1"],
        status: 137,
        says: Some("process rank 1 with PID"),
    },
];

/// Every fault of [`FAULTS`] under `mpirun` alone.
pub(super) fn faults_under_plain_mpirun(hosts: &Hosts) -> Result<(), String> {
    let last = (hosts.npes - 1).to_string();
    for fault in FAULTS {
        let exe = common::compile_c(&common::repo_root().join(fault.program));
        let args: Vec<&str> =
            fault.args.iter().map(|&a| if a == "LAST" { last.as_str() } else { a }).collect();
        let mut cmd = Command::new("mpirun");
        cmd.args(hosts.mpirun_args.split_whitespace())
            .args(["--host", &hosts.hostlist, "-np", &hosts.npes.to_string()])
            .arg(&exe)
            .args(&args);
        let what = format!("{} {}", fault.program, args.join(" "));
        let (code, out, elapsed, timed_out) =
            common::run_with_deadline(cmd, FAULT_LIMIT, Duration::from_secs(5));
        if timed_out {
            return Err(format!("{what}: mpirun did not end within {} s\n{out}", FAULT_LIMIT.as_secs()));
        }
        if code != Some(fault.status) {
            return Err(format!("{what}: mpirun exited {code:?}, expected {}\n{out}", fault.status));
        }
        if let Some(says) = fault.says.filter(|s| !out.contains(s)) {
            return Err(format!("{what}: mpirun did not say {says:?}\n{out}"));
        }
        println!("     {what}: exit {}, {} ms", fault.status, elapsed.as_millis());
    }
    signals::no_process_left()
}

/// What the kernel makes of a connection whose data goes unacknowledged: `mpirun`'s abort
/// sends the lost host's daemon its kill and waits for it until TCP gives up on that
/// connection, after `net.ipv4.tcp_retries2` retransmissions (15 by default: about 15
/// minutes). With 3 (about 3 s), as a site that wants lost hosts found sets it on the host
/// that runs `mpirun`, the job ends within seconds. Set in the namespace where `mpirun` runs
/// (this machine's own) for the test, and the value before put back on drop.
struct TcpRetries {
    before: String,
}

const TCP_RETRIES: &str = "/proc/sys/net/ipv4/tcp_retries2";

impl TcpRetries {
    fn set(value: &str) -> Result<TcpRetries, String> {
        let before = std::fs::read_to_string(TCP_RETRIES).map_err(|e| format!("{TCP_RETRIES}: {e}"))?;
        std::fs::write(TCP_RETRIES, value).map_err(|e| format!("{TCP_RETRIES}: {e}"))?;
        Ok(TcpRetries { before: before.trim().to_string() })
    }
}

impl Drop for TcpRetries {
    fn drop(&mut self) {
        let _ = std::fs::write(TCP_RETRIES, &self.before);
    }
}

/// `tests/multihost/c/fault_cut.c` (barriers in a loop) under `mpirun` started directly, the
/// last host's network cut once the loop runs: the other hosts' PEs report its PEs lost,
/// naming the host, within the peer watch's limit, and call `PMIx_Abort`; `mpirun` ends the
/// job non-zero once its connection to the lost host's daemon gives up (see [`TcpRetries`]).
pub(super) fn a_cut_host_under_plain_mpirun(hosts: &Hosts) -> Result<(), String> {
    let exe = common::compile_c(&common::repo_root().join("tests/multihost/c/fault_cut.c"));
    let _retries = TcpRetries::set("3")?;
    let mut cmd = Command::new("mpirun");
    cmd.args(hosts.mpirun_args.split_whitespace())
        .args(["--host", &hosts.hostlist, "-np", &hosts.npes.to_string(), "-x", "SHMEMX_PEER_TIMEOUT_MS"])
        .arg(&exe)
        .env("SHMEMX_PEER_TIMEOUT_MS", CUT_LIMIT.as_millis().to_string());
    let cut = signals::cut_the_last_host(hosts, cmd)?;
    if cut.code.is_none_or(|c| c == 0) {
        return Err(format!("exit {:?}, expected a failure\n{}", cut.code, cut.output));
    }
    // The watch's limit, TCP's 3 retransmissions (about 3 s) and slack for a loaded machine.
    if cut.took > CUT_LIMIT + Duration::from_secs(20) {
        return Err(format!("mpirun ended {} ms after the cut", cut.took.as_millis()));
    }
    println!("     {} cut: mpirun ended {} ms later, exit {:?}", cut.host, cut.took.as_millis(), cut.code);
    signals::no_process_left()
}
