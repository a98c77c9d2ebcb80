/* Hang report test (run by crates/ferroshmem-launch/tests/hang_report.rs, and across hosts by
 * tests/multihost.rs): PE 1 (or the PE given as the first argument) computes in an endless loop
 * outside the library while the others wait in shmem_barrier_all. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int stop;

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe();
    printf("PE %d ready\n", me);
    if (me == (argc > 1 ? atoi(argv[1]) : 1))
        while (!stop) {
        }
    shmem_barrier_all();
    printf("PE %d after\n", me); /* never reached */
    shmem_finalize();
    return 0;
}
