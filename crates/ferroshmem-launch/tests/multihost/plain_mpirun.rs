//! Faults under Open MPI's `mpirun` started directly, as a user who never heard of oshrun
//! starts a job (issue 29): a PE that calls `shmem_global_exit`, returns non-zero without
//! finalizing, or is killed, alone on its host or not, while the others wait in a barrier.
//! `mpirun` must end the job with that PE's status, name the PE, and leave nothing behind.
//! (A host whose network is cut is not among them: `mpirun`'s abort waits for the lost host's
//! daemon for ever; the PEs end, with the peer watch's report, but `mpirun` stays. oshrun
//! ends it, see `signals::a_cut_host_ends_the_job`.)
use std::process::Command;
use std::time::Duration;

use super::signals::Hosts;
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
