/* What this machine allows at best, with no OpenSHMEM library at all, so that collective
 * figures can be read against it:
 *  - switch: the cost of one switch between two processes on one core (each calls
 *    sched_yield in turn). A collective that synchronises N PEs on C cores (N > C) needs every
 *    PE that waits in it to run again once it is released, except one per core that may be
 *    running at that moment: at least ceil(N / C) - 1 switches per operation on each core.
 *  - barrier: a central-counter barrier among N processes with no library and no data, each
 *    waiter checking a few times and then yielding (sleeping on a futex instead is several
 *    times slower here): what a real sync costs when the scheduler, not the algorithm, decides.
 *  - copy: the time for the bytes of one alltoall of B-byte blocks among N PEs (N * N blocks;
 *    B = 8, 64, 512, 4 KiB, 32 KiB, 64 KiB) copied by C processes at once, the only work such
 *    an alltoall must do on shared memory. With N > C an alltoall must both copy and switch,
 *    on the same cores: its floor is the sum of the sync and copy floors.
 * Output, one line each:
 *   floor switch <ns per switch>
 *   floor sync <npes> <us>             (ceil(npes / cores) - 1 switches)
 *   floor barrier <npes> <us>          (best of 9 runs of the bare barrier)
 *   floor alltoall_copy <bytes> <npes> <us>
 *   floor pingpong <ns per one-way hand-off between CPUs 0 and 1>   (2 CPUs or more)
 * Usage: machine_floor [npes...]   (default 2 4 8) */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("sched_setaffinity");
}

/* Two processes on CPU 0 yielding to each other: time per switch (the best of 9 runs: a floor). */
static double switch_ns(void) {
    enum { YIELDS = 100000, RUNS = 9 };
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_s();
        for (int p = 0; p < 2; p++) {
            if (fork() == 0) {
                pin(0);
                for (int i = 0; i < YIELDS; i++) sched_yield();
                _exit(0);
            }
        }
        while (wait(NULL) > 0) {
        }
        t[r] = (now_s() - t0) / (2.0 * YIELDS) * 1e9;
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    return t[0];
}

/* Best of 9 runs: time per barrier of `npes` processes on a central counter. */
static double barrier_us(int npes) {
    enum { RUNS = 9, BARRIERS = 4000 };
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        volatile long *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        long *count = (long *)&shared[0], *release = (long *)&shared[8];
        double t0 = now_s();
        for (int p = 0; p < npes; p++) {
            if (fork() == 0) {
                for (long b = 1; b <= BARRIERS; b++) {
                    if (__atomic_add_fetch(count, 1, __ATOMIC_ACQ_REL) == npes * b) {
                        __atomic_store_n(release, b, __ATOMIC_RELEASE);
                    } else {
                        for (int k = 0; __atomic_load_n(release, __ATOMIC_ACQUIRE) < b; k++) {
                            if (k >= 4) sched_yield();
                        }
                    }
                }
                _exit(0);
            }
        }
        while (wait(NULL) > 0) {
        }
        t[r] = (now_s() - t0) / BARRIERS * 1e6;
        munmap((void *)shared, 4096);
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    return t[0];
}

/* The best of 9 runs in which `cores` processes copy the N * N blocks of an alltoall among `npes` PEs (block j of PE i's
 * source to block i of PE j's destination), each a share of the destination PEs. */
static double alltoall_copy_us(size_t block, int npes, int cores) {
    enum { RUNS = 9 };
    size_t total = (size_t)npes * npes * block;
    char *src = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *dst = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (src == MAP_FAILED || dst == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    memset(src, 1, total);
    memset(dst, 2, total);
    /* About 25 ms per run (the fork of the copiers is timed too): 400 operations of 64 KiB
     * blocks among 8, at most 100 000 of the smallest. */
    size_t want = (size_t)400 * 65536 * 64 / total + 1;
    int iters = (int)(want < 100000 ? want : 100000);
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_s();
        for (int p = 0; p < cores; p++) {
            if (fork() == 0) {
                pin(p);
                for (int it = 0; it < iters; it++)
                    for (int pe = p; pe < npes; pe += cores)
                        for (int j = 0; j < npes; j++)
                            memcpy(dst + ((size_t)pe * npes + j) * block, src + ((size_t)j * npes + pe) * block,
                                   block);
                _exit(0);
            }
        }
        while (wait(NULL) > 0) {
        }
        t[r] = (now_s() - t0) / iters * 1e6;
    }
    munmap(src, total);
    munmap(dst, total);
    qsort(t, RUNS, sizeof t[0], cmp_double);
    return t[0];
}

/* Two processes pinned to CPUs 0 and 1 pass a token back and forth through one shared cache
 * line: the best of 5 runs, in ns per one-way hand-off. It tells the machine's state apart:
 * on this project's VM the host seems to place the two vCPUs sometimes on one physical core (SMT
 * siblings: 20-50 ns, and a 2-PE barrier 0.055 us) and sometimes on two (170-190 ns,
 * and a 2-PE barrier 0.25 us); see docs/PERFORMANCE.md. */
static double pingpong_ns(void) {
    enum { ROUNDS = 5, PASSES = 100000 };
    double best = 1e30;
    for (int r = 0; r < ROUNDS; r++) {
        volatile long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (line == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        *line = 0;
        double t0 = now_s();
        for (int p = 0; p < 2; p++) {
            if (fork() == 0) {
                pin(p);
                for (long i = p; i < 2L * PASSES; i += 2) {
                    while (__atomic_load_n(line, __ATOMIC_ACQUIRE) != i) {
                    }
                    __atomic_store_n(line, i + 1, __ATOMIC_RELEASE);
                }
                _exit(0);
            }
        }
        while (wait(NULL) > 0) {
        }
        double ns = (now_s() - t0) / (2.0 * PASSES) * 1e9;
        if (ns < best) best = ns;
        munmap((void *)line, 4096);
    }
    return best;
}

int main(int argc, char **argv) {
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int defaults[] = {2, 4, 8};
    int count = argc > 1 ? argc - 1 : 3;
    double sw = switch_ns();
    printf("floor switch %.0f\n", sw);
    if (cores >= 2) printf("floor pingpong %.0f\n", pingpong_ns());
    for (int k = 0; k < count; k++) {
        int n = argc > 1 ? atoi(argv[k + 1]) : defaults[k];
        if (n > cores) {
            printf("floor sync %d %.3f\n", n, ((n + cores - 1) / cores - 1) * sw / 1e3);
            printf("floor barrier %d %.3f\n", n, barrier_us(n));
        }
        int procs = n < cores ? n : cores;
        for (size_t block = 8; block <= 65536; block = block == 32768 ? 65536 : block * 8)
            printf("floor alltoall_copy %zu %d %.3f\n", block, n, alltoall_copy_us(block, n, procs));
        fflush(stdout);
    }
    return 0;
}
