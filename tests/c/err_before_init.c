// oshrun-test: npes=1,2 expect-exit=255 max-ms=5000 expect-stderr=shmem_putmem: called before shmem_init
/* A routine called before shmem_init ends the program with a message naming the routine. */
#include <shmem.h>

static char buf[8];

int main(void) {
    shmem_putmem(buf, "x", 1, 0);
    shmem_init();
    shmem_finalize();
    return 0;
}
