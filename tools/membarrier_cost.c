/* What one membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) costs the caller: alone, and with a
 * registered process running on another CPU (which the call must interrupt). A probe run by
 * hand (docs/ARCHITECTURE.md, "An asymmetric pair after puts"), not a test:
 *   cc -O2 tools/membarrier_cost.c -o /tmp/membarrier_cost
 *   /tmp/membarrier_cost; /tmp/membarrier_cost spin & sleep 0.5; /tmp/membarrier_cost; kill %1 */
#include <linux/membarrier.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) != 0) {
        perror("membarrier register");
        return 1;
    }
    if (argc > 1) { /* "spin": a registered process that keeps a CPU busy */
        volatile unsigned long x = 0;
        for (;;) x++;
    }
    const int n = 20000;
    double t0 = now_us();
    for (int i = 0; i < n; i++) syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
    printf("membarrier: %.2f us each\n", (now_us() - t0) / n);
    t0 = now_us();
    for (int i = 0; i < n; i++) sched_yield();
    printf("sched_yield: %.2f us each\n", (now_us() - t0) / n);
    return 0;
}
