//! Compiles `csrc/longdouble.c` (the `long double` element arithmetic of the longdouble
//! reductions, which Rust cannot express) into the library, and links the library with
//! `-Bsymbolic-functions`: its own references to its routines (the profiling and deprecated
//! entry points, which jump to the routine they name, see `entry_alias!` in `src/lib.rs`) bind
//! inside the library, so a program or tool that defines `shmem_putmem` itself gets its own
//! for its calls while `pshmem_putmem` still reaches the library's.

fn main() {
    println!("cargo:rerun-if-changed=csrc/longdouble.c");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    cc::Build::new()
        .file("csrc/longdouble.c")
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .flag("-pedantic")
        .compile("ferroshmem_longdouble");
}
