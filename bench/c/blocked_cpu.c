/* CPU time of PEs blocked in a barrier (issue 31: "a PE that waits longer than a few
 * milliseconds still sleeps"). The last PE computes nothing: it sleeps SECONDS (default 10)
 * outside the library while every other PE waits in shmem_barrier_all; then each PE reports
 * the CPU time (user + system, getrusage) its process used during that barrier, and PE 0
 * prints one line: "blocked_cpu PES SECONDS min median max" (seconds of CPU per waiting PE). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <shmem.h>

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double used[1024];

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2 || n > 1024) {
        if (me == 0) fprintf(stderr, "blocked_cpu: 2 to 1024 PEs\n");
        shmem_finalize();
        return 1;
    }
    shmem_barrier_all();
    double before = cpu_seconds();
    if (me == n - 1) {
        struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
        nanosleep(&ts, NULL);
    }
    shmem_barrier_all();
    double mine = cpu_seconds() - before;
    shmem_double_put(&used[me], &mine, 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        /* The waiting PEs: every PE but the sleeper. */
        qsort(used, n - 1, sizeof used[0], cmp);
        printf("blocked_cpu %d %.1f %.4f %.4f %.4f\n", n, seconds, used[0], used[(n - 1) / 2], used[n - 2]);
    }
    shmem_finalize();
    return 0;
}
