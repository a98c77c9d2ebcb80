// oshrun-test: npes=1 expect-exit=0
/* Links against every typed routine that shmem.h declares through its type tables (RMA, sized,
 * AMO, signal families): the tables are expanded again with FERROSHMEM_CTX_PAIR redefined to
 * produce addresses instead of declarations, so a routine missing from libferroshmem.so fails
 * the link. The reductions (team and to_all forms) are listed the same way; point-to-point and
 * the other routines are exercised by the other programs. */
#include <stdio.h>

#include <shmem.h>

typedef void (*any_fn)(void);

#undef FERROSHMEM_CTX_PAIR
#define FERROSHMEM_CTX_PAIR(RET, NAME, ...) (any_fn)shmem_##NAME, (any_fn)shmem_ctx_##NAME,

static const any_fn routines[] = {
    FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_RMA_ARRAYS)
    FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_RMA_SCALAR)
    FERROSHMEM_DECL_RMA_ARRAYS(long double, longdouble)
    FERROSHMEM_RMA_SIZES(FERROSHMEM_DECL_RMA_SIZED)
    FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_EXTENDED)
    FERROSHMEM_AMO_EXTENDED_ONLY_TYPES(FERROSHMEM_DECL_AMO_EXTENDED)
    FERROSHMEM_AMO_STANDARD_TYPES(FERROSHMEM_DECL_AMO_STANDARD)
    FERROSHMEM_AMO_BITWISE_TYPES(FERROSHMEM_DECL_AMO_BITWISE)
    FERROSHMEM_RMA_TYPES(FERROSHMEM_DECL_PUT_SIGNAL)
    FERROSHMEM_DECL_PUT_SIGNAL(long double, longdouble)
    FERROSHMEM_RMA_SIZES(FERROSHMEM_DECL_PUT_SIGNAL_SIZED)
    FERROSHMEM_DECL_PUT_SIGNAL_SIZED(mem)

#undef FERROSHMEM_DECL_REDUCE_OP
#define FERROSHMEM_DECL_REDUCE_OP(T, N, OP) (any_fn)shmem_##N##_##OP##_reduce,
#undef FERROSHMEM_DECL_TO_ALL_OP
#define FERROSHMEM_DECL_TO_ALL_OP(T, N, OP) (any_fn)shmem_##N##_##OP##_to_all,
    FERROSHMEM_REDUCE_ARITH_TYPES(FERROSHMEM_DECL_REDUCE_ARITH)
    FERROSHMEM_REDUCE_BITWISE_TYPES(FERROSHMEM_DECL_REDUCE_ALL)
    FERROSHMEM_DECL_REDUCE_OP(float _Complex, complexf, sum) FERROSHMEM_DECL_REDUCE_OP(float _Complex, complexf, prod)
    FERROSHMEM_DECL_REDUCE_OP(double _Complex, complexd, sum) FERROSHMEM_DECL_REDUCE_OP(double _Complex, complexd, prod)
    FERROSHMEM_TO_ALL_TYPES(FERROSHMEM_DECL_TO_ALL_ALL, FERROSHMEM_DECL_TO_ALL_ARITH)
    FERROSHMEM_DECL_TO_ALL_OP(float _Complex, complexf, sum) FERROSHMEM_DECL_TO_ALL_OP(float _Complex, complexf, prod)
    FERROSHMEM_DECL_TO_ALL_OP(double _Complex, complexd, sum) FERROSHMEM_DECL_TO_ALL_OP(double _Complex, complexd, prod)
};

int main(void) {
    shmem_init();
    size_t n = sizeof routines / sizeof routines[0];
    for (size_t i = 0; i < n; i++) {
        if (routines[i] == NULL) {
            fprintf(stderr, "routine %zu has no address\n", i);
            shmem_global_exit(1);
        }
    }
    printf("abi_symbols: %zu routines linked\n", n);
    shmem_finalize();
    return 0;
}
