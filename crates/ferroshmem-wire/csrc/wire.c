/* A flat C face of the PMIx client and UCX ucp calls ferroshmem uses. The structs of both
 * libraries (ucp_params_t, ucp_request_param_t, pmix_value_t, ...) stay on this side of the
 * line, where their own headers lay them out; Rust sees only integers, pointers and byte
 * buffers. Every function returns 0 or a negative status of the library that failed (see
 * fsh_wire_error). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pmix.h>
#include <ucp/api/ucp.h>

/* ------------------------------------------------------------------------------------- */
/* Errors: UCX statuses are negative small numbers; PMIx ones are offset by -100000.      */

#define PMIX_BASE (-100000)

static int pmix_rc(pmix_status_t rc) { return rc == PMIX_SUCCESS ? 0 : PMIX_BASE + rc; }

const char *fsh_wire_error(int rc) {
    if (rc <= PMIX_BASE + 1000 && rc > PMIX_BASE - 100000) return PMIx_Error_string(rc - PMIX_BASE);
    return ucs_status_string((ucs_status_t)rc);
}

void fsh_wire_free(void *p) { free(p); }

/* ------------------------------------------------------------------------------------- */
/* PMIx                                                                                   */

static pmix_proc_t me;

int fsh_pmix_init(uint32_t *rank) {
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) return pmix_rc(rc);
    *rank = me.rank;
    return 0;
}

int fsh_pmix_finalize(void) { return pmix_rc(PMIx_Finalize(NULL, 0)); }

/* Asks the launcher to end the whole job (every process of our namespace) with `status`. */
int fsh_pmix_abort(int status, const char *msg) { return pmix_rc(PMIx_Abort(status, msg, NULL, 0)); }

/* A uint32 (or smaller) value of `key` for `rank` (PMIX_RANK_WILDCARD: the job's). */
static int get_u32(pmix_rank_t rank, const char *key, uint32_t *out) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) return pmix_rc(rc);
    int result = 0;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_UINT8: *out = v->data.uint8; break;
    case PMIX_INT: *out = (uint32_t)v->data.integer; break;
    case PMIX_PROC_RANK: *out = v->data.rank; break;
    default: result = pmix_rc(PMIX_ERR_TYPE_MISMATCH);
    }
    PMIX_VALUE_RELEASE(v);
    return result;
}

int fsh_pmix_job_size(uint32_t *size) { return get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, size); }
int fsh_pmix_node_id(uint32_t rank, uint32_t *id) { return get_u32(rank, PMIX_NODEID, id); }
int fsh_pmix_local_rank(uint32_t rank, uint32_t *local) { return get_u32(rank, PMIX_LOCAL_RANK, local); }

/* The hostname of `rank` into buf (NUL-terminated, truncated to len). */
int fsh_pmix_hostname(uint32_t rank, char *buf, size_t len) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) return pmix_rc(rc);
    int result = 0;
    if (v->type == PMIX_STRING && v->data.string != NULL && len > 0) {
        strncpy(buf, v->data.string, len - 1);
        buf[len - 1] = 0;
    } else {
        result = pmix_rc(PMIX_ERR_TYPE_MISMATCH);
    }
    PMIX_VALUE_RELEASE(v);
    return result;
}

int fsh_pmix_put(const char *key, const void *data, size_t len) {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data;
    v.data.bo.size = len;
    /* PMIx_Put copies the value. */
    return pmix_rc(PMIx_Put(PMIX_GLOBAL, key, &v));
}

int fsh_pmix_commit(void) { return pmix_rc(PMIx_Commit()); }

/* A fence over the job; with `collect`, it also distributes every committed value. */
int fsh_pmix_fence(int collect) {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool flag = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&all, 1, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    return pmix_rc(rc);
}

static void fence_done(pmix_status_t status, void *cbdata) {
    __atomic_store_n((int *)cbdata, status == PMIX_SUCCESS ? 1 : 2, __ATOMIC_RELEASE);
}

/* A fence that gives up after `timeout_ms` (the launchers here ignore PMIX_TIMEOUT on a
 * fence). Returns 0 when every process took part, 1 on time-out (the fence is then still in
 * flight: the caller must not finalize PMIx), or an error. */
int fsh_pmix_fence_timeout(int timeout_ms) {
    static int done; /* outlives an abandoned fence: its callback may still come */
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    __atomic_store_n(&done, 0, __ATOMIC_RELAXED);
    pmix_status_t rc = PMIx_Fence_nb(&all, 1, NULL, 0, fence_done, &done);
    if (rc != PMIX_SUCCESS) return pmix_rc(rc);
    struct timespec tick = {0, 1000000};
    for (int waited = 0; waited < timeout_ms; waited++) {
        int d = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
        if (d == 1) return 0;
        if (d == 2) return pmix_rc(PMIX_ERROR);
        nanosleep(&tick, NULL);
    }
    return 1;
}

/* A byte object posted by `rank` under `key`: a malloc'd copy (free with fsh_wire_free). */
int fsh_pmix_get(uint32_t rank, const char *key, void **data, size_t *len) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) return pmix_rc(rc);
    int result = 0;
    if (v->type != PMIX_BYTE_OBJECT) {
        result = pmix_rc(PMIX_ERR_TYPE_MISMATCH);
    } else {
        *len = v->data.bo.size;
        *data = malloc(*len ? *len : 1);
        if (*data == NULL) result = pmix_rc(PMIX_ERR_NOMEM);
        else memcpy(*data, v->data.bo.bytes, *len);
    }
    PMIX_VALUE_RELEASE(v);
    return result;
}

/* ------------------------------------------------------------------------------------- */
/* UCX                                                                                    */

/* TCP segments for the data between hosts, unless the user set UCX_TCP_TX_SEG_SIZE or
 * UCX_TCP_RX_SEG_SIZE: UCX's defaults (8 KiB sent per fragment, 64 KiB receive buffers) cost a
 * system call per 8 KiB sent. With 64 KiB and 256 KiB, across 4 simulated hosts x 2 PEs a
 * 64 KiB fcollect took 500 against 1101 us, a float sum 336 against 535, across 2 x 2 a 64 KiB
 * alltoall 148 against 180 (medians of 6 alternating launches; docs/PERFORMANCE.md). 66 KiB
 * rather than 64: a message of a 64 KiB block and its headers then goes as one fragment, which
 * the receiver need not reassemble (2 x 2 64 KiB fcollect 71 against 92 us, float sum 58
 * against 76, 4 x 2 the same or better; with the order of the A/B reversed, 66 against 87
 * and 48 against 68). The keys go without the transport's prefix: UCX 1.13
 * applies "TCP_TX_SEG_SIZE" to no interface (it warns "invalid configurations") but
 * "TX_SEG_SIZE" to the TCP one. */
static const char *const tcp_segments[][2] = {{"TX_SEG_SIZE", "66k"}, {"RX_SEG_SIZE", "256k"}};

int fsh_ucp_init(void **ctx) {
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK) return st;
    for (size_t i = 0; i < sizeof tcp_segments / sizeof tcp_segments[0]; i++) {
        char var[64];
        snprintf(var, sizeof var, "UCX_TCP_%s", tcp_segments[i][0]);
        /* A value UCX cannot take only leaves its default. */
        if (getenv(var) == NULL) (void)ucp_config_modify(config, tcp_segments[i][0], tcp_segments[i][1]);
    }
    ucp_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    params.mt_workers_shared = 1;
    ucp_context_h c;
    st = ucp_init(&params, config, &c);
    ucp_config_release(config);
    if (st != UCS_OK) return st;
    *ctx = c;
    return 0;
}

void fsh_ucp_cleanup(void *ctx) { ucp_cleanup((ucp_context_h)ctx); }

/* A worker with a lock of ours. The progress thread and the application threads all drive it;
 * UCX's own thread-safe mode guards a worker with a spinlock, and on a machine where PEs and
 * progress threads outnumber cores a preempted holder made the others spin for whole time
 * slices (a barrier between two hosts took 7 ms). So the worker is created SERIALIZED and
 * every call takes this (sleeping) mutex; a thread waiting for its own operation lets go of it
 * now and then. */
#define FSH_REGIONS 3

struct fsh_worker {
    ucp_worker_h w;
    pthread_mutex_t lock;
    /* Where flagged messages may write (fsh_ucp_set_flagged_regions): base and length of each
     * of this process's symmetric regions; region 0 holds the flag words. */
    uint64_t region_base[FSH_REGIONS];
    uint64_t region_len[FSH_REGIONS];
    /* Application threads waiting for `lock` (see LOCK). */
    atomic_uint waiting;
};

/* Application threads take the lock through LOCK, counted in `waiting`: the progress thread
 * lets go of the worker when one waits, and lets it in before taking the worker again (a mutex
 * hands out no turns). Without that, a PE whose progress thread served a stream of requests
 * (the root of a team_init at 48 hosts, its record read by 47 members' gets) kept the worker
 * for good, and its own broadcast of the team's id never got it: every member hung. */
#define LOCK(fw)                                                                 \
    do {                                                                         \
        atomic_fetch_add_explicit(&(fw)->waiting, 1, memory_order_relaxed);      \
        pthread_mutex_lock(&(fw)->lock);                                         \
        atomic_fetch_sub_explicit(&(fw)->waiting, 1, memory_order_relaxed);      \
    } while (0)
#define UNLOCK(fw) pthread_mutex_unlock(&(fw)->lock)

/* Whether an application thread waits for the worker. */
static int others_waiting(struct fsh_worker *fw) {
    return atomic_load_explicit(&fw->waiting, memory_order_relaxed) != 0;
}

/* The progress thread's way in: after the application threads that wait (a bounded number of
 * yields, then the mutex as anyone). */
static void progress_lock(struct fsh_worker *fw) {
    for (unsigned i = 0; i < 256 && others_waiting(fw); i++) sched_yield();
    pthread_mutex_lock(&fw->lock);
}

int fsh_ucp_worker_create(void *ctx, void **worker) {
    ucp_worker_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
    struct fsh_worker *fw = calloc(1, sizeof *fw);
    if (fw == NULL) return UCS_ERR_NO_MEMORY;
    ucs_status_t st = ucp_worker_create((ucp_context_h)ctx, &params, &fw->w);
    if (st != UCS_OK) {
        free(fw);
        return st;
    }
    pthread_mutex_init(&fw->lock, NULL);
    *worker = fw;
    return 0;
}

void fsh_ucp_worker_destroy(void *w) {
    struct fsh_worker *fw = w;
    ucp_worker_destroy(fw->w);
    pthread_mutex_destroy(&fw->lock);
    free(fw);
}

/* The worker's address: a malloc'd copy (free with fsh_wire_free). */
int fsh_ucp_worker_address(void *w, void **addr, size_t *len) {
    struct fsh_worker *fw = w;
    ucp_address_t *a;
    size_t n;
    LOCK(fw);
    ucs_status_t st = ucp_worker_get_address(fw->w, &a, &n);
    if (st == UCS_OK) {
        *addr = malloc(n);
        if (*addr == NULL) {
            st = UCS_ERR_NO_MEMORY;
        } else {
            memcpy(*addr, a, n);
            *len = n;
        }
        ucp_worker_release_address(fw->w, a);
    }
    UNLOCK(fw);
    return st;
}

/* Progresses until the worker is quiet; returns how many events it handled. */
unsigned fsh_ucp_progress(void *w) {
    struct fsh_worker *fw = w;
    LOCK(fw);
    unsigned n = 0, k;
    while ((k = ucp_worker_progress(fw->w)) > 0) n += k;
    UNLOCK(fw);
    return n;
}

/* Progresses once if nobody else is progressing; returns how many events it handled. */
unsigned fsh_ucp_try_progress(void *w) {
    struct fsh_worker *fw = w;
    if (pthread_mutex_trylock(&fw->lock) != 0) return 0;
    unsigned n = ucp_worker_progress(fw->w);
    UNLOCK(fw);
    return n;
}

int fsh_ucp_event_fd(void *w, int *fd) {
    struct fsh_worker *fw = w;
    LOCK(fw);
    int st = ucp_worker_get_efd(fw->w, fd);
    UNLOCK(fw);
    return st;
}

/* Progresses until quiet, then arms the event descriptor. Returns 0: armed (sleep on the
 * descriptor); 1: events arrived meanwhile, or an application thread waits for the worker
 * (call again); < 0: error. *handled counts the events progressed. */
int fsh_ucp_progress_and_arm(void *w, unsigned *handled) {
    struct fsh_worker *fw = w;
    progress_lock(fw);
    unsigned n = 0, k;
    while ((k = ucp_worker_progress(fw->w)) > 0) {
        n += k;
        if (others_waiting(fw)) {
            UNLOCK(fw);
            *handled = n;
            return 1;
        }
    }
    ucs_status_t st = ucp_worker_arm(fw->w);
    UNLOCK(fw);
    *handled = n;
    if (st == UCS_OK) return 0;
    if (st == UCS_ERR_BUSY) return 1;
    return st;
}

/* ucp_worker_signal is the one call UCX allows without the worker's serialisation. */
int fsh_ucp_signal(void *w) { return ucp_worker_signal(((struct fsh_worker *)w)->w); }

int fsh_ucp_fence(void *w) {
    struct fsh_worker *fw = w;
    LOCK(fw);
    int st = ucp_worker_fence(fw->w);
    UNLOCK(fw);
    return st;
}

/* Drives `req` to completion with the worker's lock held, letting go of it now and then
 * (another thread may need the worker; PEs may outnumber cores); frees it. */
static ucs_status_t wait_request(struct fsh_worker *fw, ucs_status_ptr_t req) {
    if (req == NULL) return UCS_OK;
    if (UCS_PTR_IS_ERR(req)) return UCS_PTR_STATUS(req);
    ucs_status_t st;
    unsigned idle = 0;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        if (ucp_worker_progress(fw->w) == 0 && ++idle % 64 == 0) {
            UNLOCK(fw);
            sched_yield();
            LOCK(fw);
        }
    }
    ucp_request_free(req);
    return st;
}

int fsh_ucp_flush(void *w) {
    struct fsh_worker *fw = w;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    LOCK(fw);
    ucs_status_t st = wait_request(fw, ucp_worker_flush_nbx(fw->w, &p));
    UNLOCK(fw);
    return st;
}

/* Endpoints whose peer failed (UCX's peer error handling): the count, a futex word that
 * fsh_ucp_wait_peer_failure sleeps on, and the first one's peer tag and status. Process-wide:
 * a process has one worker. */
static atomic_uint peer_failures;
static _Atomic uint64_t first_failed_peer;
static atomic_int first_failed_status;

/* UCX calls this from the progress of the endpoint's worker (under its lock) once the
 * endpoint failed: its peer's process ended (the connection closed) or UCX's keepalive found
 * the peer silent. The endpoint is then only closed (fsh_ucp_ep_close). */
static void peer_failed(void *arg, ucp_ep_h ep, ucs_status_t status) {
    (void)ep;
    if (atomic_load(&peer_failures) == 0) {
        atomic_store(&first_failed_peer, (uint64_t)(uintptr_t)arg);
        atomic_store(&first_failed_status, (int)status);
    }
    atomic_fetch_add(&peer_failures, 1);
    syscall(SYS_futex, &peer_failures, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* How many endpoints failed so far; the first one's tag and status in *peer and *status. */
unsigned fsh_ucp_peer_failures(uint64_t *peer, int *status) {
    unsigned n = atomic_load(&peer_failures);
    if (n > 0) {
        *peer = atomic_load(&first_failed_peer);
        *status = atomic_load(&first_failed_status);
    }
    return n;
}

/* Sleeps until an endpoint has failed (at once if one has) or timeout_ms pass. */
void fsh_ucp_wait_peer_failure(unsigned timeout_ms) {
    if (atomic_load(&peer_failures) != 0) return;
    struct timespec ts = { .tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000L };
    syscall(SYS_futex, &peer_failures, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

/* An endpoint to the worker at `addr`, with UCX's peer error handling: a failure of its peer
 * is reported (see peer_failed, with `peer` as its tag) instead of ending this process, and
 * operations on it then fail. */
int fsh_ucp_ep_create(void *w, const void *addr, uint64_t peer, void **ep) {
    struct fsh_worker *fw = w;
    ucp_ep_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                        UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.address = (const ucp_address_t *)addr;
    params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    params.err_handler.cb = peer_failed;
    params.err_handler.arg = (void *)(uintptr_t)peer;
    ucp_ep_h e;
    LOCK(fw);
    ucs_status_t st = ucp_ep_create(fw->w, &params, &e);
    UNLOCK(fw);
    if (st != UCS_OK) return st;
    *ep = e;
    return 0;
}

void fsh_ucp_ep_close(void *w, void *ep) {
    struct fsh_worker *fw = w;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    LOCK(fw);
    (void)wait_request(fw, ucp_ep_close_nbx((ucp_ep_h)ep, &p));
    UNLOCK(fw);
}

int fsh_ucp_mem_map(void *ctx, void *addr, size_t len, void **memh) {
    ucp_mem_map_params_t params;
    memset(&params, 0, sizeof params);
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = addr;
    params.length = len;
    ucp_mem_h m;
    ucs_status_t st = ucp_mem_map((ucp_context_h)ctx, &params, &m);
    if (st != UCS_OK) return st;
    *memh = m;
    return 0;
}

void fsh_ucp_mem_unmap(void *ctx, void *memh) { (void)ucp_mem_unmap((ucp_context_h)ctx, (ucp_mem_h)memh); }

/* The packed remote key of `memh`: a malloc'd copy (free with fsh_wire_free). */
int fsh_ucp_rkey_pack(void *ctx, void *memh, void **buf, size_t *len) {
    void *packed;
    size_t n;
    ucs_status_t st = ucp_rkey_pack((ucp_context_h)ctx, (ucp_mem_h)memh, &packed, &n);
    if (st != UCS_OK) return st;
    *buf = malloc(n);
    if (*buf == NULL) {
        ucp_rkey_buffer_release(packed);
        return UCS_ERR_NO_MEMORY;
    }
    memcpy(*buf, packed, n);
    *len = n;
    ucp_rkey_buffer_release(packed);
    return 0;
}

int fsh_ucp_rkey_unpack(void *w, void *ep, const void *buf, void **rkey) {
    struct fsh_worker *fw = w;
    ucp_rkey_h k;
    LOCK(fw);
    ucs_status_t st = ucp_ep_rkey_unpack((ucp_ep_h)ep, buf, &k);
    UNLOCK(fw);
    if (st != UCS_OK) return st;
    *rkey = k;
    return 0;
}

void fsh_ucp_rkey_destroy(void *w, void *rkey) {
    struct fsh_worker *fw = w;
    LOCK(fw);
    ucp_rkey_destroy((ucp_rkey_h)rkey);
    UNLOCK(fw);
}

/* Put: returns when `buf` may be reused (local completion). */
int fsh_ucp_put(void *w, void *ep, const void *buf, size_t len, uint64_t raddr, void *rkey) {
    struct fsh_worker *fw = w;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    LOCK(fw);
    ucs_status_t st = wait_request(fw, ucp_put_nbx((ucp_ep_h)ep, buf, len, raddr, (ucp_rkey_h)rkey, &p));
    UNLOCK(fw);
    return st;
}

/* Get: returns when the data is in `buf`. */
int fsh_ucp_get(void *w, void *ep, void *buf, size_t len, uint64_t raddr, void *rkey) {
    struct fsh_worker *fw = w;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    LOCK(fw);
    ucs_status_t st = wait_request(fw, ucp_get_nbx((ucp_ep_h)ep, buf, len, raddr, (ucp_rkey_h)rkey, &p));
    UNLOCK(fw);
    return st;
}

/* ------------------------------------------------------------------------------------- */
/* Operations in flight, for reads that must not wait for ever (hang reports: a host that
 * does not answer is named, not waited for). A started operation is tested with
 * fsh_ucp_request_test while the caller progresses the worker; fsh_ucp_request_release gives
 * one back unfinished: UCX still completes it into its buffers, which must then stay valid
 * (the Rust side leaks them). */

/* Starts a get of `len` bytes from `raddr` into `buf`. Returns 0 with *req NULL when it
 * completed at once, UCS_INPROGRESS with *req, or an error. */
int fsh_ucp_get_start(void *w, void *ep, void *buf, size_t len, uint64_t raddr, void *rkey, void **req) {
    struct fsh_worker *fw = w;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    *req = NULL;
    LOCK(fw);
    ucs_status_ptr_t r = ucp_get_nbx((ucp_ep_h)ep, buf, len, raddr, (ucp_rkey_h)rkey, &p);
    UNLOCK(fw);
    if (r == NULL) return UCS_OK;
    if (UCS_PTR_IS_ERR(r)) return UCS_PTR_STATUS(r);
    *req = r;
    return UCS_INPROGRESS;
}

/* Starts a fetching atomic `op` (a ucp_atomic_op_t other than CSWAP) of `size` (4 or 8)
 * bytes at `raddr`: the operand is read from *operand, the old value lands in *reply. Returns
 * as fsh_ucp_get_start. */
int fsh_ucp_atomic_start(void *w, void *ep, int op, int size, uint64_t *operand, uint64_t *reply, uint64_t raddr,
                         void *rkey, void **req) {
    struct fsh_worker *fw = w;
    *req = NULL;
    if (op == UCP_ATOMIC_OP_CSWAP || (size != 4 && size != 8)) return UCS_ERR_UNSUPPORTED;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    p.datatype = ucp_dt_make_contig((size_t)size);
    p.reply_buffer = reply;
    LOCK(fw);
    ucs_status_ptr_t r = ucp_atomic_op_nbx((ucp_ep_h)ep, (ucp_atomic_op_t)op, operand, 1, raddr, (ucp_rkey_h)rkey, &p);
    UNLOCK(fw);
    if (r == NULL) return UCS_OK;
    if (UCS_PTR_IS_ERR(r)) return UCS_PTR_STATUS(r);
    *req = r;
    return UCS_INPROGRESS;
}

/* UCS_INPROGRESS while `req` runs (progress the worker meanwhile); then its final status, and
 * the request is freed. */
int fsh_ucp_request_test(void *w, void *req) {
    struct fsh_worker *fw = w;
    LOCK(fw);
    ucs_status_t st = ucp_request_check_status(req);
    if (st != UCS_INPROGRESS) ucp_request_free(req);
    UNLOCK(fw);
    return st;
}

/* Gives `req` back to UCX unfinished: it completes without us, into its buffers. */
void fsh_ucp_request_release(void *w, void *req) {
    struct fsh_worker *fw = w;
    LOCK(fw);
    ucp_request_free(req);
    UNLOCK(fw);
}

/* Atomic `op` (a ucp_atomic_op_t) on a 4- or 8-byte word. `value` is the operand (for
 * CSWAP, the value to store if the word equals `compare`). With `fetch`, waits and stores
 * the old value in *result; without, returns at local completion. */
int fsh_ucp_atomic(void *w, void *ep, int op, int size, uint64_t value, uint64_t compare, uint64_t raddr,
                   void *rkey, int fetch, uint64_t *result) {
    union { uint32_t u32; uint64_t u64; } operand, reply;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_contig((size_t)size);
    if (op == UCP_ATOMIC_OP_CSWAP) {
        /* buffer: the value compared with; reply buffer: in, the new value; out, the old. */
        if (size == 4) { operand.u32 = (uint32_t)compare; reply.u32 = (uint32_t)value; }
        else { operand.u64 = compare; reply.u64 = value; }
        fetch = 1;
    } else {
        if (size == 4) operand.u32 = (uint32_t)value;
        else operand.u64 = value;
    }
    if (fetch) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.reply_buffer = &reply;
    }
    struct fsh_worker *fw = w;
    LOCK(fw);
    ucs_status_t st = wait_request(fw, ucp_atomic_op_nbx((ucp_ep_h)ep, (ucp_atomic_op_t)op, &operand, 1, raddr,
                                                         (ucp_rkey_h)rkey, &p));
    UNLOCK(fw);
    if (st == UCS_OK && fetch && result) *result = size == 4 ? reply.u32 : reply.u64;
    return st;
}

/* The ucp_atomic_op_t values, for the Rust side to check its constants against. */
int fsh_ucp_atomic_op_code(int which) {
    switch (which) {
    case 0: return UCP_ATOMIC_OP_ADD;
    case 1: return UCP_ATOMIC_OP_SWAP;
    case 2: return UCP_ATOMIC_OP_CSWAP;
    case 3: return UCP_ATOMIC_OP_AND;
    case 4: return UCP_ATOMIC_OP_OR;
    case 5: return UCP_ATOMIC_OP_XOR;
    default: return -1;
    }
}

/* ------------------------------------------------------------------------------------- */
/* Flagged messages: a payload copied to an offset of one of the receiver's regions, then a
 * flag word of its region 0 raised to at least a value, or increased by a value (a counted
 * message), with release order, in one active message. A reader that sees the flag sees the
 * payload. A put, a fence and a second put cost two sends (each a system call over TCP) where
 * this costs one; and the flag only grows whatever order messages arrive in. */

#define FSH_AM_FLAGGED 1

/* How a flagged message updates its flag word. */
#define FSH_FLAG_AT_LEAST 0
#define FSH_FLAG_ADD 1

struct fsh_flagged_hdr {
    uint64_t region, offset, flag_offset, flag_value, flag_update;
};

static int fits(const struct fsh_worker *fw, uint64_t region, uint64_t offset, uint64_t len) {
    return region < FSH_REGIONS && offset <= fw->region_len[region] && len <= fw->region_len[region] - offset;
}

static ucs_status_t flagged_arrived(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                    const ucp_am_recv_param_t *param) {
    struct fsh_worker *fw = arg;
    struct fsh_flagged_hdr h;
    if (header_length != sizeof h || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        fprintf(stderr, "ferroshmem: a flagged message arrived malformed (header %zu bytes, attributes %#lx)\n",
                header_length, (unsigned long)param->recv_attr);
        abort();
    }
    memcpy(&h, header, sizeof h);
    if (!fits(fw, h.region, h.offset, length) || !fits(fw, 0, h.flag_offset, 8) || h.flag_offset % 8 != 0 ||
        h.flag_update > FSH_FLAG_ADD) {
        fprintf(stderr,
                "ferroshmem: a flagged message addresses outside this PE's regions (region %lu offset %lu length %zu, "
                "flag at %lu)\n",
                (unsigned long)h.region, (unsigned long)h.offset, length, (unsigned long)h.flag_offset);
        abort();
    }
    if (length > 0) memcpy((void *)(uintptr_t)(fw->region_base[h.region] + h.offset), data, length);
    uint64_t *flag = (uint64_t *)(uintptr_t)(fw->region_base[0] + h.flag_offset);
    if (h.flag_update == FSH_FLAG_ADD) {
        __atomic_fetch_add(flag, h.flag_value, __ATOMIC_RELEASE);
        return UCS_OK;
    }
    uint64_t old = __atomic_load_n(flag, __ATOMIC_RELAXED);
    while (old < h.flag_value &&
           !__atomic_compare_exchange_n(flag, &old, h.flag_value, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
    return UCS_OK;
}

/* Accepts flagged messages into the given regions, `count` of them: FSH_REGIONS, the number
 * the caller's regions must match (call before any peer may send one). */
int fsh_ucp_set_flagged_regions(void *w, const uint64_t *base, const uint64_t *len, size_t count) {
    struct fsh_worker *fw = w;
    if (count != FSH_REGIONS) return UCS_ERR_INVALID_PARAM;
    for (int i = 0; i < FSH_REGIONS; i++) {
        fw->region_base[i] = base[i];
        fw->region_len[i] = len[i];
    }
    ucp_am_handler_param_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
                   UCP_AM_HANDLER_PARAM_FIELD_ARG;
    p.id = FSH_AM_FLAGGED;
    p.flags = UCP_AM_FLAG_WHOLE_MSG;
    p.cb = flagged_arrived;
    p.arg = fw;
    LOCK(fw);
    ucs_status_t st = ucp_worker_set_am_recv_handler(fw->w, &p);
    UNLOCK(fw);
    return st;
}

/* Sends a flagged message (`flag_update`: FSH_FLAG_AT_LEAST or FSH_FLAG_ADD); returns when
 * `buf` may be reused. */
int fsh_ucp_put_flagged(void *w, void *ep, uint64_t region, uint64_t offset, const void *buf, size_t len,
                        uint64_t flag_offset, uint64_t flag_value, uint64_t flag_update) {
    struct fsh_worker *fw = w;
    if (flag_update > FSH_FLAG_ADD) return UCS_ERR_INVALID_PARAM;
    struct fsh_flagged_hdr h = {region, offset, flag_offset, flag_value, flag_update};
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    LOCK(fw);
    ucs_status_t st = wait_request(fw, ucp_am_send_nbx((ucp_ep_h)ep, FSH_AM_FLAGGED, &h, sizeof h, buf, len, &p));
    UNLOCK(fw);
    return st;
}
