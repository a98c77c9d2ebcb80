// oshrun-test: npes=1,2,4 expect-exit=0
/* The pre-1.4 AMO names (shmem_TYPE_fadd, _finc, _add, _inc, _cswap, _swap, _fetch, _set), the
 * C11 generic ones (shmem_fadd, ...) and their profiling names (pshmem_...) do what the _atomic_
 * routines do, on several types, with every PE working on PE 0's words and each PE's
 * neighbour. Built with -Werror: without SHMEMX_WARN_DEPRECATED these names warn about nothing. */
#include <pshmem.h>

#include "testutil.h"

static int ic;
static long lc;
static long long llc;
static unsigned int uic;
static int64_t i64c;
static uint64_t u64c;
static size_t szc;
static ptrdiff_t pdc;
static double dv;
static float fv;
static long lv;
static int64_t cs;

int main(void) {
    start_test();

    /* fadd / finc / add / inc on PE 0: every PE adds 1 + 2 + me and increments twice. */
    (void)shmem_int_fadd(&ic, 1, 0);
    (void)shmem_long_finc(&lc, 0);
    shmem_longlong_add(&llc, 5, 0);
    shmem_uint_inc(&uic, 0);
    (void)shmem_int64_fadd(&i64c, (int64_t)me, 0);
    (void)shmem_uint64_finc(&u64c, 0);
    shmem_size_add(&szc, 2, 0);
    shmem_ptrdiff_inc(&pdc, 0);
    (void)shmem_fadd(&ic, 2, 0);       /* C11 generic: int */
    shmem_inc(&lc, 0);                 /* C11 generic: long */
    (void)shmem_finc(&llc, 0);         /* C11 generic: long long */
    shmem_add(&uic, 3u, 0);            /* C11 generic: unsigned int */
    (void)pshmem_int_fadd(&ic, 4, 0);  /* profiling name */
    pshmem_long_inc(&lc, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ("int fadd", ic, 7 * npes);
        CHECK_EQ("long finc/inc", lc, 3 * npes);
        CHECK_EQ("longlong add/finc", llc, 6 * npes);
        CHECK_EQ("uint inc/add", uic, 4 * npes);
        CHECK_EQ("int64 fadd", i64c, npes * (npes - 1) / 2);
        CHECK_EQ("uint64 finc", u64c, npes);
        CHECK_EQ("size add", szc, 2 * npes);
        CHECK_EQ("ptrdiff inc", pdc, npes);
    }
    /* The fetching forms return the value before: finc from PE 0's fresh counter, in turn. */
    for (int turn = 0; turn < npes; turn++) {
        if (turn == me) CHECK_EQ("finc returns the old value", shmem_long_finc(&lc, 0), 3 * npes + turn);
        shmem_barrier_all();
    }

    /* cswap: every PE tries 0 -> me+1 on PE 0; exactly one wins, the others see its value. */
    int64_t old = shmem_int64_cswap(&cs, 0, me + 1, 0);
    shmem_barrier_all();
    int64_t winner = shmem_int64_fetch(&cs, 0);
    CHECK(winner >= 1 && winner <= npes, "cswap left %lld", (long long)winner);
    if (old == 0)
        CHECK_EQ("the winner stored its value", winner, me + 1);
    else
        CHECK_EQ("a loser saw the winner's value", old, winner);
    CHECK_EQ("generic cswap that fails returns the current value", shmem_cswap(&cs, (int64_t)-5, (int64_t)9, 0),
             winner);
    shmem_barrier_all();

    /* set / swap / fetch on the right neighbour, typed, generic and profiling forms. */
    shmem_double_set(&dv, 1.5 + me, right);
    shmem_set(&fv, 2.5f + (float)me, right);
    pshmem_long_set(&lv, 100 + me, right);
    shmem_barrier_all();
    CHECK(dv == 1.5 + left, "double set: %g", dv);
    CHECK(fv == 2.5f + (float)left, "float set: %g", (double)fv);
    CHECK_EQ("long set (pshmem)", lv, 100 + left);
    shmem_barrier_all();
    double was = shmem_double_swap(&dv, -1.0, right);
    CHECK(was == 1.5 + me, "double swap returned %g", was);
    float fwas = shmem_swap(&fv, -2.0f, right);
    CHECK(fwas == 2.5f + (float)me, "generic float swap returned %g", (double)fwas);
    CHECK_EQ("long swap (pshmem)", pshmem_long_swap(&lv, 7, right), 100 + me);
    shmem_barrier_all();
    CHECK(shmem_double_fetch(&dv, left) == -1.0, "double fetch");
    CHECK(shmem_fetch(&fv, left) == -2.0f, "generic float fetch");
    const long *clv = &lv;
    CHECK_EQ("generic fetch through a const pointer", shmem_fetch(clv, left), 7);
    CHECK_EQ("long fetch (pshmem)", pshmem_long_fetch(&lv, me), 7);
    CHECK_EQ("int fetch", shmem_int_fetch(&ic, 0), 7 * npes);

    shmem_finalize();
    return 0;
}
