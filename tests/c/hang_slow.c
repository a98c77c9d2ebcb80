// oshrun-test: npes=2,3 expect-exit=0 env=SHMEMX_HANG_REPORT=0.5 expect-stderr=not arrived: PE 1: computing outside the library for
/* A slow PE, not a hung one: PE 1 (or the PE given as the first argument) computes for 3 s
 * while the others wait in shmem_barrier_all, so the first of them prints a hang report
 * (SHMEMX_HANG_REPORT=0.5) naming the slow PE as computing outside the library; then it
 * arrives and the job ends normally (a report is not an abort). Also run across hosts
 * (crates/ferroshmem-launch/tests/multihost.rs), with the slow PE on the reporting PE's host
 * and on another host: one report in the job either way, naming the PEs of every host. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe();
    int slow = argc > 1 ? atoi(argv[1]) : 1;
    volatile double x = 0;
    if (me == slow) {
        double end = now() + 3.0;
        while (now() < end) x += 1.0;
    }
    shmem_barrier_all();
    if (me == 0) printf("all arrived\n");
    shmem_finalize();
    return 0;
}
