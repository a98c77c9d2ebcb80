//! OpenSHMEM 1.5 Example 11 in Rust: the even PEs form a team.
//! `oshrun -n 6 target/release/examples/team_split_strided`
use ferroshmem::{Shmem, TeamConfig};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let world = shmem.team_world();
    let evens = world.split_strided(0, 2, n.div_ceil(2) as i64, TeamConfig::default())?;
    match &evens {
        Some(team) => {
            assert!(me % 2 == 0 && team.my_pe() == me / 2 && team.n_pes() == n.div_ceil(2));
            println!("PE {me} is PE {} of {} in the team of evens", team.my_pe(), team.n_pes());
        }
        None => assert_eq!(me % 2, 1, "odd PEs are not members"),
    }
    // A reversed team: negative stride.
    let reversed =
        world.split_strided(n as i64 - 1, -1, n as i64, TeamConfig::default())?.expect("all are members");
    assert_eq!(reversed.my_pe(), n - 1 - me);
    evens.map(|team| team.destroy()).transpose()?; // shmem_team_destroy
    reversed.destroy()?; // teams borrow shmem: gone before finalize
    drop(world);
    shmem.finalize();
    Ok(())
}
