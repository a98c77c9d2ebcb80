//! The library's symbol table against the headers: every routine that shmem.h, shmemx.h,
//! pshmem.h and pshmemx.h declare is exported by libferroshmem.so (the inline long double
//! p/g excepted), every exported routine is declared, and every exported routine has its
//! profiling name (`pshmem_putmem` for `shmem_putmem`, `p_my_pe` for `_my_pe`) and back.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

/// The routines libferroshmem.so exports (functions, `T` in `nm -D --defined-only`).
fn exported() -> BTreeSet<String> {
    let lib = common::oshcc().parent().unwrap().join("libferroshmem.so");
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(&lib).output().expect("run nm");
    assert!(out.status.success(), "nm {}: {}", lib.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [_, "T", name] => Some(name.to_string()),
            _ => None,
        })
        .collect()
}

/// Whether `name` is one of the library's C routines (rather than a helper of its headers).
fn is_routine(name: &str) -> bool {
    let bare = name.strip_prefix('p').unwrap_or(name);
    bare.starts_with("shmem_")
        || bare.starts_with("shmemx_")
        || ["start_pes", "_my_pe", "_num_pes"].contains(&bare)
}

/// The routines the four headers declare, and those they define inline, from the preprocessed
/// headers: the first routine name followed by `(` in each declaration.
fn declared() -> (BTreeSet<String>, BTreeSet<String>) {
    let include = common::repo_root().join("crates/ferroshmem-c/include");
    let src = common::scratch_dir().join("abi-declared.c");
    std::fs::write(&src, "#include <pshmemx.h>\n").unwrap();
    let out =
        Command::new("cc").args(["-std=c11", "-E", "-P", "-I"]).arg(&include).arg(&src).output().unwrap();
    assert!(out.status.success(), "cc -E: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let (mut decl, mut inline) = (BTreeSet::new(), BTreeSet::new());
    for stmt in text.split([';', '{', '}']) {
        let Some(open) = stmt.find('(') else { continue };
        let head = &stmt[..open];
        let name = head.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).rfind(|w| !w.is_empty());
        let Some(name) = name.filter(|n| is_routine(n)) else { continue };
        if head.contains("typedef") {
            continue;
        }
        if head.contains("static") { &mut inline } else { &mut decl }.insert(name.to_string());
    }
    (decl, inline)
}

#[test]
fn declared_routines_are_the_exported_ones() {
    let lib = exported();
    let (decl, inline) = declared();
    assert!(decl.len() > 3000, "only {} declarations found", decl.len());
    let missing: Vec<_> = decl.iter().filter(|n| !lib.contains(*n)).collect();
    assert!(missing.is_empty(), "declared but not exported: {missing:?}");
    let undeclared: Vec<_> =
        lib.iter().filter(|n| is_routine(n) && !decl.contains(*n) && !inline.contains(*n)).collect();
    assert!(undeclared.is_empty(), "exported but not declared: {undeclared:?}");
    for n in ["shmem_longdouble_p", "pshmem_ctx_longdouble_g"] {
        assert!(inline.contains(n), "{n} is not an inline routine of the headers");
    }
    for n in [
        "shmem_int_fadd",
        "pshmem_double_swap",
        "shmem_ptrdiff_cswap",
        "shmem_uint64_finc",
        "pshmem_putmem",
        "pshmemx_team_init",
        "p_num_pes",
        "shmem_complexd_prod_reduce",
    ] {
        assert!(decl.contains(n), "{n} is not declared");
    }
}

#[test]
fn every_routine_has_its_profiling_name() {
    let lib = exported();
    let routines: Vec<_> = lib.iter().filter(|n| is_routine(n) && !n.starts_with('p')).collect();
    assert!(routines.len() > 1500, "only {} routines exported", routines.len());
    for n in &routines {
        assert!(lib.contains(&format!("p{n}")), "{n} has no profiling name p{n}");
    }
    for p in lib.iter().filter(|n| n.starts_with('p')) {
        assert!(lib.contains(&p[1..]), "{p} names no routine");
    }
}
