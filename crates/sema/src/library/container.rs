//! `concurrency::array`, `array_view`, `std::vector` (with the iterators
//! `begin()`/`end()` as far as `array` and `copy` need them), and `copy`.

use super::{
    Side, arity, as_extent, as_index, check_side, int_const, intrinsic, is_pure, mk, no_member,
    to_int, untile_index,
};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{BinOp, Const, Expr, ExprKind, Intrinsic, Rank, Scalar, Type};
use tessera_syntax::ast;

/// An `array<T, N>` or `array_view<[const] T, N>`.
struct ViewTy {
    /// The element type.
    elem: Type,
    /// The rank.
    rank: Rank,
    /// `array_view<const T, N>`.
    read_only: bool,
    /// `array` rather than `array_view`.
    array: bool,
}

/// E0301 (C3930) for a member of an `array` or `array_view` that only host
/// code may call (synchronizing, querying where the data is), when it is
/// called in amp code.
fn host_member(cx: &mut FnCx<'_>, what: &str, at: tessera_diagnostics::Span) {
    check_side(
        cx,
        Side::Host,
        what,
        at,
        "C3930",
        "call it on the host, before or after the kernel",
    );
}

fn view_ty(ty: &Type) -> Option<ViewTy> {
    match ty {
        Type::Array(elem, rank) => Some(ViewTy {
            elem: (**elem).clone(),
            rank: *rank,
            read_only: false,
            array: true,
        }),
        Type::ArrayView {
            elem,
            rank,
            read_only,
        } => Some(ViewTy {
            elem: (**elem).clone(),
            rank: *rank,
            read_only: *read_only,
            array: false,
        }),
        _ => None,
    }
}

/// `v.begin()` (`end == false`) or `v.end()`. Iterators are accepted only as
/// arguments of `array` constructors and `copy`, which take the vector
/// itself; used anywhere else they are reported ([`iterator_misuse`]).
pub(super) fn make_iterator(
    vector: Expr,
    end: bool,
    reverse: bool,
    read_only: bool,
    span: Span,
) -> Expr {
    let elem = match vector.ty.sequence_elem() {
        Some(elem) => elem.clone(),
        None => Type::Error,
    };
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::VectorIterator {
                end,
                reverse,
                read_only,
            },
            args: vec![vector],
        },
        Type::Iterator(Box::new(elem)),
        false,
        span,
    )
}

/// The vector and `end`-ness of an iterator made by [`make_iterator`].
pub(super) fn iterator(e: &Expr) -> Option<(&Expr, bool)> {
    match &e.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::VectorIterator { end, .. },
            args,
        } => args.first().map(|v| (v, *end)),
        _ => None,
    }
}

/// True for a reverse iterator (`rbegin()`, `rend()`).
pub(super) fn is_reverse(e: &Expr) -> bool {
    matches!(
        &e.kind,
        ExprKind::Intrinsic {
            op: Intrinsic::VectorIterator { reverse: true, .. },
            ..
        }
    )
}

/// The container an iterator (or a range starting at it) reads, in the
/// order the iterator visits it: the container itself, or its reversal.
pub(super) fn read_through(first: &Expr, container: Expr) -> Expr {
    if is_reverse(first) {
        let (ty, span) = (container.ty.clone(), container.span);
        intrinsic(Intrinsic::VectorReversed, vec![container], ty, span)
    } else {
        container
    }
}

/// Reports an iterator used other than as an `array` or `copy` argument.
pub(super) fn iterator_misuse(cx: &mut FnCx<'_>, e: &Expr) {
    cx.ck.error(
        codes::E0211,
        e.span,
        "iterators can only be passed to `array` constructors and `copy`",
        "iterator used here",
        "index the vector instead: `v[i]`, `v.size()`",
    );
}

/// True when two expressions certainly denote the same variable.
pub(super) fn same_place(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Local(x), ExprKind::Local(y)) => x == y,
        (ExprKind::Global(x), ExprKind::Global(y)) => x == y,
        (ExprKind::Capture(x), ExprKind::Capture(y)) => x == y,
        (ExprKind::Field { base: x, field: f }, ExprKind::Field { base: y, field: g }) => {
            f == g && same_place(x, y)
        }
        _ => false,
    }
}

/// The name and declaration of the `const` variable a place belongs to, if any.
fn const_root(cx: &FnCx<'_>, e: &Expr) -> Option<(String, Span)> {
    match &e.kind {
        ExprKind::Local(id) => cx
            .local(*id)
            .filter(|l| l.is_const)
            .map(|l| (l.name.clone(), l.span)),
        ExprKind::Global(id) => cx
            .ck
            .program
            .get_global(*id)
            .filter(|g| g.is_const)
            .map(|g| (g.name.clone(), g.span)),
        ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => const_root(cx, base),
        _ => None,
    }
}

/// How an argument is named in messages: its type, or "an iterator".
fn show_arg(cx: &FnCx<'_>, e: &Expr) -> String {
    match iterator(e) {
        Some((_, false)) => "an iterator (`begin()`)".to_string(),
        Some((_, true)) => "an iterator (`end()`)".to_string(),
        None => format!("`{}`", cx.ck.show(&e.ty)),
    }
}

/// Reports E0203 for an element type that differs from the one expected.
fn elem_mismatch(cx: &mut FnCx<'_>, at: Span, what: &str, want: &Type, found: &Type) -> Expr {
    let (w, f) = (cx.ck.show(want), cx.ck.show(found));
    cx.ck.report(
        Diagnostic::error(
            codes::E0203,
            at,
            format!("mismatched types: {what} has elements of type `{f}`, expected `{w}`"),
        )
        .with_label(format!("elements of type `{f}`")),
    );
    error_expr(at)
}

/// `a[i]` on a view, array or vector.
pub(super) fn subscript(cx: &mut FnCx<'_>, base: Expr, index: Expr, span: Span) -> Expr {
    if let Type::Vector(elem) = &base.ty {
        let elem = (**elem).clone();
        check_side(cx, Side::Host, "`std::vector`", span, "C3930", "");
        return super::element_place(cx, base, index, elem, span);
    }
    let Some(v) = view_ty(&base.ty) else {
        return error_expr(span);
    };
    match index.ty {
        Type::Index(_) | Type::TiledIndex(_) => element(cx, base, index, span),
        Type::Scalar(s) if s.is_integral() => {
            let i = to_int(cx, index, "an index");
            if v.rank == 1 {
                let ispan = i.span;
                let idx = intrinsic(Intrinsic::MakeShape, vec![i], Type::Index(1), ispan);
                return element(cx, base, idx, span);
            }
            let ty = Type::ArrayView {
                elem: Box::new(v.elem),
                rank: v.rank - 1,
                read_only: v.read_only,
            };
            intrinsic(Intrinsic::ViewProject, vec![base, i], ty, span)
        }
        _ => {
            let (b, i) = (cx.ck.show(&base.ty), cx.ck.show(&index.ty));
            cx.ck.report(
                Diagnostic::error(codes::E0203, index.span, format!("mismatched types: `{b}` is indexed by an `index<{}>` or an integer, not `{i}`", v.rank))
                    .with_label(format!("this is `{i}`")),
            );
            error_expr(span)
        }
    }
}

/// The element of a view or array at an index (a place).
fn element(cx: &mut FnCx<'_>, base: Expr, index: Expr, span: Span) -> Expr {
    let Some(v) = view_ty(&base.ty) else {
        return error_expr(span);
    };
    let index = untile_index(cx, index);
    match index.ty {
        Type::Index(r) if r == v.rank => mk(
            ExprKind::Intrinsic {
                op: Intrinsic::ViewElement,
                args: vec![base, index],
            },
            v.elem,
            true,
            span,
        ),
        Type::Error => error_expr(span),
        _ => {
            let (b, i) = (cx.ck.show(&base.ty), cx.ck.show(&index.ty));
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    index.span,
                    format!(
                        "mismatched types: `{b}` needs an `index<{}>`, found `{i}`",
                        v.rank
                    ),
                )
                .with_label(format!("this is `{i}`"))
                .with_help("the index's rank must be the view's"),
            );
            error_expr(span)
        }
    }
}

/// `view(i, j)`, `view(idx)`.
pub(super) fn call_view(cx: &mut FnCx<'_>, base: Expr, args: Vec<Expr>, span: Span) -> Expr {
    let Some(v) = view_ty(&base.ty) else {
        return error_expr(span);
    };
    if let [one] = args.as_slice()
        && matches!(one.ty, Type::Index(_) | Type::TiledIndex(_))
    {
        return element(cx, base, one.clone(), span);
    }
    // `v(i)` of a view or array of rank 2 or more is its projection, as
    // `v[i]` is.
    if let [one] = args.as_slice()
        && v.rank >= 2
        && matches!(&one.ty, Type::Scalar(s) if s.is_integral())
    {
        return subscript(cx, base, one.clone(), span);
    }
    let shown = cx.ck.show(&base.ty);
    if let Some(bad) = args
        .iter()
        .find(|a| !matches!(&a.ty, Type::Scalar(s) if s.is_integral()))
    {
        let found = cx.ck.show(&bad.ty);
        cx.ck.report(
            Diagnostic::error(codes::E0203, bad.span, format!("mismatched types: `{shown}` is indexed by integers or an `index<{}>`, found `{found}`", v.rank))
                .with_label(format!("this is `{found}`")),
        );
        return error_expr(span);
    }
    if args.len() != usize::from(v.rank) || v.rank > 3 {
        let d = Diagnostic::error(
            codes::E0206,
            span,
            format!(
                "`{shown}` is indexed with {} integers, but {} were given",
                v.rank,
                args.len()
            ),
        )
        .with_label("wrong number of indices")
        .with_help(format!(
            "pass one integer per dimension, or an `index<{}>`",
            v.rank
        ));
        // amp.h's `operator()` of 2 and 3 integers exists at every rank
        // and asserts the rank statically (that of one integer projects a
        // view of rank 2 or more, as `v[i]` does).
        let d = if (2..=3).contains(&args.len()) {
            super::amp_static_assert(d)
        } else {
            d
        };
        cx.ck.report(d);
        return error_expr(span);
    }
    let ints: Vec<Expr> = args
        .into_iter()
        .map(|a| to_int(cx, a, "an index"))
        .collect();
    let ispan = ints
        .first()
        .map_or(span, |a| a.span)
        .to(ints.last().map_or(span, |a| a.span));
    let idx = intrinsic(Intrinsic::MakeShape, ints, Type::Index(v.rank), ispan);
    element(cx, base, idx, span)
}

/// A data member of a view, array or vector.
pub(super) fn member(cx: &mut FnCx<'_>, base: Expr, name: &ast::Ident, span: Span) -> Expr {
    let ty = base.ty.clone();
    if let Some(v) = view_ty(&ty) {
        match name.name.as_str() {
            "extent" => {
                return intrinsic(
                    Intrinsic::ViewExtent,
                    vec![base],
                    Type::Extent(v.rank),
                    span,
                );
            }
            "rank" => return int_const(i64::from(v.rank), span),
            "cpu_access_type" if v.array => {
                return cpu_access(cx, base, "`array::cpu_access_type`", name.span, span);
            }
            "accelerator_view" | "associated_accelerator_view" if v.array => {
                let what = format!("`array::{}`", name.name);
                if !check_side(
                    cx,
                    Side::Host,
                    &what,
                    name.span,
                    "C3930",
                    "ask for the array's view on the host",
                ) {
                    return error_expr(span);
                }
                let associated = name.name == "associated_accelerator_view";
                return intrinsic(
                    Intrinsic::ArrayDeviceView { associated },
                    vec![base],
                    Type::AcceleratorView,
                    span,
                );
            }
            _ => {}
        }
    }
    let help = match (&ty, name.name.as_str()) {
        (_, m @ ("size" | "push_back" | "begin" | "end" | "get_extent" | "section" | "synchronize" | "refresh" | "discard_data")) => {
            format!("`{m}` is a method: call it, `x.{m}()`")
        }
        (Type::Vector(_), _) => "a `std::vector` has `size()`, `push_back(x)`, `begin()`, `end()` and `v[i]`".to_string(),
        _ => "it has `extent`, `rank`, `get_extent()`, `section(...)` and, for views, `synchronize()`, `refresh()` and `discard_data()`".to_string(),
    };
    no_member(cx, &ty, name, &help)
}

/// `a.get_cpu_access_type()` / `a.cpu_access_type`: host only, as every
/// question about an array's placement is.
fn cpu_access(cx: &mut FnCx<'_>, base: Expr, what: &str, at: Span, span: Span) -> Expr {
    if !check_side(
        cx,
        Side::Host,
        what,
        at,
        "C3930",
        "ask on the host, before or after the kernel",
    ) {
        return error_expr(span);
    }
    crate::library::access_type_enum(cx.ck);
    intrinsic(
        Intrinsic::ArrayCpuAccess,
        vec![base],
        Type::Scalar(Scalar::Int),
        span,
    )
}

/// A method of a view, array or vector.
pub(super) fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    if let Type::Vector(_) = base.ty {
        return vector_method(cx, base, name, args, span);
    }
    let Some(v) = view_ty(&base.ty) else {
        return error_expr(span);
    };
    let m = name.name.as_str();
    let what = format!("`{}::{m}`", if v.array { "array" } else { "array_view" });
    match m {
        "get_extent" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            intrinsic(
                Intrinsic::ViewExtent,
                vec![base],
                Type::Extent(v.rank),
                span,
            )
        }
        "section" => section(cx, base, args, span),
        // `data()`: a pointer to the first element; an `array_view` has it
        // at rank 1 only (its elements are contiguous then).
        "data" if v.array || v.rank == 1 => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let is_const = matches!(
                base.ty,
                Type::ArrayView {
                    read_only: true,
                    ..
                }
            ) || cx.read_only_reason(&base).is_some() && v.array;
            let ty = Type::Ptr {
                elem: Box::new(v.elem.clone()),
                is_const,
            };
            intrinsic(Intrinsic::VectorData, vec![base], ty, span)
        }
        // amp.h declares it at every rank, with a `static_assert`.
        "data" => {
            let d = Diagnostic::error(
                codes::E0213,
                span,
                format!(
                    "`data()` needs a rank-1 view, not `array_view<{}, {}>`",
                    cx.ck.show(&v.elem),
                    v.rank
                ),
            )
            .with_label("rank is not 1")
            .with_help("read elements with `v(i, j)`, or take `data()` of the `array` or of a rank-1 view of the same elements");
            cx.ck.report(super::amp_static_assert(d));
            error_expr(span)
        }
        "get_ref" => {
            if !arity(cx, &what, &args, 1, "an index", span) {
                return error_expr(span);
            }
            let Some(idx) = args.into_iter().next() else {
                return error_expr(span);
            };
            element(cx, base, idx, span)
        }
        "copy_to" => {
            check_side(
                cx,
                Side::Host,
                &what,
                name.span,
                "C3930",
                "copy data before or after the kernel, on the host",
            );
            if !arity(
                cx,
                &what,
                &args,
                1,
                "the destination `array` or `array_view`",
                span,
            ) {
                return error_expr(span);
            }
            let Some(dst) = args.into_iter().next() else {
                return error_expr(span);
            };
            copy_views(cx, base, dst, CopyForm::Member, span)
        }
        "get_cpu_access_type" if v.array => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            cpu_access(cx, base, &what, name.span, span)
        }
        // `synchronize(type)`: the data is the host's already, whatever
        // access the host asks for; the type is checked and evaluated.
        "synchronize" if !v.array && args.len() == 1 => {
            if !super::device::access_arg(cx, &args[0], &what) {
                return error_expr(span);
            }
            let Some(access) = args.into_iter().next() else {
                return error_expr(span);
            };
            host_member(cx, &what, name.span);
            let sync = intrinsic(Intrinsic::ViewSynchronize, vec![base], Type::Void, span);
            if is_pure(&access) {
                return sync;
            }
            mk(
                ExprKind::Comma {
                    first: Box::new(access),
                    second: Box::new(sync),
                },
                Type::Void,
                false,
                span,
            )
        }
        "synchronize" | "refresh" | "discard_data" if !v.array => {
            let op = match m {
                "synchronize" => Intrinsic::ViewSynchronize,
                "refresh" => Intrinsic::ViewRefresh,
                _ => Intrinsic::ViewDiscard,
            };
            host_member(cx, &what, name.span);
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            intrinsic(op, vec![base], Type::Void, span)
        }
        "synchronize" | "refresh" | "discard_data" => no_member(
            cx,
            &base.ty.clone(),
            name,
            "only an `array_view` has it; copy an `array` out with `copy(a, v.begin())` or `std::vector<T> v = a;`",
        ),
        "view_as" => view_as(cx, base, &v, &what, args, span),
        // The view the array was made on, and the view a staging array is
        // associated with (its own view for any other array).
        "get_accelerator_view" | "get_associated_accelerator_view" if v.array => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let associated = name.name == "get_associated_accelerator_view";
            intrinsic(
                Intrinsic::ArrayDeviceView { associated },
                vec![base],
                Type::AcceleratorView,
                span,
            )
        }
        // The copy back is done at once, then the future is ready.
        "synchronize_async" if !v.array && args.len() <= 1 => {
            host_member(cx, &what, name.span);
            let mut first = Vec::new();
            if let Some(access) = args.into_iter().next() {
                if !super::device::access_arg(cx, &access, &what) {
                    return error_expr(span);
                }
                if !is_pure(&access) {
                    first.push(access);
                }
            }
            first.push(intrinsic(
                Intrinsic::ViewSynchronize,
                vec![base],
                Type::Void,
                span,
            ));
            let future = super::future::ready(cx.ck, span);
            let ty = future.ty.clone();
            first.into_iter().rev().fold(future, |rest, e| {
                mk(
                    ExprKind::Comma {
                        first: Box::new(e),
                        second: Box::new(rest),
                    },
                    ty.clone(),
                    false,
                    span,
                )
            })
        }
        // The data is made current on the given accelerator view; the
        // device's memory is the host's, so nothing moves. The view's host
        // data source is not synchronized by it (only `synchronize()`
        // does that, as in C++ AMP), which `--check` keeps seeing.
        "synchronize_to" if !v.array && args.len() == 1 => {
            host_member(cx, &what, name.span);
            let Some(target) = args.into_iter().next() else {
                return error_expr(span);
            };
            if target.ty != Type::AcceleratorView && !target.ty.is_error() {
                let shown = cx.ck.show(&target.ty);
                cx.ck.error(
                    codes::E0203,
                    target.span,
                    format!("mismatched types: {what} takes an `accelerator_view`, not `{shown}`"),
                    format!("this is `{shown}`"),
                    "",
                );
                return error_expr(span);
            }
            let done = intrinsic(Intrinsic::DeviceWait, Vec::new(), Type::Void, span);
            [base, target]
                .into_iter()
                .rev()
                .filter(|e| !is_pure(e))
                .fold(done, |rest, e| {
                    mk(
                        ExprKind::Comma {
                            first: Box::new(e),
                            second: Box::new(rest),
                        },
                        Type::Void,
                        false,
                        span,
                    )
                })
        }
        "get_source_accelerator_view" if !v.array => {
            host_member(cx, &what, name.span);
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            intrinsic(
                Intrinsic::ViewSourceView,
                vec![base],
                Type::AcceleratorView,
                span,
            )
        }
        "synchronize_async"
        | "synchronize_to"
        | "copy_to_async"
        | "get_source_accelerator_view"
        | "get_associated_accelerator_view"
        | "get_accelerator_view"
        | "get_cpu_access_type" => {
            cx.ck.error(
                codes::E0211,
                name.span,
                format!("{what} is not part of the Tessera library"),
                "not supported",
                "see docs/language.md for the library Tessera supports",
            );
            error_expr(span)
        }
        _ => no_member(
            cx,
            &base.ty.clone(),
            name,
            "it has `extent`, `get_extent()`, `section(...)` and, for views, `synchronize()`, `refresh()` and `discard_data()`",
        ),
    }
}

/// `a.view_as(extent<M>)` of an `array` (any rank) or `v.view_as(...)` of
/// a rank-1 `array_view`: the same elements, in row-major order, seen with
/// another extent (C++ AMP defines it only where the elements are
/// contiguous; the engines check the new extent fits).
fn view_as(
    cx: &mut FnCx<'_>,
    base: Expr,
    v: &ViewTy,
    what: &str,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    if !arity(cx, what, &args, 1, "an `extent<M>`", span) {
        return error_expr(span);
    }
    if !v.array && v.rank != 1 {
        // MSVC's amp.h declares it at every rank, with a `static_assert`.
        let d = Diagnostic::error(
            codes::E0207,
            span,
            format!(
                "`view_as` is a member of `array` and of rank-1 `array_view`s, not of `array_view<{}, {}>`",
                cx.ck.show(&v.elem),
                v.rank
            ),
        )
        .with_label("not a member of this view")
        .with_help("take a rank-1 view first, or use `section` to pick a part");
        cx.ck.report(super::amp_static_assert(d));
        return error_expr(span);
    }
    let Some(arg) = args.into_iter().next() else {
        return error_expr(span);
    };
    let rank = match &arg.ty {
        Type::Extent(m) => *m,
        other => {
            let found = cx.ck.show(other);
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    arg.span,
                    format!("mismatched types: `view_as` takes an `extent<M>`, not `{found}`"),
                )
                .with_label(format!("this is `{found}`")),
            );
            return error_expr(span);
        }
    };
    let ty = Type::ArrayView {
        elem: Box::new(v.elem.clone()),
        rank,
        read_only: v.read_only,
    };
    intrinsic(Intrinsic::ViewAs, vec![base, arg], ty, span)
}

/// `a.reinterpret_as<U>()`: a rank-1 `array_view<U, 1>` over the bytes of
/// an `array` (any rank) or of a rank-1 `array_view`, in host and amp code.
///
/// The checks are amp.h's: `U` must be a valid element type (no pointers:
/// C3581; a whole number of 4-byte words: C2338; a type amp code may use,
/// in amp code: C3581), the view rank 1 (C2338). Whether the bytes divide
/// into whole `U`s is known only at run time (`runtime_exception`).
pub(super) fn reinterpret_as(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    template_args: Option<&[ast::TemplateArg]>,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let Some(v) = view_ty(&base.ty) else {
        return error_expr(span);
    };
    if !v.array && v.rank != 1 {
        cx.ck.report(
            Diagnostic::error(
                codes::E0213,
                span,
                format!(
                    "`reinterpret_as` needs a rank-1 view, not `array_view<{}, {}>`",
                    cx.ck.show(&v.elem),
                    v.rank
                ),
            )
            .with_msvc("C2338")
            .with_label("rank is not 1")
            .with_help("reinterpret a rank-1 view of the same data, or the `array` itself"),
        );
        return error_expr(span);
    }
    let what = "`reinterpret_as`";
    if !arity(cx, what, &args, 0, "no arguments", span) {
        return error_expr(span);
    }
    let target = match template_args {
        Some([ast::TemplateArg::Type(t)]) => t,
        _ => {
            cx.ck.error(
                codes::E0213,
                name.span,
                "`reinterpret_as` takes one template argument, the new element type",
                "expected `reinterpret_as<T>`",
                "write the element type: `a.reinterpret_as<float>()`",
            );
            return error_expr(span);
        }
    };
    let declared = cx.resolve(&target.specs, &target.modifiers, &[]);
    if declared.ty.is_error() {
        return error_expr(span);
    }
    let elem = declared.ty;
    if declared.by_ref {
        cx.ck.error(
            codes::E0213,
            target.span,
            "the elements of `array_view` cannot be references",
            "a reference type",
            "use the element type itself",
        );
        return error_expr(span);
    }
    if let Type::Ptr { .. } = &elem {
        let shown = cx.ck.show(&elem);
        cx.ck.report(
            Diagnostic::error(
                codes::E0302,
                target.span,
                format!("`reinterpret_as` to pointers (`{shown}`) is not allowed"),
            )
            .with_label("pointer element type")
            .with_msvc("C3581")
            .with_help("views hold values, not pointers"),
        );
        return error_expr(span);
    }
    if cx.in_amp() && crate::stmt::kernel_type_problem(cx.ck, &elem).is_some() {
        cx.check_kernel_type(&elem, target.span, "an element of `reinterpret_as`");
        return error_expr(span);
    }
    let structs = &cx.ck.program.structs;
    let size = tessera_ir::layout::size_align_u64(structs, &elem).map(|(s, _)| s);
    if let Some(size) = size
        && size % 4 != 0
    {
        let shown = cx.ck.show(&elem);
        cx.ck.report(
            Diagnostic::error(
                codes::E0213,
                target.span,
                format!("the elements of `array_view` must be a multiple of 4 bytes; `{shown}` has {size}"),
            )
            .with_label("element type")
            .with_msvc("C2338")
            .with_help("read the bytes as a type of 4-byte words: `int`, `float`, a struct of them"),
        );
        return error_expr(span);
    }
    // The interpreter reads the same bytes through the scalars each type is
    // made of; a union's bytes depend on its live member, and types without
    // a plain layout have no bytes to read.
    let plain = |t: &Type| tessera_ir::layout::scalar_leaves(structs, t).is_some();
    if !plain(&elem) || !plain(&v.elem) {
        let (a, b) = (cx.ck.show(&v.elem), cx.ck.show(&elem));
        cx.ck.error(
            codes::E0211,
            span,
            format!("`reinterpret_as` from `{a}` to `{b}` is not supported"),
            "not supported",
            "both element types must be scalars, or structs and arrays of scalars (no unions)",
        );
        return error_expr(span);
    }
    // A `const array` gives `array_view<const U, 1>`, as amp.h's const
    // overload does.
    let const_array = v.array && cx.read_only_reason(&base).is_some();
    let ty = Type::ArrayView {
        elem: Box::new(elem),
        rank: 1,
        read_only: v.read_only || cx.ck.specs_const(&target.specs) || const_array,
    };
    intrinsic(Intrinsic::ReinterpretAs, vec![base], ty, span)
}

/// `v.section(origin, ext)`, `(origin)`, `(ext)`, `(i0, [i1, [i2,]] e0, [e1, [e2]])`.
fn section(cx: &mut FnCx<'_>, base: Expr, args: Vec<Expr>, span: Span) -> Expr {
    let Some(v) = view_ty(&base.ty) else {
        return error_expr(span);
    };
    let n = v.rank;
    let shown = cx.ck.show(&base.ty);
    let ty = Type::ArrayView {
        elem: Box::new(v.elem.clone()),
        rank: n,
        read_only: v.read_only,
    };
    let usage = || {
        format!(
            "an origin `index<{n}>`, an `extent<{n}>`, both, or {} origin and {} extent integers",
            n, n
        )
    };
    let all_ints = !args.is_empty()
        && args
            .iter()
            .all(|a| matches!(&a.ty, Type::Scalar(s) if s.is_integral()));
    // amp.h has the integer forms of 2, 4 and 6 arguments at every rank:
    // a view's asserts the rank statically, an array's hands an origin
    // and extent of another rank to the form that takes `index<N>` and
    // `extent<N>` (C2664).
    let other_rank_ints =
        all_ints && matches!(args.len(), 2 | 4 | 6) && (args.len() != 2 * usize::from(n) || n > 3);
    let (origin, ext) = if all_ints && args.len() == 2 * usize::from(n) && n <= 3 {
        let mut ints: Vec<Expr> = args
            .into_iter()
            .map(|a| to_int(cx, a, "a section bound"))
            .collect();
        let ext_ints = ints.split_off(usize::from(n));
        let o = intrinsic(Intrinsic::MakeShape, ints, Type::Index(n), span);
        let e = intrinsic(Intrinsic::MakeShape, ext_ints, Type::Extent(n), span);
        (o, e)
    } else {
        let mut origin = None;
        let mut ext = None;
        for a in args {
            match a.ty {
                Type::Index(_) | Type::TiledIndex(_) if origin.is_none() && ext.is_none() => {
                    origin = as_index(cx, a)
                }
                Type::Extent(_) | Type::TiledExtent(_) if ext.is_none() => ext = as_extent(a),
                _ => {
                    let found = cx.ck.show(&a.ty);
                    let d = Diagnostic::error(
                        codes::E0203,
                        a.span,
                        format!("mismatched types: `section` of `{shown}` takes {}", usage()),
                    )
                    .with_label(format!("this is `{found}`"));
                    let d = match (other_rank_ints, v.array) {
                        (false, _) => d,
                        (true, true) => d.with_msvc("C2664"),
                        (true, false) => super::amp_static_assert(d),
                    };
                    cx.ck.report(d);
                    return error_expr(span);
                }
            }
        }
        match (origin, ext) {
            (Some(o), Some(e)) => (o, e),
            (None, Some(e)) => {
                let zeros = (0..n).map(|_| int_const(0, span)).collect();
                (
                    intrinsic(Intrinsic::MakeShape, zeros, Type::Index(n), span),
                    e,
                )
            }
            (Some(o), None) => {
                // The rest of the view from `o`: the engines compute the
                // extent from the view they already evaluated, so neither the
                // view nor the origin is evaluated twice.
                if o.ty != Type::Index(n) && !o.ty.is_error() {
                    let (w, f) = (cx.ck.show(&Type::Index(n)), cx.ck.show(&o.ty));
                    cx.ck.report(
                        Diagnostic::error(
                            codes::E0203,
                            o.span,
                            format!("mismatched types: expected `{w}`, found `{f}`"),
                        )
                        .with_label(format!("this is `{f}`"))
                        .with_help("the rank must be the view's")
                        .with_msvc("C2664"),
                    );
                    return error_expr(span);
                }
                if o.ty.is_error() {
                    return error_expr(span);
                }
                return intrinsic(Intrinsic::ViewSection, vec![base, o], ty, span);
            }
            (None, None) => {
                cx.ck.report(
                    Diagnostic::error(
                        codes::E0206,
                        span,
                        format!("`section` of `{shown}` takes {}", usage()),
                    )
                    .with_label("wrong arguments"),
                );
                return error_expr(span);
            }
        }
    };
    for (part, want) in [(&origin, Type::Index(n)), (&ext, Type::Extent(n))] {
        if part.ty != want && !part.ty.is_error() {
            let (w, f) = (cx.ck.show(&want), cx.ck.show(&part.ty));
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    part.span,
                    format!("mismatched types: expected `{w}`, found `{f}`"),
                )
                .with_label(format!("this is `{f}`"))
                .with_help("the rank must be the view's")
                .with_msvc("C2664"),
            );
            return error_expr(span);
        }
    }
    if origin.ty.is_error() || ext.ty.is_error() {
        return error_expr(span);
    }
    intrinsic(Intrinsic::ViewSection, vec![base, origin, ext], ty, span)
}

/// A method of `std::vector`.
fn vector_method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let Type::Vector(elem) = base.ty.clone() else {
        return error_expr(span);
    };
    let m = name.name.as_str();
    let what = format!("`std::vector::{m}`");
    let ulong = Type::Scalar(Scalar::ULong);
    let known = [
        "push_back",
        "size",
        "empty",
        "begin",
        "end",
        "cbegin",
        "cend",
        "rbegin",
        "rend",
        "crbegin",
        "crend",
        "at",
        "front",
        "back",
        "data",
    ];
    if known.contains(&m) {
        check_side(
            cx,
            Side::Host,
            &what,
            name.span,
            "C3930",
            "wrap the data in an `array_view` to use it in a kernel",
        );
    }
    match m {
        "push_back" => {
            if !arity(cx, &what, &args, 1, "the value to append", span) {
                return error_expr(span);
            }
            cx.check_writable(&base, "modified");
            let Some(value) = args.into_iter().next() else {
                return error_expr(span);
            };
            let value = cx.coerce(value, &elem, "the appended value");
            intrinsic(Intrinsic::VectorPush, vec![base, value], Type::Void, span)
        }
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
        "data" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            if !base.place {
                cx.ck.error(
                    codes::E0211,
                    base.span,
                    "the data of a temporary vector is gone after the statement",
                    "temporary vector",
                    "store the vector in a variable first",
                );
                return error_expr(span);
            }
            let is_const = cx.read_only_reason(&base).is_some();
            let ty = Type::Ptr {
                elem: elem.clone(),
                is_const,
            };
            intrinsic(Intrinsic::VectorData, vec![base], ty, span)
        }
        "begin" | "end" | "cbegin" | "cend" | "rbegin" | "rend" | "crbegin" | "crend" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            if !base.place {
                cx.ck.error(
                    codes::E0211,
                    base.span,
                    "iterators of a temporary vector are not supported",
                    "temporary vector",
                    "store the vector in a variable first",
                );
                return error_expr(span);
            }
            make_iterator(
                base,
                m.ends_with("end"),
                m.contains("rbegin") || m.contains("rend"),
                m.starts_with('c'),
                span,
            )
        }
        "at" | "front" => {
            let want = usize::from(m == "at");
            if !arity(
                cx,
                &what,
                &args,
                want,
                if want == 1 {
                    "an index"
                } else {
                    "no arguments"
                },
                span,
            ) {
                return error_expr(span);
            }
            let index = match args.into_iter().next() {
                Some(i) => cx.integral_index(i),
                None => mk(
                    ExprKind::Const(Const::Int(0)),
                    Type::Scalar(Scalar::Long),
                    false,
                    span,
                ),
            };
            // `at` throws where C++ throws (host code only: amp code has
            // no exceptions, and no `std::vector`).
            let op = if m == "at" {
                Intrinsic::VectorAt
            } else {
                Intrinsic::VectorElement
            };
            mk(
                ExprKind::Intrinsic {
                    op,
                    args: vec![base, index],
                },
                *elem,
                true,
                span,
            )
        }
        "clear" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            check_side(cx, Side::Host, &what, name.span, "C3930", "");
            cx.check_writable(&base, "modified");
            intrinsic(Intrinsic::ContainerClear, vec![base], Type::Void, span)
        }
        "assign" => {
            // `v.assign(n, x)` and `v.assign(first, last)`: the elements of
            // the vector the same arguments would construct.
            check_side(cx, Side::Host, &what, name.span, "C3930", "");
            if !arity(cx, &what, &args, 2, "a count and a value, or a range", span) {
                return error_expr(span);
            }
            cx.check_writable(&base, "modified");
            let vector = base.ty.clone();
            let source = construct_vector(cx, &vector, args, span);
            if source.ty.is_error() {
                return source;
            }
            intrinsic(
                Intrinsic::VectorAssign,
                vec![base, source],
                Type::Void,
                span,
            )
        }
        "resize" => {
            check_side(cx, Side::Host, &what, name.span, "C3930", "");
            if args.len() != 1
                && !arity(
                    cx,
                    &what,
                    &args,
                    2,
                    "a size, and the value of new elements",
                    span,
                )
            {
                return error_expr(span);
            }
            cx.check_writable(&base, "modified");
            let mut args = args.into_iter();
            let Some(n) = args.next() else {
                return error_expr(span);
            };
            let n = cx.integral_index(n);
            let value = match args.next() {
                Some(v) => cx.coerce(v, &elem, "the value of new elements"),
                None if elem.scalar().is_some() => {
                    let zero = mk(ExprKind::Const(Const::Int(0)), Type::INT, false, span);
                    cx.coerce(zero, &elem, "the value of new elements")
                }
                // Zero, or an object built once, is every new element when
                // building one does nothing else.
                None if let Some(value) = super::elements::fill_value(cx, &elem, span) => value,
                None => {
                    let shown = cx.ck.show(&elem);
                    cx.ck.error(
                        codes::E0211,
                        span,
                        format!(
                            "`resize` of a vector of `{shown}` without a value is not supported"
                        ),
                        "each new element would run the constructor, which does more than build it",
                        "pass the value of the new elements: `v.resize(n, value)`",
                    );
                    return error_expr(span);
                }
            };
            intrinsic(
                Intrinsic::VectorResize,
                vec![base, n, value],
                Type::Void,
                span,
            )
        }
        "back" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            super::end_element(cx, base, *elem, true, span)
        }
        "pop_back" => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            check_side(cx, Side::Host, &what, name.span, "C3930", "");
            cx.check_writable(&base, "modified");
            intrinsic(
                Intrinsic::ContainerPop { front: false },
                vec![base],
                Type::Void,
                span,
            )
        }
        "reserve" => {
            if !arity(cx, &what, &args, 1, "the capacity to reserve", span) {
                return error_expr(span);
            }
            check_side(cx, Side::Host, &what, name.span, "C3930", "");
            cx.check_writable(&base, "modified");
            let Some(n) = args.into_iter().next() else {
                return error_expr(span);
            };
            let n = cx.coerce(n, &ulong, "the capacity");
            intrinsic(Intrinsic::VectorReserve, vec![base, n], Type::Void, span)
        }
        "emplace_back" => {
            check_side(cx, Side::Host, &what, name.span, "C3930", "");
            cx.check_writable(&base, "modified");
            let value = match (&*elem, args.len()) {
                // One value of the element type: what `push_back` adds.
                (_, 1) if args.first().is_some_and(|a| a.ty == *elem) => args.into_iter().next(),
                (Type::Scalar(_), 1) => args
                    .into_iter()
                    .next()
                    .map(|a| cx.explicit_conversion(a, &elem, false, span)),
                // An object built from the arguments: C++ builds it in the
                // vector, `push_back` would copy a temporary, the same
                // unless copying or destroying one runs code.
                (Type::Struct(id), _)
                    if !cx.ck.copy_runs_code(*id) && !cx.ck.dtor_runs_code(*id) =>
                {
                    cx.construct_object(*id, args, false, span)
                }
                (Type::Struct(_), _) => {
                    let shown = cx.ck.show(&elem);
                    cx.ck.error(
                        codes::E0211,
                        span,
                        format!("`emplace_back` of a `{shown}` built from its arguments is not supported"),
                        "copying or destroying one runs code",
                        format!("build it first: `v.push_back({shown}(...))` copies it, as C++ does"),
                    );
                    return error_expr(span);
                }
                _ => {
                    if !arity(cx, &what, &args, 1, "the value to append", span) {
                        return error_expr(span);
                    }
                    args.into_iter().next()
                }
            };
            let Some(value) = value else {
                return error_expr(span);
            };
            if value.ty.is_error() {
                return value;
            }
            let value = cx.coerce(value, &elem, "the appended value");
            intrinsic(Intrinsic::VectorPush, vec![base, value], Type::Void, span)
        }
        "swap" => container_swap(cx, &what, base, args, name.span, span),
        "insert" | "erase" | "capacity" => {
            cx.ck.error(
                codes::E0211,
                name.span,
                format!("{what} is not part of the Tessera library"),
                "not supported",
                "the supported members are `size()`, `empty()`, `push_back(x)`, `emplace_back(...)`, `pop_back()`, `clear()`, `assign(...)`, `resize(n)`, `reserve(n)`, `swap(other)`, `at(i)`, `front()`, `back()`, `begin()`, `end()` and `v[i]`",
            );
            error_expr(span)
        }
        _ => no_member(
            cx,
            &base.ty.clone(),
            name,
            "a `std::vector` has `size()`, `empty()`, `push_back(x)`, `pop_back()`, `at(i)`, `front()`, `back()`, `begin()`, `end()` and `v[i]`",
        ),
    }
}

/// `c.swap(other)` on a `std::vector` (or another container): the two
/// variables exchange their elements, as `std::swap(c, other)` does. Each
/// holds its storage by handle, so views over either keep the elements
/// they were made over, as C++'s keep the buffer.
pub(super) fn container_swap(
    cx: &mut FnCx<'_>,
    what: &str,
    base: Expr,
    args: Vec<Expr>,
    name_span: Span,
    span: Span,
) -> Expr {
    if !arity(
        cx,
        what,
        &args,
        1,
        "another container of the same type",
        span,
    ) {
        return error_expr(span);
    }
    check_side(cx, Side::Host, what, name_span, "C3930", "");
    let Some(other) = args.into_iter().next() else {
        return error_expr(span);
    };
    if other.ty != base.ty {
        let (x, y) = (cx.ck.show(&base.ty), cx.ck.show(&other.ty));
        cx.ck.error(
            codes::E0203,
            other.span,
            format!("mismatched types: {what} exchanges with another `{x}`, not a `{y}`"),
            format!("this is `{y}`"),
            "",
        );
        return error_expr(span);
    }
    if !base.place || !other.place {
        let at = if base.place { other.span } else { base.span };
        cx.ck.error(
            codes::E0203,
            at,
            format!("{what} exchanges the elements of two variables, not of a computed value"),
            "not a variable",
            "",
        );
        return error_expr(span);
    }
    cx.check_writable(&base, "modified");
    cx.check_writable(&other, "modified");
    intrinsic(Intrinsic::Swap, vec![base, other], Type::Void, span)
}

/// Splits constructor arguments into the extent (an `extent<N>` or `N`
/// integers) and the rest. Reports and returns `None` when neither is there.
fn split_extent(
    cx: &mut FnCx<'_>,
    ty: &Type,
    rank: Rank,
    mut args: Vec<Expr>,
    span: Span,
) -> Option<(Expr, Vec<Expr>)> {
    let shown = cx.ck.show(ty);
    if let Some(first) = args.first()
        && matches!(first.ty, Type::Extent(_) | Type::TiledExtent(_))
    {
        let rest = args.split_off(1);
        let ext = as_extent(args.into_iter().next()?)?;
        if ext.ty != Type::Extent(rank) {
            let found = cx.ck.show(&ext.ty);
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    ext.span,
                    format!(
                        "mismatched types: `{shown}` needs an `extent<{rank}>`, found `{found}`"
                    ),
                )
                .with_label(format!("this is `{found}`"))
                .with_msvc("C2664"),
            );
            return None;
        }
        return Some((ext, rest));
    }
    let k = args
        .iter()
        .take_while(|a| matches!(a.ty, Type::Scalar(_)))
        .count();
    let usage = format!(
        "an `extent<{rank}>` or {rank} integer size{}",
        if rank == 1 { "" } else { "s" }
    );
    if args.is_empty() {
        cx.ck.report(
            Diagnostic::error(
                codes::E0203,
                span,
                format!("`{shown}` has no default constructor"),
            )
            .with_label("needs a size")
            .with_msvc("C2248")
            .with_help(format!("pass {usage}")),
        );
        return None;
    }
    if k == 0 {
        let mut d = Diagnostic::error(
            codes::E0203,
            span,
            format!("`{shown}` is built from {usage} first"),
        )
        .with_label("no extent");
        if let Some(first) = args.first() {
            let found = cx.ck.show(&first.ty);
            d = d.with_secondary(first.span, format!("this is `{found}`"));
        }
        cx.ck.report(d);
        return None;
    }
    if k != usize::from(rank) || rank > 3 {
        let what = if rank > 3 {
            format!(
                "`{shown}` has no constructor taking integer sizes (C++ AMP has them for ranks 1 to 3 only)"
            )
        } else {
            format!("`{shown}` needs {usage}, but {k} integers were given")
        };
        let d = Diagnostic::error(codes::E0206, span, what)
            .with_label("wrong number of sizes")
            .with_help(format!("pass {usage}"));
        // amp.h has constructors of 1, 2 and 3 sizes for every rank: an
        // array's build an `extent<N>` of them, whose constructor asserts
        // the count statically; a view's hand an `extent<k>` to its base,
        // which takes an `extent<N>` only.
        let d = match ty {
            _ if k > 3 => d,
            Type::Array(..) => super::amp_static_assert(d),
            _ => d.with_msvc("C2664"),
        };
        cx.ck.report(d);
        return None;
    }
    let rest = args.split_off(k);
    let ints: Vec<Expr> = args.into_iter().map(|a| to_int(cx, a, "a size")).collect();
    let espan = ints
        .first()
        .map_or(span, |a| a.span)
        .to(ints.last().map_or(span, |a| a.span));
    Some((
        intrinsic(Intrinsic::MakeShape, ints, Type::Extent(rank), espan),
        rest,
    ))
}

/// `array<T, N>(...)`: host only.
///
/// `array<T, N> a(..., view, access_type)` gives the CPU access the array
/// is made with, kept with it (`get_cpu_access_type()`; `data()` is null
/// for `access_type_none`): it becomes `NewArray`'s last operand, an `int`.
pub(super) fn construct_array(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    let mut args = args;
    let mut access = None;
    if args.len() >= 2
        && args[args.len() - 2].ty == Type::AcceleratorView
        && args.last().is_some_and(|a| matches!(a.ty, Type::Scalar(_)))
        && let Some(last) = args.pop()
    {
        if !super::device::access_arg(cx, &last, "an `array` constructor") {
            return error_expr(span);
        }
        access = Some(last);
    }
    // The view the array lives on, and a staging array's associated view:
    // `array<T, N> a(..., cpu_view, associated_view)` is memory on the CPU
    // meant for copies to and from the associated accelerator, which C++
    // AMP gives read and write access from the CPU.
    let mut views = Vec::new();
    while views.len() < 2 && args.last().is_some_and(|a| a.ty == Type::AcceleratorView) {
        views.extend(args.pop());
    }
    views.reverse();
    if views.len() == 2 && access.is_none() {
        access = Some(crate::expr::mk(
            ExprKind::Const(tessera_ir::Const::Int(
                tessera_ir::device::ACCESS_READ_WRITE,
            )),
            Type::Scalar(tessera_ir::Scalar::Int),
            false,
            views[1].span,
        ));
    }
    let made = build_array(cx, ty, args, span);
    match made.kind {
        ExprKind::Intrinsic {
            op: op @ (Intrinsic::NewArray | Intrinsic::NewArrayOfRange),
            mut args,
        } => {
            args.extend(views);
            args.extend(access);
            intrinsic(op, args, made.ty, made.span)
        }
        kind => Expr { kind, ..made },
    }
}

/// The intrinsic that makes an `array`: [`Intrinsic::NewArrayOfRange`]
/// when its source is a whole iterator range `first, last`.
fn new_array_op(whole_range: bool) -> Intrinsic {
    if whole_range {
        Intrinsic::NewArrayOfRange
    } else {
        Intrinsic::NewArray
    }
}

/// [`construct_array`] once its access type is set aside.
fn build_array(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    let Type::Array(elem, rank) = ty else {
        return error_expr(span);
    };
    let (elem, rank) = ((**elem).clone(), *rank);
    check_side(
        cx,
        Side::Host,
        "creating a `concurrency::array`",
        span,
        "C3930",
        "create arrays on the host and capture them by reference: `[&a]`",
    );
    let shown = cx.ck.show(ty);
    let mut args = args;
    // `array<T, N> a(..., acc.default_view)`: the array lives on the one
    // device whatever view names it, and a view has nothing to evaluate.
    if args.last().is_some_and(|a| a.ty == Type::AcceleratorView) {
        args.pop();
        if let Some(second) = args.iter().rev().find(|a| a.ty == Type::AcceleratorView) {
            cx.ck.error(
                codes::E0211,
                second.span,
                "staging arrays (an `array` on two accelerator views) are not supported",
                "a second accelerator view",
                "build the array on one view: Tessera's kernels read host memory directly",
            );
            return error_expr(span);
        }
    }
    // A copy of an array or view: `array<T, N> a(view)`.
    if let [one] = args.as_slice()
        && let Some(src) = view_ty(&one.ty)
    {
        if src.elem != elem || src.rank != rank {
            let found = cx.ck.show(&one.ty);
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    one.span,
                    format!("mismatched types: `{shown}` cannot be built from `{found}`"),
                )
                .with_label(format!("this is `{found}`"))
                .with_msvc("C2664"),
            );
            return error_expr(span);
        }
        if !is_pure(one) {
            cx.ck.error(
                codes::E0211,
                one.span,
                "copying a computed view into an `array` is not supported",
                "computed here",
                "store the view in a variable first",
            );
            return error_expr(span);
        }
        let ext = intrinsic(
            Intrinsic::ViewExtent,
            vec![one.clone()],
            Type::Extent(rank),
            one.span,
        );
        return intrinsic(
            Intrinsic::NewArray,
            vec![ext, one.clone()],
            ty.clone(),
            span,
        );
    }
    let Some((ext, rest)) = split_extent(cx, ty, rank, args, span) else {
        return error_expr(span);
    };
    // Iterators of lists and sets, reverse iterators: the elements they
    // visit.
    if let [first, more @ ..] = rest.as_slice()
        && more.len() <= 1
        && let Some(source) = super::iter::range_source(cx, first, more.first())
    {
        let Ok(source) = source else {
            return error_expr(span);
        };
        if let Some(e2) = source.ty.sequence_elem()
            && *e2 != elem
        {
            let e2 = e2.clone();
            return elem_mismatch(cx, first.span, "the range", &elem, &e2);
        }
        let op = new_array_op(!more.is_empty());
        return intrinsic(op, vec![ext, source], ty.clone(), span);
    }
    // A moved iterator (`v.begin() + 1`), or iterators beside a stored one:
    // all as pointers.
    let moved = |e: &Expr| matches!(e.ty, Type::Iterator(_)) && iterator(e).is_none();
    let rest: Vec<Expr> = if rest
        .iter()
        .any(|e| moved(e) || matches!(e.ty, Type::Ptr { .. }))
    {
        rest.into_iter()
            .map(|e| super::algorithm::materialize(cx, e))
            .collect()
    } else {
        rest
    };
    match rest.as_slice() {
        [] => intrinsic(Intrinsic::NewArray, vec![ext], ty.clone(), span),
        // `array<T, N> a(e, p)` and `a(e, p, q)`: from what pointers (or a
        // vector's stored iterators) point to, each read checked.
        [first, more @ ..]
            if super::algorithm::pointer_like(first)
                && (more.is_empty() || (more.len() == 1 && pointer_pair(first, &more[0]))) =>
        {
            let mut sources = vec![ext];
            for p in std::iter::once(first).chain(more) {
                let p = decay_array(cx, p.clone());
                if let Type::Ptr { elem: pe, .. } = &p.ty
                    && **pe != elem
                {
                    let pe = (**pe).clone();
                    return elem_mismatch(cx, p.span, "the pointer", &elem, &pe);
                }
                sources.push(p);
            }
            let op = new_array_op(!more.is_empty());
            intrinsic(op, sources, ty.clone(), span)
        }
        [first, rest @ ..] if iterator(first).is_some() => {
            let Some((vector, end)) = iterator(first) else {
                return error_expr(span);
            };
            let vector = vector.clone();
            let well_formed = match rest {
                [] => !end,
                [last] => match iterator(last) {
                    Some((other, true)) => {
                        !end && same_place(&vector, other) && is_reverse(first) == is_reverse(last)
                    }
                    _ => false,
                },
                _ => false,
            };
            if !well_formed {
                cx.ck.report(
                    Diagnostic::error(
                        codes::E0203,
                        first.span,
                        format!("`{shown}` is filled from `v.begin(), v.end()` of one vector"),
                    )
                    .with_label("not a `begin()`, `end()` pair of one vector")
                    .with_help("write `array<T, N> a(e, v.begin(), v.end());`"),
                );
                return error_expr(span);
            }
            if let Some(e2) = vector.ty.sequence_elem()
                && *e2 != elem
            {
                let e2 = e2.clone();
                return elem_mismatch(cx, first.span, "the container", &elem, &e2);
            }
            let source = read_through(first, vector);
            let op = new_array_op(!rest.is_empty());
            intrinsic(op, vec![ext, source], ty.clone(), span)
        }
        [src] if view_ty(&src.ty).is_some() => {
            let Some(s) = view_ty(&src.ty) else {
                return error_expr(span);
            };
            if s.elem != elem {
                return elem_mismatch(cx, src.span, "the source", &elem, &s.elem);
            }
            intrinsic(
                Intrinsic::NewArray,
                vec![ext, src.clone()],
                ty.clone(),
                span,
            )
        }
        [src, ..] => {
            let found = cx.ck.show(&src.ty);
            let help = if let Type::Vector(_) = src.ty {
                "pass the vector's iterators: `array<T, N> a(e, v.begin(), v.end());`"
            } else {
                "the initial data is `v.begin(), v.end()` of a `std::vector`, or an `array_view`"
            };
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    src.span,
                    format!("`{shown}` cannot be filled from `{found}`"),
                )
                .with_label(format!("this is `{found}`"))
                .with_help(help),
            );
            error_expr(span)
        }
    }
}

/// `array_view<T, N>(...)`.
/// A view of all of `array` (of the view's element type and rank), as
/// `array_view<T, N> v(a)` and the implicit conversion of an `array` to an
/// `array_view` (an argument, an initialiser, a returned value) make it.
pub(super) fn view_of_array(cx: &mut FnCx<'_>, array: Expr, ty: &Type, span: Span) -> Expr {
    let Some(v) = view_ty(ty) else {
        return error_expr(span);
    };
    // The view refers to the array's storage, so the array must be one
    // that outlives the expression.
    if !is_pure(&array) {
        cx.ck.error(
            codes::E0211,
            array.span,
            "a view of a computed `array` is not supported",
            "computed here",
            "store the array in a variable first",
        );
        return error_expr(span);
    }
    let ext = intrinsic(
        Intrinsic::ViewExtent,
        vec![array.clone()],
        Type::Extent(v.rank),
        array.span,
    );
    intrinsic(Intrinsic::NewView, vec![ext, array], ty.clone(), span)
}

pub(super) fn construct_view(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    let Some(v) = view_ty(ty) else {
        return error_expr(span);
    };
    let shown = cx.ck.show(ty);
    if let [one] = args.as_slice() {
        match &one.ty {
            Type::Array(e2, r2) if **e2 == v.elem && *r2 == v.rank => {
                return view_of_array(cx, one.clone(), ty, span);
            }
            Type::Array(..) | Type::ArrayView { .. } => {
                return Expr {
                    place: false,
                    ..super::coerce_argument(cx, one.clone(), ty, "the view to copy")
                };
            }
            _ => {}
        }
    }
    let Some((ext, rest)) = split_extent(cx, ty, v.rank, args, span) else {
        return error_expr(span);
    };
    match rest.as_slice() {
        [] => {
            check_side(
                cx,
                Side::Host,
                "an `array_view` without a data source",
                span,
                "C3930",
                "create it on the host, or give it data: `array_view<int, 1> v(n, data)`",
            );
            intrinsic(Intrinsic::NewView, vec![ext], ty.clone(), span)
        }
        [src] => {
            let e2 = match &src.ty {
                Type::Vector(e2) => {
                    check_side(
                        cx,
                        Side::Host,
                        "an `array_view` over a `std::vector`",
                        span,
                        "C3930",
                        "",
                    );
                    (**e2).clone()
                }
                Type::CArray(e2, _) => (**e2).clone(),
                // `array_view<T, N> v(e, nullptr)`: amp.h's constructor
                // taking a `T*` (a view of no elements; of more, the engines
                // report the null pointer when it is read).
                Type::Null => {
                    let to = Type::Ptr {
                        elem: Box::new(v.elem.clone()),
                        is_const: v.read_only,
                    };
                    let src = cx.coerce(src.clone(), &to, "the data source");
                    return intrinsic(Intrinsic::NewView, vec![ext, src], ty.clone(), span);
                }
                // `array_view<T, N> v(e, p)`: the elements from `p` on (the
                // engines check that the allocation holds them).
                Type::Ptr { elem: e2, is_const } => {
                    if **e2 != v.elem {
                        return elem_mismatch(cx, src.span, "the data source", &v.elem, e2);
                    }
                    if *is_const && !v.read_only {
                        let shown_elem = cx.ck.show(&v.elem);
                        let mut d = Diagnostic::error(
                            codes::E0205,
                            src.span,
                            format!("a writable view cannot refer to elements through a `const {shown_elem}*`"),
                        )
                        .with_label("pointer to const")
                        .with_help(format!(
                            "declare the view read-only: `array_view<const {shown_elem}, {}>`",
                            v.rank
                        ));
                        // The constructor taking a `T*` does not take it, so
                        // amp.h's constructor taking a container by reference
                        // binds the pointer variable and calls its `data()`.
                        if src.place {
                            d = d
                                .with_note("MSVC reports this as C2228 (`<amp.h>` takes the pointer for a container and calls its `data()`)")
                                .standing_for("C2228");
                        }
                        cx.ck.report(d);
                        return error_expr(span);
                    }
                    return intrinsic(Intrinsic::NewView, vec![ext, src.clone()], ty.clone(), span);
                }
                _ => {
                    let found = cx.ck.show(&src.ty);
                    let help = if view_ty(&src.ty).is_some() {
                        "a view of an `array` takes the array alone: `array_view<T, N> v(a);`; for a part, use `section`"
                    } else {
                        "the data source is a `std::vector<T>`, a `T[]` array or a `T*` pointer"
                    };
                    cx.ck.report(
                        Diagnostic::error(
                            codes::E0203,
                            src.span,
                            format!("mismatched types: `{shown}` cannot refer to a `{found}`"),
                        )
                        .with_label(format!("this is `{found}`"))
                        .with_help(help),
                    );
                    return error_expr(span);
                }
            };
            if e2 != v.elem {
                return elem_mismatch(cx, src.span, "the data source", &v.elem, &e2);
            }
            if !src.place {
                cx.ck.error(
                    codes::E0204,
                    src.span,
                    "a view must refer to a variable, not a temporary",
                    "temporary",
                    "store the data in a variable first",
                );
                return error_expr(span);
            }
            if !v.read_only
                && let Some((name, decl)) = const_root(cx, src)
            {
                cx.ck.report(
                    Diagnostic::error(
                        codes::E0205,
                        src.span,
                        format!("a writable view cannot refer to `{name}`, which is const"),
                    )
                    .with_label("const data")
                    .with_secondary(decl, "declared const here")
                    .with_help(format!(
                        "declare the view read-only: `array_view<const {}, {}>`",
                        cx.ck.show(&v.elem),
                        v.rank
                    )),
                );
                return error_expr(span);
            }
            intrinsic(Intrinsic::NewView, vec![ext, src.clone()], ty.clone(), span)
        }
        [_, extra, ..] => {
            cx.ck.report(
                Diagnostic::error(
                    codes::E0206,
                    extra.span,
                    format!("too many arguments for `{shown}`"),
                )
                .with_label("unexpected argument")
                .with_help("a view takes an extent (or sizes) and one data source"),
            );
            error_expr(span)
        }
    }
}

/// `std::vector<T>{a, b, c}`: the values converted to `elem`, in order.
pub(super) fn vector_of(
    cx: &mut FnCx<'_>,
    ty: &Type,
    elem: &Type,
    items: Vec<Expr>,
    span: Span,
) -> Expr {
    check_side(cx, Side::Host, "`std::vector`", span, "C3930", "");
    let items: Vec<Expr> = items
        .into_iter()
        .map(|e| cx.coerce(e, elem, "an element of the list"))
        .collect();
    if items.iter().any(|e| e.ty.is_error()) {
        return error_expr(span);
    }
    intrinsic(Intrinsic::VectorOf, items, ty.clone(), span)
}

/// `std::vector<T>(...)`.
pub(super) fn construct_vector(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    let Type::Vector(elem) = ty else {
        return error_expr(span);
    };
    let elem = (**elem).clone();
    let shown = cx.ck.show(ty);
    check_side(cx, Side::Host, "`std::vector`", span, "C3930", "");
    let size = |cx: &mut FnCx<'_>, n: Expr| cx.convert_scalar(n, Scalar::Long);
    let integral = |e: &Expr| matches!(&e.ty, Type::Scalar(s) if s.is_integral());
    if let [b, e] = args.as_slice()
        && let Some(source) = super::iter::range_source(cx, b, Some(e))
    {
        let Ok(source) = source else {
            return error_expr(span);
        };
        if source.ty.sequence_elem() != Some(&elem) {
            let found = source.ty.sequence_elem().cloned().unwrap_or(Type::Error);
            return elem_mismatch(cx, b.span, "the range", &elem, &found);
        }
        return source;
    }
    match args.as_slice() {
        [] => intrinsic(Intrinsic::NewVector, Vec::new(), ty.clone(), span),
        [n] if integral(n) => {
            let n = size(cx, n.clone());
            super::elements::new_sequence(cx, ty, n, span)
        }
        [n, value] if integral(n) => {
            let n = size(cx, n.clone());
            let value = cx.coerce(value.clone(), &elem, "the initial value of the elements");
            intrinsic(Intrinsic::NewVector, vec![n, value], ty.clone(), span)
        }
        [b, e]
            if iterator(b).is_some_and(|(_, end)| !end)
                && iterator(e).is_some_and(|(_, end)| end) =>
        {
            let (Some((v1, _)), Some((v2, _))) = (iterator(b), iterator(e)) else {
                return error_expr(span);
            };
            if !same_place(v1, v2) || is_reverse(b) != is_reverse(e) {
                cx.ck.error(
                    codes::E0203,
                    b.span,
                    "the iterators come from different vectors",
                    "not one vector's `begin()`, `end()`",
                    "",
                );
                return error_expr(span);
            }
            let v = read_through(b, v1.clone());
            if let Type::Container(..) = v.ty {
                if v.ty.sequence_elem() != Some(&elem) {
                    let found = v.ty.sequence_elem().cloned().unwrap_or(Type::Error);
                    return elem_mismatch(cx, b.span, "the range", &elem, &found);
                }
                return intrinsic(Intrinsic::ContainerFrom, vec![v], ty.clone(), span);
            }
            Expr {
                place: false,
                ..cx.coerce(v, ty, "the vector to copy")
            }
        }
        // `std::vector<T> v(p, q)`: the elements from `p` up to `q`, two
        // pointers (or a C array and a pointer into it) of the element type.
        [b, e] if pointer_pair(b, e) => {
            let b = decay_array(cx, b.clone());
            let e = decay_array(cx, e.clone());
            let pointee = match &b.ty {
                Type::Ptr { elem, .. } => (**elem).clone(),
                _ => Type::Error,
            };
            if pointee != elem {
                return elem_mismatch(cx, b.span, "the pointer range", &elem, &pointee);
            }
            intrinsic(Intrinsic::VectorFromPointers, vec![b, e], ty.clone(), span)
        }
        [one] => Expr {
            place: false,
            ..cx.coerce(
                one.clone(),
                ty,
                &format!("the initial value of a `{shown}`"),
            )
        },
        _ => {
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    span,
                    format!("cannot build a `{shown}` from these arguments"),
                )
                .with_label("no such constructor")
                .with_help("write `std::vector<T> v(n);` or `std::vector<T> v(n, value);`"),
            );
            error_expr(span)
        }
    }
}

/// True when `b, e` are a pointer range: two pointers (a C array counts as
/// a pointer to its first element) to one element type.
pub(super) fn pointer_pair(b: &Expr, e: &Expr) -> bool {
    let pointee = |x: &Expr| match &x.ty {
        Type::Ptr { elem, .. } => Some((**elem).clone()),
        Type::CArray(elem, _) if x.place => Some((**elem).clone()),
        _ => None,
    };
    pointee(b).is_some() && pointee(b) == pointee(e)
}

/// A C array place as a pointer to its first element; anything else as it is.
fn decay_array(cx: &mut FnCx<'_>, e: Expr) -> Expr {
    match &e.ty {
        Type::CArray(elem, _) if e.place => {
            let to = Type::Ptr {
                elem: elem.clone(),
                is_const: false,
            };
            cx.coerce(e, &to, "a pointer range")
        }
        _ => e,
    }
}

/// `concurrency::copy(...)`: between arrays and views, and from or to a vector.
pub(super) fn copy(cx: &mut FnCx<'_>, path: &ast::Path, args: Vec<Expr>, span: Span) -> Expr {
    let what = format!("`{}`", path.text());
    check_side(
        cx,
        Side::Host,
        &what,
        path.span,
        "C3930",
        "copy data on the host, before or after the kernel",
    );
    let usage = "`copy(src, dst)` between arrays and views, `copy(v.begin(), v.end(), dst)`, `copy(v.begin(), dst)` or `copy(src, v.begin())`";
    // A C array names a pointer to its first element here.
    let decay = |cx: &mut FnCx<'_>, e: Expr| match &e.ty {
        Type::CArray(elem, _) if e.place => {
            let to = Type::Ptr {
                elem: elem.clone(),
                is_const: false,
            };
            cx.coerce(e, &to, "a `copy` argument")
        }
        _ => e,
    };
    let mut args: Vec<Expr> = args.into_iter().map(|a| decay(cx, a)).collect();
    // Iterators of the program's own classes: loops over their operators.
    match args.as_slice() {
        [b, e, dst] if super::user_iter::is_user_iter(b) => {
            let Some(d) = view_ty(&dst.ty) else {
                return error_expr(span);
            };
            return match super::user_iter::gather(
                cx,
                b.clone(),
                Some(e.clone()),
                None,
                &d.elem,
                span,
            ) {
                Some(v) => copy_range_in(cx, v, dst.clone(), span),
                None => error_expr(span),
            };
        }
        [b, dst] if super::user_iter::is_user_iter(b) && view_ty(&dst.ty).is_some() => {
            let Some(d) = view_ty(&dst.ty) else {
                return error_expr(span);
            };
            let Some(n) = super::user_iter::view_size(cx, dst) else {
                return error_expr(span);
            };
            return match super::user_iter::gather(cx, b.clone(), None, Some(n), &d.elem, span) {
                Some(v) => copy_in(cx, v, dst.clone(), span),
                None => error_expr(span),
            };
        }
        [src, out] if super::user_iter::is_user_iter(out) && view_ty(&src.ty).is_some() => {
            let Some(s) = view_ty(&src.ty) else {
                return error_expr(span);
            };
            let vector = intrinsic(
                Intrinsic::ArrayToVector,
                vec![src.clone()],
                Type::Vector(Box::new(s.elem)),
                src.span,
            );
            return super::user_iter::scatter(cx, vector, out.clone(), span)
                .unwrap_or_else(|| error_expr(span));
        }
        _ => {}
    }
    // Iterators of lists and sets, and reverse iterators: a range read as
    // the elements it visits, a forward destination as its pointer.
    match args.as_slice() {
        [b, e, dst] => {
            if let Some(source) = super::iter::range_source(cx, b, Some(e)) {
                return match source {
                    Ok(v) => copy_range_in(cx, v, dst.clone(), span),
                    Err(()) => error_expr(span),
                };
            }
        }
        [src, dst] => {
            if let Some(source) = super::iter::range_source(cx, src, None) {
                return match source {
                    Ok(v) => copy_in(cx, v, dst.clone(), span),
                    Err(()) => error_expr(span),
                };
            }
            if let Some(p) = super::iter::as_destination(cx, dst, &what) {
                if p.ty.is_error() {
                    return p;
                }
                args[1] = p;
            }
        }
        _ => {}
    }
    let pointee = |e: &Expr| match &e.ty {
        Type::Ptr { elem, .. } => Some((**elem).clone()),
        _ => None,
    };
    match args.as_slice() {
        // `copy(p, q, dst)`, `copy(p, dst)`: from what pointers point to.
        [b, e, dst] if pointee(b).is_some() && pointee(b) == pointee(e) => {
            if !check_destination(cx, dst, "C2665", None) {
                return error_expr(span);
            }
            if let (Some(p), Some(d)) = (pointee(b), view_ty(&dst.ty))
                && p != d.elem
            {
                return elem_mismatch(cx, b.span, "the pointer", &d.elem, &p);
            }
            intrinsic(
                Intrinsic::Copy,
                vec![b.clone(), dst.clone(), e.clone()],
                Type::Void,
                span,
            )
        }
        [src, dst] if pointee(src).is_some() && view_ty(&dst.ty).is_some() => {
            if !check_destination(cx, dst, "C2665", None) {
                return error_expr(span);
            }
            if let (Some(p), Some(d)) = (pointee(src), view_ty(&dst.ty))
                && p != d.elem
            {
                return elem_mismatch(cx, src.span, "the pointer", &d.elem, &p);
            }
            intrinsic(
                Intrinsic::Copy,
                vec![src.clone(), dst.clone()],
                Type::Void,
                span,
            )
        }
        // `copy(src, p)`: into what a pointer points to.
        [src, dst] if view_ty(&src.ty).is_some() && pointee(dst).is_some() => {
            if matches!(dst.ty, Type::Ptr { is_const: true, .. }) {
                cx.ck.error(
                    codes::E0205,
                    dst.span,
                    "cannot copy through a pointer to `const`",
                    "read-only destination",
                    "",
                );
                return error_expr(span);
            }
            if let (Some(s), Some(p)) = (view_ty(&src.ty), pointee(dst))
                && s.elem != p
            {
                return elem_mismatch(cx, dst.span, "the pointer", &s.elem, &p);
            }
            intrinsic(
                Intrinsic::Copy,
                vec![src.clone(), dst.clone()],
                Type::Void,
                span,
            )
        }
        [b, e, dst] => {
            let pair = match (iterator(b), iterator(e)) {
                (Some((v1, false)), Some((v2, true)))
                    if same_place(v1, v2) && is_reverse(b) == is_reverse(e) =>
                {
                    Some(read_through(b, v1.clone()))
                }
                _ => None,
            };
            let Some(vector) = pair else {
                cx.ck.report(
                    Diagnostic::error(
                        codes::E0203,
                        b.span,
                        format!(
                            "{what} with three arguments copies `v.begin(), v.end()` of one vector"
                        ),
                    )
                    .with_label("not a `begin()`, `end()` pair of one vector")
                    .with_help(format!("write {usage}")),
                );
                return error_expr(span);
            };
            copy_range_in(cx, vector, dst.clone(), span)
        }
        [src, dst] => match (iterator(src), iterator(dst)) {
            (Some((vector, false)), None) => {
                let source = read_through(src, vector.clone());
                copy_in(cx, source, dst.clone(), span)
            }
            (None, Some((_, false))) if is_reverse(dst) => {
                cx.ck.error(
                    codes::E0211,
                    dst.span,
                    format!("{what} into a reverse iterator is not supported"),
                    "a reverse iterator",
                    "copy into `v.begin()` and reverse the vector afterwards with `std::reverse`",
                );
                error_expr(span)
            }
            (None, Some((_, false)))
                if matches!(
                    &dst.kind,
                    ExprKind::Intrinsic {
                        op: Intrinsic::VectorIterator {
                            read_only: true,
                            ..
                        },
                        ..
                    }
                ) =>
            {
                cx.ck.report(
                    Diagnostic::error(
                        codes::E0205,
                        dst.span,
                        format!("{what} cannot write through a const iterator"),
                    )
                    .with_label("a `const_iterator`")
                    .with_msvc("C3892")
                    .with_help("copy into `v.begin()`"),
                );
                error_expr(span)
            }
            (None, Some((vector, false))) => copy_out(cx, src.clone(), vector.clone(), span),
            (None, None) if view_ty(&src.ty).is_some() && view_ty(&dst.ty).is_some() => {
                copy_views(cx, src.clone(), dst.clone(), CopyForm::Free, span)
            }
            _ => {
                let (s, d) = (show_arg(cx, src), show_arg(cx, dst));
                cx.ck.report(
                    Diagnostic::error(
                        codes::E0203,
                        span,
                        format!("{what} cannot copy from {s} to {d}"),
                    )
                    .with_label("unsupported arguments")
                    .with_help(format!("write {usage}")),
                );
                error_expr(span)
            }
        },
        _ => {
            arity(cx, &what, &args, 2, usage, span);
            error_expr(span)
        }
    }
}

/// Reports E0205 when `dst` is a view of `const` elements or a `const`
/// array; `msvc` is the error MSVC gives for the latter (amp.h has no
/// overload taking a `const array` destination), `view_msvc` the one it
/// gives for the former, when known.
fn check_destination(
    cx: &mut FnCx<'_>,
    dst: &Expr,
    msvc: &'static str,
    view_msvc: Option<&'static str>,
) -> bool {
    if matches!(dst.ty, Type::Array(..))
        && let Some((why, at)) = cx.read_only_reason(dst)
    {
        let mut d = Diagnostic::error(
            codes::E0205,
            dst.span,
            format!("cannot copy into a `const` array: {why}"),
        )
        .with_label("read-only array")
        .with_msvc(msvc)
        .with_help("copy into an array declared without `const`");
        if let Some(at) = at {
            d = d.with_secondary(at, "declared here");
        }
        cx.ck.report(d);
        return false;
    }
    match view_ty(&dst.ty) {
        Some(v) if v.read_only => {
            let shown = cx.ck.show(&dst.ty);
            let mut d = Diagnostic::error(
                codes::E0205,
                dst.span,
                format!("cannot copy into `{shown}`: its elements are `const`"),
            )
            .with_label("read-only view")
            .with_help("copy into a view declared without `const`");
            if let Some(msvc) = view_msvc {
                d = d.with_msvc(msvc);
            }
            cx.ck.report(d);
            false
        }
        Some(_) => true,
        None => {
            let shown = cx.ck.show(&dst.ty);
            cx.ck.error(codes::E0203, dst.span, format!("mismatched types: the destination must be an `array` or `array_view`, not `{shown}`"), format!("this is `{shown}`"), "");
            false
        }
    }
}

/// How a copy between arrays and views is written, which decides the error
/// MSVC gives when the two do not match.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CopyForm {
    /// `copy(src, dst)` (and `copy_async`): among amp.h's templates, a
    /// mismatched pair fits both the one taking an iterator source and
    /// the one taking an iterator destination (C2668, ambiguous).
    Free,
    /// `src.copy_to(dst)`: a destination its parameters do not take
    /// (C2664).
    Member,
}

/// `copy(src, dst)` or `src.copy_to(dst)` between arrays and views of the
/// same element type and rank.
fn copy_views(cx: &mut FnCx<'_>, src: Expr, dst: Expr, form: CopyForm, span: Span) -> Expr {
    let mismatch = match form {
        CopyForm::Free => "C2668",
        CopyForm::Member => "C2664",
    };
    let (Some(s), Some(d)) = (view_ty(&src.ty), view_ty(&dst.ty)) else {
        let shown = cx.ck.show(&dst.ty);
        cx.ck.error(
            codes::E0203,
            dst.span,
            format!("mismatched types: expected an `array` or `array_view`, found `{shown}`"),
            format!("this is `{shown}`"),
            "",
        );
        return error_expr(span);
    };
    if s.elem != d.elem {
        let from = cx.ck.diags.len();
        let e = elem_mismatch(cx, dst.span, "the destination", &s.elem, &d.elem);
        super::name_msvc(cx, from, codes::E0203, mismatch);
        return e;
    }
    if s.rank != d.rank {
        let (a, b) = (cx.ck.show(&src.ty), cx.ck.show(&dst.ty));
        cx.ck.report(
            Diagnostic::error(
                codes::E0203,
                span,
                format!("mismatched types: cannot copy `{a}` to `{b}`: the ranks differ"),
            )
            .with_label("different ranks")
            .with_msvc(mismatch)
            .with_help("use `section` or a view of the same rank"),
        );
        return error_expr(span);
    }
    // A `const array` destination: `copy` has a template for it that
    // asserts statically; `copy_to` takes a non-const `array&`.
    let const_array = match form {
        CopyForm::Free => "C2338",
        CopyForm::Member => "C2664",
    };
    if !check_destination(cx, &dst, const_array, Some(mismatch)) {
        return error_expr(span);
    }
    intrinsic(Intrinsic::Copy, vec![src, dst], Type::Void, span)
}

/// `copy(first, last, dst)`: `Copy [elements, dst, 1]`, the elements of
/// the whole range, which C++ AMP checks against the destination's size.
fn copy_range_in(cx: &mut FnCx<'_>, elements: Expr, dst: Expr, span: Span) -> Expr {
    let mut e = copy_in(cx, elements, dst, span);
    if let ExprKind::Intrinsic {
        op: Intrinsic::Copy,
        args,
    } = &mut e.kind
    {
        args.push(int_const(1, span));
    }
    e
}

/// `copy(v.begin()[, v.end()], dst)`: `Copy [vector, dst]`.
fn copy_in(cx: &mut FnCx<'_>, vector: Expr, dst: Expr, span: Span) -> Expr {
    if !check_destination(cx, &dst, "C2665", None) {
        return error_expr(span);
    }
    if let (Some(e), Some(d)) = (vector.ty.sequence_elem(), view_ty(&dst.ty))
        && *e != d.elem
    {
        let e = e.clone();
        return elem_mismatch(cx, vector.span, "the container", &d.elem, &e);
    }
    intrinsic(Intrinsic::Copy, vec![vector, dst], Type::Void, span)
}

/// `copy(src, v.begin())`: `Copy [src, vector]`.
fn copy_out(cx: &mut FnCx<'_>, src: Expr, vector: Expr, span: Span) -> Expr {
    let Some(s) = view_ty(&src.ty) else {
        let shown = cx.ck.show(&src.ty);
        cx.ck.error(
            codes::E0203,
            src.span,
            format!(
                "mismatched types: the source must be an `array` or `array_view`, not `{shown}`"
            ),
            format!("this is `{shown}`"),
            "",
        );
        return error_expr(span);
    };
    if let Some(e) = vector.ty.sequence_elem()
        && *e != s.elem
    {
        let e = e.clone();
        return elem_mismatch(cx, vector.span, "the container", &s.elem, &e);
    }
    if let Type::Container(kind, _) = vector.ty
        && kind.is_associative()
    {
        cx.ck.error(
            codes::E0205,
            vector.span,
            format!(
                "cannot copy into a `std::{}`: its elements are `const`",
                kind.name()
            ),
            "read-only elements",
            "copy into a `std::vector`, then insert its elements",
        );
        return error_expr(span);
    }
    cx.check_writable(&vector, "copied into");
    intrinsic(Intrinsic::Copy, vec![src, vector], Type::Void, span)
}

/// `copy<T, N>(src, dst)` and `copy_async<T, N>(src, dst)`: the overloads
/// whose template parameters are the element type and the rank take an
/// array or a view on both sides (the iterator forms take the iterator
/// type first, so explicit `<T, N>` leaves them out). Arguments no such
/// overload accepts are MSVC's C2665; the others are copied as without
/// the explicit arguments.
pub(crate) fn explicit_copy(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    targs: &[ast::TemplateArg],
    args: &[ast::Expr],
    span: Span,
) -> Expr {
    let lowered: Vec<Expr> = args.iter().map(|a| cx.expr(a)).collect();
    if lowered.iter().any(|a| a.ty.is_error()) {
        return error_expr(span);
    }
    let name = path.last();
    let (elem, rank) = match targs {
        [ast::TemplateArg::Type(t), ast::TemplateArg::Expr(n)] => {
            let d = cx.resolve(&t.specs, &t.modifiers, &[]);
            let Some(n) = cx.eval_const(n) else {
                return error_expr(span);
            };
            if d.ty.is_error() {
                return error_expr(span);
            }
            (d.ty, n)
        }
        _ => {
            cx.ck.error(
                codes::E0213,
                span,
                format!("`{name}` takes an element type and a rank as template arguments"),
                "invalid template arguments",
                format!("write `{name}<T, N>(src, dst)`, or leave the arguments out"),
            );
            return error_expr(span);
        }
    };
    // The array or view of `elem` and `rank` an argument is, and whether
    // its elements may be written.
    let shape = |ty: &Type| match ty {
        Type::Array(e, r) => Some((e.as_ref().clone(), i64::from(*r), true)),
        Type::ArrayView {
            elem,
            rank,
            read_only,
        } => Some((elem.as_ref().clone(), i64::from(*rank), !read_only)),
        _ => None,
    };
    let accepted = match lowered.as_slice() {
        [src, dst] => match (shape(&src.ty), shape(&dst.ty)) {
            (Some((se, sr, _)), Some((de, dr, writable))) => {
                let dst_const =
                    matches!(dst.ty, Type::Array(..)) && cx.read_only_reason(dst).is_some();
                se == elem && de == elem && sr == rank && dr == rank && writable && !dst_const
            }
            _ => false,
        },
        _ => false,
    };
    if !accepted {
        let shown: Vec<String> = lowered.iter().map(|a| cx.ck.show(&a.ty)).collect();
        cx.ck.report(
            Diagnostic::error(
                codes::E0240,
                span,
                format!(
                    "no overload of `{name}` with these template arguments accepts `({})`",
                    shown.join(", ")
                ),
            )
            .with_label("no overload accepts these arguments")
            .with_help(format!(
                "`{name}<T, N>` copies from an array or view of `T` and rank `N` into a writable one; leave the template arguments out for the other forms"
            )),
        );
        return error_expr(span);
    }
    if name == "copy_async" {
        super::future::copy_async(cx, path, lowered, span)
    } else {
        copy(cx, path, lowered, span)
    }
}
