//! Compiles `csrc/longdouble.c` (the `long double` element arithmetic of the longdouble
//! reductions, which Rust cannot express) into the library.

fn main() {
    println!("cargo:rerun-if-changed=csrc/longdouble.c");
    cc::Build::new()
        .file("csrc/longdouble.c")
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .flag("-pedantic")
        .compile("ferroshmem_longdouble");
}
