/*
 * shmem.h: the OpenSHMEM 1.5 C interface of ferroshmem (libferroshmem.so).
 *
 * Sections:
 *   1. Library constants and types
 *   2. Type tables (X-macros: one line per type, used by the declarations)
 *   3-10, 12, 13: the routines, declared in ferroshmem_routines.h (included below):
 *   3. Setup, exit and query routines; memory management
 *   4. Communication contexts
 *   5. Remote memory access (RMA)
 *   6. Atomic memory operations (AMO), with the deprecated pre-1.4 names (shmem_int_fadd, ...)
 *   7. Signaling operations
 *   8. Point-to-point synchronization
 *   9. Memory ordering
 *  10. Distributed locking
 *  12. Teams (team types are in section 1)
 *  13. Collectives (team forms, deprecated active-set forms)
 *  11. C11 type-generic interfaces (here, after the routines; collective ones at the end)
 *
 * The typed routines are declared through type tables so that every family lists each
 * standard type exactly once; the names and signatures are those of the specification.
 * Extensions live in shmemx.h; the profiling names (pshmem_...) in pshmem.h.
 *
 * Deprecated routines (start_pes, _my_pe, _num_pes, shmem_wait, the active-set collectives,
 * the pre-1.4 AMO names) are declared without a deprecation attribute, so programs that use
 * them build with -Werror. Define SHMEMX_WARN_DEPRECATED before including shmem.h (or pass
 * -DSHMEMX_WARN_DEPRECATED) to get a compiler warning at each use.
 */
#ifndef FERROSHMEM_SHMEM_H
#define FERROSHMEM_SHMEM_H

#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
#include <complex>
#endif

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

/* Synchronization arrays of the deprecated active-set collectives (section 13). */
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

/* Declares shmem_NAME(PARAMS) and shmem_ctx_NAME(shmem_ctx_t ctx, PARAMS) (names through
 * FERROSHMEM_API, so pshmem.h gets pshmem_NAME and pshmem_ctx_NAME from the same lines). */
#define FERROSHMEM_CTX_PAIR(RET, NAME, ...)                                                        \
    RET FERROSHMEM_API(shmem_##NAME)(__VA_ARGS__);                                                 \
    RET FERROSHMEM_API(shmem_ctx_##NAME)(shmem_ctx_t ctx, __VA_ARGS__);

/* The complex types of the complex reductions: C's float/double _Complex, and in C++ the
 * std::complex<float>/<double> of <complex>, which have the same layout (real, imaginary). */
#ifdef __cplusplus
#define FERROSHMEM_COMPLEXF std::complex<float>
#define FERROSHMEM_COMPLEXD std::complex<double>
/* g++ and clang++ also accept C's complex types in C++ (float _Complex, __complex__ float), and
 * programs written for other OpenSHMEM libraries pass them to the complex reductions: the
 * routines are overloaded for them too (C++ linkage, inline, converting the pointers). */
#if defined(__GNUC__) || defined(__clang__)
#define FERROSHMEM_GNU_COMPLEX 1
__extension__ typedef __complex__ float ferroshmem_gnu_complexf;
__extension__ typedef __complex__ double ferroshmem_gnu_complexd;
#endif
#else
#define FERROSHMEM_COMPLEXF float _Complex
#define FERROSHMEM_COMPLEXD double _Complex
#endif

/* Marks deprecated routines, only when the program asks (SHMEMX_WARN_DEPRECATED). */
#if defined(SHMEMX_WARN_DEPRECATED) && (defined(__GNUC__) || defined(__clang__))
#define FERROSHMEM_DEPRECATED __attribute__((__deprecated__))
#else
#define FERROSHMEM_DEPRECATED
#endif

/* Sections 3-10, 12 and 13: every routine, under its shmem_ name. */
#define FERROSHMEM_API(NAME) NAME
#include "ferroshmem_routines.h"

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

/* The deprecated pre-1.4 generic names (no context forms). */
#define shmem_fetch(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_EXTENDED, AC, _fetch, __VA_ARGS__)
#define shmem_set(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_EXTENDED, A, _set, __VA_ARGS__)
#define shmem_swap(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_EXTENDED, A, _swap, __VA_ARGS__)
#define shmem_cswap(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_STANDARD, A, _cswap, __VA_ARGS__)
#define shmem_finc(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_STANDARD, A, _finc, __VA_ARGS__)
#define shmem_inc(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_STANDARD, A, _inc, __VA_ARGS__)
#define shmem_fadd(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_STANDARD, A, _fadd, __VA_ARGS__)
#define shmem_add(...) FERROSHMEM_C11(FERROSHMEM_C11_AMO_STANDARD, A, _add, __VA_ARGS__)

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

/* 11 (continued). C11 generic forms of the team collectives: typed on dest (the second
 * argument). */
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