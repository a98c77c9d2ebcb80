//! Builds every C program under `tests/c`, `tests/launch` and `examples/c` and every C++ program
//! under `tests/cxx` with oshcc (C++ with `OSHCC_CC=c++`) and runs it under oshrun as its
//! directives say. A directive is a line
//! `// oshrun-test: npes=1,2,4 expect-exit=0 [timeout=60] [max-ms=N] [env=NAME=VALUE] [expect-stdout-file=F] [expect-stderr=TEXT...]`
//! where `expect-stderr` takes the rest of the line (a substring of stderr) and
//! `expect-stdout-file` names a file (beside the source) that stdout must equal exactly.
//! A file may carry several directives. Prints `c programs: N passed, M failed`.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Default)]
struct Directive {
    npes: Vec<usize>,
    expect_exit: i32,
    timeout: u64,
    env: Vec<(String, String)>,
    stdout_file: Option<PathBuf>,
    stderr: Option<String>,
    /// Upper bound on the whole job, for failure paths that must not linger (not a benchmark).
    max_ms: Option<u128>,
}

fn parse(source: &Path) -> Vec<Directive> {
    let text = std::fs::read_to_string(source).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("// oshrun-test:") else { continue };
        let mut d = Directive { timeout: 60, ..Default::default() };
        let (head, stderr) = match rest.find("expect-stderr=") {
            Some(i) => (&rest[..i], Some(rest[i + "expect-stderr=".len()..].trim().to_string())),
            None => (rest, None),
        };
        d.stderr = stderr;
        for tok in head.split_whitespace() {
            let (k, v) = tok
                .split_once('=')
                .unwrap_or_else(|| panic!("{}: bad directive token {tok}", source.display()));
            match k {
                "npes" => d.npes = v.split(',').map(|n| n.parse().unwrap()).collect(),
                "expect-exit" => d.expect_exit = v.parse().unwrap(),
                "timeout" => d.timeout = v.parse().unwrap(),
                "max-ms" => d.max_ms = Some(v.parse().unwrap()),
                "env" => {
                    let (a, b) = v.split_once('=').unwrap();
                    d.env.push((a.into(), b.into()));
                }
                "expect-stdout-file" => d.stdout_file = Some(source.parent().unwrap().join(v)),
                _ => panic!("{}: unknown directive key {k}", source.display()),
            }
        }
        assert!(!d.npes.is_empty(), "{}: directive without npes", source.display());
        out.push(d);
    }
    out
}

fn sources() -> Vec<PathBuf> {
    let root = common::repo_root();
    let mut v = Vec::new();
    for (dir, ext) in [("tests/c", "c"), ("tests/launch", "c"), ("examples/c", "c"), ("tests/cxx", "cpp")] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            v.extend(
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == ext)),
            );
        }
    }
    v.sort();
    v
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let (mut passed, mut failed) = (0, 0);
    for source in sources() {
        let name = source.file_name().unwrap().to_string_lossy().into_owned();
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let directives = parse(&source);
        if directives.is_empty() {
            continue;
        }
        let exe = match std::panic::catch_unwind(|| common::compile_c(&source)) {
            Ok(exe) => exe,
            Err(_) => {
                println!("FAIL {name}: does not compile");
                failed += 1;
                continue;
            }
        };
        for d in &directives {
            for &n in &d.npes {
                let env: Vec<(&str, &str)> = d.env.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
                let result = std::panic::catch_unwind(|| {
                    common::run_job(n, &exe, &[], &env, Duration::from_secs(d.timeout))
                });
                let verdict = match result {
                    Err(_) => Err("the job left something behind (see panic above)".to_string()),
                    Ok(r) if r.timed_out => Err(format!("timed out after {} s", d.timeout)),
                    Ok(r) if r.status != Some(d.expect_exit) => Err(format!(
                        "exit {:?}, expected {}\nstdout:\n{}\nstderr:\n{}",
                        r.status, d.expect_exit, r.stdout, r.stderr
                    )),
                    Ok(r) => match (&d.stderr, &d.stdout_file) {
                        (Some(s), _) if !r.stderr.contains(s.as_str()) => {
                            Err(format!("stderr lacks {s:?}:\n{}", r.stderr))
                        }
                        (_, Some(f)) if std::fs::read_to_string(f).unwrap() != r.stdout => {
                            Err(format!("stdout differs from {}:\n{}", f.display(), r.stdout))
                        }
                        _ if d.max_ms.is_some_and(|m| r.elapsed.as_millis() > m) => Err(format!(
                            "took {} ms, more than {} ms",
                            r.elapsed.as_millis(),
                            d.max_ms.unwrap()
                        )),
                        _ => Ok(r.elapsed),
                    },
                };
                match verdict {
                    Ok(t) => {
                        passed += 1;
                        println!("ok   {name} -n {n} ({} ms)", t.as_millis());
                    }
                    Err(why) => {
                        failed += 1;
                        println!("FAIL {name} -n {n}: {why}");
                    }
                }
            }
        }
    }
    println!("c programs: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
