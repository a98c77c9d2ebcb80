/* The predefined teams follow the hosts the launcher reports: SHMEM_TEAM_SHARED and
 * SHMEMX_TEAM_NODE hold the PEs of this PE's host (the PEs with the same FSH_EXPECT host in
 * the hostlist, in world order), SHMEMX_TEAM_SAME_MYPE_NODE the PEs with this PE's local rank
 * on every host. The expected layout comes from the harness as FSH_HOSTLIST (h1:2,h2:2,...),
 * with ranks placed host by host (mpirun's default --map-by slot). shmem_ptr is NULL exactly
 * for the PEs of other hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

static int x;

#define FAIL(...)                                                                            \
    do {                                                                                     \
        fprintf(stderr, "PE %d: ", shmem_my_pe());                                           \
        fprintf(stderr, __VA_ARGS__);                                                        \
        fprintf(stderr, "\n");                                                               \
        shmem_global_exit(1);                                                                \
    } while (0)

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const char *list = getenv("FSH_HOSTLIST");
    if (!list) FAIL("FSH_HOSTLIST is not set");
    int host_of[1024], local_rank[1024], count = 0, hosts = 0;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *colon = strchr(tok, ':');
        int k = colon ? atoi(colon + 1) : 1;
        for (int i = 0; i < k && count < 1024; i++) {
            host_of[count] = hosts;
            local_rank[count] = i;
            count++;
        }
        hosts++;
    }
    if (count != n) FAIL("the hostlist has %d slots, the job %d PEs", count, n);
    int want_shared = 0, want_same = 0;
    for (int pe = 0; pe < n; pe++) {
        want_shared += host_of[pe] == host_of[me];
        want_same += local_rank[pe] == local_rank[me];
    }
    shmem_team_t teams[3] = {SHMEM_TEAM_SHARED, SHMEMX_TEAM_NODE, SHMEMX_TEAM_SAME_MYPE_NODE};
    const char *names[3] = {"SHMEM_TEAM_SHARED", "SHMEMX_TEAM_NODE", "SHMEMX_TEAM_SAME_MYPE_NODE"};
    for (int t = 0; t < 3; t++) {
        int same = t == 2;
        int want_n = same ? want_same : want_shared;
        if (shmem_team_n_pes(teams[t]) != want_n) FAIL("%s has %d PEs, want %d", names[t], shmem_team_n_pes(teams[t]), want_n);
        int i = 0;
        for (int pe = 0; pe < n; pe++) {
            int member = same ? local_rank[pe] == local_rank[me] : host_of[pe] == host_of[me];
            int got = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, teams[t]);
            if (got != (member ? i : -1)) FAIL("%s: world PE %d translates to %d, want %d", names[t], pe, got, member ? i : -1);
            if (member && shmem_team_translate_pe(teams[t], i, SHMEM_TEAM_WORLD) != pe)
                FAIL("%s: team PE %d does not translate back to world PE %d", names[t], i, pe);
            i += member;
        }
        if (shmem_team_sync(teams[t]) != 0) FAIL("shmem_team_sync(%s) failed", names[t]);
    }
    for (int pe = 0; pe < n; pe++) {
        int local = host_of[pe] == host_of[me];
        if ((shmem_ptr(&x, pe) != NULL) != local) FAIL("shmem_ptr(&x, %d) is %p", pe, shmem_ptr(&x, pe));
        if (!shmem_addr_accessible(&x, pe)) FAIL("shmem_addr_accessible(&x, %d) is false", pe);
    }
    shmem_barrier_all();
    if (me == 0) printf("hosts: %d PEs on %d hosts as the hostlist says\n", n, hosts);
    shmem_finalize();
    return 0;
}
