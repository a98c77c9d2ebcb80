/* Hang report test (run by crates/ferroshmem-launch/tests/hang_report.rs): PE 1 returns from
 * main at once (its shmem_finalize at exit meets the others' first barrier), the others then
 * wait in a second barrier for a PE that has exited. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1) {
        printf("PE %d leaves\n", me);
        return 0;
    }
    shmem_barrier_all();
    printf("PE %d after the first barrier\n", me);
    shmem_barrier_all();
    printf("PE %d after the second barrier\n", me); /* never reached */
    shmem_finalize();
    return 0;
}
