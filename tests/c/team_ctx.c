// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0
/* Team contexts: shmem_team_create_ctx, shmem_ctx_get_team, team-relative PE numbers in RMA,
 * AMO and signal routines, fence/quiet on team contexts, num_contexts reservations (and
 * creating more than reserved), and destroying a team with live shareable contexts. */
#include <shmemx.h>

#include "testutil.h"

long cells[64];
long counter;
uint64_t sig;

int main(void) {
    start_test();
    shmem_team_t t;
    shmem_ctx_t c;
    /* get_team of the default and of a plain context is WORLD; of INVALID, nonzero + INVALID. */
    CHECK_EQ("get_team(DEFAULT)", shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), 0);
    CHECK(t == SHMEM_TEAM_WORLD, "default context's team is not WORLD");
    CHECK_EQ("ctx_create", shmem_ctx_create(0, &c), 0);
    CHECK_EQ("get_team(created)", shmem_ctx_get_team(c, &t), 0);
    CHECK(t == SHMEM_TEAM_WORLD, "created context's team is not WORLD");
    shmem_ctx_destroy(c);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0, "get_team(INVALID) returned 0");
    CHECK(t == SHMEM_TEAM_INVALID, "get_team(INVALID) gave a team");
    c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0, "create_ctx(INVALID) returned 0");
    CHECK(c == SHMEM_CTX_INVALID, "create_ctx(INVALID) gave a context");
    CHECK_EQ("create_ctx(WORLD)", shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &c), 0);
    CHECK_EQ("get_team(WORLD ctx)", shmem_ctx_get_team(c, &t), 0);
    CHECK(t == SHMEM_TEAM_WORLD, "WORLD context's team");
    shmem_ctx_destroy(c);

    /* A reversed world with 2 contexts reserved: team PE i is world PE npes-1-i. */
    shmem_team_config_t cfg = {.num_contexts = 2}, got;
    shmem_team_t rev;
    CHECK_EQ("reverse", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &rev), 0);
    CHECK_EQ("get_config", shmem_team_get_config(rev, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    CHECK_EQ("num_contexts", got.num_contexts, 2);
    shmem_ctx_t rc[3];
    for (int i = 0; i < 3; i++) /* the third is beyond the reservation: still created */
        CHECK_EQ("team_create_ctx", shmem_team_create_ctx(rev, i == 1 ? SHMEM_CTX_PRIVATE : 0, &rc[i]), 0);
    CHECK_EQ("get_team(team ctx)", shmem_ctx_get_team(rc[0], &t), 0);
    CHECK(t == rev, "team context's team is not the team");

    int tme = shmem_team_my_pe(rev), tn = shmem_team_n_pes(rev);
    CHECK_EQ("team my_pe", tme, npes - 1 - me);
    /* Put to team PE (tme + 1) % tn: world PE npes-1-((tme+1)%tn). */
    int tpe = (tme + 1) % tn;
    int wpe = npes - 1 - tpe;
    shmem_ctx_long_p(rc[0], &cells[me], 1000 + me, tpe);
    long v = 2000 + me;
    shmem_ctx_long_put(rc[1], &cells[me + npes < 64 ? me + npes : me], &v, 1, tpe);
    shmem_ctx_quiet(rc[0]);
    shmem_ctx_fence(rc[1]);
    shmem_ctx_long_atomic_add(rc[2], &counter, 1, 0); /* team PE 0 = world PE npes-1 */
    shmem_ctx_uint64_atomic_set(rc[2], &sig, 7, tpe);
    shmem_barrier_all();
    /* Who wrote to me? The world PE w whose team target (team number of w, +1) is my team number. */
    int from_team = (tme - 1 + tn) % tn, from_world = npes - 1 - from_team;
    CHECK_EQ("team-relative p landed", cells[from_world], 1000 + from_world);
    if (from_world + npes < 64) CHECK_EQ("team-relative put landed", cells[from_world + npes], 2000 + from_world);
    CHECK_EQ("team-relative atomic", counter, me == npes - 1 ? npes : 0);
    CHECK_EQ("team-relative signal set", sig, 7);
    CHECK_EQ("g back through the team", shmem_ctx_long_g(rc[0], &cells[me], tpe), 1000 + me);
    CHECK_EQ("world view of the same", shmem_long_g(&cells[me], wpe), 1000 + me);
    CHECK_EQ("fetch on team PE 0", shmem_ctx_long_atomic_fetch(rc[2], &counter, 0), npes);
    shmem_barrier_all();

    /* Destroy a shareable context ourselves, then destroy the team with the other shareable one
     * still alive (the team destroys it); the private one is ours to destroy first. */
    shmem_ctx_destroy(rc[0]);
    shmem_ctx_destroy(rc[1]);
    shmem_team_destroy(rev);

    /* Team contexts of a sub-team (evens), and of SAME_MYPE_NODE (this PE by its number there). */
    shmem_team_t evens;
    CHECK_EQ("evens", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens), 0);
    if (evens != SHMEM_TEAM_INVALID) {
        shmem_ctx_t ec;
        CHECK_EQ("evens ctx", shmem_team_create_ctx(evens, 0, &ec), 0);
        int en = shmem_team_n_pes(evens);
        shmem_ctx_long_p(ec, &cells[0], 42, en - 1); /* team PE en-1 = world PE 2(en-1) */
        shmem_ctx_quiet(ec);
        shmem_team_sync(evens);
        if (me == 2 * (en - 1)) CHECK_EQ("evens put", cells[0], 42);
        shmem_ctx_destroy(ec);
    }
    shmem_ctx_t self;
    CHECK_EQ("same_mype ctx", shmem_team_create_ctx(SHMEMX_TEAM_SAME_MYPE_NODE, 0, &self), 0);
    shmem_ctx_long_p(self, &cells[1], 77 + me, shmem_team_my_pe(SHMEMX_TEAM_SAME_MYPE_NODE));
    CHECK_EQ("self put", cells[1], 77 + me);
    shmem_ctx_destroy(self);
    shmem_barrier_all();
    shmem_team_destroy(evens);
    shmem_finalize();
    return 0;
}
