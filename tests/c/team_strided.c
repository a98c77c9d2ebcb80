// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0
/* shmem_team_split_strided: positive, negative (reverse order) and zero strides, splits of
 * splits, non-members (INVALID and 0), every invalid triplet (nonzero and INVALID on every PE,
 * the same code everywhere), an INVALID parent, configurations, and 2000 split/destroy cycles
 * with no leak. */
#include <shmemx.h>

#include "team_util.h"

/* Checks team t, made from parent (my number parent_me there) by (start, stride, size). */
static void check_team(shmem_team_t t, shmem_team_t parent, int start, int stride, int size) {
    int pme = shmem_team_my_pe(parent);
    int idx = -1;
    for (int i = 0; i < size; i++)
        if (start + i * stride == pme) idx = i;
    if (idx < 0) {
        CHECK(t == SHMEM_TEAM_INVALID, "non-member of (%d, %d, %d) got a team", start, stride, size);
        return;
    }
    CHECK(t != SHMEM_TEAM_INVALID, "member %d of (%d, %d, %d) got INVALID", pme, start, stride, size);
    CHECK_EQ("team my_pe", shmem_team_my_pe(t), idx);
    CHECK_EQ("team n_pes", shmem_team_n_pes(t), size);
    for (int i = -1; i <= size; i++) {
        int want = (i >= 0 && i < size) ? start + i * stride : -1;
        CHECK_EQ("translate team->parent", shmem_team_translate_pe(t, i, parent), want);
        if (want >= 0) CHECK_EQ("translate parent->team", shmem_team_translate_pe(parent, want, t), i);
    }
    CHECK_EQ("team_sync", shmem_team_sync(t), 0);
}

static void split_ok(shmem_team_t parent, int start, int stride, int size, shmem_team_t *out) {
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, out);
    CHECK(rc == 0, "split (%d, %d, %d) returned %d", start, stride, size, rc);
    check_team(*out, parent, start, stride, size);
}

int main(void) {
    start_test();
    shmemx_team_info_t info0, info;
    shmemx_team_info(&info0);
    shmem_team_t evens, odds, rev, one, all;
    split_ok(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &evens);
    if (npes > 1) split_ok(SHMEM_TEAM_WORLD, 1, 2, npes / 2, &odds);
    else odds = SHMEM_TEAM_INVALID;
    split_ok(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &rev); /* reversed world */
    split_ok(SHMEM_TEAM_WORLD, npes / 2, 0, 1, &one);      /* stride 0, size 1 */
    split_ok(SHMEM_TEAM_SHARED, 0, 1, shmem_team_n_pes(SHMEM_TEAM_SHARED), &all); /* this host */

    /* Splits of splits: evens of the reversed world, then its reverse. */
    shmem_team_t rev_evens = SHMEM_TEAM_INVALID, back = SHMEM_TEAM_INVALID;
    split_ok(rev, 0, 2, (npes + 1) / 2, &rev_evens);
    if (rev_evens != SHMEM_TEAM_INVALID) {
        int n = shmem_team_n_pes(rev_evens);
        split_ok(rev_evens, n - 1, -1, n, &back);
        /* rev_evens member i is world PE npes-1-2i; back reverses that again. */
        for (int i = 0; i < n; i++) {
            CHECK_EQ("rev_evens -> WORLD", shmem_team_translate_pe(rev_evens, i, SHMEM_TEAM_WORLD), npes - 1 - 2 * i);
            CHECK_EQ("back -> WORLD", shmem_team_translate_pe(back, i, SHMEM_TEAM_WORLD), npes - 1 - 2 * (n - 1 - i));
        }
    }
    if (evens != SHMEM_TEAM_INVALID && npes > 2) {
        shmem_team_t sub;
        int n = shmem_team_n_pes(evens);
        split_ok(evens, 1, 1, n - 1, &sub); /* world PEs 2, 4, ... */
        if (sub != SHMEM_TEAM_INVALID) {
            CHECK_EQ("sub -> WORLD", shmem_team_translate_pe(sub, 0, SHMEM_TEAM_WORLD), 2);
            CHECK_EQ("sub -> evens", shmem_team_translate_pe(sub, 0, evens), 1);
            CHECK_EQ("sub -> odds", shmem_team_translate_pe(sub, 0, odds), -1);
        }
        shmem_team_destroy(sub);
    }
    /* Between unrelated teams: a PE in evens and in rev. */
    if (evens != SHMEM_TEAM_INVALID)
        CHECK_EQ("evens -> rev", shmem_team_translate_pe(evens, shmem_team_my_pe(evens), rev), npes - 1 - me);
    CHECK_EQ("odds/evens disjoint", shmem_team_translate_pe(evens, 0, odds), -1);

    /* Invalid triplets: nonzero on every PE with the same code, INVALID everywhere. */
    int bad[][3] = {
        {-1, 1, 1},        /* start outside */
        {npes, 1, 1},      /* start outside */
        {0, 1, 0},         /* size 0 */
        {0, 1, -3},        /* negative size */
        {0, 1, npes + 1},  /* last member outside */
        {0, -1, 2},        /* negative stride walks below 0 */
        {0, 0, 2},         /* stride 0 with size > 1 */
        {0, 2, npes},      /* member outside (npes >= 2) or exactly fine for npes=1: see below */
    };
    int nbad = sizeof bad / sizeof bad[0];
    for (int k = 0; k < nbad; k++) {
        if (npes == 1 && k == 7) continue; /* (0, 2, 1) is valid on one PE */
        shmem_team_t t = (shmem_team_t)0x5; /* garbage, must become INVALID */
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[k][0], bad[k][1], bad[k][2], NULL, 0, &t);
        CHECK(rc != 0, "invalid triplet (%d, %d, %d) returned 0", bad[k][0], bad[k][1], bad[k][2]);
        CHECK(rc == SHMEMX_TEAM_ERR_INVALID_ARGUMENT, "code %d", rc);
        CHECK(t == SHMEM_TEAM_INVALID, "invalid triplet #%d gave a team", k);
        check_same_everywhere("invalid triplet code", rc);
    }
    /* One PE passes a bad config: every PE fails with the same code. */
    {
        shmem_team_config_t c = {.num_contexts = me == npes - 1 ? -1 : 2};
        shmem_team_t t;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c, SHMEM_TEAM_NUM_CONTEXTS, &t);
        CHECK(rc != 0 && t == SHMEM_TEAM_INVALID, "bad config on one PE: rc %d", rc);
        check_same_everywhere("bad config code", rc);
    }
    /* INVALID parent: nonzero, INVALID (not collective). */
    {
        shmem_team_t t = SHMEM_TEAM_WORLD;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0, "INVALID parent returned 0");
        CHECK(t == SHMEM_TEAM_INVALID, "INVALID parent gave a team");
    }
    /* Configuration: num_contexts is kept and returned; mask 0 means defaults whatever config holds. */
    {
        shmem_team_config_t c = {.num_contexts = 3}, got = {.num_contexts = -7};
        shmem_team_t t, d;
        CHECK_EQ("split with config", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c, SHMEM_TEAM_NUM_CONTEXTS, &t), 0);
        CHECK_EQ("get_config", shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
        CHECK_EQ("num_contexts", got.num_contexts, 3);
        c.num_contexts = -5; /* ignored: mask 0 */
        CHECK_EQ("split with mask 0", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c, 0, &d), 0);
        CHECK_EQ("get_config", shmem_team_get_config(d, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
        CHECK_EQ("default num_contexts", got.num_contexts, 0);
        shmem_team_destroy(t);
        shmem_team_destroy(d);
    }

    shmem_team_destroy(back);
    shmem_team_destroy(rev_evens);
    shmem_team_destroy(evens);
    shmem_team_destroy(odds);
    shmem_team_destroy(rev);
    shmem_team_destroy(one);
    shmem_team_destroy(all);
    shmemx_team_info(&info);
    CHECK_EQ("teams in use after destroy", info.teams_in_use, info0.teams_in_use);

    /* 2000 split/destroy cycles leak nothing. */
    for (int i = 0; i < 2000; i++) {
        shmem_team_t t;
        int start = i % npes;
        CHECK_EQ("cycle split", shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, npes - start, NULL, 0, &t), 0);
        shmem_team_destroy(t);
    }
    shmemx_team_info(&info);
    CHECK_EQ("teams in use after 2000 cycles", info.teams_in_use, info0.teams_in_use);
    shmem_finalize();
    return 0;
}
