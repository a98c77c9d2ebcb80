/* Waits and small transfers on a busy machine (issue 31): the patterns whose speed depends on
 * how a library waits when other processes compete for the cores. Built by our oshcc and by
 * Open MPI's (OpenSHMEM 1.4: no teams, so "team_sync" is shmem_sync_all there, and fcollect the
 * active-set form), run by bench/run-busy.sh with 0, 2 and 4 busy loops beside the PEs.
 *
 *   barrier_all   shmem_barrier_all in a loop
 *   team_sync     shmem_team_sync(SHMEM_TEAM_WORLD) (shmem_sync_all without teams)
 *   pingpong      PE 0 and PE n-1: an 8-byte shmem_long_p, answered once shmem_wait_until saw
 *                 it (the other PEs wait in a barrier); half the round trip
 *   fcollect8     shmem_fcollectmem of 8 bytes per PE
 *   put_test      every PE sends a batch of 16 8-byte puts and a flag (fence, a put, quiet)
 *                 to the next PE, and polls its own flag with shmem_test until the batch of the
 *                 previous PE came (the pattern of bale's exstack and conveyors); per batch
 *
 * Each figure is the median of BATCHES batches of a fixed number of operations (the same on
 * every PE: collectives must match), in microseconds per operation; "worst" is the slowest
 * batch. Prints "busy NAME NPES MEDIAN_US WORST_US". Usage: busy_bench [scale] (default 1: the
 * number of operations per batch is multiplied by it). */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_time.h"

#define BATCHES 9
#define PUTS 16

#if defined(SHMEM_TEAM_WORLD)
#define HAVE_TEAMS 1
#else
#define HAVE_TEAMS 0
#endif

static int me, npes;
static long ping, pong, slots[PUTS], arrived;
static long fsrc, fdst[4096];
static long psync[SHMEM_COLLECT_SYNC_SIZE];

static void op_barrier(void) { shmem_barrier_all(); }

static void op_sync(void) {
#if HAVE_TEAMS
    shmem_team_sync(SHMEM_TEAM_WORLD);
#else
    shmem_sync_all();
#endif
}

static void op_fcollect(void) {
#if HAVE_TEAMS
    shmem_fcollectmem(SHMEM_TEAM_WORLD, fdst, &fsrc, 8);
#else
    /* Alternating pSync arrays are not needed: a barrier ends every batch, and within one the
     * active-set fcollect may reuse pSync once it returned (OpenSHMEM 1.4, 9.9.7). */
    shmem_fcollect64(fdst, &fsrc, 1, 0, 0, npes, psync);
#endif
}

/* One ping-pong between PE 0 and PE n-1 (the others do nothing): `round` counts from 1. */
static long round_no;
static void op_pingpong(void) {
    long r = ++round_no;
    if (me == 0) {
        shmem_long_p(&ping, r, npes - 1);
        shmem_long_wait_until(&pong, SHMEM_CMP_GE, r);
    } else if (me == npes - 1) {
        shmem_long_wait_until(&ping, SHMEM_CMP_GE, r);
        shmem_long_p(&pong, r, 0);
    }
}

/* One batch of PUTS puts and a flag to the next PE, then poll for the previous PE's. */
static long batch_no;
static void op_put_test(void) {
    long b = ++batch_no;
    int next = (me + 1) % npes;
    for (int i = 0; i < PUTS; i++) shmem_long_p(&slots[i], b * PUTS + i, next);
    shmem_fence();
    shmem_long_p(&arrived, b, next);
    /* Delivered before polling: Open MPI's OSHMEM completes puts only in its own calls (a loop
     * of shmem_test alone never ended there). */
    shmem_quiet();
    while (!shmem_long_test(&arrived, SHMEM_CMP_GE, b)) {
    }
}

static void run(const char *name, void (*op)(void), int per_batch, int pair_only) {
    double t[BATCHES];
    /* A warm-up batch (connections, first touches), then the measured ones. */
    for (int i = 0; i < per_batch; i++) op();
    for (int b = 0; b < BATCHES; b++) {
        shmem_barrier_all();
        double t0 = now_us();
        for (int i = 0; i < per_batch; i++) op();
        t[b] = (now_us() - t0) / per_batch;
        if (pair_only) t[b] /= 2; /* half the round trip */
    }
    shmem_barrier_all();
    double worst = 0;
    for (int b = 0; b < BATCHES; b++) worst = t[b] > worst ? t[b] : worst;
    if (me == 0) printf("busy %s %d %.3f %.3f\n", name, npes, median(t, BATCHES), worst);
    fflush(stdout);
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1) scale = 1;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    fsrc = me;
    shmem_barrier_all();
    run("barrier_all", op_barrier, 200 * scale, 0);
    run("team_sync", op_sync, 200 * scale, 0);
    run("pingpong", op_pingpong, 200 * scale, 1);
    run("fcollect8", op_fcollect, 100 * scale, 0);
    run("put_test", op_put_test, 50 * scale, 0);
    for (int i = 0; i < npes; i++)
        if (fdst[i] != i) {
            printf("busy_bench: PE %d: fcollect gave %ld at %d\n", me, fdst[i], i);
            shmem_global_exit(1);
        }
    shmem_finalize();
    return 0;
}
