// oshrun-test: npes=1,2,3 expect-exit=0
/* C++: the complex reductions take C's complex types too (float _Complex, double _Complex,
 * spelled __complex__ by GNU C++), as programs written for other OpenSHMEM libraries pass them:
 * the team forms and the deprecated _to_all forms, each of sum and prod, compute the same
 * results as the std::complex forms. headers.rs also compiles this file with -Wall -Werror
 * as C++11 and C++20. */
#include <shmem.h>

#include "../c/testutil.h"

__extension__ typedef float _Complex cfloat;
__extension__ typedef double _Complex cdouble;

static cfloat fsrc[4], fdst[4], fwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 4];
static cdouble dsrc[4], ddst[4], dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 4];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

static cfloat cf(float re, float im) {
    cfloat z;
    __real__ z = re;
    __imag__ z = im;
    return z;
}

static cdouble cd(double re, double im) {
    cdouble z;
    __real__ z = re;
    __imag__ z = im;
    return z;
}

int main() {
    start_test();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < 4; i++) {
        fsrc[i] = cf((float)(me + i), 1.0f);
        dsrc[i] = cd(0.0, 1.0); /* i: the product over n PEs is i^n */
    }
    /* i^n: 1, i, -1, -i for n = 0, 1, 2, 3 (mod 4). */
    const double want_re[4] = {1, 0, -1, 0}, want_im[4] = {0, 1, 0, -1};
    double pre = want_re[npes % 4], pim = want_im[npes % 4];
    shmem_barrier_all();

    CHECK_EQ("complexf sum", shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 4), 0);
    for (int i = 0; i < 4; i++) {
        float re = (float)(npes * (npes - 1) / 2 + npes * i);
        CHECK(__real__ fdst[i] == re && __imag__ fdst[i] == (float)npes, "complexf sum [%d] = (%g, %g)", i,
              (double)__real__ fdst[i], (double)__imag__ fdst[i]);
    }
    CHECK_EQ("complexf prod", shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 1), 0);
    cfloat fwant = cf(1.0f, 0.0f);
    for (int p = 0; p < npes; p++) fwant *= cf((float)p, 1.0f);
    CHECK(__real__ fdst[0] == __real__ fwant && __imag__ fdst[0] == __imag__ fwant, "complexf prod = (%g, %g)",
          (double)__real__ fdst[0], (double)__imag__ fdst[0]);
    CHECK_EQ("complexd sum", shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 4), 0);
    for (int i = 0; i < 4; i++)
        CHECK(__real__ ddst[i] == 0.0 && __imag__ ddst[i] == (double)npes, "complexd sum [%d]", i);
    CHECK_EQ("complexd prod", shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 4), 0);
    for (int i = 0; i < 4; i++)
        CHECK(__real__ ddst[i] == pre && __imag__ ddst[i] == pim, "complexd prod [%d] = (%g, %g)", i,
              __real__ ddst[i], __imag__ ddst[i]);

    /* The deprecated active-set forms over every PE. */
    shmem_complexd_sum_to_all(ddst, dsrc, 4, 0, 0, npes, dwrk, psync);
    for (int i = 0; i < 4; i++)
        CHECK(__real__ ddst[i] == 0.0 && __imag__ ddst[i] == (double)npes, "complexd sum_to_all [%d]", i);
    shmem_barrier_all();
    shmem_complexd_prod_to_all(ddst, dsrc, 4, 0, 0, npes, dwrk, psync);
    CHECK(__real__ ddst[3] == pre && __imag__ ddst[3] == pim, "complexd prod_to_all");
    shmem_barrier_all();
    shmem_complexf_sum_to_all(fdst, fsrc, 4, 0, 0, npes, fwrk, psync);
    CHECK(__real__ fdst[0] == (float)(npes * (npes - 1) / 2) && __imag__ fdst[0] == (float)npes,
          "complexf sum_to_all");
    shmem_barrier_all();
    shmem_complexf_prod_to_all(fdst, fsrc, 1, 0, 0, npes, fwrk, psync);
    CHECK(__real__ fdst[0] == __real__ fwant && __imag__ fdst[0] == __imag__ fwant, "complexf prod_to_all");
    shmem_finalize();
    return 0;
}
