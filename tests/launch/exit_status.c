// oshrun-test: npes=2,4 expect-exit=7 expect-stderr=exited with status 7; ending the job
// A PE that returns a failure status from main ends the job with that status.
#include <shmem.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 1) {
        return 7;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
