// oshrun-test: npes=1,2,3,5,7,8,12 expect-exit=0 timeout=240
// oshrun-test: npes=4 expect-exit=0 timeout=300 env=COLL_BIG=1
// oshrun-test: npes=4,8 expect-exit=0 timeout=240 env=SHMEMX_CORES=64
// oshrun-test: npes=2 expect-exit=0 timeout=240 env=SHMEMX_CORES=1
/* Team collectives against a serial model: broadcast, collect, fcollect, alltoall, alltoalls
 * and every reduction of int8, int32, int64, float, double and double complex (C11 generic
 * forms), at 0, 1, 7 and 4 KiB elements (and 1 MiB with COLL_BIG=1), over the world team, the
 * even PEs, the reversed world, the rows and columns of split_2d, and an arbitrary-order team
 * (shmemx_team_init); then the mem forms, in-place reductions and the return codes. */
#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <shmemx.h>

#include "testutil.h"

static void *bsrc, *bdst; /* symmetric buffers of npes * max block bytes (+ stride room) */

/* Values: small, so that sums and products are exact in every type. */
#define VAL(T, wpe, k) ((T)(((wpe) * 131 + (k) * 7 + 3) % 97))
#define PVAL(T, wpe, k) ((T)((((wpe) + (k)) % 3 == 0) ? -1 : 1))

static int world_of(shmem_team_t t, int i) { return shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD); }

#define DEFINE_MOVES(T, N)                                                                                   \
    static void moves_##N(shmem_team_t t, const char *tn, size_t n) {                                        \
        int r = shmem_team_my_pe(t), s = shmem_team_n_pes(t);                                                \
        T *src = (T *)bsrc, *dst = (T *)bdst;                                                                \
        /* broadcast from each root in turn (at most 3 roots) */                                            \
        for (int root = 0; root < s && root < 3; root++) {                                                   \
            for (size_t k = 0; k < n; k++) src[k] = VAL(T, me, k), dst[k] = (T)-5;                           \
            CHECK_EQ("broadcast rc", shmem_broadcast(t, dst, src, n, root), 0);                              \
            int w = world_of(t, root);                                                                       \
            for (size_t k = 0; k < n; k++)                                                                   \
                CHECK(dst[k] == VAL(T, w, k), "%s %s broadcast n=%zu root=%d k=%zu", #N, tn, n, root, k);    \
        }                                                                                                    \
        /* fcollect */                                                                                       \
        for (size_t k = 0; k < n; k++) src[k] = VAL(T, me, k);                                               \
        CHECK_EQ("fcollect rc", shmem_fcollect(t, dst, src, n), 0);                                          \
        for (int j = 0; j < s; j++)                                                                          \
            for (size_t k = 0; k < n; k++)                                                                   \
                CHECK(dst[j * n + k] == VAL(T, world_of(t, j), k), "%s %s fcollect n=%zu j=%d k=%zu", #N, tn, \
                      n, j, k);                                                                              \
        /* collect: member j gives n - j % 2 elements (at least 0) */                                        \
        size_t mine = n >= 1 ? n - (size_t)(r % 2) : 0;                                                      \
        CHECK_EQ("collect rc", shmem_collect(t, dst, src, mine), 0);                                         \
        size_t off = 0;                                                                                      \
        for (int j = 0; j < s; j++) {                                                                        \
            size_t len = n >= 1 ? n - (size_t)(j % 2) : 0;                                                   \
            for (size_t k = 0; k < len; k++)                                                                 \
                CHECK(dst[off + k] == VAL(T, world_of(t, j), k), "%s %s collect n=%zu j=%d k=%zu", #N, tn, n, \
                      j, k);                                                                                 \
            off += len;                                                                                      \
        }                                                                                                    \
        /* alltoall: block j of member i holds VAL(i * 1000 + j) */                                          \
        for (int j = 0; j < s; j++)                                                                          \
            for (size_t k = 0; k < n; k++) src[j * n + k] = VAL(T, me * 16 + j, k);                          \
        CHECK_EQ("alltoall rc", shmem_alltoall(t, dst, src, n), 0);                                          \
        for (int i = 0; i < s; i++)                                                                          \
            for (size_t k = 0; k < n; k++)                                                                   \
                CHECK(dst[i * n + k] == VAL(T, world_of(t, i) * 16 + r, k), "%s %s alltoall n=%zu i=%d k=%zu", \
                      #N, tn, n, i, k);                                                                      \
        /* alltoalls with dst 2, sst 3 (blocks up to 4 KiB: the buffers hold 3 x 4 KiB each)  */                \
        if (n * sizeof(T) <= 4096) {                                                                            \
            for (size_t k = 0; k < (size_t)s * n * 3; k++) src[k] = VAL(T, me * 16 + 15, k);                 \
            for (size_t k = 0; k < (size_t)s * n * 2; k++) dst[k] = (T)-5;                                   \
            CHECK_EQ("alltoalls rc", shmem_alltoalls(t, dst, src, 2, 3, n), 0);                              \
            for (int i = 0; i < s; i++)                                                                      \
                for (size_t k = 0; k < n; k++) {                                                             \
                    size_t sk = ((size_t)r * n + k) * 3;                                                     \
                    CHECK(dst[((size_t)i * n + k) * 2] == VAL(T, world_of(t, i) * 16 + 15, sk),              \
                          "%s %s alltoalls n=%zu i=%d k=%zu", #N, tn, n, i, k);                              \
                    if (k + 1 < n || i + 1 < s)                                                              \
                        CHECK(dst[((size_t)i * n + k) * 2 + 1] == (T)-5, "%s %s alltoalls gap", #N, tn);     \
                }                                                                                            \
        }                                                                                                    \
    }

/* One reduction OP (a generic name) with a model combining step `acc = F(acc, v)`. */
#define CHECK_REDUCE(T, N, OPNAME, GEN, VALF, F)                                                             \
    do {                                                                                                     \
        for (size_t k = 0; k < n; k++) src[k] = VALF(T, me, k), dst[k] = (T)-5;                              \
        CHECK_EQ(#OPNAME " rc", GEN(t, dst, src, n), 0);                                                     \
        for (size_t k = 0; k < n; k++) {                                                                     \
            T acc = VALF(T, world_of(t, 0), k);                                                              \
            for (int j = 1; j < s; j++) {                                                                    \
                T v = VALF(T, world_of(t, j), k);                                                            \
                acc = (T)(F(acc, v));                                                                        \
            }                                                                                                \
            CHECK(dst[k] == acc, "%s %s %s n=%zu k=%zu", #N, tn, #OPNAME, n, k);                             \
        }                                                                                                    \
    } while (0)
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))
#define F_MAX(a, b) ((b) > (a) ? (b) : (a))
#define F_MIN(a, b) ((b) < (a) ? (b) : (a))
#define F_AND(a, b) ((a) & (b))
#define F_OR(a, b) ((a) | (b))
#define F_XOR(a, b) ((a) ^ (b))

#define DEFINE_SUMPROD(T, N)                                                                                 \
    static void sumprod_##N(shmem_team_t t, const char *tn, size_t n) {                                      \
        int s = shmem_team_n_pes(t);                                                                         \
        T *src = (T *)bsrc, *dst = (T *)bdst;                                                                \
        CHECK_REDUCE(T, N, sum, shmem_sum_reduce, VAL, F_SUM);                                               \
        CHECK_REDUCE(T, N, prod, shmem_prod_reduce, PVAL, F_PROD);                                           \
    }
#define DEFINE_MINMAX(T, N)                                                                                  \
    static void minmax_##N(shmem_team_t t, const char *tn, size_t n) {                                       \
        int s = shmem_team_n_pes(t);                                                                         \
        T *src = (T *)bsrc, *dst = (T *)bdst;                                                                \
        CHECK_REDUCE(T, N, max, shmem_max_reduce, VAL, F_MAX);                                               \
        CHECK_REDUCE(T, N, min, shmem_min_reduce, VAL, F_MIN);                                               \
    }
#define DEFINE_BITWISE(T, N)                                                                                 \
    static void bitwise_##N(shmem_team_t t, const char *tn, size_t n) {                                      \
        int s = shmem_team_n_pes(t);                                                                         \
        T *src = (T *)bsrc, *dst = (T *)bdst;                                                                \
        CHECK_REDUCE(T, N, and, shmem_and_reduce, VAL, F_AND);                                               \
        CHECK_REDUCE(T, N, or, shmem_or_reduce, VAL, F_OR);                                                  \
        CHECK_REDUCE(T, N, xor, shmem_xor_reduce, VAL, F_XOR);                                               \
    }

typedef double _Complex cplx;
#define CVAL(T, wpe, k) ((T)(VAL(double, wpe, k) + VAL(double, (wpe) + 1, k) * I))
#define CPVAL(T, wpe, k) ((T)((((wpe) + (k)) % 4 == 0) ? I : (((wpe) + (k)) % 4 == 1 ? -1 : 1)))

DEFINE_MOVES(int8_t, int8)
DEFINE_MOVES(int32_t, int32)
DEFINE_MOVES(int64_t, int64)
DEFINE_MOVES(float, float)
DEFINE_MOVES(double, double)
DEFINE_SUMPROD(int8_t, int8)
DEFINE_SUMPROD(int32_t, int32)
DEFINE_SUMPROD(int64_t, int64)
DEFINE_SUMPROD(float, float)
DEFINE_SUMPROD(double, double)
DEFINE_MINMAX(int8_t, int8)
DEFINE_MINMAX(int32_t, int32)
DEFINE_MINMAX(int64_t, int64)
DEFINE_MINMAX(float, float)
DEFINE_MINMAX(double, double)
DEFINE_BITWISE(int8_t, int8)
DEFINE_BITWISE(int32_t, int32)
DEFINE_BITWISE(int64_t, int64)

static void complex_tests(shmem_team_t t, const char *tn, size_t n) {
    int s = shmem_team_n_pes(t);
    cplx *src = (cplx *)bsrc, *dst = (cplx *)bdst;
    CHECK_REDUCE(cplx, complexd, sum, shmem_sum_reduce, CVAL, F_SUM);
    CHECK_REDUCE(cplx, complexd, prod, shmem_prod_reduce, CPVAL, F_PROD);
    float _Complex *fs = (float _Complex *)bsrc, *fd = (float _Complex *)bdst;
    for (size_t k = 0; k < n; k++) fs[k] = (float)k + 2.0f * I;
    CHECK_EQ("complexf sum rc", shmem_complexf_sum_reduce(t, fd, fs, n), 0);
    for (size_t k = 0; k < n; k++)
        CHECK(fd[k] == (float)s * ((float)k + 2.0f * I), "complexf sum %s k=%zu", tn, k);
}

static void run_team(shmem_team_t t, const char *tn, int big) {
    if (t == SHMEM_TEAM_INVALID) return;
    size_t bytes[] = {0, 1, 7, 4096, 1 << 20};
    int nsizes = big ? 5 : 4;
    for (int b = 0; b < nsizes; b++) {
#define SIZE_OF(T) (b < 3 ? bytes[b] : bytes[b] / sizeof(T))
        moves_int8(t, tn, SIZE_OF(int8_t));
        moves_int32(t, tn, SIZE_OF(int32_t));
        moves_int64(t, tn, SIZE_OF(int64_t));
        moves_float(t, tn, SIZE_OF(float));
        moves_double(t, tn, SIZE_OF(double));
        sumprod_int8(t, tn, SIZE_OF(int8_t));
        sumprod_int32(t, tn, SIZE_OF(int32_t));
        sumprod_int64(t, tn, SIZE_OF(int64_t));
        sumprod_float(t, tn, SIZE_OF(float));
        sumprod_double(t, tn, SIZE_OF(double));
        minmax_int8(t, tn, SIZE_OF(int8_t));
        minmax_int32(t, tn, SIZE_OF(int32_t));
        minmax_int64(t, tn, SIZE_OF(int64_t));
        minmax_float(t, tn, SIZE_OF(float));
        minmax_double(t, tn, SIZE_OF(double));
        bitwise_int8(t, tn, SIZE_OF(int8_t));
        bitwise_int32(t, tn, SIZE_OF(int32_t));
        bitwise_int64(t, tn, SIZE_OF(int64_t));
        complex_tests(t, tn, SIZE_OF(cplx));
#undef SIZE_OF
    }
}

/* mem forms, in-place reductions, return codes. */
static void misc(void) {
    char *src = (char *)bsrc, *dst = (char *)bdst;
    for (int k = 0; k < 100; k++) src[k] = (char)(me + k);
    CHECK_EQ("broadcastmem", shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 100, npes - 1), 0);
    for (int k = 0; k < 100; k++) CHECK_EQ("broadcastmem value", dst[k], (char)(npes - 1 + k));
    CHECK_EQ("fcollectmem", shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, 3), 0);
    for (int j = 0; j < npes; j++)
        for (int k = 0; k < 3; k++) CHECK_EQ("fcollectmem value", dst[j * 3 + k], (char)(j + k));
    CHECK_EQ("collectmem", shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, (size_t)me), 0);
    size_t off = 0;
    for (int j = 0; j < npes; j++)
        for (int k = 0; k < j; k++) CHECK_EQ("collectmem value", dst[off++], (char)(j + k));
    for (int j = 0; j < npes; j++) src[j] = (char)(me * 10 + j);
    CHECK_EQ("alltoallmem", shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, 1), 0);
    for (int j = 0; j < npes; j++) CHECK_EQ("alltoallmem value", dst[j], (char)(j * 10 + me));
    /* In place. */
    long *l = (long *)bsrc;
    for (int k = 0; k < 5; k++) l[k] = me + k;
    CHECK_EQ("in-place sum", shmem_long_sum_reduce(SHMEM_TEAM_WORLD, l, l, 5), 0);
    for (int k = 0; k < 5; k++) CHECK_EQ("in-place value", l[k], (long)npes * (npes - 1) / 2 + (long)npes * k);
    size_t big = (64 << 10) / sizeof(long);
    for (size_t k = 0; k < big; k++) l[k] = me + (long)k;
    CHECK_EQ("in-place big sum", shmem_long_sum_reduce(SHMEM_TEAM_WORLD, l, l, big), 0);
    for (size_t k = 0; k < big; k++)
        CHECK_EQ("in-place big value", l[k], (long)npes * (npes - 1) / 2 + (long)npes * (long)k);
    /* Return codes: invalid team, root outside the team. */
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, (int *)bdst, (int *)bsrc, 1) != 0, "invalid team: want nonzero");
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, 1, npes) != 0, "bad root: want nonzero");
    CHECK_EQ("team_sync", shmem_team_sync(SHMEM_TEAM_WORLD), 0);
}

int main(void) {
    start_test();
    int big = getenv("COLL_BIG") != NULL;
    size_t buf = (size_t)npes * (big ? (1 << 20) : 3 * 4096 * sizeof(cplx));
    bsrc = shmem_malloc(buf);
    bdst = shmem_malloc(buf);
    CHECK(bsrc && bdst, "shmem_malloc of %zu", buf);
    misc();
    run_team(SHMEM_TEAM_WORLD, "world", big);
    shmem_team_t evens = SHMEM_TEAM_INVALID, reversed = SHMEM_TEAM_INVALID, row, col, arb = SHMEM_TEAM_INVALID;
    CHECK_EQ("split evens", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens), 0);
    CHECK_EQ("split reversed",
             shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed), 0);
    int xr = npes >= 6 ? 3 : 2;
    CHECK_EQ("split_2d", shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &row, NULL, 0, &col), 0);
    /* Arbitrary order: PE 0 draws the id and broadcasts it; member index (m me + 3) mod n, with m
     * the first of 7, 9, 11, ... prime to n (so the indices are a permutation at every n). */
    int mul = 7;
    for (;;) {
        int a = mul, b = npes;
        while (b) {
            int t = a % b;
            a = b;
            b = t;
        }
        if (a == 1) break;
        mul += 2;
    }
    static uint64_t id;
    if (me == 0) CHECK_EQ("uniqueid", shmemx_team_get_uniqueid(&id), 0);
    shmem_barrier_all();
    CHECK_EQ("broadcast id", shmem_uint64_broadcast(SHMEM_TEAM_WORLD, &id, &id, 1, 0), 0);
    shmemx_team_config_t cfg = {0, id};
    CHECK_EQ("team_init", shmemx_team_init(&arb, &cfg, SHMEMX_TEAM_CONFIG_UNIQUEID, npes, (mul * me + 3) % npes), 0);
    CHECK_EQ("arb index", shmem_team_my_pe(arb), (mul * me + 3) % npes);
    run_team(evens, "evens", big);
    run_team(reversed, "reversed", big);
    run_team(row, "row", big);
    run_team(col, "column", big);
    run_team(arb, "arbitrary", big);
    shmem_barrier_all();
    if (me == 0) printf("ok\n");
    shmem_finalize();
    return 0;
}
