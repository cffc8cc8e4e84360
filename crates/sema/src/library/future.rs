//! `copy_async` and `completion_future` (with `std::shared_future<void>`,
//! which a completion future converts to).
//!
//! Tessera runs every operation to completion before the next one starts,
//! so `copy_async` copies at once, as `copy` does, and the future it
//! returns is ready: `wait()` and `get()` return at once, `is_ready()` and
//! `valid()` are true. The future is a struct the checker makes once (one
//! `int`, so that it has a size), which the engines copy like any other.
//! A continuation given to `then` runs at once, when `then` is called (the
//! future is ready); `to_task()` is a ready `task<void>` (see `task`).

use super::{Side, arity, check_side, intrinsic};
use crate::class::ClassInfo;
use crate::cx::{Checker, FnCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Intrinsic, Scalar, StructDef, StructId, Type};
use tessera_syntax::ast;

const NAME: &str = "completion_future";

/// The struct of `completion_future` (and `std::shared_future<void>`).
pub fn future_type(ck: &mut Checker) -> Type {
    if let Some(&id) = ck.structs.get(NAME) {
        return Type::Struct(id);
    }
    let id = StructId(ck.program.structs.len() as u32);
    ck.program.structs.push(StructDef {
        name: NAME.into(),
        fields: vec![("ready".into(), Type::Scalar(Scalar::Int))],
        is_union: false,
        span: Span::default(),
    });
    ck.classes.insert(
        id,
        ClassInfo {
            name: NAME.into(),
            ..ClassInfo::default()
        },
    );
    ck.structs.insert(NAME.into(), id);
    Type::Struct(id)
}

/// True for the future's struct.
pub fn is_future(ck: &Checker, ty: &Type) -> bool {
    matches!(ty, Type::Struct(id) if ck.structs.get(NAME) == Some(id))
}

/// A ready future.
pub(super) fn ready(ck: &mut Checker, span: Span) -> Expr {
    let ty = future_type(ck);
    let one = mk(
        ExprKind::Const(Const::Int(1)),
        Type::Scalar(Scalar::Int),
        false,
        span,
    );
    mk(ExprKind::Aggregate(vec![one]), ty, false, span)
}

/// `copy_async(src, dest)` (any form `copy` takes): the copy, done now,
/// then a ready future.
pub fn copy_async(cx: &mut FnCx<'_>, path: &ast::Path, args: Vec<Expr>, span: Span) -> Expr {
    let what = format!("`{}`", path.text());
    if !check_side(
        cx,
        Side::Host,
        &what,
        path.span,
        "C3930",
        "copy on the host",
    ) {
        return error_expr(span);
    }
    let copied = super::container::copy(cx, path, args, span);
    if copied.ty.is_error() {
        return copied;
    }
    let future = ready(cx.ck, span);
    let ty = future.ty.clone();
    mk(
        ExprKind::Comma {
            first: Box::new(copied),
            second: Box::new(future),
        },
        ty,
        false,
        span,
    )
}

/// `f.wait()`, `f.get()`, `f.is_ready()`, `f.valid()` on a future.
pub fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let what = format!("`completion_future::{}`", name.name);
    if !check_side(
        cx,
        Side::Host,
        &what,
        name.span,
        "C3930",
        "wait on the host",
    ) {
        return error_expr(span);
    }
    if name.name == "then" {
        if !arity(cx, &what, &args, 1, "a function to call", span) {
            return error_expr(span);
        }
        let Some(f) = args.into_iter().next() else {
            return error_expr(span);
        };
        let call = cx.call_callable(f, Vec::new(), span);
        if call.ty.is_error() {
            return call;
        }
        return mk(
            ExprKind::Comma {
                first: Box::new(base),
                second: Box::new(call),
            },
            Type::Void,
            false,
            span,
        );
    }
    if name.name == "to_task" {
        if !arity(cx, &what, &args, 0, "", span) {
            return error_expr(span);
        }
        return super::task::ready_after(cx.ck, base, span);
    }
    let value = match name.name.as_str() {
        // Nothing to wait for: the operation is done.
        "wait" | "get" => intrinsic(Intrinsic::DeviceWait, Vec::new(), Type::Void, span),
        "is_ready" | "valid" => mk(
            ExprKind::Const(Const::Bool(true)),
            Type::Scalar(Scalar::Bool),
            false,
            span,
        ),
        _ => {
            cx.ck.error(
                codes::E0211,
                name.span,
                format!("{what} is not supported yet"),
                "not supported",
                "Tessera runs the operation at once: wait with `wait()` and go on in the code after it",
            );
            return error_expr(span);
        }
    };
    if !arity(cx, &what, &args, 0, "", span) {
        return error_expr(span);
    }
    // The future itself is evaluated (it may be a call's result), then the
    // answer.
    let ty = value.ty.clone();
    mk(
        ExprKind::Comma {
            first: Box::new(base),
            second: Box::new(value),
        },
        ty,
        false,
        span,
    )
}
