//! The elements a container made with a count (`std::vector<T> v(n)`,
//! `v.resize(n)`) starts with: value-initialised objects of `T`.
//!
//! For a class whose default construction runs code (a constructor,
//! default member initialisers, a polymorphic class's dynamic type) every
//! element is an object that code built. When that code only builds the
//! object (it writes nothing else, reads no global, calls nothing but such
//! code), building one and copying it gives the same elements: the
//! container is filled with one value. Otherwise every element is built in
//! turn, as C++ does, so that a constructor's output or count happens once
//! per element.

use super::intrinsic;
use crate::cx::FnCx;
use std::collections::HashSet;
use tessera_diagnostics::Span;
use tessera_ir::visit::{for_each_subexpr, walk_block};
use tessera_ir::{Expr, ExprKind, FuncId, Init, Intrinsic, Program, StmtKind, Type};

/// The most functions a construction may reach and still be called plain
/// (a bound on the walk; a deeper one is built element by element).
const MAX_FUNCTIONS: usize = 64;

/// How the elements of a container made with a count start out.
pub(super) enum Fill {
    /// Zero (scalars, and classes whose construction runs nothing).
    Zero,
    /// One value built once and copied into every element.
    Once(Expr),
    /// A construction run for every element.
    Each(Expr),
}

/// The start of `n` elements of type `elem`.
pub(super) fn fill(cx: &mut FnCx<'_>, elem: &Type, span: Span) -> Fill {
    let Type::Struct(id) = elem else {
        return Fill::Zero;
    };
    if !cx.ck.needs_construction(*id) {
        return Fill::Zero;
    }
    match cx.construct_object(*id, Vec::new(), false, span) {
        None => Fill::Zero,
        Some(built) if plain(&cx.ck.program, &built) => Fill::Once(built),
        Some(built) => Fill::Each(built),
    }
}

/// The one value every new element of type `elem` may start as (zero,
/// or an object built once), or `None` when each must be built in turn.
pub(super) fn fill_value(cx: &mut FnCx<'_>, elem: &Type, span: Span) -> Option<Expr> {
    match fill(cx, elem, span) {
        Fill::Zero => Some(cx.init_as_expr(Some(Init::Zero), elem, span)),
        Fill::Once(value) => Some(value),
        Fill::Each(_) => None,
    }
}

/// `std::vector<T>(n)` (or a deque's, a list's) of type `ty`: `n` elements
/// as [`fill`] says.
pub(super) fn new_sequence(cx: &mut FnCx<'_>, ty: &Type, n: Expr, span: Span) -> Expr {
    let elem = ty.sequence_elem().cloned().unwrap_or(Type::Error);
    match fill(cx, &elem, span) {
        Fill::Zero => intrinsic(Intrinsic::NewVector, vec![n], ty.clone(), span),
        Fill::Once(value) => intrinsic(Intrinsic::NewVector, vec![n, value], ty.clone(), span),
        Fill::Each(built) => intrinsic(
            Intrinsic::NewVectorConstructed,
            vec![n, built],
            ty.clone(),
            span,
        ),
    }
}

/// Whether evaluating `e` only builds its value: no global read or
/// written, no output or other library effect, no throw, no call through a
/// pointer or a virtual call, and every function it calls (to the bodies
/// already lowered) the same.
fn plain(prog: &Program, e: &Expr) -> bool {
    let mut seen = HashSet::new();
    plain_expr(prog, e, &mut seen)
}

fn plain_expr(prog: &Program, e: &Expr, seen: &mut HashSet<FuncId>) -> bool {
    let mut nodes = Vec::new();
    for_each_subexpr(e, &mut |x| nodes.push(x));
    nodes.into_iter().all(|x| plain_node(prog, x, seen))
}

fn plain_function(prog: &Program, f: FuncId, seen: &mut HashSet<FuncId>) -> bool {
    if !seen.insert(f) {
        // Reached before: judged (or being judged) there.
        return true;
    }
    if seen.len() > MAX_FUNCTIONS {
        return false;
    }
    let Some(body) = prog.get_function(f).and_then(|func| func.body.as_ref()) else {
        // Not lowered yet (or without a body): not known to be plain.
        return false;
    };
    let mut exprs = Vec::new();
    let mut ok = true;
    walk_block(
        body,
        &mut |s| {
            if matches!(s.kind, StmtKind::Barrier(_) | StmtKind::Try { .. }) {
                ok = false;
            }
        },
        &mut |x| exprs.push(x),
    );
    ok && exprs.into_iter().all(|x| plain_node(prog, x, seen))
}

/// Whether one node of an expression only builds a value (its
/// sub-expressions are judged on their own).
fn plain_node(prog: &Program, x: &Expr, seen: &mut HashSet<FuncId>) -> bool {
    match &x.kind {
        ExprKind::Call { func, .. } => plain_function(prog, *func, seen),
        ExprKind::Global(_)
        | ExprKind::Intrinsic { .. }
        | ExprKind::VirtualCall { .. }
        | ExprKind::CallPtr { .. }
        | ExprKind::Launch { .. }
        | ExprKind::Throw(_)
        | ExprKind::FuncAddr(_)
        | ExprKind::Capture(_)
        | ExprKind::Str(_) => false,
        _ => true,
    }
}
