//! shmem.h, shmemx.h, pshmem.h and pshmemx.h compile cleanly (-Wall -Wextra -Werror -pedantic)
//! as every C standard a program may use (C99 without the C11 generic forms) and as C++; the
//! deprecated routines warn only when the program defines SHMEMX_WARN_DEPRECATED.

mod common;

use std::process::Command;

/// Includes both headers and uses the spellings that depend on the language: the C11
/// `shmem_sync(team)` beside the deprecated four-argument `shmem_sync` (the only one in C99
/// and C++).
const PROGRAM: &str = r#"#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>
#include <pshmemx.h>
static long ps[SHMEM_BARRIER_SYNC_SIZE];
void both_syncs(void);
void both_syncs(void) {
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    (void)shmem_sync(SHMEM_TEAM_WORLD);
#endif
    shmem_sync(0, 0, 1, ps);
}
int main(void) { return 0; }
"#;

fn compiles(compiler: &str, std: &str, lang: &str) {
    let out = check_syntax("headers", PROGRAM, compiler, std, lang, &[]);
    assert!(out.status.success(), "{compiler} -std={std}:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Runs `compiler -std=std -fsyntax-only` with the warnings of [`compiles`] and `extra` on
/// `program`, written to a file named after `name`.
fn check_syntax(
    name: &str,
    program: &str,
    compiler: &str,
    std: &str,
    lang: &str,
    extra: &[&str],
) -> std::process::Output {
    let include = common::repo_root().join("crates/ferroshmem-c/include");
    let dir = common::scratch_dir();
    let src = dir.join(format!("{name}-{std}.{}", if lang == "c" { "c" } else { "cpp" }));
    std::fs::write(&src, program).unwrap();
    Command::new(compiler)
        .args([&format!("-std={std}"), "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"])
        .args(extra)
        .arg("-I")
        .arg(&include)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"))
}

/// Uses deprecated routines: a pre-1.4 AMO name, start_pes, an active-set collective.
const DEPRECATED_USE: &str = r#"#include <shmem.h>
static int counter;
static long ps[SHMEM_BARRIER_SYNC_SIZE];
int main(void) {
    start_pes(0);
    (void)shmem_int_fadd(&counter, 1, 0);
    shmem_barrier(0, 0, 1, ps);
    return 0;
}
"#;

/// Without SHMEMX_WARN_DEPRECATED a program using deprecated routines builds with -Werror; with
/// it, each use is a deprecation warning (an error under -Werror), in C and in C++.
fn deprecation_opt_in(compiler: &str, std: &str, lang: &str) {
    let quiet = check_syntax("deprecated", DEPRECATED_USE, compiler, std, lang, &[]);
    assert!(quiet.status.success(), "{compiler} -std={std}:\n{}", String::from_utf8_lossy(&quiet.stderr));
    let warned =
        check_syntax("deprecated-warn", DEPRECATED_USE, compiler, std, lang, &["-DSHMEMX_WARN_DEPRECATED"]);
    let stderr = String::from_utf8_lossy(&warned.stderr);
    assert!(!warned.status.success(), "{compiler} -std={std}: no warning with SHMEMX_WARN_DEPRECATED");
    for name in ["start_pes", "shmem_int_fadd", "shmem_barrier"] {
        assert!(
            stderr.lines().any(|l| l.contains("deprecated") && l.contains(name)),
            "{compiler} -std={std}: no deprecation warning for {name}:\n{stderr}"
        );
    }
}

#[test]
fn deprecated_routines_warn_only_when_asked() {
    deprecation_opt_in("cc", "c11", "c");
    deprecation_opt_in("cc", "c99", "c");
    deprecation_opt_in("c++", "c++17", "c++");
}

#[test]
fn headers_compile_as_c99_c11_c17() {
    for std in ["c99", "c11", "c17"] {
        compiles("cc", std, "c");
    }
}

#[test]
fn headers_compile_as_cpp() {
    for std in ["c++11", "c++17", "c++20"] {
        compiles("c++", std, "c++");
    }
}

/// C++ programs written for other libraries pass C's complex types (`float _Complex`) to the
/// complex reductions: `tests/cxx/complex_gnu.cpp` (which c_programs also runs) compiles with
/// the warnings of [`compiles`] as C++11 and C++20.
#[test]
fn gnu_complex_reductions_compile_as_cpp11_and_cpp20() {
    let root = common::repo_root();
    for std in ["c++11", "c++20"] {
        let out = Command::new("c++")
            .args([&format!("-std={std}"), "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"])
            .arg("-I")
            .arg(root.join("crates/ferroshmem-c/include"))
            .arg(root.join("tests/cxx/complex_gnu.cpp"))
            .output()
            .unwrap();
        assert!(out.status.success(), "c++ -std={std}:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}
