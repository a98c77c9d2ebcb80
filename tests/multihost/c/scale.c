/* The collectives a job of many hosts runs first, each checked: barrier, broadcast, sum
 * reduction, fcollect and alltoall on the world team (8 B and 4 KiB per PE), a strided split,
 * a collective in it, and its destroy. PE 0 prints "scale: ok at N PEs" and how long the
 * slowest PE's shmem_init took (each PE measures from its own start). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>

#include "../../c/testutil.h"

/* Reports the failed check (its PE, place and message) and ends the job with status 1. */
#define FAIL(...) test_fail(__FILE__, __LINE__, "scale", __VA_ARGS__)

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double init_s, slowest_init, phase_start;

/* PE 0 prints how long the phase that ends here took (FSH_SCALE_PHASES=1). */
static void phase(const char *name) {
    shmem_barrier_all();
    if (shmem_my_pe() == 0 && getenv("FSH_SCALE_PHASES")) printf("phase %-16s %9.3f ms\n", name, 1e3 * (now_s() - phase_start));
    phase_start = now_s();
}
static long big_src[512], big_dst[512];

int main(void) {
    double t0 = now_s();
    shmem_init();
    init_s = now_s() - t0;
    int me = shmem_my_pe(), n = shmem_n_pes();
    phase_start = now_s();
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest_init, &init_s, 1);
    phase("first reduce");

    shmem_barrier_all();
    long *word = shmem_malloc(sizeof(long));
    long *all = shmem_malloc((size_t)n * sizeof(long));
    long *a2a_src = shmem_malloc((size_t)n * 512 * sizeof(long));
    long *a2a_dst = shmem_malloc((size_t)n * 512 * sizeof(long));
    long *sum = shmem_malloc(sizeof(long));
    if (!word || !all || !a2a_src || !a2a_dst || !sum) FAIL("shmem_malloc failed");

    phase("malloc");
    /* Broadcast of 8 B from the last PE, and of 4 KiB from PE 0. */
    *word = me == n - 1 ? 4242 : -1;
    if (shmem_long_broadcast(SHMEM_TEAM_WORLD, word, word, 1, n - 1) != 0) FAIL("broadcast");
    if (*word != 4242) FAIL("broadcast gave %ld", *word);
    for (int i = 0; i < 512; i++) big_src[i] = me == 0 ? i * 3 : -1;
    if (shmem_long_broadcast(SHMEM_TEAM_WORLD, big_dst, big_src, 512, 0) != 0) FAIL("broadcast 4 KiB");
    for (int i = 0; i < 512; i++)
        if (big_dst[i] != i * 3) FAIL("broadcast 4 KiB [%d] = %ld", i, big_dst[i]);

    phase("broadcast");
    /* Sum reduction. */
    *word = me + 1;
    if (shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum, word, 1) != 0) FAIL("sum_reduce");
    if (*sum != (long)n * (n + 1) / 2) FAIL("sum_reduce gave %ld", *sum);

    phase("sum_reduce");
    /* fcollect. */
    *word = 10L * me;
    if (shmem_long_fcollect(SHMEM_TEAM_WORLD, all, word, 1) != 0) FAIL("fcollect");
    for (int i = 0; i < n; i++)
        if (all[i] != 10L * i) FAIL("fcollect [%d] = %ld", i, all[i]);

    phase("fcollect");
    /* Alltoall of 8 B and of 4 KiB per PE. */
    for (int i = 0; i < n; i++) a2a_src[i] = 1000L * me + i;
    if (shmem_long_alltoall(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, 1) != 0) FAIL("alltoall");
    for (int i = 0; i < n; i++)
        if (a2a_dst[i] != 1000L * i + me) FAIL("alltoall [%d] = %ld", i, a2a_dst[i]);
    for (int i = 0; i < n * 512; i++) a2a_src[i] = 100000L * me + i;
    if (shmem_long_alltoall(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, 512) != 0) FAIL("alltoall 4 KiB");
    for (int p = 0; p < n; p++)
        for (int i = 0; i < 512; i++)
            if (a2a_dst[p * 512 + i] != 100000L * p + me * 512 + i) FAIL("alltoall 4 KiB from %d [%d]", p, i);

    phase("alltoall");
    /* A strided split (every other PE, from the last one backwards), a reduction in it, its destroy. */
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    int size = n / 2;
    if (size > 0) {
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -2, size, NULL, 0, &odd) != 0) FAIL("split_strided");
        int member = (n - 1 - me) % 2 == 0 && me > n - 1 - 2 * size;
        if ((odd != SHMEM_TEAM_INVALID) != member) FAIL("split membership");
        if (member) {
            *word = 1;
            if (shmem_long_sum_reduce(odd, sum, word, 1) != 0) FAIL("sum_reduce in the split");
            if (*sum != size) FAIL("sum in the split %ld, want %d", *sum, size);
            shmem_team_destroy(odd);
        }
    }
    phase("split+destroy");
    shmem_free(sum);
    shmem_free(a2a_dst);
    shmem_free(a2a_src);
    shmem_free(all);
    shmem_free(word);
    if (me == 0) printf("scale: ok at %d PEs; slowest shmem_init %.3f s\n", n, slowest_init);
    shmem_finalize();
    return 0;
}
