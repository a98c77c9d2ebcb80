//! Runs every Rust example of the ferroshmem crate under oshrun (built by `cargo test`).

mod common;

use std::time::Duration;

#[test]
fn every_example_runs_on_several_pe_counts() {
    let dir = common::repo_root().join("target/debug/examples");
    let names = [
        "hello",
        "rma",
        "atomics",
        "p2p",
        "team_split_strided",
        "team_split_2d",
        "team_split_color",
        "team_translate",
        "team_init",
        "team_nb",
        "team_config",
    ];
    for name in names {
        let exe = dir.join(name);
        assert!(exe.exists(), "{} is missing: run `cargo build --workspace --examples`", exe.display());
        for n in [1, 3, 6, 12] {
            let r = common::run_job(n, &exe, &[], &[], Duration::from_secs(60));
            assert!(
                !r.timed_out && r.status == Some(0),
                "{name} at {n} PEs: {:?}\n{}{}",
                r.status,
                r.stdout,
                r.stderr
            );
        }
    }
}
