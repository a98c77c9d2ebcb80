// oshrun-test: npes=1,2,4 expect-exit=0
/* Zero-length operations are no-ops (OpenSHMEM 1.5): with nothing to read or write no address
 * is checked, so NULL buffers are fine; collectives of zero elements still synchronise. Every
 * family is called with zero sizes and NULL pointers, then a real operation checks that the
 * job is still in step. */
#include <stddef.h>
#include <stdint.h>

#include "testutil.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static uint64_t sig;

int main(void) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n;

    /* RMA */
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_int_put(NULL, NULL, 0, right);
    shmem_long_get(NULL, NULL, 0, right);
    shmem_double_put_nbi(NULL, NULL, 0, right);
    shmem_put64(NULL, NULL, 0, right);
    shmem_get32(NULL, NULL, 0, right);
    shmem_int_iput(NULL, NULL, 1, 1, 0, right);
    shmem_int_iget(NULL, NULL, 1, 1, 0, right);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, right);
    shmem_ctx_getmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, right);
    shmem_quiet();

    /* Put with signal: no data, the signal is still delivered. */
    shmem_putmem_signal(NULL, NULL, 0, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_int_put_signal_nbi(NULL, NULL, 0, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 2);

    /* Point-to-point sets of zero elements. */
    CHECK_EQ("test_all of none", shmem_int_test_all(NULL, 0, NULL, SHMEM_CMP_EQ, 0), 1);
    CHECK_EQ("test_some of none", shmem_int_test_some(NULL, 0, NULL, NULL, SHMEM_CMP_EQ, 0), 0);
    shmem_int_wait_until_all(NULL, 0, NULL, SHMEM_CMP_EQ, 0);

    /* Team collectives of zero elements (they still synchronise). */
    CHECK_EQ("broadcastmem", shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);
    CHECK_EQ("int_broadcast", shmem_int_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);
    CHECK_EQ("collectmem", shmem_collectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("long_collect", shmem_long_collect(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("fcollectmem", shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("int_fcollect", shmem_int_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("alltoallmem", shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("int_alltoall", shmem_int_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("alltoallsmem", shmem_alltoallsmem(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0), 0);
    CHECK_EQ("int_sum_reduce", shmem_int_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("long_max_reduce", shmem_long_max_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("uint_and_reduce", shmem_uint_and_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    CHECK_EQ("double_prod_reduce", shmem_double_prod_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);

    /* Deprecated active-set forms of zero elements. */
    shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, n, psync);
    shmem_barrier_all();
    shmem_fcollect32(NULL, NULL, 0, 0, 0, n, psync);
    shmem_barrier_all();
    shmem_collect64(NULL, NULL, 0, 0, 0, n, psync);
    shmem_barrier_all();
    shmem_alltoall64(NULL, NULL, 0, 0, 0, n, psync);
    shmem_barrier_all();
    shmem_long_sum_to_all(NULL, NULL, 0, 0, 0, n, pwrk, psync);
    shmem_barrier_all();

    /* Still in step: a real reduction and a real put. */
    static int one, total, got;
    one = 1;
    CHECK_EQ("int_sum_reduce", shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total, &one, 1), 0);
    CHECK_EQ("sum", total, n);
    shmem_int_p(&got, me + 100, right);
    shmem_barrier_all();
    CHECK_EQ("put after zero-length calls", got, (me + n - 1) % n + 100);

    shmem_finalize();
    return 0;
}
