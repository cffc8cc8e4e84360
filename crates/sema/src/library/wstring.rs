//! `std::wstring` on the host: the type of `accelerator::get_description()`
//! and `get_device_path()`, of wide literals (`L"cpu"`) and of the
//! program's own variables and parameters. A value is its text (the engines
//! hold it as UTF-8 bytes, which is what a wide stream writes under a UTF-8
//! locale). What it supports: copies, `==` and `!=`, and writing it to a
//! wide stream; its characters (`wchar_t`) are not part of the language yet.

use super::{Side, check_side, intrinsic, mk};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Expr, ExprKind, Intrinsic, Scalar, Type, UnOp};
use tessera_syntax::ast;

/// The help listing what a `std::wstring` supports.
const SUPPORTED: &str = "a `std::wstring` can be copied, compared with `==` and `!=`, written to a wide stream (`std::wcout`), and has `c_str()`, `data()`, `size()`, `length()` and `empty()`";

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

/// A member function call on a wide string: `c_str()`, `data()`,
/// `size()`, `length()`, `empty()`.
pub(super) fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: &[Expr],
    span: Span,
) -> Expr {
    let what = format!("`std::wstring::{}`", name.name);
    let known = matches!(
        name.name.as_str(),
        "c_str" | "data" | "size" | "length" | "empty"
    );
    if !known {
        cx.ck.error(
            codes::E0211,
            name.span,
            format!("{what} is not supported yet"),
            "not supported",
            SUPPORTED,
        );
        return error_expr(span);
    }
    if !check_side(
        cx,
        Side::Host,
        &what,
        span,
        "C3930",
        "strings live on the host",
    ) || !super::arity(cx, &what, args, 0, "no arguments", span)
    {
        return error_expr(span);
    }
    let length = || {
        intrinsic(
            Intrinsic::WideStrLen,
            vec![base.clone()],
            Type::Scalar(Scalar::ULong),
            span,
        )
    };
    match name.name.as_str() {
        "c_str" | "data" => intrinsic(
            Intrinsic::WideStrChars,
            vec![base.clone()],
            Type::Ptr {
                elem: Box::new(Type::Scalar(Scalar::WChar)),
                is_const: true,
            },
            span,
        ),
        "empty" => mk(
            ExprKind::Binary {
                op: tessera_ir::BinOp::Eq,
                lhs: Box::new(length()),
                rhs: Box::new(mk(
                    ExprKind::Const(tessera_ir::Const::Int(0)),
                    Type::Scalar(Scalar::ULong),
                    false,
                    span,
                )),
            },
            Type::BOOL,
            false,
            span,
        ),
        _ => length(),
    }
}

/// A wide string literal (`L"..."`) where a `const wchar_t*` is expected:
/// a pointer to its characters and their zero.
pub(crate) fn literal_pointer(e: Expr) -> Result<Expr, Expr> {
    if e.ty != Type::WideStr || !matches!(e.kind, ExprKind::Str(_)) {
        return Err(e);
    }
    let span = e.span;
    Ok(intrinsic(
        Intrinsic::WideStrChars,
        vec![e],
        Type::Ptr {
            elem: Box::new(Type::Scalar(Scalar::WChar)),
            is_const: true,
        },
        span,
    ))
}

/// The wide string a `const wchar_t*` points to, for a conversion to
/// `std::wstring` (`std::wstring s = p;`, `accelerator(p)`).
pub(crate) fn from_pointer(cx: &mut FnCx<'_>, p: Expr) -> Result<Expr, Expr> {
    match &p.ty {
        Type::Ptr { elem, .. } if **elem == Type::Scalar(Scalar::WChar) => {
            let span = p.span;
            Ok(intrinsic(
                Intrinsic::WideStrFromPtr,
                vec![p],
                Type::WideStr,
                span,
            ))
        }
        // A `wchar_t` array decays to a pointer to its first element.
        Type::CArray(elem, _) if **elem == Type::Scalar(Scalar::WChar) => {
            let span = p.span;
            let ptr_ty = Type::Ptr {
                elem: elem.clone(),
                is_const: true,
            };
            let decayed = cx.coerce(p, &ptr_ty, "the wide string");
            Ok(intrinsic(
                Intrinsic::WideStrFromPtr,
                vec![decayed],
                Type::WideStr,
                span,
            ))
        }
        _ => Err(p),
    }
}

/// `std::wstring()` (empty), `std::wstring(s)` (a copy of a wide string)
/// and `std::wstring(p)` (the text a `const wchar_t*` points to).
pub(super) fn construct(cx: &mut FnCx<'_>, args: Vec<Expr>, span: Span) -> Expr {
    let args = match <[Expr; 1]>::try_from(args) {
        Ok([one]) if !is_wide(&one.ty) => match from_pointer(cx, one) {
            Ok(text) => return text,
            Err(one) => vec![one],
        },
        Ok([one]) => vec![one],
        Err(args) => args,
    };
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
                "build a `std::wstring` from nothing, from another wide string or from a `const wchar_t*`",
            );
            error_expr(span)
        }
    }
}
