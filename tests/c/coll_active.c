// oshrun-test: npes=1,2,3,5,8,12 expect-exit=0 timeout=120
// oshrun-test: npes=5 expect-exit=0 timeout=240 env=SHMEMX_CORES=64
// oshrun-test: npes=2 expect-exit=0 timeout=240 env=SHMEMX_CORES=1
// oshrun-test: npes=8 expect-exit=0 timeout=240 env=SHMEMX_TEAM_SLOTS=6
/* Deprecated active-set collectives against a serial model: shmem_barrier, shmem_sync,
 * broadcast32/64 (root's dest untouched), collect32/64, fcollect32/64, alltoall32/64,
 * alltoalls32/64 and TYPE_OP_to_all, over several (PE_start, logPE_stride, PE_size) subsets,
 * reusing one pSync per kind back to back (it must come back to SHMEM_SYNC_VALUE), with
 * 0, 1, 7 and 1024 elements, and the non-members doing other work meanwhile. Sets run on
 * teams of their own (coll::active); with SHMEMX_TEAM_SLOTS=6 (two slots beyond the predefined
 * teams) later subsets find no free slot on some member and keep the pSync algorithms. */
#include <complex.h>
#include <stdint.h>

#include "testutil.h"

#define MAXN 1024
static long psync_bar[SHMEM_BARRIER_SYNC_SIZE], psync_b[SHMEM_BCAST_SYNC_SIZE], psync_c[SHMEM_COLLECT_SYNC_SIZE];
static long psync_r[SHMEM_REDUCE_SYNC_SIZE], psync_a[SHMEM_ALLTOALL_SYNC_SIZE];
static int64_t src64[12 * MAXN * 3], dst64[12 * MAXN * 2];
static int32_t src32[12 * MAXN], dst32[12 * MAXN];
static int isrc[MAXN], idst[MAXN], iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAXN];
static double dsrc[MAXN], ddst[MAXN], dwrk[MAXN];
static double _Complex csrc[MAXN], cdst[MAXN], cwrk[MAXN];

#define V(w, k) ((int)(((long)(w) * 37 + (long)(k) * 11) % 1000) - 300)

static void run_set(int start, int logs, int size) {
    int stride = 1 << logs;
    int idx = (me - start) / stride;
    if (me < start || (me - start) % stride != 0 || idx >= size) return;
    size_t ns[] = {0, 1, 7, MAXN};
    for (int b = 0; b < 4; b++) {
        size_t n = ns[b];
        for (int rep = 0; rep < 2; rep++) {
            shmem_barrier(start, logs, size, psync_bar);
            shmem_sync(start, logs, size, psync_bar);
            /* broadcast64 */
            int root = (rep + b) % size, wroot = start + root * stride;
            for (size_t k = 0; k < n; k++) src64[k] = V(me, k), dst64[k] = -1;
            shmem_broadcast64(dst64, src64, n, root, start, logs, size, psync_b);
            for (size_t k = 0; k < n; k++)
                CHECK_EQ("broadcast64", dst64[k], idx == root ? -1 : V(wroot, k));
            /* broadcast32 */
            for (size_t k = 0; k < n; k++) src32[k] = V(me, k), dst32[k] = -1;
            shmem_broadcast32(dst32, src32, n, root, start, logs, size, psync_b);
            for (size_t k = 0; k < n; k++) CHECK_EQ("broadcast32", dst32[k], idx == root ? -1 : V(wroot, k));
            /* fcollect64 / collect32 */
            for (size_t k = 0; k < n; k++) src64[k] = V(me, k), src32[k] = V(me, k);
            shmem_fcollect64(dst64, src64, n, start, logs, size, psync_c);
            for (int j = 0; j < size; j++)
                for (size_t k = 0; k < n; k++) CHECK_EQ("fcollect64", dst64[j * n + k], V(start + j * stride, k));
            size_t mine = n > 0 ? n - (size_t)(idx % 2) : 0;
            shmem_collect32(dst32, src32, mine, start, logs, size, psync_c);
            size_t off = 0;
            for (int j = 0; j < size; j++) {
                size_t len = n > 0 ? n - (size_t)(j % 2) : 0;
                for (size_t k = 0; k < len; k++) CHECK_EQ("collect32", dst32[off + k], V(start + j * stride, k));
                off += len;
            }
            shmem_collect64(dst64, src64, mine, start, logs, size, psync_c);
            off = 0;
            for (int j = 0; j < size; j++) {
                size_t len = n > 0 ? n - (size_t)(j % 2) : 0;
                for (size_t k = 0; k < len; k++) CHECK_EQ("collect64", dst64[off + k], V(start + j * stride, k));
                off += len;
            }
            shmem_fcollect32(dst32, src32, n, start, logs, size, psync_c);
            for (int j = 0; j < size; j++)
                for (size_t k = 0; k < n; k++) CHECK_EQ("fcollect32", dst32[j * n + k], V(start + j * stride, k));
            /* alltoall64 / alltoall32 / alltoalls64 */
            for (int j = 0; j < size; j++)
                for (size_t k = 0; k < n; k++) src64[j * n + k] = V(me * 16 + j, k), src32[j * n + k] = V(me * 16 + j, k);
            shmem_alltoall64(dst64, src64, n, start, logs, size, psync_a);
            shmem_alltoall32(dst32, src32, n, start, logs, size, psync_a);
            for (int i = 0; i < size; i++)
                for (size_t k = 0; k < n; k++) {
                    CHECK_EQ("alltoall64", dst64[i * n + k], V((start + i * stride) * 16 + idx, k));
                    CHECK_EQ("alltoall32", dst32[i * n + k], V((start + i * stride) * 16 + idx, k));
                }
            for (size_t k = 0; k < (size_t)size * n * 3; k++) src64[k] = V(me, k);
            shmem_alltoalls64(dst64, src64, 2, 3, n, start, logs, size, psync_a);
            for (int i = 0; i < size; i++)
                for (size_t k = 0; k < n; k++)
                    CHECK_EQ("alltoalls64", dst64[((size_t)i * n + k) * 2], V(start + i * stride, ((size_t)idx * n + k) * 3));
            /* to_all reductions, the last in place */
            for (size_t k = 0; k < n; k++) isrc[k] = V(me, k), dsrc[k] = V(me, k) * 0.5, csrc[k] = V(me, k) + 1.0 * I;
            shmem_int_sum_to_all(idst, isrc, (int)n, start, logs, size, iwrk, psync_r);
            for (size_t k = 0; k < n; k++) {
                int want = 0;
                for (int j = 0; j < size; j++) want += V(start + j * stride, k);
                CHECK_EQ("int_sum_to_all", idst[k], want);
            }
            shmem_int_xor_to_all(idst, isrc, (int)n, start, logs, size, iwrk, psync_r);
            for (size_t k = 0; k < n; k++) {
                int want = 0;
                for (int j = 0; j < size; j++) want ^= V(start + j * stride, k);
                CHECK_EQ("int_xor_to_all", idst[k], want);
            }
            shmem_double_max_to_all(ddst, dsrc, (int)n, start, logs, size, dwrk, psync_r);
            for (size_t k = 0; k < n; k++) {
                double want = V(start, k) * 0.5;
                for (int j = 1; j < size; j++)
                    if (V(start + j * stride, k) * 0.5 > want) want = V(start + j * stride, k) * 0.5;
                CHECK(ddst[k] == want, "double_max_to_all k=%zu got %g want %g", k, ddst[k], want);
            }
            shmem_complexd_sum_to_all(cdst, csrc, (int)n, start, logs, size, cwrk, psync_r);
            for (size_t k = 0; k < n; k++) {
                double want = 0;
                for (int j = 0; j < size; j++) want += V(start + j * stride, k);
                CHECK(cdst[k] == want + size * 1.0 * I, "complexd_sum_to_all k=%zu", k);
            }
            shmem_int_min_to_all(isrc, isrc, (int)n, start, logs, size, iwrk, psync_r);
            for (size_t k = 0; k < n; k++) {
                int want = V(start, k);
                for (int j = 1; j < size; j++)
                    if (V(start + j * stride, k) < want) want = V(start + j * stride, k);
                CHECK_EQ("int_min_to_all in place", isrc[k], want);
            }
        }
    }
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++) CHECK_EQ("pSync restored", psync_r[k], SHMEM_SYNC_VALUE);
    for (int k = 0; k < SHMEM_COLLECT_SYNC_SIZE; k++) CHECK_EQ("pSync restored", psync_c[k], SHMEM_SYNC_VALUE);
}

int main(void) {
    start_test();
    for (int k = 0; k < SHMEM_BARRIER_SYNC_SIZE; k++) psync_bar[k] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    run_set(0, 0, npes);                       /* everyone */
    shmem_barrier_all();
    run_set(0, 1, (npes + 1) / 2);             /* evens */
    shmem_barrier_all();
    if (npes >= 3) run_set(1, 0, npes - 1);    /* all but PE 0 */
    shmem_barrier_all();
    if (npes >= 5) run_set(1, 2, (npes - 2) / 4 + 1); /* 1, 5, 9 */
    shmem_barrier_all();
    /* Two disjoint sets at once with their own pSync arrays (the same symmetric ones, as the
     * sets are disjoint): odds and evens. */
    if (npes >= 2) run_set(me % 2, 1, (npes - me % 2 + 1) / 2);
    shmem_barrier_all();
    if (me == 0) printf("ok\n");
    shmem_finalize();
    return 0;
}
