//! Uniformity: which expressions and loop counters hold the same value in
//! every work-item of a tile, and which locals are the same in every lane.

use super::facts::Facts;
use super::locals::{mutated_locals, referenced_locals};
use super::ranges::const_int;
use std::collections::{HashMap, HashSet};
use tessera_ir::facts::Barriers;
use tessera_ir::visit::walk_block;
use tessera_ir::{
    Block as IrBlock, Expr, ExprKind, Init, Intrinsic, LocalId, Program, StmtKind, TiledIndexPart,
    Type,
};

/// True when `e` has the same value in every work-item of a tile, given the
/// uniform locals: constants, captured scalars and shapes, extents of
/// captured views, the tile's own coordinates, and arithmetic on those.
/// Memory reads and calls are never uniform here.
pub(crate) fn is_uniform(e: &Expr, uniform: &HashSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Local(l) => uniform.contains(l),
        ExprKind::Capture(_) => !matches!(e.ty, Type::Array(..) | Type::ArrayView { .. }),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            is_uniform(lhs, uniform) && is_uniform(rhs, uniform)
        }
        ExprKind::Unary { operand, .. } => is_uniform(operand, uniform),
        ExprKind::Convert(inner) => is_uniform(inner, uniform),
        ExprKind::Conditional { cond, then, els } => {
            is_uniform(cond, uniform) && is_uniform(then, uniform) && is_uniform(els, uniform)
        }
        ExprKind::Intrinsic { op, args } => match op {
            Intrinsic::TiledIndexPart(
                TiledIndexPart::Tile | TiledIndexPart::TileOrigin | TiledIndexPart::TileExtent,
            ) => true,
            Intrinsic::ViewExtent => matches!(args[0].kind, ExprKind::Capture(_)),
            Intrinsic::ShapeComponent
            | Intrinsic::MakeShape
            | Intrinsic::ShapeArith(_)
            | Intrinsic::ExtentSize => args.iter().all(|a| is_uniform(a, uniform)),
            _ => false,
        },
        _ => false,
    }
}

/// The coordinate along which a region's lanes run: the work-items of
/// neighbouring lanes differ in that coordinate only, by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaneAxis {
    /// The dimension: the tile's last (or the launch's, without tiles).
    pub(crate) dim: usize,
    /// A non-tiled kernel's `index<N>` parameter when it is never written:
    /// its components are then the work-item's coordinates, as a tiled
    /// index's local and global parts are.
    pub(crate) index: Option<LocalId>,
}

impl LaneAxis {
    /// The dimension `e` is the work-item's coordinate in, when it is one:
    /// a constant component of the tiled index's local or global part, or
    /// of the never-written index parameter.
    pub(crate) fn coordinate(&self, e: &Expr) -> Option<usize> {
        let ExprKind::Intrinsic {
            op: Intrinsic::ShapeComponent,
            args,
        } = &e.kind
        else {
            return None;
        };
        let of_work_item = match &args[0].kind {
            ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(TiledIndexPart::Local | TiledIndexPart::Global),
                ..
            } => true,
            ExprKind::Local(l) => Some(*l) == self.index,
            _ => false,
        };
        let k = const_int(&args[1])?;
        (of_work_item && k >= 0).then_some(k as usize)
    }

    /// Whether `e` is a whole index of the work-item's coordinates: the
    /// tiled index's local or global part, or the index parameter.
    pub(crate) fn is_coordinates(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(TiledIndexPart::Local | TiledIndexPart::Global),
                ..
            } => true,
            ExprKind::Local(l) => Some(*l) == self.index,
            _ => false,
        }
    }
}

/// True when `e` has the same value in work-items that differ only in
/// the coordinate of `axis` (see `Emitter::lane_invariant_locals`).
pub(crate) fn lane_invariant(e: &Expr, known: &HashSet<LocalId>, axis: LaneAxis) -> bool {
    let go = |x: &Expr| lane_invariant(x, known, axis);
    if let Some(k) = axis.coordinate(e) {
        return k != axis.dim;
    }
    match &e.kind {
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            go(lhs) && go(rhs)
        }
        ExprKind::Unary { operand, .. } => go(operand),
        ExprKind::Convert(inner) => go(inner),
        ExprKind::Conditional { cond, then, els } => go(cond) && go(then) && go(els),
        _ => is_uniform(e, known),
    }
}

/// Narrows `candidates` to the counters that hold the same value in every
/// work-item: declared with a uniform value, compared with a uniform bound
/// and stepped (`++`, `op=`) by a uniform amount, where uniform may rest on
/// the other candidates and on `known` (iterated to a fixed point).
pub(crate) fn uniform_fixpoint(
    mut candidates: HashSet<LocalId>,
    lets: &HashMap<LocalId, Option<Expr>>,
    loops: &[(LocalId, Expr, Expr)],
    known: &HashSet<LocalId>,
) -> HashSet<LocalId> {
    loop {
        let before = candidates.len();
        let mut uniform: HashSet<LocalId> = candidates.clone();
        uniform.extend(known.iter().copied());
        candidates.retain(|l| {
            let init_ok = matches!(lets.get(l), Some(Some(e)) if is_uniform(e, &uniform));
            let loop_ok = loops
                .iter()
                .filter(|(c, _, _)| c == l)
                .all(|(_, bound, step)| {
                    let step_ok = match &step.kind {
                        ExprKind::IncDec { target, .. } => {
                            matches!(&target.kind, ExprKind::Local(t) if t == l)
                        }
                        ExprKind::CompoundAssign { target, value, .. } => {
                            matches!(&target.kind, ExprKind::Local(t) if t == l)
                                && is_uniform(value, &uniform)
                        }
                        _ => false,
                    };
                    step_ok && is_uniform(bound, &uniform)
                });
            init_ok && loop_ok
        });
        if candidates.len() == before {
            return candidates;
        }
    }
}

/// Counters of the loops with barriers in a kernel body that every
/// work-item of a tile steps alike: declared at the level of the barriers
/// with a uniform value, compared with a uniform bound, stepped by a uniform
/// amount in the loop's step and written nowhere else.
pub(crate) fn uniform_counters(
    prog: &Program,
    body: &IrBlock,
    barriers: &Barriers,
) -> HashSet<LocalId> {
    let mut lets: HashMap<LocalId, Option<Expr>> = HashMap::new();
    let mut loops: Vec<(LocalId, Expr, Expr)> = Vec::new();
    fn scan(
        b: &IrBlock,
        barriers: &Barriers,
        lets: &mut HashMap<LocalId, Option<Expr>>,
        loops: &mut Vec<(LocalId, Expr, Expr)>,
    ) {
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Let { local, init } => {
                    let e = match init {
                        Some(Init::Expr(e)) => Some(e.clone()),
                        _ => None,
                    };
                    lets.insert(*local, e);
                }
                StmtKind::Block(inner) => scan(inner, barriers, lets, loops),
                StmtKind::If { then, els, .. } if barriers.in_stmt(s) => {
                    scan(then, barriers, lets, loops);
                    if let Some(e) = els {
                        scan(e, barriers, lets, loops);
                    }
                }
                StmtKind::Loop {
                    cond: Some(cond),
                    step: Some(step),
                    body,
                    ..
                } if barriers.in_stmt(s) => {
                    if let ExprKind::Binary { lhs, rhs, .. } = &cond.kind {
                        let counter = match (&lhs.kind, &rhs.kind) {
                            (ExprKind::Local(l), _) => Some((*l, (**rhs).clone())),
                            (_, ExprKind::Local(l)) => Some((*l, (**lhs).clone())),
                            _ => None,
                        };
                        if let Some((l, bound)) = counter {
                            loops.push((l, bound, step.clone()));
                        }
                    }
                    scan(body, barriers, lets, loops);
                }
                StmtKind::Switch { arms, .. } if barriers.in_stmt(s) => {
                    for arm in arms {
                        scan(&arm.body, barriers, lets, loops);
                    }
                }
                _ => {}
            }
        }
    }
    scan(body, barriers, &mut lets, &mut loops);
    // Each candidate must be written exactly once after its declaration:
    // by its loop's step.
    let mut writes: HashMap<LocalId, usize> = HashMap::new();
    walk_block(body, &mut |_| {}, &mut |e| {
        let target = match &e.kind {
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => Some(&**target),
            _ => None,
        };
        if let Some(t) = target
            && let ExprKind::Local(l) = &t.kind
        {
            *writes.entry(*l).or_default() += 1;
        }
    });
    // Writes through references and atomics are not assignments: a local
    // reached so is never a uniform counter.
    let mut aliased = HashSet::new();
    let mut probe = HashSet::new();
    mutated_locals(prog, body, &mut probe);
    for l in probe {
        if !writes.contains_key(&l) {
            aliased.insert(l);
        }
    }
    aliased.extend(referenced_locals(prog, body));
    let set: HashSet<LocalId> = loops
        .iter()
        .map(|(l, _, _)| *l)
        .filter(|l| writes.get(l) == Some(&1) && lets.contains_key(l) && !aliased.contains(l))
        .collect();
    uniform_fixpoint(set, &lets, &loops, &HashSet::new())
}

/// Locals declared by `Let`s that are not inside a region: in blocks that
/// hold barriers, at any depth of such blocks, and directly in them.
pub(crate) fn collect_uniform_lets(b: &IrBlock, barriers: &Barriers, out: &mut Vec<LocalId>) {
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Let { local, .. } => out.push(*local),
            StmtKind::Block(inner) => collect_uniform_lets(inner, barriers, out),
            StmtKind::If { then, els, .. } if barriers.in_stmt(s) => {
                collect_uniform_lets(then, barriers, out);
                if let Some(e) = els {
                    collect_uniform_lets(e, barriers, out);
                }
            }
            StmtKind::Loop { body, .. } if barriers.in_stmt(s) => {
                collect_uniform_lets(body, barriers, out);
            }
            StmtKind::Switch { arms, .. } if barriers.in_stmt(s) => {
                for arm in arms {
                    collect_uniform_lets(&arm.body, barriers, out);
                }
            }
            _ => {}
        }
    }
}

impl Facts<'_> {
    /// True for a step that writes only uniform counters with uniform values.
    pub(crate) fn writes_only_uniform(&self, step: &Expr) -> bool {
        match &step.kind {
            ExprKind::IncDec { target, .. } => {
                matches!(&target.kind, ExprKind::Local(l) if self.uniform.contains(l))
            }
            ExprKind::CompoundAssign { target, value, .. } | ExprKind::Assign { target, value } => {
                matches!(&target.kind, ExprKind::Local(l) if self.uniform.contains(l))
                    && is_uniform(value, &self.uniform)
            }
            _ => false,
        }
    }
}
