//! Lane shape: whether a region can run neighbouring work-items
//! interleaved, four (or two) per step, and which of its locals the lanes
//! share (loop counters and values computed from uniform ones).

use super::facts::Facts;
use super::locals::referenced_locals;
use super::uniform::{LaneAxis, is_uniform, lane_invariant, uniform_fixpoint};
use super::vector::is_pure;
use std::collections::{HashMap, HashSet};
use tessera_ir::visit::{walk_block, walk_stmt};
use tessera_ir::{
    Block as IrBlock, Expr, ExprKind, FuncId, Init, Intrinsic, LocalId, Program, Space, Stmt,
    StmtKind, Type,
};

/// How a region runs interleaved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LaneShape {
    /// Work-items per step: neighbours along the tile's last dimension.
    pub(crate) lanes: usize,
    /// Locals with one variable for all lanes: they hold the same value in
    /// every lane.
    pub(crate) shared: HashSet<LocalId>,
}

impl Facts<'_> {
    /// Whether a region can run several neighbouring work-items at once,
    /// statement by statement ("lanes"), and which locals the lanes share.
    ///
    /// Only a region without atomics whose every loop condition has the
    /// same value in every work-item, and whose branches do too unless
    /// they are short with a condition that changes nothing (those are
    /// masked: the lanes run the branch on vectors when they all take it,
    /// and one by one when they differ). Between two
    /// barriers, work-items of a tile can only see each other's writes
    /// through a data race (undefined in C++ AMP, reported by `--check`) or
    /// through atomics, so the order in which the lanes' statements
    /// interleave cannot change a race-free program's result. Its loops'
    /// counters are then shared by the lanes, and the work of several
    /// work-items overlaps instead of each waiting on its own chain of
    /// operations (a dot product's running sum, say).
    pub(crate) fn lane_shape(&self, stmts: &[Stmt]) -> Option<LaneShape> {
        if !self.lanes_allowed() {
            return None;
        }
        let shape = self.tile?;
        let last = *shape.dims().last()?;
        let lanes = [4u32, 2]
            .into_iter()
            .find(|l| last % l == 0 && last >= *l)? as usize;
        self.lanes_for(stmts, lanes)
    }

    /// The same for the body of a non-tiled kernel that never writes its
    /// index parameter: four lanes, neighbours along the launch's last
    /// dimension. The work-item loop takes four at a time while four are
    /// left in the row and the chunk, and one at a time otherwise. Its
    /// work-items are independent as a tile's are between barriers: only a
    /// race or an atomic could tell the order.
    pub(crate) fn flat_lane_shape(&self, stmts: &[Stmt]) -> Option<LaneShape> {
        if self.tile.is_some()
            || !self.lanes_allowed()
            || self.launch_items_bound() < FLAT_LANES_MIN_ITEMS
        {
            return None;
        }
        self.lane_axis(0).index?;
        self.lanes_for(stmts, 4)
    }

    /// Whether `stmts` can run in `lanes` lanes, and the locals they share.
    fn lanes_for(&self, stmts: &[Stmt], lanes: usize) -> Option<LaneShape> {
        let block = IrBlock {
            stmts: stmts.to_vec(),
        };
        // Nothing that calls, leaves early or waits, and no atomics.
        let ok = std::cell::Cell::new(true);
        walk_block(
            &block,
            &mut |s| {
                if matches!(
                    s.kind,
                    StmtKind::Break
                        | StmtKind::Continue
                        | StmtKind::Return(_)
                        | StmtKind::Switch { .. }
                        | StmtKind::Barrier(_)
                ) {
                    ok.set(false);
                }
                if let StmtKind::Let {
                    init: Some(Init::Ref(_)),
                    ..
                } = &s.kind
                {
                    ok.set(false);
                }
            },
            // Pointers run one work-item at a time: each lane would need
            // its own allocation's address for a pointer in the frame.
            &mut |e| match &e.kind {
                ExprKind::Call { func, .. }
                    if !lane_safe_call(self.prog, *func, &mut HashSet::new()) =>
                {
                    ok.set(false)
                }
                // One address per work-item, read from its frame.
                ExprKind::Local(l) if self.ref_addressed.contains(l) => ok.set(false),
                ExprKind::Intrinsic {
                    op: Intrinsic::Atomic(_),
                    ..
                } => ok.set(false),
                _ if matches!(e.ty, tessera_ir::Type::Ptr { .. } | tessera_ir::Type::Null) => {
                    ok.set(false)
                }
                _ => {}
            },
        );
        if !ok.get() {
            return None;
        }
        // Counters: declared here with a uniform value, compared with a
        // uniform bound, stepped uniformly, written by nothing else.
        let mut lets: HashMap<LocalId, Option<Expr>> = HashMap::new();
        let mut loops: Vec<(LocalId, Expr, Expr)> = Vec::new();
        let conds: std::cell::RefCell<Vec<Expr>> = std::cell::RefCell::new(Vec::new());
        walk_block(
            &block,
            &mut |s| match &s.kind {
                StmtKind::Let { local, init } => {
                    let e = match init {
                        Some(Init::Expr(e)) => Some(e.clone()),
                        _ => None,
                    };
                    lets.insert(*local, e);
                }
                StmtKind::Loop {
                    cond: Some(c),
                    step,
                    ..
                } => {
                    conds.borrow_mut().push(c.clone());
                    if let (ExprKind::Binary { lhs, rhs, .. }, Some(st)) = (&c.kind, step)
                        && let ExprKind::Local(k) = &lhs.kind
                    {
                        loops.push((*k, (**rhs).clone(), st.clone()));
                    }
                }
                // A branch whose condition may differ between the lanes is
                // masked (see `Emitter::masked_if`) when its condition
                // changes nothing and it is short: its body is emitted once
                // on vectors and once per lane.
                StmtKind::If { cond, .. } if is_pure(cond) && stmt_size(s) <= MASKED_IF_SIZE => {}
                StmtKind::If { cond, .. } => conds.borrow_mut().push(cond.clone()),
                _ => {}
            },
            // `&&`, `||` and `?:` inside an expression are evaluated by the
            // scalar code of each lane: they need not agree.
            &mut |_| {},
        );
        let conds = conds.into_inner();
        let mut writes: HashMap<LocalId, usize> = HashMap::new();
        walk_block(&block, &mut |_| {}, &mut |e| {
            if let ExprKind::Assign { target, .. }
            | ExprKind::CompoundAssign { target, .. }
            | ExprKind::IncDec { target, .. } = &e.kind
                && let ExprKind::Local(l) = &target.kind
            {
                *writes.entry(*l).or_default() += 1;
            }
        });
        // A local a call may write through a reference, or a pointer, is
        // each lane's own.
        let referenced = referenced_locals(self.prog, &block);
        // Only scalars are shared (declared from a value): a struct or an
        // array written through one of its parts (`s.v[k] += x`, which
        // `writes` does not count) is each lane's own.
        let shared: HashSet<LocalId> = lets
            .iter()
            .filter(|(_, init)| {
                init.as_ref()
                    .is_some_and(|e| matches!(e.ty, Type::Scalar(_)))
            })
            .map(|(l, _)| *l)
            .filter(|l| !referenced.contains(l))
            .filter(|l| {
                let w = writes.get(l).copied().unwrap_or(0);
                let counter = loops.iter().filter(|(k, _, _)| k == l).count();
                (w == 0 && counter == 0) || (w == 1 && counter == 1)
            })
            .collect();
        let shared = uniform_fixpoint(shared, &lets, &loops, &self.uniform);
        let mut known: HashSet<LocalId> = shared.clone();
        known.extend(self.uniform.iter().copied());
        if !conds.iter().all(|c| is_uniform(c, &known)) {
            return None;
        }
        Some(LaneShape { lanes, shared })
    }

    /// The kernel's locals whose value is the same in work-items that differ
    /// only in the coordinate of `axis`: never written after their
    /// declaration, declared from constants, captures, uniform counters, the
    /// tile's coordinates, the other dimensions' coordinates and such locals.
    pub(crate) fn lane_invariant_locals(
        &mut self,
        kernel: FuncId,
        axis: LaneAxis,
    ) -> HashSet<LocalId> {
        let Some(body) = &self.prog.function(kernel).body else {
            return HashSet::new();
        };
        let lets = let_initialisers(body);
        let mut set: HashSet<LocalId> = self.uniform.clone();
        loop {
            let before = set.len();
            for (l, e) in &lets {
                if !set.contains(l) && !self.is_mutated(kernel, *l) && lane_invariant(e, &set, axis)
                {
                    set.insert(*l);
                }
            }
            if set.len() == before {
                return set;
            }
        }
    }
}

/// The fewest work-items a non-tiled launch may have (by the bound its
/// kernel is compiled for) for its body to run in lanes: a smaller launch
/// takes less time than the lanes' second copy of the body takes to
/// compile.
pub(crate) const FLAT_LANES_MIN_ITEMS: i64 = 8192;

/// The largest `if` (in statements and expression nodes) whose lanes may
/// take different branches in a region run in lanes.
pub(crate) const MASKED_IF_SIZE: usize = 400;

/// Whether a call of `func` may run in lanes: a statement holding it runs
/// lane by lane (each lane the whole statement, the callee inlined), so
/// only what could tell the order of the work-items matters: no atomic,
/// barrier or `tile_static` variable in it or in what it calls.
fn lane_safe_call(prog: &Program, func: FuncId, seen: &mut HashSet<FuncId>) -> bool {
    if !seen.insert(func) {
        return true;
    }
    let f = prog.function(func);
    if f.locals.iter().any(|l| l.space == Space::TileStatic) {
        return false;
    }
    let Some(body) = &f.body else {
        return false;
    };
    let mut callees = Vec::new();
    let ok = std::cell::Cell::new(true);
    walk_block(
        body,
        &mut |s| {
            if matches!(s.kind, StmtKind::Barrier(_)) {
                ok.set(false);
            }
        },
        &mut |e| match &e.kind {
            ExprKind::Call { func, .. } => callees.push(*func),
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                ..
            }
            | ExprKind::CallPtr { .. } => ok.set(false),
            _ => {}
        },
    );
    ok.get() && callees.into_iter().all(|c| lane_safe_call(prog, c, seen))
}

/// The number of statements and expression nodes in `s`.
pub(crate) fn stmt_size(s: &Stmt) -> usize {
    let n = std::cell::Cell::new(0usize);
    walk_stmt(s, &mut |_| n.set(n.get() + 1), &mut |_| n.set(n.get() + 1));
    n.get()
}

/// Every local of `body` declared with an initialising expression, with
/// that expression, in order.
pub(super) fn let_initialisers(body: &IrBlock) -> Vec<(LocalId, Expr)> {
    initialisers(body, |init| match init {
        Init::Expr(e) => Some(e),
        _ => None,
    })
}

/// Every reference of `body`, with the place it is bound to, in order.
pub(super) fn ref_initialisers(body: &IrBlock) -> Vec<(LocalId, Expr)> {
    initialisers(body, |init| match init {
        Init::Ref(e) => Some(e),
        _ => None,
    })
}

/// Every local of `body` whose initialiser `pick` takes, with what it
/// gives, in order.
fn initialisers(body: &IrBlock, pick: fn(&Init) -> Option<&Expr>) -> Vec<(LocalId, Expr)> {
    let mut lets: Vec<(LocalId, Expr)> = Vec::new();
    walk_block(
        body,
        &mut |s| {
            if let StmtKind::Let {
                local,
                init: Some(init),
            } = &s.kind
                && let Some(e) = pick(init)
            {
                lets.push((*local, e.clone()));
            }
        },
        &mut |_| {},
    );
    lets
}
