// oshrun-test: npes=1,2,3,5,8 expect-exit=0 timeout=240
// oshrun-test: npes=5 expect-exit=0 timeout=240 env=SHMEMX_CORES=64
/* Back-to-back alltoalls with nothing between them, block sizes on every path (mailbox, staged
 * exchange, in order, pushed: 8 bytes to 48 KiB per block), sources overwritten right after
 * each call and destinations right after each check, on the world team, the reversed world
 * (member 0 is the last PE) and the odd PEs; now and then a strided alltoalls or a reduction
 * between them. With more PEs than cores, blocks of 1-16 KiB among 8 PEs go in order (of each
 * pair of members, the one that entered second moves both blocks): this checks that no block
 * is lost, stale, or moved from a reused source. */
#include <stdint.h>
#include <string.h>

#include <shmem.h>

#include "testutil.h"

#define MAXPES 16
#define MAXBLOCK (48 << 10)
#define ROUNDS 90

static uint8_t src[MAXPES * MAXBLOCK], dst[MAXPES * MAXBLOCK];
static long sum_in, sum_out;

/* The byte k of the block that member `from` sends to member `to` in round `round`. */
static uint8_t val(int round, int from, int to, size_t k) {
    return (uint8_t)(round * 29 + from * 11 + to * 5 + k * 3 + 1);
}

static void run(shmem_team_t t, const char *name) {
    if (t == SHMEM_TEAM_INVALID) return;
    int me = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    if (n > MAXPES) return;
    static const size_t sizes[] = {8, 1024, 4096, 2048, 16384, 520, 48 << 10, 3000, 64};
    for (int round = 0; round < ROUNDS; round++) {
        size_t len = sizes[round % (sizeof sizes / sizeof sizes[0])];
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < len; k++) src[j * len + k] = val(round, me, j, k);
        CHECK_EQ("alltoallmem rc", shmem_alltoallmem(t, dst, src, len), 0);
        /* The source is the program's again: overwrite it at once. */
        memset(src, 0xEE, (size_t)n * len);
        for (int i = 0; i < n; i++)
            for (size_t k = 0; k < len; k++)
                CHECK(dst[i * len + k] == val(round, i, me, k), "%s round %d len %zu from %d byte %zu: %u", name,
                      round, len, i, k, dst[i * len + k]);
        memset(dst, 0xDD, (size_t)n * len);
        if (round % 7 == 3) {
            /* Strided: 1 KiB of 4-byte elements per block, every other element of the source. */
            uint32_t *s32 = (uint32_t *)src, *d32 = (uint32_t *)dst;
            size_t ne = 256;
            for (int j = 0; j < n; j++)
                for (size_t e = 0; e < ne; e++) s32[(j * ne + e) * 2] = (uint32_t)(round * 100000 + me * 1000 + j * 300 + e);
            CHECK_EQ("alltoalls32 rc", shmem_uint32_alltoalls(t, d32, s32, 1, 2, ne), 0);
            for (int i = 0; i < n; i++)
                for (size_t e = 0; e < ne; e++)
                    CHECK(d32[i * ne + e] == (uint32_t)(round * 100000 + i * 1000 + me * 300 + e),
                          "%s round %d alltoalls from %d element %zu: %u", name, round, i, e, d32[i * ne + e]);
        }
        if (round % 11 == 5) {
            sum_in = me + round;
            CHECK_EQ("sum_reduce rc", shmem_long_sum_reduce(t, &sum_out, &sum_in, 1), 0);
            CHECK_EQ("sum", sum_out, (long)n * (n - 1) / 2 + (long)n * round);
        }
    }
}

int main(void) {
    shmem_init();
    int npes = shmem_n_pes();
    /* The world; the reversed world (member 0 is the last PE); the odd PEs (none at 1 PE). */
    shmem_team_t teams[3] = {SHMEM_TEAM_WORLD, SHMEM_TEAM_INVALID, SHMEM_TEAM_INVALID};
    const char *names[3] = {"world", "reversed", "odds"};
    CHECK_EQ("split reversed", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &teams[1]),
             0);
    if (npes > 1)
        CHECK_EQ("split odds", shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &teams[2]), 0);
    /* Each team twice, the teams in turn, so that slots and epochs of several teams interleave. */
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < 3; k++) run(teams[k], names[k]);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) printf("ok\n");
    shmem_finalize();
    return 0;
}
