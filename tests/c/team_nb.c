// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0
/* Non-blocking creation: shmemx_team_split_strided_nb / _split_2d_nb with create_test and
 * create_wait, overlapped with shmem_team_sync and RMA on other teams; two requests in flight
 * on different parents; argument errors reported at completion, alike on every PE; an INVALID
 * parent fails at once; a completed request is gone. */
#include <shmemx.h>

#include "testutil.h"

long cells[64];

int main(void) {
    start_test();
    shmemx_team_info_t info0, info;
    shmemx_team_info(&info0);
    shmem_team_t other, dup;
    /* `other`: the world reversed; syncs on it overlap creations whose parent is WORLD. */
    CHECK_EQ("other", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &other), 0);
    CHECK_EQ("dup", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &dup), 0);

    for (int round = 0; round < 20; round++) {
        shmem_team_t evens = SHMEM_TEAM_WORLD, xt, yt;
        shmemx_team_request_t r1, r2;
        CHECK_EQ("split_strided_nb", shmemx_team_split_strided_nb(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens, &r1), 0);
        /* A second creation in flight at once, on another parent. */
        CHECK_EQ("split_2d_nb", shmemx_team_split_2d_nb(dup, 1 + round % npes, NULL, 0, &xt, NULL, 0, &yt, &r2), 0);
        /* Other work meanwhile: syncs on `other`, and RMA. */
        for (int k = 0; k < 3; k++) {
            CHECK_EQ("sync on another team", shmem_team_sync(other), 0);
            shmem_long_p(&cells[me], round, right);
        }
        int t1 = shmemx_team_create_test(r1);
        CHECK(t1 == SHMEMX_TEAM_CREATE_DONE || t1 == SHMEMX_TEAM_CREATE_IN_PROGRESS, "test gave %d", t1);
        if (t1 == SHMEMX_TEAM_CREATE_IN_PROGRESS) CHECK_EQ("wait 1", shmemx_team_create_wait(r1), 0);
        CHECK_EQ("wait 2", shmemx_team_create_wait(r2), 0);
        if (me % 2 == 0) {
            CHECK_EQ("evens my_pe", shmem_team_my_pe(evens), me / 2);
            CHECK_EQ("evens n_pes", shmem_team_n_pes(evens), (npes + 1) / 2);
            CHECK_EQ("evens sync", shmem_team_sync(evens), 0);
        } else {
            CHECK(evens == SHMEM_TEAM_INVALID, "odd PE got a team");
        }
        int xr = 1 + round % npes;
        CHECK_EQ("x", shmem_team_my_pe(xt), me % xr);
        CHECK_EQ("y", shmem_team_my_pe(yt), me / xr);
        CHECK(shmemx_team_create_test(r1) < 0, "a completed request is still known");
        shmem_team_destroy(evens);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }
    /* Argument errors surface at completion, with the same code on every PE. */
    {
        shmem_team_t t = SHMEM_TEAM_WORLD, xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
        shmemx_team_request_t r;
        CHECK_EQ("bad triplet starts", shmemx_team_split_strided_nb(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &t, &r), 0);
        int rc;
        while ((rc = shmemx_team_create_test(r)) == SHMEMX_TEAM_CREATE_IN_PROGRESS) {
        }
        CHECK_EQ("bad triplet test", rc, -SHMEMX_TEAM_ERR_INVALID_ARGUMENT);
        CHECK(t == SHMEM_TEAM_INVALID, "bad triplet gave a team");
        CHECK_EQ("xrange 0 starts", shmemx_team_split_2d_nb(SHMEM_TEAM_WORLD, 0, NULL, 0, &xt, NULL, 0, &yt, &r), 0);
        CHECK_EQ("xrange 0 wait", shmemx_team_create_wait(r), SHMEMX_TEAM_ERR_INVALID_ARGUMENT);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "xrange 0 gave teams");
        /* INVALID parent: fails at once, no request. */
        CHECK(shmemx_team_split_strided_nb(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t, &r) != 0, "INVALID parent started");
        CHECK(r == SHMEMX_TEAM_REQUEST_NULL && t == SHMEM_TEAM_INVALID, "INVALID parent: request or team set");
        CHECK(shmemx_team_split_2d_nb(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt, &r) != 0, "INVALID parent started");
    }
    shmem_barrier_all();
    CHECK_EQ("RMA during creation landed", cells[left], 19);
    shmem_team_destroy(other);
    shmem_team_destroy(dup);
    shmemx_team_info(&info);
    CHECK_EQ("teams in use at the end", info.teams_in_use, info0.teams_in_use);
    shmem_finalize();
    return 0;
}
