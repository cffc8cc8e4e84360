//! `std::wstring` on the host: the type of `accelerator::get_description()`
//! and `get_device_path()`, of wide literals (`L"cpu"`) and of the
//! program's own variables and parameters. A value is its text (the engines
//! hold it as UTF-8 bytes, which is what a wide stream writes under a UTF-8
//! locale). What it supports: copies, `==` and `!=`, and writing it to a
//! wide stream; its characters (`wchar_t`) are not part of the language yet.

use super::{Side, check_side, intrinsic, mk};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Expr, ExprKind, Intrinsic, Type, UnOp};
use tessera_syntax::ast;

/// The help listing what a `std::wstring` supports.
const SUPPORTED: &str = "a `std::wstring` can be copied, compared with `==` and `!=` and written to a wide stream (`std::wcout`)";

/// True for a wide string operand.
pub(super) fn is_wide(ty: &Type) -> bool {
    *ty == Type::WideStr
}

/// `a == b` or `a != b` on two wide strings: a comparison of their text,
/// as `std::wstring`'s operators compare (a wide literal or an
/// `accelerator` constant on either side is converted to a `std::wstring`
/// first).
pub(super) fn compare(cx: &mut FnCx<'_>, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
    let equal = match op {
        ast::BinaryOp::Eq => true,
        ast::BinaryOp::Ne => false,
        _ => {
            let (a, b) = (cx.ck.show(&l.ty), cx.ck.show(&r.ty));
            cx.ck.error(
                codes::E0211,
                span,
                format!(
                    "operator `{}` on `{a}` and `{b}` is not supported yet",
                    op.symbol()
                ),
                "not supported",
                SUPPORTED,
            );
            return error_expr(span);
        }
    };
    if !is_wide(&l.ty) || !is_wide(&r.ty) {
        let (a, b) = (cx.ck.show(&l.ty), cx.ck.show(&r.ty));
        cx.ck.error(
            codes::E0210,
            span,
            format!("no operator `{}` for `{a}` and `{b}`", op.symbol()),
            "invalid operands",
            "a wide string compares only with another wide string",
        );
        return error_expr(span);
    }
    if !check_side(
        cx,
        Side::Host,
        "comparing wide strings",
        span,
        "C3930",
        "strings live on the host",
    ) {
        return error_expr(span);
    }
    let same = equal_text(l, r, span);
    if equal {
        return same;
    }
    mk(
        ExprKind::Unary {
            op: UnOp::Not,
            operand: Box::new(same),
        },
        Type::BOOL,
        false,
        span,
    )
}

/// Whether two wide strings hold the same text (a `bool`).
pub(super) fn equal_text(l: Expr, r: Expr, span: Span) -> Expr {
    intrinsic(Intrinsic::WideStrEq, vec![l, r], Type::BOOL, span)
}

/// A member function call on a wide string: none is supported yet.
pub(super) fn method(cx: &mut FnCx<'_>, name: &ast::Ident, span: Span) -> Expr {
    let what = if matches!(name.name.as_str(), "c_str" | "data") {
        format!(
            "`std::wstring::{}` is not supported: `wchar_t` and its pointers are not part of the Tessera language yet",
            name.name
        )
    } else {
        format!("`std::wstring::{}` is not supported yet", name.name)
    };
    cx.ck
        .error(codes::E0211, name.span, what, "not supported", SUPPORTED);
    error_expr(span)
}

/// `std::wstring()` (empty) and `std::wstring(s)` (a copy of a wide string).
pub(super) fn construct(cx: &mut FnCx<'_>, args: Vec<Expr>, span: Span) -> Expr {
    match args.as_slice() {
        [] => mk(ExprKind::Str(Vec::new()), Type::WideStr, false, span),
        [one] if is_wide(&one.ty) => Expr {
            place: false,
            span,
            ..one.clone()
        },
        _ => {
            cx.ck.error(
                codes::E0211,
                span,
                "this `std::wstring` constructor is not supported yet",
                "not supported",
                "build a `std::wstring` from nothing or from another wide string",
            );
            error_expr(span)
        }
    }
}
