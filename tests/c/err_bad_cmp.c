// oshrun-test: npes=1 expect-exit=255 max-ms=5000 expect-stderr=shmem_int_wait_until: invalid argument cmp: 9 is not a SHMEM_CMP_* value
/* A comparison operator that is not a SHMEM_CMP_* value ends the job with a message. */
#include <shmem.h>

int flag;

int main(void) {
    shmem_init();
    shmem_int_wait_until(&flag, 9, 0);
    shmem_finalize();
    return 0;
}
