/* bench/c/first_contact.c's alltoall for Open MPI's MPI: three MPI_Alltoall of 4 KiB blocks
 * over MPI_COMM_WORLD, the first of which makes the connections; every byte checked. Prints
 * "first_contact_mpi alltoall: ok, slowest: 1.234 0.056 0.051 s". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 512 /* longs per block: 4 KiB */
#define ROUNDS 3

static long expected(int from, int to, int k, int r) { return (long)from * 1000000 + (long)to * NB + k + r; }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long *src = malloc(sizeof(long) * NB * n), *dst = malloc(sizeof(long) * NB * n);
    if (!src || !dst) MPI_Abort(MPI_COMM_WORLD, 1);
    double took[ROUNDS], slowest[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (int p = 0; p < n; p++)
            for (int k = 0; k < NB; k++) src[p * NB + k] = expected(me, p, k, r);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        MPI_Alltoall(src, NB, MPI_LONG, dst, NB, MPI_LONG, MPI_COMM_WORLD);
        took[r] = MPI_Wtime() - t;
        for (int p = 0; p < n; p++)
            for (int k = 0; k < NB; k++)
                if (dst[p * NB + k] != expected(p, me, k, r)) {
                    fprintf(stderr, "first_contact_mpi: rank %d: round %d, block of rank %d word %d wrong\n", me, r, p, k);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
    }
    MPI_Reduce(took, slowest, ROUNDS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) printf("first_contact_mpi alltoall: ok, slowest: %.3f %.3f %.3f s\n", slowest[0], slowest[1], slowest[2]);
    free(dst);
    free(src);
    MPI_Finalize();
    return 0;
}
