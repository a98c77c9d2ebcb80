//! Split by color and key (`shmemx_team_split_color`, like `MPI_Comm_split`): rows of a grid of
//! 4 columns, each row in reverse order (key -me), the last PE in no team.
//! `oshrun -n 10 target/release/examples/team_split_color`
use ferroshmem::{Shmem, TeamConfig};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let world = shmem.team_world();
    let color = (me + 1 != n).then_some(me as u32 / 4);
    let row = world.split_color(color, -(me as i64), TeamConfig::default())?;
    match &row {
        Some(team) => {
            // Row r holds world PEs 4r.. up to 4r + 3 (the last PE excluded), highest first.
            let last = (4 * (me / 4) + 3).min(n - 2);
            assert_eq!(team.my_pe(), last - me);
            assert_eq!(team.world_pe(0), Some(last));
            assert_eq!(world.translate_pe(me, team), Some(last - me));
            println!("PE {me} is PE {} of {} in row {}", team.my_pe(), team.n_pes(), me / 4);
            team.sync()?;
        }
        None => assert_eq!(me, n - 1, "only the last PE passed no color"),
    }
    row.map(|team| team.destroy()).transpose()?; // shmem_team_destroy
    drop(world); // borrows shmem: gone before finalize
    shmem.finalize();
    Ok(())
}
