// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0
/* shmem_team_split_2d as seed 002 defines it: (x, y) = (pe mod xrange, pe div xrange),
 * my_pe(xteam) = x, my_pe(yteam) = y, a ragged last row, xrange > N treated as N, per-team
 * configurations that differ between columns, a 2D split of a reversed split, xrange <= 0
 * and an INVALID parent (nonzero, both INVALID), and a failure on one PE making every PE fail
 * with nothing leaked. */
#include <shmemx.h>

#include "team_util.h"

/* Checks the 2D split of `parent` (N PEs) with `xrange`; parent PE p is world PE map(p). */
static void check_2d(shmem_team_t parent, int xrange, shmem_team_t xt, shmem_team_t yt) {
    int n = shmem_team_n_pes(parent), p = shmem_team_my_pe(parent);
    int xr = xrange > n ? n : xrange;
    int x = p % xr, y = p / xr;
    int rows = (n + xr - 1) / xr;
    int row_len = (y == rows - 1) ? n - y * xr : xr;   /* the last row may be ragged */
    int col_len = rows - ((x >= n - (rows - 1) * xr) ? 1 : 0);
    CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "xrange %d: INVALID team", xrange);
    CHECK_EQ("my_pe(xteam) = x", shmem_team_my_pe(xt), x);
    CHECK_EQ("my_pe(yteam) = y", shmem_team_my_pe(yt), y);
    CHECK_EQ("n_pes(xteam)", shmem_team_n_pes(xt), row_len);
    CHECK_EQ("n_pes(yteam)", shmem_team_n_pes(yt), col_len);
    for (int i = 0; i < row_len; i++) CHECK_EQ("xteam -> parent", shmem_team_translate_pe(xt, i, parent), y * xr + i);
    for (int j = 0; j < col_len; j++) CHECK_EQ("yteam -> parent", shmem_team_translate_pe(yt, j, parent), j * xr + x);
    CHECK_EQ("yteam size == xteam size", shmem_team_translate_pe(yt, col_len, parent), -1);
    CHECK_EQ("sync xteam", shmem_team_sync(xt), 0);
    CHECK_EQ("sync yteam", shmem_team_sync(yt), 0);
}

int main(void) {
    start_test();
    shmemx_team_info_t info0, info;
    shmemx_team_info(&info0);
    for (int xrange = 1; xrange <= npes + 2; xrange++) {
        shmem_team_t xt, yt;
        CHECK_EQ("split_2d", shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &xt, NULL, 0, &yt), 0);
        check_2d(SHMEM_TEAM_WORLD, xrange, xt, yt);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }
    /* The parent may be any team: a reversed world, split 2D, then each axis split again. */
    shmem_team_t rev, xt, yt;
    CHECK_EQ("reverse", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev), 0);
    int xr = npes >= 3 ? 3 : 1;
    CHECK_EQ("split_2d of reversed", shmem_team_split_2d(rev, xr, NULL, 0, &xt, NULL, 0, &yt), 0);
    check_2d(rev, xr, xt, yt);
    shmem_team_t xx, xy;
    CHECK_EQ("split_2d of a row", shmem_team_split_2d(xt, 2, NULL, 0, &xx, NULL, 0, &xy), 0);
    check_2d(xt, 2, xx, xy);
    shmem_team_destroy(xx);
    shmem_team_destroy(xy);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);

    /* Configurations may differ between teams: column x asks for x + 1 contexts. */
    {
        int x = me % 2;
        shmem_team_config_t xc = {.num_contexts = 5}, yc = {.num_contexts = x + 1}, got;
        CHECK_EQ("split_2d with configs", shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc, SHMEM_TEAM_NUM_CONTEXTS, &yt), 0);
        CHECK_EQ("x get_config", shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
        CHECK_EQ("x num_contexts", got.num_contexts, 5);
        CHECK_EQ("y get_config", shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
        CHECK_EQ("y num_contexts", got.num_contexts, x + 1);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }

    /* xrange <= 0 fails on every PE, both outputs INVALID. */
    for (int xrange = 0; xrange >= -1; xrange--) {
        xt = yt = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &xt, NULL, 0, &yt);
        CHECK(rc != 0, "xrange %d returned 0", xrange);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "xrange %d gave teams", xrange);
        check_same_everywhere("xrange <= 0", rc);
    }
    /* A failure on one PE only (a bad y config there): every PE fails alike, nothing leaked. */
    {
        shmem_team_config_t yc = {.num_contexts = me == npes - 1 ? -1 : 0};
        xt = yt = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, &yc, SHMEM_TEAM_NUM_CONTEXTS, &yt);
        CHECK(rc != 0, "bad config on PE %d: returned 0", npes - 1);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "failed split_2d gave teams");
        check_same_everywhere("one PE's bad config", rc);
    }
    /* INVALID parent. */
    xt = yt = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt) != 0, "INVALID parent returned 0");
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID, "INVALID parent gave teams");

    shmem_team_destroy(rev);
    shmemx_team_info(&info);
    CHECK_EQ("teams in use at the end", info.teams_in_use, info0.teams_in_use);
    /* Many cycles leak nothing. */
    for (int i = 0; i < 500; i++) {
        CHECK_EQ("cycle split_2d", shmem_team_split_2d(SHMEM_TEAM_WORLD, 1 + i % npes, NULL, 0, &xt, NULL, 0, &yt), 0);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }
    shmemx_team_info(&info);
    CHECK_EQ("teams in use after cycles", info.teams_in_use, info0.teams_in_use);
    shmem_finalize();
    return 0;
}
