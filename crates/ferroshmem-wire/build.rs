//! Builds the C shim (`csrc/wire.c`) over PMIx and UCX into `libferroshmem_wire.so` when
//! `pkg-config` finds both, and turns on `cfg(wire)`; the crate opens the shim at its first use. Without them the crate still builds: every constructor then returns
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
    // The shim is a shared library of its own, opened only when a job runs across hosts
    // (`ffi::load`): linked into libferroshmem, PMIx and UCX (and the 11 libraries they pull
    // in) were loaded and initialised by every PE of every job, 2/3 of a PE's start-up.
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let lib = out.join("libferroshmem_wire.so");
    let mut build = cc::Build::new();
    build.std("gnu11").warnings(true).extra_warnings(true).warnings_into_errors(true).pic(true);
    let mut cmd = build.get_compiler().to_command();
    cmd.args(["-shared", "-Wl,--no-undefined", "-o"]).arg(&lib).arg("csrc/wire.c");
    cmd.args(cflags.split_whitespace());
    for flag in libs.split_whitespace() {
        cmd.arg(flag);
        if let Some(dir) = flag.strip_prefix("-L") {
            cmd.arg(format!("-Wl,-rpath,{dir}"));
        }
    }
    let status = cmd.status().unwrap_or_else(|e| panic!("running the C compiler for the shim: {e}"));
    assert!(status.success(), "building libferroshmem_wire.so failed: {cmd:?}");
    // Also beside libferroshmem.so and the executables (target/<profile>), where `ffi::load`
    // looks first: OUT_DIR is target/<profile>/build/<crate>-<hash>/out.
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let tmp = profile_dir.join(format!("libferroshmem_wire.so.{}", std::process::id()));
        if std::fs::copy(&lib, &tmp).is_ok() {
            let _ = std::fs::rename(&tmp, profile_dir.join("libferroshmem_wire.so"));
        }
    }
    println!("cargo:rustc-env=FERROSHMEM_WIRE_LIB={}", lib.display());
    println!("cargo:rustc-cfg=wire");
}
