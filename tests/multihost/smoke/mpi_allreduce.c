/* MPI smoke test: MPI_Allreduce sum of (rank + 1) over MPI_COMM_WORLD.
 * Prints one line per rank: "mpi rank R of N on HOST sum S expected E ok|BAD";
 * exit status 1 if the sum is wrong. Build: mpicc mpi_allreduce.c */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    long mine = rank + 1, sum = 0, expected = (long)size * (size + 1) / 2;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    /* A second, larger one so that the tcp btl carries more than one fragment. */
    enum { N = 100000 };
    static double a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = rank + i;
    MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int ok = sum == expected;
    for (int i = 0; i < N; i++)
        if (b[i] != (double)size * (size - 1) / 2 + (double)size * i) { ok = 0; break; }
    printf("mpi rank %d of %d on %s sum %ld expected %ld %s\n", rank, size, host, sum, expected,
           ok ? "ok" : "BAD");
    MPI_Finalize();
    return ok ? 0 : 1;
}
