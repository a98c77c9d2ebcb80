// oshrun-test: npes=2 expect-exit=255 max-ms=5000 expect-stderr=shmem_int_put: address 0x
// oshrun-test: npes=2 expect-exit=255 max-ms=5000 expect-stderr=(16 bytes) is not symmetric (not in the symmetric heap or static data)
/* A remote target on the stack (not symmetric) ends the job with a message naming the routine
 * and the address; nothing is written. */
#include <shmem.h>

int main(void) {
    shmem_init();
    int target[4] = {0, 0, 0, 0};
    int src[4] = {1, 2, 3, 4};
    shmem_int_put(target, src, 4, (shmem_my_pe() + 1) % shmem_n_pes());
    shmem_finalize();
    return target[0];
}
