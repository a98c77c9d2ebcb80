/* The floor of a barrier on a busy machine, with no OpenSHMEM library: N processes on a central
 * counter in shared memory, measured like bench/c/busy_bench.c (BATCHES batches of BARRIERS
 * barriers, the median and the slowest batch, microseconds per barrier), run by
 * bench/run-busy.sh beside the same busy loops. Two ways of waiting, each the best of its kind
 * for one side of the trade:
 *   yield   check, then sched_yield between checks (never sleeps: the waiter stays runnable)
 *   futex   check a few times, then sleep on a futex that the releasing process wakes (every
 *           waiter sleeps, and a wake-up may preempt a busy loop)
 * Every process first asks for the shortest time slice the kernel grants (100 us, sched_setattr,
 * Linux 6.12 and later; as ferroshmem's PEs do), unless FLOOR_SLICE_US=0. With FLOOR_PIN=1
 * process i runs only on the (i mod k)-th of the k CPUs it may use, as oshrun pins PEs that
 * outnumber the CPUs.
 * Output, one line per way:
 *   busy_floor <yield|futex> <npes> <median_us> <worst_us>
 * Usage: busy_floor [npes]   (default 4) */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_time.h"

#define BATCHES 9
#define BARRIERS 200

struct shared {
    long count;
    char pad1[56];
    uint32_t release; /* the futex word: the number of the last barrier released */
    char pad2[60];
    double batch_us[BATCHES];
};

/* struct sched_attr, its first version (sched_setattr(2)). */
struct slice_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

static void short_slice(void) {
    const char *env = getenv("FLOOR_SLICE_US");
    long us = env ? atol(env) : 100;
    if (us <= 0) return;
    struct slice_attr a = {sizeof a, SCHED_OTHER, 0, 0, 0, (uint64_t)us * 1000, 0, 0};
    syscall(SYS_sched_setattr, 0, &a, 0);
}

/* Process p on the (p mod k)-th allowed CPU, when FLOOR_PIN=1. */
static void pin(int p) {
    const char *env = getenv("FLOOR_PIN");
    if (!env || atoi(env) != 1) return;
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    int k = CPU_COUNT(&allowed), seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        if (seen++ == p % k) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
    }
}

static void barrier(struct shared *s, long b, int npes, int use_futex) {
    if (__atomic_add_fetch(&s->count, 1, __ATOMIC_ACQ_REL) == (long)npes * b) {
        __atomic_store_n(&s->release, (uint32_t)b, __ATOMIC_RELEASE);
        if (use_futex) syscall(SYS_futex, &s->release, FUTEX_WAKE, npes, NULL, NULL, 0);
        return;
    }
    for (int k = 0;; k++) {
        uint32_t seen = __atomic_load_n(&s->release, __ATOMIC_ACQUIRE);
        if (seen >= (uint32_t)b) return;
        if (k < 4) continue;
        if (use_futex)
            syscall(SYS_futex, &s->release, FUTEX_WAIT, seen, NULL, NULL, 0);
        else
            sched_yield();
    }
}

static void run(int npes, int use_futex) {
    struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        perror("busy_floor: mmap");
        exit(1);
    }
    for (int p = 0; p < npes; p++) {
        if (fork() == 0) {
            short_slice();
            pin(p);
            long b = 0;
            for (int batch = 0; batch < BATCHES; batch++) {
                barrier(s, ++b, npes, use_futex);
                double t0 = now_us();
                for (int i = 0; i < BARRIERS; i++) barrier(s, ++b, npes, use_futex);
                if (p == 0) s->batch_us[batch] = (now_us() - t0) / BARRIERS;
            }
            _exit(0);
        }
    }
    while (wait(NULL) > 0) {
    }
    double worst = 0;
    for (int i = 0; i < BATCHES; i++)
        if (s->batch_us[i] > worst) worst = s->batch_us[i];
    printf("busy_floor %s %d %.3f %.3f\n", use_futex ? "futex" : "yield", npes, median(s->batch_us, BATCHES),
           worst);
    fflush(stdout);
    munmap(s, sizeof *s);
}

int main(int argc, char **argv) {
    int npes = argc > 1 ? atoi(argv[1]) : 4;
    run(npes, 0);
    run(npes, 1);
    return 0;
}
