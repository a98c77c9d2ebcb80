// oshrun-test: npes=1,2,4,7 expect-exit=0
/* Point-to-point synchronization: wait_until on a flag put by the left neighbour (static and
 * heap), the _all/_any/_some and _vector forms of wait and test with status masks, the
 * deprecated waits, put-with-signal (SET and ADD; typed, sized, mem, context and generic
 * forms), signal_fetch/signal_wait_until, and a lock-protected read-modify-write counter. */
#include <stdint.h>
#include <string.h>

#include "testutil.h"

#define NV 8
#define LOCK_ROUNDS 40

long g_flag;
int g_ivars[NV];
static uint64_t s_sig;
uint64_t g_sig_add;
long g_lock;
long g_shared_counter;
double g_data[64];


static void test_wait_flag(void) {
    /* Static flag. */
    shmem_long_p(&g_flag, me + 1, right);
    shmem_long_wait_until(&g_flag, SHMEM_CMP_EQ, left + 1);
    CHECK_EQ("wait_until static flag", g_flag, left + 1);
    shmem_barrier_all();
    /* Heap flag, generic form, other comparisons. */
    int *flag = shmem_calloc(1, sizeof(int));
    shmem_int_atomic_add(flag, 5, right);
    shmem_wait_until(flag, SHMEM_CMP_GE, 5);
    CHECK(shmem_int_test(flag, SHMEM_CMP_GT, 4) == 1, "int_test GT: %d", *flag);
    CHECK(shmem_test(flag, SHMEM_CMP_LT, 5) == 0, "generic test LT: %d", *flag);
    CHECK(shmem_test(flag, SHMEM_CMP_LE, 5) == 1, "generic test LE: %d", *flag);
    shmem_barrier_all();
    /* Deprecated waits: until the value differs. */
    *flag = 0;
    g_flag = 0;
    shmem_barrier_all();
    shmem_int_p(flag, 3, right);
    shmem_long_p(&g_flag, 4, right);
    shmem_int_wait(flag, 0);
    shmem_wait(&g_flag, 0);
    CHECK_EQ("int_wait", *flag, 3);
    CHECK_EQ("shmem_wait", g_flag, 4);
    shmem_barrier_all();
    shmem_free(flag);
}

/* Sets, by puts from the left neighbour, element i of the right neighbour's set to v[i]. */
static void send_all(int *ivars, const int *v, int step) {
    for (int i = 0; i < NV; i++) shmem_int_p(&ivars[(i * step) % NV], v[(i * step) % NV], right);
}

static void test_sets(const char *where, int *ivars) {
    int status[NV] = {0};
    size_t idx[NV];
    int vals[NV];
    memset(ivars, 0, sizeof(int) * NV);
    shmem_barrier_all();

    /* Nothing set yet. */
    CHECK_EQ("test_all none", shmem_int_test_all(ivars, NV, NULL, SHMEM_CMP_NE, 0), 0);
    CHECK(shmem_int_test_any(ivars, NV, NULL, SHMEM_CMP_NE, 0) == SIZE_MAX, "%s test_any none", where);
    CHECK_EQ("test_some none", shmem_int_test_some(ivars, NV, idx, NULL, SHMEM_CMP_NE, 0), 0);
    CHECK_EQ("test_all empty set", shmem_int_test_all(ivars, 0, NULL, SHMEM_CMP_NE, 0), 1);
    shmem_barrier_all();

    /* Elements 1, 3, 5 become 1; status excludes 3. */
    shmem_int_p(&ivars[1], 1, right);
    shmem_int_p(&ivars[3], 1, right);
    shmem_int_p(&ivars[5], 1, right);
    shmem_barrier_all();
    for (int i = 0; i < NV; i++) status[i] = !(i == 1 || i == 5);
    CHECK_EQ("test_all masked", shmem_int_test_all(ivars, NV, status, SHMEM_CMP_EQ, 1), 1);
    /* Either satisfied element: repeated calls rotate through them (p2p_any_fair.c). */
    size_t any = shmem_int_test_any(ivars, NV, status, SHMEM_CMP_EQ, 1);
    CHECK(any == 1 || any == 5, "%s test_any masked gave %zu", where, any);
    CHECK_EQ("test_some masked", shmem_int_test_some(ivars, NV, idx, status, SHMEM_CMP_EQ, 1), 2);
    CHECK(idx[0] == 1 && idx[1] == 5, "%s test_some indices %zu %zu", where, idx[0], idx[1]);
    status[3] = 0;
    CHECK_EQ("test_some with 3", shmem_test_some(ivars, NV, idx, status, SHMEM_CMP_EQ, 1), 3);
    CHECK_EQ("wait_until_all masked", (shmem_int_wait_until_all(ivars, NV, status, SHMEM_CMP_EQ, 1), 1), 1);
    any = shmem_int_wait_until_any(ivars, NV, status, SHMEM_CMP_EQ, 1);
    CHECK(any == 1 || any == 3 || any == 5, "%s wait_until_any masked gave %zu", where, any);
    CHECK_EQ("wait_until_some masked", shmem_int_wait_until_some(ivars, NV, idx, status, SHMEM_CMP_EQ, 1), 3);
    for (int i = 0; i < NV; i++) status[i] = 1;
    CHECK(shmem_int_wait_until_any(ivars, NV, status, SHMEM_CMP_EQ, 7) == SIZE_MAX, "%s any all-excluded", where);
    CHECK_EQ("some all-excluded", shmem_int_wait_until_some(ivars, NV, idx, status, SHMEM_CMP_EQ, 7), 0);
    shmem_int_wait_until_all(ivars, NV, status, SHMEM_CMP_EQ, 7); /* returns at once */
    shmem_barrier_all();

    /* Waits that are satisfied by puts arriving while waiting. */
    memset(ivars, 0, sizeof(int) * NV);
    shmem_barrier_all();
    for (int i = 0; i < NV; i++) vals[i] = 2;
    send_all(ivars, vals, 3);
    shmem_wait_until_all(ivars, NV, NULL, SHMEM_CMP_EQ, 2);
    for (int i = 0; i < NV; i++) CHECK_EQ("after wait_until_all", ivars[i], 2);
    shmem_barrier_all();
    /* Only element 6 changes; any must find it. */
    shmem_int_p(&ivars[6], 9, right);
    CHECK_EQ("wait_until_any arrival", shmem_wait_until_any(ivars, NV, NULL, SHMEM_CMP_EQ, 9), 6);
    shmem_barrier_all();
    shmem_int_p(&ivars[2], 9, right);
    shmem_int_p(&ivars[4], 9, right);
    size_t got = 0;
    while (got < 3) got = shmem_wait_until_some(ivars, NV, idx, NULL, SHMEM_CMP_EQ, 9);
    CHECK(idx[0] == 2 && idx[1] == 4 && idx[2] == 6, "%s wait_until_some %zu %zu %zu", where, idx[0], idx[1], idx[2]);
    shmem_barrier_all();

    /* Vector forms: element i must equal left * 10 + i. */
    memset(ivars, 0, sizeof(int) * NV);
    shmem_barrier_all();
    int want[NV];
    for (int i = 0; i < NV; i++) {
        vals[i] = me * 10 + i;
        want[i] = left * 10 + i;
        status[i] = 0;
    }
    CHECK_EQ("test_all_vector before", shmem_int_test_all_vector(ivars, NV, NULL, SHMEM_CMP_EQ, want), 0);
    shmem_barrier_all();
    send_all(ivars, vals, 5);
    shmem_int_wait_until_all_vector(ivars, NV, status, SHMEM_CMP_EQ, want);
    CHECK_EQ("test_all_vector", shmem_test_all_vector(ivars, NV, status, SHMEM_CMP_EQ, want), 1);
    want[0] = -1;
    status[1] = 1;
    /* Elements 2..NV-1 satisfy; repeated calls rotate through them (p2p_any_fair.c). */
    size_t anyv = shmem_int_test_any_vector(ivars, NV, status, SHMEM_CMP_EQ, want);
    CHECK(anyv >= 2 && anyv < NV, "test_any_vector gave %zu", anyv);
    anyv = shmem_wait_until_any_vector(ivars, NV, status, SHMEM_CMP_EQ, want);
    CHECK(anyv >= 2 && anyv < NV, "wait_until_any_vector gave %zu", anyv);
    CHECK_EQ("test_some_vector", shmem_int_test_some_vector(ivars, NV, idx, status, SHMEM_CMP_EQ, want), NV - 2);
    CHECK_EQ("wait_until_some_vector", shmem_int_wait_until_some_vector(ivars, NV, idx, status, SHMEM_CMP_NE, want), 1);
    CHECK_EQ("wait_until_some_vector index", idx[0], 0);
    CHECK_EQ("test_any_vector NE", shmem_test_any_vector(ivars, NV, status, SHMEM_CMP_NE, want), 0);
    CHECK_EQ("generic wait_until_all_vector", (shmem_wait_until_all_vector(ivars, NV, status, SHMEM_CMP_GE, want), 1), 1);
    CHECK_EQ("generic wait_until_some_vector", shmem_wait_until_some_vector(ivars, NV, idx, status, SHMEM_CMP_GT, want), 1);
    CHECK_EQ("generic test_some_vector", shmem_test_some_vector(ivars, NV, idx, status, SHMEM_CMP_LT, want), 0);
    CHECK_EQ("generic test_all", shmem_test_all(ivars, NV, status, SHMEM_CMP_GE, 0), 1);
    CHECK_EQ("generic test_any", shmem_test_any(ivars, NV, NULL, SHMEM_CMP_EQ, left * 10 + 3), 3);
    shmem_barrier_all();
}

static void test_other_types(void) {
    /* A few more types through the same code: short, unsigned long long, size_t, ptrdiff_t. */
    short *sv = shmem_calloc(4, sizeof(short));
    size_t *zv = shmem_calloc(4, sizeof(size_t));
    ptrdiff_t *pv = shmem_calloc(4, sizeof(ptrdiff_t));
    unsigned long long *uv = shmem_calloc(4, sizeof(unsigned long long));
    shmem_short_p(&sv[2], -7, right);
    shmem_size_p(&zv[1], (size_t)1 << 40, right);
    shmem_ptrdiff_p(&pv[3], -((ptrdiff_t)1 << 40), right);
    shmem_ulonglong_p(&uv[0], ~0ULL, right);
    CHECK_EQ("short_wait_until_any", shmem_short_wait_until_any(sv, 4, NULL, SHMEM_CMP_LT, 0), 2);
    CHECK_EQ("size_wait_until_any", shmem_size_wait_until_any(zv, 4, NULL, SHMEM_CMP_GT, (size_t)1 << 39), 1);
    CHECK_EQ("ptrdiff_wait_until_any", shmem_ptrdiff_wait_until_any(pv, 4, NULL, SHMEM_CMP_LT, -1), 3);
    shmem_ulonglong_wait_until(&uv[0], SHMEM_CMP_GT, 1ULL << 63);
    shmem_wait_until(&uv[0], SHMEM_CMP_EQ, ~0ULL);
    shmem_barrier_all();
    shmem_free(uv);
    shmem_free(pv);
    shmem_free(zv);
    shmem_free(sv);
}

static void test_signals(void) {
    double src[64];
    for (int i = 0; i < 64; i++) src[i] = me + i / 64.0;
    double *hdata = shmem_calloc(64, sizeof(double));
    uint64_t *hsig = shmem_calloc(1, sizeof(uint64_t));
    s_sig = 0;
    shmem_barrier_all();

    /* SET: data then signal to the right neighbour (static signal word). */
    shmem_double_put_signal(g_data, src, 64, &s_sig, (uint64_t)me + 1, SHMEM_SIGNAL_SET, right);
    uint64_t sv = shmem_signal_wait_until(&s_sig, SHMEM_CMP_EQ, (uint64_t)left + 1);
    CHECK_EQ("signal_wait_until value", sv, left + 1);
    for (int i = 0; i < 64; i++) CHECK(g_data[i] == left + i / 64.0, "put_signal data[%d] = %f", i, g_data[i]);
    CHECK_EQ("signal_fetch", shmem_signal_fetch(&s_sig), left + 1);
    shmem_barrier_all();

    /* ADD: every PE adds 1 to PE 0's heap signal after putting its slot, _nbi and sized forms. */
    shmem_put64_signal_nbi(&hdata[me % 64], &src[0], 1, hsig, 1, SHMEM_SIGNAL_ADD, 0);
    shmem_quiet();
    if (me == 0) {
        shmem_signal_wait_until(hsig, SHMEM_CMP_GE, (uint64_t)npes);
        CHECK_EQ("signal add total", shmem_signal_fetch(hsig), npes);
        for (int p = 0; p < npes && p < 64; p++) CHECK(hdata[p] == (double)p, "added slot %d = %f", p, hdata[p]);
    }
    shmem_barrier_all();

    /* mem, context and generic forms: three signals of 1 each. */
    *hsig = 0;
    shmem_barrier_all();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    char msg[16] = "hello";
    shmem_putmem_signal((char *)hdata, msg, 6, hsig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_int_put_signal_nbi(ctx, (int *)&hdata[8], (int *)src, 2, hsig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal(ctx, &hdata[16], src, 4, hsig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(&hdata[20], src, 4, &g_sig_add, 7, SHMEM_SIGNAL_SET, right);
    shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(hsig, SHMEM_CMP_EQ, 3);
    shmem_signal_wait_until(&g_sig_add, SHMEM_CMP_EQ, 7);
    CHECK(strcmp((char *)hdata, "hello") == 0, "putmem_signal data %s", (char *)hdata);
    for (int i = 0; i < 4; i++) CHECK(hdata[16 + i] == left + i / 64.0, "generic put_signal %d", i);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_free(hsig);
    shmem_free(hdata);
}

static void test_lock(void) {
    static long fs_lock; /* a second lock, function-static */
    shmem_barrier_all();
    for (int r = 0; r < LOCK_ROUNDS; r++) {
        shmem_set_lock(&g_lock);
        long v = shmem_long_g(&g_shared_counter, 0); /* read-modify-write that needs the lock */
        shmem_long_p(&g_shared_counter, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&g_lock);
        while (shmem_test_lock(&fs_lock) != 0) {
        }
        long w = shmem_long_g(&g_shared_counter, npes - 1);
        shmem_long_p(&g_shared_counter, w + 1, npes - 1);
        shmem_clear_lock(&fs_lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK_EQ("lock-protected counter", g_shared_counter, (long)LOCK_ROUNDS * npes * (npes == 1 ? 2 : 1));
    if (me == npes - 1 && npes > 1) CHECK_EQ("test_lock-protected counter", g_shared_counter, (long)LOCK_ROUNDS * npes);
    shmem_barrier_all();
}

int main(void) {
    start_test();

    test_wait_flag();
    test_sets("static", g_ivars);
    int *hivars = shmem_malloc(sizeof(int) * NV);
    test_sets("heap", hivars);
    shmem_free(hivars);
    test_other_types();
    test_signals();
    test_lock();

    if (me == 0) printf("p2p: ok at %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
