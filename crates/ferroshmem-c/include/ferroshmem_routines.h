/*
 * ferroshmem_routines.h: every routine of shmem.h, each named FERROSHMEM_API(shmem_NAME).
 * Not for programs: shmem.h includes it with FERROSHMEM_API(NAME) as NAME, pshmem.h (the
 * profiling interface) again with pshmem_... names, so both list the same routines from the
 * same type tables (shmem.h, section 2). No include guard, for that reason.
 *
 * Deprecated routines carry FERROSHMEM_DEPRECATED, which is empty unless the program defines
 * SHMEMX_WARN_DEPRECATED before including shmem.h (see shmem.h).
 */

/* ===================================================================================== */
/* 3. Setup, exit and query routines; memory management                                  */
/* ===================================================================================== */

void FERROSHMEM_API(shmem_init)(void);
int FERROSHMEM_API(shmem_init_thread)(int requested, int *provided);
void FERROSHMEM_API(shmem_query_thread)(int *provided);
void FERROSHMEM_API(shmem_finalize)(void);
void FERROSHMEM_API(shmem_global_exit)(int status);
int FERROSHMEM_API(shmem_my_pe)(void);
int FERROSHMEM_API(shmem_n_pes)(void);
int FERROSHMEM_API(shmem_pe_accessible)(int pe);
int FERROSHMEM_API(shmem_addr_accessible)(const void *addr, int pe);
void *FERROSHMEM_API(shmem_ptr)(const void *dest, int pe);
void FERROSHMEM_API(shmem_info_get_version)(int *major, int *minor);
void FERROSHMEM_API(shmem_info_get_name)(char *name);
void FERROSHMEM_API(shmem_barrier_all)(void);
void FERROSHMEM_API(shmem_sync_all)(void);
/* Profiling control (OpenSHMEM 1.5 profiling chapter): 0 off, 1 on (the default), 2 detailed,
 * other values are tool-defined. ferroshmem records the level for tools and changes nothing. */
void FERROSHMEM_API(shmem_pcontrol)(const int level);

/* Deprecated. */
FERROSHMEM_DEPRECATED void FERROSHMEM_API(start_pes)(int npes);
FERROSHMEM_DEPRECATED int FERROSHMEM_API(_my_pe)(void);
FERROSHMEM_DEPRECATED int FERROSHMEM_API(_num_pes)(void);

void *FERROSHMEM_API(shmem_malloc)(size_t size);
void *FERROSHMEM_API(shmem_malloc_with_hints)(size_t size, long hints);
void *FERROSHMEM_API(shmem_calloc)(size_t count, size_t size);
void *FERROSHMEM_API(shmem_align)(size_t alignment, size_t size);
void *FERROSHMEM_API(shmem_realloc)(void *ptr, size_t size);
void FERROSHMEM_API(shmem_free)(void *ptr);

/* ===================================================================================== */
/* 4. Communication contexts                                                              */
/* ===================================================================================== */

int FERROSHMEM_API(shmem_ctx_create)(long options, shmem_ctx_t *ctx);
void FERROSHMEM_API(shmem_ctx_destroy)(shmem_ctx_t ctx);

/* ===================================================================================== */
/* 5. Remote memory access                                                                */
/* ===================================================================================== */

#define FERROSHMEM_DECL_RMA_ARRAYS(T, N)                                                           \
    FERROSHMEM_CTX_PAIR(void, N##_put, T *dest, const T *source, size_t nelems, int pe)            \
    FERROSHMEM_CTX_PAIR(void, N##_get, T *dest, const T *source, size_t nelems, int pe)            \
    FERROSHMEM_CTX_PAIR(void, N##_put_nbi, T *dest, const T *source, size_t nelems, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_get_nbi, T *dest, const T *source, size_t nelems, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_iput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                        size_t nelems, int pe)                                                     \
    FERROSHMEM_CTX_PAIR(void, N##_iget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                        size_t nelems, int pe)
#define FERROSHMEM_DECL_RMA_SCALAR(T, N)                                                           \
    FERROSHMEM_CTX_PAIR(void, N##_p, T *dest, T value, int pe)                                     \
    FERROSHMEM_CTX_PAIR(T, N##_g, const T *source, int pe)

FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_RMA_ARRAYS)
FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_RMA_SCALAR)
FERROSHMEM_DECL_RMA_ARRAYS(long double, longdouble)

/* long double travels in x87 registers, which the library cannot take: p/g are inline. */
void ferroshmem_longdouble_p(long double *dest, const long double *value, int pe);
void ferroshmem_ctx_longdouble_p(shmem_ctx_t ctx, long double *dest, const long double *value, int pe);
void ferroshmem_longdouble_g(long double *value, const long double *source, int pe);
void ferroshmem_ctx_longdouble_g(shmem_ctx_t ctx, long double *value, const long double *source, int pe);
static inline void FERROSHMEM_API(shmem_longdouble_p)(long double *dest, long double value, int pe) {
    ferroshmem_longdouble_p(dest, &value, pe);
}
static inline void FERROSHMEM_API(shmem_ctx_longdouble_p)(shmem_ctx_t ctx, long double *dest, long double value, int pe) {
    ferroshmem_ctx_longdouble_p(ctx, dest, &value, pe);
}
static inline long double FERROSHMEM_API(shmem_longdouble_g)(const long double *source, int pe) {
    long double value;
    ferroshmem_longdouble_g(&value, source, pe);
    return value;
}
static inline long double FERROSHMEM_API(shmem_ctx_longdouble_g)(shmem_ctx_t ctx, const long double *source, int pe) {
    long double value;
    ferroshmem_ctx_longdouble_g(ctx, &value, source, pe);
    return value;
}

#define FERROSHMEM_DECL_RMA_SIZED(S)                                                               \
    FERROSHMEM_CTX_PAIR(void, put##S, void *dest, const void *source, size_t nelems, int pe)       \
    FERROSHMEM_CTX_PAIR(void, get##S, void *dest, const void *source, size_t nelems, int pe)       \
    FERROSHMEM_CTX_PAIR(void, put##S##_nbi, void *dest, const void *source, size_t nelems, int pe) \
    FERROSHMEM_CTX_PAIR(void, get##S##_nbi, void *dest, const void *source, size_t nelems, int pe) \
    FERROSHMEM_CTX_PAIR(void, iput##S, void *dest, const void *source, ptrdiff_t dst,              \
                        ptrdiff_t sst, size_t nelems, int pe)                                      \
    FERROSHMEM_CTX_PAIR(void, iget##S, void *dest, const void *source, ptrdiff_t dst,              \
                        ptrdiff_t sst, size_t nelems, int pe)
FERROSHMEM_RMA_SIZES(FERROSHMEM_DECL_RMA_SIZED)

FERROSHMEM_CTX_PAIR(void, putmem, void *dest, const void *source, size_t nelems, int pe)
FERROSHMEM_CTX_PAIR(void, getmem, void *dest, const void *source, size_t nelems, int pe)
FERROSHMEM_CTX_PAIR(void, putmem_nbi, void *dest, const void *source, size_t nelems, int pe)
FERROSHMEM_CTX_PAIR(void, getmem_nbi, void *dest, const void *source, size_t nelems, int pe)

/* ===================================================================================== */
/* 6. Atomic memory operations                                                            */
/* ===================================================================================== */

#define FERROSHMEM_DECL_AMO_EXTENDED(T, N)                                                         \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch, const T *source, int pe)                              \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)             \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_set, T *dest, T value, int pe)                            \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_swap, T *dest, T value, int pe)                              \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
#define FERROSHMEM_DECL_AMO_STANDARD(T, N)                                                         \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe)              \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value,     \
                        int pe)                                                                    \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch_inc, T *dest, int pe)                                  \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)                 \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_inc, T *dest, int pe)                                     \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch_add, T *dest, T value, int pe)                         \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_add, T *dest, T value, int pe)
#define FERROSHMEM_DECL_AMO_BITWISE(T, N)                                                          \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch_and, T *dest, T value, int pe)                         \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_and_nbi, T *fetch, T *dest, T value, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_and, T *dest, T value, int pe)                            \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch_or, T *dest, T value, int pe)                          \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_or_nbi, T *fetch, T *dest, T value, int pe)         \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_or, T *dest, T value, int pe)                             \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch_xor, T *dest, T value, int pe)                         \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_xor_nbi, T *fetch, T *dest, T value, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_xor, T *dest, T value, int pe)

FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_EXTENDED)
FERROSHMEM_AMO_EXTENDED_ONLY_TYPES(FERROSHMEM_DECL_AMO_EXTENDED)
FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_STANDARD)
FERROSHMEM_AMO_BITWISE_TYPES(FERROSHMEM_DECL_AMO_BITWISE)

/* Deprecated names (before OpenSHMEM 1.4) of the AMO routines above: each is an entry point of
 * the _atomic_ routine of the same type (the same code; no context forms): cswap is
 * atomic_compare_swap, finc atomic_fetch_inc, inc atomic_inc, fadd atomic_fetch_add, add
 * atomic_add, and fetch, set, swap are atomic_fetch, atomic_set, atomic_swap. They exist for
 * every type that has the matching _atomic_ routine: cswap, finc, inc, fadd and add for the
 * standard AMO types (int, long, long long, the unsigned ones, int32_t, int64_t, uint32_t,
 * uint64_t, size_t, ptrdiff_t); fetch, set and swap for those and float, double. C11 generic
 * forms (shmem_cswap, shmem_fadd, ...): section 11. */
#define FERROSHMEM_DECL_AMO_DEPRECATED_EXTENDED(T, N)                                              \
    FERROSHMEM_DEPRECATED T FERROSHMEM_API(shmem_##N##_fetch)(const T *source, int pe);            \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_##N##_set)(T *dest, T value, int pe);          \
    FERROSHMEM_DEPRECATED T FERROSHMEM_API(shmem_##N##_swap)(T *dest, T value, int pe);
#define FERROSHMEM_DECL_AMO_DEPRECATED_STANDARD(T, N)                                              \
    FERROSHMEM_DEPRECATED T FERROSHMEM_API(shmem_##N##_cswap)(T *dest, T cond, T value, int pe);   \
    FERROSHMEM_DEPRECATED T FERROSHMEM_API(shmem_##N##_finc)(T *dest, int pe);                     \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_##N##_inc)(T *dest, int pe);                   \
    FERROSHMEM_DEPRECATED T FERROSHMEM_API(shmem_##N##_fadd)(T *dest, T value, int pe);            \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_##N##_add)(T *dest, T value, int pe);

FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_DEPRECATED_EXTENDED)
FERROSHMEM_AMO_EXTENDED_ONLY_TYPES(FERROSHMEM_DECL_AMO_DEPRECATED_EXTENDED)
FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_DEPRECATED_STANDARD)

/* ===================================================================================== */
/* 7. Signaling operations                                                                */
/* ===================================================================================== */

#define FERROSHMEM_DECL_PUT_SIGNAL(T, N)                                                           \
    FERROSHMEM_CTX_PAIR(void, N##_put_signal, T *dest, const T *source, size_t nelems,             \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                   \
    FERROSHMEM_CTX_PAIR(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems,         \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
#define FERROSHMEM_DECL_PUT_SIGNAL_SIZED(S)                                                        \
    FERROSHMEM_CTX_PAIR(void, put##S##_signal, void *dest, const void *source, size_t nelems,      \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                   \
    FERROSHMEM_CTX_PAIR(void, put##S##_signal_nbi, void *dest, const void *source, size_t nelems,  \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_PUT_SIGNAL)
FERROSHMEM_DECL_PUT_SIGNAL(long double, longdouble)
FERROSHMEM_RMA_SIZES(FERROSHMEM_DECL_PUT_SIGNAL_SIZED)
FERROSHMEM_DECL_PUT_SIGNAL_SIZED(mem)

uint64_t FERROSHMEM_API(shmem_signal_fetch)(const uint64_t *sig_addr);
uint64_t FERROSHMEM_API(shmem_signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ===================================================================================== */
/* 8. Point-to-point synchronization                                                      */
/* ===================================================================================== */

#define FERROSHMEM_DECL_P2P(T, N)                                                                  \
    void FERROSHMEM_API(shmem_##N##_wait_until)(T *ivar, int cmp, T cmp_value);                    \
    void FERROSHMEM_API(shmem_##N##_wait_until_all)(T *ivars, size_t nelems, const int *status, int cmp, \
                                    T cmp_value);                                                  \
    size_t FERROSHMEM_API(shmem_##N##_wait_until_any)(T *ivars, size_t nelems, const int *status, int cmp, \
                                      T cmp_value);                                                \
    size_t FERROSHMEM_API(shmem_##N##_wait_until_some)(T *ivars, size_t nelems, size_t *indices,   \
                                       const int *status, int cmp, T cmp_value);                   \
    void FERROSHMEM_API(shmem_##N##_wait_until_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, \
                                           T *cmp_values);                                         \
    size_t FERROSHMEM_API(shmem_##N##_wait_until_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, \
                                             T *cmp_values);                                       \
    size_t FERROSHMEM_API(shmem_##N##_wait_until_some_vector)(T *ivars, size_t nelems, size_t *indices, \
                                              const int *status, int cmp, T *cmp_values);          \
    int FERROSHMEM_API(shmem_##N##_test)(T *ivar, int cmp, T cmp_value);                           \
    int FERROSHMEM_API(shmem_##N##_test_all)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t FERROSHMEM_API(shmem_##N##_test_any)(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t FERROSHMEM_API(shmem_##N##_test_some)(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                 int cmp, T cmp_value);                                            \
    int FERROSHMEM_API(shmem_##N##_test_all_vector)(T *ivars, size_t nelems, const int *status, int cmp, \
                                    T *cmp_values);                                                \
    size_t FERROSHMEM_API(shmem_##N##_test_any_vector)(T *ivars, size_t nelems, const int *status, int cmp, \
                                       T *cmp_values);                                             \
    size_t FERROSHMEM_API(shmem_##N##_test_some_vector)(T *ivars, size_t nelems, size_t *indices,  \
                                        const int *status, int cmp, T *cmp_values);                \
    /* Deprecated: waits until *ivar != cmp_value. */                                              \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_##N##_wait)(T *ivar, T cmp_value);

FERROSHMEM_P2P_TYPES(FERROSHMEM_DECL_P2P)

/* Deprecated: waits until *ivar != cmp_value. */
FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_wait)(long *ivar, long cmp_value);

/* ===================================================================================== */
/* 9. Memory ordering                                                                     */
/* ===================================================================================== */

void FERROSHMEM_API(shmem_fence)(void);
void FERROSHMEM_API(shmem_ctx_fence)(shmem_ctx_t ctx);
void FERROSHMEM_API(shmem_quiet)(void);
void FERROSHMEM_API(shmem_ctx_quiet)(shmem_ctx_t ctx);

/* ===================================================================================== */
/* 10. Distributed locking                                                                */
/* ===================================================================================== */

void FERROSHMEM_API(shmem_set_lock)(long *lock);
void FERROSHMEM_API(shmem_clear_lock)(long *lock);
int FERROSHMEM_API(shmem_test_lock)(long *lock);

/* ===================================================================================== */
/* 12. Teams                                                                              */
/* ===================================================================================== */

/* Queries: -1 on SHMEM_TEAM_INVALID. translate_pe returns -1 when either team is INVALID,
 * src_pe is negative or >= the size of src_team, or the PE is not in dest_team. get_config
 * returns nonzero on INVALID and fills the fields config_mask names (mask 0: nothing). */
int FERROSHMEM_API(shmem_team_my_pe)(shmem_team_t team);
int FERROSHMEM_API(shmem_team_n_pes)(shmem_team_t team);
int FERROSHMEM_API(shmem_team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
/* shmem_ptr with pe numbered in team: NULL for SHMEM_TEAM_INVALID, pe outside the team, an
 * address that is not symmetric, or memory that loads and stores cannot reach. */
void *FERROSHMEM_API(shmem_team_ptr)(shmem_team_t team, const void *dest, int pe);
int FERROSHMEM_API(shmem_team_get_config)(shmem_team_t team, long config_mask, shmem_team_config_t *config);

/* Collective over the parent. Any failure (invalid triplet or xrange, invalid config, no free
 * team slot on some PE) returns the same nonzero code on every PE of the parent and sets every
 * output to SHMEM_TEAM_INVALID; nothing is left half-made. Non-members of a strided split get
 * SHMEM_TEAM_INVALID and 0. The stride may be negative (reverse order) or 0 (size 1 only).
 * An INVALID parent returns nonzero with INVALID outputs. Codes: SHMEMX_TEAM_ERR_* in
 * shmemx.h; SHMEM_DEBUG=1 prints the reason. */
int FERROSHMEM_API(shmem_team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int FERROSHMEM_API(shmem_team_split_2d)(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);

/* Collective over the team; destroys the team's shareable contexts too. SHMEM_TEAM_INVALID is a
 * no-op. A predefined team (or a handle that is no longer a team) is refused: a message on
 * stderr, nothing destroyed, and the program carries on. */
void FERROSHMEM_API(shmem_team_destroy)(shmem_team_t team);

/* Synchronises the PEs of the team: 0, or nonzero on INVALID (and on a checked-mode mismatch,
 * SHMEMX_CHECK_COLLECTIVES=1, reported on stderr). */
int FERROSHMEM_API(shmem_team_sync)(shmem_team_t team);

/* Team contexts: PE numbers given to RMA, AMO and signal routines on such a context are PE
 * numbers of its team (a number outside the team stops the job naming the routine).
 * num_contexts reserves contexts; creating more still works. shmem_ctx_get_team gives
 * SHMEM_TEAM_WORLD for shmem_ctx_create contexts and SHMEM_CTX_DEFAULT. */
int FERROSHMEM_API(shmem_team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
int FERROSHMEM_API(shmem_ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);

/* ===================================================================================== */
/* 13. Collectives                                                                        */
/* ===================================================================================== */

/* Team forms return 0, or nonzero when the team is SHMEM_TEAM_INVALID (or destroyed) or an
 * argument is wrong alike on every PE (PE_root outside the team, negative strides); a buffer
 * that is not symmetric stops the job. Sources and destinations are symmetric; reductions may
 * run in place (dest == source); the others need disjoint source and dest. Broadcast updates
 * dest on the root too (1.5). Zero elements still synchronise the team. */

/* Reduction types: max, min, sum and prod only / also and, or and xor. */
#define FERROSHMEM_REDUCE_ARITH_TYPES(X)                                                           \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                  \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(float, float) X(double, double)                 \
    X(long double, longdouble)
#define FERROSHMEM_REDUCE_BITWISE_TYPES(X)                                                         \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)           \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size)

#define FERROSHMEM_DECL_COLL_MOVES(T, N)                                                           \
    int FERROSHMEM_API(shmem_##N##_broadcast)(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
    int FERROSHMEM_API(shmem_##N##_collect)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int FERROSHMEM_API(shmem_##N##_fcollect)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int FERROSHMEM_API(shmem_##N##_alltoall)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int FERROSHMEM_API(shmem_##N##_alltoalls)(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems);
#define FERROSHMEM_DECL_REDUCE_OP(T, N, OP)                                                        \
    int FERROSHMEM_API(shmem_##N##_##OP##_reduce)(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define FERROSHMEM_DECL_REDUCE_ARITH(T, N)                                                         \
    FERROSHMEM_DECL_REDUCE_OP(T, N, max) FERROSHMEM_DECL_REDUCE_OP(T, N, min)                      \
    FERROSHMEM_DECL_REDUCE_OP(T, N, sum) FERROSHMEM_DECL_REDUCE_OP(T, N, prod)
#define FERROSHMEM_DECL_REDUCE_ALL(T, N)                                                           \
    FERROSHMEM_DECL_REDUCE_OP(T, N, and) FERROSHMEM_DECL_REDUCE_OP(T, N, or)                       \
    FERROSHMEM_DECL_REDUCE_OP(T, N, xor) FERROSHMEM_DECL_REDUCE_ARITH(T, N)

FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_COLL_MOVES)
FERROSHMEM_DECL_COLL_MOVES(long double, longdouble)
int FERROSHMEM_API(shmem_broadcastmem)(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int FERROSHMEM_API(shmem_collectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int FERROSHMEM_API(shmem_fcollectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int FERROSHMEM_API(shmem_alltoallmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int FERROSHMEM_API(shmem_alltoallsmem)(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);
FERROSHMEM_REDUCE_ARITH_TYPES(FERROSHMEM_DECL_REDUCE_ARITH)
FERROSHMEM_REDUCE_BITWISE_TYPES(FERROSHMEM_DECL_REDUCE_ALL)
FERROSHMEM_DECL_REDUCE_OP(FERROSHMEM_COMPLEXF, complexf, sum) FERROSHMEM_DECL_REDUCE_OP(FERROSHMEM_COMPLEXF, complexf, prod)
FERROSHMEM_DECL_REDUCE_OP(FERROSHMEM_COMPLEXD, complexd, sum) FERROSHMEM_DECL_REDUCE_OP(FERROSHMEM_COMPLEXD, complexd, prod)

/* Deprecated active-set forms: the PEs PE_start + i * 2^logPE_stride, i < PE_size. pSync is a
 * symmetric array of SHMEM_*_SYNC_SIZE longs, all SHMEM_SYNC_VALUE on every PE of the set
 * before the first call; each call leaves it so again, so it can be reused at once. pWrk is
 * not needed (accepted and ignored). The root's dest is not updated by broadcast32/64. */


FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);

#define FERROSHMEM_DECL_SET_MOVES(S)                                                               \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_broadcast##S)(void *dest, const void *source, size_t nelems, int PE_root, \
                            int PE_start, int logPE_stride, int PE_size, long *pSync);             \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_collect##S)(void *dest, const void *source, size_t nelems, int PE_start, \
                          int logPE_stride, int PE_size, long *pSync);                             \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_fcollect##S)(void *dest, const void *source, size_t nelems, int PE_start, \
                           int logPE_stride, int PE_size, long *pSync);                            \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_alltoall##S)(void *dest, const void *source, size_t nelems, int PE_start, \
                           int logPE_stride, int PE_size, long *pSync);                            \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_alltoalls##S)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
FERROSHMEM_DECL_SET_MOVES(32)
FERROSHMEM_DECL_SET_MOVES(64)

#define FERROSHMEM_DECL_TO_ALL_OP(T, N, OP)                                                        \
    FERROSHMEM_DEPRECATED void FERROSHMEM_API(shmem_##N##_##OP##_to_all)(T *dest, const T *source, int nreduce, int PE_start, \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define FERROSHMEM_DECL_TO_ALL_ARITH(T, N)                                                         \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, max) FERROSHMEM_DECL_TO_ALL_OP(T, N, min)                      \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, sum) FERROSHMEM_DECL_TO_ALL_OP(T, N, prod)
#define FERROSHMEM_DECL_TO_ALL_ALL(T, N)                                                           \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, and) FERROSHMEM_DECL_TO_ALL_OP(T, N, or)                       \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, xor) FERROSHMEM_DECL_TO_ALL_ARITH(T, N)
/* The real to_all types of the specification: ALL(T, N) for and/or/xor/max/min/sum/prod,
 * ARITH(T, N) for max/min/sum/prod. */
#define FERROSHMEM_TO_ALL_TYPES(ALL, ARITH)                                                        \
    ALL(short, short) ALL(int, int) ALL(long, long) ALL(long long, longlong) ARITH(float, float)   \
    ARITH(double, double) ARITH(long double, longdouble)
FERROSHMEM_TO_ALL_TYPES(FERROSHMEM_DECL_TO_ALL_ALL, FERROSHMEM_DECL_TO_ALL_ARITH)
FERROSHMEM_DECL_TO_ALL_OP(FERROSHMEM_COMPLEXF, complexf, sum) FERROSHMEM_DECL_TO_ALL_OP(FERROSHMEM_COMPLEXF, complexf, prod)
FERROSHMEM_DECL_TO_ALL_OP(FERROSHMEM_COMPLEXD, complexd, sum) FERROSHMEM_DECL_TO_ALL_OP(FERROSHMEM_COMPLEXD, complexd, prod)

#ifdef FERROSHMEM_GNU_COMPLEX
/* C++ overloads of the complex reductions for C's complex types (see shmem.h): G is the GNU
 * complex type, T the std::complex type of the C routine, which has the same layout. */
#define FERROSHMEM_GNU_COMPLEX_REDUCE(G, T, N, OP)                                                 \
    inline int FERROSHMEM_API(shmem_##N##_##OP##_reduce)(shmem_team_t team, G *dest, const G *source, size_t nreduce) { \
        return FERROSHMEM_API(shmem_##N##_##OP##_reduce)(team, reinterpret_cast<T *>(dest),              \
                                                         reinterpret_cast<const T *>(source), nreduce);   \
    }                                                                                              \
    FERROSHMEM_DEPRECATED inline void FERROSHMEM_API(shmem_##N##_##OP##_to_all)(G *dest, const G *source, int nreduce, \
        int PE_start, int logPE_stride, int PE_size, G *pWrk, long *pSync) {                       \
        FERROSHMEM_API(shmem_##N##_##OP##_to_all)(reinterpret_cast<T *>(dest), reinterpret_cast<const T *>(source), \
                                                  nreduce, PE_start, logPE_stride, PE_size,         \
                                                  reinterpret_cast<T *>(pWrk), pSync);              \
    }
extern "C++" {
FERROSHMEM_GNU_COMPLEX_REDUCE(ferroshmem_gnu_complexf, FERROSHMEM_COMPLEXF, complexf, sum)
FERROSHMEM_GNU_COMPLEX_REDUCE(ferroshmem_gnu_complexf, FERROSHMEM_COMPLEXF, complexf, prod)
FERROSHMEM_GNU_COMPLEX_REDUCE(ferroshmem_gnu_complexd, FERROSHMEM_COMPLEXD, complexd, sum)
FERROSHMEM_GNU_COMPLEX_REDUCE(ferroshmem_gnu_complexd, FERROSHMEM_COMPLEXD, complexd, prod)
}
#endif
