// oshrun-test: npes=1,2,4,7 expect-exit=134 max-ms=2000 expect-stderr=was killed by signal 6 (SIGABRT); ending the job
// One PE aborts while the others sleep in a barrier: oshrun must report it and end the rest
// promptly instead of hanging.
#include <shmem.h>
#include <stdlib.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    if (me == n / 2) {
        abort();
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
