/* PMIx-only smoke test: started by Open MPI's mpirun, uses no MPI.
 * Prints one line per rank:
 *   rank R of N on HOST local_rank L local_size S node NODEID neighbour-said 'hello from R+1 on HOST'
 * and fails (exit 1) on any PMIx error or when gethostname() differs from PMIX_HOSTNAME.
 * Build: cc pmix_hello.c $(pkg-config --cflags --libs pmix) */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "pmix_hello rank %u: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(1);
}

/* Gets KEY of (NSPACE, RANK) into *out. */
static pmix_value_t *get(uint32_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) die(key, rc);
    return v;
}

static uint32_t get_u32(uint32_t rank, const char *key)
{
    pmix_value_t *v = get(rank, key);
    uint32_t r;
    switch (v->type) {
    case PMIX_UINT32: r = v->data.uint32; break;
    case PMIX_UINT16: r = v->data.uint16; break;
    case PMIX_INT: r = (uint32_t)v->data.integer; break;
    case PMIX_UINT64: r = (uint32_t)v->data.uint64; break;
    case PMIX_PROC_RANK: r = v->data.rank; break;
    default: fprintf(stderr, "pmix_hello: %s has type %d\n", key, v->type); exit(1);
    }
    PMIX_VALUE_RELEASE(v);
    return r;
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) die("PMIx_Init", rc);

    uint32_t size = get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    uint32_t local_rank = get_u32(me.rank, PMIX_LOCAL_RANK);
    uint32_t local_size = get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
    uint32_t nodeid = get_u32(me.rank, PMIX_NODEID);
    pmix_value_t *hv = get(me.rank, PMIX_HOSTNAME);
    if (hv->type != PMIX_STRING) { fprintf(stderr, "hostname type %d\n", hv->type); return 1; }
    char pmix_host[256];
    snprintf(pmix_host, sizeof pmix_host, "%s", hv->data.string);
    PMIX_VALUE_RELEASE(hv);

    char host[256] = "";
    gethostname(host, sizeof host - 1);

    /* Put a key, commit, fence with collect, read the neighbour's. */
    char msg[300];
    snprintf(msg, sizeof msg, "hello from %u on %s", me.rank, host);
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, msg, PMIX_STRING);
    rc = PMIx_Put(PMIX_GLOBAL, "fsh.smoke", &val);
    if (rc != PMIX_SUCCESS) die("PMIx_Put", rc);
    PMIX_VALUE_DESTRUCT(&val);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) die("PMIx_Commit", rc);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&all, 1, &info, 1);
    if (rc != PMIX_SUCCESS) die("PMIx_Fence", rc);
    PMIX_INFO_DESTRUCT(&info);

    uint32_t nb = (me.rank + 1) % size;
    pmix_value_t *nv = get(nb, "fsh.smoke");
    if (nv->type != PMIX_STRING) { fprintf(stderr, "neighbour value type %d\n", nv->type); return 1; }

    int ok = strcmp(host, pmix_host) == 0;
    printf("rank %u of %u on %s local_rank %u local_size %u node %u neighbour-said '%s'%s\n",
           me.rank, size, host, local_rank, local_size, nodeid, nv->data.string,
           ok ? "" : " HOSTNAME-MISMATCH");
    if (!ok)
        fprintf(stderr, "pmix_hello rank %u: gethostname() '%s' != PMIX_HOSTNAME '%s'\n",
                me.rank, host, pmix_host);
    fflush(stdout);
    PMIX_VALUE_RELEASE(nv);

    /* Second fence so no rank leaves while another still reads its key. */
    rc = PMIx_Fence(&all, 1, NULL, 0);
    if (rc != PMIX_SUCCESS) die("PMIx_Fence 2", rc);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) die("PMIx_Finalize", rc);
    return ok ? 0 : 1;
}
