/* shmem_barrier_all in a loop for BL_SECS seconds (default 3), then PE 0 prints
 * "bar_loop NPES US" (microseconds per barrier). Every PE stops after the same batch of 100:
 * a max reduction of "my time is up" decides. Used across many simulated hosts, where
 * coll_bench's short batches are too few to see the machine's steady state, e.g. (root):
 *
 *   target/release/oshcc -O2 bench/c/barrier_loop.c -o /tmp/barrier_loop
 *   FSH_HOST_CPUS=split tests/multihost/with-hosts.sh 64:$(python3 -c "print(','.join(['1']*64))") -- \
 *     bash -c 'OSHRUN_MPIRUN_ARGS="$(echo " $FSH_MPIRUN_ARGS" | sed "s| --host [^ ]*||")" \
 *       UCX_TLS=tcp,self UCX_NET_DEVICES=eth0 target/release/oshrun -n 64 --host $FSH_HOSTLIST /tmp/barrier_loop'
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int stop, all_stop;

int main(void) {
    shmem_init();
    const char *secs_text = getenv("BL_SECS");
    double secs = secs_text ? atof(secs_text) : 3.0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    long n = 0;
    for (;;) {
        for (int i = 0; i < 100; i++) shmem_barrier_all();
        n += 100;
        clock_gettime(CLOCK_MONOTONIC, &b);
        double t = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
        stop = t > secs;
        shmem_int_max_reduce(SHMEM_TEAM_WORLD, &all_stop, &stop, 1);
        if (all_stop) {
            if (shmem_my_pe() == 0) printf("bar_loop %d %.3f us\n", shmem_n_pes(), t / n * 1e6);
            break;
        }
    }
    shmem_finalize();
    return 0;
}
