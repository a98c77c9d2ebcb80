//! Runs the loom models of the wait protocol (`src/wait.rs`, module `loom_model`) as part of the
//! normal test command. They need the crate built with `--cfg loom` (its atomics, yields and
//! futex then come from loom: `src/sync_prims.rs`), which a test target cannot ask for, so this
//! test runs
//! `RUSTFLAGS="--cfg loom" cargo test -p ferroshmem-core --release --lib loom`
//! itself, in a target directory of its own (`target/loom`, so that the loom build and the
//! normal one do not invalidate each other), and fails with its output if a model fails.
//! The first run builds the crate and loom in release mode (about a minute on two cores);
//! the models take seconds. `LOOM_MAX_PREEMPTIONS=3` explores deeper (a minute more).

#![allow(unsafe_code)]

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Generous: a cold build of the crate and loom, on a loaded machine.
const LIMIT: Duration = Duration::from_secs(30 * 60);

/// Reads `pipe` to its end on a thread, so that a chatty child cannot block on a full pipe.
fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        pipe.read_to_string(&mut text).ok();
        text
    })
}

#[test]
fn loom_models_of_the_wait_protocol() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest_dir = env!("CARGO_MANIFEST_DIR");
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(|d| format!("{d}/loom"))
        .unwrap_or_else(|_| format!("{manifest_dir}/../../target/loom"));
    let mut cmd = Command::new(cargo);
    cmd.args(["test", "-p", "ferroshmem-core", "--release", "--lib", "--manifest-path"])
        .arg(format!("{manifest_dir}/Cargo.toml"))
        .args(["loom", "--", "--test-threads=2"])
        .env("CARGO_TARGET_DIR", &target)
        // The caller's flags, plus the one that selects loom.
        .env("RUSTFLAGS", format!("{} --cfg loom", std::env::var("RUSTFLAGS").unwrap_or_default()))
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so that a timeout ends cargo and whatever it started.
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn().expect("start cargo");
    let t_out = drain(child.stdout.take().unwrap());
    let t_err = drain(child.stderr.take().unwrap());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > LIMIT {
            // SAFETY: kill(2) of the process group of the child this test started (its id).
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (t_out.join().unwrap(), t_err.join().unwrap());
    let report = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    let status = status.unwrap_or_else(|| panic!("the loom run took more than {LIMIT:?}\n{report}"));
    assert!(status.success(), "the loom models failed ({status})\n{report}");
    // The filter must have found the models (a renamed module would run nothing and pass).
    assert!(
        stdout.contains("loom_model::") && !stdout.contains("running 0 tests"),
        "no loom model ran\n{report}"
    );
}
