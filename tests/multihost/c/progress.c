/* Progress without the target's help: the last PE (on another host than PE 0 under the
 * multi-host tests) computes for 2 s without calling the library, while PE 0 does 1000 gets
 * and 1000 fetch-adds on its memory. They must finish long before the 2 s end: the target's
 * progress thread serves them. Prints the times; exits 1 if PE 0 did not finish first. */
#include <stdio.h>
#include <time.h>

#include <shmem.h>

static long word;
static volatile long target_done_ms;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), target = n - 1;
    word = 41;
    shmem_barrier_all();
    double start = now_ms();
    int status = 0;
    if (me == target) {
        /* Compute: no library call for 2 s. */
        volatile double x = 0;
        while (now_ms() - start < 2000) x += 1;
        target_done_ms = (long)(now_ms() - start);
    } else if (me == 0 && target != 0) {
        long sum = 0;
        for (int i = 0; i < 1000; i++) sum += shmem_long_g(&word, target);
        double gets = now_ms() - start;
        for (int i = 0; i < 1000; i++) shmem_long_atomic_fetch_add(&word, 1, target);
        double both = now_ms() - start;
        long after = shmem_long_atomic_fetch(&word, target);
        printf("progress: 1000 gets in %.1f ms (%.1f us each), 1000 fetch-adds in %.1f ms (%.1f us each), "
               "while PE %d computed for 2000 ms\n",
               gets, gets, both - gets, both - gets, target);
        if (sum != 41L * 1000 || after != 41 + 1000) {
            printf("progress: wrong values: sum of gets %ld, word after the adds %ld\n", sum, after);
            status = 1;
        }
        if (both > 1500) {
            printf("progress: PE 0 took %.1f ms: not long before the target's 2000 ms\n", both);
            status = 1;
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return status;
}
