// oshrun-test: npes=2 expect-exit=255 max-ms=5000 expect-stderr=shmem_int_atomic_add: invalid argument dest:
/* An atomic on a misaligned address ends the job with a message naming the routine. */
#include <shmem.h>

int main(void) {
    shmem_init();
    char *block = shmem_malloc(64);
    shmem_int_atomic_add((int *)(block + 1), 1, 0);
    shmem_finalize();
    return 0;
}
