/*
 * shmem.h: the OpenSHMEM 1.5 C interface of ferroshmem (libferroshmem.so).
 *
 * Sections:
 *   1. Library constants and types
 *   2. Type tables (X-macros: one line per type, used by the declarations below)
 *   3. Setup, exit and query routines; memory management
 *   4. Communication contexts
 *   5. Remote memory access (RMA)
 *   6. Atomic memory operations (AMO)
 *   7. Signaling operations
 *   8. Point-to-point synchronization
 *   9. Memory ordering
 *  10. Distributed locking
 *  11. C11 type-generic interfaces
 *  12. Teams (team types are in section 1)
 *  13. Collectives (team forms, deprecated active-set forms, C11 generic forms)
 *
 * The typed routines are declared through type tables so that every family lists each
 * standard type exactly once; the names and signatures are those of the specification.
 * Extensions live in shmemx.h.
 */
#ifndef FERROSHMEM_SHMEM_H
#define FERROSHMEM_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================================== */
/* 1. Library constants and types                                                        */
/* ===================================================================================== */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "ferroshmem"
/* The specification version as MAJOR * 100 + MINOR. */
#define __OPENSHMEM_VERSION 105

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

#define SHMEM_CTX_SERIALIZED 1L
#define SHMEM_CTX_PRIVATE 2L
#define SHMEM_CTX_NOSTORE 4L

/* A communication context. Opaque: only handles are passed around. */
typedef struct ferroshmem_ctx *shmem_ctx_t;
extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* A team handle. Opaque and never dereferenced: the pointer value is the team's handle (0 is
 * INVALID, 1-4 the predefined teams; shmemx.h adds SHMEMX_TEAM_NODE, _SAME_MYPE_NODE), so
 * handles compare with == and a destroyed handle is recognised, not followed. */
typedef struct ferroshmem_team *shmem_team_t;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)1)
#define SHMEM_TEAM_SHARED ((shmem_team_t)2)

/* Team configuration (split routines). Only the fields named in the config_mask are read. */
typedef struct {
    int num_contexts; /* contexts reserved for the team (default 0) */
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* ===================================================================================== */
/* 2. Type tables: X(C type, TYPENAME)                                                    */
/* ===================================================================================== */

/* Standard RMA types (long double is separate: its p/g are inline, see section 5). */
#define FERROSHMEM_RMA_TYPES(X)                                                                   \
    X(float, float) X(double, double) X(char, char) X(signed char, schar) X(short, short)          \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned char, uchar)                        \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                         \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)                     \
    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Standard AMO types. */
#define FERROSHMEM_AMO_STANDARD_TYPES(X)                                                          \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong)  \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)        \
    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Extended AMO types that are not standard AMO types. */
#define FERROSHMEM_AMO_EXTENDED_ONLY_TYPES(X) X(float, float) X(double, double)

/* Bitwise AMO types. */
#define FERROSHMEM_AMO_BITWISE_TYPES(X)                                                           \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)                  \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types. */
#define FERROSHMEM_P2P_TYPES(X)                                                                   \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort)      \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)                  \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)     \
    X(ptrdiff_t, ptrdiff)

/* Sizes of the sized RMA routines (shmem_put8 ... shmem_put128), in bits. */
#define FERROSHMEM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* Declares shmem_NAME(PARAMS) and shmem_ctx_NAME(shmem_ctx_t ctx, PARAMS). */
#define FERROSHMEM_CTX_PAIR(RET, NAME, ...)                                                       \
    RET shmem_##NAME(__VA_ARGS__);                                                                 \
    RET shmem_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__);

/* ===================================================================================== */
/* 3. Setup, exit and query routines; memory management                                  */
/* ===================================================================================== */

void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_barrier_all(void);
void shmem_sync_all(void);
/* Profiling control (OpenSHMEM 1.5 profiling chapter): 0 off, 1 on (the default), 2 detailed,
 * other values are tool-defined. ferroshmem records the level for tools and changes nothing. */
void shmem_pcontrol(const int level);

/* Deprecated. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);

void *shmem_malloc(size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);

/* ===================================================================================== */
/* 4. Communication contexts                                                              */
/* ===================================================================================== */

int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);

/* ===================================================================================== */
/* 5. Remote memory access                                                                */
/* ===================================================================================== */

#define FERROSHMEM_DECL_RMA_ARRAYS(T, N)                                                          \
    FERROSHMEM_CTX_PAIR(void, N##_put, T *dest, const T *source, size_t nelems, int pe)            \
    FERROSHMEM_CTX_PAIR(void, N##_get, T *dest, const T *source, size_t nelems, int pe)            \
    FERROSHMEM_CTX_PAIR(void, N##_put_nbi, T *dest, const T *source, size_t nelems, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_get_nbi, T *dest, const T *source, size_t nelems, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_iput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                        size_t nelems, int pe)                                                     \
    FERROSHMEM_CTX_PAIR(void, N##_iget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                        size_t nelems, int pe)
#define FERROSHMEM_DECL_RMA_SCALAR(T, N)                                                          \
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
static inline void shmem_longdouble_p(long double *dest, long double value, int pe) {
    ferroshmem_longdouble_p(dest, &value, pe);
}
static inline void shmem_ctx_longdouble_p(shmem_ctx_t ctx, long double *dest, long double value, int pe) {
    ferroshmem_ctx_longdouble_p(ctx, dest, &value, pe);
}
static inline long double shmem_longdouble_g(const long double *source, int pe) {
    long double value;
    ferroshmem_longdouble_g(&value, source, pe);
    return value;
}
static inline long double shmem_ctx_longdouble_g(shmem_ctx_t ctx, const long double *source, int pe) {
    long double value;
    ferroshmem_ctx_longdouble_g(ctx, &value, source, pe);
    return value;
}

#define FERROSHMEM_DECL_RMA_SIZED(S)                                                              \
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

#define FERROSHMEM_DECL_AMO_EXTENDED(T, N)                                                        \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch, const T *source, int pe)                              \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)             \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_set, T *dest, T value, int pe)                            \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_swap, T *dest, T value, int pe)                              \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
#define FERROSHMEM_DECL_AMO_STANDARD(T, N)                                                        \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe)              \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value,     \
                        int pe)                                                                    \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch_inc, T *dest, int pe)                                  \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)                 \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_inc, T *dest, int pe)                                     \
    FERROSHMEM_CTX_PAIR(T, N##_atomic_fetch_add, T *dest, T value, int pe)                         \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)        \
    FERROSHMEM_CTX_PAIR(void, N##_atomic_add, T *dest, T value, int pe)
#define FERROSHMEM_DECL_AMO_BITWISE(T, N)                                                         \
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

/* ===================================================================================== */
/* 7. Signaling operations                                                                */
/* ===================================================================================== */

#define FERROSHMEM_DECL_PUT_SIGNAL(T, N)                                                          \
    FERROSHMEM_CTX_PAIR(void, N##_put_signal, T *dest, const T *source, size_t nelems,             \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                   \
    FERROSHMEM_CTX_PAIR(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems,         \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
#define FERROSHMEM_DECL_PUT_SIGNAL_SIZED(S)                                                       \
    FERROSHMEM_CTX_PAIR(void, put##S##_signal, void *dest, const void *source, size_t nelems,      \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                   \
    FERROSHMEM_CTX_PAIR(void, put##S##_signal_nbi, void *dest, const void *source, size_t nelems,  \
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_PUT_SIGNAL)
FERROSHMEM_DECL_PUT_SIGNAL(long double, longdouble)
FERROSHMEM_RMA_SIZES(FERROSHMEM_DECL_PUT_SIGNAL_SIZED)
FERROSHMEM_DECL_PUT_SIGNAL_SIZED(mem)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ===================================================================================== */
/* 8. Point-to-point synchronization                                                      */
/* ===================================================================================== */

#define FERROSHMEM_DECL_P2P(T, N)                                                                 \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                    \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value);                                                  \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value);                                                \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value);                   \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values);                                         \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values);                                       \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values);          \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                           \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);    \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value);                                            \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values);                                                \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values);                                             \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values);                \
    /* Deprecated: waits until *ivar != cmp_value. */                                              \
    void shmem_##N##_wait(T *ivar, T cmp_value);

FERROSHMEM_P2P_TYPES(FERROSHMEM_DECL_P2P)

/* Deprecated: waits until *ivar != cmp_value. */
void shmem_wait(long *ivar, long cmp_value);

/* ===================================================================================== */
/* 9. Memory ordering                                                                     */
/* ===================================================================================== */

void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ===================================================================================== */
/* 10. Distributed locking                                                                */
/* ===================================================================================== */

void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ===================================================================================== */
/* 11. C11 type-generic interfaces                                                        */
/* ===================================================================================== */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* Selected when no overload matches; it takes no arguments, so the call does not compile. */
void ferroshmem_c11_no_overload_for_these_argument_types(void);

#define FERROSHMEM_C11_ARG0(...) FERROSHMEM_C11_ARG0_(__VA_ARGS__, ~)
#define FERROSHMEM_C11_ARG0_(a, ...) a
#define FERROSHMEM_C11_ARG1(...) FERROSHMEM_C11_ARG1_(__VA_ARGS__, ~, ~)
#define FERROSHMEM_C11_ARG1_(a, b, ...) b

/* Generic type tables: one C type per entry (the fixed-width types are typedefs of these). */
#define FERROSHMEM_C11_RMA(X, OP)                                                                 \
    X(float, float, OP) X(double, double, OP) X(long double, longdouble, OP) X(char, char, OP)     \
    X(signed char, schar, OP) X(short, short, OP) X(int, int, OP) X(long, long, OP)                 \
    X(long long, longlong, OP) X(unsigned char, uchar, OP) X(unsigned short, ushort, OP)            \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)
#define FERROSHMEM_C11_AMO_STANDARD(X, OP)                                                        \
    X(int, int, OP) X(long, long, OP) X(long long, longlong, OP) X(unsigned int, uint, OP)          \
    X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)
#define FERROSHMEM_C11_AMO_EXTENDED(X, OP)                                                        \
    FERROSHMEM_C11_AMO_STANDARD(X, OP) X(float, float, OP) X(double, double, OP)
#define FERROSHMEM_C11_AMO_BITWISE(X, OP)                                                         \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)      \
    X(int32_t, int32, OP) X(int64_t, int64, OP)
#define FERROSHMEM_C11_P2P(X, OP)                                                                 \
    X(short, short, OP) X(int, int, OP) X(long, long, OP) X(long long, longlong, OP)                \
    X(unsigned short, ushort, OP) X(unsigned int, uint, OP) X(unsigned long, ulong, OP)             \
    X(unsigned long long, ulonglong, OP)

/* Associations: A for T *, AC for T * and const T * (routines whose pointer is a source).
 * OP is the routine's suffix with its leading underscore (_put, _atomic_fetch_add, ...). */
#define FERROSHMEM_C11_A(T, N, OP) T *: shmem_##N##OP,
#define FERROSHMEM_C11_AC(T, N, OP) T *: shmem_##N##OP, const T *: shmem_##N##OP,
#define FERROSHMEM_C11_CTX_A(T, N, OP) T *: shmem_ctx_##N##OP,
#define FERROSHMEM_C11_CTX_AC(T, N, OP) T *: shmem_ctx_##N##OP, const T *: shmem_ctx_##N##OP,

#define FERROSHMEM_C11_SELECT(TYPES, ASSOC, OP, ARG)                                              \
    _Generic((ARG), TYPES(ASSOC, OP) default: ferroshmem_c11_no_overload_for_these_argument_types)
/* Overloads on the type of the first argument. */
#define FERROSHMEM_C11(TYPES, KIND, OP, ...)                                                      \
    FERROSHMEM_C11_SELECT(TYPES, FERROSHMEM_C11_##KIND, OP, FERROSHMEM_C11_ARG0(__VA_ARGS__))(__VA_ARGS__)
/* The same, plus the overloads whose first argument is a context (typed on the second). */
#define FERROSHMEM_C11_CTX(TYPES, KIND, OP, ...)                                                  \
    _Generic((FERROSHMEM_C11_ARG0(__VA_ARGS__)),                                                   \
        shmem_ctx_t: FERROSHMEM_C11_SELECT(TYPES, FERROSHMEM_C11_CTX_##KIND, OP,                   \
                                           FERROSHMEM_C11_ARG1(__VA_ARGS__)),                      \
        TYPES(FERROSHMEM_C11_##KIND, OP)                                                           \
        default: ferroshmem_c11_no_overload_for_these_argument_types)(__VA_ARGS__)

#define shmem_put(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _put, __VA_ARGS__)
#define shmem_get(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _get, __VA_ARGS__)
#define shmem_p(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _p, __VA_ARGS__)
#define shmem_g(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, AC, _g, __VA_ARGS__)
#define shmem_iput(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _iput, __VA_ARGS__)
#define shmem_iget(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _iget, __VA_ARGS__)
#define shmem_put_nbi(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _get_nbi, __VA_ARGS__)

#define shmem_atomic_fetch(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_EXTENDED, AC, _atomic_fetch, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                                               \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_EXTENDED, A, _atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_set(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_EXTENDED, A, _atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_EXTENDED, A, _atomic_swap, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                                                \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_EXTENDED, A, _atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                            \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                        \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                                               \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                           \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                                               \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                           \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_STANDARD, A, _atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                                               \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                           \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_and(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                                                \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                            \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_or(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                                               \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                           \
    FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_fetch_xor_nbi, __VA_ARGS__)
#define shmem_atomic_xor(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_AMO_BITWISE, A, _atomic_xor, __VA_ARGS__)

#define shmem_put_signal(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) FERROSHMEM_C11_CTX(FERROSHMEM_C11_RMA, A, _put_signal_nbi, __VA_ARGS__)

#define shmem_wait_until(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)                                                          \
    FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)                                                          \
    FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...)                                                         \
    FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _test, __VA_ARGS__)
#define shmem_test_all(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _test_all, __VA_ARGS__)
#define shmem_test_any(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _test_any, __VA_ARGS__)
#define shmem_test_some(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) FERROSHMEM_C11(FERROSHMEM_C11_P2P, A, _test_some_vector, __VA_ARGS__)

#endif /* C11 */

/* ===================================================================================== */
/* 12. Teams                                                                              */
/* ===================================================================================== */

/* Queries: -1 on SHMEM_TEAM_INVALID. translate_pe returns -1 when either team is INVALID,
 * src_pe is negative or >= the size of src_team, or the PE is not in dest_team. get_config
 * returns nonzero on INVALID and fills the fields config_mask names (mask 0: nothing). */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
/* shmem_ptr with pe numbered in team: NULL for SHMEM_TEAM_INVALID, pe outside the team, an
 * address that is not symmetric, or memory that loads and stores cannot reach. */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);

/* Collective over the parent. Any failure (invalid triplet or xrange, invalid config, no free
 * team slot on some PE) returns the same nonzero code on every PE of the parent and sets every
 * output to SHMEM_TEAM_INVALID; nothing is left half-made. Non-members of a strided split get
 * SHMEM_TEAM_INVALID and 0. The stride may be negative (reverse order) or 0 (size 1 only).
 * An INVALID parent returns nonzero with INVALID outputs. Codes: SHMEMX_TEAM_ERR_* in
 * shmemx.h; SHMEM_DEBUG=1 prints the reason. */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);

/* Collective over the team; destroys the team's shareable contexts too. SHMEM_TEAM_INVALID is a
 * no-op. A predefined team (or a handle that is no longer a team) is refused: a message on
 * stderr, nothing destroyed, and the program carries on. */
void shmem_team_destroy(shmem_team_t team);

/* Synchronises the PEs of the team: 0, or nonzero on INVALID (and on a checked-mode mismatch,
 * SHMEMX_CHECK_COLLECTIVES=1, reported on stderr). */
int shmem_team_sync(shmem_team_t team);

/* Team contexts: PE numbers given to RMA, AMO and signal routines on such a context are PE
 * numbers of its team (a number outside the team stops the job naming the routine).
 * num_contexts reserves contexts; creating more still works. shmem_ctx_get_team gives
 * SHMEM_TEAM_WORLD for shmem_ctx_create contexts and SHMEM_CTX_DEFAULT. */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ===================================================================================== */
/* 13. Collectives                                                                        */
/* ===================================================================================== */

/* Team forms return 0, or nonzero when the team is SHMEM_TEAM_INVALID (or destroyed) or an
 * argument is wrong alike on every PE (PE_root outside the team, negative strides); a buffer
 * that is not symmetric stops the job. Sources and destinations are symmetric; reductions may
 * run in place (dest == source); the others need disjoint source and dest. Broadcast updates
 * dest on the root too (1.5). Zero elements still synchronise the team. */

/* Reduction types: max, min, sum and prod only / also and, or and xor. */
#define FERROSHMEM_REDUCE_ARITH_TYPES(X)                                                          \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                   \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(float, float) X(double, double)                \
    X(long double, longdouble)
#define FERROSHMEM_REDUCE_BITWISE_TYPES(X)                                                        \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)            \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size)

#define FERROSHMEM_DECL_COLL_MOVES(T, N)                                                          \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root); \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);            \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);           \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);           \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,           \
                              ptrdiff_t sst, size_t nelems);
#define FERROSHMEM_DECL_REDUCE_OP(T, N, OP)                                                       \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define FERROSHMEM_DECL_REDUCE_ARITH(T, N)                                                        \
    FERROSHMEM_DECL_REDUCE_OP(T, N, max) FERROSHMEM_DECL_REDUCE_OP(T, N, min)                      \
    FERROSHMEM_DECL_REDUCE_OP(T, N, sum) FERROSHMEM_DECL_REDUCE_OP(T, N, prod)
#define FERROSHMEM_DECL_REDUCE_ALL(T, N)                                                          \
    FERROSHMEM_DECL_REDUCE_OP(T, N, and) FERROSHMEM_DECL_REDUCE_OP(T, N, or)                       \
    FERROSHMEM_DECL_REDUCE_OP(T, N, xor) FERROSHMEM_DECL_REDUCE_ARITH(T, N)

FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_COLL_MOVES)
FERROSHMEM_DECL_COLL_MOVES(long double, longdouble)
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);
FERROSHMEM_REDUCE_ARITH_TYPES(FERROSHMEM_DECL_REDUCE_ARITH)
FERROSHMEM_REDUCE_BITWISE_TYPES(FERROSHMEM_DECL_REDUCE_ALL)
#ifndef __cplusplus
FERROSHMEM_DECL_REDUCE_OP(float _Complex, complexf, sum) FERROSHMEM_DECL_REDUCE_OP(float _Complex, complexf, prod)
FERROSHMEM_DECL_REDUCE_OP(double _Complex, complexd, sum) FERROSHMEM_DECL_REDUCE_OP(double _Complex, complexd, prod)
#endif

/* Deprecated active-set forms: the PEs PE_start + i * 2^logPE_stride, i < PE_size. pSync is a
 * symmetric array of SHMEM_*_SYNC_SIZE longs, all SHMEM_SYNC_VALUE on every PE of the set
 * before the first call; each call leaves it so again, so it can be reused at once. pWrk is
 * not needed (accepted and ignored). The root's dest is not updated by broadcast32/64. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 4
#define SHMEM_BARRIER_SYNC_SIZE 4
#define SHMEM_BCAST_SYNC_SIZE 4
#define SHMEM_COLLECT_SYNC_SIZE 4
#define SHMEM_REDUCE_SYNC_SIZE 4
#define SHMEM_ALLTOALL_SYNC_SIZE 4
#define SHMEM_ALLTOALLS_SYNC_SIZE 4
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

#define FERROSHMEM_DECL_SET_MOVES(S)                                                              \
    void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root,            \
                            int PE_start, int logPE_stride, int PE_size, long *pSync);             \
    void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start,             \
                          int logPE_stride, int PE_size, long *pSync);                             \
    void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync);                            \
    void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync);                            \
    void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
FERROSHMEM_DECL_SET_MOVES(32)
FERROSHMEM_DECL_SET_MOVES(64)

#define FERROSHMEM_DECL_TO_ALL_OP(T, N, OP)                                                       \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,            \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define FERROSHMEM_DECL_TO_ALL_ARITH(T, N)                                                        \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, max) FERROSHMEM_DECL_TO_ALL_OP(T, N, min)                      \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, sum) FERROSHMEM_DECL_TO_ALL_OP(T, N, prod)
#define FERROSHMEM_DECL_TO_ALL_ALL(T, N)                                                          \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, and) FERROSHMEM_DECL_TO_ALL_OP(T, N, or)                       \
    FERROSHMEM_DECL_TO_ALL_OP(T, N, xor) FERROSHMEM_DECL_TO_ALL_ARITH(T, N)
/* The real to_all types of the specification: ALL(T, N) for and/or/xor/max/min/sum/prod,
 * ARITH(T, N) for max/min/sum/prod. */
#define FERROSHMEM_TO_ALL_TYPES(ALL, ARITH)                                                       \
    ALL(short, short) ALL(int, int) ALL(long, long) ALL(long long, longlong) ARITH(float, float) \
    ARITH(double, double) ARITH(long double, longdouble)
FERROSHMEM_TO_ALL_TYPES(FERROSHMEM_DECL_TO_ALL_ALL, FERROSHMEM_DECL_TO_ALL_ARITH)
#ifndef __cplusplus
FERROSHMEM_DECL_TO_ALL_OP(float _Complex, complexf, sum) FERROSHMEM_DECL_TO_ALL_OP(float _Complex, complexf, prod)
FERROSHMEM_DECL_TO_ALL_OP(double _Complex, complexd, sum) FERROSHMEM_DECL_TO_ALL_OP(double _Complex, complexd, prod)
#endif

/* C11 generic forms: typed on dest (the second argument). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define FERROSHMEM_C11_TEAM(TYPES, OP, ...)                                                       \
    FERROSHMEM_C11_SELECT(TYPES, FERROSHMEM_C11_A, OP, FERROSHMEM_C11_ARG1(__VA_ARGS__))(__VA_ARGS__)
/* and, or, xor: the unsigned types and the fixed-width signed ones (typedefs of these). */
#define FERROSHMEM_C11_REDUCE_BITWISE(X, OP)                                                      \
    X(unsigned char, uchar, OP) X(unsigned short, ushort, OP) X(unsigned int, uint, OP)             \
    X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP) X(int8_t, int8, OP)            \
    X(int16_t, int16, OP) X(int32_t, int32, OP) X(int64_t, int64, OP)
#define FERROSHMEM_C11_REDUCE_ARITH(X, OP)                                                        \
    X(char, char, OP) X(signed char, schar, OP) X(short, short, OP) X(int, int, OP)                 \
    X(long, long, OP) X(long long, longlong, OP) X(unsigned char, uchar, OP)                        \
    X(unsigned short, ushort, OP) X(unsigned int, uint, OP) X(unsigned long, ulong, OP)             \
    X(unsigned long long, ulonglong, OP) X(float, float, OP) X(double, double, OP)                  \
    X(long double, longdouble, OP)
#define FERROSHMEM_C11_REDUCE_COMPLEX(X, OP)                                                      \
    FERROSHMEM_C11_REDUCE_ARITH(X, OP) X(float _Complex, complexf, OP) X(double _Complex, complexd, OP)

#define shmem_broadcast(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_RMA, _broadcast, __VA_ARGS__)
#define shmem_collect(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_RMA, _collect, __VA_ARGS__)
#define shmem_fcollect(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_RMA, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_RMA, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_RMA, _alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_REDUCE_BITWISE, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_REDUCE_BITWISE, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_REDUCE_BITWISE, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_REDUCE_ARITH, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_REDUCE_ARITH, _min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_REDUCE_COMPLEX, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) FERROSHMEM_C11_TEAM(FERROSHMEM_C11_REDUCE_COMPLEX, _prod_reduce, __VA_ARGS__)

/* shmem_sync: OpenSHMEM 1.5's team form shmem_sync(team) (= shmem_team_sync) beside the
 * deprecated active-set form shmem_sync(PE_start, logPE_stride, PE_size, pSync), told apart by
 * the number of arguments. Inside its own expansion the name shmem_sync is not expanded again,
 * so the four-argument case calls the function. */
#define FERROSHMEM_C11_NARGS(...) FERROSHMEM_C11_NARGS_(__VA_ARGS__, 4, 3, 2, 1, ~)
#define FERROSHMEM_C11_NARGS_(a, b, c, d, n, ...) n
#define FERROSHMEM_C11_CAT(a, b) FERROSHMEM_C11_CAT_(a, b)
#define FERROSHMEM_C11_CAT_(a, b) a##b
#define FERROSHMEM_C11_SYNC_1 shmem_team_sync
#define FERROSHMEM_C11_SYNC_4 shmem_sync
#define shmem_sync(...) FERROSHMEM_C11_CAT(FERROSHMEM_C11_SYNC_, FERROSHMEM_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)
#endif /* C11 */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FERROSHMEM_SHMEM_H */
