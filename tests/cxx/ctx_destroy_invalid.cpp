// oshrun-test: npes=1,2 expect-exit=0
/* C++: shmem_ctx_destroy(SHMEM_CTX_INVALID) does nothing (OpenSHMEM 1.5), also for a context
 * that a failed shmem_team_create_ctx left behind. */
#include <shmem.h>

#include "../c/testutil.h"

int main() {
    start_test();
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0, "a context on SHMEM_TEAM_INVALID");
    CHECK(ctx == SHMEM_CTX_INVALID, "a failed team context creation left a context");
    shmem_ctx_destroy(ctx);
    CHECK_EQ("create", shmem_ctx_create(0, &ctx), 0);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
