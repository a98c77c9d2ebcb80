/* Start-up of a job (issue 12.3): shmem_init, one line per PE, shmem_finalize. Each PE prints
 * the wall-clock time (CLOCK_REALTIME, seconds) at which main began and at which shmem_init
 * returned, so bench/run-startup.sh can tell the launch from the init. */
#include <shmem.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
    double entered = now();
    shmem_init();
    double ready = now();
    printf("startup %d %d %.6f %.6f\n", shmem_my_pe(), shmem_n_pes(), entered, ready);
    shmem_finalize();
    return 0;
}
