//! Cost of team management: split_strided + destroy, split_2d + destroy, split_color +
//! destroy, translate_pe.
//! Run: `cargo build --release && target/release/oshrun -n 2 target/release/team-bench`.
//! Figures are medians over `SAMPLES` batches, per operation, on every PE (PE 0 prints).

use ferroshmem::{Shmem, TeamConfig};
use ferroshmem_bench::{per_op, SAMPLES};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let n = shmem.n_pes();
    let world = shmem.team_world();
    let cfg = TeamConfig::default();
    let iters = if n > 2 { 200 } else { 5_000 };

    let strided = per_op(&shmem, iters, true, || {
        let t = world.split_strided(0, 1, n as i64, cfg).unwrap();
        t.unwrap().destroy().unwrap();
    });
    let two_d = per_op(&shmem, iters, true, || {
        let (x, y) = world.split_2d(2, cfg, cfg).unwrap();
        x.destroy().unwrap();
        y.destroy().unwrap();
    });
    // One team of every PE like split_strided's, evens first then odds (an explicit list of
    // members from 3 PEs on).
    let me = shmem.my_pe();
    let color = per_op(&shmem, iters, true, || {
        let t = world.split_color(Some(0), (me % 2) as i64, cfg).unwrap();
        t.unwrap().destroy().unwrap();
    });
    let reversed = world.split_strided(n as i64 - 1, -1, n as i64, cfg)?.expect("every PE is a member");
    // Translation is local: time it on PE 0 alone while the others wait.
    let mut sink = 0usize;
    let mut pe = 0usize;
    let translate = per_op(&shmem, 1_000_000, shmem.my_pe() == 0, || {
        pe = if pe + 1 == n { 0 } else { pe + 1 };
        sink = sink.wrapping_add(std::hint::black_box(&world).translate_pe(pe, &reversed).unwrap_or(0));
    });
    let sync = per_op(&shmem, iters * 10, true, || reversed.sync().unwrap());
    std::hint::black_box(sink);
    if shmem.my_pe() == 0 {
        let usage = shmem.team_usage();
        println!("ferroshmem team benchmark, {n} PEs, medians of {SAMPLES} batches");
        println!("split_strided + destroy  {strided:10.1} ns");
        println!("split_2d + destroy       {two_d:10.1} ns");
        println!("split_color + destroy    {color:10.1} ns");
        println!("translate_pe             {translate:10.1} ns");
        println!("team_sync (reversed)     {sync:10.1} ns");
        println!(
            "teams per PE: capacity {}, shared bytes per team {}, private bytes per team {}",
            usage.capacity, usage.slot_bytes, usage.object_bytes
        );
    }
    // Teams borrow the Shmem: they are gone before finalize takes it.
    reversed.destroy()?;
    drop(world);
    shmem.finalize();
    Ok(())
}
