// oshrun-test: npes=4 expect-exit=0 expect-stdout-file=ordered_lines.4.out
// oshrun-test: npes=7 expect-exit=0 expect-stdout-file=ordered_lines.7.out
// Lines printed between barriers reach oshrun's stdout whole and in barrier order.
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char pad[301];
    memset(pad, 'a' + me % 26, 300);
    pad[300] = '\0';
    for (int round = 0; round < 3; round++) {
        for (int pe = 0; pe < n; pe++) {
            if (pe == me) {
                printf("round %d PE %d %s\n", round, me, pad);
            }
            shmem_barrier_all();
        }
    }
    shmem_finalize();
    return 0;
}
