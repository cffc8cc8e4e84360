//! Integer limits and constants, the ground of value ranges.

use tessera_ir::{BinOp, Const, Expr, ExprKind, Scalar};

/// The smallest and largest values of an integer type.
pub(crate) fn int_limits(s: Scalar) -> (i64, i64) {
    match s {
        Scalar::Bool => (0, 1),
        Scalar::Char => (i64::from(i8::MIN), i64::from(i8::MAX)),
        Scalar::Int => (i64::from(i32::MIN), i64::from(i32::MAX)),
        Scalar::UInt => (0, i64::from(u32::MAX)),
        Scalar::Long => (i64::MIN, i64::MAX),
        // `unsigned long` values past `i64::MAX` are not tracked.
        _ => (0, i64::MAX),
    }
}

pub(crate) fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

pub(crate) fn const_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Const(Const::Int(n)) => Some(*n),
        ExprKind::Convert(inner) => const_int(inner),
        _ => None,
    }
}
