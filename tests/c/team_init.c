// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0
/* Arbitrary teams (shmemx_team_get_uniqueid, shmemx_team_init[_nb]): any subset of WORLD in any
 * order; two creations with different roots and ids in flight at once (completed in the
 * opposite order); numbering, translation, sync, splits and team contexts on arbitrary teams;
 * a missing unique id fails at once; an invalid index on one member, or one index passed by
 * two members, fails on every member;
 * 200 init/destroy cycles leak nothing. */
#include <shmemx.h>

#include "testutil.h"

shmemx_team_uniqueid_t uid_a, uid_b, uid_c, uid_d;
long cells[64];

/* PE 0 draws a fresh unique id and hands it to every PE; each calls shmemx_team_init with
 * index `idx`, and every one must get SHMEMX_TEAM_ERR_INVALID_ARGUMENT and no team. */
static void init_fails(const char *what, int idx) {
    if (me == 0) {
        CHECK_EQ("get_uniqueid", shmemx_team_get_uniqueid(&uid_d), 0);
        for (int pe = 0; pe < npes; pe++) shmem_uint64_p(&uid_d, uid_d, pe);
    }
    shmem_barrier_all();
    shmemx_team_config_t cfg = {.uniqueid = uid_d};
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK_EQ(what, shmemx_team_init(&t, &cfg, SHMEMX_TEAM_CONFIG_UNIQUEID, npes, idx), SHMEMX_TEAM_ERR_INVALID_ARGUMENT);
    CHECK(t == SHMEM_TEAM_INVALID, "a failed init gave a team");
}

/* Every PE of `t` checks that member i is world PE members[i]. */
static void check_members(shmem_team_t t, const int *members, int n) {
    CHECK(t != SHMEM_TEAM_INVALID, "member got INVALID");
    CHECK_EQ("n_pes", shmem_team_n_pes(t), n);
    for (int i = -1; i <= n; i++) {
        int want = (i >= 0 && i < n) ? members[i] : -1;
        CHECK_EQ("translate -> WORLD", shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), want);
        if (want >= 0) CHECK_EQ("translate WORLD ->", shmem_team_translate_pe(SHMEM_TEAM_WORLD, want, t), i);
        if (want == me) CHECK_EQ("my_pe", shmem_team_my_pe(t), i);
    }
    CHECK_EQ("sync", shmem_team_sync(t), 0);
}

int main(void) {
    start_test();
    shmemx_team_info_t info0, info;
    shmemx_team_info(&info0);
    int root_b = npes - 1;
    if (me == 0) CHECK_EQ("get_uniqueid", shmemx_team_get_uniqueid(&uid_a), 0);
    if (me == root_b) CHECK_EQ("get_uniqueid", shmemx_team_get_uniqueid(&uid_b), 0);
    if (me == 0)
        for (int pe = 0; pe < npes; pe++) shmem_uint64_p(&uid_a, uid_a, pe);
    if (me == root_b)
        for (int pe = 0; pe < npes; pe++) shmem_uint64_p(&uid_b, uid_b, pe);
    shmem_barrier_all();
    if (npes > 1) CHECK(uid_a != uid_b, "two roots drew the same id");

    /* Team A: every PE, reversed. Team B: the even PEs, rotated by one. */
    int a_members[64], b_members[64], na = npes, nb = (npes + 1) / 2;
    for (int i = 0; i < na; i++) a_members[i] = npes - 1 - i;
    for (int i = 0; i < nb; i++) b_members[i] = 2 * ((i + 1) % nb);
    shmemx_team_config_t ca = {.num_contexts = 1, .uniqueid = uid_a}, cb = {.uniqueid = uid_b};
    shmem_team_t a = SHMEM_TEAM_WORLD, b = SHMEM_TEAM_INVALID;
    shmemx_team_request_t ra, rb = SHMEMX_TEAM_REQUEST_NULL;
    CHECK_EQ("init_nb A",
             shmemx_team_init_nb(&a, &ca, SHMEMX_TEAM_CONFIG_UNIQUEID | SHMEM_TEAM_NUM_CONTEXTS, na, npes - 1 - me, &ra), 0);
    CHECK(a == SHMEM_TEAM_INVALID, "output is INVALID until completion");
    if (me % 2 == 0) {
        int k = me / 2, idx = (k - 1 + nb) % nb; /* b_members[idx] == me */
        CHECK_EQ("init_nb B", shmemx_team_init_nb(&b, &cb, SHMEMX_TEAM_CONFIG_UNIQUEID, nb, idx, &rb), 0);
        int r;
        while ((r = shmemx_team_create_test(rb)) == SHMEMX_TEAM_CREATE_IN_PROGRESS) {
        }
        CHECK_EQ("B done", r, SHMEMX_TEAM_CREATE_DONE);
        check_members(b, b_members, nb);
    }
    CHECK_EQ("wait A", shmemx_team_create_wait(ra), 0);
    check_members(a, a_members, na);
    shmem_team_config_t got;
    CHECK_EQ("A get_config", shmem_team_get_config(a, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    CHECK_EQ("A num_contexts", got.num_contexts, 1);
    /* A completed request is gone. */
    CHECK(shmemx_team_create_test(ra) < 0, "a completed request is still known");

    /* Splits of an arbitrary team: every other member of B (B member i is world 2((i+1)%nb)). */
    if (b != SHMEM_TEAM_INVALID) {
        shmem_team_t s;
        CHECK_EQ("split of B", shmem_team_split_strided(b, 0, 2, (nb + 1) / 2, NULL, 0, &s), 0);
        int bi = shmem_team_my_pe(b);
        if (bi % 2 == 0) {
            int sm[64];
            for (int i = 0; i < (nb + 1) / 2; i++) sm[i] = b_members[2 * i];
            check_members(s, sm, (nb + 1) / 2);
        } else {
            CHECK(s == SHMEM_TEAM_INVALID, "non-member of a split of B got a team");
        }
        shmem_team_destroy(s);
    }
    /* A team context on A: team PE i is world PE npes-1-i. */
    shmem_ctx_t ctx;
    CHECK_EQ("ctx on A", shmem_team_create_ctx(a, 0, &ctx), 0);
    shmem_ctx_long_p(ctx, &cells[me], me + 1, 0); /* team PE 0 = world PE npes-1 */
    shmem_ctx_quiet(ctx);
    shmem_team_sync(a);
    if (me == npes - 1)
        for (int pe = 0; pe < npes; pe++) CHECK_EQ("put through A", cells[pe], pe + 1);

    /* Team C, blocking: odd PEs first, then even ones (not strided for npes > 2). */
    if (me == 0) {
        CHECK_EQ("get_uniqueid C", shmemx_team_get_uniqueid(&uid_c), 0);
        for (int pe = 0; pe < npes; pe++) shmem_uint64_p(&uid_c, uid_c, pe);
    }
    shmem_barrier_all();
    int c_members[64], nc = 0;
    for (int pe = 1; pe < npes; pe += 2) c_members[nc++] = pe;
    for (int pe = 0; pe < npes; pe += 2) c_members[nc++] = pe;
    int cidx = me % 2 ? me / 2 : npes / 2 + me / 2;
    shmemx_team_config_t cc = {.uniqueid = uid_c};
    shmem_team_t c;
    CHECK_EQ("init C", shmemx_team_init(&c, &cc, SHMEMX_TEAM_CONFIG_UNIQUEID, npes, cidx), 0);
    check_members(c, c_members, nc);

    /* Without a unique id the call fails at once (the message goes to stderr). */
    shmem_team_t none = SHMEM_TEAM_WORLD;
    CHECK(shmemx_team_init(&none, NULL, 0, npes, me) != 0, "init without a unique id returned 0");
    CHECK(none == SHMEM_TEAM_INVALID, "init without a unique id gave a team");

    /* One member passes an invalid pe_idx_in_team (the last PE: across hosts, on the last host,
     * while the root is PE 0): every member gets the same error and no team. */
    init_fails("init with a bad index", me == npes - 1 ? npes : me);
    /* Two members pass the same pe_idx_in_team (the last PE takes index 0, so index npes - 1
     * has nobody): every member gets the same error and no team, where it waited for ever
     * before. */
    if (npes > 1) init_fails("init with an index passed twice", me == npes - 1 ? 0 : me);

    shmem_ctx_destroy(ctx);
    shmem_team_destroy(a);
    shmem_team_destroy(b);
    shmem_team_destroy(c);
    shmemx_team_info(&info);
    CHECK_EQ("teams in use after destroy", info.teams_in_use, info0.teams_in_use);

    /* Cycles: a fresh id each time, from a rotating root. */
    for (int i = 0; i < 200; i++) {
        int root = i % npes;
        shmem_barrier_all();
        if (me == root) {
            shmemx_team_get_uniqueid(&uid_a);
            for (int pe = 0; pe < npes; pe++) shmem_uint64_p(&uid_a, uid_a, pe);
        }
        shmem_barrier_all();
        shmemx_team_config_t cfg = {.uniqueid = uid_a};
        shmem_team_t t;
        CHECK_EQ("cycle init", shmemx_team_init(&t, &cfg, SHMEMX_TEAM_CONFIG_UNIQUEID, npes, (me + i) % npes), 0);
        CHECK_EQ("cycle my_pe", shmem_team_my_pe(t), (me + i) % npes);
        shmem_team_destroy(t);
    }
    shmemx_team_info(&info);
    CHECK_EQ("teams in use after cycles", info.teams_in_use, info0.teams_in_use);
    shmem_finalize();
    return 0;
}
