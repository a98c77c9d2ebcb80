//! OpenSHMEM 1.5 Example 12 in Rust: two 2D splits make a 3D grid; prints each PE's
//! coordinates in grid order. `oshrun -n 12 target/release/examples/team_split_2d`
use ferroshmem::{Shmem, TeamConfig};

/// x * y == n with |x - y| smallest.
fn xy_dims(n: usize) -> (usize, usize) {
    let mut d = (n as f64).sqrt().ceil() as usize;
    while !n.is_multiple_of(d) {
        d -= 1;
    }
    (d, n / d)
}

fn xyz_dims(n: usize) -> (usize, usize, usize) {
    let mut d = (n as f64).cbrt().ceil() as usize;
    while !n.is_multiple_of(d) {
        d -= 1;
    }
    let (y, z) = xy_dims(n / d);
    (d, y, z)
}

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let (xdim, ydim, zdim) = xyz_dims(n);
    if me == 0 {
        println!("xdim = {xdim}, ydim = {ydim}, zdim = {zdim}");
    }
    let cfg = TeamConfig::default();
    let world = shmem.team_world();
    let (xteam, yzteam) = world.split_2d(xdim as i64, cfg, cfg)?;
    let (yteam, zteam) = yzteam.split_2d(ydim as i64, cfg, cfg)?;
    yzteam.destroy()?;
    let (x, y, z) = (xteam.my_pe(), yteam.my_pe(), zteam.my_pe());
    assert_eq!(me, x + xdim * (y + ydim * z));
    for zi in 0..zdim {
        for yi in 0..ydim {
            for xi in 0..xdim {
                if (x, y, z) == (xi, yi, zi) {
                    println!("({x}, {y}, {z}) is mype = {me}");
                }
                world.sync()?;
            }
        }
    }
    // Teams borrow shmem: gone before finalize.
    for t in [xteam, yteam, zteam] {
        t.destroy()?;
    }
    drop(world);
    shmem.finalize();
    Ok(())
}
