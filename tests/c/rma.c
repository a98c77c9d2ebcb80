// oshrun-test: npes=1,2,4,7 expect-exit=0
/* RMA on static (global and function-static) variables and on heap objects: typed put/get,
 * p/g, iput/iget with strides, _nbi, the sized forms, putmem/getmem, context forms and the
 * C11 generic forms, for several types including long double. Each PE writes to its right
 * neighbour and reads from it; every check names what differed. */
#include <stdint.h>
#include <string.h>

#include "testutil.h"

#define N 16

/* Symmetric static data. */
int g_int[N];
long double g_ld[N];
uint64_t g_u64[N];
char g_bytes[4 * N];
short g_short[N];
static double s_double[N];
float g_float[N];
unsigned long long g_ull[N];
int8_t g_i8[N];
uint16_t g_u16[N];
size_t g_size[N];
ptrdiff_t g_ptrdiff[N];


/* Symmetric buffers of one run: either the static ones or heap ones. */
struct bufs {
    int *i;
    long double *ld;
    uint64_t *u64;
    char *bytes;
    short *s;
    double *d;
    float *f;
    unsigned long long *ull;
    int8_t *i8;
    uint16_t *u16;
    size_t *sz;
    ptrdiff_t *pd;
};

static long val(int pe, int i) { return (long)pe * 1000 + i; }

static void clear(struct bufs *b) {
    memset(b->i, 0, sizeof(int) * N);
    memset(b->ld, 0, sizeof(long double) * N);
    memset(b->u64, 0, sizeof(uint64_t) * N);
    memset(b->bytes, 0, 4 * N);
    memset(b->s, 0, sizeof(short) * N);
    memset(b->d, 0, sizeof(double) * N);
    memset(b->f, 0, sizeof(float) * N);
    memset(b->ull, 0, sizeof(unsigned long long) * N);
    memset(b->i8, 0, N);
    memset(b->u16, 0, sizeof(uint16_t) * N);
    memset(b->sz, 0, sizeof(size_t) * N);
    memset(b->pd, 0, sizeof(ptrdiff_t) * N);
    shmem_barrier_all();
}

/* Fills the buffers with this PE's pattern (for gets). */
static void fill(struct bufs *b) {
    for (int i = 0; i < N; i++) {
        b->i[i] = (int)val(me, i);
        b->ld[i] = (long double)val(me, i) + 0.25L;
        b->u64[i] = (uint64_t)val(me, i) << 20;
        b->s[i] = (short)val(me, i);
        b->d[i] = (double)val(me, i) + 0.5;
        b->f[i] = (float)val(me, i) + 0.75f;
        b->ull[i] = (unsigned long long)val(me, i) * 3;
        b->i8[i] = (int8_t)(me * 7 + i);
        b->u16[i] = (uint16_t)val(me, i);
        b->sz[i] = (size_t)val(me, i) + 11;
        b->pd[i] = -(ptrdiff_t)val(me, i);
    }
    for (int i = 0; i < 4 * N; i++) b->bytes[i] = (char)('a' + (me + i) % 26);
    shmem_barrier_all();
}

static void test_contiguous(const char *where, struct bufs *b) {
    int src_i[N];
    long double src_ld[N];
    double src_d[N];
    float src_f[N];
    unsigned long long src_ull[N];
    for (int i = 0; i < N; i++) {
        src_i[i] = (int)val(me, i);
        src_ld[i] = (long double)val(me, i) + 0.25L;
        src_d[i] = (double)val(me, i) + 0.5;
        src_f[i] = (float)val(me, i) + 0.75f;
        src_ull[i] = (unsigned long long)val(me, i) * 3;
    }
    /* Typed puts, blocking and nbi, default and explicit contexts. */
    clear(b);
    shmem_int_put(b->i, src_i, N, right);
    shmem_longdouble_put(b->ld, src_ld, N, right);
    shmem_double_put_nbi(b->d, src_d, N, right);
    shmem_ctx_float_put(SHMEM_CTX_DEFAULT, b->f, src_f, N, right);
    shmem_ctx_ulonglong_put_nbi(SHMEM_CTX_DEFAULT, b->ull, src_ull, N, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK(b->i[i] == (int)val(left, i), "%s int_put [%d]: got %d want %ld", where, i, b->i[i], val(left, i));
        CHECK(b->ld[i] == (long double)val(left, i) + 0.25L, "%s longdouble_put [%d]: got %Lf", where, i, b->ld[i]);
        CHECK(b->d[i] == (double)val(left, i) + 0.5, "%s double_put_nbi [%d]: got %f", where, i, b->d[i]);
        CHECK(b->f[i] == (float)val(left, i) + 0.75f, "%s ctx_float_put [%d]: got %f", where, i, (double)b->f[i]);
        CHECK_EQ(where, b->ull[i], (unsigned long long)val(left, i) * 3);
    }
    shmem_barrier_all();

    /* Typed gets. */
    fill(b);
    int got_i[N];
    long double got_ld[N];
    short got_s[N];
    size_t got_sz[N];
    ptrdiff_t got_pd[N];
    int8_t got_i8[N];
    shmem_int_get(got_i, b->i, N, right);
    shmem_longdouble_get_nbi(got_ld, b->ld, N, right);
    shmem_short_get(got_s, b->s, N, right);
    shmem_size_get(got_sz, b->sz, N, right);
    shmem_ctx_ptrdiff_get(SHMEM_CTX_DEFAULT, got_pd, b->pd, N, right);
    shmem_ctx_int8_get_nbi(SHMEM_CTX_DEFAULT, got_i8, b->i8, N, right);
    shmem_quiet();
    for (int i = 0; i < N; i++) {
        CHECK_EQ("int_get", got_i[i], val(right, i));
        CHECK(got_ld[i] == (long double)val(right, i) + 0.25L, "%s longdouble_get_nbi [%d]: got %Lf", where, i, got_ld[i]);
        CHECK_EQ("short_get", got_s[i], (short)val(right, i));
        CHECK_EQ("size_get", got_sz[i], (size_t)val(right, i) + 11);
        CHECK_EQ("ptrdiff_get", got_pd[i], -(ptrdiff_t)val(right, i));
        CHECK_EQ("int8_get_nbi", got_i8[i], (int8_t)(right * 7 + i));
    }
    shmem_barrier_all();
}

static void test_scalar(const char *where, struct bufs *b) {
    clear(b);
    shmem_int_p(&b->i[3], (int)val(me, 3), right);
    shmem_longdouble_p(&b->ld[2], 1.5L + me, right);
    shmem_double_p(&b->d[1], 2.5 + me, right);
    shmem_ctx_char_p(SHMEM_CTX_DEFAULT, &b->bytes[5], (char)('A' + me % 26), right);
    shmem_uint16_p(&b->u16[7], (uint16_t)(60000 + me), right);
    shmem_ptrdiff_p(&b->pd[0], -12345 - me, right);
    shmem_barrier_all();
    CHECK_EQ(where, b->i[3], val(left, 3));
    CHECK(b->ld[2] == 1.5L + left, "%s longdouble_p: got %Lf", where, b->ld[2]);
    CHECK(b->d[1] == 2.5 + left, "%s double_p: got %f", where, b->d[1]);
    CHECK_EQ(where, b->bytes[5], (char)('A' + left % 26));
    CHECK_EQ(where, b->u16[7], 60000 + left);
    CHECK_EQ(where, b->pd[0], -12345 - left);
    shmem_barrier_all();

    fill(b);
    CHECK_EQ("int_g", shmem_int_g(&b->i[5], right), val(right, 5));
    long double ld = shmem_longdouble_g(&b->ld[6], right);
    CHECK(ld == (long double)val(right, 6) + 0.25L, "%s longdouble_g: got %Lf", where, ld);
    long double ld2 = shmem_ctx_longdouble_g(SHMEM_CTX_DEFAULT, &b->ld[7], right);
    CHECK(ld2 == (long double)val(right, 7) + 0.25L, "%s ctx_longdouble_g: got %Lf", where, ld2);
    double d = shmem_double_g(&b->d[2], right);
    CHECK(d == (double)val(right, 2) + 0.5, "%s double_g: got %f", where, d);
    float f = shmem_ctx_float_g(SHMEM_CTX_DEFAULT, &b->f[3], right);
    CHECK(f == (float)val(right, 3) + 0.75f, "%s float_g: got %f", where, (double)f);
    CHECK_EQ("uint64_g", shmem_uint64_g(&b->u64[9], right), (uint64_t)val(right, 9) << 20);
    CHECK_EQ("ulonglong_g", shmem_ulonglong_g(&b->ull[4], right), (unsigned long long)val(right, 4) * 3);
    shmem_barrier_all();
}

static void test_strided(const char *where, struct bufs *b) {
    /* iput: element k of src (stride 3) -> element k of dest (stride 2), 5 elements. */
    clear(b);
    int src[N];
    long double src_ld[N];
    for (int i = 0; i < N; i++) {
        src[i] = (int)val(me, i);
        src_ld[i] = (long double)val(me, i) + 0.25L;
    }
    shmem_int_iput(b->i, src, 2, 3, 5, right);
    shmem_ctx_longdouble_iput(SHMEM_CTX_DEFAULT, b->ld, src_ld, 3, 1, 4, right);
    shmem_barrier_all();
    for (int k = 0; k < 5; k++)
        CHECK(b->i[2 * k] == (int)val(left, 3 * k), "%s int_iput elem %d: got %d", where, k, b->i[2 * k]);
    for (int k = 0; k < 4; k++) {
        CHECK_EQ("int_iput gap", b->i[2 * k + 1], 0);
        CHECK(b->ld[3 * k] == (long double)val(left, k) + 0.25L, "%s longdouble_iput %d: %Lf", where, k, b->ld[3 * k]);
    }
    shmem_barrier_all();

    /* iget: remote element k (stride 2) -> local element k (stride 3). */
    fill(b);
    short got[N];
    memset(got, 0, sizeof got);
    shmem_short_iget(got, b->s, 3, 2, 5, right);
    for (int k = 0; k < 5; k++) CHECK_EQ("short_iget", got[3 * k], (short)val(right, 2 * k));
    CHECK_EQ("short_iget gap", got[1], 0);
    shmem_barrier_all();
}

static void test_sized_and_mem(const char *where, struct bufs *b) {
    clear(b);
    uint64_t src64[N];
    uint16_t src16[N];
    char text[4 * N];
    for (int i = 0; i < N; i++) {
        src64[i] = ((uint64_t)me << 40) | (uint64_t)i;
        src16[i] = (uint16_t)(me * 100 + i);
    }
    for (int i = 0; i < 4 * N; i++) text[i] = (char)('0' + (me + i) % 10);
    shmem_put64(b->u64, src64, 4, right);               /* u64[0..4) */
    shmem_put128(&b->u64[4], &src64[4], 2, right);       /* u64[4..8) */
    shmem_put32_nbi(&b->u64[8], &src64[8], 4, right);    /* u64[8..10) as 4 x 32 bits */
    shmem_ctx_put8(SHMEM_CTX_DEFAULT, &b->u64[10], &src64[10], 16, right); /* u64[10..12) */
    shmem_iput16(b->u16, src16, 2, 1, 4, right);         /* u16[0,2,4,6] = src16[0..4) */
    shmem_putmem(b->bytes, text, 2 * N, right);
    shmem_putmem_nbi(b->bytes + 2 * N, text + 2 * N, 2 * N, right);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    for (int i = 0; i < 12; i++)
        CHECK(b->u64[i] == (((uint64_t)left << 40) | (uint64_t)i), "%s sized put u64[%d]: %llx", where, i,
              (unsigned long long)b->u64[i]);
    for (int k = 0; k < 4; k++) CHECK_EQ("iput16", b->u16[2 * k], left * 100 + k);
    for (int i = 0; i < 4 * N; i++)
        CHECK(b->bytes[i] == (char)('0' + (left + i) % 10), "%s putmem byte %d: %c", where, i, b->bytes[i]);
    shmem_barrier_all();

    fill(b);
    uint64_t got64[N];
    uint8_t got8[N];
    char gotmem[4 * N];
    memset(got8, 0, sizeof got8);
    shmem_get64(got64, b->u64, 2, right);
    shmem_get128(&got64[2], &b->u64[2], 1, right);
    shmem_get32_nbi(&got64[4], &b->u64[4], 2, right);
    shmem_ctx_get16_nbi(SHMEM_CTX_DEFAULT, &got64[5], &b->u64[5], 4, right);
    shmem_iget8(got8, b->i8, 2, 3, 4, right);           /* got8[0,2,4,6] = i8[0,3,6,9] */
    shmem_iget64(&got64[6], &b->u64[6], 1, 2, 3, right); /* got64[6..9) = u64[6,8,10] */
    shmem_iget32(&got64[9], &b->u64[9], 1, 1, 2, right); /* got64[9] = u64[9] (2 halves) */
    shmem_iget128(&got64[10], &b->u64[10], 1, 1, 1, right);
    shmem_getmem(gotmem, b->bytes, 3 * N, right);
    shmem_getmem_nbi(gotmem + 3 * N, b->bytes + 3 * N, N, right);
    shmem_quiet();
    for (int i = 0; i < 6; i++) CHECK_EQ("sized get", got64[i], (uint64_t)val(right, i) << 20);
    for (int k = 0; k < 3; k++) CHECK_EQ("iget64", got64[6 + k], (uint64_t)val(right, 6 + 2 * k) << 20);
    for (int i = 9; i < 12; i++) CHECK_EQ("iget32/128", got64[i], (uint64_t)val(right, i) << 20);
    for (int k = 0; k < 4; k++) CHECK_EQ("iget8", got8[2 * k], (uint8_t)(right * 7 + 3 * k));
    for (int i = 0; i < 4 * N; i++)
        CHECK(gotmem[i] == (char)('a' + (right + i) % 26), "%s getmem byte %d: %c", where, i, gotmem[i]);
    shmem_barrier_all();
}

static void test_contexts(const char *where, struct bufs *b) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int rc = shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, &ctx);
    CHECK(rc == 0 && ctx != SHMEM_CTX_INVALID, "%s ctx_create: rc %d", where, rc);
    clear(b);
    int src[N];
    for (int i = 0; i < N; i++) src[i] = (int)val(me, i) + 7;
    shmem_ctx_int_put(ctx, b->i, src, N, right);
    shmem_ctx_int_p(ctx, &b->i[0], -me, right);
    shmem_ctx_putmem_nbi(ctx, b->bytes, "context", 8, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK_EQ("ctx_int_p", b->i[0], -left);
    for (int i = 1; i < N; i++) CHECK_EQ("ctx_int_put", b->i[i], val(left, i) + 7);
    CHECK(strcmp(b->bytes, "context") == 0, "%s ctx_putmem_nbi: %s", where, b->bytes);
    fill(b);
    CHECK_EQ("ctx_int_g", shmem_ctx_int_g(ctx, &b->i[2], right), val(right, 2));
    shmem_ctx_destroy(ctx);
    rc = shmem_ctx_create(0, &ctx);
    CHECK(rc == 0, "%s second ctx_create: %d", where, rc);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

static void test_generic(const char *where, struct bufs *b) {
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "%s ctx_create", where);
    clear(b);
    int src[N];
    long double ldsrc[N];
    for (int i = 0; i < N; i++) {
        src[i] = (int)val(me, i);
        ldsrc[i] = (long double)i / 4;
    }
    shmem_put(b->i, src, N, right);
    shmem_put_nbi(ctx, b->ld, ldsrc, N, right);
    shmem_p(&b->d[0], 0.125 * me, right);
    shmem_p(ctx, &b->ld[N - 1], 9.75L, right);
    shmem_iput(b->s, (short *)b->s, 1, 1, 0, right); /* zero elements: nothing moves */
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK_EQ("generic put", b->i[i], val(left, i));
    for (int i = 0; i < N - 1; i++) CHECK(b->ld[i] == (long double)i / 4, "%s generic ctx put_nbi %d", where, i);
    CHECK(b->ld[N - 1] == 9.75L, "%s generic ctx p longdouble: %Lf", where, b->ld[N - 1]);
    CHECK(b->d[0] == 0.125 * left, "%s generic p: %f", where, b->d[0]);
    shmem_barrier_all();

    fill(b);
    int got[N];
    shmem_get(got, b->i, N, right);
    for (int i = 0; i < N; i++) CHECK_EQ("generic get", got[i], val(right, i));
    const int *csrc = b->i;
    CHECK_EQ("generic g const", shmem_g(csrc + 4, right), val(right, 4));
    CHECK_EQ("generic ctx g", shmem_g(ctx, &b->u16[2], right), (uint16_t)val(right, 2));
    long double ld = shmem_g(&b->ld[1], right);
    CHECK(ld == (long double)val(right, 1) + 0.25L, "%s generic g longdouble: %Lf", where, ld);
    short sgot[N];
    shmem_iget(ctx, sgot, b->s, 1, 2, 4, right);
    for (int k = 0; k < 4; k++) CHECK_EQ("generic ctx iget", sgot[k], (short)val(right, 2 * k));
    shmem_get_nbi(ctx, got, b->i, 2, right);
    shmem_ctx_quiet(ctx);
    CHECK_EQ("generic ctx get_nbi", got[1], val(right, 1));
    /* Arrays (not pointers) as arguments. */
    int arr[N];
    shmem_get(arr, g_int, 1, me);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

static void run_all(const char *where, struct bufs *b) {
    test_contiguous(where, b);
    test_scalar(where, b);
    test_strided(where, b);
    test_sized_and_mem(where, b);
    test_contexts(where, b);
    test_generic(where, b);
}

int main(void) {
    static short fs_short[N]; /* a function-static variable is symmetric too */
    start_test();

    struct bufs st = {g_int, g_ld, g_u64, g_bytes, fs_short, s_double, g_float, g_ull, g_i8, g_u16, g_size, g_ptrdiff};
    run_all("static", &st);

    struct bufs hp = {
        shmem_malloc(sizeof(int) * N),
        shmem_malloc(sizeof(long double) * N),
        shmem_malloc(sizeof(uint64_t) * N),
        shmem_malloc(4 * N),
        shmem_malloc(sizeof(short) * N),
        shmem_malloc(sizeof(double) * N),
        shmem_malloc(sizeof(float) * N),
        shmem_malloc(sizeof(unsigned long long) * N),
        shmem_malloc(N),
        shmem_malloc(sizeof(uint16_t) * N),
        shmem_malloc(sizeof(size_t) * N),
        shmem_malloc(sizeof(ptrdiff_t) * N),
    };
    CHECK(hp.i && hp.ld && hp.u64 && hp.bytes && hp.s && hp.d && hp.f && hp.ull && hp.i8 && hp.u16 && hp.sz && hp.pd,
          "shmem_malloc returned NULL");
    run_all("heap", &hp);

    /* Mixed: put from a heap object into a static one and back. */
    hp.i[0] = me;
    shmem_barrier_all();
    shmem_int_get(&g_int[0], hp.i, 1, right);
    CHECK_EQ("heap->static get", g_int[0], right);

    void *all[] = {hp.i, hp.ld, hp.u64, hp.bytes, hp.s, hp.d, hp.f, hp.ull, hp.i8, hp.u16, hp.sz, hp.pd};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) shmem_free(all[k]);
    if (me == 0) printf("rma: ok at %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
