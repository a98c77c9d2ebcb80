/* Hang report test (run by crates/ferroshmem-launch/tests/hang_report.rs): PE 1 computes in an
 * endless loop outside the library while the others wait in shmem_barrier_all. */
#include <shmem.h>
#include <stdio.h>

static volatile int stop;

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    printf("PE %d ready\n", me);
    if (me == 1)
        while (!stop) {
        }
    shmem_barrier_all();
    printf("PE %d after\n", me); /* never reached */
    shmem_finalize();
    return 0;
}
