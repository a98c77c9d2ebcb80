//! Team configuration and resources: num_contexts, get_config, usage.
//! `oshrun -n 4 target/release/examples/team_config`
use ferroshmem::{Shmem, TeamConfig};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let world = shmem.team_world();
    let before = shmem.team_usage();
    let team = world
        .split_strided(0, 1, shmem.n_pes() as i64, TeamConfig { num_contexts: 4 })?
        .expect("all are members");
    assert_eq!(team.config().num_contexts, 4);
    assert_eq!(shmem.team_usage().in_use, before.in_use + 1);
    team.destroy()?;
    assert_eq!(shmem.team_usage(), before);
    if shmem.my_pe() == 0 {
        let u = shmem.team_usage();
        println!(
            "teams in use {} of {}, {} shared + {} private bytes per team",
            u.in_use, u.capacity, u.slot_bytes, u.object_bytes
        );
    }
    drop(world); // borrows shmem: gone before finalize
    shmem.finalize();
    Ok(())
}
