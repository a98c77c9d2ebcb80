// oshrun-test: npes=1 expect-exit=0
/* Links against every typed routine that shmem.h declares through its type tables (RMA, sized,
 * AMO with the deprecated pre-1.4 names, signal families, reductions) under its shmem_ name
 * and its pshmem_ (profiling) name: the tables are expanded again with FERROSHMEM_CTX_PAIR and
 * the other declaring macros redefined to produce addresses instead of declarations, once
 * with each FERROSHMEM_API naming, so a routine missing from libferroshmem.so fails the link.
 * Point-to-point and the other routines are exercised by the other programs; the test abi.rs
 * compares every declared name with the library's symbol table. */
#include <stdio.h>

#include <pshmem.h>

typedef void (*any_fn)(void);

#undef FERROSHMEM_CTX_PAIR
#define FERROSHMEM_CTX_PAIR(RET, NAME, ...)                                                        \
    (any_fn)FERROSHMEM_API(shmem_##NAME), (any_fn)FERROSHMEM_API(shmem_ctx_##NAME),
#undef FERROSHMEM_DECL_REDUCE_OP
#define FERROSHMEM_DECL_REDUCE_OP(T, N, OP) (any_fn)FERROSHMEM_API(shmem_##N##_##OP##_reduce),
#undef FERROSHMEM_DECL_TO_ALL_OP
#define FERROSHMEM_DECL_TO_ALL_OP(T, N, OP) (any_fn)FERROSHMEM_API(shmem_##N##_##OP##_to_all),
#undef FERROSHMEM_DECL_AMO_DEPRECATED_EXTENDED
#define FERROSHMEM_DECL_AMO_DEPRECATED_EXTENDED(T, N)                                              \
    (any_fn)FERROSHMEM_API(shmem_##N##_fetch), (any_fn)FERROSHMEM_API(shmem_##N##_set),             \
        (any_fn)FERROSHMEM_API(shmem_##N##_swap),
#undef FERROSHMEM_DECL_AMO_DEPRECATED_STANDARD
#define FERROSHMEM_DECL_AMO_DEPRECATED_STANDARD(T, N)                                              \
    (any_fn)FERROSHMEM_API(shmem_##N##_cswap), (any_fn)FERROSHMEM_API(shmem_##N##_finc),            \
        (any_fn)FERROSHMEM_API(shmem_##N##_inc), (any_fn)FERROSHMEM_API(shmem_##N##_fadd),          \
        (any_fn)FERROSHMEM_API(shmem_##N##_add),

#define ROUTINES                                                                                   \
    FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_RMA_ARRAYS)                                               \
    FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_RMA_SCALAR)                                               \
    FERROSHMEM_DECL_RMA_ARRAYS(long double, longdouble)                                            \
    FERROSHMEM_RMA_SIZES(FERROSHMEM_DECL_RMA_SIZED)                                                \
    FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_EXTENDED)                                    \
    FERROSHMEM_AMO_EXTENDED_ONLY_TYPES(FERROSHMEM_DECL_AMO_EXTENDED)                               \
    FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_STANDARD)                                    \
    FERROSHMEM_AMO_BITWISE_TYPES(FERROSHMEM_DECL_AMO_BITWISE)                                      \
    FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_DEPRECATED_EXTENDED)                         \
    FERROSHMEM_AMO_EXTENDED_ONLY_TYPES(FERROSHMEM_DECL_AMO_DEPRECATED_EXTENDED)                    \
    FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_DEPRECATED_STANDARD)                         \
    FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_PUT_SIGNAL)                                               \
    FERROSHMEM_DECL_PUT_SIGNAL(long double, longdouble)                                            \
    FERROSHMEM_RMA_SIZES(FERROSHMEM_DECL_PUT_SIGNAL_SIZED)                                         \
    FERROSHMEM_DECL_PUT_SIGNAL_SIZED(mem)                                                          \
    FERROSHMEM_REDUCE_ARITH_TYPES(FERROSHMEM_DECL_REDUCE_ARITH)                                    \
    FERROSHMEM_REDUCE_BITWISE_TYPES(FERROSHMEM_DECL_REDUCE_ALL)                                    \
    FERROSHMEM_DECL_REDUCE_OP(float _Complex, complexf, sum)                                       \
    FERROSHMEM_DECL_REDUCE_OP(float _Complex, complexf, prod)                                      \
    FERROSHMEM_DECL_REDUCE_OP(double _Complex, complexd, sum)                                      \
    FERROSHMEM_DECL_REDUCE_OP(double _Complex, complexd, prod)                                     \
    FERROSHMEM_TO_ALL_TYPES(FERROSHMEM_DECL_TO_ALL_ALL, FERROSHMEM_DECL_TO_ALL_ARITH)              \
    FERROSHMEM_DECL_TO_ALL_OP(float _Complex, complexf, sum)                                       \
    FERROSHMEM_DECL_TO_ALL_OP(float _Complex, complexf, prod)                                      \
    FERROSHMEM_DECL_TO_ALL_OP(double _Complex, complexd, sum)                                      \
    FERROSHMEM_DECL_TO_ALL_OP(double _Complex, complexd, prod)

/* FERROSHMEM_API is NAME here (shmem.h's naming) ... */
static const any_fn routines[] = {ROUTINES};

/* ... and p##NAME here (pshmem.h's). */
#undef FERROSHMEM_API
#define FERROSHMEM_API(NAME) p##NAME
static const any_fn profiling_routines[] = {ROUTINES};

int main(void) {
    shmem_init();
    size_t n = sizeof routines / sizeof routines[0];
    for (size_t i = 0; i < n; i++) {
        if (routines[i] == NULL) {
            fprintf(stderr, "routine %zu has no address\n", i);
            shmem_global_exit(1);
        }
    }
    size_t np = sizeof profiling_routines / sizeof profiling_routines[0];
    if (np != n) {
        fprintf(stderr, "%zu routines but %zu profiling names\n", n, np);
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < np; i++) {
        if (profiling_routines[i] == NULL || profiling_routines[i] == routines[i]) {
            fprintf(stderr, "profiling routine %zu has no address of its own\n", i);
            shmem_global_exit(1);
        }
    }
    printf("abi_symbols: %zu routines linked, each with its pshmem_ name\n", n);
    shmem_finalize();
    return 0;
}
