//! Runs `fabric-smoke` under `mpirun -n 2` (forced TCP, then UCX's default transports) and
//! checks that it exits 0 with every check reported ok. Skipped when mpirun is not installed
//! or the crate was built without UCX and PMIx.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);

const CHECKS: &[&str] = &[
    "rank 0: check thread mode ok",
    "rank 1: check thread mode ok",
    "rank 0: check gets ok",
    "rank 0: check fetch-adds ok",
    "rank 0: check blocking puts ok",
    "rank 0: check 64-bit atomics ok",
    "rank 0: check 32-bit atomics ok",
    "rank 0: check 1 MiB put verified by get ok",
    "rank 0: check finished long before the peer's compute ended ok",
    "rank 1: check fadd total at end of compute ok",
    "rank 1: check 1 MiB put landed during compute ok",
    "rank 1: check small puts landed ok",
    "rank 1: check fadd total after fence ok",
    "rank 1: check progress thread mostly asleep ok",
];

fn find_in_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

fn run_smoke(mpirun: &PathBuf, tls: Option<&str>) {
    let mut cmd = Command::new(mpirun);
    cmd.args(["-n", "2", "--oversubscribe"])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("UCX_TLS");
    if let Some(tls) = tls {
        cmd.env("UCX_TLS", tls).args(["-x", "UCX_TLS"]);
    }
    cmd.arg(env!("CARGO_BIN_EXE_fabric-smoke")).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawning mpirun");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("waiting for mpirun") {
            break Some(st);
        }
        if start.elapsed() > TIMEOUT {
            // mpirun forwards SIGTERM to its ranks; SIGKILL if it does not go.
            let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
            std::thread::sleep(Duration::from_secs(5));
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (out_t.join().unwrap(), err_t.join().unwrap());
    let label = tls.unwrap_or("default transports");
    println!("--- fabric-smoke, UCX_TLS={label}, {:.1} s\n{stdout}{stderr}", start.elapsed().as_secs_f64());
    let status = status.unwrap_or_else(|| panic!("fabric-smoke ({label}) did not finish within {TIMEOUT:?}"));
    assert!(status.success(), "fabric-smoke ({label}) failed: {status}\n{stdout}\n{stderr}");
    for check in CHECKS {
        assert!(stdout.contains(check), "fabric-smoke ({label}): missing {check:?}\n{stdout}");
    }
    assert!(!stdout.contains("FAILED"), "fabric-smoke ({label}) reported a failure\n{stdout}");
    assert!(stdout.contains("rank 0: median latency"), "no timings printed\n{stdout}");
}

#[test]
fn smoke_under_mpirun() {
    if cfg!(not(fabric)) {
        println!("skipped: ferroshmem-fabric built without UCX and PMIx");
        return;
    }
    let Some(mpirun) = find_in_path("mpirun") else {
        println!("skipped: mpirun not installed");
        return;
    };
    run_smoke(&mpirun, Some("tcp,self"));
    run_smoke(&mpirun, None);
}
