/* Helpers of the team tests (on top of testutil.h). */
#ifndef FERROSHMEM_TEAM_UTIL_H
#define FERROSHMEM_TEAM_UTIL_H

#include "testutil.h"

/* Return codes of every PE, gathered on PE 0 (at most 64 PEs). */
static int team_util_codes[64];

/* Checks that every PE of the world got the same `rc` from a collective (PE 0 compares). */
static inline void check_same_everywhere(const char *what, int rc) {
    shmem_int_p(&team_util_codes[me], rc, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            CHECK(team_util_codes[pe] == team_util_codes[0], "%s: PE %d got %d, PE 0 got %d", what, pe,
                  team_util_codes[pe], team_util_codes[0]);
    shmem_barrier_all();
}

#endif
