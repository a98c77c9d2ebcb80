//! The reductions on `long double` (max, min, sum, prod): the element arithmetic is C's, in
//! `csrc/longdouble.c` (built by `build.rs`), since Rust cannot compute in x87 extended
//! precision. One call per element pair; the combine loops are the core's.

use fcore::coll::{Max, Min, Prod, ReduceOp, Sum};

use crate::rma::LongDouble;

extern "C" {
    fn ferroshmem_longdouble_max(acc: *mut LongDouble, x: *const LongDouble);
    fn ferroshmem_longdouble_min(acc: *mut LongDouble, x: *const LongDouble);
    fn ferroshmem_longdouble_sum(acc: *mut LongDouble, x: *const LongDouble);
    fn ferroshmem_longdouble_prod(acc: *mut LongDouble, x: *const LongDouble);
}

macro_rules! ld_ops {
    ($($op:ident / $name:literal => $f:ident),*) => {$(
        impl ReduceOp<LongDouble> for $op {
            const NAME: &'static str = $name;
            #[inline]
            fn apply(mut a: LongDouble, b: LongDouble) -> LongDouble {
                // SAFETY: both point to 16-byte locals; the helper reads 16 bytes from each and
                // writes 16 into `a`, through memcpy (no alignment needed).
                unsafe { $f(&mut a, &b) };
                a
            }
        }
    )*};
}

ld_ops!(Max / "max" => ferroshmem_longdouble_max, Min / "min" => ferroshmem_longdouble_min,
    Sum / "sum" => ferroshmem_longdouble_sum, Prod / "prod" => ferroshmem_longdouble_prod);
