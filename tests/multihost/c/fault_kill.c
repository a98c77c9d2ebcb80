/* A PE on the last host is killed by a signal while the others wait in a barrier: the job
 * must end promptly with a non-zero status and a report naming the PE, its host and the
 * signal. */
#include <signal.h>
#include <stdio.h>

#include <shmem.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    if (me == n - 1) {
        raise(SIGKILL);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
