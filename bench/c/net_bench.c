/* One-sided latency and bandwidth between PE 0 and the last PE (on another host when the job
 * spans hosts), and barrier_all over every PE. Plain OpenSHMEM 1.4 calls only, so the same
 * source builds against ferroshmem and Open MPI's OSHMEM. Prints one line per figure:
 *   net put_pingpong_us X     (half the round trip of a put answered by a put: what
 *                              ucx_perftest -t ucp_put_lat reports)
 *   net put8_quiet_us X       (put 8 bytes, then quiet)
 *   net get8_us X             (blocking get of 8 bytes)
 *   net fadd_us X             (atomic fetch-add of a long)
 *   net put1m_MBps X          (1 MiB puts back to back, quiet at the end; MB = 2^20 bytes)
 *   net barrier_all_us X      (every PE)
 * Each latency is the median of 5 batches' means; a line "..._typical_us" follows with the
 * median of every single operation's time, which is what ucx_perftest calls "typical". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>

#define BATCHES 5
#define BIG (1 << 20)

static long flag, word, pong;
static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v) {
    qsort(v, BATCHES, sizeof v[0], cmp);
    return v[BATCHES / 2];
}
static double *each; /* every single operation's time, for the typical figure */
static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof v[0], cmp);
    return v[n / 2];
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), peer = n - 1;
    char *big = shmem_malloc(BIG);
    char *src = malloc(BIG);
    memset(src, 1, BIG);
    double t[BATCHES];
    each = malloc(sizeof(double) * (size_t)iters * BATCHES);

    /* Ping-pong: PE 0 puts i to the peer's flag, the peer answers with a put to PE 0's pong. */
    for (int b = 0; b < BATCHES; b++) {
        shmem_barrier_all();
        long base = (long)b * iters;
        double s = now_us();
        for (long i = base + 1; i <= base + iters; i++) {
            if (me == 0) {
                double s1 = now_us();
                shmem_long_p(&flag, i, peer);
                shmem_long_wait_until(&pong, SHMEM_CMP_EQ, i);
                each[i - 1] = (now_us() - s1) / 2;
            } else if (me == peer) {
                shmem_long_wait_until(&flag, SHMEM_CMP_EQ, i);
                shmem_long_p(&pong, i, 0);
            }
        }
        t[b] = (now_us() - s) / iters / 2;
    }
    if (me == 0) printf("net put_pingpong_us %.2f\n", median(t));
    if (me == 0) printf("net put_pingpong_typical_us %.2f\n", median_of(each, iters * BATCHES));

#define TIMED(name, body)                                                                    \
    for (int b = 0; b < BATCHES; b++) {                                                      \
        shmem_barrier_all();                                                                 \
        if (me == 0) {                                                                       \
            double s = now_us();                                                             \
            for (int i = 0; i < iters; i++) {                                                \
                double s1 = now_us();                                                        \
                body;                                                                        \
                each[b * iters + i] = now_us() - s1;                                         \
            }                                                                                \
            t[b] = (now_us() - s) / iters;                                                   \
        }                                                                                    \
    }                                                                                        \
    if (me == 0) printf("net %s %.2f\n", name, median(t));                                   \
    if (me == 0) printf("net %s_typical %.2f\n", name, median_of(each, iters * BATCHES));

    long sink = 0;
    TIMED("put8_quiet_us", shmem_long_p(&word, i, peer); shmem_quiet())
    TIMED("get8_us", sink += shmem_long_g(&word, peer))
    TIMED("fadd_us", sink += shmem_long_atomic_fetch_add(&word, 1, peer))
    int bw_iters = iters / 10 > 10 ? iters / 10 : 10;
    for (int b = 0; b < BATCHES; b++) {
        shmem_barrier_all();
        if (me == 0) {
            double s = now_us();
            for (int i = 0; i < bw_iters; i++) shmem_putmem(big, src, BIG, peer);
            shmem_quiet();
            t[b] = (now_us() - s) / bw_iters; /* us per MiB */
        }
    }
    if (me == 0) printf("net put1m_MBps %.1f\n", 1e6 / median(t));
    for (int b = 0; b < BATCHES; b++) {
        shmem_barrier_all();
        double s = now_us();
        for (int i = 0; i < iters; i++) shmem_barrier_all();
        t[b] = (now_us() - s) / iters;
    }
    if (me == 0) printf("net barrier_all_us %.2f\n", median(t));
    if (sink == 42) printf("(unlikely)\n");
    shmem_barrier_all();
    shmem_free(big);
    free(src);
    free(each);
    shmem_finalize();
    return 0;
}
