/* Team creation latency against a barrier, in one run on SHMEM_TEAM_WORLD (OpenSHMEM 1.5
 * teams; build with ferroshmem's oshcc):
 *   barrier_all            shmem_barrier_all()
 *   team_sync              shmem_team_sync(SHMEM_TEAM_WORLD)
 *   split_strided_destroy  shmem_team_split_strided(WORLD, 0, 1, npes) + shmem_team_destroy
 *   split_2d_destroy       shmem_team_split_2d(WORLD, xrange 2) + destroy of both teams
 *   split_color_destroy    shmemx_team_split_color(WORLD, color 0, key me % 2) + destroy: one
 *                          team of every PE like split_strided's, evens first then odds (an
 *                          explicit list of members from 3 PEs on)
 * Same methodology as coll_bench.c: each figure is the median over BATCHES batches of the time
 * per operation in a batch of REPS back-to-back operations, measured on PE 0 from a barrier to
 * the barrier that follows the batch, after a warm-up of REPS / 4 + 1 operations.
 * Output, one line per figure (bytes always 0):
 *   coll <name> 0 <npes> <median microseconds>
 * Usage: team_create_bench [reps]   (default 100) */
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench_time.h"

#define BATCHES 15

static int me, npes;


static void fail(const char *what, int rc) {
    fprintf(stderr, "team_create_bench: PE %d: %s returned %d\n", me, what, rc);
    shmem_global_exit(1);
}

static void op_barrier(void) { shmem_barrier_all(); }

static void op_sync(void) {
    int rc = shmem_team_sync(SHMEM_TEAM_WORLD);
    if (rc) fail("shmem_team_sync", rc);
}

static void op_split_strided(void) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
    if (rc || t == SHMEM_TEAM_INVALID) fail("shmem_team_split_strided", rc);
    shmem_team_destroy(t);
}

static void op_split_2d(void) {
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y);
    if (rc || x == SHMEM_TEAM_INVALID || y == SHMEM_TEAM_INVALID) fail("shmem_team_split_2d", rc);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
}

static void op_split_color(void) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, me % 2, NULL, 0, &t);
    if (rc || t == SHMEM_TEAM_INVALID) fail("shmemx_team_split_color", rc);
    shmem_team_destroy(t);
}

static void bench(const char *name, void (*op)(void), int reps) {
    double t[BATCHES];
    for (int i = 0; i < reps / 4 + 1; i++) op(); /* warm up */
    for (int b = 0; b < BATCHES; b++) {
        shmem_barrier_all();
        double t0 = now_us();
        for (int i = 0; i < reps; i++) op();
        shmem_barrier_all();
        t[b] = (now_us() - t0) / reps;
    }
    double med = median(t, BATCHES);
    if (me == 0) printf("coll %s 0 %d %.3f\n", name, npes, med);
    fflush(stdout);
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int reps = argc > 1 ? atoi(argv[1]) : 100;
    if (reps < 1) reps = 1;
    shmem_barrier_all();
    bench("barrier_all", op_barrier, reps);
    bench("team_sync", op_sync, reps);
    bench("split_strided_destroy", op_split_strided, reps);
    if (npes >= 2) bench("split_2d_destroy", op_split_2d, reps);
    bench("split_color_destroy", op_split_color, reps);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
