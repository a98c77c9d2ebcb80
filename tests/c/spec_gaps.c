// oshrun-test: npes=1,2,4 expect-exit=0
/* OpenSHMEM 1.5 routines and behaviours that programs written elsewhere rely on: the C11
 * shmem_sync(team) beside the deprecated four-argument shmem_sync, quiet/fence/destroy on
 * SHMEM_CTX_INVALID (a context made on a team this PE is not in), shmem_team_ptr, and
 * shmem_pcontrol. Built as C11 (the oshcc default of gcc 12 is gnu17). */
#include <math.h>

#include <shmemx.h>

#include "testutil.h"

static long psync[SHMEM_BARRIER_SYNC_SIZE];
static int x;

int main(void) {
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();

    /* 1. Both spellings of shmem_sync. */
    CHECK_EQ("shmem_sync(SHMEM_TEAM_WORLD)", shmem_sync(SHMEM_TEAM_WORLD), 0);
    shmem_sync(0, 0, n, psync);
    CHECK(shmem_sync(SHMEM_TEAM_INVALID) != 0, "shmem_sync(SHMEM_TEAM_INVALID) returned 0");

    /* 2. A context on a team this PE may not be in (the specification's example). */
    shmem_team_t evens;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens);
    CHECK_EQ("split", rc, 0);
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int ctx_rc = shmem_team_create_ctx(evens, 0, &ctx);
    if (me % 2 == 0) {
        CHECK_EQ("create_ctx on my team", ctx_rc, 0);
        CHECK(ctx != SHMEM_CTX_INVALID, "a member got SHMEM_CTX_INVALID");
    } else {
        CHECK(ctx_rc != 0, "create_ctx on a team I am not in returned 0");
        CHECK(ctx == SHMEM_CTX_INVALID, "a non-member got a context");
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_fence(ctx);
    shmem_ctx_destroy(ctx);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);

    /* 6. shmem_team_ptr: team PE numbers; NULL for INVALID, out of range, not symmetric. */
    if (evens != SHMEM_TEAM_INVALID) {
        int tn = shmem_team_n_pes(evens);
        for (int pe = 0; pe < tn; pe++) {
            int world = shmem_team_translate_pe(evens, pe, SHMEM_TEAM_WORLD);
            CHECK(shmem_team_ptr(evens, &x, pe) == shmem_ptr(&x, world),
                  "team_ptr(evens, %d) differs from shmem_ptr(world %d)", pe, world);
            CHECK(shmem_team_ptr(evens, &x, pe) != NULL, "team_ptr(evens, %d) is NULL", pe);
        }
        CHECK(shmem_team_ptr(evens, &x, tn) == NULL, "team_ptr past the team's end");
        CHECK(shmem_team_ptr(evens, &x, -1) == NULL, "team_ptr of PE -1");
        int local = 0;
        CHECK(shmem_team_ptr(evens, &local, 0) == NULL, "team_ptr of a stack variable");
    }
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, &x, 0) == NULL, "team_ptr on SHMEM_TEAM_INVALID");
    /* Writing through the pointer reaches the PE. */
    int *right = shmem_team_ptr(SHMEM_TEAM_WORLD, &x, (me + 1) % n);
    CHECK(right != NULL, "team_ptr(WORLD, right neighbour) is NULL");
    *right = me + 1;
    shmem_barrier_all();
    CHECK_EQ("stored through team_ptr", x, (me + n - 1) % n + 1);
    if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);

    /* 7. shmem_pcontrol accepts every level and changes nothing else. */
    CHECK_EQ("default level", shmemx_pcontrol_level(), 1);
    int levels[] = {0, 2, 7, -3, 1};
    for (int i = 0; i < 5; i++) {
        shmem_pcontrol(levels[i]);
        CHECK_EQ("level", shmemx_pcontrol_level(), levels[i]);
    }

    /* 8. oshcc links libm: powl without -lm on the command line. */
    volatile long double base = 2.0L;
    CHECK(powl(base, 10.0L) == 1024.0L, "powl");

    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
