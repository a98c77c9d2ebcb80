//! `oshcc`: compiles and links C OpenSHMEM programs against ferroshmem. Every argument goes to
//! the C compiler (`$OSHCC_CC`, else `cc`); oshcc adds the header directory, and when linking,
//! libferroshmem with an rpath and the math library, all found relative to oshcc itself.
//! `oshcc --showme` prints the command instead of running it. `oshcc --shmem4py` also
//! force-includes `ferroshmem_shmem4py.h`, the feature macros that the Python binding shmem4py
//! needs to build on ferroshmem (`OSHCC="oshcc --shmem4py" pip install shmem4py`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Header directory of the source tree this oshcc was built from (fallback).
const SOURCE_INCLUDE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../ferroshmem-c/include");

fn first_existing(candidates: &[PathBuf], marker: &str) -> Option<PathBuf> {
    candidates.iter().find(|d| d.join(marker).exists()).cloned()
}

fn main() -> ExitCode {
    let exe =
        std::env::current_exe().and_then(|p| p.canonicalize()).unwrap_or_else(|_| PathBuf::from("oshcc"));
    let bin_dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
    let include = first_existing(
        &[bin_dir.join("include"), bin_dir.join("../include"), PathBuf::from(SOURCE_INCLUDE)],
        "shmem.h",
    );
    let lib = first_existing(&[bin_dir.clone(), bin_dir.join("../lib")], "libferroshmem.so");
    let (Some(include), Some(lib)) = (include, lib) else {
        eprintln!(
            "oshcc: cannot find shmem.h and libferroshmem.so next to {} (build with `cargo build --release`)",
            exe.display()
        );
        return ExitCode::from(2);
    };
    let include = include.canonicalize().unwrap_or(include);
    let mut user: Vec<String> = std::env::args().skip(1).collect();
    let showme = user.iter().any(|a| a.starts_with("--showme"));
    user.retain(|a| !a.starts_with("--showme"));
    let shmem4py = user.iter().any(|a| a == "--shmem4py");
    user.retain(|a| a != "--shmem4py");
    let links = !user.iter().any(|a| matches!(a.as_str(), "-c" | "-S" | "-E" | "-M" | "-MM"));
    let cc = std::env::var("OSHCC_CC").unwrap_or_else(|_| "cc".into());
    let mut args = vec![format!("-I{}", include.display())];
    if shmem4py {
        args.push("-include".into());
        args.push(include.join("ferroshmem_shmem4py.h").display().to_string());
    }
    args.extend(user);
    if links {
        args.push(format!("-L{}", lib.display()));
        args.push(format!("-Wl,-rpath,{}", lib.display()));
        args.push("-lferroshmem".into());
        // The runtime itself needs libm; programs that check long double results call powl
        // and friends and expect an OpenSHMEM compiler wrapper to link it, as others do.
        args.push("-lm".into());
    }
    if showme {
        println!("{cc} {}", args.join(" "));
        return ExitCode::SUCCESS;
    }
    match Command::new(&cc).args(&args).status() {
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("oshcc: cannot run {cc}: {e}");
            ExitCode::from(2)
        }
    }
}
