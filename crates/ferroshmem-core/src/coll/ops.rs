//! Reduction operations, generic over the element type: one marker type per operation
//! (`Sum`, `Prod`, `Min`, `Max`, `And`, `Or`, `Xor`) implementing [`ReduceOp`] for the types
//! OpenSHMEM 1.5 allows it on (integers and floats for min/max/sum/prod, integers for the
//! bitwise ones, [`Complex`] for sum and prod).

/// A reduction operation on `T`: associative and commutative (up to float rounding; every PE
/// reduces in team order, so all PEs get bit-identical results).
pub trait ReduceOp<T>: Copy + Default + Send + Sync + 'static {
    /// The C name of the operation (`sum`, `max`, ...).
    const NAME: &'static str;
    /// Combines two values.
    fn apply(a: T, b: T) -> T;
}

/// Sum.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sum;
/// Product.
#[derive(Debug, Clone, Copy, Default)]
pub struct Prod;
/// Minimum.
#[derive(Debug, Clone, Copy, Default)]
pub struct Min;
/// Maximum.
#[derive(Debug, Clone, Copy, Default)]
pub struct Max;
/// Bitwise and.
#[derive(Debug, Clone, Copy, Default)]
pub struct And;
/// Bitwise or.
#[derive(Debug, Clone, Copy, Default)]
pub struct Or;
/// Bitwise exclusive or.
#[derive(Debug, Clone, Copy, Default)]
pub struct Xor;

/// A complex number laid out as C's `float complex` / `double complex` (real, imaginary).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C)]
pub struct Complex<T> {
    /// Real part.
    pub re: T,
    /// Imaginary part.
    pub im: T,
}

macro_rules! int_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum { const NAME: &'static str = "sum"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a.wrapping_add(b) } }
        impl ReduceOp<$t> for Prod { const NAME: &'static str = "prod"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a.wrapping_mul(b) } }
        impl ReduceOp<$t> for Min { const NAME: &'static str = "min"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a.min(b) } }
        impl ReduceOp<$t> for Max { const NAME: &'static str = "max"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a.max(b) } }
        impl ReduceOp<$t> for And { const NAME: &'static str = "and"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a & b } }
        impl ReduceOp<$t> for Or { const NAME: &'static str = "or"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a | b } }
        impl ReduceOp<$t> for Xor { const NAME: &'static str = "xor"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a ^ b } }
    )*};
}
int_ops!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize);

macro_rules! float_ops {
    ($($t:ty),*) => {$(
        impl ReduceOp<$t> for Sum { const NAME: &'static str = "sum"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a + b } }
        impl ReduceOp<$t> for Prod { const NAME: &'static str = "prod"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { a * b } }
        // C semantics (a < b ? a : b), not IEEE minNum: what C programs and serial models compute.
        impl ReduceOp<$t> for Min { const NAME: &'static str = "min"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { if b < a { b } else { a } } }
        impl ReduceOp<$t> for Max { const NAME: &'static str = "max"; #[inline(always)] fn apply(a: $t, b: $t) -> $t { if b > a { b } else { a } } }
        impl ReduceOp<Complex<$t>> for Sum {
            const NAME: &'static str = "sum";
            #[inline(always)]
            fn apply(a: Complex<$t>, b: Complex<$t>) -> Complex<$t> { Complex { re: a.re + b.re, im: a.im + b.im } }
        }
        impl ReduceOp<Complex<$t>> for Prod {
            const NAME: &'static str = "prod";
            #[inline(always)]
            fn apply(a: Complex<$t>, b: Complex<$t>) -> Complex<$t> {
                Complex { re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re }
            }
        }
    )*};
}
float_ops!(f32, f64);
