// oshrun-test: npes=2,3,5 expect-exit=0 env=SHMEMX_CHECK_COLLECTIVES=1 expect-stderr=passed (size 128, alignment 16); the arguments differ between PEs, which is an error
/* Checked mode (SHMEMX_CHECK_COLLECTIVES=1) covers symmetric allocation: the last PE asks for a
 * different size; instead of heaps that silently stop being symmetric every PE gets NULL and
 * PE 0 prints who passed what and that this is an error ("shmem_malloc on SHMEM_TEAM_WORLD:
 * PE 0..1 passed (size 64, alignment 16), PE 2 passed (size 128, alignment 16); the arguments
 * differ between PEs, which is an error: ..."). The same for shmem_calloc, shmem_align and shmem_realloc (whose old block
 * stays); afterwards matching calls work and the heap is still
 * symmetric. (A mismatched shmem_free ends the job, tests/c/checked_free.c, as does a
 * shmem_malloc against a shmem_barrier_all: the barrier cannot return an error.) */
#include <shmem.h>

#include "testutil.h"

int main(void) {
    start_test();
    int last = me == npes - 1;
    void *p = shmem_malloc(last ? 128 : 64);
    CHECK(p == NULL, "mismatched shmem_malloc gave a block");
    p = shmem_calloc(last ? 3 : 2, 8);
    CHECK(p == NULL, "mismatched shmem_calloc gave a block");
    p = shmem_align(last ? 128 : 64, 256);
    CHECK(p == NULL, "mismatched shmem_align gave a block");
    /* Matching calls work, and the blocks are symmetric: a put into the right neighbour. */
    long *a = shmem_malloc(16 * sizeof(long));
    CHECK(a != NULL, "matching shmem_malloc failed");
    long *r = shmem_realloc(a, last ? 64 * sizeof(long) : 32 * sizeof(long));
    CHECK(r == NULL, "mismatched shmem_realloc gave a block");
    a[0] = -1;
    shmem_barrier_all();
    shmem_long_p(a, me, right);
    shmem_barrier_all();
    CHECK_EQ("value from the left neighbour", a[0], (long)left);
    a = shmem_realloc(a, 32 * sizeof(long));
    CHECK(a != NULL && a[0] == left, "matching shmem_realloc lost the block");
    shmem_free(a);
    shmem_finalize();
    return 0;
}
