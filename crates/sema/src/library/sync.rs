//! Synchronisation: `tile_barrier` and its waits, the free memory fences, and
//! the atomic functions.

use super::{Side, arity, check_side, intrinsic, mk};
use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{
    AtomicOp, Expr, ExprKind, Fence, Intrinsic, Rank, Scalar, Space, TiledIndexPart, Type,
};
use tessera_syntax::ast;

/// The atomic functions of `concurrency`.
const ATOMICS: &[(&str, AtomicOp)] = &[
    ("atomic_fetch_add", AtomicOp::Add),
    ("atomic_fetch_sub", AtomicOp::Sub),
    ("atomic_fetch_and", AtomicOp::And),
    ("atomic_fetch_or", AtomicOp::Or),
    ("atomic_fetch_xor", AtomicOp::Xor),
    ("atomic_fetch_max", AtomicOp::Max),
    ("atomic_fetch_min", AtomicOp::Min),
    ("atomic_fetch_inc", AtomicOp::Inc),
    ("atomic_fetch_dec", AtomicOp::Dec),
    ("atomic_exchange", AtomicOp::Exchange),
    ("atomic_compare_exchange", AtomicOp::CompareExchange),
];

/// The waits of `tile_barrier`.
const WAITS: &[(&str, Fence)] = &[
    ("wait", Fence::All),
    ("wait_with_all_memory_fence", Fence::All),
    ("wait_with_global_memory_fence", Fence::Global),
    ("wait_with_tile_static_memory_fence", Fence::TileStatic),
];

/// The free fences, which order memory without waiting.
const FENCES: &[(&str, Fence)] = &[
    ("all_memory_fence", Fence::All),
    ("global_memory_fence", Fence::Global),
    ("tile_static_memory_fence", Fence::TileStatic),
];

/// The atomic operation a function name stands for.
pub(super) fn atomic_op(name: &str) -> Option<AtomicOp> {
    ATOMICS.iter().find(|(n, _)| *n == name).map(|(_, op)| *op)
}

/// The fence of a `tile_barrier` wait method.
pub(super) fn wait_fence(name: &str) -> Option<Fence> {
    WAITS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// The fence of a free fence function.
pub(super) fn fence_fn(name: &str) -> Option<Fence> {
    FENCES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// `t_idx.barrier`: the barrier of the tile of a tiled index.
pub(super) fn barrier_of(t_idx: Expr, span: Span) -> Expr {
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::TiledIndexPart(TiledIndexPart::Barrier),
            args: vec![t_idx],
        },
        Type::TileBarrier,
        false,
        span,
    )
}

/// E0407: `idx.barrier` on a plain `index<N>` (a non-tiled kernel).
pub(super) fn no_barrier(cx: &mut FnCx<'_>, ty: &Type, rank: Rank, name: &ast::Ident) -> Expr {
    let shown = cx.ck.show(ty);
    let dims = match rank {
        1 => "256",
        2 => "16, 16",
        _ => "4, 8, 8",
    };
    cx.ck.report(
        Diagnostic::error(codes::E0407, name.span, format!("no barrier outside a tiled kernel: `{shown}` has no member `{}`", name.name))
            .with_label(format!("`{shown}` has no barrier"))
            .with_note("only a `tiled_index`, passed to kernels launched on a tiled extent, has a `barrier`")
            .with_msvc("C2039")
            .with_help(format!(
                "launch on a tiled extent and take a tiled index: `parallel_for_each(e.tile<{dims}>(), [=](tiled_index<{dims}> t) restrict(amp) {{ ... t.barrier.wait(); }})`"
            )),
    );
    error_expr(name.span)
}

/// `barrier.wait()` and its fenced variants.
pub(super) fn barrier_wait(
    cx: &mut FnCx<'_>,
    barrier: Expr,
    name: &ast::Ident,
    fence: Fence,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let what = format!("`tile_barrier::{}`", name.name);
    check_side(
        cx,
        Side::Amp,
        &what,
        name.span,
        "C3930",
        "wait at barriers inside a tiled kernel",
    );
    if !arity(cx, &what, &args, 0, "no arguments", span) {
        return error_expr(span);
    }
    intrinsic(Intrinsic::Barrier(fence), vec![barrier], Type::Void, span)
}

/// `all_memory_fence(barrier)` and friends.
pub(super) fn memory_fence(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    fence: Fence,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let what = format!("`{}`", path.text());
    check_side(
        cx,
        Side::Amp,
        &what,
        path.span,
        "C3930",
        "fences order the memory of a tile: use them inside a tiled kernel",
    );
    if !arity(
        cx,
        &what,
        &args,
        1,
        "the tile's barrier: `t_idx.barrier`",
        span,
    ) {
        return error_expr(span);
    }
    let Some(barrier) = args.into_iter().next() else {
        return error_expr(span);
    };
    if barrier.ty != Type::TileBarrier {
        let shown = cx.ck.show(&barrier.ty);
        cx.ck.report(
            Diagnostic::error(
                codes::E0203,
                barrier.span,
                format!("mismatched types: {what} takes a `tile_barrier`, found `{shown}`"),
            )
            .with_label(format!("this is `{shown}`"))
            .with_help(format!(
                "pass the tile's barrier: `{}(t_idx.barrier)`",
                path.last()
            )),
        );
        return error_expr(span);
    }
    intrinsic(
        Intrinsic::MemoryFence(fence),
        vec![barrier],
        Type::Void,
        span,
    )
}

/// Where an atomic operation's location lives.
enum Location {
    /// Memory other work-items share: an `array`/`array_view` element or `tile_static`.
    Shared,
    /// Through a reference: where it points is not known here.
    Unknown,
    /// A work-item's own variable.
    Private(String, Span),
    /// Host memory.
    Host(String),
}

/// Classifies the place an atomic operation works on.
fn location(cx: &FnCx<'_>, e: &Expr) -> Location {
    match &e.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::ViewElement,
            ..
        } => Location::Shared,
        ExprKind::Intrinsic {
            op: Intrinsic::VectorElement,
            ..
        } => Location::Host("an element of a `std::vector`".into()),
        ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => location(cx, base),
        ExprKind::Local(id) => match cx.local(*id) {
            Some(l) if l.space == Space::TileStatic => Location::Shared,
            Some(l) if l.by_ref => Location::Unknown,
            Some(l) if l.space == Space::Host => Location::Host(format!("`{}`", l.name)),
            Some(l) => Location::Private(l.name.clone(), l.span),
            None => Location::Unknown,
        },
        ExprKind::Capture(_) => Location::Private("a captured variable".into(), e.span),
        ExprKind::Global(id) => {
            let name = cx
                .ck
                .program
                .get_global(*id)
                .map_or_else(String::new, |g| g.name.clone());
            Location::Host(format!("global `{name}`"))
        }
        _ => Location::Unknown,
    }
}

/// What an atomic function takes, for messages.
fn takes(op: AtomicOp) -> (usize, &'static str) {
    match op {
        AtomicOp::Inc | AtomicOp::Dec => (
            1,
            "the address of the location: `atomic_fetch_inc(&view[i])`",
        ),
        AtomicOp::CompareExchange => (
            3,
            "the location, the location of the expected value, and the new value: `atomic_compare_exchange(&view[i], &expected, v)`",
        ),
        _ => (
            2,
            "the address of the location and a value: `atomic_fetch_add(&view[i], 1)`",
        ),
    }
}

/// Reports E0410: the location of an atomic operation has the wrong type.
fn bad_atomic_type(cx: &mut FnCx<'_>, what: &str, op: AtomicOp, dest: &Expr) {
    let shown = cx.ck.show(&dest.ty);
    let allowed = if op == AtomicOp::Exchange {
        "`int`, `unsigned int` and `float`"
    } else {
        "`int` and `unsigned int`"
    };
    let help = match dest.ty.scalar() {
        Some(Scalar::Float | Scalar::Double) if op != AtomicOp::Exchange => {
            "there is no atomic floating-point arithmetic: accumulate in an `int` or `unsigned int` (e.g. fixed point), or give each work-item its own output element"
        }
        _ => "use an `int` or `unsigned int` location",
    };
    cx.ck.report(
        Diagnostic::error(
            codes::E0410,
            dest.span,
            format!("{what} works on {allowed} locations, not `{shown}`"),
        )
        .with_label(format!("this is `{shown}`"))
        .with_note(format!(
            "MSVC reports this as C2665: no overload of {what} takes a `{shown}*`"
        ))
        .standing_for("C2665")
        .with_help(help),
    );
}

/// Reports E0410: the location of an atomic operation is not shared memory.
fn bad_atomic_location(cx: &mut FnCx<'_>, what: &str, dest: &Expr, loc: Location) {
    let mut d = match loc {
        Location::Private(name, decl) => {
            let name = if name.contains(' ') { name } else { format!("`{name}`") };
            Diagnostic::error(codes::E0410, dest.span, format!("{what} on {name}, which is private to each work-item"))
                .with_label("no other work-item can see this location")
                .with_secondary(decl, "declared here")
                .with_help("use a `tile_static` variable, or an element of an `array` or `array_view`: `atomic_fetch_add(&view[i], 1)`")
        }
        Location::Host(name) => Diagnostic::error(codes::E0410, dest.span, format!("{what} on {name}, which is host memory"))
            .with_label("not accelerator memory")
            .with_help("wrap the data in an `array_view` and use its elements: `atomic_fetch_add(&view[i], 1)`"),
        Location::Shared | Location::Unknown => {
            Diagnostic::error(codes::E0410, dest.span, format!("{what} needs a location, not a value"))
                .with_label("a value")
                .with_help("pass the address of an element: `&view[i]`")
        }
    };
    d = d.with_note("atomics work on memory shared by work-items: `array`/`array_view` elements and `tile_static` variables");
    cx.ck.report(d);
}

/// `atomic_fetch_add(&place, v)` and the other atomics. The caller passes the
/// place itself as the first argument (and, for `atomic_compare_exchange`,
/// the second); the result is the old value (`bool` for compare-exchange).
pub(super) fn atomic(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    op: AtomicOp,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let what = format!("`{}`", path.last());
    let in_kernel = check_side(
        cx,
        Side::Amp,
        &what,
        path.span,
        "C3930",
        "atomics work on accelerator memory: call them inside a kernel",
    );
    let (count, takes) = takes(op);
    if !arity(cx, &what, &args, count, takes, span) {
        return error_expr(span);
    }
    let mut args = args.into_iter();
    let Some(dest) = args.next() else {
        return error_expr(span);
    };
    let elem = match dest.ty.scalar() {
        Some(s @ (Scalar::Int | Scalar::UInt)) => s,
        Some(Scalar::Float) if op == AtomicOp::Exchange => Scalar::Float,
        _ => {
            bad_atomic_type(cx, &what, op, &dest);
            return error_expr(span);
        }
    };
    if !dest.place {
        bad_atomic_location(cx, &what, &dest, Location::Unknown);
        return error_expr(span);
    }
    match location(cx, &dest) {
        Location::Shared | Location::Unknown => {}
        // On the host every location is host memory: the E0301 above says it all.
        _ if !in_kernel => {}
        bad => {
            bad_atomic_location(cx, &what, &dest, bad);
            return error_expr(span);
        }
    }
    cx.check_writable(&dest, "modified by an atomic operation");
    let ty = Type::Scalar(elem);
    let mut lowered = vec![dest];
    if op == AtomicOp::CompareExchange {
        let Some(expected) = args.next() else {
            return error_expr(span);
        };
        if !expected.place || expected.ty != ty {
            let shown = cx.ck.show(&expected.ty);
            let want = cx.ck.show(&ty);
            cx.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    expected.span,
                    format!("the expected value must be a `{want}` variable, found `{shown}`"),
                )
                .with_label("not a variable of the location's type")
                .with_note("on failure, the value found is written back there")
                .with_help(format!(
                    "declare `{want} expected = ...;` and pass `&expected`"
                )),
            );
            return error_expr(span);
        }
        cx.check_writable(&expected, "written by `atomic_compare_exchange`");
        lowered.push(expected);
    }
    for value in args {
        lowered.push(cx.coerce(value, &ty, &format!("the value of {what}")));
    }
    if lowered.iter().any(|a| a.ty.is_error()) {
        return error_expr(span);
    }
    let result = if op == AtomicOp::CompareExchange {
        Type::BOOL
    } else {
        ty
    };
    intrinsic(Intrinsic::Atomic(op), lowered, result, span)
}
