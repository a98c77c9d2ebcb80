// A job of many PEs (256 in crates/ferroshmem-launch/tests/launcher.rs, with the default
// heap): every PE starts, reaches every other through a static variable, a heap block and an
// atomic on PE 0, prints one line, and the job ends. No oshrun-test directive: the Rust test
// checks each PE's line.
#include <shmem.h>
#include <stdio.h>

static long arrived;         /* on PE 0: one atomic add from every PE */
static long from_left = -1;  /* put by the left neighbour */

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *mine = shmem_malloc(sizeof(long));
    *mine = 1000 + me;
    shmem_long_atomic_add(&arrived, 1, 0);
    shmem_long_p(&from_left, me, (me + 1) % n);
    shmem_barrier_all();
    long total = shmem_long_atomic_fetch(&arrived, 0);
    long right = shmem_long_g(mine, (me + 1) % n);
    printf("PE %d of %d: %ld arrived, left %ld, right %ld\n", me, n, total, from_left, right);
    shmem_barrier_all();
    shmem_free(mine);
    shmem_finalize();
    return 0;
}
