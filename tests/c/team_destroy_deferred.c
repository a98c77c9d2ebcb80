// oshrun-test: npes=1,2,4 expect-exit=0 timeout=120 env=SHMEMX_TEAM_SLOTS=40
/* Destroys that hand their slot on late. Across hosts a team's destroy neither synchronises
 * nor signals: the slot waits until the next team creation over a parent that holds all the
 * team's members (docs/ARCHITECTURE.md, "Epochs instead of resets").
 * 1. Back to back, 300 times: split a team of every PE (split_strided, or split_color with
 *    one color), or split_2d, or split_color into the even and the odd PEs; broadcast from a
 *    root that returns before the others have read (eager), reduce, destroy. A slot handed to
 *    the next team too early shows as a wrong value or a hang.
 * 2. Slots waiting so never take one that the program was promised: after destroying teams
 *    of the world, creations from a parent that does not hold their members (the PEs with
 *    this PE's local rank) still make exactly as many teams as shmemx_team_info had room for,
 *    then fail with SHMEMX_TEAM_ERR_NO_SLOT; after all are destroyed, creation works again
 *    and every slot is back.
 * 3. A lagging reader: PE 0 broadcasts on a team of every PE (split_strided or split_color,
 *    in turn) and destroys it while PE 1 is still computing (so still to read PE 0's copy of the slot), then PE 0 makes a team from
 *    a parent without PE 1 and broadcasts on it. Were PE 0's slot reused for that team,
 *    PE 1 would read the second broadcast's value. */
#include <shmemx.h>

#include <time.h>

#include "testutil.h"

/* Computes (does not wait for anything) for `us` microseconds. */
static void compute_for(double us) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

#define ROUNDS 300
#define MAX_TEAMS 64

static long value, got, sum_src, sum_dst;
static shmem_team_t fill[MAX_TEAMS];

int main(void) {
    start_test();
    shmemx_team_info_t info0, info;
    shmemx_team_info(&info0);

    for (int r = 0; r < ROUNDS; r++) {
        shmem_team_t t = SHMEM_TEAM_INVALID, other = SHMEM_TEAM_INVALID;
        switch (r % 4) {
        case 0:
            CHECK_EQ("split_strided", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
            break;
        case 1:
            CHECK_EQ("split_color (one)", shmemx_team_split_color(SHMEM_TEAM_WORLD, 0, me, NULL, 0, &t), 0);
            break;
        case 2:
            CHECK_EQ("split_2d", shmem_team_split_2d(SHMEM_TEAM_WORLD, npes > 1 ? 2 : 1, NULL, 0, &t, NULL, 0, &other), 0);
            break;
        default:
            CHECK_EQ("split_color (parity)", shmemx_team_split_color(SHMEM_TEAM_WORLD, me % 2, -me, NULL, 0, &t), 0);
        }
        int n = shmem_team_n_pes(t), my = shmem_team_my_pe(t);
        int root = r % n;
        value = my == root ? 1000L * r + root : -1;
        got = -2;
        CHECK_EQ("broadcast", shmem_long_broadcast(t, &got, &value, 1, root), 0);
        CHECK_EQ("broadcast value", got, 1000L * r + root);
        sum_src = my + r;
        CHECK_EQ("sum", shmem_long_sum_reduce(t, &sum_dst, &sum_src, 1), 0);
        CHECK_EQ("sum value", sum_dst, (long)n * (n - 1) / 2 + (long)n * r);
        /* The root leaves the broadcast before the others read; destroy at once. */
        CHECK_EQ("broadcast again", shmem_long_broadcast(t, &got, &value, 1, root), 0);
        shmem_team_destroy(t);
        if (other != SHMEM_TEAM_INVALID) shmem_team_destroy(other);
        if (my != root) CHECK_EQ("second broadcast value", got, 1000L * r + root);
    }
    shmemx_team_info(&info);
    CHECK_EQ("nothing in use after the rounds", info.teams_in_use, info0.teams_in_use);

    /* Teams of the world destroyed: some may wait for a creation over a parent that holds
     * every PE. The PEs with this PE's local rank do not (unless they are every PE). */
    for (int i = 0; i < 6; i++) {
        shmem_team_t t;
        CHECK_EQ("split of the world", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
        CHECK_EQ("sync", shmem_team_sync(t), 0);
        shmem_team_destroy(t);
    }
    shmemx_team_info(&info);
    long room = info.capacity - info.teams_in_use;
    CHECK(room > 0 && room <= MAX_TEAMS, "room %ld for SHMEMX_TEAM_SLOTS=40", room);
    shmem_team_t same = SHMEMX_TEAM_SAME_MYPE_NODE;
    int same_n = shmem_team_n_pes(same);
    int n = 0, rc = 0;
    while (n < MAX_TEAMS) {
        rc = shmem_team_split_strided(same, 0, 1, same_n, NULL, 0, &fill[n]);
        if (rc != 0) break;
        n++;
    }
    CHECK_EQ("teams made from the local-rank team", n, room);
    CHECK_EQ("then out of slots", rc, SHMEMX_TEAM_ERR_NO_SLOT);
    for (int i = 0; i < n; i++) {
        CHECK_EQ("sync of a filled team", shmem_team_sync(fill[i]), 0);
        shmem_team_destroy(fill[i]);
    }
    /* PE 1 lags (it shares PE 0's host in the layouts of the tests); the others make a team
     * without it, which on a host of three PEs or more has members beside PE 0 there, so
     * that its broadcasts use PE 0's copy of the slot. */
    shmem_team_t others = SHMEM_TEAM_INVALID;
    CHECK_EQ("split_color without PE 1",
             shmemx_team_split_color(SHMEM_TEAM_WORLD, me == 1 ? SHMEMX_COLOR_UNDEFINED : 0, me, NULL, 0, &others), 0);
    for (int r = 0; r < 20; r++) {
        shmem_team_t all, u;
        if (r % 2)
            CHECK_EQ("split_color of the world", shmemx_team_split_color(SHMEM_TEAM_WORLD, 5, me, NULL, 0, &all), 0);
        else
            CHECK_EQ("split of the world", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &all), 0);
        if (me == 1) compute_for(2000);
        value = me == 0 ? 7000L + r : -1;
        got = -2;
        CHECK_EQ("broadcast from PE 0", shmem_long_broadcast(all, &got, &value, 1, 0), 0);
        CHECK_EQ("broadcast from PE 0 value", got, 7000L + r);
        shmem_team_destroy(all);
        if (others != SHMEM_TEAM_INVALID) {
            int k = shmem_team_n_pes(others);
            CHECK_EQ("split of the others", shmem_team_split_strided(others, 0, 1, k, NULL, 0, &u), 0);
            value = shmem_team_my_pe(u) == 0 ? 9000L + r : -1;
            CHECK_EQ("broadcast on it", shmem_long_broadcast(u, &got, &value, 1, 0), 0);
            CHECK_EQ("broadcast on it value", got, 9000L + r);
            shmem_team_destroy(u);
        }
    }
    shmem_team_destroy(others);
    shmem_team_t t;
    CHECK_EQ("creation works again", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
    shmem_team_destroy(t);
    CHECK_EQ("and again", shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
    shmem_team_destroy(t);
    shmemx_team_info(&info);
    CHECK_EQ("all released", info.teams_in_use, info0.teams_in_use);
    shmem_finalize();
    return 0;
}
