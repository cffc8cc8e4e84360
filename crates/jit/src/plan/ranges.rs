//! Constants and comparisons, the ground of value ranges (the limits of
//! each integer type are [`tessera_ir::Scalar::int_range`]).

use tessera_ir::{BinOp, Const, Expr, ExprKind};

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
