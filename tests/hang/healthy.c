/* Hang report test (run by crates/ferroshmem-launch/tests/hang_report.rs): a job that is only
 * slow. PE 0 reads a line from standard input (outside the library) while the others wait in
 * shmem_barrier_all; then every PE finishes normally. SIGUSR1 to oshrun meanwhile prints what
 * every PE is doing and changes nothing else. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    printf("PE %d ready\n", me);
    if (me == 0) {
        char line[64];
        if (!fgets(line, sizeof line, stdin)) return 2;
    }
    shmem_barrier_all();
    static long sum, total;
    sum = me;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &sum, 1);
    printf("PE %d done, sum %ld\n", me, total);
    shmem_finalize();
    return 0;
}
