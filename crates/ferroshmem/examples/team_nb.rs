//! Non-blocking team creation: post a split, keep synchronising another team, then complete.
//! `oshrun -n 6 target/release/examples/team_nb`
use ferroshmem::{NewTeams, Shmem, TeamConfig};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let cfg = TeamConfig::default();
    let world = shmem.team_world();
    let other = world.split_strided(0, 1, shmem.n_pes() as i64, cfg)?.expect("all are members");
    let mut request = world.split_2d_nb(2, cfg, cfg);
    let mut polls_in_flight = 0;
    let mut done = None;
    for _ in 0..10 {
        other.sync()?; // other collectives while the creation is in flight
        if done.is_none() {
            done = request.test();
            polls_in_flight += 1;
        }
    }
    // A completed request is dropped unused; otherwise wait for it.
    match done.unwrap_or_else(move || request.wait())? {
        NewTeams::Two(row, col) => {
            println!(
                "PE {}: row PE {} column PE {} after {polls_in_flight} polls",
                shmem.my_pe(),
                row.my_pe(),
                col.my_pe()
            );
            row.destroy()?;
            col.destroy()?;
        }
        NewTeams::One(_) => unreachable!("split_2d makes two teams"),
    }
    // Teams borrow shmem: gone before finalize.
    other.destroy()?;
    drop(world);
    shmem.finalize();
    Ok(())
}
