/* Put and get bandwidth between two PEs of one host beside a plain memcpy of the same size in
 * the same process. PE 0 copies to (put) or from (get) the last PE with shmem_putmem /
 * shmem_getmem while the others wait in a barrier; the memcpy copies between two private
 * buffers of PE 0 of the same size. Sizes from 8 KiB by factors of 4, and max_bytes (default
 * 64 MiB); each figure is the
 * median over BATCHES batches of the bandwidth of a batch of back-to-back copies (the same
 * source and destination every time, as a program that moves one buffer does: what fits the
 * caches is a cache-to-cache rate). The same source builds with any OpenSHMEM 1.4 library.
 * Output, one line per figure:
 *   bw <put|get|memcpy> <bytes> <npes> <GB/s>
 * Usage: put_bw [max_bytes]   (default 64 MiB) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_time.h"

#define BATCHES 9

static int me, npes;

/* Copies in a batch: about 64 MiB of traffic, at least 4. */
static int reps_for(size_t n) {
    size_t r = ((size_t)64 << 20) / n;
    return r < 4 ? 4 : (int)r;
}

static double run(const char *what, char *dst, const char *src, size_t n) {
    int reps = reps_for(n);
    double bw[BATCHES];
    int peer = npes - 1;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_us();
        for (int i = 0; i < reps; i++) {
            if (what[0] == 'p')
                shmem_putmem(dst, src, n, peer);
            else if (what[0] == 'g')
                shmem_getmem(dst, src, n, peer);
            else
                memcpy(dst, src, n);
        }
        double us = now_us() - t0;
        bw[b] = (double)n * reps / us / 1e3;
    }
    return median(bw, BATCHES);
}

int main(int argc, char **argv) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    size_t max = argc > 1 ? (size_t)atol(argv[1]) : ((size_t)64 << 20);
    char *sym_src = shmem_malloc(max), *sym_dst = shmem_malloc(max);
    char *priv_src = malloc(max), *priv_dst = malloc(max);
    if (!sym_src || !sym_dst || !priv_src || !priv_dst) {
        fprintf(stderr, "put_bw: cannot allocate 2 x %zu bytes (symmetric and private)\n", max);
        shmem_global_exit(1);
    }
    memset(sym_src, 1 + me, max);
    memset(sym_dst, 0, max);
    memset(priv_src, 1, max);
    memset(priv_dst, 0, max);
    shmem_barrier_all();
    for (size_t n = 8 << 10; n <= max; n = n < max && n * 4 > max ? max : n * 4) {
        if (me == 0) {
            double put = run("put", sym_dst, sym_src, n);
            double get = run("get", sym_dst, sym_src, n);
            double cpy = run("memcpy", priv_dst, priv_src, n);
            printf("bw put %zu %d %.2f\nbw get %zu %d %.2f\nbw memcpy %zu %d %.2f\n", n, npes, put, n, npes, get, n,
                   npes, cpy);
            fflush(stdout);
        }
        shmem_barrier_all();
    }
    shmem_free(sym_src);
    shmem_free(sym_dst);
    free(priv_src);
    free(priv_dst);
    shmem_finalize();
    return 0;
}
