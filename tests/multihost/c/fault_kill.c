/* A PE on the last host is killed by a signal while the others wait in a barrier: the job
 * must end promptly with a non-zero status and a report naming the PE, its host and the
 * signal. */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    if (me == n - 1) {
        /* The harness compares this wall-clock time with the moment the job ended. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        char host[256] = "?";
        gethostname(host, sizeof host);
        printf("fault: PE %d on %s raises SIGKILL at %lld ms\n", me, host,
               (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
        fflush(stdout);
        raise(SIGKILL);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
