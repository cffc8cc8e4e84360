//! `<algorithm>` and `<numeric>` over `std::vector` iterator ranges, the
//! iterator arithmetic they need (`v.begin() + k`, `it - v.begin()`, `*it`)
//! and `std::swap`.
//!
//! An iterator is a vector and a position: `v.begin()` is 0, `v.end()` the
//! size, and `Intrinsic::IterAt` any other position, so an algorithm
//! becomes `Intrinsic::Algorithm` over `[vector, lo, hi, ...]`. Iterators
//! are values of expressions only: they cannot be stored in variables.

use super::{Side, arity, check_side, intrinsic, is_pure, mk};
use crate::convert;
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Algo, Const, Expr, ExprKind, Intrinsic, Scalar, Type};
use tessera_syntax::ast::{self, BinaryOp};

const LONG: Type = Type::Scalar(Scalar::Long);

/// The vector and position (a `long`) of an iterator expression.
fn parts(cx: &mut FnCx<'_>, e: &Expr) -> Option<(Expr, Expr)> {
    let ExprKind::Intrinsic { op, args } = &e.kind else {
        return None;
    };
    match (op, args.as_slice()) {
        (
            Intrinsic::VectorIterator {
                end,
                reverse: false,
                ..
            },
            [v],
        ) => {
            let pos = if *end {
                let size = intrinsic(
                    Intrinsic::VectorSize,
                    vec![v.clone()],
                    Type::Scalar(Scalar::ULong),
                    e.span,
                );
                cx.convert_scalar(size, Scalar::Long)
            } else {
                mk(ExprKind::Const(Const::Int(0)), LONG, false, e.span)
            };
            Some((v.clone(), pos))
        }
        (Intrinsic::IterAt, [v, pos]) => Some((v.clone(), pos.clone())),
        _ => None,
    }
}

/// An iterator of `vector` at `pos`.
fn iter_at(vector: Expr, pos: Expr, span: Span) -> Expr {
    let ty = match &vector.ty.clone() {
        Type::Vector(elem) | Type::Container(tessera_ir::Container::Deque, elem) => {
            Type::Iterator(elem.clone())
        }
        // A list's or set's iterator is a value: the pointer to the element.
        Type::Container(kind, elem) => {
            let is_const = kind.is_associative();
            let ptr_ty = Type::Ptr {
                elem: elem.clone(),
                is_const,
            };
            let data = intrinsic(Intrinsic::VectorData, vec![vector], ptr_ty.clone(), span);
            let at = mk(
                ExprKind::PtrAdd {
                    ptr: Box::new(data),
                    offset: Box::new(pos),
                },
                ptr_ty,
                false,
                span,
            );
            let it = tessera_ir::IterType {
                elem: (**elem).clone(),
                of: Some(*kind),
                reverse: false,
                is_const,
            };
            return intrinsic(Intrinsic::AsIter, vec![at], Type::Iter(Box::new(it)), span);
        }
        _ => Type::Error,
    };
    intrinsic(Intrinsic::IterAt, vec![vector, pos], ty, span)
}

fn same_vector(a: &Expr, b: &Expr) -> bool {
    super::container::same_place(a, b)
}

/// Reports an iterator argument that is not `v.begin()`, `v.end()` or one of
/// them moved by an integer.
fn not_iterator(cx: &mut FnCx<'_>, e: &Expr, what: &str) {
    let shown = cx.ck.show(&e.ty);
    cx.ck.error(
        codes::E0203,
        e.span,
        format!("mismatched types: {what} takes iterators of a `std::vector`, not `{shown}`"),
        format!("this is `{shown}`"),
        "pass `v.begin()`, `v.end()` or `v.begin() + k` of a vector variable",
    );
}

/// True for a pointer, a C array, or a vector iterator moved or stored:
/// the operands of a pointer range.
pub(super) fn pointer_like(e: &Expr) -> bool {
    matches!(e.ty, Type::Ptr { .. })
        || (matches!(e.ty, Type::CArray(..)) && e.place)
        || matches!(&e.ty, Type::Iter(it) if !it.reverse)
}

/// A pointer range operand as a pointer: C arrays decay, vector iterators
/// become pointers to their elements.
fn as_pointer(cx: &mut FnCx<'_>, e: Expr) -> Expr {
    match &e.ty {
        Type::CArray(..) => cx.decay(e),
        Type::Iterator(_) => materialize(cx, e),
        Type::Iter(_) => super::iter::base(e),
        _ => e,
    }
}

/// The range `[b, e)` of two pointers (`std::sort(a, a + n)`, or stored
/// vector iterators): the first pointer, 0 and the distance.
fn pointer_range(cx: &mut FnCx<'_>, b: &Expr, e: &Expr, what: &str) -> Option<(Expr, Expr, Expr)> {
    let b = as_pointer(cx, b.clone());
    let e = as_pointer(cx, e.clone());
    if b.ty.is_error() || e.ty.is_error() {
        return None;
    }
    let pointee = |x: &Expr| match &x.ty {
        Type::Ptr { elem, .. } => Some((**elem).clone()),
        _ => None,
    };
    if pointee(&b).is_none() || pointee(&b) != pointee(&e) {
        let bad = if pointee(&b).is_none() { &b } else { &e };
        not_iterator(cx, bad, what);
        return None;
    }
    // The engines take the end pointer itself as the third operand and
    // measure the range against the first.
    let zero = mk(ExprKind::Const(Const::Int(0)), LONG, false, b.span);
    Some((b, zero, e))
}

/// The range `[b, e)`: its vector, `lo` and `hi`.
fn range(cx: &mut FnCx<'_>, b: &Expr, e: &Expr, what: &str) -> Option<(Expr, Expr, Expr)> {
    if pointer_like(b) || pointer_like(e) {
        return pointer_range(cx, b, e, what);
    }
    let reverse = |x: &Expr| {
        super::container::is_reverse(x) || super::iter::iter_type(x).is_some_and(|t| t.reverse)
    };
    if let Some(rev) = [b, e].into_iter().find(|x| reverse(x)) {
        cx.ck.error(
            codes::E0211,
            rev.span,
            format!("{what} over reverse iterators is not supported"),
            "a reverse iterator",
            "use `v.begin()`, `v.end()`",
        );
        return None;
    }
    let Some((v1, lo)) = parts(cx, b) else {
        not_iterator(cx, b, what);
        return None;
    };
    let Some((v2, hi)) = parts(cx, e) else {
        not_iterator(cx, e, what);
        return None;
    };
    if !is_pure(&v1) || !same_vector(&v1, &v2) {
        cx.ck.error(
            codes::E0203,
            b.span.to(e.span),
            format!("{what} takes a range of one vector variable"),
            "not the iterators of one vector variable",
            "write `v.begin(), v.end()` of the same named vector",
        );
        return None;
    }
    Some((v1, lo, hi))
}

/// The element type of a range's vector.
fn elem_of(v: &Expr) -> Type {
    match &v.ty {
        Type::Vector(e) | Type::Container(_, e) | Type::Ptr { elem: e, .. } => (**e).clone(),
        _ => Type::Error,
    }
}

/// A call of an algorithm by name, if `name` is one; `Err` gives the
/// arguments back.
pub(super) fn call(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    args: Vec<Expr>,
    span: Span,
) -> Result<Expr, Vec<Expr>> {
    let name = path.last();
    if !is_builtin(name) || source_form(name, &args) {
        return Err(args);
    }
    let what = format!("`{}`", path.text());
    if !check_side(
        cx,
        Side::Host,
        &what,
        path.span,
        "C3930",
        "run it on the host, before or after the kernel",
    ) {
        return Ok(error_expr(span));
    }
    Ok(lower(cx, name, &what, args, span).unwrap_or_else(|| error_expr(span)))
}

/// True for the algorithms the built-in library knows (in some forms).
pub(super) fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "fill"
            | "iota"
            | "accumulate"
            | "sort"
            | "reverse"
            | "min_element"
            | "max_element"
            | "count"
            | "equal"
            | "copy"
            | "swap"
            | "find_if"
            | "count_if"
    )
}

/// True for the forms of the algorithms written in the Tessera language
/// (`crates/syntax/src/headers/algorithm.h`): those taking a function, and
/// sorts of elements other than numbers, which compare with their `<`.
pub(super) fn source_form(name: &str, args: &[Expr]) -> bool {
    let elem_is_number = args.first().is_some_and(|first| match &first.ty {
        Type::Iterator(e) | Type::Ptr { elem: e, .. } | Type::CArray(e, _) => e.scalar().is_some(),
        _ => true,
    });
    match name {
        "sort" => args.len() == 3 || !elem_is_number,
        "accumulate" | "equal" => args.len() == 4,
        "min_element" | "max_element" => args.len() == 3,
        // Over a vector's or an array's elements (pointers), the loop of
        // the text, which compiled host code runs; over another
        // container's iterators, the built-in form.
        "find_if" | "count_if" => args.first().is_some_and(forward_elements),
        _ => false,
    }
}

/// True for a pointer, or a vector's iterator going forward (`v.begin()`,
/// not `v.rbegin()`): an iterator the text's loops move as a pointer.
fn forward_elements(e: &Expr) -> bool {
    match &e.ty {
        Type::Ptr { .. } => true,
        Type::Iterator(_) => !matches!(
            e.kind,
            ExprKind::Intrinsic {
                op: Intrinsic::VectorIterator { reverse: true, .. },
                ..
            }
        ),
        _ => false,
    }
}

fn lower(cx: &mut FnCx<'_>, name: &str, what: &str, args: Vec<Expr>, span: Span) -> Option<Expr> {
    if name == "swap" {
        return swap(cx, what, args, span);
    }
    if matches!(name, "find_if" | "count_if") {
        return predicate(cx, name == "count_if", what, args, span);
    }
    let takes = match name {
        "sort" => "a range",
        "reverse" | "min_element" | "max_element" => "a range",
        "equal" | "copy" => "a range and the first iterator of another",
        _ => "a range and a value",
    };
    let want = match (name, args.len()) {
        ("sort", 3) => 3,
        ("sort" | "reverse" | "min_element" | "max_element", _) => 2,
        _ => 3,
    };
    if !arity(cx, what, &args, want, takes, span) {
        return None;
    }
    // The category and constness of the range's iterators, as C++ checks
    // them when the algorithm is instantiated.
    if let Some(it) = super::iter::category(&args[0]) {
        if name == "sort" && !it.random_access() {
            let shown = cx.ck.show(&Type::Iter(Box::new(it)));
            cx.ck.report(
                tessera_diagnostics::Diagnostic::error(
                    codes::E0210,
                    args[0].span,
                    format!("{what} needs random-access iterators, not `{shown}`"),
                )
                .with_label("not a random-access iterator")
                .with_msvc("C2676")
                .with_help("copy the elements into a `std::vector` and sort that"),
            );
            return None;
        }
        if it.is_const && matches!(name, "fill" | "iota" | "sort" | "reverse") {
            cx.ck.report(
                tessera_diagnostics::Diagnostic::error(
                    codes::E0205,
                    args[0].span,
                    format!(
                        "{what} cannot write through these iterators: the elements are `const`"
                    ),
                )
                .with_label("read-only elements")
                .with_msvc("C3892"),
            );
            return None;
        }
    }
    let stored = super::iter::iter_type(&args[0]).cloned();
    let (v, lo, hi) = range(cx, &args[0], &args[1], what)?;
    if matches!(v.ty, Type::Ptr { is_const: true, .. })
        && matches!(name, "fill" | "iota" | "sort" | "reverse")
    {
        cx.ck.error(
            codes::E0205,
            args[0].span,
            format!("{what} cannot write through a pointer to `const`"),
            "a read-only range",
            "",
        );
        return None;
    }
    let elem = elem_of(&v);
    let algo = |op: Algo, extra: Vec<Expr>, ty: Type, v: Expr| {
        let mut all = vec![v, lo.clone(), hi.clone()];
        all.extend(extra);
        intrinsic(Intrinsic::Algorithm(op), all, ty, span)
    };
    let scalar_elem = elem.scalar();
    if scalar_elem.is_none() && !matches!(name, "reverse" | "copy" | "fill") {
        let shown = cx.ck.show(&elem);
        cx.ck.error(
            codes::E0211,
            args[0].span,
            format!("{what} over elements of type `{shown}` is not supported yet"),
            "not a vector of numbers",
            "write the loop yourself",
        );
        return None;
    }
    Some(match name {
        "fill" => {
            let value = cx.coerce(args[2].clone(), &elem, "the fill value");
            algo(Algo::Fill, vec![value], Type::Void, v)
        }
        "count" => {
            let value = cx.coerce(args[2].clone(), &elem, "the value counted");
            algo(Algo::Count, vec![value], LONG, v)
        }
        "iota" | "accumulate" => {
            let init = args[2].clone();
            let Some(t) = init.ty.scalar() else {
                let shown = cx.ck.show(&init.ty);
                cx.ck.error(
                    codes::E0203,
                    init.span,
                    format!("mismatched types: {what} takes a number as its initial value, not `{shown}`"),
                    format!("this is `{shown}`"),
                    "",
                );
                return None;
            };
            let e = scalar_elem.unwrap_or(Scalar::Int);
            if name == "iota" {
                algo(Algo::Iota, vec![init], Type::Void, v)
            } else {
                let common = convert::common(t, e);
                algo(Algo::Accumulate(common), vec![init], Type::Scalar(t), v)
            }
        }
        "sort" => {
            if let Some(cmp) = args.get(2) {
                cx.ck.error(
                    codes::E0211,
                    cmp.span,
                    "`std::sort` with a comparison is not supported yet",
                    "a comparison",
                    "sort ascending, then `std::reverse` the range for descending order",
                );
                return None;
            }
            algo(Algo::Sort { greater: false }, Vec::new(), Type::Void, v)
        }
        "reverse" => algo(Algo::Reverse, Vec::new(), Type::Void, v),
        "min_element" | "max_element" => {
            let max = name == "max_element";
            let pos = algo(Algo::MinMaxElement { max }, Vec::new(), LONG, v.clone());
            position_result(cx, v, pos, stored, what, span)?
        }
        _ => {
            // `equal` and `copy`: the second range starts at the third argument.
            let second = if pointer_like(&args[2]) || matches!(v.ty, Type::Ptr { .. }) {
                let p = as_pointer(cx, args[2].clone());
                if p.ty.is_error() {
                    return None;
                }
                let zero = mk(ExprKind::Const(Const::Int(0)), LONG, false, p.span);
                matches!(p.ty, Type::Ptr { .. }).then_some((p, zero))
            } else {
                parts(cx, &args[2])
            };
            if name == "copy"
                && let Some((Type::Ptr { is_const: true, .. }, at)) =
                    second.as_ref().map(|(p, _)| (&p.ty, p.span))
            {
                cx.ck.error(
                    codes::E0205,
                    at,
                    format!("{what} cannot write through a pointer to `const`"),
                    "a read-only destination",
                    "",
                );
                return None;
            }
            let Some((v2, lo2)) = second else {
                not_iterator(cx, &args[2], what);
                return None;
            };
            // A vector is named again by the engines; a pointer is
            // evaluated once, so any expression may give it.
            if !is_pure(&v2) && !matches!(v2.ty, Type::Ptr { .. }) {
                not_iterator(cx, &args[2], what);
                return None;
            }
            if elem_of(&v2) != elem {
                let (a, b) = (cx.ck.show(&v.ty), cx.ck.show(&v2.ty));
                cx.ck.error(
                    codes::E0203,
                    args[2].span,
                    format!("mismatched types: {what} between `{a}` and `{b}`"),
                    format!("this is an iterator of `{b}`"),
                    "",
                );
                return None;
            }
            if name == "equal" {
                algo(Algo::Equal, vec![v2, lo2], Type::BOOL, v)
            } else {
                algo(Algo::Copy, vec![v2, lo2], Type::Void, v)
            }
        }
    })
}

/// `std::find_if(first, last, pred)` and `std::count_if`: the predicate,
/// a class object (a lambda), is stored once in a hidden local and called
/// on another that holds each element in turn (`Algo::Predicate`).
fn predicate(
    cx: &mut FnCx<'_>,
    count: bool,
    what: &str,
    args: Vec<Expr>,
    span: Span,
) -> Option<Expr> {
    if !arity(cx, what, &args, 3, "a range and a predicate", span) {
        return None;
    }
    let stored = super::iter::iter_type(&args[0]).cloned();
    let (v, lo, hi) = range(cx, &args[0], &args[1], what)?;
    let elem = elem_of(&v);
    let pred = args[2].clone();
    if !matches!(pred.ty, Type::Struct(_)) {
        if !pred.ty.is_error() {
            cx.ck.error(
                codes::E0211,
                pred.span,
                format!("{what} with a predicate that is not a lambda or function object is not supported yet"),
                "the predicate",
                "pass a lambda: `[](int x) { return x > 0; }`",
            );
        }
        return None;
    }
    let hidden = |cx: &mut FnCx<'_>, ty: Type, at: Span| {
        let id = cx.declare(tessera_ir::Local {
            name: String::new(),
            ty: ty.clone(),
            by_ref: false,
            is_const: false,
            space: cx.local_space(),
            span: at,
        });
        mk(ExprKind::Local(id), ty, true, at)
    };
    let held = hidden(cx, pred.ty.clone(), pred.span);
    let store = mk(
        ExprKind::Assign {
            target: Box::new(held.clone()),
            value: Box::new(Expr {
                place: false,
                ..pred
            }),
        },
        held.ty.clone(),
        true,
        span,
    );
    let element = hidden(cx, elem, args[0].span);
    let call = cx.call_object(held, vec![element.clone()], span);
    if call.ty.is_error() {
        return None;
    }
    let test = cx.condition(call);
    let all = vec![v.clone(), lo, hi, store, element, test];
    let found = intrinsic(
        Intrinsic::Algorithm(Algo::Predicate { count }),
        all,
        LONG,
        span,
    );
    if count {
        return Some(found);
    }
    // `find_if` gives an iterator at the position found.
    position_result(cx, v, found, stored, what, span)
}

/// The iterator at position `pos` of the range that starts at `v`: an
/// iterator of the vector, or over a pointer range a pointer (an iterator
/// of the list or set again when the range was of `stored` iterators).
fn position_result(
    cx: &mut FnCx<'_>,
    v: Expr,
    pos: Expr,
    stored: Option<tessera_ir::IterType>,
    what: &str,
    span: Span,
) -> Option<Expr> {
    if !matches!(v.ty, Type::Ptr { .. }) {
        return Some(iter_at(v, pos, span));
    }
    // The result is the first pointer evaluated again, moved.
    if !is_pure(&v) {
        cx.ck.error(
            codes::E0211,
            v.span,
            format!("{what} over a computed first pointer is not supported yet"),
            "computed here",
            "store the pointer in a variable first",
        );
        return None;
    }
    let ty = v.ty.clone();
    let at = mk(
        ExprKind::PtrAdd {
            ptr: Box::new(v),
            offset: Box::new(pos),
        },
        ty,
        false,
        span,
    );
    Some(match stored {
        Some(it) => intrinsic(Intrinsic::AsIter, vec![at], Type::Iter(Box::new(it)), span),
        None => at,
    })
}

/// `std::swap(a, b)`.
fn swap(cx: &mut FnCx<'_>, what: &str, args: Vec<Expr>, span: Span) -> Option<Expr> {
    if !arity(cx, what, &args, 2, "two variables of one type", span) {
        return None;
    }
    let (a, b) = (&args[0], &args[1]);
    if a.ty != b.ty {
        let (x, y) = (cx.ck.show(&a.ty), cx.ck.show(&b.ty));
        cx.ck.error(
            codes::E0203,
            b.span,
            format!(
                "mismatched types: {what} exchanges two values of one type, not `{x}` and `{y}`"
            ),
            format!("this is `{y}`"),
            "",
        );
        return None;
    }
    for e in [a, b] {
        if !e.place {
            cx.ck.error(
                codes::E0203,
                e.span,
                format!("{what} takes variables, not a computed value"),
                "not a variable",
                "",
            );
            return None;
        }
    }
    Some(intrinsic(Intrinsic::Swap, args, Type::Void, span))
}

/// `it + k`, `k + it`, `it - k` and `it - it2`, when an operand is an
/// iterator.
pub(super) fn binary(
    cx: &mut FnCx<'_>,
    op: BinaryOp,
    l: &Expr,
    r: &Expr,
    span: Span,
) -> Option<Expr> {
    let l_it = matches!(l.ty, Type::Iterator(_));
    let r_it = matches!(r.ty, Type::Iterator(_));
    if !l_it && !r_it {
        return None;
    }
    let integral = |e: &Expr| e.ty.scalar().is_some_and(Scalar::is_integral);
    let moved = |cx: &mut FnCx<'_>, it: &Expr, k: &Expr, neg: bool| -> Option<Expr> {
        let (v, pos) = parts(cx, it)?;
        // Only random-access iterators move by `k`.
        let random_access = matches!(
            v.ty,
            Type::Vector(_) | Type::Container(tessera_ir::Container::Deque, _)
        );
        if !is_pure(&v) || !random_access {
            return None;
        }
        let k = cx.convert_scalar(k.clone(), Scalar::Long);
        let op = if neg {
            tessera_ir::BinOp::Sub
        } else {
            tessera_ir::BinOp::Add
        };
        let pos = mk(
            ExprKind::Binary {
                op,
                lhs: Box::new(pos),
                rhs: Box::new(k),
            },
            LONG,
            false,
            span,
        );
        Some(iter_at(v, pos, span))
    };
    let out = match op {
        BinaryOp::Add if l_it && integral(r) => moved(cx, l, r, false),
        BinaryOp::Add if r_it && integral(l) => moved(cx, r, l, false),
        BinaryOp::Sub if l_it && integral(r) => moved(cx, l, r, true),
        BinaryOp::Sub if l_it && r_it => {
            let (a, b) = (parts(cx, l), parts(cx, r));
            match (a, b) {
                (Some((v1, p1)), Some((v2, p2))) if same_vector(&v1, &v2) => Some(mk(
                    ExprKind::Binary {
                        op: tessera_ir::BinOp::Sub,
                        lhs: Box::new(p1),
                        rhs: Box::new(p2),
                    },
                    LONG,
                    false,
                    span,
                )),
                _ => None,
            }
        }
        _ => None,
    };
    // `+`/`-` on the iterators of a list or set: C++ has no such operator.
    let sequential = [l, r].into_iter().find_map(|e| {
        let ExprKind::Intrinsic {
            op: Intrinsic::VectorIterator { .. },
            args,
        } = &e.kind
        else {
            return None;
        };
        match args.first().map(|v| &v.ty) {
            Some(t @ Type::Container(kind, _)) if *kind != tessera_ir::Container::Deque => {
                Some(t.clone())
            }
            _ => None,
        }
    });
    if out.is_none()
        && let Some(container) = sequential
    {
        let shown = cx.ck.show(&container);
        cx.ck.report(
            tessera_diagnostics::Diagnostic::error(
                codes::E0210,
                span,
                format!("the iterators of a `{shown}` cannot move by a number"),
            )
            .with_label("not a random-access iterator")
            .with_msvc("C2676")
            .with_help("step with `++it`, or copy the elements into a `std::vector`"),
        );
        return Some(error_expr(span));
    }
    Some(out.unwrap_or_else(|| {
        cx.ck.error(
            codes::E0211,
            span,
            "this use of an iterator is not supported",
            "iterator arithmetic",
            "iterators support `+ k`, `- k`, the distance `it - v.begin()` and `*it`, within one vector variable",
        );
        error_expr(span)
    }))
}

/// `*it`: the element, a place.
pub(super) fn deref(cx: &mut FnCx<'_>, it: Expr, span: Span) -> Expr {
    let Some((v, pos)) = parts(cx, &it) else {
        cx.ck.error(
            codes::E0211,
            it.span,
            "only an iterator made in this expression can be dereferenced",
            "not `v.begin() + k` or an algorithm's result",
            "iterators cannot be stored in variables yet; index the vector: `v[i]`",
        );
        return error_expr(span);
    };
    let elem = elem_of(&v);
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::VectorElement,
            args: vec![v, pos],
        },
        elem,
        true,
        span,
    )
}

/// An iterator of a vector variable as a value that outlives its
/// expression (stored in a variable, passed to a function, compared with a
/// stored one): a pointer to the element it designates, as a vector's
/// iterator behaves. Reverse iterators have no such form yet (E0211).
pub(super) fn materialize(cx: &mut FnCx<'_>, it: Expr) -> Expr {
    if !matches!(it.ty, Type::Iterator(_)) {
        return it;
    }
    let span = it.span;
    // Iterators of lists and sets, and reverse iterators, are values of
    // their own (`Type::Iter`).
    if let ExprKind::Intrinsic {
        op:
            Intrinsic::VectorIterator {
                end,
                reverse,
                read_only,
            },
        args,
    } = &it.kind
        && let [c] = args.as_slice()
        && super::iter::held_as_value(&c.ty, *reverse)
    {
        if !c.place || !is_pure(c) {
            cx.ck.error(
                codes::E0211,
                span,
                "an iterator of a temporary container is gone after the statement",
                "iterator of a temporary",
                "store the container in a variable first",
            );
            return error_expr(span);
        }
        let (end, reverse, read_only) = (*end, *reverse, *read_only);
        return super::iter::from_container(cx, c.clone(), end, reverse, read_only, span);
    }
    let read_only = matches!(
        &it.kind,
        ExprKind::Intrinsic {
            op: Intrinsic::VectorIterator {
                read_only: true,
                ..
            },
            ..
        }
    );
    let Some((v, pos)) = parts(cx, &it) else {
        super::container::iterator_misuse(cx, &it);
        return error_expr(span);
    };
    // A deque's iterators are random access like a vector's; those of
    // lists and sets are not, and a pointer would allow what they do not.
    let (Type::Vector(elem) | Type::Container(tessera_ir::Container::Deque, elem)) = &v.ty else {
        let shown = cx.ck.show(&v.ty);
        cx.ck.error(
            codes::E0211,
            span,
            format!("iterators of a `{shown}` can be used only where they are made"),
            "stored or passed here",
            "copy the elements into a `std::vector` first",
        );
        return error_expr(span);
    };
    if !v.place || !is_pure(&v) {
        cx.ck.error(
            codes::E0211,
            span,
            "an iterator of a temporary vector is gone after the statement",
            "iterator of a temporary",
            "store the vector in a variable first",
        );
        return error_expr(span);
    }
    let is_const = read_only || cx.read_only_reason(&v).is_some();
    let ty = Type::Ptr {
        elem: elem.clone(),
        is_const,
    };
    let data = intrinsic(Intrinsic::VectorData, vec![v], ty.clone(), span);
    if matches!(pos.kind, ExprKind::Const(Const::Int(0))) {
        return data;
    }
    mk(
        ExprKind::PtrAdd {
            ptr: Box::new(data),
            offset: Box::new(pos),
        },
        ty,
        false,
        span,
    )
}
