//! `std::numeric_limits<T>`: constants of each scalar type, usable in amp
//! code too (they are `constexpr` in C++).
//!
//! The front end rewrites `numeric_limits<T>::m()` to the call
//! `numeric_limits::m(static_cast<T>(0))` (see `tessera_syntax::limits`):
//! the type is the argument's, which is never evaluated.

use super::mk;
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Scalar, Type};
use tessera_syntax::ast;

/// True when `path` is `[std::]numeric_limits::m`.
pub(super) fn is_limits(path: &ast::Path) -> bool {
    let n = path.segments.len();
    n >= 2 && path.segments[n - 2].name == "numeric_limits"
}

/// A member of `numeric_limits<T>` for the scalar `t`.
fn value(t: Scalar, member: &str) -> Option<(Const, Scalar)> {
    use Scalar::*;
    let int = |v: i64| Some((Const::Int(v), Int));
    let flag = |b: bool| Some((Const::Bool(b), Bool));
    let of_t = |v: f64| {
        Some(match t {
            Float => (Const::Float(v as f32), Float),
            Double => (Const::Double(v), Double),
            Bool => (Const::Bool(v != 0.0), Bool),
            _ => (Const::Int(v as i64), t),
        })
    };
    let (lo, hi): (i64, i64) = match t {
        Bool => (0, 1),
        Char => (i64::from(i8::MIN), i64::from(i8::MAX)),
        UChar => (0, i64::from(u8::MAX)),
        Short => (i64::from(i16::MIN), i64::from(i16::MAX)),
        UShort => (0, i64::from(u16::MAX)),
        Int | WChar => (i64::from(i32::MIN), i64::from(i32::MAX)),
        UInt => (0, i64::from(u32::MAX)),
        Long => (i64::MIN, i64::MAX),
        // The bits of `u64::MAX`, as constants of `unsigned long` hold them.
        ULong => (0, -1),
        Float | Double => (0, 0),
    };
    let floating = t.is_floating();
    let (digits, digits10): (i64, i64) = match t {
        Bool => (1, 0),
        Char => (7, 2),
        UChar => (8, 2),
        Short => (15, 4),
        UShort => (16, 4),
        Int | WChar => (31, 9),
        UInt => (32, 9),
        Long => (63, 18),
        ULong => (64, 19),
        Float => (24, 6),
        Double => (53, 15),
    };
    match (member, t) {
        ("max", Float) => of_t(f64::from(f32::MAX)),
        ("max", Double) => of_t(f64::MAX),
        ("min", Float) => of_t(f64::from(f32::MIN_POSITIVE)),
        ("min", Double) => of_t(f64::MIN_POSITIVE),
        ("lowest", Float) => of_t(f64::from(f32::MIN)),
        ("lowest", Double) => of_t(f64::MIN),
        ("epsilon", Float) => of_t(f64::from(f32::EPSILON)),
        ("epsilon", Double) => of_t(f64::EPSILON),
        ("denorm_min", Float) => of_t(f64::from(f32::from_bits(1))),
        ("denorm_min", Double) => of_t(f64::from_bits(1)),
        ("round_error", _) if floating => of_t(0.5),
        ("infinity", _) if floating => of_t(f64::INFINITY),
        ("quiet_NaN" | "signaling_NaN", _) if floating => of_t(f64::NAN),
        ("max", Bool) => flag(true),
        ("min" | "lowest", Bool) => flag(false),
        ("max", _) => Some((Const::Int(hi), t)),
        ("min" | "lowest", _) => Some((Const::Int(lo), t)),
        (
            "epsilon" | "round_error" | "infinity" | "quiet_NaN" | "signaling_NaN" | "denorm_min",
            _,
        ) => of_t(0.0),
        ("digits", _) => int(digits),
        ("digits10", _) => int(digits10),
        ("max_digits10", Float) => int(9),
        ("max_digits10", Double) => int(17),
        ("max_digits10", _) => int(0),
        ("radix", _) => int(2),
        ("min_exponent", Float) => int(-125),
        ("min_exponent", Double) => int(-1021),
        ("max_exponent", Float) => int(128),
        ("max_exponent", Double) => int(1024),
        ("min_exponent10", Float) => int(-37),
        ("min_exponent10", Double) => int(-307),
        ("max_exponent10", Float) => int(38),
        ("max_exponent10", Double) => int(308),
        ("min_exponent" | "max_exponent" | "min_exponent10" | "max_exponent10", _) => int(0),
        ("is_specialized", _) => flag(true),
        ("is_signed", _) => flag(!matches!(t, Bool | UInt | ULong)),
        ("is_integer" | "is_exact", _) => flag(!floating),
        ("has_infinity" | "has_quiet_NaN" | "has_signaling_NaN", _) => flag(floating),
        ("is_iec559", _) => flag(floating),
        ("is_bounded", _) => flag(true),
        ("is_modulo", _) => flag(matches!(t, UInt | ULong)),
        _ => None,
    }
}

/// `numeric_limits<T>::member`, with `args` the rewritten type carrier.
pub(super) fn call(cx: &mut FnCx<'_>, path: &ast::Path, args: &[Expr], span: Span) -> Expr {
    let member = path.last();
    let Some(t) = args.first().and_then(|a| a.ty.scalar()) else {
        if let Some(a) = args.first() {
            let shown = cx.ck.show(&a.ty);
            cx.ck.error(
                codes::E0211,
                a.span,
                format!("`numeric_limits<{shown}>` is not part of the Tessera library"),
                "not a scalar type",
                "numeric_limits is there for bool, char, int, unsigned int, long, unsigned long, float and double",
            );
        }
        return error_expr(span);
    };
    match value(t, member) {
        Some((c, s)) => mk(ExprKind::Const(c), Type::Scalar(s), false, span),
        None => {
            cx.ck.error(
                codes::E0207,
                path.segments.last().map_or(span, |s| s.span),
                format!("`std::numeric_limits<{}>` has no member `{member}`", t.name()),
                "unknown member",
                "its members are max(), min(), lowest(), epsilon(), infinity(), quiet_NaN(), denorm_min(), round_error(), digits, digits10, max_digits10, is_signed, is_integer, radix and the exponents",
            );
            error_expr(span)
        }
    }
}
