// oshrun-test: npes=1,2,3,6,7,12 expect-exit=0
// oshrun-test: npes=2 expect-exit=0 env=SHMEM_INFO=1
/* Predefined teams, team queries and their edge cases: my_pe / n_pes (-1 on INVALID),
 * translate_pe (exact bounds: src_pe == size and negative give -1, INVALID on either side,
 * WORLD as the global translator), get_config (INVALID, mask 0, NUM_CONTEXTS), team_info,
 * destroy of INVALID (no-op). */
#include <shmemx.h>

#include "testutil.h"

int main(void) {
    start_test();
    CHECK(SHMEM_TEAM_WORLD != SHMEM_TEAM_INVALID && SHMEM_TEAM_SHARED != SHMEM_TEAM_WORLD, "handles differ");
    CHECK_EQ("my_pe(WORLD)", shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ("n_pes(WORLD)", shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    /* SHARED and NODE: the PEs of this host; SAME_MYPE_NODE: the PEs with this PE's local
     * rank on every host (one host: every PE, and this PE alone). Numbered in world order. */
    int local_n = 0, local_me = 0, same_n = 0, same_me = 0;
    for (int pe = 0; pe < npes; pe++) {
        local_n += test_same_host(pe, me);
        local_me += test_same_host(pe, me) && pe < me;
        same_n += test_same_local_rank(pe, me);
        same_me += test_same_local_rank(pe, me) && pe < me;
    }
    CHECK_EQ("my_pe(SHARED)", shmem_team_my_pe(SHMEM_TEAM_SHARED), local_me);
    CHECK_EQ("n_pes(SHARED)", shmem_team_n_pes(SHMEM_TEAM_SHARED), local_n);
    CHECK_EQ("my_pe(NODE)", shmem_team_my_pe(SHMEMX_TEAM_NODE), local_me);
    CHECK_EQ("n_pes(NODE)", shmem_team_n_pes(SHMEMX_TEAM_NODE), local_n);
    CHECK_EQ("my_pe(SAME_MYPE_NODE)", shmem_team_my_pe(SHMEMX_TEAM_SAME_MYPE_NODE), same_me);
    CHECK_EQ("n_pes(SAME_MYPE_NODE)", shmem_team_n_pes(SHMEMX_TEAM_SAME_MYPE_NODE), same_n);
    CHECK_EQ("my_pe(INVALID)", shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ("n_pes(INVALID)", shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    /* A value that was never a handle is not a team either. */
    CHECK_EQ("n_pes(made up)", shmem_team_n_pes((shmem_team_t)0x7777), -1);

    int local_i = 0, same_i = 0;
    for (int pe = -2; pe <= npes + 1; pe++) {
        int valid = pe >= 0 && pe < npes;
        int in_local = valid && test_same_host(pe, me), in_same = valid && test_same_local_rank(pe, me);
        CHECK_EQ("translate WORLD->SHARED", shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED),
                 in_local ? local_i : -1);
        if (in_local) {
            CHECK_EQ("translate SHARED->WORLD", shmem_team_translate_pe(SHMEM_TEAM_SHARED, local_i, SHMEM_TEAM_WORLD), pe);
            local_i++;
        }
        CHECK_EQ("translate INVALID->WORLD", shmem_team_translate_pe(SHMEM_TEAM_INVALID, pe, SHMEM_TEAM_WORLD), -1);
        CHECK_EQ("translate WORLD->INVALID", shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_INVALID), -1);
        CHECK_EQ("translate WORLD->SAME_MYPE_NODE",
                 shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEMX_TEAM_SAME_MYPE_NODE), in_same ? same_i : -1);
        if (in_same) same_i++;
    }
    for (int i = -2; i <= local_n + 1; i++)
        if (i < 0 || i >= local_n)
            CHECK_EQ("translate SHARED out of range", shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ("translate src_pe == size", shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ("translate src_pe -1", shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ("translate SAME_MYPE_NODE me -> WORLD",
             shmem_team_translate_pe(SHMEMX_TEAM_SAME_MYPE_NODE, same_me, SHMEM_TEAM_WORLD), me);
    CHECK_EQ("translate SAME_MYPE_NODE size -> WORLD",
             shmem_team_translate_pe(SHMEMX_TEAM_SAME_MYPE_NODE, same_n, SHMEM_TEAM_WORLD), -1);

    shmem_team_config_t cfg = {.num_contexts = 99};
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "get_config(INVALID) returned 0");
    CHECK_EQ("get_config(INVALID) leaves config", cfg.num_contexts, 99);
    CHECK_EQ("get_config(WORLD, mask 0)", shmem_team_get_config(SHMEM_TEAM_WORLD, 0, &cfg), 0);
    CHECK_EQ("mask 0 fills nothing", cfg.num_contexts, 99);
    CHECK_EQ("get_config(WORLD, mask 0, NULL)", shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL), 0);
    CHECK_EQ("get_config(WORLD)", shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK_EQ("WORLD num_contexts", cfg.num_contexts, 0);

    shmemx_team_info_t info;
    CHECK_EQ("team_info", shmemx_team_info(&info), 0);
    CHECK_EQ("teams in use (predefined)", info.teams_in_use, 4);
    CHECK(info.capacity >= 4096, "capacity %ld", info.capacity);
    CHECK(info.bytes_per_team > 0 && info.bytes_per_team == info.shared_bytes_per_team + info.private_bytes_per_team,
          "bytes per team %ld = %ld + %ld", info.bytes_per_team, info.shared_bytes_per_team,
          info.private_bytes_per_team);
    CHECK(shmemx_team_info(NULL) != 0, "team_info(NULL) returned 0");

    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
    CHECK_EQ("team_sync(WORLD)", shmem_team_sync(SHMEM_TEAM_WORLD), 0);
    CHECK_EQ("team_sync(SHARED)", shmem_team_sync(SHMEM_TEAM_SHARED), 0);
    CHECK_EQ("team_sync(NODE)", shmem_team_sync(SHMEMX_TEAM_NODE), 0);
    CHECK_EQ("team_sync(SAME_MYPE_NODE)", shmem_team_sync(SHMEMX_TEAM_SAME_MYPE_NODE), 0);
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0, "team_sync(INVALID) returned 0");
    shmem_finalize();
    return 0;
}
