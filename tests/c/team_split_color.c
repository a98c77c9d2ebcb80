// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0
/* shmemx_team_split_color (like MPI_Comm_split) against a model every PE computes: random
 * colors (some SHMEMX_COLOR_UNDEFINED) and keys with ties from a seed all PEs share, over
 * WORLD and over a reversed team; team numbers, sizes and translate_pe both ways; a reduction
 * on every new team; nested splits; config and contexts on the new teams; the _nb form with
 * create_test and create_wait; invalid arguments on one PE fail on every PE and leave nothing
 * made; teams in use return to where they were. */
#include <shmemx.h>

#include "team_util.h"

long cells[64];
long sum_src, sum_dst;

/* A generator every PE runs in step (same seed, same calls). */
static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned bound) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33) % bound;
}

/* The model: parent member i passed color[i], key[i]; team of member p (NULL when undefined):
 * its rank and size, and the parent numbers of its team in order (out[rank] = member). */
static int model(int n, const int *color, const int *key, int p, int *out) {
    if (color[p] < 0) return 0;
    int size = 0;
    for (int q = 0; q < n; q++) {
        if (color[q] != color[p]) continue;
        int rank = 0;
        for (int r = 0; r < n; r++)
            if (color[r] == color[p] && (key[r] < key[q] || (key[r] == key[q] && r < q))) rank++;
        out[rank] = q;
        size++;
    }
    return size;
}

/* Checks `t`, the team parent member `p` got from a split by (color, key), against the model;
 * also runs a sum reduction of world PE numbers on it. */
static void check_team(const char *what, shmem_team_t parent, int n, const int *color, const int *key, int p,
                       shmem_team_t t) {
    int order[64];
    int size = model(n, color, key, p, order);
    if (size == 0) {
        CHECK(t == SHMEM_TEAM_INVALID, "%s: undefined color gave a team", what);
        return;
    }
    CHECK(t != SHMEM_TEAM_INVALID, "%s: no team for color %d", what, color[p]);
    CHECK_EQ(what, shmem_team_n_pes(t), size);
    long expected_sum = 0;
    for (int rank = 0; rank < size; rank++) {
        int q = order[rank];
        if (q == p) CHECK_EQ(what, shmem_team_my_pe(t), rank);
        /* parent -> team and team -> parent, and team -> world. */
        CHECK_EQ(what, shmem_team_translate_pe(parent, q, t), rank);
        CHECK_EQ(what, shmem_team_translate_pe(t, rank, parent), q);
        int world = shmem_team_translate_pe(parent, q, SHMEM_TEAM_WORLD);
        CHECK_EQ(what, shmem_team_translate_pe(t, rank, SHMEM_TEAM_WORLD), world);
        expected_sum += world;
    }
    for (int q = 0; q < n; q++)
        if (color[q] != color[p]) CHECK_EQ(what, shmem_team_translate_pe(parent, q, t), -1);
    CHECK_EQ(what, shmem_team_translate_pe(t, size, parent), -1);
    sum_src = me;
    CHECK_EQ("sum_reduce on the new team", shmem_long_sum_reduce(t, &sum_dst, &sum_src, 1), 0);
    CHECK_EQ(what, sum_dst, expected_sum);
}

/* Random colors (a few, and undefined) and keys (with ties) for a parent of n members. */
static void draw(int n, int *color, int *key) {
    int ncolors = 1 + (int)rnd(4);
    for (int i = 0; i < n; i++) {
        color[i] = rnd(6) == 0 ? SHMEMX_COLOR_UNDEFINED : (int)rnd((unsigned)ncolors) * 7;
        key[i] = (int)rnd(5) - 2;
    }
}

int main(void) {
    start_test();
    CHECK(npes <= 64, "at most 64 PEs");
    shmemx_team_info_t info0, info;
    shmemx_team_info(&info0);
    int color[64], key[64];
    shmem_team_t rev;
    CHECK_EQ("reverse", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev), 0);
    int rev_me = shmem_team_my_pe(rev);

    /* Random splits of WORLD and of the reversed team, blocking and non-blocking. */
    for (int round = 0; round < 30; round++) {
        shmem_team_t parent = round % 2 ? rev : SHMEM_TEAM_WORLD;
        int p = round % 2 ? rev_me : me;
        draw(npes, color, key);
        shmem_team_t t = SHMEM_TEAM_WORLD;
        if (round % 3 == 2) {
            shmemx_team_request_t r;
            CHECK_EQ("split_color_nb", shmemx_team_split_color_nb(parent, color[p], key[p], NULL, 0, &t, &r), 0);
            CHECK(t == SHMEM_TEAM_INVALID, "the output is INVALID until completion");
            /* RMA while the creation is in flight, then poll it to completion. */
            shmem_long_p(&cells[me], round, right);
            int rc;
            while ((rc = shmemx_team_create_test(r)) == SHMEMX_TEAM_CREATE_IN_PROGRESS) {
            }
            CHECK_EQ("create_test", rc, SHMEMX_TEAM_CREATE_DONE);
        } else if (round % 3 == 1) {
            shmemx_team_request_t r;
            CHECK_EQ("split_color_nb", shmemx_team_split_color_nb(parent, color[p], key[p], NULL, 0, &t, &r), 0);
            CHECK_EQ("create_wait", shmemx_team_create_wait(r), 0);
        } else {
            CHECK_EQ("split_color", shmemx_team_split_color(parent, color[p], key[p], NULL, 0, &t), 0);
        }
        check_team("random split", parent, npes, color, key, p, t);
        shmem_team_destroy(t);
    }

    /* Nested: halves by parity, reversed by key; then each half split again by its own team
     * numbers, in thirds, keys in team order. */
    {
        int c1[64], k1[64];
        for (int i = 0; i < npes; i++) {
            c1[i] = i % 2;
            k1[i] = -i;
        }
        shmem_team_t half, third;
        CHECK_EQ("halves", shmemx_team_split_color(SHMEM_TEAM_WORLD, c1[me], k1[me], NULL, 0, &half), 0);
        check_team("halves", SHMEM_TEAM_WORLD, npes, c1, k1, me, half);
        int hn = shmem_team_n_pes(half), hme = shmem_team_my_pe(half);
        int c2[64], k2[64];
        for (int i = 0; i < hn; i++) {
            c2[i] = i / 3;
            k2[i] = 0;
        }
        CHECK_EQ("thirds", shmemx_team_split_color(half, c2[hme], k2[hme], NULL, 0, &third), 0);
        check_team("thirds of halves", half, hn, c2, k2, hme, third);
        /* World PE of my team PE 0: the member of my half with half number 3 * (hme / 3). */
        int lead_world = shmem_team_translate_pe(half, 3 * (hme / 3), SHMEM_TEAM_WORLD);
        CHECK_EQ("thirds: member 0", shmem_team_translate_pe(third, 0, SHMEM_TEAM_WORLD), lead_world);
        shmem_team_destroy(third);
        shmem_team_destroy(half);
    }

    /* Config and contexts on the new teams: pairs (0,1), (2,3), ... reversed within the pair
     * by key, 2 contexts reserved; each PE puts through a team context into its partner. */
    {
        shmem_team_config_t cfg = {.num_contexts = 2}, got;
        shmem_team_t pair;
        CHECK_EQ("pairs", shmemx_team_split_color(SHMEM_TEAM_WORLD, me / 2, -me, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &pair), 0);
        CHECK_EQ("get_config", shmem_team_get_config(pair, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
        CHECK_EQ("num_contexts", got.num_contexts, 2);
        int pn = shmem_team_n_pes(pair), pme = shmem_team_my_pe(pair);
        CHECK_EQ("pair size", pn, (me / 2) * 2 + 1 < npes ? 2 : 1);
        CHECK_EQ("pair my_pe (reversed)", pme, pn == 2 ? 1 - me % 2 : 0);
        shmem_ctx_t ctx;
        CHECK_EQ("team_create_ctx", shmem_team_create_ctx(pair, 0, &ctx), 0);
        shmem_team_t owner;
        CHECK_EQ("ctx_get_team", shmem_ctx_get_team(ctx, &owner), 0);
        CHECK(owner == pair, "the context's team is not the pair");
        int partner = (pme + 1) % pn;
        shmem_ctx_long_p(ctx, &cells[0], 1000 + me, partner);
        shmem_ctx_quiet(ctx);
        CHECK_EQ("pair sync", shmem_team_sync(pair), 0);
        CHECK_EQ("put through the pair's context", cells[0], 1000 + shmem_team_translate_pe(pair, partner, SHMEM_TEAM_WORLD));
        shmem_ctx_destroy(ctx);
        shmem_team_destroy(pair);
    }

    /* Invalid arguments on one PE: every PE gets the same code and INVALID, nothing is made. */
    shmemx_team_info(&info);
    long in_use = info.teams_in_use;
    {
        shmem_team_t t = SHMEM_TEAM_WORLD;
        int rc = shmemx_team_split_color(SHMEM_TEAM_WORLD, me == npes - 1 ? -5 : 0, 0, NULL, 0, &t);
        CHECK_EQ("bad color", rc, SHMEMX_TEAM_ERR_INVALID_ARGUMENT);
        CHECK(t == SHMEM_TEAM_INVALID, "bad color gave a team");
        check_same_everywhere("bad color", rc);
        shmem_team_config_t cfg = {.num_contexts = -1};
        rc = shmemx_team_split_color(SHMEM_TEAM_WORLD, 1, me, me == 0 ? &cfg : NULL, me == 0 ? SHMEM_TEAM_NUM_CONTEXTS : 0, &t);
        CHECK_EQ("bad config", rc, SHMEMX_TEAM_ERR_INVALID_ARGUMENT);
        CHECK(t == SHMEM_TEAM_INVALID, "bad config gave a team");
        check_same_everywhere("bad config", rc);
        shmemx_team_request_t r;
        CHECK_EQ("bad mask starts", shmemx_team_split_color_nb(SHMEM_TEAM_WORLD, 0, 0, NULL, me == 0 ? 0x40 : 0, &t, &r), 0);
        CHECK_EQ("bad mask at completion", shmemx_team_create_wait(r), SHMEMX_TEAM_ERR_INVALID_ARGUMENT);
        CHECK(t == SHMEM_TEAM_INVALID, "bad mask gave a team");
        /* INVALID parent: fails at once, no request. */
        CHECK(shmemx_team_split_color(SHMEM_TEAM_INVALID, 0, 0, NULL, 0, &t) != 0, "INVALID parent split");
        CHECK(shmemx_team_split_color_nb(SHMEM_TEAM_INVALID, 0, 0, NULL, 0, &t, &r) != 0, "INVALID parent started");
        CHECK(r == SHMEMX_TEAM_REQUEST_NULL && t == SHMEM_TEAM_INVALID, "INVALID parent: request or team set");
        shmemx_team_info(&info);
        CHECK_EQ("failed splits made no team", info.teams_in_use, in_use);
        /* Everybody undefined: no team anywhere, success. */
        CHECK_EQ("all undefined", shmemx_team_split_color(SHMEM_TEAM_WORLD, SHMEMX_COLOR_UNDEFINED, me, NULL, 0, &t), 0);
        CHECK(t == SHMEM_TEAM_INVALID, "undefined color gave a team");
        /* The world still splits after the failures. */
        CHECK_EQ("split after failures", shmemx_team_split_color(SHMEM_TEAM_WORLD, 3, npes - me, NULL, 0, &t), 0);
        CHECK_EQ("one team, reversed", shmem_team_my_pe(t), npes - 1 - me);
        shmem_team_destroy(t);
    }

    shmem_barrier_all();
    shmem_team_destroy(rev);
    shmemx_team_info(&info);
    CHECK_EQ("teams in use at the end", info.teams_in_use, info0.teams_in_use);
    shmem_finalize();
    return 0;
}
