// oshrun-test: npes=1,2,4,7 expect-exit=0
/* Setup and queries: init_thread/query_thread, my_pe/n_pes and their deprecated forms,
 * info_get_version/name against the header's macros, shmem_ptr for every PE (and usable),
 * addr_accessible/pe_accessible, barrier_all/sync_all ordering, contexts and their options,
 * fence/quiet, finalize. */
#include <stdint.h>
#include <string.h>

#include "testutil.h"

long g_word = 0;
static int s_table[16];

int main(void) {
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(rc == 0 && provided == SHMEM_THREAD_MULTIPLE, "init_thread rc %d provided %d", rc, provided);
    int q = -1;
    shmem_query_thread(&q);
    CHECK_EQ("query_thread", q, SHMEM_THREAD_MULTIPLE);
    start_pes(0); /* deprecated; a second initialisation is harmless */

    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes >= 1 && me >= 0 && me < npes, "my_pe %d n_pes %d", me, npes);
    CHECK_EQ("_my_pe", _my_pe(), me);
    CHECK_EQ("_num_pes", _num_pes(), npes);

    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1 && minor == 5,
          "version %d.%d", major, minor);
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name '%.20s'", name);
    CHECK(__OPENSHMEM_VERSION == 105, "__OPENSHMEM_VERSION %d", __OPENSHMEM_VERSION);

    /* Accessibility. */
    long *heap = shmem_malloc(sizeof(long) * 4);
    CHECK(heap != NULL, "shmem_malloc returned NULL");
    heap[0] = 0;
    int stack_var = 0;
    for (int pe = 0; pe < npes; pe++) {
        CHECK_EQ("pe_accessible", shmem_pe_accessible(pe), 1);
        CHECK_EQ("addr_accessible heap", shmem_addr_accessible(heap, pe), 1);
        CHECK_EQ("addr_accessible static", shmem_addr_accessible(&g_word, pe), 1);
        CHECK_EQ("addr_accessible static table", shmem_addr_accessible(&s_table[15], pe), 1);
        CHECK_EQ("addr_accessible stack", shmem_addr_accessible(&stack_var, pe), 0);
        /* Loads and stores reach exactly the PEs of this host (all of them on one host). */
        int here = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
        CHECK((shmem_ptr(heap, pe) != NULL) == here, "shmem_ptr(heap, %d) is %p", pe, shmem_ptr(heap, pe));
        CHECK((shmem_ptr(&g_word, pe) != NULL) == here, "shmem_ptr(static, %d) is %p", pe, shmem_ptr(&g_word, pe));
        CHECK(shmem_ptr(&stack_var, pe) == NULL, "shmem_ptr(stack, %d) not NULL", pe);
    }
    CHECK(shmem_ptr(heap, me) == (void *)heap, "shmem_ptr to myself is not the address itself");
    CHECK_EQ("pe_accessible -1", shmem_pe_accessible(-1), 0);
    CHECK_EQ("pe_accessible n", shmem_pe_accessible(npes), 0);
    CHECK_EQ("addr_accessible bad pe", shmem_addr_accessible(heap, npes), 0);
    CHECK(shmem_ptr(heap, npes) == NULL, "shmem_ptr to PE n_pes not NULL");

    /* Stores through shmem_ptr are seen by the owner after a barrier: to the next PE of this
     * host (the right neighbour on one host). */
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED), sme = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    int right = shmem_team_translate_pe(SHMEM_TEAM_SHARED, (sme + 1) % sn, SHMEM_TEAM_WORLD);
    int left = shmem_team_translate_pe(SHMEM_TEAM_SHARED, (sme + sn - 1) % sn, SHMEM_TEAM_WORLD);
    long *rheap = shmem_ptr(heap, right);
    long *rword = shmem_ptr(&g_word, right);
    int *rtable = shmem_ptr(s_table, right);
    rheap[1] = 100 + me;
    *rword = 200 + me;
    rtable[7] = 300 + me;
    shmem_barrier_all();
    CHECK_EQ("store via shmem_ptr heap", heap[1], 100 + left);
    CHECK_EQ("store via shmem_ptr static", g_word, 200 + left);
    CHECK_EQ("store via shmem_ptr table", s_table[7], 300 + left);
    shmem_sync_all();

    /* Contexts. */
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK(SHMEM_CTX_DEFAULT != SHMEM_CTX_INVALID, "SHMEM_CTX_DEFAULT is invalid");
    CHECK_EQ("ctx_create bad options", shmem_ctx_create(1L << 20, &ctx), 1);
    CHECK(ctx == SHMEM_CTX_INVALID, "failed ctx_create left a context");
    shmem_ctx_t many[32];
    for (int i = 0; i < 32; i++) CHECK_EQ("ctx_create", shmem_ctx_create(i % 2 ? SHMEM_CTX_NOSTORE : 0, &many[i]), 0);
    for (int i = 0; i < 32; i++) {
        shmem_ctx_long_atomic_inc(many[i], heap, (me + 1) % npes);
        shmem_ctx_fence(many[i]);
    }
    for (int i = 0; i < 32; i++) shmem_ctx_destroy(many[i]);
    shmem_fence();
    shmem_quiet();
    shmem_barrier_all();
    CHECK_EQ("increments through 32 contexts", heap[0], 32);

    shmem_free(heap);
    if (me == 0) printf("lifecycle: ok at %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
