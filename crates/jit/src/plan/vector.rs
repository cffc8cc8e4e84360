//! Vector lanes: within a region that runs in lanes (see [`super::lanes`]),
//! which lane-private locals can live in one 128-bit vector for all lanes,
//! and how an index changes from one lane to the next, so that a row of
//! `tile_static` memory is read or written with one vector access.

use super::facts::Facts;
use super::lanes::let_initialisers;
use super::uniform::{LaneAxis, lane_invariant};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use tessera_ir::visit::{any_subexpr, for_each_subexpr, walk_block};
use tessera_ir::{
    BinOp, Block as IrBlock, Expr, ExprKind, FuncId, Init, Intrinsic, LocalId, Scalar, Stmt,
    StmtKind,
};

/// True when evaluating `e` changes nothing: no assignment, call, pointer
/// taken or library operation other than reads and arithmetic. Such an
/// expression may be evaluated for the lanes in any order, and the lanes'
/// vector locals need only be read for it.
pub(crate) fn is_pure(e: &Expr) -> bool {
    !any_subexpr(e, &mut |x| match &x.kind {
        ExprKind::Assign { .. }
        | ExprKind::CompoundAssign { .. }
        | ExprKind::IncDec { .. }
        | ExprKind::Call { .. }
        | ExprKind::CallPtr { .. }
        | ExprKind::AddrOf(_)
        | ExprKind::Launch { .. }
        | ExprKind::Throw(_) => true,
        ExprKind::Intrinsic { op, .. } => !matches!(
            op,
            Intrinsic::Math(_)
                | Intrinsic::MakeShape
                | Intrinsic::ShapeComponent
                | Intrinsic::ShapeArith(_)
                | Intrinsic::TiledIndexPart(_)
                | Intrinsic::ViewElement
                | Intrinsic::ViewExtent
                | Intrinsic::ExtentSize
        ),
        _ => false,
    })
}

/// The amount by which the `int` (or `long`) value of `e` grows from one
/// lane to the next, when it is a fixed amount: 0 for a lane-invariant
/// expression (see [`lane_invariant`]; `known` are the locals the lanes
/// share), 1 for the work-item's coordinate along `axis`, and sums,
/// differences and constant multiples of those; `steps` gives the kernel's
/// locals that are never written after their declaration.
pub(crate) fn lane_step(
    e: &Expr,
    steps: &HashMap<LocalId, i64>,
    known: &HashSet<LocalId>,
    axis: LaneAxis,
) -> Option<i64> {
    if !matches!(
        e.ty.scalar(),
        Some(Scalar::Int | Scalar::Long | Scalar::UInt | Scalar::ULong)
    ) {
        return None;
    }
    if is_pure(e) && lane_invariant(e, known, axis) {
        return Some(0);
    }
    if let Some(k) = axis.coordinate(e) {
        return (k == axis.dim).then_some(1);
    }
    let go = |x: &Expr| lane_step(x, steps, known, axis);
    match &e.kind {
        ExprKind::Local(l) => steps.get(l).copied(),
        ExprKind::Binary { op, lhs, rhs } if lhs.ty == e.ty && rhs.ty == e.ty => match op {
            BinOp::Add => go(lhs)?.checked_add(go(rhs)?),
            BinOp::Sub => go(lhs)?.checked_sub(go(rhs)?),
            BinOp::Mul => {
                if let Some(c) = super::ranges::const_int(rhs) {
                    go(lhs)?.checked_mul(c)
                } else {
                    go(rhs)?.checked_mul(super::ranges::const_int(lhs)?)
                }
            }
            _ => None,
        },
        // A signed `int` widened to `long`: the lanes' values lie between
        // the first lane's and the last's, both computed with their checks,
        // so none of them wrapped.
        ExprKind::Convert(inner)
            if inner.ty.scalar() == Some(Scalar::Int)
                && matches!(e.ty.scalar(), Some(Scalar::Int | Scalar::Long)) =>
        {
            go(inner)
        }
        _ => None,
    }
}

/// The locals a region's statements may hold in one vector for all lanes,
/// each with the values it is given (a compound assignment whole): those assigned only as a whole
/// statement (`=`, or `op=` with an operand of their own type) or declared
/// from a value that [`is_pure`], and never named in a branch or loop
/// condition or a loop step (which lane 0 evaluates for all lanes) nor
/// pointed to. Whether each is lane-private, of a vector type and worth a
/// vector is the emitter's question.
pub(crate) fn vector_targets(stmts: &[Stmt]) -> HashMap<LocalId, Vec<Expr>> {
    fn named(e: &Expr, out: &mut HashSet<LocalId>) {
        for_each_subexpr(e, &mut |x| {
            if let ExprKind::Local(l) = &x.kind {
                out.insert(*l);
            }
        });
    }
    let block = IrBlock {
        stmts: stmts.to_vec(),
    };
    let targets: RefCell<HashMap<LocalId, Vec<Expr>>> = RefCell::new(HashMap::new());
    let excluded = RefCell::new(HashSet::new());
    // Writes by whole statements, and by any expression.
    let statement_writes: RefCell<HashMap<LocalId, usize>> = RefCell::new(HashMap::new());
    let mut writes: HashMap<LocalId, usize> = HashMap::new();
    walk_block(
        &block,
        &mut |s| match &s.kind {
            StmtKind::Let {
                local,
                init: Some(Init::Expr(e)),
            } if is_pure(e) => {
                targets
                    .borrow_mut()
                    .entry(*local)
                    .or_default()
                    .push(e.clone());
            }
            StmtKind::Expr(e) => {
                if let Some(l) = vector_assignment(e) {
                    // The value assigned, or the whole `l op= value`.
                    let given = match &e.kind {
                        ExprKind::Assign { value, .. } => (**value).clone(),
                        _ => e.clone(),
                    };
                    targets.borrow_mut().entry(l).or_default().push(given);
                    *statement_writes.borrow_mut().entry(l).or_default() += 1;
                }
            }
            StmtKind::If { cond, .. } => named(cond, &mut excluded.borrow_mut()),
            StmtKind::Loop { cond, step, .. } => {
                for e in cond.iter().chain(step.iter()) {
                    named(e, &mut excluded.borrow_mut());
                }
            }
            _ => {}
        },
        &mut |e| match &e.kind {
            ExprKind::AddrOf(inner) => named(inner, &mut excluded.borrow_mut()),
            ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } => {
                if let ExprKind::Local(l) = &target.kind {
                    *writes.entry(*l).or_default() += 1;
                }
            }
            _ => {}
        },
    );
    let excluded = excluded.into_inner();
    let statement_writes = statement_writes.into_inner();
    let mut targets = targets.into_inner();
    targets.retain(|l, _| {
        !excluded.contains(l)
            && writes.get(l).copied().unwrap_or(0) == statement_writes.get(l).copied().unwrap_or(0)
    });
    targets
}

/// The local an expression statement assigns as a whole, when the vector
/// path can do it: `l = pure` or `l op= pure` with an operand of `l`'s type
/// and an arithmetic or bitwise operator.
pub(crate) fn vector_assignment(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Assign { target, value } if is_pure(value) => match target.kind {
            ExprKind::Local(l) => Some(l),
            _ => None,
        },
        ExprKind::CompoundAssign { op, target, value }
            if is_pure(value) && value.ty == target.ty && vector_op(*op) =>
        {
            match target.kind {
                ExprKind::Local(l) => Some(l),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Operators the vector path computes with both operands of one type
/// (lane by lane where no vector instruction does it with C++'s checks).
pub(crate) fn vector_op(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor
    )
}

impl Facts<'_> {
    /// The kernel's locals never written after their declaration whose
    /// value grows by a fixed amount from one lane to the next (see
    /// [`lane_step`]), with that amount.
    pub(crate) fn lane_step_locals(
        &mut self,
        kernel: FuncId,
        axis: LaneAxis,
        known: &HashSet<LocalId>,
    ) -> HashMap<LocalId, i64> {
        let Some(body) = &self.prog.function(kernel).body else {
            return HashMap::new();
        };
        let lets = let_initialisers(body);
        let lets: Vec<(LocalId, Expr)> = lets
            .into_iter()
            .filter(|(l, _)| !self.is_mutated(kernel, *l))
            .collect();
        let mut steps: HashMap<LocalId, i64> = HashMap::new();
        loop {
            let before = steps.len();
            for (l, e) in &lets {
                if !steps.contains_key(l)
                    && let Some(s) = lane_step(e, &steps, known, axis)
                {
                    steps.insert(*l, s);
                }
            }
            if steps.len() == before {
                return steps;
            }
        }
    }
}

/// How each component of an index expression grows from lane to lane (see
/// [`lane_step`]): the work-item's coordinates (see
/// [`LaneAxis::is_coordinates`]), or an index built from components.
pub(crate) fn shape_steps(
    e: &Expr,
    steps: &HashMap<LocalId, i64>,
    known: &HashSet<LocalId>,
    axis: LaneAxis,
) -> Option<Vec<i64>> {
    if axis.is_coordinates(e) {
        let rank = match e.ty {
            tessera_ir::Type::Index(r) => usize::from(r),
            _ => return None,
        };
        return Some((0..rank).map(|d| i64::from(d == axis.dim)).collect());
    }
    match &e.kind {
        ExprKind::Intrinsic {
            op: Intrinsic::MakeShape,
            args,
        } => args
            .iter()
            .map(|a| {
                // Components are converted to `int`: only `int` ones keep
                // their step.
                if a.ty.scalar() == Some(Scalar::Int) {
                    lane_step(a, steps, known, axis)
                } else {
                    None
                }
            })
            .collect(),
        _ => None,
    }
}
