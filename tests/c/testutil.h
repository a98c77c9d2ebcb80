/* Helpers shared by the C test programs: checks that report what differed and end the job. */
#ifndef FERROSHMEM_TESTUTIL_H
#define FERROSHMEM_TESTUTIL_H

#include <stdio.h>
#include <shmem.h>

/* CHECK(condition, printf-format, args...): on failure prints the PE, the place, the
 * condition and the message, then ends the whole job with status 1. */
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "PE %d: %s:%d: CHECK(%s) failed: ", shmem_my_pe(), __FILE__,  \
                    __LINE__, #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            fflush(stderr);                                                              \
            shmem_global_exit(1);                                                        \
        }                                                                                \
    } while (0)

/* Compares two integers of any type (as long long), printing both. */
#define CHECK_EQ(what, got, want)                                                        \
    CHECK((long long)(got) == (long long)(want), "%s: got %lld, want %lld", (what),      \
          (long long)(got), (long long)(want))

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

#endif
