// oshrun-test: npes=1,3,12 expect-exit=0
// Every PE greets its right neighbour through a symmetric global variable, then all print in
// PE order.
#include <shmem.h>
#include <stdio.h>

static int greeting_from = -1;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_int_p(&greeting_from, me, (me + 1) % n);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        if (pe == me) {
            printf("PE %d of %d: hello from PE %d\n", me, n, greeting_from);
        }
        shmem_barrier_all();
    }
    int expected = (me + n - 1) % n;
    if (greeting_from != expected) {
        shmem_global_exit(1);
    }
    shmem_finalize();
    return 0;
}
