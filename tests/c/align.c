// oshrun-test: npes=1,2,3 expect-exit=0
/* shmem_align honours every power-of-two alignment from 1 byte to 64 MiB in absolute
 * addresses, on every PE, at the same offset from the heap's first block on every PE (so the
 * object is symmetric); the memory is usable by a remote put. An alignment that is not a power
 * of two gives NULL on every PE. */
#include <stdint.h>

#include "testutil.h"

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char *first = shmem_malloc(1);
    CHECK(first != NULL, "shmem_malloc(1) gave NULL");
    static long offsets[64], all[64 * 8];
    int k = 0;
    for (size_t align = 1; align <= ((size_t)64 << 20); align <<= 1, k++) {
        long *p = shmem_align(align, 3 * sizeof(long));
        CHECK(p != NULL, "shmem_align(%zu) gave NULL", align);
        CHECK(((uintptr_t)p & (align - 1)) == 0, "shmem_align(%zu) gave %p", align, (void *)p);
        offsets[k] = (long)((char *)p - first);
        /* Usable and symmetric: the right neighbour's copy gets my number. */
        shmem_long_p(&p[1], me, (me + 1) % n);
        shmem_barrier_all();
        CHECK_EQ("value put by the left neighbour", p[1], (me + n - 1) % n);
        shmem_free(p);
    }
    CHECK(shmem_align(3, 8) == NULL, "alignment 3 accepted");
    CHECK(shmem_align(0, 8) == NULL, "alignment 0 accepted");
    /* Same offsets on every PE. */
    CHECK_EQ("fcollect", shmem_long_fcollect(SHMEM_TEAM_WORLD, all, offsets, (size_t)k), 0);
    for (int pe = 0; pe < n && n <= 8; pe++)
        for (int i = 0; i < k; i++)
            CHECK(all[pe * k + i] == offsets[i], "PE %d has offset %ld for alignment 2^%d, I have %ld", pe,
                  all[pe * k + i], i, offsets[i]);
    shmem_free(first);
    shmem_finalize();
    return 0;
}
