// oshrun-test: npes=1,2,4 expect-exit=0
/* shmem_test_any / shmem_wait_until_any (and the _vector forms) do not starve: repeated calls
 * start after the index the previous call returned, so the specification's shmem_test_any
 * example (call it with status NULL until every satisfying index was seen) ends. The flags are
 * set by the other PEs with puts. */
#include <string.h>

#include "testutil.h"

#define N 8

static int flags[N];

/* Calls `next()` N times and checks that it returned every index of 0..N-1 once. */
#define CHECK_VISITS_ALL(what, next)                                                         \
    do {                                                                                     \
        int seen[N] = {0};                                                                   \
        for (int call = 0; call < N; call++) {                                               \
            size_t i = (next);                                                               \
            CHECK(i < N, "%s: call %d returned %zu", what, call, i);                         \
            CHECK(!seen[i], "%s: index %zu returned twice within %d calls", what, i, N);     \
            seen[i] = 1;                                                                     \
        }                                                                                    \
    } while (0)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    /* Every PE sets every flag of its right neighbour (several writers per flag: same value). */
    for (int i = 0; i < N; i++) shmem_int_p(&flags[i], 1, (me + 1) % n);
    shmem_barrier_all();
    int ones[N];
    for (int i = 0; i < N; i++) ones[i] = 1;

    CHECK_VISITS_ALL("test_any", shmem_int_test_any(flags, N, NULL, SHMEM_CMP_EQ, 1));
    CHECK_VISITS_ALL("wait_until_any", shmem_int_wait_until_any(flags, N, NULL, SHMEM_CMP_EQ, 1));
    CHECK_VISITS_ALL("test_any_vector", shmem_int_test_any_vector(flags, N, NULL, SHMEM_CMP_EQ, ones));
    CHECK_VISITS_ALL("wait_until_any_vector",
                     shmem_int_wait_until_any_vector(flags, N, NULL, SHMEM_CMP_EQ, ones));

    /* The specification's pattern: test until every index was seen once, then stop. */
    int seen = 0, mask[N] = {0};
    while (seen < N) {
        size_t i = shmem_int_test_any(flags, N, mask, SHMEM_CMP_EQ, 1);
        if (i < N) {
            mask[i] = 1;
            seen++;
        }
    }
    CHECK_EQ("all excluded", shmem_int_test_any(flags, N, mask, SHMEM_CMP_EQ, 1), SIZE_MAX);

    /* With only some satisfied, repeated calls alternate between them. */
    flags[2] = 0;
    flags[5] = 0;
    for (int i = 0; i < N; i++) flags[i] = !flags[i];
    size_t a = shmem_int_test_any(flags, N, NULL, SHMEM_CMP_EQ, 1);
    size_t b = shmem_int_test_any(flags, N, NULL, SHMEM_CMP_EQ, 1);
    size_t c = shmem_int_test_any(flags, N, NULL, SHMEM_CMP_EQ, 1);
    CHECK((a == 2 && b == 5) || (a == 5 && b == 2), "got %zu then %zu", a, b);
    CHECK_EQ("third call comes back", c, a);

    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
