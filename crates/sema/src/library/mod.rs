//! The built-in library: `concurrency` (extent, index, tiled_extent,
//! tiled_index, tile_barrier, array, array_view, copy, atomics, fences),
//! `fast_math`/`precise_math`/`<cmath>`/`direct3d`, `std::vector` and
//! `std::cout` with `<iomanip>`. Every entry point types its operands and
//! lowers the use to an `Intrinsic` (or to plain operations on intrinsics), or
//! reports what is wrong.
//!
//! The parts live in submodules:
//! - [`stream`]: `std::cout`, `<<`, manipulators;
//! - [`shape`]: `index`, `extent`, `tiled_extent`, `tiled_index`, `tile_barrier`;
//! - [`container`]: `array`, `array_view`, `std::vector`, `copy`;
//! - [`math`]: `<cmath>`, `fast_math`, `precise_math`, `direct3d`, `std::min`/`max`;
//! - [`sync`]: atomics, barriers and fences;
//! - [`device`]: `accelerator` and `accelerator_view`;
//! - [`algorithm`]: `<algorithm>`/`<numeric>` on vector ranges, `std::swap`;
//! - [`stdcont`]: `std::deque`, `std::list`, the sets.
//!
//! # Representations chosen here
//!
//! The typed program has no node for a few library values; this module uses
//! existing nodes for them, and engines must know these conventions:
//! - `std::cout` is `Const(Int(0))` of type `Type::Ostream`, a place; only the
//!   first operand of `Intrinsic::Print` has that type, and engines may ignore it.
//! - `t_idx.barrier` is `Convert(t_idx)` of type `Type::TileBarrier`: the
//!   barrier of the tile of that tiled index.
//! - A `tiled_extent` used as an `extent` is `Convert(te)` of type `Type::Extent(N)`.
//! - `index == index` is `ShapeArith(Eq)` (and `!=` `ShapeArith(Ne)`) of type
//!   `bool`: all components equal, or any differs.
//! - `Intrinsic::Atomic` takes the location itself (a place) as its first operand.
//! - The iterators `v.begin()`/`v.end()` are arguments of `array`
//!   constructors and of `copy`, which take the vector itself (see
//!   [`container::iterator`]), and of the algorithms, which take a vector
//!   and positions (see [`algorithm`]).

mod algorithm;
mod clib;
pub(crate) mod container;
mod device;
mod elements;
pub(crate) mod headers;
mod iter;
mod user_iter;

pub(crate) use device::access_type_enum;
pub(crate) mod future;
mod limits;
mod math;
pub(crate) mod random;
mod shape;
pub(crate) mod sstream;
mod stdcont;
mod stream;
mod sync;
pub(crate) mod task;
pub(crate) mod tuple;
pub(crate) mod wstring;

#[cfg(test)]
mod tests;

use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Intrinsic, Rank, Scalar, Type};
use tessera_syntax::ast::{self, BinaryOp, UnaryOp};

/// The namespace a library name is qualified with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ns {
    /// No qualifier (names brought in by `using namespace`, which Tessera does not track).
    Unqualified,
    /// `::name`: the C library's global names.
    Global,
    /// `std::`
    Std,
    /// `concurrency::` / `Concurrency::`
    Amp,
    /// `[concurrency::]fast_math::`
    FastMath,
    /// `[concurrency::]precise_math::`
    PreciseMath,
    /// `[concurrency::]direct3d::`
    Direct3d,
    /// Anything else: no library name lives there.
    Other,
}

/// The namespace of a qualified name.
fn namespace(path: &ast::Path) -> Ns {
    let n = path.segments.len();
    let quals: Vec<&str> = path.segments[..n.saturating_sub(1)]
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    let amp = |s: &str| s == "concurrency" || s == "Concurrency";
    let sub = |s: &str| match s {
        "fast_math" => Ns::FastMath,
        "precise_math" => Ns::PreciseMath,
        "direct3d" => Ns::Direct3d,
        _ => Ns::Other,
    };
    match quals.as_slice() {
        [] if path.global => Ns::Global,
        [] => Ns::Unqualified,
        ["std"] => Ns::Std,
        [a] if amp(a) => Ns::Amp,
        [s] => sub(s),
        [a, s] if amp(a) => sub(s),
        _ => Ns::Other,
    }
}

/// Where a library facility can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// Only on the host (`restrict(cpu)` in MSVC's headers).
    Host,
    /// Only in kernels (`restrict(amp)`).
    Amp,
}

/// Reports the use of `what` where it cannot run (E0300, E0301); `msvc` is the
/// MSVC code for the note, `help` how to fix it. False when it reported.
fn check_side(
    cx: &mut FnCx<'_>,
    side: Side,
    what: &str,
    span: Span,
    msvc: &'static str,
    help: &str,
) -> bool {
    let here = cx.restriction();
    let (code, message, label) = match side {
        Side::Host if here.amp => (
            codes::E0300,
            format!("{what} runs only on the host, but is used in amp code"),
            if here.cpu {
                "this function is `restrict(amp, cpu)`: it may also run on the accelerator"
            } else {
                "used in `restrict(amp)` code"
            },
        ),
        Side::Amp if here.cpu => (
            codes::E0301,
            format!("{what} runs only on the accelerator, but is used in host code"),
            if here.amp {
                "this function is `restrict(amp, cpu)`: it may also run on the host"
            } else {
                "used in host code"
            },
        ),
        _ => return true,
    };
    let mut d = Diagnostic::error(code, span, message)
        .with_label(label)
        .with_msvc(msvc);
    if !help.is_empty() {
        d = d.with_help(help);
    }
    cx.ck.report(d);
    false
}

/// An expression node.
fn mk(kind: ExprKind, ty: Type, place: bool, span: Span) -> Expr {
    Expr {
        kind,
        ty,
        place,
        span,
    }
}

/// A library operation yielding a value (not a place).
fn intrinsic(op: Intrinsic, args: Vec<Expr>, ty: Type, span: Span) -> Expr {
    mk(ExprKind::Intrinsic { op, args }, ty, false, span)
}

/// An `int` constant.
fn int_const(v: i64, span: Span) -> Expr {
    mk(ExprKind::Const(Const::Int(v)), Type::INT, false, span)
}

/// The first (`last` false) or last element of a vector, deque or list
/// `base` of elements `elem`, as a place: `front()` and `back()`. The last
/// is the element at `size() - 1`, which names `base` twice: it must be
/// [`is_pure`] (E0211 otherwise). An empty container has neither: a
/// run-time error, where C++ leaves it undefined.
fn end_element(cx: &mut FnCx<'_>, base: Expr, elem: Type, last: bool, span: Span) -> Expr {
    if last && !is_pure(&base) {
        cx.ck.error(
            codes::E0211,
            base.span,
            "`back()` of a temporary container is not supported",
            "temporary container",
            "store the container in a variable first",
        );
        return crate::cx::error_expr(span);
    }
    let ulong = Type::Scalar(Scalar::ULong);
    let index = if last {
        let size = intrinsic(
            Intrinsic::VectorSize,
            vec![base.clone()],
            ulong.clone(),
            span,
        );
        let one = mk(ExprKind::Const(Const::Int(1)), ulong.clone(), false, span);
        mk(
            ExprKind::Binary {
                op: tessera_ir::BinOp::Sub,
                lhs: Box::new(size),
                rhs: Box::new(one),
            },
            ulong,
            false,
            span,
        )
    } else {
        mk(ExprKind::Const(Const::Int(0)), ulong, false, span)
    };
    element_place(cx, base, index, elem, span)
}

/// Element `index` of a vector or deque `base` of elements `elem`, as a
/// place (bounds-checked when it runs): `v[i]`, `front()`, `back()`.
fn element_place(cx: &mut FnCx<'_>, base: Expr, index: Expr, elem: Type, span: Span) -> Expr {
    let index = cx.integral_index(index);
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::VectorElement,
            args: vec![base, index],
        },
        elem,
        true,
        span,
    )
}

/// True for an expression that can be evaluated twice with the same result
/// and no side effect (variables, constants, members and elements of them).
/// Lowerings that need an operand twice (`idx += 1` as `idx = idx + 1`)
/// require it.
pub(crate) fn is_pure(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Capture(_)
        | ExprKind::Str(_) => true,
        ExprKind::Field { base, .. } | ExprKind::Convert(base) => is_pure(base),
        ExprKind::Element { base, index } => is_pure(base) && is_pure(index),
        ExprKind::Unary { operand, .. } => is_pure(operand),
        ExprKind::Binary { lhs, rhs, .. } => is_pure(lhs) && is_pure(rhs),
        ExprKind::Intrinsic { op, args } => {
            matches!(
                op,
                Intrinsic::MakeShape
                    | Intrinsic::ShapeComponent
                    | Intrinsic::ShapeArith(_)
                    | Intrinsic::TiledIndexPart(_)
                    | Intrinsic::ViewExtent
                    | Intrinsic::ExtentSize
                    | Intrinsic::VectorSize
                    | Intrinsic::VectorElement
                    | Intrinsic::VectorAt
                    | Intrinsic::ViewElement
                    | Intrinsic::ViewProject
                    | Intrinsic::IterBase
                    | Intrinsic::AsIter
            ) && args.iter().all(is_pure)
        }
        _ => false,
    }
}

/// Converts an integral value to `int`; reports E0203 for anything else.
/// `what` names the value ("a tile size").
fn to_int(cx: &mut FnCx<'_>, e: Expr, what: &str) -> Expr {
    match e.ty.scalar() {
        Some(s) if s.is_integral() => cx.convert_scalar(e, Scalar::Int),
        _ if e.ty.is_error() => e,
        _ => {
            let shown = cx.ck.show(&e.ty);
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    e.span,
                    format!("mismatched types: {what} must be an integer, not `{shown}`"),
                )
                .with_label(format!("this is `{shown}`"))
                .with_help(
                    if e.ty.scalar().is_some() {
                        "convert it: `(int)x`"
                    } else {
                        ""
                    }
                    .to_string(),
                ),
            );
            error_expr(e.span)
        }
    }
}

/// `arg` converted to the number type `to`, as C++ converts an argument to
/// a numeric parameter; `None` after E0203 when it is no number. `what`
/// names the callee, `takes` says what it takes ("a count and a delimiter").
fn number_arg(
    cx: &mut FnCx<'_>,
    what: &str,
    takes: &str,
    arg: Expr,
    to: tessera_ir::Scalar,
) -> Option<Expr> {
    if arg.ty.scalar().is_none() {
        let shown = cx.ck.show(&arg.ty);
        cx.ck.error(
            codes::E0203,
            arg.span,
            format!("mismatched types: {what} takes {takes}, not `{shown}`"),
            format!("this is `{shown}`"),
            "",
        );
        return None;
    }
    Some(cx.convert_scalar(arg, to))
}

/// Reports E0206 unless `args` has `want` elements. `what` names the callee,
/// `takes` says what it takes ("a location and a value").
fn arity(
    cx: &mut FnCx<'_>,
    what: &str,
    args: &[Expr],
    want: usize,
    takes: &str,
    span: Span,
) -> bool {
    if args.len() == want {
        return true;
    }
    let plural = if want == 1 { "" } else { "s" };
    let mut d = Diagnostic::error(
        codes::E0206,
        span,
        format!(
            "{what} takes {want} argument{plural}, but {} were given",
            args.len()
        ),
    )
    .with_label("wrong number of arguments");
    if !takes.is_empty() {
        d = d.with_note(format!("it takes {takes}"));
    }
    cx.ck.report(d);
    false
}

/// Names `msvc` as the MSVC error of the errors with code `of` reported
/// since the checker held `from` diagnostics, those that name none yet: a
/// mistake reported by a shared check (an implicit conversion, an operator)
/// that MSVC words after the library function it happened in (C2664: an
/// argument of a constructor or member function; C2679: the right operand
/// of an operator).
fn name_msvc(cx: &mut FnCx<'_>, from: usize, of: tessera_diagnostics::Code, msvc: &'static str) {
    for d in cx.ck.diags.iter_mut().skip(from) {
        if d.is_error() && d.code == of && d.msvc.is_none() {
            *d = d.clone().with_msvc(msvc);
        }
    }
}

/// `e` converted implicitly to the parameter type `to` of a library
/// constructor or member function, as [`FnCx::coerce`] does; a mismatch
/// is MSVC's C2664 (an argument that does not convert to the parameter).
fn coerce_argument(cx: &mut FnCx<'_>, e: Expr, to: &Type, what: &str) -> Expr {
    let from = cx.ck.diags.len();
    let converted = cx.coerce(e, to, what);
    name_msvc(cx, from, codes::E0203, "C2664");
    converted
}

/// The note of an error MSVC reports through a `static_assert` of its
/// `<amp.h>` (C2338), with the diagnostic standing for that code.
fn amp_static_assert(d: Diagnostic) -> Diagnostic {
    d.with_note("MSVC reports this as C2338 (a `static_assert` in `<amp.h>`)")
        .standing_for("C2338")
}

/// Reports E0207: `base` has no member `name`; `help` lists what it has.
fn no_member(cx: &mut FnCx<'_>, ty: &Type, name: &ast::Ident, help: &str) -> Expr {
    let shown = cx.ck.show(ty);
    cx.ck.error(
        codes::E0207,
        name.span,
        format!("`{shown}` has no member `{}`", name.name),
        "unknown member",
        help,
    );
    error_expr(name.span)
}

/// The rank of an index-like or extent-like type.
fn shape_rank(ty: &Type) -> Option<Rank> {
    match ty {
        Type::Index(n) | Type::Extent(n) => Some(*n),
        Type::TiledExtent(s) | Type::TiledIndex(s) => Some(s.rank),
        _ => None,
    }
}

/// A `tiled_extent` seen as its extent (`Convert` to `extent<N>`); anything
/// else unchanged.
fn untile(e: Expr) -> Expr {
    match &e.ty {
        Type::TiledExtent(s) => {
            let (ty, span) = (Type::Extent(s.rank), e.span);
            mk(ExprKind::Convert(Box::new(e)), ty, false, span)
        }
        _ => e,
    }
}

/// A `tiled_index` seen as its global index; anything else unchanged.
fn untile_index(cx: &mut FnCx<'_>, e: Expr) -> Expr {
    match &e.ty {
        Type::TiledIndex(s) => {
            let ty = Type::Index(s.rank);
            cx.coerce(e, &ty, "an index")
        }
        _ => e,
    }
}

/// `e` as an `extent<N>`: itself, or a `tiled_extent` seen as its extent.
fn as_extent(e: Expr) -> Option<Expr> {
    matches!(e.ty, Type::Extent(_) | Type::TiledExtent(_)).then(|| untile(e))
}

/// `e` as an `index<N>`: itself, or a `tiled_index` seen as its global index.
fn as_index(cx: &mut FnCx<'_>, e: Expr) -> Option<Expr> {
    matches!(e.ty, Type::Index(_) | Type::TiledIndex(_)).then(|| untile_index(cx, e))
}

/// True for library functions whose first argument is the address of a
/// location (the atomics): the caller passes the place itself.
pub fn takes_address(path: &ast::Path) -> bool {
    matches!(namespace(path), Ns::Unqualified | Ns::Amp) && sync::atomic_op(path.last()).is_some()
}

/// A library name used as a value (`std::cout`, `std::endl`), if it is one.
pub fn name(cx: &mut FnCx<'_>, path: &ast::Path) -> Option<Expr> {
    if !headers::declared(cx.ck, path) {
        return Some(error_expr(path.span));
    }
    if let Some(e) = stream::name(cx, path)
        .or_else(|| clib::name(cx, path))
        .or_else(|| device::name(cx, path))
    {
        return Some(e);
    }
    // A C macro used without its header: say which header defines it.
    let header = (path.segments.len() == 1)
        .then(|| tessera_syntax::preprocess::macro_header(path.last()))
        .flatten()?;
    cx.ck.error(
        codes::E0200,
        path.span,
        format!("cannot find `{}` in this scope", path.text()),
        "not declared",
        format!(
            "`{}` is a macro of `<{header}>`: add `#include <{header}>`",
            path.last()
        ),
    );
    Some(error_expr(path.span))
}

/// `base[index]` on a library type.
pub fn subscript(cx: &mut FnCx<'_>, base: Expr, index: Expr, span: Span) -> Expr {
    if index.ty.is_error() {
        return error_expr(span);
    }
    match &base.ty {
        Type::Index(_) | Type::Extent(_) | Type::TiledExtent(_) | Type::TiledIndex(_) => {
            shape::subscript(cx, base, index, span)
        }
        Type::Array(..) | Type::ArrayView { .. } | Type::Vector(_) => {
            container::subscript(cx, base, index, span)
        }
        Type::Container(..) => stdcont::subscript(cx, base, index, span),
        _ => {
            let shown = cx.ck.show(&base.ty);
            cx.ck.error(
                codes::E0210,
                span,
                format!("`{shown}` cannot be indexed"),
                "not indexable",
                "",
            );
            error_expr(span)
        }
    }
}

/// `++`/`--` on a library type (`index<N>`), if it is one.
pub fn inc_dec(cx: &mut FnCx<'_>, target: &Expr, op: UnaryOp, span: Span) -> Option<Expr> {
    match target.ty {
        Type::Index(_) | Type::Extent(_) => Some(shape::inc_dec(cx, target.clone(), op, span)),
        Type::Iter(_) => iter::inc_dec(cx, target, op, span),
        _ => None,
    }
}

/// An iterator as a value of its own: a pointer to its element (see
/// `algorithm::materialize`); other expressions unchanged.
pub fn materialize_iterator(cx: &mut FnCx<'_>, e: Expr) -> Expr {
    algorithm::materialize(cx, e)
}

/// The implicit conversion of an `array` to an `array_view` of its element
/// type (writable or `const`) and rank (`array_view`'s converting
/// constructor), or `e` back when `to` is no such view.
pub fn coerce_array_to_view(cx: &mut FnCx<'_>, e: Expr, to: &Type) -> Result<Expr, Expr> {
    match (&e.ty, to) {
        (
            Type::Array(elem, rank),
            Type::ArrayView {
                elem: e2, rank: r2, ..
            },
        ) if elem == e2 && rank == r2 => {
            let span = e.span;
            Ok(container::view_of_array(cx, e, to, span))
        }
        _ => Err(e),
    }
}

/// The implicit conversion of an iterator to an iterator type
/// (`iterator` to `const_iterator`, `c.begin()` to a stored iterator), or
/// `e` back when there is none.
pub fn coerce_iterator(cx: &mut FnCx<'_>, e: Expr, to: &Type) -> Result<Expr, Expr> {
    if !matches!(to, Type::Iter(_)) {
        return Err(e);
    }
    let e = if matches!(e.ty, Type::Iterator(_)) {
        algorithm::materialize(cx, e)
    } else {
        e
    };
    if &e.ty == to || e.ty.is_error() {
        return Ok(e);
    }
    iter::coerce(e, to)
}

/// `*it` on an iterator.
pub fn deref(cx: &mut FnCx<'_>, it: Expr, span: Span) -> Expr {
    if let Type::Iter(_) = it.ty {
        return iter::deref(cx, it, span);
    }
    algorithm::deref(cx, it, span)
}

/// A unary operator on a library type, if it is one. None is defined (C++ AMP
/// has no unary `-` on indices), so the caller reports the operand.
pub fn unary(_cx: &mut FnCx<'_>, _e: &Expr, _op: UnaryOp, _span: Span) -> Option<Expr> {
    None
}

/// A binary operator with a library operand (`std::cout << x`, index arithmetic), if it is one.
pub fn binary(cx: &mut FnCx<'_>, op: BinaryOp, l: &Expr, r: &Expr, span: Span) -> Option<Expr> {
    if l.ty.is_error() || r.ty.is_error() {
        return None;
    }
    if let Some(e) = iter::binary(cx, op, l, r, span) {
        return Some(e);
    }
    if let Some(e) = algorithm::binary(cx, op, l, r, span) {
        return Some(e);
    }
    if let Some(it) = [l, r]
        .into_iter()
        .find(|e| container::iterator(e).is_some())
    {
        container::iterator_misuse(cx, it);
        return Some(error_expr(span));
    }
    if let Some(file) = [l, r].into_iter().find(|e| clib::c_stream(e).is_some()) {
        cx.ck.error(
            codes::E0210,
            file.span,
            "`stdout` and `stderr` are C streams: `<<` does not write to them",
            "a C `FILE*`",
            "use `std::cout << x`, or `fprintf(stderr, \"%d\\n\", x)`",
        );
        return Some(error_expr(span));
    }
    if op == BinaryOp::Shr && sstream::is_string_stream(&l.ty) {
        return Some(sstream::read(cx, l.clone(), r.clone(), span));
    }
    if matches!(
        l.ty,
        Type::Ostream | Type::WideOstream | Type::StringStream(_)
    ) {
        return Some(stream::shift(cx, op, l.clone(), r.clone(), span));
    }
    if device::is_device(&l.ty) || device::is_device(&r.ty) {
        return Some(device::compare(cx, op, l.clone(), r.clone(), span));
    }
    if wstring::is_wide(&l.ty) || wstring::is_wide(&r.ty) {
        return Some(wstring::compare(cx, op, l.clone(), r.clone(), span));
    }
    if shape_rank(&l.ty).is_some() || shape_rank(&r.ty).is_some() {
        return Some(shape::binary(cx, op, l.clone(), r.clone(), span));
    }
    None
}

/// Assignment to a library-typed place, if it is one: compound assignment of
/// indices and extents (`idx += 1`). Plain assignment (array to vector
/// included) is left to the caller's conversion rules.
pub fn assign(
    cx: &mut FnCx<'_>,
    op: Option<BinaryOp>,
    target: &Expr,
    value: &Expr,
    span: Span,
) -> Option<Expr> {
    if value.ty.is_error() || target.ty.is_error() {
        return None;
    }
    if let (Some(op), Type::Iter(_)) = (op, &target.ty) {
        return iter::compound_assign(cx, op, target, value, span);
    }
    // `it = c.begin()` stores the iterator (converted by the caller).
    let stored = matches!(target.ty, Type::Ptr { .. } | Type::Iter(_)) && op.is_none();
    if container::iterator(value).is_some() && !stored {
        container::iterator_misuse(cx, value);
        return Some(error_expr(span));
    }
    // `arr = view`: `array`'s assignment from a view copies the view's
    // elements into the array (its extent stays; `copy` checks they match),
    // and yields the array.
    if let (
        None,
        Type::Array(elem, rank),
        Type::ArrayView {
            elem: e2, rank: r2, ..
        },
    ) = (op, &target.ty, &value.ty)
        && elem == e2
        && rank == r2
    {
        if !check_side(
            cx,
            Side::Host,
            "`array`'s assignment from an `array_view`",
            span,
            "C3930",
            "assign on the host, or copy element by element in the kernel",
        ) {
            return Some(error_expr(span));
        }
        cx.check_writable(target, "assigned");
        if !is_pure(target) {
            cx.ck.error(
                codes::E0211,
                target.span,
                "assigning a view to a computed `array` is not supported",
                "computed here",
                "assign to an array variable",
            );
            return Some(error_expr(span));
        }
        let copy = intrinsic(
            Intrinsic::Copy,
            vec![value.clone(), target.clone()],
            Type::Void,
            span,
        );
        return Some(mk(
            ExprKind::Comma {
                first: Box::new(copy),
                second: Box::new(target.clone()),
            },
            target.ty.clone(),
            true,
            span,
        ));
    }
    match (op, &target.ty) {
        (Some(op), Type::Index(_) | Type::Extent(_)) => Some(shape::compound_assign(
            cx,
            op,
            target.clone(),
            value.clone(),
            span,
        )),
        // `idx = other`, `view = other`: the class's `operator=` takes
        // only its own type (and what converts to it, as a writable view to
        // a view of `const` elements); a value of another type is a right
        // operand no `operator=` takes (C2679). An array and a view of it
        // assign to each other in C++ AMP, so those are left, with the rest,
        // to the caller's plain assignment.
        (None, Type::Index(_) | Type::Extent(_) | Type::Array(..) | Type::ArrayView { .. })
            if value.ty != target.ty
                && !matches!(
                    (&target.ty, &value.ty),
                    (Type::Array(..), Type::ArrayView { .. })
                        | (Type::ArrayView { .. }, Type::Array(..))
                ) =>
        {
            cx.check_writable(target, "assigned");
            let ty = target.ty.clone();
            let from = cx.ck.diags.len();
            let value = cx.coerce(value.clone(), &ty, "the assigned value");
            name_msvc(cx, from, codes::E0203, "C2679");
            Some(mk(
                ExprKind::Assign {
                    target: Box::new(target.clone()),
                    value: Box::new(value),
                },
                ty,
                true,
                span,
            ))
        }
        _ => None,
    }
}

/// Construction of a library type from a braced list (`std::vector<int>
/// v = {3, 1, 2};`): the containers take the list's values as their
/// elements (their initializer-list constructors win, so `{5}` is one
/// element); every other type takes them as constructor arguments.
pub fn construct_braced(cx: &mut FnCx<'_>, ty: &Type, items: Vec<Expr>, span: Span) -> Expr {
    if items.iter().any(|a| a.ty.is_error()) || ty.is_error() {
        return error_expr(span);
    }
    match ty {
        Type::Vector(elem) => container::vector_of(cx, ty, elem, items, span),
        Type::Container(_, elem) => {
            let vector = Type::Vector(elem.clone());
            let source = container::vector_of(cx, &vector, elem, items, span);
            if source.ty.is_error() {
                return source;
            }
            intrinsic(Intrinsic::ContainerFrom, vec![source], ty.clone(), span)
        }
        _ => construct(cx, ty, items, span),
    }
}

/// Construction of a library type from arguments (`extent<2>(4, 6)`).
pub fn construct(cx: &mut FnCx<'_>, ty: &Type, args: Vec<Expr>, span: Span) -> Expr {
    if args.iter().any(|a| a.ty.is_error()) || ty.is_error() {
        return error_expr(span);
    }
    match ty {
        Type::Index(_) | Type::Extent(_) => shape::construct(cx, ty, args, span),
        Type::TiledExtent(_) | Type::TiledIndex(_) | Type::TileBarrier => {
            shape::construct_tiled(cx, ty, args, span)
        }
        Type::Array(..) => container::construct_array(cx, ty, args, span),
        Type::ArrayView { .. } => container::construct_view(cx, ty, args, span),
        Type::Vector(_) => container::construct_vector(cx, ty, args, span),
        Type::Container(..) => stdcont::construct(cx, ty, args, span),
        Type::Accelerator | Type::AcceleratorView => device::construct(cx, ty, args, span),
        Type::WideStr => wstring::construct(cx, args, span),
        Type::StringStream(kind) => sstream::construct(cx, *kind, args, span),
        _ => {
            let shown = cx.ck.show(ty);
            cx.ck.error(
                codes::E0203,
                span,
                format!("cannot build a `{shown}` from these arguments"),
                "no constructor",
                "",
            );
            error_expr(span)
        }
    }
}

/// A data member of a library type (`t.local`, `view.extent`).
pub fn member(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    template_args: Option<&[ast::TemplateArg]>,
    span: Span,
) -> Expr {
    if template_args.is_some() {
        cx.ck.error(
            codes::E0213,
            name.span,
            format!(
                "`{}` is a data member and takes no template arguments",
                name.name
            ),
            "template arguments on a data member",
            "remove the `<...>`",
        );
        return error_expr(span);
    }
    match &base.ty {
        Type::Index(_)
        | Type::Extent(_)
        | Type::TiledExtent(_)
        | Type::TiledIndex(_)
        | Type::TileBarrier => shape::member(cx, base, name, span),
        Type::Array(..) | Type::ArrayView { .. } | Type::Vector(_) => {
            container::member(cx, base, name, span)
        }
        Type::Container(..) => stdcont::member(cx, base, name),
        Type::Accelerator | Type::AcceleratorView => device::member(cx, base, name, span),
        other => {
            let other = other.clone();
            no_member(cx, &other, name, "")
        }
    }
}

/// A method call on a library type (`view.synchronize()`, `e.tile<2, 2>()`).
pub fn method(
    cx: &mut FnCx<'_>,
    base: Expr,
    name: &ast::Ident,
    template_args: Option<&[ast::TemplateArg]>,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    if args.iter().any(|a| a.ty.is_error()) {
        return error_expr(span);
    }
    if name.name == "reinterpret_as" && matches!(&base.ty, Type::Array(..) | Type::ArrayView { .. })
    {
        return container::reinterpret_as(cx, base, name, template_args, args, span);
    }
    if template_args.is_some() && name.name != "tile" {
        cx.ck.error(
            codes::E0213,
            name.span,
            format!("`{}` takes no template arguments", name.name),
            "unexpected template arguments",
            "remove the `<...>`",
        );
        return error_expr(span);
    }
    match &base.ty {
        Type::Index(_)
        | Type::Extent(_)
        | Type::TiledExtent(_)
        | Type::TiledIndex(_)
        | Type::TileBarrier => shape::method(cx, base, name, template_args, args, span),
        Type::Array(..) | Type::ArrayView { .. } | Type::Vector(_) => {
            container::method(cx, base, name, args, span)
        }
        Type::Container(..) => stdcont::method(cx, base, name, args, span),
        Type::Accelerator | Type::AcceleratorView => device::method(cx, base, name, args, span),
        Type::WideStr => wstring::method(cx, base, name, &args, span),
        Type::Ostream | Type::WideOstream | Type::StringStream(_)
            if stream::is_format_member(&name.name) =>
        {
            stream::format_member(cx, base, name, args, span)
        }
        Type::StringStream(_) | Type::Ostream | Type::WideOstream => {
            sstream::method(cx, base, name, args, span)
        }
        other => {
            let other = other.clone();
            no_member(cx, &other, name, "")
        }
    }
}

/// True when the built-in library runs algorithm `std::name` called with
/// `args` itself, rather than the template of `<algorithm>` of that name.
pub fn builtin_algorithm_form(name: &str, args: &[Expr]) -> bool {
    algorithm::is_builtin(name) && !algorithm::source_form(name, args)
}

/// A call of a library function by name (`sqrt(x)`, `atomic_fetch_add(&a, 1)`, `copy(a, v)`).
pub fn call(cx: &mut FnCx<'_>, path: &ast::Path, args: Vec<Expr>, span: Span) -> Expr {
    if !headers::declared(cx.ck, path) {
        return error_expr(span);
    }
    if args.iter().any(|a| a.ty.is_error()) {
        // `printf("...")` in a kernel: the literal was refused, the call is too.
        if clib::is_clib(path, namespace(path)) {
            clib::host_only(cx, path);
        }
        return error_expr(span);
    }
    if limits::is_limits(path) {
        return limits::call(cx, path, &args, span);
    }
    if let Some(e) = device::call(cx, path, &args, span) {
        return e;
    }
    if let Some(e) = stream::sync_with_stdio(cx, path, &args, span) {
        return e;
    }
    let ns = namespace(path);
    let name = path.last();
    let std_like = matches!(ns, Ns::Std | Ns::Unqualified);
    let amp_like = matches!(ns, Ns::Amp | Ns::Unqualified);
    if std_like && let Some(m) = stream::manipulator_fn(name) {
        return stream::manipulator_call(cx, path, m, args, span);
    }
    if std_like && name == "getline" {
        return sstream::getline(cx, args, span);
    }
    if std_like && let Some(e) = sstream::string_to_number(cx, name, &args, span) {
        return e;
    }
    if std_like && (name == "min" || name == "max") {
        return math::std_min_max(cx, path, args, span);
    }
    if std_like && name == "move" {
        return std_move(cx, path, args, span);
    }
    if amp_like && name == "copy_async" {
        return future::copy_async(cx, path, args, span);
    }
    if amp_like && name == "create_task" && !cx.is_function_template(name) {
        return task::create_task(cx, path, args, span);
    }
    if std_like && name == "make_tuple" {
        return tuple::make_tuple(cx, path, args, span);
    }
    if amp_like && name == "copy" {
        return container::copy(cx, path, args, span);
    }
    if amp_like && let Some(op) = sync::atomic_op(name) {
        return sync::atomic(cx, path, op, args, span);
    }
    if amp_like && let Some(fence) = sync::fence_fn(name) {
        return sync::memory_fence(cx, path, fence, args, span);
    }
    let args = if std_like {
        match algorithm::call(cx, path, args, span) {
            Ok(e) => return e,
            Err(args) => args,
        }
    } else {
        args
    };
    let args = match clib::call(cx, path, ns, args, span) {
        Ok(e) => return e,
        Err(args) => args,
    };
    if let Some(e) = math::call(cx, path, ns, &args, span) {
        return e;
    }
    if let Some(why) = unsupported(ns, name) {
        // The C and C++ library functions are host code whether Tessera
        // has them or not: in amp code that is the first thing wrong.
        if matches!(ns, Ns::Std | Ns::Unqualified)
            && UNSUPPORTED_STD.contains(&name)
            && !check_side(
                cx,
                Side::Host,
                &format!("`{}`", path.text()),
                path.span,
                "C3930",
                "do this on the host, before or after the kernel",
            )
        {
            return error_expr(span);
        }
        cx.ck.error(
            codes::E0211,
            path.span,
            format!("`{}` is not part of the Tessera library", path.text()),
            "not supported",
            why,
        );
        return error_expr(span);
    }
    cx.ck.error(
        codes::E0200,
        path.span,
        format!("cannot find function `{}`", path.text()),
        "not declared",
        "declare it before this call",
    );
    error_expr(span)
}

/// `std::move(x)` on the host: the value of `x` as a temporary, so that it
/// initialises or is assigned as C++'s move would. An `array` keeps its data
/// (C++ leaves a moved-from array empty, and any later use of it is
/// undefined); types whose moved-from state a program could observe
/// (`std::vector` and the other containers, which libstdc++ leaves empty)
/// are refused rather than answered differently.
fn std_move(cx: &mut FnCx<'_>, path: &ast::Path, args: Vec<Expr>, span: Span) -> Expr {
    let what = format!("`{}`", path.text());
    if !check_side(
        cx,
        Side::Host,
        &what,
        path.span,
        "C3930",
        "pass the value itself",
    ) {
        return error_expr(span);
    }
    if !arity(cx, &what, &args, 1, "the object to move", span) {
        return error_expr(span);
    }
    let Some(x) = args.into_iter().next() else {
        return error_expr(span);
    };
    let movable = x.ty.scalar().is_some()
        || matches!(
            x.ty,
            Type::Array(..)
                | Type::ArrayView { .. }
                | Type::Index(_)
                | Type::Extent(_)
                | Type::Struct(_)
        );
    if !movable {
        let shown = cx.ck.show(&x.ty);
        cx.ck.error(
            codes::E0211,
            x.span,
            format!("{what} of a `{shown}` is not supported"),
            "moved here",
            "copy it instead; `std::move` is supported on arrays, views, indices, extents and numbers",
        );
        return error_expr(span);
    }
    if x.place && moved_place(&x) {
        cx.ck.moved.insert(span);
    } else if x.place && !matches!(x.ty, Type::Struct(_)) {
        // A value through a view or an iterator: moved as a copy, which an
        // rvalue reference parameter must not take for the object.
        cx.ck.moved_copies.insert(span);
    } else if x.place {
        // An object Tessera would have to move through a view or an
        // iterator: refused rather than moved from a copy.
        let shown = cx.ck.show(&x.ty);
        cx.ck.error(
            codes::E0211,
            x.span,
            format!("{what} of this `{shown}` is not supported"),
            "moved here",
            "move a variable, a member or an element of a C array",
        );
        return error_expr(span);
    }
    Expr {
        place: false,
        span,
        ..x
    }
}

/// True for the places `std::move` hands on as themselves: variables,
/// members, elements of C arrays and objects reached through pointers.
pub(crate) fn moved_place(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Capture(_)
            | ExprKind::Field { .. }
            | ExprKind::Element { .. }
            | ExprKind::Deref(_)
    )
}

/// Known library functions Tessera leaves out, with what to do instead.
fn unsupported(ns: Ns, name: &str) -> Option<&'static str> {
    const AMP: &[&str] = &[
        "parallel_for_each_async",
        "direct3d_printf",
        "direct3d_errorf",
        "direct3d_abort",
    ];
    // The math functions that also answer through a pointer, and the
    // classification functions: in the library text of their headers.
    const HEADER_MATH: &[&str] = &[
        "modf", "modff", "frexp", "frexpf", "sincos", "sincosf", "isnan", "isinf", "isfinite",
        "isnormal", "signbit",
    ];
    match ns {
        Ns::Std | Ns::Global | Ns::Unqualified | Ns::FastMath | Ns::PreciseMath
            if name == "remquo" || name == "remquof" =>
        {
            Some(
                "`remquo` is not supported yet; compute the quotient with `round` and the rest with `remainder`",
            )
        }
        Ns::Std | Ns::Global | Ns::Unqualified if HEADER_MATH.contains(&name) => {
            Some("include `<cmath>`, which declares it")
        }
        Ns::Std | Ns::Global | Ns::Unqualified
            if [
                "strlen", "strcmp", "strncmp", "strchr", "strstr", "strcpy", "strcat",
            ]
            .contains(&name) =>
        {
            Some("include `<cstring>`, which declares it")
        }
        Ns::FastMath | Ns::PreciseMath if HEADER_MATH.contains(&name) => {
            Some("include `<amp_math.h>`, which declares it")
        }
        // An unqualified `copy` is `concurrency::copy`, handled before.
        Ns::Std | Ns::Unqualified if UNSUPPORTED_STD.contains(&name) => {
            Some("write the loop yourself; see docs/language.md for the library Tessera supports")
        }
        Ns::Amp | Ns::Unqualified if AMP.contains(&name) => {
            Some("see docs/language.md for the library Tessera supports")
        }
        _ => None,
    }
}

/// The functions of the C and C++ libraries Tessera does not have (all of
/// them host code).
const UNSUPPORTED_STD: &[&str] = &[
    "copy",
    "transform",
    "fill_n",
    "time",
    "clock",
    "scanf",
    "malloc",
    "free",
    "memcpy",
    "memset",
    "strlen",
    "atoi",
    "atof",
];

/// A call of a value (`view(i, j)`).
pub fn call_value(cx: &mut FnCx<'_>, callee: Expr, args: Vec<Expr>, span: Span) -> Expr {
    if args.iter().any(|a| a.ty.is_error()) {
        return error_expr(span);
    }
    match &callee.ty {
        Type::Array(..) | Type::ArrayView { .. } => container::call_view(cx, callee, args, span),
        Type::FnPtr(_) => cx.call_pointer(callee, args, span),
        _ => {
            let shown = cx.ck.show(&callee.ty);
            cx.ck.error(
                codes::E0208,
                callee.span,
                format!("`{shown}` cannot be called"),
                "not a function",
                "",
            );
            error_expr(span)
        }
    }
}
