// oshrun-test: npes=1,2 expect-exit=255 max-ms=5000 expect-stderr=shmem_putmem: PE -1 is out of range
/* A negative PE number ends the job with a message naming the routine and the PE. */
#include <shmem.h>

static char buf[16];

int main(void) {
    shmem_init();
    shmem_putmem(buf, "x", 1, -1);
    shmem_finalize();
    return 0;
}
