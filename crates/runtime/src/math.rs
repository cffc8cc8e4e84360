//! The math library in both precisions, shared by the engines so that a
//! kernel's `sinf(x)` gives the same bits whichever engine ran it.

use tessera_ir::MathFn;

/// One math function applied in one precision: `std`'s methods have the
/// same names for `f32` and `f64`; the rest come from `libm`, whose
/// functions carry a precision suffix, given here.
macro_rules! math_table {
    ($f:expr, $a:expr, $b:expr, $c:expr, $exp10:ident, $erf:ident, $erfc:ident, $tgamma:ident, $lgamma:ident, $fdim:ident, $remainder:ident) => {{
        let (a, b, c) = ($a, $b, $c);
        match $f {
            MathFn::Sqrt => a.sqrt(),
            MathFn::Rsqrt => 1.0 / a.sqrt(),
            MathFn::Fabs | MathFn::Abs => a.abs(),
            MathFn::Floor => a.floor(),
            MathFn::Ceil => a.ceil(),
            MathFn::Round => a.round(),
            MathFn::Trunc => a.trunc(),
            MathFn::Exp => a.exp(),
            MathFn::Exp2 => a.exp2(),
            MathFn::Exp10 => libm::$exp10(a),
            MathFn::Log => a.ln(),
            MathFn::Log2 => a.log2(),
            MathFn::Log10 => a.log10(),
            MathFn::Pow => a.powf(b),
            MathFn::Sin => a.sin(),
            MathFn::Cos => a.cos(),
            MathFn::Tan => a.tan(),
            MathFn::Asin => a.asin(),
            MathFn::Acos => a.acos(),
            MathFn::Atan => a.atan(),
            MathFn::Atan2 => a.atan2(b),
            MathFn::Sinh => a.sinh(),
            MathFn::Cosh => a.cosh(),
            MathFn::Tanh => a.tanh(),
            MathFn::Fmin | MathFn::Min => a.min(b),
            MathFn::Fmax | MathFn::Max => a.max(b),
            MathFn::Fmod => a % b,
            MathFn::Cbrt => a.cbrt(),
            MathFn::Log1p => a.ln_1p(),
            MathFn::Expm1 => a.exp_m1(),
            MathFn::Hypot => a.hypot(b),
            MathFn::Erf => libm::$erf(a),
            MathFn::Erfc => libm::$erfc(a),
            MathFn::Tgamma => libm::$tgamma(a),
            MathFn::Lgamma => libm::$lgamma(a),
            MathFn::Asinh => a.asinh(),
            MathFn::Acosh => a.acosh(),
            MathFn::Atanh => a.atanh(),
            MathFn::Copysign => a.copysign(b),
            MathFn::Fdim => libm::$fdim(a, b),
            MathFn::Fma => a.mul_add(b, c),
            MathFn::Remainder => libm::$remainder(a, b),
        }
    }};
}

/// `f(a, b, c)` in single precision (unused operands are ignored).
pub fn math_f32(f: MathFn, a: f32, b: f32, c: f32) -> f32 {
    math_table!(
        f, a, b, c, exp10f, erff, erfcf, tgammaf, lgammaf, fdimf, remainderf
    )
}

/// `f(a, b, c)` in double precision (unused operands are ignored).
pub fn math_f64(f: MathFn, a: f64, b: f64, c: f64) -> f64 {
    math_table!(
        f, a, b, c, exp10, erf, erfc, tgamma, lgamma, fdim, remainder
    )
}

/// Every math function, in a fixed order: the JIT passes a function's
/// position here to the one helper that evaluates them all.
pub const ALL_MATH: [MathFn; 45] = [
    MathFn::Sqrt,
    MathFn::Rsqrt,
    MathFn::Fabs,
    MathFn::Abs,
    MathFn::Floor,
    MathFn::Ceil,
    MathFn::Round,
    MathFn::Trunc,
    MathFn::Exp,
    MathFn::Exp2,
    MathFn::Log,
    MathFn::Log2,
    MathFn::Log10,
    MathFn::Pow,
    MathFn::Sin,
    MathFn::Cos,
    MathFn::Tan,
    MathFn::Asin,
    MathFn::Acos,
    MathFn::Atan,
    MathFn::Atan2,
    MathFn::Sinh,
    MathFn::Cosh,
    MathFn::Tanh,
    MathFn::Fmin,
    MathFn::Fmax,
    MathFn::Fmod,
    MathFn::Cbrt,
    MathFn::Log1p,
    MathFn::Expm1,
    MathFn::Hypot,
    MathFn::Erf,
    MathFn::Erfc,
    MathFn::Tgamma,
    MathFn::Lgamma,
    MathFn::Asinh,
    MathFn::Acosh,
    MathFn::Atanh,
    MathFn::Copysign,
    MathFn::Fdim,
    MathFn::Fma,
    MathFn::Remainder,
    MathFn::Exp10,
    MathFn::Min,
    MathFn::Max,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_function_once() {
        for (i, f) in ALL_MATH.iter().enumerate() {
            assert_eq!(ALL_MATH.iter().position(|g| g == f), Some(i));
        }
        assert_eq!(math_f32(MathFn::Max, 1.0, 2.0, 0.0), 2.0);
        assert_eq!(math_f64(MathFn::Fma, 2.0, 3.0, 1.0), 7.0);
    }
}
