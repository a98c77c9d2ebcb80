// oshrun-test: npes=1,2,4,7 expect-exit=0
// Returning from main without shmem_finalize finalizes at exit on every PE, and the job ends
// cleanly; PE 0, slowest to arrive, still finds its neighbour's put.
#include <shmem.h>
#include <stdio.h>

static long box = -1;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&box, me, (me + 1) % n);
    shmem_barrier_all();
    if (box != (me + n - 1) % n) {
        printf("PE %d: box %ld\n", me, box);
        return 1;
    }
    return 0;
}
