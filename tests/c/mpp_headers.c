// oshrun-test: npes=1,3 expect-exit=0
/* Older OpenSHMEM and SGI SHMEM programs (bale and its conveyor library, for one) include
 * <mpp/shmem.h> and <mpp/shmemx.h>: oshcc finds them with no extra flag, and they declare what
 * <shmem.h> and <shmemx.h> do (a put, a reduction and an extension routine used here). */
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <mpp/pshmem.h>
#include <mpp/pshmemx.h>

#include "testutil.h"

static long cell, total, mine;

int main(void) {
    start_test();
    shmem_long_p(&cell, me + 1, right);
    shmem_barrier_all();
    CHECK_EQ("cell from the left", cell, left + 1);
    mine = cell;
    CHECK_EQ("sum_reduce", pshmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &mine, 1), 0);
    CHECK_EQ("sum", total, (long)npes * (npes + 1) / 2);
    shmem_team_t odd;
    CHECK_EQ("split_color", shmemx_team_split_color(SHMEM_TEAM_WORLD, me % 2, me, NULL, 0, &odd), 0);
    CHECK(odd != SHMEM_TEAM_INVALID, "split_color gave no team");
    CHECK_EQ("team size", shmem_team_n_pes(odd), me % 2 ? npes / 2 : (npes + 1) / 2);
    shmem_team_destroy(odd);
    shmem_finalize();
    return 0;
}
