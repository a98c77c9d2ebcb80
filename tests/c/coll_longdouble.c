// oshrun-test: npes=1,2,3,5,8,12 expect-exit=0 timeout=240
/* long double reductions (max, min, sum, prod) against a serial model computed in long double
 * on every PE: the team form (shmem_longdouble_OP_reduce) and its C11 generic form over
 * SHMEM_TEAM_WORLD and the reversed world (negative stride), and the deprecated
 * shmem_longdouble_OP_to_all over active sets, at 1, 6 (the largest small payload), 7, 4096 and
 * 131072 elements (the split large-payload path), out of place and in place (dest == source).
 * Every value is 1 plus a few units of 2^-60 (some negated): double would round those units
 * away, so the results must keep them, which only 80-bit arithmetic does. */
#include <math.h>
#include <stdlib.h>

#include "testutil.h"

#define MAXN 131072
#define EPS 0x1p-60L
#define SENTINEL (-7.0L)

enum { MAX, MIN, SUM, PROD, NOPS };
static const char *const op_names[NOPS] = {"max", "min", "sum", "prod"};

static long double *src, *dst, *pwrk; /* symmetric: MAXN + 1, MAXN + 1, MAXN / 2 + 1 elements */
static long double *model;            /* local: the expected result */
static long psync[SHMEM_REDUCE_SYNC_SIZE];

/* Member w's element k for `op`: +-(1 + u * 2^-60) with u in 1..7 (positive for sums, so that
 * a sum of s members exceeds s). */
static long double val(int op, int w, size_t k) {
    long double x = 1.0L + (long double)((w * 5 + (int)(k % 11)) % 7 + 1) * EPS;
    switch (op) {
    case MAX:
    case MIN: return k % 3 == 2 ? -x : x;
    case SUM: return x;
    default: return k % 4 == 3 && w % 2 == 0 ? -x : x;
    }
}

/* C semantics, in the argument order the library folds (accumulator first, members in order). */
static long double apply(int op, long double a, long double b) {
    switch (op) {
    case MAX: return b > a ? b : a;
    case MIN: return b < a ? b : a;
    case SUM: return a + b;
    default: return a * b;
    }
}

/* model[k] = op over the members (world PEs members[0..s)) in member order. */
static void compute_model(int op, const int *members, int s, size_t n) {
    for (size_t k = 0; k < n; k++) {
        long double acc = val(op, members[0], k);
        for (int j = 1; j < s; j++) acc = apply(op, acc, val(op, members[j], k));
        model[k] = acc;
    }
}

static void fill(int op, size_t n, int in_place) {
    for (size_t k = 0; k < n; k++) src[k] = val(op, me, k);
    src[n] = SENTINEL;
    if (!in_place)
        for (size_t k = 0; k <= n; k++) dst[k] = SENTINEL;
}

/* Checks the result (in dst, or in src in place) against the model and the 80-bit bound. */
static void verify(const char *form, const char *group, int op, size_t n, int s, int in_place) {
    const long double *out = in_place ? src : dst;
    for (size_t k = 0; k < n; k++) {
        CHECK(out[k] == model[k], "%s %s %s n=%zu%s k=%zu: got %.21Lg, want %.21Lg", form, group, op_names[op], n,
              in_place ? " in place" : "", k, out[k], model[k]);
        if (op == SUM)
            CHECK(out[k] > (long double)s, "%s %s sum n=%zu k=%zu: %.21Lg lost the 2^-60 terms", form, group, n, k,
                  out[k]);
        else
            CHECK(fabsl(out[k]) > 1.0L, "%s %s %s n=%zu k=%zu: %.21Lg lost the 2^-60 terms", form, group,
                  op_names[op], n, k, out[k]);
    }
    CHECK(out[n] == SENTINEL, "%s %s %s n=%zu: wrote past nreduce", form, group, op_names[op], n);
}

static int team_form(int op, shmem_team_t t, long double *d, const long double *s, size_t n) {
    switch (op) {
    case MAX: return shmem_longdouble_max_reduce(t, d, s, n);
    case MIN: return shmem_longdouble_min_reduce(t, d, s, n);
    case SUM: return shmem_longdouble_sum_reduce(t, d, s, n);
    default: return shmem_longdouble_prod_reduce(t, d, s, n);
    }
}

static int generic_form(int op, shmem_team_t t, long double *d, const long double *s, size_t n) {
    switch (op) {
    case MAX: return shmem_max_reduce(t, d, s, n);
    case MIN: return shmem_min_reduce(t, d, s, n);
    case SUM: return shmem_sum_reduce(t, d, s, n);
    default: return shmem_prod_reduce(t, d, s, n);
    }
}

static void to_all_form(int op, long double *d, const long double *s, int n, int start, int logs, int size) {
    switch (op) {
    case MAX: shmem_longdouble_max_to_all(d, s, n, start, logs, size, pwrk, psync); break;
    case MIN: shmem_longdouble_min_to_all(d, s, n, start, logs, size, pwrk, psync); break;
    case SUM: shmem_longdouble_sum_to_all(d, s, n, start, logs, size, pwrk, psync); break;
    default: shmem_longdouble_prod_to_all(d, s, n, start, logs, size, pwrk, psync); break;
    }
}

static const size_t sizes[] = {1, 6, 7, 4096, MAXN};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void run_team(shmem_team_t t, const char *group) {
    int s = shmem_team_n_pes(t);
    int *members = malloc((size_t)s * sizeof *members);
    CHECK(members != NULL, "malloc");
    for (int j = 0; j < s; j++) members[j] = shmem_team_translate_pe(t, j, SHMEM_TEAM_WORLD);
    for (size_t b = 0; b < NSIZES; b++) {
        size_t n = sizes[b];
        for (int op = 0; op < NOPS; op++) {
            compute_model(op, members, s, n);
            fill(op, n, 0);
            CHECK_EQ("team form rc", team_form(op, t, dst, src, n), 0);
            verify("shmem_longdouble_OP_reduce", group, op, n, s, 0);
            fill(op, n, 0);
            CHECK_EQ("generic form rc", generic_form(op, t, dst, src, n), 0);
            verify("shmem_OP_reduce", group, op, n, s, 0);
            fill(op, n, 1);
            CHECK_EQ("in-place rc", team_form(op, t, src, src, n), 0);
            verify("shmem_longdouble_OP_reduce", group, op, n, s, 1);
        }
    }
    free(members);
}

static void run_set(int start, int logs, int size, const char *group) {
    int stride = 1 << logs;
    if (me < start || (me - start) % stride != 0 || (me - start) / stride >= size) return;
    int *members = malloc((size_t)size * sizeof *members);
    CHECK(members != NULL, "malloc");
    for (int j = 0; j < size; j++) members[j] = start + j * stride;
    for (size_t b = 0; b < NSIZES; b++) {
        size_t n = sizes[b];
        for (int op = 0; op < NOPS; op++) {
            compute_model(op, members, size, n);
            fill(op, n, 0);
            to_all_form(op, dst, src, (int)n, start, logs, size);
            verify("shmem_longdouble_OP_to_all", group, op, n, size, 0);
            fill(op, n, 1);
            to_all_form(op, src, src, (int)n, start, logs, size);
            verify("shmem_longdouble_OP_to_all", group, op, n, size, 1);
        }
    }
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++) CHECK_EQ("pSync restored", psync[k], SHMEM_SYNC_VALUE);
    free(members);
}

int main(void) {
    start_test();
    src = shmem_malloc((MAXN + 1) * sizeof(long double));
    dst = shmem_malloc((MAXN + 1) * sizeof(long double));
    size_t nwrk = MAXN / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? MAXN / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    pwrk = shmem_malloc(nwrk * sizeof(long double));
    model = malloc(MAXN * sizeof(long double));
    CHECK(src && dst && pwrk && model, "allocation");
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++) psync[k] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    run_team(SHMEM_TEAM_WORLD, "world");
    shmem_team_t reversed = SHMEM_TEAM_INVALID;
    CHECK_EQ("split reversed", shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed),
             0);
    CHECK_EQ("reversed my_pe", shmem_team_my_pe(reversed), npes - 1 - me);
    run_team(reversed, "reversed");
    shmem_team_destroy(reversed);
    shmem_barrier_all();

    run_set(0, 0, npes, "set (0, 0, npes)");
    shmem_barrier_all();
    run_set(0, 1, (npes + 1) / 2, "set evens");
    shmem_barrier_all();
    if (npes >= 3) run_set(1, 0, npes - 1, "set all but PE 0");
    shmem_barrier_all();

    free(model);
    shmem_free(pwrk);
    shmem_free(dst);
    shmem_free(src);
    if (me == 0) printf("ok\n");
    shmem_finalize();
    return 0;
}
