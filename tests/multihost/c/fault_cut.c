/* Barriers in a loop while the harness cuts the last host's network (`ip link set eth0 down`
 * in its namespace): the PEs of the other hosts must find that host lost (the peer watch,
 * SHMEMX_PEER_TIMEOUT_MS) and end the job with a report naming its PEs. PE 0 prints
 * "cut: looping" once the loop runs; if nothing ends the job within 90 s the loop stops and
 * the program says so (and exits 0, which the harness counts as a failure). */
#include <stdio.h>
#include <time.h>

#include <shmem.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int stop, stop_all;

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    double start = now();
    long i = 0;
    for (; !stop_all; i++) {
        shmem_barrier_all();
        if (i % 256 == 255) {
            /* Every PE stops at the same barrier: when any has run for 90 s. */
            stop = now() - start >= 90.0;
            shmem_int_max_reduce(SHMEM_TEAM_WORLD, &stop_all, &stop, 1);
        }
        if (i == 200 && me == 0) {
            printf("cut: looping\n");
            fflush(stdout);
        }
    }
    if (me == 0) printf("cut: no fault noticed after %ld barriers\n", i);
    shmem_finalize();
    return 0;
}
