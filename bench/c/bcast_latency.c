/* Latency of one small broadcast, each timed alone with a barrier between them (the pattern of
 * the OSU OpenSHMEM benchmark's broadcast test, which issue 31 measured): every PE times its own
 * broadcast call, root 0; a round's figure is the mean over the PEs of each PE's mean time per
 * call, and the figure printed the median of ROUNDS rounds. The active-set form
 * (shmem_broadcast64, two pSync arrays used in turn) builds with any OpenSHMEM 1.4 library; the
 * team form (shmem_broadcastmem on SHMEM_TEAM_WORLD) with a 1.5 one.
 * Output, one line per figure:
 *   bcast_latency <active|team> <bytes> <npes> <us>
 * Usage: bcast_latency [iterations]   (default 2000) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_time.h"

#define ROUNDS 5

static long bcast_sync[2][SHMEM_BCAST_SYNC_SIZE];
static long reduce_sync[SHMEM_REDUCE_SYNC_SIZE];
static double reduce_work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long src[8], dst[8];
static double mine, sum;

#if defined(SHMEM_MAJOR_VERSION) && (SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5)
#define HAVE_TEAMS 1
#else
#define HAVE_TEAMS 0
#endif

static double run(int team_form, size_t bytes, int iters) {
    int npes = shmem_n_pes();
    double rounds[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double total = 0;
        for (int i = 0; i < iters; i++) {
            double t0 = now_us();
#if HAVE_TEAMS
            if (team_form)
                shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, bytes, 0);
            else
#endif
                shmem_broadcast64(dst, src, bytes / 8, 0, 0, 0, npes, bcast_sync[i & 1]);
            total += now_us() - t0;
            shmem_barrier_all();
        }
        mine = total / iters;
        shmem_double_sum_to_all(&sum, &mine, 1, 0, 0, npes, reduce_work, reduce_sync);
        shmem_barrier_all();
        rounds[r] = sum / npes;
    }
    return median(rounds, ROUNDS);
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) bcast_sync[0][i] = bcast_sync[1][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) reduce_sync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < 8; i++) src[i] = 100 * me + i;
    shmem_barrier_all();
    for (int form = 0; form <= HAVE_TEAMS; form++) {
        for (size_t bytes = 8; bytes <= 64; bytes *= 2) {
            double us = run(form, bytes, iters);
            /* The active-set form leaves the root's destination alone. */
            for (size_t i = 0; i < bytes / 8 && (form || me != 0); i++)
                if (dst[i] != (long)i) {
                    fprintf(stderr, "bcast_latency: PE %d: element %zu is %ld, not %zu\n", me, i, dst[i], i);
                    shmem_global_exit(1);
                }
            if (me == 0) printf("bcast_latency %s %zu %d %.3f\n", form ? "team" : "active", bytes, npes, us);
        }
    }
    shmem_finalize();
    return 0;
}
