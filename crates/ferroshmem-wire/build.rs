//! Builds the C shim (`csrc/wire.c`) over PMIx and UCX when `pkg-config` finds both, and
//! turns on `cfg(wire)`. Without them the crate still builds: every constructor then returns
//! `Error::Unavailable`, and ferroshmem runs one-host jobs only.

use std::process::Command;

fn pkg_config(args: &[&str]) -> Option<String> {
    let out = Command::new("pkg-config").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(wire)");
    println!("cargo:rerun-if-changed=csrc/wire.c");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    let (Some(cflags), Some(libs)) =
        (pkg_config(&["--cflags", "ucx", "pmix"]), pkg_config(&["--libs", "ucx", "pmix"]))
    else {
        println!(
            "cargo:warning=ferroshmem-wire: pkg-config finds no ucx and pmix (Debian: libucx-dev libpmix-dev): \
             jobs across hosts are off, one-host jobs work"
        );
        return;
    };
    let mut build = cc::Build::new();
    build.file("csrc/wire.c").std("gnu11").warnings(true).extra_warnings(true).warnings_into_errors(true);
    for flag in cflags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-I") {
            build.include(dir);
        }
    }
    build.compile("ferroshmem_wire");
    for flag in libs.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    }
    println!("cargo:rustc-cfg=wire");
}
