//! Iterators held as values where a pointer would allow too much or do
//! the wrong thing: those of `std::list`, `std::set`, `std::multiset`,
//! the unordered sets, and every reverse iterator (`Type::Iter`).
//!
//! A container keeps its elements in iteration order (see `stdcont`), so
//! such an iterator is at run time a pointer into them: `AsIter` and
//! `IterBase` change only the static type. A reverse iterator points one
//! past the element it designates, as `std::reverse_iterator` keeps its
//! base: `rbegin()` is the end, `*rit` reads the element before, `++rit`
//! steps the pointer back. The checker gives each iterator the operations
//! of its category: `++` everywhere, `--` but on the unordered sets' (forward
//! iterators), `+ k` and `-` only on random-access ones (C2676 otherwise),
//! and no writes through the iterators of a set (their elements are
//! `const`).
//!
//! Library functions take ranges of these iterators as the vector of the
//! elements they visit (`IterElements`), or a forward iterator as the
//! pointer it holds.

use super::{intrinsic, mk};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Const, Container, Expr, ExprKind, Intrinsic, IterType, Scalar, Type};
use tessera_syntax::ast::{BinaryOp, UnaryOp};

const LONG: Type = Type::Scalar(Scalar::Long);

/// The iterator type of an expression, if it is an iterator value.
pub(super) fn iter_type(e: &Expr) -> Option<&IterType> {
    match &e.ty {
        Type::Iter(it) => Some(it),
        _ => None,
    }
}

/// The iterator type of an iterator value, or of one made in place
/// (`c.begin()`), for the checks of its category and constness.
pub(super) fn category(e: &Expr) -> Option<IterType> {
    if let Some(it) = iter_type(e) {
        return Some(it.clone());
    }
    let ExprKind::Intrinsic {
        op: Intrinsic::VectorIterator {
            reverse, read_only, ..
        },
        args,
    } = &e.kind
    else {
        return None;
    };
    let (of, elem) = match &args.first()?.ty {
        Type::Vector(elem) => (None, (**elem).clone()),
        Type::Container(kind, elem) => (Some(*kind), (**elem).clone()),
        _ => return None,
    };
    Some(IterType {
        elem,
        of,
        reverse: *reverse,
        is_const: *read_only || of.is_some_and(Container::is_associative),
    })
}

/// True when `c.begin()`-like iterators of this container, of this
/// direction, are held as `Type::Iter` values (the others are pointers).
pub(super) fn held_as_value(container: &Type, reverse: bool) -> bool {
    reverse || matches!(container, Type::Container(kind, _) if *kind != Container::Deque)
}

/// The value of an iterator made in place by `c.begin()`, `c.rend()` and
/// the like (`Intrinsic::VectorIterator` of a container variable `c`).
pub(super) fn from_container(
    cx: &mut FnCx<'_>,
    c: Expr,
    end: bool,
    reverse: bool,
    read_only: bool,
    span: Span,
) -> Expr {
    let (of, elem) = match &c.ty {
        Type::Vector(elem) => (None, (**elem).clone()),
        Type::Container(kind, elem) => (Some(*kind), (**elem).clone()),
        _ => return error_expr(span),
    };
    let is_const =
        read_only || of.is_some_and(Container::is_associative) || cx.read_only_reason(&c).is_some();
    let ptr_ty = Type::Ptr {
        elem: Box::new(elem.clone()),
        is_const,
    };
    let data = intrinsic(Intrinsic::VectorData, vec![c.clone()], ptr_ty.clone(), span);
    // `end()` and `rbegin()` hold the pointer past the last element.
    let base = if end != reverse {
        let size = intrinsic(
            Intrinsic::VectorSize,
            vec![c],
            Type::Scalar(Scalar::ULong),
            span,
        );
        let size = cx.convert_scalar(size, Scalar::Long);
        mk(
            ExprKind::PtrAdd {
                ptr: Box::new(data),
                offset: Box::new(size),
            },
            ptr_ty,
            false,
            span,
        )
    } else {
        data
    };
    let ty = Type::Iter(Box::new(IterType {
        elem,
        of,
        reverse,
        is_const,
    }));
    intrinsic(Intrinsic::AsIter, vec![base], ty, span)
}

/// The iterator at position `at` (a `long`) of container `c` (a place,
/// read twice), as `begin()` moved on by `at`.
pub(super) fn at_position(cx: &mut FnCx<'_>, c: Expr, at: Expr, span: Span) -> Expr {
    let begin = from_container(cx, c, false, false, false, span);
    let Some(it) = iter_type(&begin).cloned() else {
        return begin;
    };
    shifted(begin, &it, at, span)
}

/// Iterator `it` (of type `ty`) moved by `offset` (a `long`) elements of
/// its storage.
fn shifted(it: Expr, ty: &IterType, offset: Expr, span: Span) -> Expr {
    let ptr = base(it);
    let ptr_ty = ptr.ty.clone();
    let moved = mk(
        ExprKind::PtrAdd {
            ptr: Box::new(ptr),
            offset: Box::new(offset),
        },
        ptr_ty,
        false,
        span,
    );
    intrinsic(
        Intrinsic::AsIter,
        vec![moved],
        Type::Iter(Box::new(ty.clone())),
        span,
    )
}

/// The pointer an iterator value holds.
pub(super) fn base(e: Expr) -> Expr {
    let Some(it) = iter_type(&e) else {
        return e;
    };
    let ty = Type::Ptr {
        elem: Box::new(it.elem.clone()),
        is_const: it.is_const,
    };
    let span = e.span;
    intrinsic(Intrinsic::IterBase, vec![e], ty, span)
}

/// `e` (an iterator value) retyped as `to`.
fn retype(e: Expr, to: &IterType) -> Expr {
    let span = e.span;
    let ptr = base(e);
    intrinsic(
        Intrinsic::AsIter,
        vec![ptr],
        Type::Iter(Box::new(to.clone())),
        span,
    )
}

/// The implicit conversions between iterator types: `iterator` to
/// `const_iterator` of the same container. `None` when `e` is not an
/// iterator value or `to` not an iterator type.
pub(crate) fn coerce(e: Expr, to: &Type) -> Result<Expr, Expr> {
    let (Some(from), Type::Iter(to)) = (iter_type(&e), to) else {
        return Err(e);
    };
    let same_kind = from.elem == to.elem && from.of == to.of && from.reverse == to.reverse;
    if same_kind && (to.is_const || !from.is_const) {
        let to = (**to).clone();
        return Ok(retype(e, &to));
    }
    Err(e)
}

/// Reports an iterator used where its category does not allow it.
fn category_error(cx: &mut FnCx<'_>, it: &IterType, span: Span, what: &str, help: &str) -> Expr {
    let shown = cx.ck.show(&Type::Iter(Box::new(it.clone())));
    cx.ck.report(
        Diagnostic::error(codes::E0210, span, format!("a `{shown}` cannot {what}"))
            .with_label(if it.bidirectional() {
                "not a random-access iterator"
            } else {
                "a forward iterator"
            })
            .with_msvc("C2676")
            .with_help(help),
    );
    error_expr(span)
}

/// `*it`: the element, a place (`const` through a set's iterators and
/// `const_iterator`s).
pub(super) fn deref(cx: &mut FnCx<'_>, e: Expr, span: Span) -> Expr {
    let Some(it) = iter_type(&e).cloned() else {
        return error_expr(span);
    };
    let mut ptr = base(e);
    if it.reverse {
        ptr = step(ptr, -1, span);
    }
    cx.deref(ptr, span)
}

/// `p + k` for a pointer expression and a constant.
fn step(ptr: Expr, k: i64, span: Span) -> Expr {
    let ty = ptr.ty.clone();
    let k = mk(ExprKind::Const(Const::Int(k)), LONG, false, span);
    mk(
        ExprKind::PtrAdd {
            ptr: Box::new(ptr),
            offset: Box::new(k),
        },
        ty,
        false,
        span,
    )
}

/// `++it`, `it++`, `--it`, `it--`.
pub(super) fn inc_dec(cx: &mut FnCx<'_>, target: &Expr, op: UnaryOp, span: Span) -> Option<Expr> {
    let it = iter_type(target)?.clone();
    let increment = matches!(op, UnaryOp::PreInc | UnaryOp::PostInc);
    if !increment && !it.bidirectional() {
        return Some(category_error(
            cx,
            &it,
            span,
            "step back with `--`",
            "the iterators of an unordered container only go forward",
        ));
    }
    cx.check_writable(target, "incremented");
    // A reverse iterator's pointer moves the other way.
    Some(mk(
        ExprKind::IncDec {
            increment: increment != it.reverse,
            prefix: matches!(op, UnaryOp::PreInc | UnaryOp::PreDec),
            target: Box::new(target.clone()),
        },
        target.ty.clone(),
        matches!(op, UnaryOp::PreInc | UnaryOp::PreDec),
        span,
    ))
}

/// A binary operator with an iterator value as an operand: comparisons,
/// and on random-access (reverse) iterators `+ k`, `- k` and the
/// distance.
pub(super) fn binary(
    cx: &mut FnCx<'_>,
    op: BinaryOp,
    l: &Expr,
    r: &Expr,
    span: Span,
) -> Option<Expr> {
    if iter_type(l).is_none() && iter_type(r).is_none() {
        return None;
    }
    // `it != c.end()`: the iterator made in place as a value too.
    let l = super::algorithm::materialize(cx, l.clone());
    let r = super::algorithm::materialize(cx, r.clone());
    if l.ty.is_error() || r.ty.is_error() {
        return Some(error_expr(span));
    }
    let integral = |e: &Expr| e.ty.scalar().is_some_and(Scalar::is_integral);
    match (iter_type(&l).cloned(), iter_type(&r).cloned()) {
        (Some(a), Some(b)) if a.elem == b.elem && a.of == b.of && a.reverse == b.reverse => {
            let ordered = matches!(
                op,
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
            );
            if (ordered || op == BinaryOp::Sub) && !a.random_access() {
                return Some(category_error(
                    cx,
                    &a,
                    span,
                    "be ordered or subtracted",
                    "compare iterators with `==` and `!=`",
                ));
            }
            if !(ordered || matches!(op, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Sub)) {
                return Some(unsupported(cx, span));
            }
            // A reverse iterator's order and distance are its base's,
            // turned around.
            let (x, y) = if a.reverse && op != BinaryOp::Eq && op != BinaryOp::Ne {
                (base(r), base(l))
            } else {
                (base(l), base(r))
            };
            Some(match cx.pointer_binary(op, x, y, span) {
                Ok(e) => e,
                Err(_) => unsupported(cx, span),
            })
        }
        (Some(a), None) if integral(&r) && matches!(op, BinaryOp::Add | BinaryOp::Sub) => {
            Some(moved(cx, l, &a, r, op == BinaryOp::Sub, span))
        }
        (None, Some(b)) if integral(&l) && op == BinaryOp::Add => {
            Some(moved(cx, r, &b, l, false, span))
        }
        _ => {
            let (a, b) = (cx.ck.show(&l.ty), cx.ck.show(&r.ty));
            cx.ck.report(
                Diagnostic::error(
                    codes::E0210,
                    span,
                    format!("no operator `{}` for `{a}` and `{b}`", op.symbol()),
                )
                .with_label("invalid operands")
                .with_msvc("C2678"),
            );
            Some(error_expr(span))
        }
    }
}

/// `it + k` or `it - k`.
fn moved(cx: &mut FnCx<'_>, it: Expr, ty: &IterType, k: Expr, minus: bool, span: Span) -> Expr {
    if !ty.random_access() {
        return category_error(
            cx,
            ty,
            span,
            "move by a number",
            "step with `++it`, or copy the elements into a `std::vector`",
        );
    }
    let k = cx.convert_scalar(k, Scalar::Long);
    let k = if minus != ty.reverse {
        mk(
            ExprKind::Unary {
                op: tessera_ir::UnOp::Neg,
                operand: Box::new(k),
            },
            LONG,
            false,
            span,
        )
    } else {
        k
    };
    shifted(it, ty, k, span)
}

fn unsupported(cx: &mut FnCx<'_>, span: Span) -> Expr {
    cx.ck.error(
        codes::E0211,
        span,
        "this use of an iterator is not supported",
        "iterator operator",
        "iterators support `++`, `--`, `*it`, `==` and `!=` (and `+ k`, `- k` on random-access ones)",
    );
    error_expr(span)
}

/// `it += k` and `it -= k`.
pub(super) fn compound_assign(
    cx: &mut FnCx<'_>,
    op: BinaryOp,
    target: &Expr,
    value: &Expr,
    span: Span,
) -> Option<Expr> {
    let it = iter_type(target)?.clone();
    if !matches!(op, BinaryOp::Add | BinaryOp::Sub)
        || !value.ty.scalar().is_some_and(Scalar::is_integral)
    {
        return Some(unsupported(cx, span));
    }
    let new = moved(
        cx,
        target.clone(),
        &it,
        value.clone(),
        op == BinaryOp::Sub,
        span,
    );
    if new.ty.is_error() {
        return Some(new);
    }
    cx.check_writable(target, "assigned");
    Some(mk(
        ExprKind::Assign {
            target: Box::new(target.clone()),
            value: Box::new(new),
        },
        target.ty.clone(),
        true,
        span,
    ))
}

/// The elements of an iterator range as a vector expression, when either
/// end is an iterator value: `Some(Ok(vector))`, or `Some(Err(()))` once a
/// problem is reported. `last` absent: from `first` to the container's end.
pub(super) fn range_source(
    cx: &mut FnCx<'_>,
    first: &Expr,
    last: Option<&Expr>,
) -> Option<Result<Expr, ()>> {
    let involved = iter_type(first).is_some() || last.is_some_and(|l| iter_type(l).is_some());
    if !involved {
        return None;
    }
    let f = super::algorithm::materialize(cx, first.clone());
    let l = last.map(|l| super::algorithm::materialize(cx, l.clone()));
    if f.ty.is_error() || l.as_ref().is_some_and(|l| l.ty.is_error()) {
        return Some(Err(()));
    }
    let Some(a) = iter_type(&f).cloned() else {
        mismatch(cx, &f, l.as_ref());
        return Some(Err(()));
    };
    if let Some(l) = &l {
        match iter_type(l) {
            Some(b) if b.elem == a.elem && b.of == a.of && b.reverse == a.reverse => {}
            _ => {
                mismatch(cx, &f, Some(l));
                return Some(Err(()));
            }
        }
    }
    let span = match &l {
        Some(l) => f.span.to(l.span),
        None => f.span,
    };
    let mut args = vec![base(f)];
    if let Some(l) = l {
        args.push(base(l));
    }
    Some(Ok(intrinsic(
        Intrinsic::IterElements { reverse: a.reverse },
        args,
        Type::Vector(Box::new(a.elem.clone())),
        span,
    )))
}

fn mismatch(cx: &mut FnCx<'_>, first: &Expr, last: Option<&Expr>) {
    let a = cx.ck.show(&first.ty);
    let (span, b) = match last {
        Some(l) => (first.span.to(l.span), cx.ck.show(&l.ty)),
        None => (first.span, a.clone()),
    };
    cx.ck.report(
        Diagnostic::error(
            codes::E0203,
            span,
            format!("mismatched types: an iterator range from `{a}` to `{b}`"),
        )
        .with_label("not two iterators of one kind")
        .with_msvc("C2782")
        .with_help("pass `first` and `last` of the same container"),
    );
}

/// A forward iterator value as the pointer it holds, for a library
/// function that writes or reads through it (`copy(view, it)`); `None`
/// for other expressions. A reverse iterator is reported.
pub(super) fn as_destination(cx: &mut FnCx<'_>, e: &Expr, what: &str) -> Option<Expr> {
    let it = iter_type(e)?;
    if it.reverse {
        cx.ck.error(
            codes::E0211,
            e.span,
            format!("{what} into a reverse iterator is not supported"),
            "a reverse iterator",
            "copy into `c.begin()` and reverse afterwards",
        );
        return Some(error_expr(e.span));
    }
    Some(base(e.clone()))
}
