/* The floor of a log-step sync across simulated hosts, with no OpenSHMEM and no MPI in the timed
 * loop: what this machine allows for issue 28's growth target (barrier and all-reduce at 64 hosts
 * <= 2.5 x the same at 8 hosts). Built with mpicc and started by mpirun in the same hosts as
 * mpi_coll_bench.c; MPI only starts the ranks, swaps their addresses and opens each batch.
 *
 * Every rank connects TCP sockets (TCP_NODELAY) to its partners, then times two algorithms of
 * each operation, since with more ranks than cores the total of messages (each a send, a wake-up
 * and a read on a shared core) can cost more than the steps:
 *   floor_barrier_dissemination_<wait>  ceil(log2 n) rounds, in round j one byte to rank + 2^j
 *                         and one byte from rank - 2^j (the fewest steps: n log2 n messages)
 *   floor_barrier_tree_<wait>  up a binomial tree rooted at rank 0 and down again (2 (n - 1)
 *                         messages, 2 ceil(log2 n) steps)
 *   floor_sum_doubling_<wait>  all-reduce of one double (sum) by recursive doubling: log2 n
 *                         rounds, in round j the partial sum swapped with rank ^ 2^j (n a power
 *                         of two only)
 *   floor_sum_tree_<wait>  the sum up the binomial tree, the total down it
 * (every sum is checked), each with two ways to wait for a message:
 *   sleep  a blocking read(): the kernel wakes the rank when the bytes arrive (a rank that waits
 *          holds no core; a woken rank preempts a spinning one)
 *   poll   recv(MSG_DONTWAIT) and sched_yield() until the bytes are there (Open MPI's waits with
 *          mpi_yield_when_idle, as bench/run-multihost-coll.sh starts it)
 * Methodology as mpi_coll_bench.c: the median over BATCHES batches of the time per operation in
 * a batch of REPS operations, on rank 0 from an MPI_Barrier to the end of one more dissemination
 * barrier with the same way to wait (so no MPI call is timed), after a warm-up of REPS / 4 + 1
 * operations.
 * Output: coll <name> <bytes> <ranks> <median microseconds>, as mpi_coll_bench.c.
 * Usage: mpirun ... net_floor [reps]   (reps 0 or absent: 200) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "bench_time.h"

#define BATCHES 15
#define MAX_ROUNDS 32

enum { DISSEMINATION = 0, DOUBLING = 1, TREE = 2 };

static int me, npes, rounds, poll_wait;
static int out_fd[MAX_ROUNDS], in_fd[MAX_ROUNDS], pair_fd[MAX_ROUNDS];
/* The binomial tree rooted at rank 0: the parent (rank 0: -1) and the children me + 2^j for
 * j < child_rounds with me + 2^j < npes, child_fd[j] the socket to child me + 2^j. */
static int parent_fd = -1, child_rounds, child_fd[MAX_ROUNDS];

static void die(const char *what) {
    fprintf(stderr, "net_floor: rank %d: %s: %s\n", me, what, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void write_all(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) die("write");
        p += k;
        len -= (size_t)k;
    }
}

/* Reads exactly len bytes, sleeping in read() or polling with yields (poll_wait). */
static void read_all(int fd, void *buf, size_t len) {
    char *p = buf;
    while (len > 0) {
        ssize_t k = poll_wait ? recv(fd, p, len, MSG_DONTWAIT) : read(fd, p, len);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            sched_yield();
            continue;
        }
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) die("read");
        p += k;
        len -= (size_t)k;
    }
}

static void barrier(void) {
    char b = 1;
    for (int j = 0; j < rounds; j++) {
        write_all(out_fd[j], &b, 1);
        read_all(in_fd[j], &b, 1);
    }
}

static void tree_barrier(void) {
    char b = 1;
    for (int j = 0; j < child_rounds; j++) read_all(child_fd[j], &b, 1);
    if (parent_fd >= 0) {
        write_all(parent_fd, &b, 1);
        read_all(parent_fd, &b, 1);
    }
    for (int j = child_rounds - 1; j >= 0; j--) write_all(child_fd[j], &b, 1);
}

static double tree_sum(double x) {
    for (int j = 0; j < child_rounds; j++) {
        double y;
        read_all(child_fd[j], &y, sizeof y);
        x += y;
    }
    if (parent_fd >= 0) {
        write_all(parent_fd, &x, sizeof x);
        read_all(parent_fd, &x, sizeof x);
    }
    for (int j = child_rounds - 1; j >= 0; j--) write_all(child_fd[j], &x, sizeof x);
    return x;
}

static double sum(double x) {
    for (int j = 0; j < rounds; j++) {
        double y;
        write_all(pair_fd[j], &x, sizeof x);
        read_all(pair_fd[j], &y, sizeof y);
        /* The same order of additions on both sides, so every rank ends with the same bits. */
        x = (me & (1 << j)) ? y + x : x + y;
    }
    return x;
}

static int connect_to(uint32_t ip, uint16_t port, int kind, int round) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = port, .sin_addr.s_addr = ip};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int hello[2] = {kind, round};
    write_all(fd, hello, sizeof hello);
    return fd;
}

/* The first IPv4 address that is not loopback: the simulated host's eth0. */
static uint32_t own_address(void) {
    struct ifaddrs *ifs, *i;
    uint32_t ip = htonl(INADDR_LOOPBACK);
    if (getifaddrs(&ifs) < 0) die("getifaddrs");
    for (i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
            uint32_t a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
            if (a != htonl(INADDR_LOOPBACK)) {
                ip = a;
                break;
            }
        }
    freeifaddrs(ifs);
    return ip;
}

/* Opens every connection: the dissemination's outgoing ones and, for recursive doubling, one per
 * round with the partner (the lower rank connects). connect() completes in the listener's
 * backlog, so every rank connects first and accepts after. */
static void connect_all(int doubling) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0) die("socket");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t alen = sizeof a;
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 2 * MAX_ROUNDS) < 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) < 0)
        die("listen");
    uint32_t mine[2] = {own_address(), a.sin_port}, *all = malloc(sizeof mine * (size_t)npes);
    if (!all) die("malloc");
    MPI_Allgather(mine, 2, MPI_UINT32_T, all, 2, MPI_UINT32_T, MPI_COMM_WORLD);
    int expected = 0;
    if (me > 0) {
        int low = __builtin_ctz((unsigned)me), parent = me - (1 << low);
        parent_fd = connect_to(all[2 * parent], (uint16_t)all[2 * parent + 1], TREE, low);
        child_rounds = low;
    } else {
        child_rounds = rounds;
    }
    while (child_rounds > 0 && me + (1 << (child_rounds - 1)) >= npes) child_rounds--;
    expected += child_rounds;
    for (int j = 0; j < rounds; j++) {
        int to = (me + (1 << j)) % npes;
        out_fd[j] = connect_to(all[2 * to], (uint16_t)all[2 * to + 1], DISSEMINATION, j);
        expected++;
        if (doubling) {
            int partner = me ^ (1 << j);
            if (partner > me) pair_fd[j] = connect_to(all[2 * partner], (uint16_t)all[2 * partner + 1], DOUBLING, j);
            else expected++;
        }
    }
    for (int k = 0; k < expected; k++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) die("accept");
        int one = 1, hello[2];
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        read_all(fd, hello, sizeof hello);
        if (hello[1] < 0 || hello[1] >= rounds) die("bad hello");
        if (hello[0] == DISSEMINATION) in_fd[hello[1]] = fd;
        else if (hello[0] == DOUBLING) pair_fd[hello[1]] = fd;
        else child_fd[hello[1]] = fd;
    }
    close(lfd);
    free(all);
}

static void op_barrier(void) { barrier(); }

static void op_tree_barrier(void) { tree_barrier(); }

static void check_sum(double r) {
    if (r != (double)npes * (npes - 1) / 2) {
        fprintf(stderr, "net_floor: rank %d: sum %g, expected %g\n", me, r, (double)npes * (npes - 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void op_sum(void) { check_sum(sum((double)me)); }

static void op_tree_sum(void) { check_sum(tree_sum((double)me)); }

static void bench(const char *name, size_t bytes, void (*op)(void), int reps) {
    double t[BATCHES];
    for (int i = 0; i < reps / 4 + 1; i++) op();
    for (int b = 0; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_us();
        for (int i = 0; i < reps; i++) op();
        barrier();
        t[b] = (now_us() - t0) / reps;
    }
    double med = median(t, BATCHES);
    if (me == 0) printf("coll %s_%s %zu %d %.3f\n", name, poll_wait ? "poll" : "sleep", bytes, npes, med);
    fflush(stdout);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    int reps = argc > 1 ? atoi(argv[1]) : 0;
    if (reps <= 0) reps = 200;
    while ((1 << rounds) < npes) rounds++;
    int doubling = npes > 1 && (npes & (npes - 1)) == 0;
    connect_all(doubling);
    MPI_Barrier(MPI_COMM_WORLD);
    for (poll_wait = 0; poll_wait < 2; poll_wait++) {
        bench("floor_barrier_dissemination", 0, op_barrier, reps);
        bench("floor_barrier_tree", 0, op_tree_barrier, reps);
        if (doubling) bench("floor_sum_doubling", 8, op_sum, reps);
        bench("floor_sum_tree", 8, op_tree_sum, reps);
    }
    for (int j = 0; j < rounds; j++) {
        close(out_fd[j]);
        close(in_fd[j]);
        if (doubling) close(pair_fd[j]);
    }
    for (int j = 0; j < child_rounds; j++) close(child_fd[j]);
    if (parent_fd >= 0) close(parent_fd);
    MPI_Finalize();
    return 0;
}
