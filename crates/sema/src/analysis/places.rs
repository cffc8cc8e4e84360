//! Helpers of the race and uniformity analyses: the path from a variable to
//! the part of it a place names, and structural equality of expressions.
//! Walking bodies and the call graph are [`tessera_ir::visit`] and
//! [`tessera_ir::facts`].

use tessera_ir::visit::{self, Node};
use tessera_ir::{Expr, ExprKind, Function, LocalId, StmtKind};

/// The index expressions of the C array elements a place goes through, outermost
/// array first (`a[i][j]` gives `[i, j]`), with the field positions as a guard:
/// two places with the same root are the same location when these match.
pub fn place_path(e: &Expr) -> Vec<PathStep<'_>> {
    let mut out = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Field { base, field } => {
                out.push(PathStep::Field(*field));
                cur = base;
            }
            ExprKind::Element { base, index } => {
                out.push(PathStep::Index(index));
                cur = base;
            }
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                cur = target
            }
            ExprKind::IncDec {
                target,
                prefix: true,
                ..
            } => cur = target,
            ExprKind::Comma { second, .. } => cur = second,
            _ => break,
        }
    }
    out.reverse();
    out
}

/// One step from a variable to a part of it.
#[derive(Clone, Copy, Debug)]
pub enum PathStep<'a> {
    /// A struct field, by position.
    Field(u32),
    /// A C array element at this index.
    Index(&'a Expr),
}

/// True when two paths are written the same way (see [`same_expr`]).
pub fn same_path(a: &[PathStep<'_>], b: &[PathStep<'_>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (PathStep::Field(f), PathStep::Field(g)) => f == g,
            (PathStep::Index(i), PathStep::Index(j)) => same_expr(i, j),
            _ => false,
        })
}

/// Structural equality of two expressions, ignoring spans: the same operators
/// on the same variables and constants.
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    use ExprKind as K;
    let kinds_match = match (&a.kind, &b.kind) {
        (K::Const(x), K::Const(y)) => return x == y,
        (K::Local(x), K::Local(y)) => return x == y,
        (K::Global(x), K::Global(y)) => return x == y,
        (K::Capture(x), K::Capture(y)) => return x == y,
        (K::Str(x), K::Str(y)) => return x == y,
        (K::Binary { op: x, .. }, K::Binary { op: y, .. }) => x == y,
        (K::Unary { op: x, .. }, K::Unary { op: y, .. }) => x == y,
        (K::Logical { and: x, .. }, K::Logical { and: y, .. }) => x == y,
        (K::CompoundAssign { op: x, .. }, K::CompoundAssign { op: y, .. }) => x == y,
        (
            K::IncDec {
                increment: x,
                prefix: p,
                ..
            },
            K::IncDec {
                increment: y,
                prefix: q,
                ..
            },
        ) => x == y && p == q,
        (K::Field { field: x, .. }, K::Field { field: y, .. }) => x == y,
        (K::Call { func: x, .. }, K::Call { func: y, .. }) => x == y,
        (K::Intrinsic { op: x, .. }, K::Intrinsic { op: y, .. }) => x == y,
        (K::Launch { kernel: x, .. }, K::Launch { kernel: y, .. }) => x == y,
        (K::Conditional { .. }, K::Conditional { .. })
        | (K::Convert(_), K::Convert(_))
        | (K::Assign { .. }, K::Assign { .. })
        | (K::Element { .. }, K::Element { .. })
        | (K::Aggregate(_), K::Aggregate(_))
        | (K::Comma { .. }, K::Comma { .. }) => true,
        _ => false,
    };
    if !kinds_match || a.ty != b.ty {
        return false;
    }
    let mut xs = Vec::new();
    visit::for_each_child(a, &mut |c| xs.push(c));
    let mut ys = Vec::new();
    visit::for_each_child(b, &mut |c| ys.push(c));
    xs.len() == ys.len() && xs.iter().zip(&ys).all(|(x, y)| same_expr(x, y))
}

/// Every `tile_static` declaration of a function: the local and the span of
/// its declaration, in program order.
pub fn tile_static_decls(func: &Function) -> Vec<(LocalId, tessera_diagnostics::Span)> {
    let mut out = Vec::new();
    if let Some(body) = &func.body {
        visit::for_each_stmt(body, &mut |n| {
            if let Node::Stmt(s) = n
                && let StmtKind::Let { local: id, .. } = &s.kind
                && func.is_tile_static(*id)
            {
                out.push((*id, s.span));
            }
        });
    }
    out
}
