// oshrun-test: npes=2 expect-exit=255 max-ms=5000 expect-stderr=shmem_ctx_int_p: invalid argument ctx: SHMEM_CTX_INVALID
/* Using SHMEM_CTX_INVALID (a null context) ends the job with a message naming the routine. */
#include <shmem.h>

int x;

int main(void) {
    shmem_init();
    shmem_ctx_int_p(SHMEM_CTX_INVALID, &x, 1, 0);
    shmem_finalize();
    return 0;
}
