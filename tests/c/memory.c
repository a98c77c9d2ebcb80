// oshrun-test: npes=1,2,4,7 expect-exit=0
// oshrun-test: npes=2 expect-exit=0 env=SHMEM_DEBUG=1 env=SHMEM_SYMMETRIC_SIZE=8M expect-stderr=shmem_malloc: cannot allocate
/* Symmetric memory management: malloc, calloc, align, realloc, free, malloc_with_hints; size 0
 * gives NULL; a request larger than the heap gives NULL on every PE (and, under SHMEM_DEBUG=1,
 * a message); blocks are symmetric (usable as remote targets) and distinct. */
#include <stdint.h>
#include <string.h>

#include "testutil.h"


/* The block is usable by a remote put from the left neighbour. */
static void check_remote(const char *what, char *p, size_t len) {
    CHECK(shmem_addr_accessible(p, right), "%s: block %p not accessible", what, (void *)p);
    memset(p, 0, len);
    shmem_barrier_all();
    char c = (char)('a' + me % 26);
    shmem_char_p(&p[len - 1], c, right);
    shmem_char_p(&p[0], c, right);
    shmem_barrier_all();
    char want = (char)('a' + (me + npes - 1) % npes % 26);
    CHECK(p[0] == want && p[len - 1] == want, "%s: remote put gave %c %c, want %c", what, p[0], p[len - 1], want);
    shmem_barrier_all();
}

int main(void) {
    start_test();

    /* Size 0 gives NULL (and is still collective). */
    CHECK(shmem_malloc(0) == NULL, "malloc(0) not NULL");
    CHECK(shmem_calloc(0, 8) == NULL, "calloc(0, 8) not NULL");
    CHECK(shmem_calloc(8, 0) == NULL, "calloc(8, 0) not NULL");
    CHECK(shmem_align(64, 0) == NULL, "align(64, 0) not NULL");
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL, "malloc_with_hints(0) not NULL");
    shmem_free(NULL);

    /* malloc: aligned for any type, distinct blocks. */
    char *a = shmem_malloc(100);
    char *b = shmem_malloc(1);
    CHECK(a && b && a != b, "malloc: %p %p", (void *)a, (void *)b);
    CHECK((uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0, "malloc alignment %p %p", (void *)a, (void *)b);
    CHECK(b >= a + 100 || b + 1 <= a, "malloc blocks overlap");
    check_remote("malloc", a, 100);

    /* calloc zeroes. */
    long *z = shmem_calloc(1000, sizeof(long));
    CHECK(z != NULL, "calloc NULL");
    for (int i = 0; i < 1000; i++) CHECK_EQ("calloc zero", z[i], 0);
    check_remote("calloc", (char *)z, 1000 * sizeof(long));

    /* align. */
    void *al = shmem_align(4096, 10);
    CHECK(al && (uintptr_t)al % 4096 == 0, "align(4096) gave %p", al);
    check_remote("align", al, 10);
    CHECK(shmem_align(3, 10) == NULL, "align(3, ...) should be NULL");

    /* malloc_with_hints. */
    uint64_t *sig = shmem_malloc_with_hints(sizeof(uint64_t) * 4, SHMEM_MALLOC_SIGNAL_REMOTE);
    int *at = shmem_malloc_with_hints(sizeof(int), SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(sig && at, "malloc_with_hints NULL");
    *at = 0;
    shmem_barrier_all();
    shmem_int_atomic_inc(at, 0);
    shmem_barrier_all();
    if (me == 0) CHECK_EQ("hinted atomics", *at, npes);
    check_remote("malloc_with_hints", (char *)sig, sizeof(uint64_t) * 4);

    /* realloc keeps the contents, grows and shrinks; NULL acts as malloc; size 0 frees. */
    for (int i = 0; i < 100; i++) a[i] = (char)i;
    a = shmem_realloc(a, 100000);
    CHECK(a != NULL, "realloc grow NULL");
    for (int i = 0; i < 100; i++) CHECK_EQ("realloc contents", a[i], i);
    check_remote("realloc grown", a, 100000);
    a = shmem_realloc(a, 50);
    CHECK(a != NULL, "realloc shrink NULL");
    char *r = shmem_realloc(NULL, 64);
    CHECK(r != NULL, "realloc(NULL, 64) NULL");
    check_remote("realloc(NULL)", r, 64);
    CHECK(shmem_realloc(r, 0) == NULL, "realloc(p, 0) not NULL");

    /* Too big: NULL on every PE, and the heap still works afterwards. */
    void *huge = shmem_malloc((size_t)1 << 50);
    CHECK(huge == NULL, "malloc(2^50) gave %p", huge);
    CHECK(shmem_calloc((size_t)1 << 40, (size_t)1 << 30) == NULL, "calloc overflow not NULL");
    CHECK(shmem_align(64, (size_t)1 << 50) == NULL, "align huge not NULL");
    char *keep = shmem_realloc(b, (size_t)1 << 50);
    CHECK(keep == NULL, "realloc huge not NULL");
    check_remote("after failures", b, 1); /* b survives a failed realloc */

    /* Many blocks, freed in another order. */
    void *blocks[64];
    for (int i = 0; i < 64; i++) {
        blocks[i] = shmem_malloc((size_t)(i + 1) * 24);
        CHECK(blocks[i] != NULL, "block %d NULL", i);
    }
    for (int i = 0; i < 64; i += 2) shmem_free(blocks[i]);
    for (int i = 63; i > 0; i -= 2) shmem_free(blocks[i]);

    shmem_free(at);
    shmem_free(sig);
    shmem_free(al);
    shmem_free(z);
    shmem_free(b);
    shmem_free(a);
    if (me == 0) printf("memory: ok at %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
