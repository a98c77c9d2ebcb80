// oshrun-test: npes=1,2,4,7 expect-exit=0
/* Atomic memory operations on static and heap targets: every operation once with a checked
 * result (standard, extended and bitwise types, _nbi fetching forms, context forms, C11
 * generic forms), then concurrency: every PE adds to PE 0's counters many times, and the
 * totals must be exact. */
#include <stdint.h>

#include "testutil.h"

#define ROUNDS 200

/* Static targets. */
long g_counter;
uint64_t g_ucounter;
int g_int;
unsigned int g_uint;
double g_double;
size_t g_size;
ptrdiff_t g_ptrdiff;
static int64_t s_i64;
static float s_float;


/* One PE at a time operates on its right neighbour's words; all of them are checked. */
static void test_ops(const char *where, int *ip, unsigned int *up, long *lp, uint64_t *u64p, double *dp, float *fp,
                     size_t *szp, ptrdiff_t *pdp, int64_t *i64p) {
    shmem_barrier_all();
    *ip = 0;
    *up = 0;
    *lp = 0;
    *u64p = 0;
    *dp = 0;
    *fp = 0;
    *szp = 0;
    *pdp = 0;
    *i64p = 0;
    shmem_barrier_all();
    /* Each PE touches only its right neighbour's words: no races within a step. */
    shmem_int_atomic_set(ip, 10 + me, right);
    CHECK_EQ("int fetch after set", shmem_int_atomic_fetch(ip, right), 10 + me);
    CHECK_EQ("int fetch_add", shmem_int_atomic_fetch_add(ip, 5, right), 10 + me);
    shmem_int_atomic_add(ip, -3, right);
    CHECK_EQ("int fetch_inc", shmem_int_atomic_fetch_inc(ip, right), 12 + me);
    shmem_int_atomic_inc(ip, right);
    CHECK_EQ("int swap", shmem_int_atomic_swap(ip, 100, right), 14 + me);
    CHECK_EQ("int cswap fails", shmem_int_atomic_compare_swap(ip, 99, 7, right), 100);
    CHECK_EQ("int cswap succeeds", shmem_int_atomic_compare_swap(ip, 100, 7, right), 100);
    CHECK_EQ("int after cswap", shmem_int_g(ip, right), 7);

    shmem_uint_atomic_set(up, 0xF0F0u, right);
    CHECK_EQ("uint fetch_and", shmem_uint_atomic_fetch_and(up, 0xFF00u, right), 0xF0F0u);
    shmem_uint_atomic_or(up, 0x000Fu, right);
    CHECK_EQ("uint fetch_xor", shmem_uint_atomic_fetch_xor(up, 0x0101u, right), 0xF00Fu);
    shmem_uint_atomic_and(up, 0xFFF0u, right);
    CHECK_EQ("uint fetch_or", shmem_uint_atomic_fetch_or(up, 0x1u, right), 0xF100u);
    shmem_uint_atomic_xor(up, 0xFFFFFFFFu, right);
    CHECK_EQ("uint after xor", shmem_uint_atomic_fetch(up, right), ~0xF101u);

    shmem_long_atomic_set(lp, -5, right);
    CHECK_EQ("long fetch_add negative", shmem_long_atomic_fetch_add(lp, -10, right), -5);
    CHECK_EQ("long fetch", shmem_long_atomic_fetch(lp, right), -15);
    CHECK_EQ("long compare_swap", shmem_ctx_long_atomic_compare_swap(SHMEM_CTX_DEFAULT, lp, -15, 1L << 40, right), -15);
    CHECK_EQ("long after", shmem_long_g(lp, right), 1L << 40);

    shmem_uint64_atomic_set(u64p, UINT64_MAX, right);
    CHECK(shmem_uint64_atomic_fetch_inc(u64p, right) == UINT64_MAX, "%s uint64 wrap", where);
    CHECK_EQ("uint64 wrapped", shmem_uint64_atomic_fetch(u64p, right), 0);
    shmem_int64_atomic_set(i64p, INT64_MIN, right);
    shmem_int64_atomic_xor(i64p, 1, right);
    CHECK(shmem_int64_atomic_fetch(i64p, right) == (INT64_MIN ^ 1), "%s int64 xor", where);
    shmem_size_atomic_add(szp, (size_t)1 << 33, right);
    CHECK(shmem_size_atomic_fetch(szp, right) == (size_t)1 << 33, "%s size add", where);
    shmem_ptrdiff_atomic_add(pdp, -42, right);
    CHECK_EQ("ptrdiff add", shmem_ptrdiff_atomic_fetch(pdp, right), -42);

    /* Extended types. */
    shmem_double_atomic_set(dp, 2.5, right);
    double old = shmem_double_atomic_swap(dp, -1.25, right);
    CHECK(old == 2.5, "%s double swap returned %f", where, old);
    CHECK(shmem_double_atomic_fetch(dp, right) == -1.25, "%s double fetch", where);
    shmem_ctx_float_atomic_set(SHMEM_CTX_DEFAULT, fp, 0.5f, right);
    CHECK(shmem_float_atomic_swap(fp, 3.0f, right) == 0.5f, "%s float swap", where);

    /* _nbi fetching forms store into *fetch. */
    int fi = -1;
    shmem_int_atomic_fetch_nbi(&fi, ip, right);
    CHECK_EQ("fetch_nbi", fi, 7);
    shmem_int_atomic_fetch_add_nbi(&fi, ip, 3, right);
    CHECK_EQ("fetch_add_nbi", fi, 7);
    shmem_int_atomic_fetch_inc_nbi(&fi, ip, right);
    CHECK_EQ("fetch_inc_nbi", fi, 10);
    shmem_int_atomic_swap_nbi(&fi, ip, 50, right);
    CHECK_EQ("swap_nbi", fi, 11);
    shmem_ctx_int_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &fi, ip, 50, 51, right);
    CHECK_EQ("compare_swap_nbi", fi, 50);
    unsigned int fu = 0;
    shmem_uint_atomic_set(up, 6u, right);
    shmem_uint_atomic_fetch_and_nbi(&fu, up, 3u, right);
    CHECK_EQ("fetch_and_nbi", fu, 6);
    shmem_uint_atomic_fetch_or_nbi(&fu, up, 8u, right);
    CHECK_EQ("fetch_or_nbi", fu, 2);
    shmem_uint_atomic_fetch_xor_nbi(&fu, up, 1u, right);
    CHECK_EQ("fetch_xor_nbi", fu, 10);
    double fd = 0;
    shmem_double_atomic_fetch_nbi(&fd, dp, right);
    CHECK(fd == -1.25, "%s double fetch_nbi %f", where, fd);
    shmem_double_atomic_swap_nbi(&fd, dp, 4.0, right);
    CHECK(fd == -1.25, "%s double swap_nbi %f", where, fd);
    shmem_quiet();

    /* C11 generic forms, with and without a context. */
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "%s ctx_create", where);
    shmem_atomic_set(ip, 1, right);
    shmem_atomic_add(ctx, ip, 2, right);
    shmem_atomic_inc(ip, right);
    CHECK_EQ("generic fetch_add", shmem_atomic_fetch_add(ip, 10, right), 4);
    CHECK_EQ("generic ctx fetch_inc", shmem_atomic_fetch_inc(ctx, ip, right), 14);
    CHECK_EQ("generic compare_swap", shmem_atomic_compare_swap(ip, 15, 20, right), 15);
    CHECK_EQ("generic swap", shmem_atomic_swap(ctx, ip, 21, right), 20);
    const int *cip = ip;
    CHECK_EQ("generic fetch const", shmem_atomic_fetch(cip, right), 21);
    CHECK(shmem_atomic_fetch(ctx, dp, right) == 4.0, "%s generic double fetch", where);
    shmem_atomic_set(u64p, (uint64_t)12, right);
    shmem_atomic_or(u64p, (uint64_t)1, right);
    shmem_atomic_and(ctx, u64p, (uint64_t)0xD, right);
    shmem_atomic_xor(u64p, (uint64_t)0x10, right);
    CHECK_EQ("generic bitwise", shmem_atomic_fetch_or(u64p, (uint64_t)0, right), 0x1D);
    CHECK_EQ("generic fetch_and", shmem_atomic_fetch_and(ctx, u64p, (uint64_t)0xF, right), 0x1D);
    CHECK_EQ("generic fetch_xor", shmem_atomic_fetch_xor(u64p, (uint64_t)0xF, right), 0xD);
    int64_t fi64 = 0;
    shmem_atomic_set(i64p, (int64_t)3, right);
    shmem_atomic_fetch_and_nbi(&fi64, i64p, (int64_t)1, right);
    CHECK_EQ("generic fetch_and_nbi int64", fi64, 3);
    int gf = 0;
    shmem_atomic_fetch_add_nbi(ctx, &gf, ip, 1, right);
    CHECK_EQ("generic ctx fetch_add_nbi", gf, 21);
    shmem_atomic_fetch_inc_nbi(&gf, ip, right);
    CHECK_EQ("generic fetch_inc_nbi", gf, 22);
    shmem_atomic_compare_swap_nbi(&gf, ip, 23, 0, right);
    CHECK_EQ("generic compare_swap_nbi", gf, 23);
    shmem_atomic_swap_nbi(&gf, ip, 5, right);
    shmem_atomic_fetch_nbi(ctx, &gf, ip, right);
    CHECK_EQ("generic fetch_nbi", gf, 5);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    /* What the left neighbour left in our words. */
    CHECK_EQ("final int", *ip, 5);
    CHECK(*dp == 4.0, "%s final double %f", where, *dp);
    CHECK(*fp == 3.0f, "%s final float %f", where, (double)*fp);
    shmem_barrier_all();
}

/* All PEs hammer PE 0's counters (and every PE's heap counter round-robin). */
static void test_concurrency(const char *where, long *counter, uint64_t *ucounter, long *heap_counters) {
    shmem_barrier_all();
    if (me == 0) {
        *counter = 0;
        *ucounter = 0;
    }
    *heap_counters = 0;
    shmem_barrier_all();
    long seen_max = -1;
    for (int r = 0; r < ROUNDS; r++) {
        long prev = shmem_long_atomic_fetch_add(counter, 2, 0);
        CHECK(prev % 2 == 0 && prev >= 0 && prev < 2L * ROUNDS * npes, "%s fetch_add saw %ld", where, prev);
        CHECK(prev != seen_max, "%s fetch_add returned %ld twice", where, prev);
        seen_max = prev;
        shmem_uint64_atomic_inc(ucounter, 0);
        shmem_long_atomic_add(heap_counters, 1, (me + r) % npes);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ("counter total", *counter, 2L * ROUNDS * npes);
        CHECK_EQ("ucounter total", *ucounter, (uint64_t)ROUNDS * npes);
    }
    /* PE p receives one add from every PE for each r with (pe + r) % npes == p. */
    CHECK_EQ("round-robin total", *heap_counters, ROUNDS);
    shmem_barrier_all();
}

int main(void) {
    start_test();

    test_ops("static", &g_int, &g_uint, &g_counter, &g_ucounter, &g_double, &s_float, &g_size, &g_ptrdiff, &s_i64);

    int *hi = shmem_malloc(sizeof(int));
    unsigned int *hu = shmem_malloc(sizeof(unsigned int));
    long *hl = shmem_malloc(sizeof(long));
    uint64_t *hu64 = shmem_malloc(sizeof(uint64_t));
    double *hd = shmem_malloc(sizeof(double));
    float *hf = shmem_malloc(sizeof(float));
    size_t *hsz = shmem_malloc(sizeof(size_t));
    ptrdiff_t *hpd = shmem_malloc(sizeof(ptrdiff_t));
    int64_t *hi64 = shmem_malloc(sizeof(int64_t));
    long *hrr = shmem_malloc(sizeof(long));
    test_ops("heap", hi, hu, hl, hu64, hd, hf, hsz, hpd, hi64);

    static long fs_rr; /* function-static round-robin counter */
    test_concurrency("static", &g_counter, &g_ucounter, &fs_rr);
    test_concurrency("heap", hl, hu64, hrr);

    shmem_free(hrr);
    shmem_free(hi64);
    shmem_free(hpd);
    shmem_free(hsz);
    shmem_free(hf);
    shmem_free(hd);
    shmem_free(hu64);
    shmem_free(hl);
    shmem_free(hu);
    shmem_free(hi);
    if (me == 0) printf("amo: ok at %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
