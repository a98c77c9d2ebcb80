// oshrun-test: npes=2,3,6 expect-exit=0 env=SHMEMX_CHECK_COLLECTIVES=1 expect-stderr=collective calls on SHMEM_TEAM_WORLD do not match: PE 0 called shmem_sum_reduce(4, 8)
/* Checked mode compares the reduction's operation: PE 0 sums while the others take the maximum
 * (same type, same count). Instead of results that differ from PE to PE, every PE's call
 * returns nonzero and PE 0 reports who called what ("PE 0 called shmem_sum_reduce(4, 8), PE 1..5
 * called shmem_max_reduce(4, 8)"). Matching calls still reduce. */
#include <shmem.h>

#include "testutil.h"

static long src[4], dst[4];

int main(void) {
    start_test();
    for (int i = 0; i < 4; i++) src[i] = me + i;
    shmem_barrier_all();
    int rc = me == 0 ? shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4)
                     : shmem_long_max_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
    CHECK(rc != 0, "a sum against a max returned 0");
    CHECK_EQ("matching max", shmem_long_max_reduce(SHMEM_TEAM_WORLD, dst, src, 4), 0);
    for (int i = 0; i < 4; i++) CHECK_EQ("max", dst[i], (long)(npes - 1 + i));
    shmem_finalize();
    return 0;
}
