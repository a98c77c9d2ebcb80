//! A token travels around the ring with put_signal and signal waits; a lock guards a shared
//! counter. `oshrun -n 4 target/release/examples/p2p`
use ferroshmem::{Compare, Lock, Shmem, Signal, SymSlice};

fn main() -> ferroshmem::Result<()> {
    let shmem = Shmem::init()?;
    let (me, n) = (shmem.my_pe(), shmem.n_pes());
    let token: SymSlice<u64> = shmem.alloc(1)?;
    let signal: SymSlice<u64> = shmem.alloc(1)?;
    if me != 0 {
        signal.wait_until(0, Compare::Ne, 0)?; // shmem_signal_wait_until
    }
    let value = token.read(0)? + 1;
    token.put_signal((me + 1) % n, 0, &[value], &signal, 0, 1, Signal::Set)?; // shmem_put_signal
    if me == 0 {
        signal.wait_until(0, Compare::Ne, 0)?;
        assert_eq!(token.read(0)?, n as u64, "the token visited every PE");
        println!("token came back with {}", token.read(0)?);
    }
    let lock = Lock::new(&shmem)?;
    let counter: SymSlice<u64> = shmem.alloc(1)?;
    {
        let _held = lock.lock()?; // shmem_set_lock ... shmem_clear_lock
        let c = counter.g(0, 0)?;
        counter.p(0, 0, c + 1)?;
    }
    shmem.barrier_all();
    assert_eq!(counter.g(0, 0)?, n as u64);
    // Everything borrowed from shmem is gone before finalize takes it.
    drop(lock);
    for s in [token, signal, counter] {
        s.free()?;
    }
    shmem.finalize();
    Ok(())
}
