//! `concurrency::copy` with iterators of the program's own classes: any
//! class with `*`, `++` and `!=` is an iterator, as in C++. The copy is a
//! loop over the class's operators, which the engines run: the iterators
//! are held in hidden locals, and `GatherIter` (reading a range into a
//! vector) and `ScatterIter` (writing a vector through an iterator) call
//! the operators' lowered calls on them in turn.

use super::{intrinsic, is_pure, mk};
use crate::cx::FnCx;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Intrinsic, Local, Scalar, Type};

const LONG: Type = Type::Scalar(Scalar::Long);

/// True for an iterator of the program's own class.
pub(super) fn is_user_iter(e: &Expr) -> bool {
    matches!(e.ty, Type::Struct(_))
}

/// A hidden local of type `ty` (a place), and the expression storing
/// `value` in it.
fn hidden(cx: &mut FnCx<'_>, value: Expr) -> (Expr, Expr) {
    let (ty, span) = (value.ty.clone(), value.span);
    let id = cx.declare(Local {
        name: String::new(),
        ty: ty.clone(),
        by_ref: false,
        is_const: false,
        space: cx.local_space(),
        span,
    });
    let local = mk(ExprKind::Local(id), ty.clone(), true, span);
    let store = mk(
        ExprKind::Assign {
            target: Box::new(local.clone()),
            value: Box::new(Expr {
                place: false,
                ..value
            }),
        },
        ty,
        true,
        span,
    );
    (local, store)
}

/// `++it` on a hidden iterator.
fn step(cx: &mut FnCx<'_>, it: &Expr, span: Span) -> Expr {
    cx.class_operator("++", vec![it.clone()], span)
}

/// The elements from `first` up to `last` (or the first `count`), as a
/// vector of `elem`: `GatherIter [store first, store last, it != last,
/// count, *it, ++it]`.
pub(super) fn gather(
    cx: &mut FnCx<'_>,
    first: Expr,
    last: Option<Expr>,
    count: Option<Expr>,
    elem: &Type,
    span: Span,
) -> Option<Expr> {
    let (it, store_first) = hidden(cx, first);
    let (store_last, cond) = match last {
        Some(last) => {
            if last.ty != it.ty {
                let (a, b) = (cx.ck.show(&it.ty), cx.ck.show(&last.ty));
                cx.ck.error(
                    codes::E0203,
                    last.span,
                    format!("mismatched types: an iterator range from `{a}` to `{b}`"),
                    format!("this is `{b}`"),
                    "",
                );
                return None;
            }
            let (end, store_last) = hidden(cx, last);
            let ne = cx.class_operator("!=", vec![it.clone(), end], span);
            (store_last, cx.condition(ne))
        }
        None => {
            let yes = mk(ExprKind::Const(Const::Bool(true)), Type::BOOL, false, span);
            (yes.clone(), yes)
        }
    };
    let count = match count {
        Some(n) => cx.convert_scalar(n, Scalar::Long),
        None => mk(ExprKind::Const(Const::Int(-1)), LONG, false, span),
    };
    let read = cx.class_operator("*", vec![it.clone()], span);
    let read = cx.coerce(read, elem, "an element read through the iterator");
    let next = step(cx, &it, span);
    if [&cond, &read, &next].iter().any(|e| e.ty.is_error()) {
        return None;
    }
    Some(intrinsic(
        Intrinsic::GatherIter,
        vec![store_first, store_last, cond, count, read, next],
        Type::Vector(Box::new(elem.clone())),
        span,
    ))
}

/// Writes the elements of `source` (a vector expression) through `out`:
/// `ScatterIter [source, store out, element, *it = element, ++it]`.
pub(super) fn scatter(cx: &mut FnCx<'_>, source: Expr, out: Expr, span: Span) -> Option<Expr> {
    let elem = source.ty.sequence_elem().cloned()?;
    let (it, store) = hidden(cx, out);
    let zero = mk(ExprKind::Const(Const::Int(0)), Type::INT, false, span);
    let placeholder = cx.coerce(zero, &elem, "an element");
    let (element, _) = hidden(cx, placeholder);
    let target = cx.class_operator("*", vec![it.clone()], span);
    if target.ty.is_error() {
        return None;
    }
    if !target.place {
        cx.ck.error(
            codes::E0204,
            span,
            "the iterator's `operator*` gives a value, not an element to write",
            "not writable",
            "return `T&` from `operator*`",
        );
        return None;
    }
    cx.check_writable(&target, "written");
    let value = cx.coerce(element.clone(), &target.ty, "the copied element");
    let ty = target.ty.clone();
    let write = mk(
        ExprKind::Assign {
            target: Box::new(target),
            value: Box::new(value),
        },
        ty,
        true,
        span,
    );
    let next = step(cx, &it, span);
    if write.ty.is_error() || next.ty.is_error() {
        return None;
    }
    Some(intrinsic(
        Intrinsic::ScatterIter,
        vec![source, store, element, write, next],
        Type::Void,
        span,
    ))
}

/// The number of elements of a view or array `v`, named again (it must
/// be a variable).
pub(super) fn view_size(cx: &mut FnCx<'_>, v: &Expr) -> Option<Expr> {
    let rank = match &v.ty {
        Type::Array(_, r) | Type::ArrayView { rank: r, .. } => *r,
        _ => return None,
    };
    if !is_pure(v) {
        cx.ck.error(
            codes::E0211,
            v.span,
            "`copy` from an iterator into a computed view is not supported yet",
            "computed here",
            "store the view in a variable first",
        );
        return None;
    }
    let ext = intrinsic(
        Intrinsic::ViewExtent,
        vec![v.clone()],
        Type::Extent(rank),
        v.span,
    );
    Some(intrinsic(
        Intrinsic::ExtentSize,
        vec![ext],
        Type::Scalar(Scalar::UInt),
        v.span,
    ))
}
