/* Collective latency benchmark: barrier_all, team sync, broadcast, float sum reduction,
 * fcollect and alltoall at several message sizes. The same source builds with ferroshmem's
 * oshcc (OpenSHMEM 1.5: team forms on SHMEM_TEAM_WORLD) and with an OpenSHMEM 1.4 library
 * such as Open MPI's (no teams: the active-set forms with pSync over all PEs).
 *
 * Each figure is the median over BATCHES batches of the time per operation in a batch of REPS
 * back-to-back operations, measured on PE 0 from a barrier to the barrier that follows the
 * batch: the operations must have completed on every PE, so a root that returns early (a
 * one-sided broadcast) does not look faster than the collective really is. The closing barrier
 * adds barrier/REPS to each figure. barrier_all and team sync are timed the same way.
 * Output, one line per figure:
 *   coll <name> <bytes> <npes> <median microseconds>
 * Usage: coll_bench [max_bytes [reps]]   (default 65536; sizes 8, 64, 512, 4096, 32768, 65536,
 * ...). COLL_ACTIVE_SETS=1 times the active-set forms even with teams. COLL_ALLTOALLS=1 adds
 * "alltoalls": n bytes per destination PE as 8-byte elements at strides 2 and 2. reps, when given and > 0, is REPS for every size (across hosts, where an operation takes
 * milliseconds); otherwise REPS is 2000 (200 above 4 KiB) at 2 PEs, 200 (40) at more. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define BATCHES 15

#if defined(SHMEM_TEAM_WORLD)
#define HAVE_TEAMS 1
#else
#define HAVE_TEAMS 0
#endif

static long psync[2][SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE
                         ? (SHMEM_REDUCE_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                               : SHMEM_ALLTOALL_SYNC_SIZE)
                         : (SHMEM_COLLECT_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_COLLECT_SYNC_SIZE
                                                                                : SHMEM_ALLTOALL_SYNC_SIZE)];
static int me, npes;
static char *src, *dst;
static float *pwrk;
static unsigned it;
static int fixed_reps;
/* COLL_ACTIVE_SETS=1: the deprecated active-set forms (pSync) even where teams exist, to set
 * them beside the team forms of the same library. */
static int active_sets;


static long *next_psync(void) { return psync[it++ & 1]; }

static void op_barrier(size_t n) { (void)n; shmem_barrier_all(); }

static void op_sync(size_t n) {
    (void)n;
#if HAVE_TEAMS
    shmem_team_sync(SHMEM_TEAM_WORLD);
#else
    shmem_sync_all();
#endif
}

static void op_broadcast(size_t n) {
#if HAVE_TEAMS
    if (!active_sets) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, n, 0);
        return;
    }
#endif
    shmem_broadcast64(dst, src, n / 8, 0, 0, 0, npes, next_psync());
}

static void op_reduce(size_t n) {
#if HAVE_TEAMS
    if (!active_sets) {
        shmem_float_sum_reduce(SHMEM_TEAM_WORLD, (float *)dst, (const float *)src, n / 4);
        return;
    }
#endif
    shmem_float_sum_to_all((float *)dst, (float *)src, (int)(n / 4), 0, 0, npes, pwrk, next_psync());
}

static void op_fcollect(size_t n) {
#if HAVE_TEAMS
    if (!active_sets) {
        shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, n);
        return;
    }
#endif
    shmem_fcollect64(dst, src, n / 8, 0, 0, npes, next_psync());
}

/* n bytes per destination PE. */
static void op_alltoall(size_t n) {
#if HAVE_TEAMS
    if (!active_sets) {
        shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, n);
        return;
    }
#endif
    shmem_alltoall64(dst, src, n / 8, 0, 0, npes, next_psync());
}

/* n bytes per destination PE, 8-byte elements, every other one (dst and sst 2). */
static void op_alltoalls(size_t n) {
#if HAVE_TEAMS
    if (!active_sets) {
        shmem_uint64_alltoalls(SHMEM_TEAM_WORLD, (uint64_t *)dst, (const uint64_t *)src, 2, 2, n / 8);
        return;
    }
#endif
    shmem_alltoalls64(dst, src, 2, 2, n / 8, 0, 0, npes, next_psync());
}

static void bench(const char *name, void (*op)(size_t), size_t bytes) {
    int reps = fixed_reps > 0 ? fixed_reps : bytes <= 4096 ? (npes > 2 ? 200 : 2000) : (npes > 2 ? 40 : 200);
    double t[BATCHES];
    for (int i = 0; i < reps / 4 + 1; i++) op(bytes); /* warm up */
    for (int b = 0; b < BATCHES; b++) {
        shmem_barrier_all();
        double t0 = now_us();
        for (int i = 0; i < reps; i++) op(bytes);
        shmem_barrier_all();
        t[b] = (now_us() - t0) / reps;
    }
    double med = median(t, BATCHES);
    if (me == 0) printf("coll %s %zu %d %.3f\n", name, bytes, npes, med);
    fflush(stdout);
}

/* Each PE's shmem_init time, gathered on PE 0, which prints the slowest ("init"). */
static double init_us[1 << 16];

int main(int argc, char **argv) {
    double t_init = now_us();
    shmem_init();
    t_init = now_us() - t_init;
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes <= (int)(sizeof init_us / sizeof init_us[0])) {
        shmem_double_p(&init_us[me], t_init, 0);
        shmem_barrier_all();
        if (me == 0) {
            double slowest = 0;
            for (int i = 0; i < npes; i++) slowest = init_us[i] > slowest ? init_us[i] : slowest;
            printf("coll init 0 %d %.3f\n", npes, slowest);
        }
    }
    size_t max_bytes = argc > 1 ? (size_t)atol(argv[1]) : 65536;
    fixed_reps = argc > 2 ? atoi(argv[2]) : 0;
    active_sets = !HAVE_TEAMS || (getenv("COLL_ACTIVE_SETS") && atoi(getenv("COLL_ACTIVE_SETS")) != 0);
    int strided = getenv("COLL_ALLTOALLS") && atoi(getenv("COLL_ALLTOALLS")) != 0;
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++) psync[0][k] = psync[1][k] = SHMEM_SYNC_VALUE;
    /* Twice the bytes: room for the strided alltoalls. */
    src = shmem_malloc(2 * max_bytes * (size_t)npes);
    dst = shmem_malloc(2 * max_bytes * (size_t)npes);
    pwrk = shmem_malloc((max_bytes / 8 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * sizeof(float));
    memset(src, me, 2 * max_bytes * (size_t)npes);
    shmem_barrier_all();
    bench("barrier_all", op_barrier, 0);
    bench("team_sync", op_sync, 0);
    for (size_t b = 8; b <= max_bytes; b *= 8) {
        bench("broadcast", op_broadcast, b);
        bench("reduce_sum_float", op_reduce, b);
        bench("fcollect", op_fcollect, b);
        bench("alltoall", op_alltoall, b);
        if (strided && b >= 8) bench("alltoalls", op_alltoalls, b);
        if (b < 65536 && b * 8 > 65536 && max_bytes >= 65536) b = 65536 / 8; /* always include 64 KiB */
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
