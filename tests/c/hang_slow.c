// oshrun-test: npes=2,3 expect-exit=0 env=SHMEMX_HANG_REPORT=0.5 expect-stderr=not arrived: PE 1: computing outside the library for
/* A slow PE, not a hung one: PE 1 computes for 3 s while the others wait in shmem_barrier_all,
 * so the first of them prints a hang report (SHMEMX_HANG_REPORT=0.5) naming PE 1 as computing
 * outside the library; then PE 1 arrives and the job ends normally (a report is not an abort).
 * Also run across hosts (crates/ferroshmem-launch/tests/multihost.rs), where each host's first
 * waiting PE reports the PEs of its host and lists the others as on other hosts. */
#include <shmem.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    volatile double x = 0;
    if (me == 1) {
        double end = now() + 3.0;
        while (now() < end) x += 1.0;
    }
    shmem_barrier_all();
    if (me == 0) printf("all arrived\n");
    shmem_finalize();
    return 0;
}
