// oshrun-test: npes=2,3 expect-exit=255 env=SHMEM_DEBUG=1 expect-stderr=not a symmetric address (not returned by shmem_malloc
/* Checked mode (SHMEM_DEBUG=1): shmem_free of a pointer that malloc returned (different on
 * every PE). The report says, in hex and naming the routine, that the pointer is not a
 * symmetric address; c_programs checks that text, and the program the rest of the line:
 * "shmem_free on SHMEM_TEAM_WORLD: PE 0 passed 0x..., PE 1 passed 0x...; a pointer that is
 * not a symmetric address ... cannot be freed". */
#include <stdlib.h>

#include "testutil.h"

int main(void) {
    start_test();
    char *p = malloc(64 + 4096 * (size_t)me);
    CHECK(p != NULL, "malloc failed");
    shmem_free(p);
    fprintf(stderr, "PE %d: shmem_free of a malloc pointer returned\n", me);
    shmem_finalize();
    return 0;
}
