// oshrun-test: npes=2,3 expect-exit=0
/* The profiling interface: this program is its own tool. It defines shmem_putmem and
 * shmem_barrier_all, which count calls and forward to pshmem_putmem / pshmem_barrier_all. The
 * program's calls reach these definitions (they link without a duplicate symbol and win);
 * pshmem_ names reach the library; and the library's own work (init, finalize, the typed and
 * sized puts, put-with-signal, broadcast, the context form) never calls the tool's routines
 * but still works. */
#include <pshmem.h>

#include "testutil.h"

static long putmem_calls, barrier_calls;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
    putmem_calls++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_barrier_all(void) {
    barrier_calls++;
    pshmem_barrier_all();
}

static char buf[64], bcast[64];
static uint64_t sig;

int main(void) {
    start_test(); /* shmem_init must not have called the tool's barrier */
    CHECK_EQ("barriers after init", barrier_calls, 0);
    static char mine[64]; /* symmetric: the broadcast source */
    memset(mine, 'a' + me, sizeof mine);

    shmem_putmem(buf, mine, 16, right);
    CHECK_EQ("the program's putmem reached the tool", putmem_calls, 1);
    shmem_barrier_all();
    CHECK_EQ("the program's barrier reached the tool", barrier_calls, 1);
    CHECK(buf[0] == 'a' + left && buf[15] == 'a' + left, "putmem through the tool moved nothing");

    /* The library's other puts work and bypass the tool. */
    pshmem_putmem(buf + 16, mine, 8, right);
    shmem_char_put(buf + 24, mine, 8, right);
    shmem_put64(buf + 32, mine, 1, right);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, buf + 40, mine, 8, right);
    shmem_putmem_nbi(buf + 48, mine, 8, right);
    shmem_putmem_signal(buf + 56, mine, 8, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    CHECK_EQ("only the program's own putmem calls are counted", putmem_calls, 1);
    pshmem_barrier_all();
    CHECK_EQ("pshmem_barrier_all does not reach the tool", barrier_calls, 1);
    for (int i = 0; i < 64; i++) CHECK(buf[i] == 'a' + left, "byte %d is %d", i, buf[i]);
    CHECK_EQ("signal", shmem_signal_fetch(&sig), 1);

    /* A collective of the library (it synchronises inside) still works and is not counted. */
    CHECK_EQ("broadcastmem", shmem_broadcastmem(SHMEM_TEAM_WORLD, bcast, mine, 32, 0), 0);
    CHECK(bcast[0] == 'a' && bcast[31] == 'a', "broadcast from PE 0 gave %d", bcast[0]);
    CHECK_EQ("puts counted after the collective", putmem_calls, 1);
    CHECK_EQ("barriers counted after the collective", barrier_calls, 1);

    /* The profiling names of other families reach the library too. */
    CHECK_EQ("pshmem_my_pe", pshmem_my_pe(), me);
    CHECK_EQ("pshmem_n_pes", pshmem_n_pes(), npes);
    long *heap = (long *)pshmem_malloc(sizeof(long));
    CHECK(heap != NULL, "pshmem_malloc");
    *heap = 0;
    shmem_barrier_all();
    pshmem_long_atomic_add(heap, me + 1, 0);
    pshmem_ctx_long_atomic_add(SHMEM_CTX_DEFAULT, heap, 1, 0);
    shmem_barrier_all();
    if (me == 0) CHECK_EQ("pshmem atomics", *heap, npes * (npes + 1) / 2 + npes);
    shmem_barrier_all();
    pshmem_free(heap);
    CHECK_EQ("barriers counted", barrier_calls, 4);

    shmem_finalize(); /* its internal synchronisation must not use the tool's barrier */
    CHECK_EQ("finalize called no tool routine", barrier_calls + putmem_calls, 5);
    return 0;
}
