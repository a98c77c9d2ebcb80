// oshrun-test: npes=2 expect-exit=255 max-ms=5000 expect-stderr=shmem_free: pointer 0x
// oshrun-test: npes=1 expect-exit=255 max-ms=5000 expect-stderr=was not returned by shmem_malloc (or was already freed)
/* Freeing a pointer that shmem_malloc did not return (here: one byte into a block) ends the
 * job with a message naming the routine and the pointer. */
#include <shmem.h>

int main(void) {
    shmem_init();
    char *p = shmem_malloc(64);
    shmem_free(p + 1);
    shmem_finalize();
    return 0;
}
