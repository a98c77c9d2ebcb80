//! An arbitrary team in any order (NVSHMEM's team_init): PE 0 draws a unique id and shares it;
//! the odd PEs join in reverse order. `oshrun -n 6 target/release/examples/team_init`
use ferroshmem::{Shmem, SymSlice, TeamConfig};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let id: SymSlice<u64> = shmem.alloc(1)?;
    if me == 0 {
        let uid = shmem.team_uniqueid()?;
        for pe in 0..n {
            id.p(pe, 0, uid)?;
        }
    }
    shmem.barrier_all();
    let odds = n / 2;
    if me % 2 == 1 {
        let idx = odds - 1 - me / 2;
        let team = shmem.team_init(id.read(0)?, odds, idx, TeamConfig::default())?;
        assert_eq!(team.my_pe(), idx);
        team.sync()?;
        println!("PE {me} is member {idx} of the odd team");
    }
    shmem.barrier_all();
    id.free()?; // borrows shmem: gone before finalize
    shmem.finalize();
    Ok(())
}
