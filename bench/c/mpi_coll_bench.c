/* MPI collective latency benchmark, the MPI counterpart of coll_bench.c: MPI_Barrier,
 * MPI_Bcast, MPI_Allreduce (float sum), MPI_Allgather and MPI_Alltoall. Build with mpicc.
 *
 * Same methodology as coll_bench.c: each figure is the median over BATCHES batches of the time
 * per operation in a batch of REPS back-to-back operations (REPS as in coll_bench.c: the reps
 * argument when > 0, else 2000 (200 above 4 KiB) at 2 ranks and 200 (40) at more),
 * measured on rank 0 from an MPI_Barrier to the MPI_Barrier that follows the batch, after a
 * warm-up of REPS / 4 + 1 operations.
 *
 * Output, one line per figure, with coll_bench.c's names and its meaning of <bytes>, so that
 * rows of the two programs match:
 *   coll <name> <bytes> <npes> <median microseconds>
 *   barrier_all, team_sync  MPI_Barrier (one measurement, printed under both names), bytes 0
 *   broadcast               MPI_Bcast of <bytes> bytes from rank 0
 *   reduce_sum_float        MPI_Allreduce of <bytes> / 4 floats, MPI_SUM (separate buffers)
 *   fcollect                MPI_Allgather of <bytes> bytes from every rank
 *   alltoall                MPI_Alltoall of <bytes> bytes to every destination
 * Usage: mpi_coll_bench [reps [size...]]   (reps 0 = default; sizes default 8 512 4096 65536,
 * multiples of 8) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_time.h"

#define BATCHES 15

static int me, npes;
static char *src, *dst;
static int fixed_reps;


static void op_barrier(size_t n) {
    (void)n;
    MPI_Barrier(MPI_COMM_WORLD);
}

static void op_broadcast(size_t n) { MPI_Bcast(dst, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD); }

static void op_reduce(size_t n) {
    MPI_Allreduce(src, dst, (int)(n / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void op_fcollect(size_t n) { MPI_Allgather(src, (int)n, MPI_BYTE, dst, (int)n, MPI_BYTE, MPI_COMM_WORLD); }

/* n bytes per destination rank. */
static void op_alltoall(size_t n) { MPI_Alltoall(src, (int)n, MPI_BYTE, dst, (int)n, MPI_BYTE, MPI_COMM_WORLD); }

/* Times op on bytes and prints it under each of the names (NULL-terminated). */
static void bench(const char *const *names, void (*op)(size_t), size_t bytes) {
    int reps = fixed_reps > 0 ? fixed_reps : bytes <= 4096 ? (npes > 2 ? 200 : 2000) : (npes > 2 ? 40 : 200);
    double t[BATCHES];
    for (int i = 0; i < reps / 4 + 1; i++) op(bytes); /* warm up */
    for (int b = 0; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_us();
        for (int i = 0; i < reps; i++) op(bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        t[b] = (now_us() - t0) / reps;
    }
    double med = median(t, BATCHES);
    if (me == 0)
        for (; *names; names++) printf("coll %s %zu %d %.3f\n", *names, bytes, npes, med);
    fflush(stdout);
}

int main(int argc, char **argv) {
    static const size_t default_sizes[] = {8, 512, 4096, 65536};
    size_t sizes[32], nsizes = 0, max_bytes = 8;
    double t_init = now_us();
    MPI_Init(&argc, &argv);
    t_init = now_us() - t_init;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    /* The slowest rank's MPI_Init ("init"). */
    double slowest = 0;
    MPI_Reduce(&t_init, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) printf("coll init 0 %d %.3f\n", npes, slowest);
    fixed_reps = argc > 1 ? atoi(argv[1]) : 0;
    for (int i = 2; i < argc && nsizes < 32; i++) sizes[nsizes++] = (size_t)atol(argv[i]);
    if (nsizes == 0)
        for (; nsizes < sizeof default_sizes / sizeof default_sizes[0]; nsizes++) sizes[nsizes] = default_sizes[nsizes];
    for (size_t i = 0; i < nsizes; i++) {
        if (sizes[i] < 8 || sizes[i] % 8) {
            if (me == 0) fprintf(stderr, "mpi_coll_bench: sizes must be multiples of 8\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (sizes[i] > max_bytes) max_bytes = sizes[i];
    }
    src = malloc(max_bytes * (size_t)npes);
    dst = malloc(max_bytes * (size_t)npes);
    if (!src || !dst) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(src, me, max_bytes * (size_t)npes);
    memset(dst, 0, max_bytes * (size_t)npes);
    MPI_Barrier(MPI_COMM_WORLD);
    static const char *const barrier_names[] = {"barrier_all", "team_sync", NULL};
    static const char *const bcast[] = {"broadcast", NULL}, *const reduce[] = {"reduce_sum_float", NULL},
                             *const fcollect[] = {"fcollect", NULL}, *const alltoall[] = {"alltoall", NULL};
    bench(barrier_names, op_barrier, 0);
    for (size_t i = 0; i < nsizes; i++) {
        bench(bcast, op_broadcast, sizes[i]);
        bench(reduce, op_reduce, sizes[i]);
        bench(fcollect, op_fcollect, sizes[i]);
        bench(alltoall, op_alltoall, sizes[i]);
    }
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
