//! shmem4py, the Python binding of OpenSHMEM (PyPI `shmem4py`), on ferroshmem: installed into a
//! virtual environment under `target/` the way the README says (`OSHCC="oshcc --shmem4py" pip
//! install shmem4py "numpy<2"`), then our `tests/python/shmem4py_teams.py` and two of
//! shmem4py's own demos (from its source distribution, not kept in this repository) run under
//! oshrun. Skipped, with the reason printed, when no package registry is reachable (or there is
//! no Python 3 with venv); every other failure fails the test.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The version the README's line installs and this test checks.
const SHMEM4PY: &str = "shmem4py==1.0.0";
/// shmem4py 1.0.0 calls `np.array(..., copy=False)`, which NumPy 2 rejects.
const NUMPY: &str = "numpy<2";

/// Runs `cmd`, killing it after `limit`; its output.
fn run(cmd: &mut Command, limit: Duration) -> Output {
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
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            panic!("{cmd:?} took more than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output { status, stdout: t_out.join().unwrap(), stderr: t_err.join().unwrap() }
}

fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).into_owned()
}

fn skip(why: &str) {
    eprintln!("shmem4py: skipped: {why}");
}

#[test]
fn shmem4py_installs_with_oshcc_and_runs_under_oshrun() {
    let root = common::repo_root();
    let work = root.join("target/shmem4py");
    let venv = work.join("venv");
    let download = work.join("download");
    std::fs::create_dir_all(&download).unwrap();
    let python = venv.join("bin/python");
    if !python.exists() {
        let made = Command::new("python3").args(["-m", "venv"]).arg(&venv).output();
        match made {
            Ok(o) if o.status.success() => {}
            Ok(o) => return skip(&format!("python3 -m venv failed: {}", text(&o.stderr).trim())),
            Err(e) => return skip(&format!("no python3: {e}")),
        }
    }
    // The registry probe: shmem4py's source distribution (its demos come from it too).
    let probe = run(
        Command::new(&python)
            .args(["-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d"])
            .arg(&download)
            .arg(SHMEM4PY),
        Duration::from_secs(300),
    );
    if !probe.status.success() {
        let err = text(&probe.stderr);
        return skip(&format!("no package registry reachable: {}", err.lines().last().unwrap_or("").trim()));
    }
    // The README's line, with this build's oshcc; shmem4py itself rebuilt every time (a venv
    // kept from an earlier run would otherwise keep its old build).
    let oshcc = format!("{} --shmem4py", common::oshcc().display());
    for args in [
        &["install", SHMEM4PY, NUMPY][..],
        &["install", "--force-reinstall", "--no-deps", "--no-cache-dir", SHMEM4PY],
    ] {
        let install = run(
            Command::new(&python).args(["-m", "pip"]).args(args).env("OSHCC", &oshcc),
            Duration::from_secs(900),
        );
        assert!(
            install.status.success(),
            "OSHCC=\"{oshcc}\" pip {}: failed:\n{}\n{}",
            args.join(" "),
            text(&install.stdout),
            text(&install.stderr)
        );
    }
    let script = root.join("tests/python/shmem4py_teams.py");
    for npes in [1, 2, 3, 4] {
        let r = common::run_job(npes, &python, &[script.to_str().unwrap()], &[], Duration::from_secs(120));
        assert!(!r.timed_out && r.status == Some(0), "shmem4py_teams.py at {npes} PEs: {r:?}");
        let mut lines: Vec<&str> = r.stdout.lines().collect();
        lines.sort();
        let want: Vec<String> = (0..npes).map(|i| format!("ok {i} of {npes}")).collect();
        assert_eq!(lines, want, "shmem4py_teams.py at {npes} PEs: {r:?}");
    }
    // Two of shmem4py's own demos, unpacked from the source distribution.
    let sdist = std::fs::read_dir(&download)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .expect("the downloaded shmem4py source distribution");
    let untar = Command::new("tar").arg("xzf").arg(&sdist).arg("-C").arg(&work).output().unwrap();
    assert!(untar.status.success(), "tar: {}", text(&untar.stderr));
    let demo = |name: &str| -> String {
        let dir = Path::new(&work).join("shmem4py-1.0.0/demo");
        let r =
            common::run_job(4, &python, &[dir.join(name).to_str().unwrap()], &[], Duration::from_secs(120));
        assert!(!r.timed_out && r.status == Some(0), "demo {name}: {r:?}");
        r.stdout
    };
    // Their demos print text and newline apart, so lines of different PEs may interleave:
    // each PE's text must be there once, whatever the line breaks.
    let each_once = |out: &str, want: Vec<String>| {
        let joined = out.replace('\n', "");
        for w in &want {
            assert_eq!(joined.matches(w.as_str()).count(), 1, "{w:?} in {out:?}");
        }
        assert_eq!(joined.len(), want.iter().map(String::len).sum::<usize>(), "only these in {out:?}");
    };
    each_once(&demo("hello.py"), (0..4).map(|i| format!("Hello from PE {i} of 4")).collect());
    each_once(&demo("broadcast.py"), (0..4).map(|i| format!("{i}: [1 2 3 4]")).collect());
}
