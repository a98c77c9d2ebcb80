/* The first contact between every pair of PEs across many hosts: each PE's first transfers
 * to every other PE make its connections. Plain OpenSHMEM 1.4 calls, so the same source builds
 * against ferroshmem and Open MPI's OSHMEM.
 *
 *   first_contact puts      every PE puts 4 KiB to every other PE (in the order me+1, me+2,
 *                           ...), quiets and meets the others in a barrier; three times
 *   first_contact alltoall  three 4 KiB alltoalls of the world team
 *
 * Prints the slowest PE's time of each of the three rounds (the first makes the
 * connections) and checks every byte: "first_contact puts: ok, slowest: 1.234 0.056 0.051 s".
 * Across simulated hosts (docs/PERFORMANCE.md, "First contact across many hosts"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>

#define NB 512 /* longs per block: 4 KiB */
#define ROUNDS 3

static double took[ROUNDS], slowest[ROUNDS];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static long expected(int from, int to, int k, int r) { return (long)from * 1000000 + (long)to * NB + k + r; }

int main(int argc, char **argv) {
    int alltoall = argc > 1 && strcmp(argv[1], "alltoall") == 0;
    if (argc < 2 || (!alltoall && strcmp(argv[1], "puts") != 0)) {
        fprintf(stderr, "usage: first_contact puts|alltoall\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *src = shmem_malloc(sizeof(long) * NB * n), *dst = shmem_malloc(sizeof(long) * NB * n);
    if (!src || !dst) {
        fprintf(stderr, "first_contact: shmem_malloc failed\n");
        shmem_global_exit(1);
    }
    for (int r = 0; r < ROUNDS; r++) {
        for (int p = 0; p < n; p++)
            for (int k = 0; k < NB; k++) src[p * NB + k] = expected(me, p, k, r);
        shmem_barrier_all();
        double t = now();
        if (alltoall) {
            shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, NB);
        } else {
            for (int d = 1; d < n; d++) {
                int pe = (me + d) % n;
                shmem_long_put(dst + me * NB, src + pe * NB, NB, pe);
            }
            memcpy(dst + me * NB, src + me * NB, sizeof(long) * NB);
            shmem_quiet();
            shmem_barrier_all();
        }
        took[r] = now() - t;
        for (int p = 0; p < n; p++)
            for (int k = 0; k < NB; k++)
                if (dst[p * NB + k] != expected(p, me, k, r)) {
                    fprintf(stderr, "first_contact: PE %d: round %d, block of PE %d word %d: %ld, expected %ld\n",
                            me, r, p, k, dst[p * NB + k], expected(p, me, k, r));
                    shmem_global_exit(1);
                }
    }
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, slowest, took, ROUNDS);
    if (me == 0) printf("first_contact %s: ok, slowest: %.3f %.3f %.3f s\n", argv[1], slowest[0], slowest[1], slowest[2]);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
