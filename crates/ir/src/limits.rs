//! The limits of the arithmetic types, for every engine and analysis that
//! checks a value against them.

use crate::Scalar;

impl Scalar {
    /// The smallest and largest values of an integral type, as `i64`; for
    /// `unsigned long`, whose values past `i64::MAX` an `i64` cannot hold,
    /// `(0, i64::MAX)`. Floating types give the `long` range.
    pub fn int_range(self) -> (i64, i64) {
        match self {
            Scalar::Bool => (0, 1),
            Scalar::Char => (i64::from(i8::MIN), i64::from(i8::MAX)),
            Scalar::UChar => (0, i64::from(u8::MAX)),
            Scalar::Short => (i64::from(i16::MIN), i64::from(i16::MAX)),
            Scalar::UShort => (0, i64::from(u16::MAX)),
            Scalar::Int | Scalar::WChar => (i64::from(i32::MIN), i64::from(i32::MAX)),
            Scalar::UInt => (0, i64::from(u32::MAX)),
            Scalar::Long | Scalar::Float | Scalar::Double => (i64::MIN, i64::MAX),
            Scalar::ULong => (0, i64::MAX),
        }
    }

    /// For an integer type other than `bool`, the bounds `(lo, hi)` a
    /// floating-point value converted to it must lie in once truncated:
    /// `lo <= t < hi` (C++ leaves the conversion undefined otherwise, and
    /// both engines report it). Both bounds are exact in `double`. `None`
    /// for `bool` (any value converts) and the floating types.
    pub fn float_to_int_bounds(self) -> Option<(f64, f64)> {
        match self {
            Scalar::Char => Some((-128.0, 128.0)),
            Scalar::UChar => Some((0.0, 256.0)),
            Scalar::Short => Some((-32_768.0, 32_768.0)),
            Scalar::UShort => Some((0.0, 65_536.0)),
            Scalar::Int | Scalar::WChar => Some((-2_147_483_648.0, 2_147_483_648.0)),
            Scalar::UInt => Some((0.0, 4_294_967_296.0)),
            Scalar::Long => Some((-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0)),
            Scalar::ULong => Some((0.0, 18_446_744_073_709_551_616.0)),
            Scalar::Bool | Scalar::Float | Scalar::Double => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_bounds_are_the_integer_ranges() {
        for s in [
            Scalar::Char,
            Scalar::UChar,
            Scalar::Short,
            Scalar::UShort,
            Scalar::Int,
            Scalar::UInt,
            Scalar::Long,
        ] {
            let (lo, hi) = s.int_range();
            let (flo, fhi) = s.float_to_int_bounds().unwrap_or((1.0, 0.0));
            assert_eq!(flo, lo as f64);
            assert_eq!(fhi, hi as f64 + 1.0);
        }
        assert_eq!(Scalar::Bool.float_to_int_bounds(), None);
    }
}
