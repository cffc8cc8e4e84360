//! Math: `<cmath>`, `concurrency::fast_math`, `concurrency::precise_math`,
//! `concurrency::direct3d`, and `std::min`/`std::max`.
//!
//! Where each runs, as in MSVC's headers:
//! - `<cmath>` (`std::sqrt`, `::sqrt`) and `std::min`/`std::max` are host-only:
//!   E0300 in amp code (MSVC: C3930);
//! - `fast_math`, `precise_math` and `direct3d` are declared `restrict(amp)`
//!   only in `<amp_math.h>`/`<amp.h>` (`__GPU_ONLY`): E0301 in host code, and
//!   in `restrict(amp, cpu)` code, which must also run on the host.
//!
//! Unqualified names follow the `using namespace` directives seen before the
//! use: after `using namespace concurrency::fast_math;` an unqualified
//! `sqrt(x)` is `fast_math::sqrt` (likewise `precise_math`); otherwise it is
//! `<cmath>`'s, which kernels cannot call (as in MSVC).
//!
//! Argument types: `fast_math` converts every argument to `float`;
//! `precise_math` computes in `double` if any argument is `double`, else in
//! `float`; `<cmath>` follows C++'s overloads (all `float`: `float`;
//! otherwise, integers included: `double`); the `...f` forms are `float`.

use super::{Ns, Side, arity, check_side, intrinsic, is_pure, mk};
use crate::convert::{common, promote};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{BinOp, Const, Expr, ExprKind, Intrinsic, MathFn, Scalar, Type};
use tessera_syntax::ast;

/// In `<cmath>`.
const C: u8 = 1;
/// In `fast_math`.
const F: u8 = 2;
/// In `precise_math`.
const P: u8 = 4;

/// One math function: its name, its operation (`None`: known, but the typed
/// program has no operation for it yet), its arity and its libraries.
struct Entry {
    name: &'static str,
    fun: Option<MathFn>,
    arity: usize,
    libs: u8,
}

const fn entry(name: &'static str, fun: Option<MathFn>, arity: usize, libs: u8) -> Entry {
    Entry {
        name,
        fun,
        arity,
        libs,
    }
}

/// The math functions, without their `...f` forms.
const MATH: &[Entry] = &[
    entry("sqrt", Some(MathFn::Sqrt), 1, C | F | P),
    entry("rsqrt", Some(MathFn::Rsqrt), 1, F | P),
    entry("fabs", Some(MathFn::Fabs), 1, C | F | P),
    entry("abs", Some(MathFn::Fabs), 1, C),
    entry("floor", Some(MathFn::Floor), 1, C | F | P),
    entry("ceil", Some(MathFn::Ceil), 1, C | F | P),
    entry("round", Some(MathFn::Round), 1, C | F | P),
    entry("trunc", Some(MathFn::Trunc), 1, C | F | P),
    entry("exp", Some(MathFn::Exp), 1, C | F | P),
    entry("exp2", Some(MathFn::Exp2), 1, C | F | P),
    entry("log", Some(MathFn::Log), 1, C | F | P),
    entry("log2", Some(MathFn::Log2), 1, C | F | P),
    entry("log10", Some(MathFn::Log10), 1, C | F | P),
    entry("pow", Some(MathFn::Pow), 2, C | F | P),
    entry("sin", Some(MathFn::Sin), 1, C | F | P),
    entry("cos", Some(MathFn::Cos), 1, C | F | P),
    entry("tan", Some(MathFn::Tan), 1, C | F | P),
    entry("asin", Some(MathFn::Asin), 1, C | F | P),
    entry("acos", Some(MathFn::Acos), 1, C | F | P),
    entry("atan", Some(MathFn::Atan), 1, C | F | P),
    entry("atan2", Some(MathFn::Atan2), 2, C | F | P),
    entry("sinh", Some(MathFn::Sinh), 1, C | F | P),
    entry("cosh", Some(MathFn::Cosh), 1, C | F | P),
    entry("tanh", Some(MathFn::Tanh), 1, C | F | P),
    entry("fmin", Some(MathFn::Fmin), 2, C | F | P),
    entry("fmax", Some(MathFn::Fmax), 2, C | F | P),
    entry("fmod", Some(MathFn::Fmod), 2, C | F | P),
    // Known, but without an operation in the typed program yet.
    entry("cbrt", Some(MathFn::Cbrt), 1, C | P),
    entry("log1p", Some(MathFn::Log1p), 1, C | P),
    entry("expm1", Some(MathFn::Expm1), 1, C | P),
    entry("hypot", Some(MathFn::Hypot), 2, C | P),
    entry("erf", Some(MathFn::Erf), 1, C | P),
    entry("erfc", Some(MathFn::Erfc), 1, C | P),
    entry("tgamma", Some(MathFn::Tgamma), 1, C | P),
    entry("lgamma", Some(MathFn::Lgamma), 1, C | P),
    entry("asinh", Some(MathFn::Asinh), 1, C | P),
    entry("acosh", Some(MathFn::Acosh), 1, C | P),
    entry("atanh", Some(MathFn::Atanh), 1, C | P),
    entry("copysign", Some(MathFn::Copysign), 2, C | P),
    entry("fdim", Some(MathFn::Fdim), 2, C | P),
    entry("fma", Some(MathFn::Fma), 3, C | P),
    entry("remainder", Some(MathFn::Remainder), 2, C | P),
    entry("nearbyint", None, 1, C | P),
    entry("logb", None, 1, C | P),
    entry("exp10", Some(MathFn::Exp10), 1, P),
    entry("cospi", None, 1, P),
    entry("sinpi", None, 1, P),
    entry("tanpi", None, 1, P),
    entry("rcbrt", None, 1, P),
    entry("erfinv", None, 1, P),
    entry("erfcinv", None, 1, P),
];

/// `concurrency::direct3d` functions that the typed program cannot express yet.
const D3D_MISSING: &[&str] = &[
    "sign",
    "countbits",
    "firstbithigh",
    "firstbitlow",
    "reversebits",
    "radians",
    "step",
    "smoothstep",
    "noise",
];

/// `concurrency::direct3d` functions taken without qualifier (no other library has them).
const D3D_UNQUALIFIED: &[&str] = &[
    "imin",
    "imax",
    "umin",
    "umax",
    "clamp",
    "saturate",
    "mad",
    "rcp",
    "countbits",
    "firstbithigh",
    "firstbitlow",
    "reversebits",
    "smoothstep",
];

/// Which library a math call resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Cmath,
    Fast,
    Precise,
}

impl Family {
    fn bit(self) -> u8 {
        match self {
            Family::Cmath => C,
            Family::Fast => F,
            Family::Precise => P,
        }
    }

    fn qualified(self, name: &str) -> String {
        match self {
            Family::Cmath => format!("std::{name}"),
            Family::Fast => format!("concurrency::fast_math::{name}"),
            Family::Precise => format!("concurrency::precise_math::{name}"),
        }
    }
}

/// The entry of a math function name, and whether it is the `...f` form.
fn lookup(name: &str) -> Option<(&'static Entry, bool)> {
    if let Some(e) = MATH.iter().find(|e| e.name == name) {
        return Some((e, false));
    }
    let base = name.strip_suffix('f')?;
    MATH.iter()
        .find(|e| e.name == base && base != "abs")
        .map(|e| (e, true))
}

/// A call of a math or `direct3d` function, if `path` names one.
pub(super) fn call(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    ns: Ns,
    args: &[Expr],
    span: Span,
) -> Option<Expr> {
    let name = path.last();
    let amp_only = cx.in_amp() && !cx.restriction().cpu;
    if ns == Ns::Direct3d || (ns == Ns::Unqualified && D3D_UNQUALIFIED.contains(&name)) {
        return Some(direct3d(cx, path, args.to_vec(), span));
    }
    if ns == Ns::Unqualified
        && name == "abs"
        && amp_only
        && args
            .iter()
            .all(|a| a.ty.scalar().is_some_and(Scalar::is_integral))
    {
        // `abs(int)` in amp code: `direct3d::abs`.
        return Some(direct3d(cx, path, args.to_vec(), span));
    }
    let (entry, float_form) = lookup(name)?;
    let family = match ns {
        Ns::Std | Ns::Global => Family::Cmath,
        Ns::FastMath => Family::Fast,
        Ns::PreciseMath => Family::Precise,
        // An unqualified name means what the `using namespace` directives
        // seen so far make visible; without one, it is `<cmath>`'s.
        Ns::Unqualified if cx.ck.uses_amp_namespace("fast_math") && entry.libs & F != 0 => {
            Family::Fast
        }
        Ns::Unqualified if cx.ck.uses_amp_namespace("precise_math") && entry.libs & P != 0 => {
            Family::Precise
        }
        Ns::Unqualified if entry.libs & C != 0 => Family::Cmath,
        Ns::Unqualified => Family::Precise,
        Ns::Amp | Ns::Direct3d | Ns::Other => return None,
    };
    if entry.libs & family.bit() == 0 {
        let elsewhere = [Family::Precise, Family::Fast, Family::Cmath]
            .into_iter()
            .find(|f| entry.libs & f.bit() != 0);
        let help =
            elsewhere.map_or_else(String::new, |f| format!("`{}` has it", f.qualified(name)));
        cx.ck.error(
            codes::E0200,
            path.span,
            format!("cannot find function `{}`", path.text()),
            "not in this library",
            help,
        );
        return Some(error_expr(span));
    }
    let what = format!("`{}`", family.qualified(name));
    let side_ok = match family {
        Family::Cmath => check_side(
            cx,
            Side::Host,
            &what,
            path.span,
            "C3930",
            &format!(
                "in amp code use `concurrency::fast_math::{name}` or `concurrency::precise_math::{name}` from <amp_math.h>"
            ),
        ),
        Family::Fast | Family::Precise => check_side(
            cx,
            Side::Amp,
            &what,
            path.span,
            "C3930",
            &format!("on the host, use `std::{name}` from <cmath>"),
        ),
    };
    if !arity(cx, &what, args, entry.arity, "", span) {
        return Some(error_expr(span));
    }
    if !numbers(cx, &what, args) {
        return Some(error_expr(span));
    }
    let Some(fun) = entry.fun else {
        if !side_ok {
            return Some(error_expr(span));
        }
        cx.ck.report(
            Diagnostic::error(
                codes::E0211,
                path.span,
                format!("{what} is not supported by Tessera yet"),
            )
            .with_label("not supported")
            .with_note("the typed program has no operation for this function"),
        );
        return Some(error_expr(span));
    };
    let scalars: Vec<Scalar> = args.iter().filter_map(|a| a.ty.scalar()).collect();
    if name == "abs" && scalars.iter().all(|s| s.is_integral()) {
        let t = promote(scalars.first().copied().unwrap_or(Scalar::Int));
        return Some(apply(cx, MathFn::Abs, args.to_vec(), t, span));
    }
    let any_double = scalars.contains(&Scalar::Double);
    let all_float = scalars.iter().all(|s| *s == Scalar::Float);
    let precision = match family {
        _ if float_form => Scalar::Float,
        Family::Fast => Scalar::Float,
        Family::Precise if any_double => Scalar::Double,
        Family::Precise => Scalar::Float,
        Family::Cmath if all_float => Scalar::Float,
        Family::Cmath => Scalar::Double,
    };
    Some(apply(cx, fun, args.to_vec(), precision, span))
}

/// Reports E0203 unless every argument is a number.
fn numbers(cx: &mut FnCx<'_>, what: &str, args: &[Expr]) -> bool {
    let Some(bad) = args.iter().find(|a| a.ty.scalar().is_none()) else {
        return true;
    };
    let shown = cx.ck.show(&bad.ty);
    cx.ck.report(
        Diagnostic::error(
            codes::E0203,
            bad.span,
            format!("mismatched types: {what} takes numbers, found `{shown}`"),
        )
        .with_label(format!("this is `{shown}`")),
    );
    false
}

/// `fun(args)` computed in `t`.
fn apply(cx: &mut FnCx<'_>, fun: MathFn, args: Vec<Expr>, t: Scalar, span: Span) -> Expr {
    let args = args.into_iter().map(|a| cx.convert_scalar(a, t)).collect();
    intrinsic(Intrinsic::Math(fun), args, Type::Scalar(t), span)
}

/// A binary arithmetic operation in `t`.
fn arith(op: BinOp, l: Expr, r: Expr, t: Scalar, span: Span) -> Expr {
    mk(
        ExprKind::Binary {
            op,
            lhs: Box::new(l),
            rhs: Box::new(r),
        },
        Type::Scalar(t),
        false,
        span,
    )
}

/// A constant of floating type `t`.
fn float_const(v: f32, t: Scalar, span: Span) -> Expr {
    let c = if t == Scalar::Double {
        Const::Double(f64::from(v))
    } else {
        Const::Float(v)
    };
    mk(ExprKind::Const(c), Type::Scalar(t), false, span)
}

/// `concurrency::direct3d::*` (amp only).
fn direct3d(cx: &mut FnCx<'_>, path: &ast::Path, args: Vec<Expr>, span: Span) -> Expr {
    let name = path.last();
    let what = format!("`concurrency::direct3d::{name}`");
    let side_ok = check_side(
        cx,
        Side::Amp,
        &what,
        path.span,
        "C3930",
        "direct3d functions exist only in kernels; on the host use <cmath> or `std::min`/`std::max`",
    );
    if D3D_MISSING.contains(&name) {
        if !side_ok {
            return error_expr(span);
        }
        cx.ck.report(
            Diagnostic::error(
                codes::E0211,
                path.span,
                format!("{what} is not supported by Tessera yet"),
            )
            .with_label("not supported")
            .with_note("the typed program has no operation for this function"),
        );
        return error_expr(span);
    }
    let want = match name {
        "imin" | "imax" | "umin" | "umax" => 2,
        "clamp" | "mad" => 3,
        "abs" | "saturate" | "rcp" => 1,
        _ => {
            cx.ck.error(
                codes::E0200,
                path.span,
                format!("cannot find function `{}`", path.text()),
                "not declared",
                "",
            );
            return error_expr(span);
        }
    };
    if !arity(cx, &what, &args, want, "", span) || !numbers(cx, &what, &args) {
        return error_expr(span);
    }
    let scalars: Vec<Scalar> = args.iter().filter_map(|a| a.ty.scalar()).collect();
    let floating = scalars.iter().any(|s| s.is_floating());
    let widest = scalars
        .iter()
        .copied()
        .reduce(common)
        .unwrap_or(Scalar::Int);
    let mut it = args.into_iter();
    let (Some(a), b, c) = (it.next(), it.next(), it.next()) else {
        return error_expr(span);
    };
    match (name, b, c) {
        ("imin", Some(b), _) => apply(cx, MathFn::Min, vec![a, b], Scalar::Int, span),
        ("imax", Some(b), _) => apply(cx, MathFn::Max, vec![a, b], Scalar::Int, span),
        ("umin", Some(b), _) => apply(cx, MathFn::Min, vec![a, b], Scalar::UInt, span),
        ("umax", Some(b), _) => apply(cx, MathFn::Max, vec![a, b], Scalar::UInt, span),
        ("abs", _, _) if floating => apply(cx, MathFn::Fabs, vec![a], widest, span),
        ("abs", _, _) => apply(cx, MathFn::Abs, vec![a], Scalar::Int, span),
        ("clamp", Some(lo), Some(hi)) => {
            let (t, min, max) = if floating {
                (Scalar::Float, MathFn::Fmin, MathFn::Fmax)
            } else {
                (Scalar::Int, MathFn::Min, MathFn::Max)
            };
            let low = apply(cx, max, vec![a, lo], t, span);
            apply(cx, min, vec![low, hi], t, span)
        }
        ("saturate", _, _) => {
            let low = apply(
                cx,
                MathFn::Fmax,
                vec![a, float_const(0.0, Scalar::Float, span)],
                Scalar::Float,
                span,
            );
            apply(
                cx,
                MathFn::Fmin,
                vec![low, float_const(1.0, Scalar::Float, span)],
                Scalar::Float,
                span,
            )
        }
        ("mad", Some(b), Some(c)) => {
            let t = if widest.is_floating() {
                widest
            } else if widest.is_unsigned() {
                Scalar::UInt
            } else {
                Scalar::Int
            };
            let (a, b, c) = (
                cx.convert_scalar(a, t),
                cx.convert_scalar(b, t),
                cx.convert_scalar(c, t),
            );
            let product = arith(BinOp::Mul, a, b, t, span);
            arith(BinOp::Add, product, c, t, span)
        }
        ("rcp", _, _) => {
            let t = if widest == Scalar::Double {
                Scalar::Double
            } else {
                Scalar::Float
            };
            let a = cx.convert_scalar(a, t);
            arith(BinOp::Div, float_const(1.0, t, span), a, t, span)
        }
        _ => error_expr(span),
    }
}

/// `std::min(a, b)` / `std::max(a, b)` (host only; both of one type, as the
/// template requires).
pub(super) fn std_min_max(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let name = path.last();
    let is_min = name == "min";
    let what = format!("`std::{name}`");
    let amp_help = if is_min {
        "in amp code use `concurrency::direct3d::imin` for ints or `concurrency::fast_math::fmin` for floats"
    } else {
        "in amp code use `concurrency::direct3d::imax` for ints or `concurrency::fast_math::fmax` for floats"
    };
    check_side(cx, Side::Host, &what, path.span, "C3930", amp_help);
    if !arity(cx, &what, &args, 2, "two values of the same type", span)
        || !numbers(cx, &what, &args)
    {
        return error_expr(span);
    }
    let mut it = args.into_iter();
    let (Some(a), Some(b)) = (it.next(), it.next()) else {
        return error_expr(span);
    };
    let (Some(ta), Some(tb)) = (a.ty.scalar(), b.ty.scalar()) else {
        return error_expr(span);
    };
    if ta != tb {
        let (x, y) = (ta.name(), tb.name());
        cx.ck.report(
            Diagnostic::error(codes::E0203, span, format!("mismatched types: {what} takes two values of the same type, found `{x}` and `{y}`"))
                .with_label("different types")
                .with_secondary(a.span, format!("`{x}`"))
                .with_secondary(b.span, format!("`{y}`"))
                .with_help(format!("convert one of them: `std::{name}(a, ({x})b)`")),
        );
        return error_expr(span);
    }
    if ta.is_integral() {
        let fun = if is_min { MathFn::Min } else { MathFn::Max };
        return intrinsic(Intrinsic::Math(fun), vec![a, b], Type::Scalar(ta), span);
    }
    if is_pure(&a) && is_pure(&b) {
        // Exactly C++'s definition: `min` is `b < a ? b : a`, `max` is `a < b ? b : a`.
        let (l, r) = if is_min {
            (b.clone(), a.clone())
        } else {
            (a.clone(), b.clone())
        };
        let cond = mk(
            ExprKind::Binary {
                op: BinOp::Lt,
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            Type::BOOL,
            false,
            span,
        );
        return mk(
            ExprKind::Conditional {
                cond: Box::new(cond),
                then: Box::new(b),
                els: Box::new(a),
            },
            Type::Scalar(ta),
            false,
            span,
        );
    }
    // Differs from `std::min` only for NaN operands.
    let fun = if is_min { MathFn::Fmin } else { MathFn::Fmax };
    intrinsic(Intrinsic::Math(fun), vec![a, b], Type::Scalar(ta), span)
}

/// Where math function `name` (or its `...f` form) is declared: in
/// `<cmath>` (the C library's), and in `<amp_math.h>` (`fast_math`'s or
/// `precise_math`'s). `(false, false)` for a name that is no math function.
pub(super) fn declared_in(name: &str) -> (bool, bool) {
    lookup(name).map_or((false, false), |(e, _)| {
        (e.libs & C != 0, e.libs & (F | P) != 0)
    })
}

/// True for the `concurrency::direct3d` functions a kernel may call
/// without the namespace.
pub(super) fn is_direct3d_unqualified(name: &str) -> bool {
    D3D_UNQUALIFIED.contains(&name)
}
