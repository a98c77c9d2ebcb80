// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0 timeout=120
// oshrun-test: npes=2,3 expect-exit=0 env=SHMEMX_TEAM_SLOTS=40
/* Capacity: 4096 teams alive at once, then released (when the capacity allows; with
 * SHMEMX_TEAM_SLOTS=40, until the slots run out). Running out of slots fails on every PE with
 * SHMEMX_TEAM_ERR_NO_SLOT and INVALID; a split_2d that can get only one of its two slots fails
 * entirely and leaks nothing; after releasing, creation works again. */
#include <shmemx.h>

#include "testutil.h"

#define WANT 4096
static shmem_team_t teams[WANT];

int main(void) {
    start_test();
    shmemx_team_info_t info0, info;
    shmemx_team_info(&info0);
    long room = info0.capacity - info0.teams_in_use;
    int n = 0, rc = 0;
    while (n < WANT) {
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[n]);
        if (rc != 0) break;
        n++;
    }
    if (room >= WANT) {
        CHECK_EQ("teams alive", n, WANT);
        shmemx_team_info(&info);
        CHECK_EQ("teams in use", info.teams_in_use, info0.teams_in_use + WANT);
    } else {
        CHECK_EQ("teams made before running out", n, room);
        CHECK_EQ("out of slots", rc, SHMEMX_TEAM_ERR_NO_SLOT);
        CHECK(teams[n] == SHMEM_TEAM_INVALID, "a failed split gave a team");
        /* Free one slot: split_2d needs two, so it fails whole and leaks nothing. */
        shmem_team_destroy(teams[--n]);
        shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
        CHECK_EQ("split_2d with one free slot", shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &xt, NULL, 0, &yt),
                 SHMEMX_TEAM_ERR_NO_SLOT);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "failed split_2d gave teams");
        shmemx_team_info(&info);
        CHECK_EQ("nothing leaked", info.teams_in_use, info0.teams_in_use + n);
    }
    /* The newest and oldest teams still work. */
    if (n > 0) {
        CHECK_EQ("sync newest", shmem_team_sync(teams[n - 1]), 0);
        CHECK_EQ("sync oldest", shmem_team_sync(teams[0]), 0);
    }
    for (int i = 0; i < n; i++) shmem_team_destroy(teams[i]);
    shmemx_team_info(&info);
    CHECK_EQ("all released", info.teams_in_use, info0.teams_in_use);
    shmem_team_t t;
    CHECK_EQ("creation works again", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
    shmem_team_destroy(t);
    shmem_finalize();
    return 0;
}
