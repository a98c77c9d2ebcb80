/* Timing helpers shared by the benchmark programs (each is built on its own, by our oshcc,
 * Open MPI's oshcc or mpicc, so they are header-only). */
#ifndef FERROSHMEM_BENCH_TIME_H
#define FERROSHMEM_BENCH_TIME_H
#include <stdlib.h>
#include <time.h>

/* Monotonic time in microseconds. */
static inline double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of t[0..n) (sorts t). */
static inline double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}
#endif
