//! PPL tasks (`<ppltasks.h>`, also brought by `<amp.h>` as in MSVC):
//! `concurrency::task<T>`, `create_task`, `completion_future::to_task()`.
//!
//! Tessera runs the host on one thread and every operation to completion
//! before the next one starts, so a task runs when it is made: a task is
//! its result, ready at once (a struct the checker makes per result type,
//! holding the value; `task<void>` holds one `int`, as a ready future
//! does). `create_task(f)` calls `f` there; `get()` reads the value;
//! `wait()` and `is_done()` have nothing to wait for; `t.then(f)` calls
//! `f` with `t`'s value (or with nothing, for a `task<void>`) and is a task
//! of what `f` returns; `a && b` of two `task<void>`s is a `task<void>`
//! done when both are. A program cannot tell this order from C++'s when
//! its tasks do not race with the code that made them, which it must
//! anyway (it would then wait on the task before reading what it wrote).

use super::{Side, arity, check_side};
use crate::class::ClassInfo;
use crate::cx::{Checker, FnCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Intrinsic, Scalar, StructDef, StructId, Type};
use tessera_syntax::ast;

/// The struct of `concurrency::task<T>` (`T` is `Type::Void` for
/// `task<void>`).
pub fn task_type(ck: &mut Checker, result: &Type) -> Type {
    let name = format!("concurrency::task<{}>", ck.show(result));
    if let Some(&id) = ck.structs.get(&name) {
        return Type::Struct(id);
    }
    let field = match result {
        Type::Void => ("ready".to_string(), Type::Scalar(Scalar::Int)),
        other => ("value".to_string(), other.clone()),
    };
    let id = StructId(ck.program.structs.len() as u32);
    ck.program.structs.push(StructDef {
        name: name.clone(),
        fields: vec![field],
        is_union: false,
        span: Span::default(),
    });
    ck.classes.insert(
        id,
        ClassInfo {
            name: name.clone(),
            ..ClassInfo::default()
        },
    );
    ck.structs.insert(name, id);
    ck.task_results.insert(id, result.clone());
    Type::Struct(id)
}

/// The result type of a task type, if `ty` is one.
pub fn result_of(ck: &Checker, ty: &Type) -> Option<Type> {
    match ty {
        Type::Struct(id) => ck.task_results.get(id).cloned(),
        _ => None,
    }
}

/// A finished task holding `value` (evaluated now); for a `void` value,
/// the value is evaluated and the task holds the mark of a ready one.
fn finished(ck: &mut Checker, value: Expr, span: Span) -> Expr {
    let ty = task_type(ck, &value.ty);
    if value.ty == Type::Void {
        let one = mk(
            ExprKind::Const(Const::Int(1)),
            Type::Scalar(Scalar::Int),
            false,
            span,
        );
        let task = mk(ExprKind::Aggregate(vec![one]), ty.clone(), false, span);
        return mk(
            ExprKind::Comma {
                first: Box::new(value),
                second: Box::new(task),
            },
            ty,
            false,
            span,
        );
    }
    mk(ExprKind::Aggregate(vec![value]), ty, false, span)
}

/// A ready `task<void>` after `first` is evaluated
/// (`completion_future::to_task()`, `a && b`).
pub fn ready_after(ck: &mut Checker, first: Expr, span: Span) -> Expr {
    let ty = task_type(ck, &Type::Void);
    let one = mk(
        ExprKind::Const(Const::Int(1)),
        Type::Scalar(Scalar::Int),
        false,
        span,
    );
    let done = mk(ExprKind::Aggregate(vec![one]), ty.clone(), false, span);
    mk(
        ExprKind::Comma {
            first: Box::new(first),
            second: Box::new(done),
        },
        ty,
        false,
        span,
    )
}

/// `concurrency::create_task(f)`: `f` runs now; the task holds its result.
pub fn create_task(cx: &mut FnCx<'_>, path: &ast::Path, args: Vec<Expr>, span: Span) -> Expr {
    let what = format!("`{}`", path.text());
    if !check_side(
        cx,
        Side::Host,
        &what,
        path.span,
        "C3930",
        "make tasks on the host",
    ) || !arity(cx, &what, &args, 1, "a function to run", span)
    {
        return error_expr(span);
    }
    let Some(f) = args.into_iter().next() else {
        return error_expr(span);
    };
    let call = cx.call_callable(f, Vec::new(), span);
    if call.ty.is_error() {
        return call;
    }
    finished(cx.ck, call, span)
}

/// `t.get()`, `t.wait()`, `t.is_done()`, `t.then(f)` on a task.
pub fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let what = format!("`task::{}`", name.name);
    if !check_side(
        cx,
        Side::Host,
        &what,
        name.span,
        "C3930",
        "use tasks on the host",
    ) {
        return error_expr(span);
    }
    let Some(result) = result_of(cx.ck, &base.ty) else {
        return error_expr(span);
    };
    let comma = |first: Expr, second: Expr| {
        let ty = second.ty.clone();
        mk(
            ExprKind::Comma {
                first: Box::new(first),
                second: Box::new(second),
            },
            ty,
            false,
            span,
        )
    };
    match name.name.as_str() {
        "then" => {
            if !arity(cx, &what, &args, 1, "a continuation", span) {
                return error_expr(span);
            }
            let Some(f) = args.into_iter().next() else {
                return error_expr(span);
            };
            // A continuation taking the task's value (a value-based one);
            // one taking the task itself is not supported yet.
            if takes_task(cx.ck, &f.ty, &base.ty) {
                cx.ck.error(
                    codes::E0211,
                    f.span,
                    "a continuation that takes the task itself is not supported yet",
                    "takes the task",
                    "take the task's value instead: `[](int v) { ... }` for a `task<int>`",
                );
                return error_expr(span);
            }
            let call = if result == Type::Void {
                let call = cx.call_callable(f, Vec::new(), span);
                if call.ty.is_error() {
                    return call;
                }
                comma(base, call)
            } else {
                let value = mk(
                    ExprKind::Field {
                        base: Box::new(base),
                        field: 0,
                    },
                    result,
                    false,
                    span,
                );
                cx.call_callable(f, vec![value], span)
            };
            if call.ty.is_error() {
                return call;
            }
            finished(cx.ck, call, span)
        }
        "get" | "wait" | "is_done" | "is_apartment_aware" => {
            if !arity(cx, &what, &args, 0, "", span) {
                return error_expr(span);
            }
            match name.name.as_str() {
                "get" if result != Type::Void => mk(
                    ExprKind::Field {
                        base: Box::new(base),
                        field: 0,
                    },
                    result,
                    false,
                    span,
                ),
                // Nothing to wait for: the task is done.
                "get" => comma(
                    base,
                    super::intrinsic(Intrinsic::DeviceWait, Vec::new(), Type::Void, span),
                ),
                // `task_status::completed`, an unscoped enumerator (1).
                "wait" => comma(
                    base,
                    mk(
                        ExprKind::Const(Const::Int(1)),
                        Type::Scalar(Scalar::Int),
                        false,
                        span,
                    ),
                ),
                other => comma(
                    base,
                    mk(
                        ExprKind::Const(Const::Bool(other == "is_done")),
                        Type::Scalar(Scalar::Bool),
                        false,
                        span,
                    ),
                ),
            }
        }
        _ => {
            cx.ck.error(
                codes::E0211,
                name.span,
                format!("{what} is not supported yet"),
                "not supported",
                "Tessera's tasks have `get()`, `is_done()` and `then(f)`",
            );
            error_expr(span)
        }
    }
}

/// Whether `f` is a function object whose `operator()` takes a `task` (of
/// the type `task` or any other) as its first parameter.
fn takes_task(ck: &Checker, f: &Type, task: &Type) -> bool {
    let Type::Struct(id) = f else {
        return false;
    };
    let Some((_, _, ids)) = ck.find_methods(*id, "operator()") else {
        return false;
    };
    ids.iter().any(|fid| {
        ck.program.get_function(*fid).is_some_and(|func| {
            func.locals
                .get(1)
                .is_some_and(|p| p.ty == *task || result_of(ck, &p.ty).is_some())
        })
    })
}
