// oshrun-test: npes=1,2,4,7 expect-exit=3 expect-stderr=called shmem_global_exit(3); ending the job
// The last PE ends the job while every other PE waits in a barrier that can never complete.
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    if (me == n - 1) {
        shmem_global_exit(3);
    }
    shmem_barrier_all();
    printf("PE %d passed a barrier that PE %d never reached\n", me, n - 1);
    shmem_finalize();
    return 0;
}
