// oshrun-test: npes=1,2,3 expect-exit=0
/* C++: the complex reductions (team forms and the deprecated _to_all forms) take
 * std::complex<float> / std::complex<double>, and compute the C routines' results. */
#include <shmem.h>

#include <complex>

#include "../c/testutil.h"

static std::complex<float> fsrc[4], fdst[4];
static std::complex<double> dsrc[4], ddst[4], dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 4];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

int main() {
    start_test();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < 4; i++) {
        fsrc[i] = std::complex<float>((float)(me + i), 1.0f);
        dsrc[i] = std::complex<double>(0.0, 1.0); /* i: the product over n PEs is i^n */
    }
    shmem_barrier_all();
    CHECK_EQ("complexf sum", shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 4), 0);
    for (int i = 0; i < 4; i++) {
        float re = (float)(npes * (npes - 1) / 2 + npes * i);
        CHECK(fdst[i] == std::complex<float>(re, (float)npes), "complexf sum [%d] = (%g, %g)", i,
              (double)fdst[i].real(), (double)fdst[i].imag());
    }
    CHECK_EQ("complexd prod", shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 4), 0);
    std::complex<double> want(1.0, 0.0);
    for (int n = 0; n < npes; n++) want *= std::complex<double>(0.0, 1.0);
    for (int i = 0; i < 4; i++)
        CHECK(std::abs(ddst[i] - want) < 1e-12, "complexd prod [%d] = (%g, %g)", i, ddst[i].real(), ddst[i].imag());

    CHECK_EQ("complexf prod", shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 1), 0);
    shmem_complexd_sum_to_all(ddst, dsrc, 4, 0, 0, npes, dwrk, psync);
    for (int i = 0; i < 4; i++)
        CHECK(ddst[i] == std::complex<double>(0.0, (double)npes), "complexd sum_to_all [%d]", i);
    shmem_barrier_all();
    shmem_complexf_sum_to_all(fdst, fsrc, 4, 0, 0, npes, reinterpret_cast<std::complex<float> *>(dwrk), psync);
    CHECK(fdst[0] == std::complex<float>((float)(npes * (npes - 1) / 2), (float)npes), "complexf sum_to_all");
    shmem_barrier_all();
    shmem_complexd_prod_to_all(ddst, dsrc, 4, 0, 0, npes, dwrk, psync);
    CHECK(std::abs(ddst[3] - want) < 1e-12, "complexd prod_to_all");
    shmem_finalize();
    return 0;
}
