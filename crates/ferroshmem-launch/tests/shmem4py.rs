//! shmem4py, the Python binding of OpenSHMEM (PyPI `shmem4py`), on ferroshmem: installed into a
//! virtual environment under `target/` by the README's line (run as written there), over a
//! shmem4py built first against another OpenSHMEM's `oshcc` when one is on PATH (Open MPI's,
//! which CI installs); then our `tests/python/shmem4py_teams.py`, two of shmem4py's own demos
//! (from its source distribution, not kept in this repository) and the README's excepthook
//! line (`tests/python/uncaught_exception.py`) run under oshrun. Skipped, with the reason printed, when no package registry is reachable (or there is
//! no Python 3 with venv); every other failure fails the test.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

/// The version the README's line installs and this test checks.
const SHMEM4PY: &str = "shmem4py==1.0.0";
/// shmem4py 1.0.0 calls `np.array(..., copy=False)`, which NumPy 2 rejects.
const NUMPY: &str = "numpy<2";

/// Runs `cmd`, failing the test if it takes longer than `limit`; its output.
fn run(cmd: &mut Command, limit: Duration) -> Output {
    let (output, timed_out) = common::output_within(cmd, limit);
    assert!(!timed_out, "{cmd:?} took more than {limit:?}");
    output
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
    // pip caches what it builds: a cache of the test's own, emptied, so that what is in it is
    // what this test put there.
    let cache = work.join("pip-cache");
    std::fs::remove_dir_all(&cache).ok();
    let pip = |args: &[&str], oshcc: Option<&str>| {
        let mut cmd = Command::new(&python);
        cmd.args(["-m", "pip"]).args(args).env("PIP_CACHE_DIR", &cache);
        match oshcc {
            Some(o) => cmd.env("OSHCC", o),
            None => cmd.env_remove("OSHCC"),
        };
        let out = run(&mut cmd, Duration::from_secs(900));
        assert!(
            out.status.success(),
            "pip {}: failed:\n{}\n{}",
            args.join(" "),
            text(&out.stdout),
            text(&out.stderr)
        );
    };
    // The case the README's line must survive: a shmem4py built earlier against another
    // OpenSHMEM (a plain `pip install shmem4py` picks up whatever `oshcc` is on PATH, Open
    // MPI's here), installed in the environment and in pip's wheel cache.
    let other_oshcc = which("oshcc").filter(|p| p.canonicalize().ok() != common::oshcc().canonicalize().ok());
    match &other_oshcc {
        Some(other) => {
            pip(&["install", SHMEM4PY, NUMPY], None);
            let linked = shmem4py_links(&venv);
            assert!(
                !linked.contains("libferroshmem"),
                "a plain pip install (oshcc = {}) linked {linked}",
                other.display()
            );
        }
        None => eprintln!(
            "shmem4py: no other oshcc on PATH: the install line is tested on a clean environment only"
        ),
    }
    // The README's line, verbatim but for the path of this build's oshcc.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("OSHCC=") && l.contains("pip install") && l.contains("shmem4py"))
        .expect("the README's shmem4py install line");
    let line = line.replace("$PWD/target/release/oshcc", &common::oshcc().display().to_string());
    let path = format!("{}:{}", venv.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let install = run(
        Command::new("sh").arg("-c").arg(&line).env("PATH", &path).env("PIP_CACHE_DIR", &cache),
        Duration::from_secs(900),
    );
    assert!(
        install.status.success(),
        "{line}: failed:\n{}\n{}",
        text(&install.stdout),
        text(&install.stderr)
    );
    let linked = shmem4py_links(&venv);
    assert!(linked.contains("libferroshmem"), "after the README's line shmem4py links {linked}");
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
    // The README's excepthook line: PE 1's uncaught exception ends the job, whose other PEs
    // wait for PE 1 (without the line they would wait until the timeout).
    let script = root.join("tests/python/uncaught_exception.py");
    for npes in [2, 3] {
        let r = common::run_job(npes, &python, &[script.to_str().unwrap()], &[], Duration::from_secs(60));
        assert!(!r.timed_out && r.status == Some(1), "uncaught_exception.py at {npes} PEs: {r:?}");
        assert!(r.stderr.contains("RuntimeError: PE 1 fails before its put"), "{r:?}");
        assert!(r.stderr.contains("PE 1 called shmem_global_exit(1)"), "{r:?}");
        assert!(!r.stdout.contains("passed a barrier"), "{r:?}");
    }
}

/// The shared libraries that shmem4py's compiled module links to (`ldd` of it), as text.
fn shmem4py_links(venv: &Path) -> String {
    let lib = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages/shmem4py"))
        .find(|p| p.is_dir())
        .expect("shmem4py installed in the venv");
    let module = std::fs::read_dir(&lib)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "so"))
        .expect("shmem4py's compiled module");
    let out = Command::new("ldd").arg(&module).output().expect("run ldd");
    text(&out.stdout)
}

/// The first `name` on PATH.
fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}
