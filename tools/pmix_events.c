/* Does the launcher tell the other processes of a job that one of them ended? A plain PMIx
 * program (no ferroshmem): every rank registers a default event handler (all codes), rank
 * VICTIM then ends the way ACTION says after a second, and the others wait 15 s, printing
 * every event they are given. Run by hand (issue 29, docs/ARCHITECTURE.md "Lost hosts"):
 *
 *   cc -O2 tools/pmix_events.c -o /tmp/pmix_events $(pkg-config --cflags --libs pmix)
 *   tests/multihost/with-hosts.sh 2:2,1 -- sh -c 'mpirun $FSH_MPIRUN_ARGS -np 3 /tmp/pmix_events kill 2'
 *   tests/multihost/with-slurm.sh 2:2,1 -- srun --mpi=pmix -N 2 -n 3 /tmp/pmix_events exit 2
 *
 * ACTION: kill (SIGKILL), exit (status 7 without finalizing), abort (PMIx_Abort, status 3).
 * An event prints "rank R: event NAME (CODE) from NSPACE:RANK". */
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;
static double start;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t done, void *cbdata) {
    (void)id, (void)info, (void)results, (void)nresults;
    fprintf(stderr, "rank %u: event %s (%d) from %s:%u, %zu infos, at %.3f s\n", me.rank,
            PMIx_Error_string(status), status, source ? source->nspace : "?", source ? source->rank : 0,
            ninfo, now() - start);
    if (done) done(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void registered(pmix_status_t status, size_t id, void *cbdata) {
    (void)id, (void)cbdata;
    fprintf(stderr, "rank %u: handler registered (%s)\n", me.rank, PMIx_Error_string(status));
}

int main(int argc, char **argv) {
    start = now();
    if (argc != 3) {
        fprintf(stderr, "usage: %s kill|exit|abort VICTIM\n", argv[0]);
        return 2;
    }
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    PMIx_Register_event_handler(NULL, 0, NULL, 0, on_event, registered, NULL);
    pmix_proc_t all;
    PMIX_PROC_CONSTRUCT(&all);
    snprintf(all.nspace, sizeof all.nspace, "%s", me.nspace);
    all.rank = PMIX_RANK_WILDCARD;
    PMIx_Fence(&all, 1, NULL, 0);
    if (me.rank == (unsigned)atoi(argv[2])) {
        sleep(1);
        fprintf(stderr, "rank %u: %s at %.3f s\n", me.rank, argv[1], now() - start);
        if (strcmp(argv[1], "kill") == 0) raise(SIGKILL);
        if (strcmp(argv[1], "abort") == 0) PMIx_Abort(3, "pmix_events: abort", NULL, 0);
        exit(7);
    }
    sleep(15);
    fprintf(stderr, "rank %u: no event ended the wait\n", me.rank);
    PMIx_Finalize(NULL, 0);
    return 0;
}
