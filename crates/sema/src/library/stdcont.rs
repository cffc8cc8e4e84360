//! The host containers besides `std::vector`: `std::deque`, `std::list`,
//! `std::set`, `std::multiset`, `std::unordered_set` and
//! `std::unordered_multiset` (`Type::Container`).
//!
//! Each is held like a vector, its elements in the order iteration visits
//! them, so everything that reads a vector through its iterators (`copy`,
//! `array` constructors, range `for`) reads these too. What differs is
//! where an element goes: `ContainerInsert` keeps a set ordered,
//! `ContainerPushFront` prepends. The unordered containers visit their
//! elements in the order of libstdc++'s hash table, which the interpreter
//! reproduces (its `hashtable` module).

use super::container::{iterator, make_iterator, read_through, same_place};
use super::{Side, arity, check_side, intrinsic, mk, no_member};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{BinOp, Const, Container, Expr, ExprKind, Intrinsic, LookupOp, Scalar, Type};
use tessera_syntax::ast;

/// The kind and element type of a container type.
fn parts(ty: &Type) -> Option<(Container, Type)> {
    match ty {
        Type::Container(kind, elem) => Some((*kind, (**elem).clone())),
        _ => None,
    }
}

/// Reports an ordered container of elements `<` cannot order: Tessera
/// orders numbers only.
fn check_orderable(cx: &mut FnCx<'_>, kind: Container, elem: &Type, span: Span) -> bool {
    if !kind.is_associative() || elem.scalar().is_some() || elem.is_error() {
        return true;
    }
    let shown = cx.ck.show(elem);
    cx.ck.error(
        codes::E0211,
        span,
        format!("a `std::{}` of `{shown}` is not supported", kind.name()),
        "elements that are not numbers",
        "sets of numbers are supported; use a `std::vector` of structs",
    );
    false
}

/// `std::deque<T> d(...)` and the other containers' constructors.
pub(super) fn construct(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    let Some((kind, elem)) = parts(ty) else {
        return error_expr(span);
    };
    let shown = cx.ck.show(ty);
    check_side(
        cx,
        Side::Host,
        &format!("`std::{}`", kind.name()),
        span,
        "C3930",
        "",
    );
    if !check_orderable(cx, kind, &elem, span) {
        return error_expr(span);
    }
    let integral = |e: &Expr| matches!(&e.ty, Type::Scalar(s) if s.is_integral());
    let sized = matches!(kind, Container::Deque | Container::List);
    // A range of list or set iterators, or of reverse iterators.
    if let [b, e] = args.as_slice()
        && let Some(source) = super::iter::range_source(cx, b, Some(e))
    {
        let Ok(source) = source else {
            return error_expr(span);
        };
        if source.ty.sequence_elem() != Some(&elem) {
            let found = source.ty.sequence_elem().cloned().unwrap_or(Type::Error);
            let (w, f) = (cx.ck.show(&elem), cx.ck.show(&found));
            cx.ck.error(
                codes::E0203,
                b.span,
                format!("mismatched types: the range has elements of type `{f}`, expected `{w}`"),
                format!("elements of type `{f}`"),
                "",
            );
            return error_expr(span);
        }
        return intrinsic(Intrinsic::ContainerFrom, vec![source], ty.clone(), span);
    }
    match args.as_slice() {
        [] => intrinsic(Intrinsic::NewVector, Vec::new(), ty.clone(), span),
        // A count (and a value): only the sequences have these.
        [n] if sized && integral(n) => {
            let n = cx.convert_scalar(n.clone(), Scalar::Long);
            super::elements::new_sequence(cx, ty, n, span)
        }
        [n, value] if sized && integral(n) => {
            let n = cx.convert_scalar(n.clone(), Scalar::Long);
            let value = cx.coerce(value.clone(), &elem, "the initial value of the elements");
            intrinsic(Intrinsic::NewVector, vec![n, value], ty.clone(), span)
        }
        // An iterator range of a vector or another container.
        [b, e] if iterator(b).is_some() && iterator(e).is_some() => {
            let (Some((c1, end1)), Some((c2, end2))) = (iterator(b), iterator(e)) else {
                return error_expr(span);
            };
            let reverse_alike = super::container::is_reverse(b) == super::container::is_reverse(e);
            if end1 || !end2 || !same_place(c1, c2) || !reverse_alike {
                cx.ck.error(
                    codes::E0203,
                    b.span.to(e.span),
                    format!("a `{shown}` is built from `c.begin(), c.end()` of one container"),
                    "not the `begin()`, `end()` of one container",
                    "",
                );
                return error_expr(span);
            }
            if let Some(e2) = c1.ty.sequence_elem()
                && *e2 != elem
            {
                let (w, f) = (cx.ck.show(&elem), cx.ck.show(e2));
                cx.ck.error(
                    codes::E0203,
                    b.span,
                    format!(
                        "mismatched types: the range has elements of type `{f}`, expected `{w}`"
                    ),
                    format!("elements of type `{f}`"),
                    "",
                );
                return error_expr(span);
            }
            let source = read_through(b, c1.clone());
            intrinsic(Intrinsic::ContainerFrom, vec![source], ty.clone(), span)
        }
        // A pointer range: read as a vector, then inserted in order.
        [b, e] if super::container::pointer_pair(b, e) => {
            let vector = Type::Vector(Box::new(elem.clone()));
            let source = super::container::construct_vector(cx, &vector, args.clone(), span);
            if source.ty.is_error() {
                return source;
            }
            intrinsic(Intrinsic::ContainerFrom, vec![source], ty.clone(), span)
        }
        [one] if one.ty == *ty => Expr {
            place: false,
            ..one.clone()
        },
        _ => {
            let help = if sized {
                format!(
                    "write `std::{0}<T> c;`, `std::{0}<T> c(n);`, `std::{0}<T> c(n, value);` or `std::{0}<T> c(first, last);`",
                    kind.name()
                )
            } else {
                format!(
                    "write `std::{0}<T> c;` or `std::{0}<T> c(first, last);`",
                    kind.name()
                )
            };
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    span,
                    format!("cannot build a `{shown}` from these arguments"),
                )
                .with_label("no such constructor")
                .with_help(help),
            );
            error_expr(span)
        }
    }
}

/// `d[i]` on a `std::deque`; the other containers have no `[]`.
pub(super) fn subscript(cx: &mut FnCx<'_>, base: Expr, index: Expr, span: Span) -> Expr {
    let Some((kind, elem)) = parts(&base.ty) else {
        return error_expr(span);
    };
    if kind != Container::Deque {
        let shown = cx.ck.show(&base.ty);
        cx.ck.error(
            codes::E0203,
            span,
            format!("`{shown}` cannot be indexed"),
            "no `operator[]`",
            "walk it with a range `for`, or copy it into a `std::vector`",
        );
        return error_expr(span);
    }
    check_side(cx, Side::Host, "`std::deque`", span, "C3930", "");
    super::element_place(cx, base, index, elem, span)
}

/// The members Tessera has, for messages.
fn members(kind: Container) -> &'static str {
    match kind {
        Container::Deque => {
            "`size()`, `empty()`, `clear()`, `push_back(x)`, `push_front(x)`, `emplace_back(x)`, `pop_back()`, `pop_front()`, `swap(other)`, `front()`, `back()`, `begin()`, `end()` (and `c`, `r`, `cr` forms) and `d[i]`"
        }
        Container::List => {
            "`size()`, `empty()`, `clear()`, `push_back(x)`, `push_front(x)`, `emplace_back(x)`, `pop_back()`, `pop_front()`, `erase(it)`, `swap(other)`, `front()`, `back()`, `begin()`, `end()` (and `c`, `r`, `cr` forms)"
        }
        Container::Set | Container::MultiSet => {
            "`size()`, `empty()`, `clear()`, `insert(x)`, `emplace(x)`, `find(x)`, `count(x)`, `erase(x)`, `erase(it)`, `swap(other)`, `begin()`, `end()` (and `c`, `r`, `cr` forms)"
        }
        Container::UnorderedSet | Container::UnorderedMultiSet => {
            "`size()`, `empty()`, `clear()`, `insert(x)`, `emplace(x)`, `find(x)`, `count(x)`, `erase(x)`, `erase(it)`, `swap(other)`, `begin()`, `end()`, `cbegin()`, `cend()`"
        }
    }
}

/// Field access on a container: it has none.
pub(super) fn member(cx: &mut FnCx<'_>, base: Expr, name: &ast::Ident) -> Expr {
    let ty = base.ty.clone();
    let help = match parts(&ty) {
        Some((kind, _)) => format!("a `std::{}` has {}", kind.name(), members(kind)),
        None => String::new(),
    };
    no_member(cx, &ty, name, &help)
}

/// A method of a container.
pub(super) fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let Some((kind, elem)) = parts(&base.ty) else {
        return error_expr(span);
    };
    let m = name.name.as_str();
    let what = format!("`std::{}::{m}`", kind.name());
    let sequence = matches!(kind, Container::Deque | Container::List);
    let iterators = [
        "begin", "end", "cbegin", "cend", "rbegin", "rend", "crbegin", "crend",
    ];
    let known = match m {
        "size" | "empty" | "clear" => true,
        "push_back" | "push_front" | "emplace_back" | "emplace_front" | "front" | "back"
        | "pop_back" | "pop_front" => sequence,
        "swap" => true,
        "insert" | "emplace" | "find" | "count" => kind.is_associative(),
        "erase" => kind.is_associative() || kind == Container::List,
        // The unordered containers' iterators only go forward.
        _ => {
            iterators.contains(&m)
                && !(kind.is_unordered() && m.contains("rbegin")
                    || kind.is_unordered() && m.contains("rend"))
        }
    };
    if !known {
        if matches!(
            m,
            "erase"
                | "find"
                | "count"
                | "front"
                | "back"
                | "pop_back"
                | "pop_front"
                | "resize"
                | "sort"
                | "reverse"
                | "lower_bound"
                | "upper_bound"
                | "swap"
                | "remove"
                | "unique"
                | "merge"
                | "splice"
                | "at"
                | "max_size"
                | "contains"
                | "equal_range"
                | "bucket_count"
                | "rehash"
                | "reserve"
                | "insert"
                | "emplace"
                | "assign"
        ) {
            cx.ck.error(
                codes::E0211,
                name.span,
                format!("{what} is not part of the Tessera library"),
                "not supported",
                format!("the supported members are {}", members(kind)),
            );
            return error_expr(span);
        }
        let help = format!("a `std::{}` has {}", kind.name(), members(kind));
        return no_member(cx, &base.ty.clone(), name, &help);
    }
    check_side(
        cx,
        Side::Host,
        &what,
        name.span,
        "C3930",
        "copy the data into an `array` to use it in a kernel",
    );
    if !check_orderable(cx, kind, &elem, span) {
        return error_expr(span);
    }
    let ulong = Type::Scalar(Scalar::ULong);
    match m {
        "size" | "empty" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let size = intrinsic(Intrinsic::VectorSize, vec![base], ulong.clone(), span);
            if m == "size" {
                return size;
            }
            let zero = mk(ExprKind::Const(Const::Int(0)), ulong, false, span);
            mk(
                ExprKind::Binary {
                    op: BinOp::Eq,
                    lhs: Box::new(size),
                    rhs: Box::new(zero),
                },
                Type::BOOL,
                false,
                span,
            )
        }
        "clear" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            cx.check_writable(&base, "modified");
            intrinsic(Intrinsic::ContainerClear, vec![base], Type::Void, span)
        }
        "swap" => super::container::container_swap(cx, &what, base, args, name.span, span),
        "find" | "count" | "erase" => lookup(cx, &what, m, kind, &elem, base, args, span),
        "pop_back" | "pop_front" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            cx.check_writable(&base, "modified");
            let front = m == "pop_front";
            intrinsic(
                Intrinsic::ContainerPop { front },
                vec![base],
                Type::Void,
                span,
            )
        }
        "front" | "back" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            super::end_element(cx, base, elem.clone(), m == "back", span)
        }
        "push_back" | "push_front" | "emplace_back" | "emplace_front" | "insert" | "emplace" => {
            if !arity(cx, &what, &args, 1, "the value to add", span) {
                return error_expr(span);
            }
            cx.check_writable(&base, "modified");
            let Some(value) = args.into_iter().next() else {
                return error_expr(span);
            };
            let value = cx.coerce(value, &elem, "the added value");
            let op = match m {
                "push_back" | "emplace_back" => Intrinsic::VectorPush,
                "push_front" | "emplace_front" => Intrinsic::ContainerPushFront,
                _ => Intrinsic::ContainerInsert(kind),
            };
            // `insert` returns a pair (an iterator and whether it inserted)
            // in C++; Tessera has no pair, so its value cannot be used.
            intrinsic(op, vec![base, value], Type::Void, span)
        }
        _ => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            if temporary(cx, &base) {
                return error_expr(span);
            }
            let reverse = m.contains("rbegin") || m.contains("rend");
            make_iterator(base, m.ends_with("end"), reverse, m.starts_with('c'), span)
        }
    }
}

/// `c.find(x)`, `c.count(x)` and `c.erase(x)` on a set (`kind`, elements
/// `elem`). `find` is an iterator at the position the lookup finds (the
/// end when none is equal): the container's first element's address moved
/// by that position, as `begin()` is. `erase` of an iterator is not
/// supported yet (E0211).
#[allow(clippy::too_many_arguments)]
fn lookup(
    cx: &mut FnCx<'_>,
    what: &str,
    m: &str,
    kind: Container,
    elem: &Type,
    base: Expr,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    if !arity(cx, what, &args, 1, "the value looked for", span) {
        return error_expr(span);
    }
    let Some(value) = args.into_iter().next() else {
        return error_expr(span);
    };
    if m == "erase" && matches!(value.ty, Type::Iter(_) | Type::Iterator(_)) {
        return erase_at(cx, what, kind, base, value, span);
    }
    if kind == Container::List {
        cx.ck.error(
            codes::E0203,
            value.span,
            format!("mismatched types: {what} takes an iterator"),
            "not an iterator",
            "`l.remove(x)` removes the elements equal to a value (not supported yet)",
        );
        return error_expr(span);
    }
    let value = cx.coerce(value, elem, "the value looked for");
    let op = match m {
        "find" => LookupOp::Find,
        "count" => LookupOp::Count,
        _ => {
            cx.check_writable(&base, "modified");
            LookupOp::Erase
        }
    };
    if op != LookupOp::Find {
        let n = intrinsic(
            Intrinsic::ContainerLookup { kind, op },
            vec![base, value],
            Type::Scalar(Scalar::Long),
            span,
        );
        return cx.convert_scalar(n, Scalar::ULong);
    }
    if temporary(cx, &base) {
        return error_expr(span);
    }
    let at = intrinsic(
        Intrinsic::ContainerLookup { kind, op },
        vec![base.clone(), value],
        Type::Scalar(Scalar::Long),
        span,
    );
    super::iter::at_position(cx, base, at, span)
}

/// `c.erase(it)` on a set or a list: removes the element `it` designates
/// and is an iterator at the element after it.
fn erase_at(
    cx: &mut FnCx<'_>,
    what: &str,
    kind: Container,
    base: Expr,
    it: Expr,
    span: Span,
) -> Expr {
    let it = super::algorithm::materialize(cx, it);
    let Some(ty) = super::iter::iter_type(&it)
        .filter(|t| t.of == Some(kind) && !t.reverse)
        .cloned()
    else {
        let shown = cx.ck.show(&it.ty);
        cx.ck.error(
            codes::E0203,
            it.span,
            format!("mismatched types: {what} takes an iterator of the container, not `{shown}`"),
            format!("this is `{shown}`"),
            "",
        );
        return error_expr(span);
    };
    if temporary(cx, &base) {
        return error_expr(span);
    }
    cx.check_writable(&base, "modified");
    let ptr = super::iter::base(it);
    let ptr_ty = ptr.ty.clone();
    let next = intrinsic(
        Intrinsic::ContainerLookup {
            kind,
            op: LookupOp::EraseAt,
        },
        vec![base, ptr],
        ptr_ty,
        span,
    );
    intrinsic(
        Intrinsic::AsIter,
        vec![next],
        Type::Iter(Box::new(ty)),
        span,
    )
}

/// Reports an iterator asked of a temporary container (it would outlive
/// the container); true when it did.
fn temporary(cx: &mut FnCx<'_>, base: &Expr) -> bool {
    if base.place {
        return false;
    }
    cx.ck.error(
        codes::E0211,
        base.span,
        "iterators of a temporary container are not supported",
        "temporary container",
        "store the container in a variable first",
    );
    true
}
