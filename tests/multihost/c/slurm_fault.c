/* A fault of one PE while the others wait in a barrier, for the Slurm tests: `slurm_fault
 * exit PE` makes PE return 7 from main without shmem_finalize, `slurm_fault kill PE` makes it
 * raise SIGKILL. Before the fault the PE prints "fault: PE p on HOST exits 7 at T ms" (or
 * "raises SIGKILL at T ms"), T the wall-clock time, which the harness compares with the moment
 * the job ended. Nothing ends the job but the library's fault handling (the peer watch) or the
 * launcher: the other PEs would wait in the barrier for ever. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int kill_it = argc > 1 && strcmp(argv[1], "kill") == 0;
    int victim = argc > 2 ? atoi(argv[2]) : n - 1;
    shmem_barrier_all();
    if (me == victim) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        char host[256] = "?";
        gethostname(host, sizeof host);
        printf("fault: PE %d on %s %s at %lld ms\n", me, host, kill_it ? "raises SIGKILL" : "exits 7",
               (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
        fflush(stdout);
        if (kill_it) raise(SIGKILL);
        return 7;
    }
    shmem_barrier_all();
    printf("PE %d passed a barrier that PE %d never reached\n", me, victim);
    shmem_finalize();
    return 0;
}
