/* Hang report test (run by crates/ferroshmem-launch/tests/hang_report.rs): PE 0 calls
 * shmem_barrier_all while the others call shmem_team_sync on a duplicate of the world team
 * (split_strided(WORLD, 0, 1, npes)): two team calls that never meet. (shmem_team_sync on
 * SHMEM_TEAM_WORLD itself would meet PE 0's barrier: both are the world team's sync.) */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t dup;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &dup) != 0) return 1;
    printf("PE %d before\n", me);
    if (me == 0)
        shmem_barrier_all();
    else
        shmem_team_sync(dup);
    printf("PE %d after\n", me); /* never reached */
    shmem_finalize();
    return 0;
}
