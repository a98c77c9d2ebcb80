// oshrun-test: npes=2,3,6,7,12 expect-exit=0 env=SHMEMX_CHECK_COLLECTIVES=1 expect-stderr=shmem_team_split_strided on SHMEM_TEAM_WORLD: PE 0
/* Checked mode (SHMEMX_CHECK_COLLECTIVES=1): the last PE passes a different triplet; instead of
 * a hang every PE gets SHMEMX_TEAM_ERR_MISMATCH and INVALID, and PE 0 prints who passed what,
 * e.g. "shmem_team_split_strided on SHMEM_TEAM_WORLD: PE 0..10 passed (0, 1, 12), PE 11 passed
 * (0, 1, 11)". The same for split_2d, for a team_sync against a split and for split_color
 * against split_strided (split_color's colors and keys may differ); afterwards the teams still
 * work. */
#include <shmemx.h>

#include "testutil.h"

int main(void) {
    start_test();
    int last = me == npes - 1;
    shmem_team_t t = SHMEM_TEAM_WORLD, xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, last ? npes - 1 : npes, NULL, 0, &t);
    CHECK_EQ("mismatched split", rc, SHMEMX_TEAM_ERR_MISMATCH);
    CHECK(t == SHMEM_TEAM_INVALID, "mismatched split gave a team");
    rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, last ? 2 : 1, NULL, 0, &xt, NULL, 0, &yt);
    CHECK_EQ("mismatched split_2d", rc, SHMEMX_TEAM_ERR_MISMATCH);
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "mismatched split_2d gave teams");
    /* Different routines on one team: PE 0 syncs while the others split. */
    if (me == 0) rc = shmem_team_sync(SHMEM_TEAM_WORLD);
    else rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t);
    CHECK(rc != 0, "sync against split returned 0");
    /* split_color against split_strided: colors and keys may differ, the routine may not. */
    if (me == 0) rc = shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, 0, NULL, 0, &t);
    else rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    CHECK_EQ("split_color against split_strided", rc, SHMEMX_TEAM_ERR_MISMATCH);
    CHECK(t == SHMEM_TEAM_INVALID, "mismatched split_color gave a team");
    /* Different colors and keys are no mismatch. */
    CHECK_EQ("split_color", shmemx_team_split_color(SHMEM_TEAM_WORLD, me % 2, -me, NULL, 0, &t), 0);
    CHECK_EQ("split_color team", shmem_team_n_pes(t), me % 2 ? npes / 2 : (npes + 1) / 2);
    CHECK_EQ("split_color sync", shmem_team_sync(t), 0);
    shmem_team_destroy(t);
    /* Matching calls still work. */
    CHECK_EQ("matching split", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
    CHECK_EQ("matching sync", shmem_team_sync(t), 0);
    shmem_team_destroy(t);
    shmem_finalize();
    return 0;
}
