// oshrun-test: npes=1,2 expect-exit=0
/* OpenSHMEM 1.5: shmem_ctx_destroy(SHMEM_CTX_INVALID) does nothing (it used to be an error), so
 * a program may destroy the result of a context creation that failed without checking it. */
#include "testutil.h"

int main(void) {
    start_test();
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    /* A creation that fails (unknown option bits) leaves SHMEM_CTX_INVALID behind. */
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_create(1L << 20, &ctx) != 0, "a bad option was accepted");
    CHECK(ctx == SHMEM_CTX_INVALID, "a failed creation left a context");
    shmem_ctx_destroy(ctx);
    /* The library still works afterwards, and a real context is destroyed as before. */
    CHECK_EQ("create", shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
