// oshrun-test: npes=2,3 expect-exit=255 max-ms=5000 expect-stderr=shmem_ctx_long_p: invalid argument pe: PE 1 is not a PE of the context's team
/* On a team context PE numbers are team-relative: a number outside the team (here PE 1 of
 * SHMEMX_TEAM_SAME_MYPE_NODE, which has one PE) ends the job with a message naming the routine
 * and the team, even though world PE 1 exists. */
#include <shmemx.h>

long x;

int main(void) {
    shmem_init();
    shmem_ctx_t c;
    shmem_team_create_ctx(SHMEMX_TEAM_SAME_MYPE_NODE, 0, &c);
    shmem_ctx_long_p(c, &x, 1, 1);
    shmem_finalize();
    return 0;
}
