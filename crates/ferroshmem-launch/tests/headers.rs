//! shmem.h and shmemx.h compile cleanly (-Wall -Wextra -Werror -pedantic) as every C standard
//! a program may use (C99 without the C11 generic forms) and as C++.

mod common;

use std::process::Command;

/// Includes both headers and uses the spellings that depend on the language: the C11
/// `shmem_sync(team)` beside the deprecated four-argument `shmem_sync` (the only one in C99
/// and C++).
const PROGRAM: &str = r#"#include <shmem.h>
#include <shmemx.h>
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
    let include = common::repo_root().join("crates/ferroshmem-c/include");
    let dir = common::scratch_dir();
    let src = dir.join(format!("headers-{std}.{}", if lang == "c" { "c" } else { "cpp" }));
    std::fs::write(&src, PROGRAM).unwrap();
    let out = Command::new(compiler)
        .args([&format!("-std={std}"), "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", "-I"])
        .arg(&include)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(out.status.success(), "{compiler} -std={std}:\n{}", String::from_utf8_lossy(&out.stderr));
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
