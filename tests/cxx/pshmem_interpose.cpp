// oshrun-test: npes=2 expect-exit=0
/* C++: a tool written in C++ defines shmem_putmem (with C linkage, as pshmem.h declares it),
 * counts the program's calls and forwards them to pshmem_putmem; the library's own puts and
 * collectives bypass it and still work. */
#include <pshmemx.h>

#include <atomic>

#include "../c/testutil.h"

static std::atomic<long> putmem_calls{0};

extern "C" void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
    putmem_calls++;
    pshmem_putmem(dest, source, nelems, pe);
}

static char buf[32], out[32];

int main() {
    start_test();
    static char mine[32]; /* symmetric: the fcollect source */
    memset(mine, 'A' + me, sizeof mine);
    shmem_putmem(buf, mine, 16, right);
    shmem_char_put(buf + 16, mine, 16, right);
    shmem_barrier_all();
    CHECK_EQ("counted", putmem_calls.load(), 1);
    for (int i = 0; i < 32; i++) CHECK(buf[i] == 'A' + left, "byte %d", i);
    CHECK_EQ("fcollectmem", shmem_fcollectmem(SHMEM_TEAM_WORLD, out, mine, 16), 0);
    for (int pe = 0; pe < npes; pe++) CHECK(out[16 * pe] == 'A' + pe, "block %d", pe);
    CHECK_EQ("still counted once", putmem_calls.load(), 1);
    CHECK(pshmemx_pcontrol_level() == shmemx_pcontrol_level(), "pshmemx_ names reach the library");
    shmem_finalize();
    return 0;
}
