/* Helpers shared by the C test programs: checks that report what differed and end the job. */
#ifndef FERROSHMEM_TESTUTIL_H
#define FERROSHMEM_TESTUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <shmem.h>

/* Prints one line (in one write, so lines of several PEs do not interleave) and ends the job
 * with status 1. */
__attribute__((format(printf, 4, 5), noreturn)) static inline void test_fail(const char *file, int line, const char *cond,
                                                                      const char *fmt, ...) {
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "PE %d: %s:%d: CHECK(%s) failed: ", shmem_my_pe(), file, line, cond);
    if (n < 0 || n >= (int)sizeof buf) n = 0;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    n += m < 0 ? 0 : (m < (int)(sizeof buf - (size_t)n - 1) ? m : (int)(sizeof buf - (size_t)n - 2));
    buf[n++] = '\n';
    ssize_t w = write(2, buf, (size_t)n);
    (void)w;
    shmem_global_exit(1);
    for (;;) {
    }
}

/* CHECK(condition, printf-format, args...): on failure prints the PE, the place, the
 * condition and the message, then ends the whole job with status 1. */
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                  \
    } while (0)

/* Compares two integers of any type (as long long), printing both. */
/* Each argument is evaluated once (a routine with state, like test_any, may be the argument). */
#define CHECK_EQ(what, got, want)                                                        \
    do {                                                                                 \
        long long check_got_ = (long long)(got), check_want_ = (long long)(want);        \
        CHECK(check_got_ == check_want_, "%s: got %lld, want %lld", (what), check_got_,  \
              check_want_);                                                              \
    } while (0)

/* This PE, the number of PEs and its ring neighbours; set by start_test(). */
static int me, npes, right, left;

/* shmem_init, then the variables above. */
static inline void start_test(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
}

/* Where PE `pe` runs as the multi-host tests lay a job out: FSH_HOSTLIST ("h1:2,h2:2,h3:1",
 * set by tests/multihost) places ranks host by host; without it every PE is on one host.
 * Sets *host and *local_rank (the PE's index among its host's PEs). */
static inline void test_place(int pe, int *host, int *local_rank) {
    *host = 0;
    *local_rank = pe;
    const char *list = getenv("FSH_HOSTLIST");
    if (list == NULL) return;
    int first = 0, h = 0;
    for (const char *p = list; *p; h++) {
        const char *colon = strchr(p, ':'), *comma = strchr(p, ',');
        int k = (colon && (!comma || colon < comma)) ? atoi(colon + 1) : 1;
        if (pe < first + k) {
            *host = h;
            *local_rank = pe - first;
            return;
        }
        first += k;
        if (!comma) break;
        p = comma + 1;
    }
}

/* Whether PEs a and b run on one host (see test_place). */
static inline int test_same_host(int a, int b) {
    int ha, hb, la, lb;
    test_place(a, &ha, &la);
    test_place(b, &hb, &lb);
    return ha == hb;
}

/* Whether PEs a and b have the same local rank (SHMEMX_TEAM_SAME_MYPE_NODE). */
static inline int test_same_local_rank(int a, int b) {
    int ha, hb, la, lb;
    test_place(a, &ha, &la);
    test_place(b, &hb, &lb);
    return la == lb;
}

#endif
