// oshrun-test: npes=2,3 expect-exit=255 env=SHMEMX_CHECK_COLLECTIVES=1 expect-stderr=shmem_free on SHMEM_TEAM_WORLD: PE 0
/* Checked mode: the PEs free different blocks (the last PE frees the second one, the others
 * the first). The heaps would stop being symmetric, and shmem_free has no way to return an
 * error: the job ends with the report of who passed what (the blocks' offsets in the heap). */
#include <shmem.h>

#include "testutil.h"

int main(void) {
    start_test();
    char *x = shmem_malloc(64);
    char *y = shmem_malloc(64);
    CHECK(x != NULL && y != NULL, "shmem_malloc failed");
    shmem_free(me == npes - 1 ? y : x);
    fprintf(stderr, "PE %d: the mismatched shmem_free returned\n", me);
    shmem_finalize();
    return 0;
}
