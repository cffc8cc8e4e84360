//! The barrier split: a block at the level of a kernel's barriers cut into
//! regions (runs of statements without barriers, each emitted as a loop
//! over the tile's work-items) and the statements between them, and the
//! locals each region loads from and stores to the work-items' frames.

use super::locals::{escapes_loop, mutated_locals, stmt_locals};
use super::ranges::const_int;
use super::uniform::collect_uniform_lets;
use std::collections::{BTreeSet, HashSet};
use tessera_ir::facts::Barriers;
use tessera_ir::{
    BinOp, Block as IrBlock, Expr, ExprKind, Intrinsic, LocalId, Program, Stmt, StmtKind,
    TiledIndexPart,
};

/// One piece of a block at the level of the barriers, in order.
#[derive(Debug)]
pub(crate) enum Segment<'b> {
    /// Statements without barriers: one work-item loop.
    Region(Vec<&'b Stmt>),
    /// The declaration of a local with the same value in every work-item
    /// (a uniform counter): computed once for the tile.
    UniformLet(&'b Stmt),
    /// A statement that holds a barrier, or leaves a loop that does (its
    /// condition is evaluated per work-item and checked to agree).
    AtBarriers(&'b Stmt),
}

/// Cuts `body` at its barriers. `uniform` are the uniform counters; they
/// are declared once per tile only at the kernel's own level
/// (`kernel_level`), not in an inlined call's.
pub(crate) fn split<'b>(
    body: &'b IrBlock,
    barriers: &Barriers,
    uniform: &HashSet<LocalId>,
    kernel_level: bool,
) -> Vec<Segment<'b>> {
    let mut out = Vec::new();
    let mut run: Vec<&Stmt> = Vec::new();
    for s in &body.stmts {
        let uniform_let = kernel_level
            && matches!(&s.kind, StmtKind::Let { local, .. } if uniform.contains(local));
        if uniform_let {
            close(&mut run, &mut out);
            out.push(Segment::UniformLet(s));
        } else if barriers.in_stmt(s) || escapes_loop(s) {
            close(&mut run, &mut out);
            out.push(Segment::AtBarriers(s));
        } else {
            run.push(s);
        }
    }
    close(&mut run, &mut out);
    out
}

/// Ends the current region, if it has statements.
fn close<'b>(run: &mut Vec<&'b Stmt>, out: &mut Vec<Segment<'b>>) {
    if !run.is_empty() {
        out.push(Segment::Region(std::mem::take(run)));
    }
}

/// Where the kernel's last region starts: after its last statement with a
/// barrier. A work-item may `return` there (it only skips the rest of the
/// region), which no earlier region allows.
pub(crate) fn last_region_start(body: &IrBlock, barriers: &Barriers) -> usize {
    let last_barrier = body
        .stmts
        .iter()
        .rposition(|s| barriers.in_stmt(s) || escapes_loop(s));
    last_barrier.map_or(0, |i| i + 1)
}

/// The frame traffic of one region.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RegionIo {
    /// Locals the region reads that it did not declare: loaded from the
    /// frame (those that have a slot) when a work-item starts.
    pub(crate) loads: BTreeSet<LocalId>,
    /// Locals it writes or declares: stored back (those that have a slot)
    /// for the next region.
    pub(crate) stores: HashSet<LocalId>,
}

/// The locals a region made of `stmts` loads and stores.
pub(crate) fn region_io(prog: &Program, barriers: &Barriers, stmts: &[Stmt]) -> RegionIo {
    let mut io = RegionIo::default();
    for s in stmts {
        stmt_locals(s, &mut io.loads);
    }
    let block = IrBlock {
        stmts: stmts.to_vec(),
    };
    mutated_locals(prog, &block, &mut io.stores);
    for s in stmts {
        if let StmtKind::Let { local, .. } = &s.kind {
            io.loads.remove(local);
            io.stores.insert(*local);
        }
    }
    // A `Let` nested in a block of this region declares a local that later
    // regions may still name (a frame local): store it as well.
    let mut nested = Vec::new();
    collect_uniform_lets(&block, barriers, &mut nested);
    io.stores.extend(nested);
    io
}

/// The one work-item that does anything in a region made of `stmts`: the
/// region is a single `if` without `else` whose condition is `&&` of tests
/// `c == k` (either way round) that pin every local coordinate `c` of the
/// tile (read directly, or through a copy in `remat`, which is never
/// written) to a constant `k` inside the tile's extent `dims`. Every other
/// work-item only evaluates that condition, which has no effect and no
/// check that can fail. Gives the pinned coordinates and the branch.
pub(crate) fn pinned_item<'s>(
    stmts: &'s [Stmt],
    remat: &[(LocalId, Expr)],
    dims: &[u32],
) -> Option<(Vec<i64>, &'s IrBlock)> {
    let [stmt] = stmts else { return None };
    let StmtKind::If {
        cond,
        then,
        els: None,
    } = &stmt.kind
    else {
        return None;
    };
    let mut at: Vec<Option<i64>> = vec![None; dims.len()];
    let mut tests = vec![cond];
    while let Some(test) = tests.pop() {
        match &test.kind {
            ExprKind::Logical {
                and: true,
                lhs,
                rhs,
            } => {
                tests.push(lhs);
                tests.push(rhs);
            }
            ExprKind::Binary {
                op: BinOp::Eq,
                lhs,
                rhs,
            } => {
                let (dim, k) = match (local_coordinate(lhs, remat), const_int(rhs)) {
                    (Some(d), Some(k)) => (d, k),
                    _ => (local_coordinate(rhs, remat)?, const_int(lhs)?),
                };
                let extent = i64::from(*dims.get(dim)?);
                if !(0..extent).contains(&k) || at[dim].is_some_and(|prev| prev != k) {
                    return None;
                }
                at[dim] = Some(k);
            }
            _ => return None,
        }
    }
    let at: Option<Vec<i64>> = at.into_iter().collect();
    Some((at?, then))
}

/// The bound a region's rows can stop at: for a region that is one `if`
/// without `else` whose condition is `c < n` (or `n > c`), or starts with
/// it followed by `&&`, where `c` is the tile's first local coordinate
/// (`t_idx.local[0]` or a copy of it in `remat`) and `n` an `int` that is
/// the same in every work-item and changes nothing (`uniform` locals,
/// constants, captured scalars), `n`: work-items from row `n` on would
/// test false and do nothing else, so they need not run.
pub(crate) fn row_limit<'s>(
    stmts: &'s [Stmt],
    remat: &[(LocalId, Expr)],
    uniform: &HashSet<LocalId>,
) -> Option<&'s Expr> {
    let [stmt] = stmts else { return None };
    let StmtKind::If {
        cond, els: None, ..
    } = &stmt.kind
    else {
        return None;
    };
    let test = match &cond.kind {
        ExprKind::Logical { and: true, lhs, .. } => lhs,
        _ => cond,
    };
    let ExprKind::Binary { op, lhs, rhs } = &test.kind else {
        return None;
    };
    let (coord, n) = match op {
        BinOp::Lt => (lhs, rhs),
        BinOp::Gt => (rhs, lhs),
        _ => return None,
    };
    let int = Some(tessera_ir::Scalar::Int);
    (local_coordinate(coord, remat) == Some(0)
        && coord.ty.scalar() == int
        && n.ty.scalar() == int
        && super::vector::is_pure(n)
        && super::uniform::is_uniform(n, uniform))
    .then_some(n)
}

/// The local dimension whose coordinate `e` reads: `t_idx.local[d]`, or a
/// copy of it in `remat`.
pub(crate) fn local_coordinate(e: &Expr, remat: &[(LocalId, Expr)]) -> Option<usize> {
    match &e.kind {
        ExprKind::Local(l) => {
            let (_, init) = remat.iter().find(|(r, _)| r == l)?;
            local_coordinate(init, remat)
        }
        ExprKind::Intrinsic {
            op: Intrinsic::ShapeComponent,
            args,
        } => {
            let [shape, k] = args.as_slice() else {
                return None;
            };
            let ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(TiledIndexPart::Local),
                ..
            } = &shape.kind
            else {
                return None;
            };
            usize::try_from(const_int(k)?).ok()
        }
        _ => None,
    }
}
