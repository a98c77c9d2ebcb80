//! Probes UCX (ucp) and PMIx with `pkg-config`. When both are found this turns on `cfg(fabric)`,
//! emits the link flags, and compiles and runs `csrc/layout.c` (with `cc` from PATH) against the
//! real headers: its output (sizes, offsets and constant values) is what the layout test compares
//! the hand-written bindings with. Without either library the crate still builds, every
//! constructor returns `Error::Unavailable`, and a warning says multi-host support is off.

use std::path::PathBuf;
use std::process::Command;

fn pkg_config(args: &[&str]) -> Option<String> {
    let out = Command::new("pkg-config").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fabric)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc/layout.c");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=FERROSHMEM_FABRIC_DISABLE");

    if std::env::var_os("FERROSHMEM_FABRIC_DISABLE").is_some() {
        println!("cargo:warning=ferroshmem-fabric: FERROSHMEM_FABRIC_DISABLE is set: multi-host support is off");
        return;
    }
    let ucx = pkg_config(&["--libs", "ucx"]);
    let pmix = pkg_config(&["--libs", "pmix"]);
    let (Some(ucx_libs), Some(pmix_libs)) = (ucx, pmix) else {
        println!(
            "cargo:warning=ferroshmem-fabric: pkg-config finds no {} (Debian: libucx-dev libpmix-dev): \
             multi-host support is off, every constructor returns Error::Unavailable",
            match (pkg_config(&["--exists", "ucx"]).is_some(), pkg_config(&["--exists", "pmix"]).is_some()) {
                (false, false) => "ucx and no pmix",
                (false, true) => "ucx",
                _ => "pmix",
            }
        );
        return;
    };
    // ucp needs uct and ucs beside it; pkg-config lists them (and ucm) for ucx.
    for lib in ["ucp", "uct", "ucs"] {
        if !ucx_libs.split_whitespace().any(|f| f == format!("-l{lib}")) {
            println!("cargo:warning=ferroshmem-fabric: `pkg-config --libs ucx` lacks -l{lib}: multi-host support is off");
            return;
        }
    }
    let cflags = pkg_config(&["--cflags", "ucx", "pmix"]).unwrap_or_default();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let exe = out_dir.join("fabric-layout");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = Command::new(&cc)
        .arg("-std=gnu11")
        .arg("-Wall")
        .arg("-Werror")
        .args(cflags.split_whitespace())
        .arg("csrc/layout.c")
        .arg("-o")
        .arg(&exe)
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => panic!("ferroshmem-fabric: compiling csrc/layout.c with `{cc}` failed ({other:?})"),
    }
    let out = Command::new(&exe).output().expect("running the layout probe");
    assert!(out.status.success(), "the layout probe failed: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(out_dir.join("layout.txt"), &out.stdout).expect("writing layout.txt");

    for flags in [&ucx_libs, &pmix_libs] {
        for flag in flags.split_whitespace() {
            if let Some(dir) = flag.strip_prefix("-L") {
                println!("cargo:rustc-link-search=native={dir}");
                // pmix2 lives outside the default search path: make the binaries find it.
                println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
            } else if let Some(lib) = flag.strip_prefix("-l") {
                println!("cargo:rustc-link-lib=dylib={lib}");
            }
        }
    }
    println!("cargo:rustc-cfg=fabric");
}
