/* Message rate of puts between two PEs of one host (the pattern of the OSU OpenSHMEM put
 * message-rate test, which issue 31 measured): PE 0 puts WINDOW messages of B bytes from its
 * heap into the last PE's heap, then shmem_quiet, again and again; the last PE waits in a
 * barrier meanwhile (the other PEs too). Sizes 8 KiB to 256 KiB by factors of 2; each figure
 * is the median over BATCHES batches of the rate of a batch, in messages per second. The same
 * source builds with any OpenSHMEM 1.4 library.
 * Output, one line per size:
 *   put_rate <bytes> <npes> <messages per second>
 * Usage: put_rate [windows per batch]   (default 50) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"

#define WINDOW 64
#define BATCHES 9
#define MIN_BYTES (8 << 10)
#define MAX_BYTES (256 << 10)

int main(int argc, char **argv) {
    int windows = argc > 1 ? atoi(argv[1]) : 50;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), peer = npes - 1;
    char *src = shmem_malloc(MAX_BYTES), *dst = shmem_malloc((size_t)MAX_BYTES * WINDOW);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "put_rate: cannot allocate %d bytes of symmetric heap\n", MAX_BYTES * (WINDOW + 1));
        shmem_global_exit(1);
    }
    memset(src, 1 + me, MAX_BYTES);
    shmem_barrier_all();
    for (size_t bytes = MIN_BYTES; bytes <= MAX_BYTES; bytes *= 2) {
        double rate[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            shmem_barrier_all();
            if (me == 0 && npes > 1) {
                double t0 = now_us();
                for (int w = 0; w < windows; w++) {
                    for (int i = 0; i < WINDOW; i++) shmem_putmem(dst + (size_t)i * bytes, src, bytes, peer);
                    shmem_quiet();
                }
                rate[b] = (double)windows * WINDOW / ((now_us() - t0) * 1e-6);
            }
            shmem_barrier_all();
        }
        if (me == peer && npes > 1 && dst[(size_t)(WINDOW - 1) * bytes + bytes - 1] != 1) {
            fprintf(stderr, "put_rate: PE %d: the last message of %zu bytes did not arrive\n", me, bytes);
            shmem_global_exit(1);
        }
        if (me == 0) printf("put_rate %zu %d %.0f\n", bytes, npes, median(rate, BATCHES));
    }
    shmem_finalize();
    return 0;
}
