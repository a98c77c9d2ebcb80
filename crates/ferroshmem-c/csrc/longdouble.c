/* Element arithmetic on C's `long double` for the longdouble reductions. Rust has no type for
 * it (x87 80-bit extended precision on x86-64), so the library's reductions call these: each
 * combines one element, `*acc = op(*acc, *x)`. The Rust side holds a value as 16 opaque bytes
 * aligned to 8, so values go through memcpy. Min and max are C's (b < a ? b : a), as for the
 * float and double reductions. */
#include <float.h>
#include <string.h>

_Static_assert(sizeof(long double) == 16, "ferroshmem's LongDouble is 16 bytes");

/* Stores `r` into `acc`. The x87 format uses 10 of the 16 bytes; the rest is zeroed, so every
 * PE's result is the same bytes and no byte the Rust side copies is left indeterminate. */
static void store(void *acc, long double r) {
    unsigned char out[sizeof r];
    memcpy(out, &r, sizeof r);
#if LDBL_MANT_DIG == 64
    memset(out + 10, 0, sizeof out - 10);
#endif
    memcpy(acc, out, sizeof out);
}

#define FERROSHMEM_LD_OP(NAME, EXPR)                                                              \
    void ferroshmem_longdouble_##NAME(void *acc, const void *x);                                  \
    void ferroshmem_longdouble_##NAME(void *acc, const void *x) {                                 \
        long double a, b;                                                                         \
        memcpy(&a, acc, sizeof a);                                                                \
        memcpy(&b, x, sizeof b);                                                                  \
        store(acc, EXPR);                                                                         \
    }

FERROSHMEM_LD_OP(max, b > a ? b : a)
FERROSHMEM_LD_OP(min, b < a ? b : a)
FERROSHMEM_LD_OP(sum, a + b)
FERROSHMEM_LD_OP(prod, a * b)
