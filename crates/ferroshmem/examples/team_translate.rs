//! team_translate_pe between a reversed team, the evens and the world.
//! `oshrun -n 6 target/release/examples/team_translate`
use ferroshmem::{Shmem, TeamConfig};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let cfg = TeamConfig::default();
    let world = shmem.team_world();
    let reversed = world.split_strided(n as i64 - 1, -1, n as i64, cfg)?.expect("all are members");
    let evens = world.split_strided(0, 2, n.div_ceil(2) as i64, cfg)?;
    assert_eq!(reversed.translate_pe(reversed.my_pe(), &world), Some(me));
    assert_eq!(world.translate_pe(n, &reversed), None, "src_pe == size is not a PE");
    if let Some(evens) = &evens {
        // Member i of the evens is world PE 2i, which is member n-1-2i of the reversed team.
        for i in 0..evens.n_pes() {
            assert_eq!(evens.translate_pe(i, &reversed), Some(n - 1 - 2 * i));
        }
    } else {
        assert_eq!(reversed.translate_pe(reversed.my_pe(), &world), Some(me));
    }
    if me == 0 {
        println!("translations agree on {n} PEs");
    }
    // Teams borrow shmem: gone before finalize.
    reversed.destroy()?;
    evens.map(|team| team.destroy()).transpose()?;
    drop(world);
    shmem.finalize();
    Ok(())
}
