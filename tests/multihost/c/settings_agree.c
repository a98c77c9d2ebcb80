/* The settings that choose an algorithm, and checked mode, are PE 0's for the whole job
 * (issue 30): with FSH_HIER_TREES_FROM=2 and SHMEMX_CHECK_COLLECTIVES=1 in the job's
 * environment, every PE but PE 0 drops them before shmem_init (its rank read from PMIX_RANK),
 * as when a variable is set only where mpirun runs. Every PE must still take the leaders'
 * trees and check its calls, as PE 0 does: broadcasts, reductions, fcollect and alltoall over
 * the world, each result checked. (Before, the PEs took different forms of the same collective
 * and waited for each other for ever.) Prints "settings: ok at N PEs". */
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#define N 64

static long src[N], dst[N], all[N * 64];
static long sum_src, sum_dst;

int main(void) {
    const char *rank = getenv("PMIX_RANK");
    if (rank == NULL || atoi(rank) != 0) {
        unsetenv("FSH_HIER_TREES_FROM");
        unsetenv("SHMEMX_CHECK_COLLECTIVES");
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int bad = 0;
    if (n > 64) {
        if (me == 0) printf("settings: at most 64 PEs\n");
        shmem_finalize();
        return 1;
    }
    for (int round = 0; round < 20; round++) {
        int root = round % n;
        for (int i = 0; i < N; i++) src[i] = 1000L * me + i + round;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, N, root);
        for (int i = 0; i < N; i++) bad += dst[i] != 1000L * root + i + round;
        sum_src = me + round;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum_dst, &sum_src, 1);
        bad += sum_dst != (long)n * (n - 1) / 2 + (long)n * round;
        shmem_long_fcollect(SHMEM_TEAM_WORLD, all, src, 1);
        for (int p = 0; p < n; p++) bad += all[p] != 1000L * p + round;
        for (int p = 0; p < n; p++) src[p] = 1000L * me + p + round;
        shmem_long_alltoall(SHMEM_TEAM_WORLD, all, src, 1);
        for (int p = 0; p < n; p++) bad += all[p] != 1000L * p + me + round;
        shmem_barrier_all();
    }
    if (bad) printf("settings: PE %d saw %d wrong values\n", me, bad);
    shmem_barrier_all();
    if (me == 0 && !bad) printf("settings: ok at %d PEs\n", n);
    shmem_finalize();
    return bad != 0;
}
