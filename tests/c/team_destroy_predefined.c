// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0 expect-stderr=shmem_team_destroy: a predefined team cannot be destroyed; nothing was destroyed
/* Destroying a predefined team is refused with a message on stderr; nothing is destroyed and
 * the program carries on (destroy returns void): the teams still work afterwards. */
#include <shmemx.h>

#include "testutil.h"

int main(void) {
    start_test();
    shmem_team_t predefined[] = {SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, SHMEMX_TEAM_NODE, SHMEMX_TEAM_SAME_MYPE_NODE};
    for (int i = 0; i < 4; i++) shmem_team_destroy(predefined[i]);
    CHECK_EQ("n_pes(WORLD) after", shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    int local_n = 0, same_n = 0;
    for (int pe = 0; pe < npes; pe++) {
        local_n += test_same_host(pe, me);
        same_n += test_same_local_rank(pe, me);
    }
    CHECK_EQ("n_pes(SHARED) after", shmem_team_n_pes(SHMEM_TEAM_SHARED), local_n);
    CHECK_EQ("n_pes(NODE) after", shmem_team_n_pes(SHMEMX_TEAM_NODE), local_n);
    CHECK_EQ("n_pes(SAME_MYPE_NODE) after", shmem_team_n_pes(SHMEMX_TEAM_SAME_MYPE_NODE), same_n);
    CHECK_EQ("team_sync(WORLD) after", shmem_team_sync(SHMEM_TEAM_WORLD), 0);
    shmem_team_t t;
    CHECK_EQ("split WORLD after", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
    CHECK_EQ("my_pe(split)", shmem_team_my_pe(t), me);
    shmem_team_destroy(t);
    /* A destroyed handle is no longer a team (and destroying it again is refused, not a crash). */
    CHECK_EQ("n_pes(destroyed)", shmem_team_n_pes(t), -1);
    shmem_finalize();
    return 0;
}
