// oshrun-test: npes=1,2,4 expect-exit=0
/* C++: the pre-1.4 AMO names (shmem_TYPE_fadd, _finc, _add, _inc, _cswap, _swap, _fetch, _set)
 * and their profiling names are declared for C++ and do what the _atomic_ routines do. */
#include <pshmem.h>

#include "../c/testutil.h"

static int ic;
static long lc;
static unsigned long long ullc;
static int32_t i32c;
static double dv;
static long cs;

int main() {
    start_test();
    (void)shmem_int_fadd(&ic, 2, 0);
    shmem_int_inc(&ic, 0);
    (void)pshmem_long_finc(&lc, 0);
    shmem_long_add(&lc, 10, 0);
    shmem_ulonglong_inc(&ullc, 0);
    (void)shmem_int32_fadd(&i32c, me, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ("int fadd/inc", ic, 3 * npes);
        CHECK_EQ("long finc/add", lc, 11 * npes);
        CHECK_EQ("ulonglong inc", ullc, npes);
        CHECK_EQ("int32 fadd", i32c, npes * (npes - 1) / 2);
    }
    long old = shmem_long_cswap(&cs, 0, me + 1, 0);
    shmem_barrier_all();
    long winner = shmem_long_fetch(&cs, 0);
    if (old == 0)
        CHECK_EQ("cswap winner", winner, me + 1);
    else
        CHECK_EQ("cswap loser", old, winner);
    shmem_double_set(&dv, 0.5 + me, right);
    shmem_barrier_all();
    CHECK(dv == 0.5 + left, "double set: %g", dv);
    shmem_barrier_all();
    CHECK(pshmem_double_swap(&dv, 8.0, right) == 0.5 + me, "double swap");
    shmem_barrier_all();
    CHECK(shmem_double_fetch(&dv, me) == 8.0, "double fetch");
    shmem_finalize();
    return 0;
}
