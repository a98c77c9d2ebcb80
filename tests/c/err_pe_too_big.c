// oshrun-test: npes=2 expect-exit=255 max-ms=5000 expect-stderr=shmem_long_atomic_fetch_add: PE 2 is out of range (valid PEs are 0..2)
// oshrun-test: npes=4 expect-exit=255 max-ms=5000 expect-stderr=shmem_long_atomic_fetch_add: PE 4 is out of range (valid PEs are 0..4)
/* A PE number equal to n_pes ends the job with a message naming the routine and the PE. */
#include <shmem.h>

long counter;

int main(void) {
    shmem_init();
    shmem_long_atomic_fetch_add(&counter, 1, shmem_n_pes());
    shmem_finalize();
    return 0;
}
