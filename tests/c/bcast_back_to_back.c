// oshrun-test: npes=1,2,3,5,8 expect-exit=0 timeout=240
// oshrun-test: npes=5 expect-exit=0 timeout=240 env=SHMEMX_CORES=64
// oshrun-test: npes=2 expect-exit=0 timeout=240 env=SHMEMX_CORES=1
/* Back-to-back broadcasts with nothing between them: roots that change from call to call
 * (so from host to host across hosts), sizes on both sides of the small-broadcast limit
 * (4 KiB), destinations overwritten by their owner right after each check and sources
 * overwritten by the root right after each call, mixed with reductions and barriers, on the
 * world team, the reversed world and the even PEs. Small broadcasts between hosts are eager
 * (the root returns before the others have the data; see ARCHITECTURE, "Collectives across
 * hosts"): this checks that no broadcast's bytes are lost, late, or taken from a reused
 * source or ring entry. */
#include <stdint.h>
#include <string.h>

#include <shmem.h>

#include "testutil.h"

#define MAXN 6000
#define ROUNDS 120

static uint8_t src[MAXN], dst[MAXN];
static long sum_in, sum_out;

static uint8_t val(int round, int root, size_t k) { return (uint8_t)(round * 31 + root * 7 + k * 3 + 1); }

static void run(shmem_team_t t, const char *name) {
    if (t == SHMEM_TEAM_INVALID) return;
    int me = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    static const size_t sizes[] = {1, 8, 100, 512, 4096, 4097, 5000, 8};
    for (int round = 0; round < ROUNDS; round++) {
        size_t len = sizes[round % (sizeof sizes / sizeof sizes[0])];
        int root = (round * 5 + round / 7) % n;
        if (me == root)
            for (size_t k = 0; k < len; k++) src[k] = val(round, root, k);
        CHECK_EQ("broadcastmem rc", shmem_broadcastmem(t, dst, src, len, root), 0);
        /* The root's source is the program's again: overwrite it at once. */
        if (me == root) memset(src, 0xEE, len);
        if (me != root)
            for (size_t k = 0; k < len; k++)
                CHECK(dst[k] == val(round, root, k), "%s round %d len %zu root %d byte %zu: %u", name, round,
                      len, root, k, dst[k]);
        memset(dst, 0xDD, len);
        if (round % 9 == 4) {
            sum_in = me + round;
            CHECK_EQ("sum_reduce rc", shmem_long_sum_reduce(t, &sum_out, &sum_in, 1), 0);
            CHECK_EQ("sum", sum_out, (long)n * (n - 1) / 2 + (long)n * round);
        }
        if (round % 17 == 8) shmem_team_sync(t);
    }
}

int main(void) {
    shmem_init();
    int npes = shmem_n_pes();
    run(SHMEM_TEAM_WORLD, "world");
    shmem_team_t reversed = SHMEM_TEAM_INVALID, evens = SHMEM_TEAM_INVALID;
    CHECK_EQ("split reversed", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed),
             0);
    CHECK_EQ("split evens", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens), 0);
    run(reversed, "reversed");
    run(evens, "evens");
    shmem_team_destroy(reversed);
    if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
    run(SHMEM_TEAM_WORLD, "world again");
    shmem_barrier_all();
    if (shmem_my_pe() == 0) printf("bcast_back_to_back: %d rounds on %d PEs ok\n", ROUNDS, npes);
    shmem_finalize();
    return 0;
}
