//! Every PE says hello in PE order. `oshrun -n 4 target/release/examples/hello`
use ferroshmem::Shmem;

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    for pe in 0..shmem.n_pes() {
        if pe == shmem.my_pe() {
            println!("hello from PE {} of {}", shmem.my_pe(), shmem.n_pes());
        }
        shmem.barrier_all();
    }
    shmem.finalize();
    Ok(())
}
