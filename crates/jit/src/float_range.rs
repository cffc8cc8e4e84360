//! The float-to-int range table: which truncated floating-point values
//! convert to each integer type without leaving its range (undefined in
//! C++, a run-time error here). Kept in one module so it can be swapped for
//! the interpreter's shared copy.

use tessera_ir::Scalar;

/// The range `[lo, hi)` a truncated floating-point value must lie in to
/// convert to the integer type `to`. Both bounds are powers of two, exact
/// in `f64`.
pub(crate) fn float_to_int_range(to: Scalar) -> (f64, f64) {
    match to {
        Scalar::Char => (-128.0, 128.0),
        Scalar::Int => (-2_147_483_648.0, 2_147_483_648.0),
        Scalar::UInt => (0.0, 4_294_967_296.0),
        Scalar::Long => (-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0),
        _ => (0.0, 18_446_744_073_709_551_616.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_the_types_limits() {
        assert_eq!(
            float_to_int_range(Scalar::Int),
            (f64::from(i32::MIN), -f64::from(i32::MIN))
        );
        assert_eq!(
            float_to_int_range(Scalar::UInt).1,
            f64::from(u32::MAX) + 1.0
        );
        assert_eq!(float_to_int_range(Scalar::Char), (-128.0, 128.0));
    }
}
