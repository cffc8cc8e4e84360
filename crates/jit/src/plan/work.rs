//! Whether a host loop is worth compiling: a bound on the work it does.
//!
//! Compiling a host loop costs its lowering on the interpreter's thread
//! (0.3-0.5 ms for a loop of a few statements) before it can run, and its
//! machine code on another. A loop the interpreter finishes in less time
//! than that is better left to it: the checks at the end of a benchmark,
//! for one, that compare a few hundred sampled results. A loop is *little*
//! when a bound on the expression nodes and statements it runs is known and
//! at most [`LITTLE_HOST_WORK`]: it is a counted loop over constants whose
//! body holds only such loops, calls of functions made of such code, and
//! operations of bounded cost. Anything else (a bound read from memory, a
//! `while`, a kernel launch, a container operation over all its elements,
//! a copy of a struct or array, a call through a pointer) is not known to
//! be little and is compiled as before.

use crate::plan::loops::{for_parts, steps_by_one};
use crate::plan::ranges::const_int;
use std::collections::HashSet;
use tessera_ir::visit::for_each_subexpr;
use tessera_ir::{
    BinOp, Block as IrBlock, Expr, ExprKind, FuncId, Init, Intrinsic, Program, Stmt, StmtId,
    StmtKind, Type,
};

/// The most expression nodes and statements a host loop may run and still
/// be left to the interpreter: at some 5 ns a node (a sampled check loop
/// of 65,536 trips and 35 nodes a trip took 9-13 ms), about 0.15 ms of its
/// time, half of what lowering such a loop takes.
pub(crate) const LITTLE_HOST_WORK: u64 = 1 << 15;

/// Calls nested deeper than this are not followed (their work is unknown).
const MAX_CALL_DEPTH: u32 = 4;

/// Whether `stmt`, a loop in the body of `func`, is left to the
/// interpreter for doing little work: always false in a build with the
/// feature `compile-every-host-loop` (the agreement tests').
pub(crate) fn little_work(prog: &Program, func: FuncId, stmt: &Stmt) -> bool {
    !cfg!(feature = "compile-every-host-loop") && surely_little(prog, func, stmt)
}

/// Whether `stmt`, a loop in the body of `func`, surely does little work
/// (see the module comment).
pub(crate) fn surely_little(prog: &Program, func: FuncId, stmt: &Stmt) -> bool {
    let Some(body) = prog.get_function(func).and_then(|f| f.body.as_ref()) else {
        return false;
    };
    let mut work = Work {
        prog,
        left: LITTLE_HOST_WORK,
    };
    let prev = preceding(body, stmt.id);
    work.counted_loop(prev, stmt, 0).is_some()
}

/// The statement right before the one numbered `id` in its block, if any.
fn preceding(block: &IrBlock, id: StmtId) -> Option<&Stmt> {
    for (i, s) in block.stmts.iter().enumerate() {
        if s.id == id {
            return i.checked_sub(1).and_then(|p| block.stmts.get(p));
        }
        let found = match &s.kind {
            StmtKind::Block(b) => preceding(b, id),
            StmtKind::If { then, els, .. } => {
                preceding(then, id).or_else(|| els.as_ref().and_then(|e| preceding(e, id)))
            }
            StmtKind::Loop { body, .. } => preceding(body, id),
            StmtKind::Switch { arms, .. } => arms.iter().find_map(|a| preceding(&a.body, id)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Work counted down from a budget: each step returns `None` when the
/// work is unknown or passes what is left.
struct Work<'p> {
    prog: &'p Program,
    left: u64,
}

impl Work<'_> {
    fn take(&mut self, n: u64) -> Option<()> {
        self.left = self.left.checked_sub(n)?;
        Some(())
    }

    /// A counted loop `for (int k = a; k < b; ++k)` (or `<=`, `k++`,
    /// `k += 1`) with constants `a` and `b`, its counter declared by `prev`
    /// and not written in the body: its trips times the work of one.
    fn counted_loop(&mut self, prev: Option<&Stmt>, lp: &Stmt, depth: u32) -> Option<()> {
        let (cond, body, step) = for_parts(lp)?;
        let StmtKind::Let {
            local,
            init: Some(Init::Expr(init)),
        } = &prev?.kind
        else {
            return None;
        };
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return None;
        };
        let inclusive = match op {
            BinOp::Lt => 0,
            BinOp::Le => 1,
            _ => return None,
        };
        if !matches!(&lhs.kind, ExprKind::Local(k) if k == local) || !steps_by_one(step) {
            return None;
        }
        let stepped = match &step.kind {
            ExprKind::IncDec { target, .. } | ExprKind::CompoundAssign { target, .. } => target,
            _ => return None,
        };
        if !matches!(&stepped.kind, ExprKind::Local(k) if k == local) {
            return None;
        }
        let mut written = HashSet::new();
        crate::plan::locals::mutated_locals(self.prog, body, &mut written);
        if written.contains(local) {
            return None;
        }
        let trips = const_int(rhs)?
            .checked_add(inclusive)?
            .checked_sub(const_int(init)?)?
            .max(0);
        let trips = u64::try_from(trips).ok()?;
        // One trip's work, within what is left for all of them.
        let mut one = Work {
            prog: self.prog,
            left: self.left / trips.max(1),
        };
        one.take(1)?;
        one.expr(cond, depth)?;
        one.expr(step, depth)?;
        one.block(body, depth)?;
        let per_trip = self.left / trips.max(1) - one.left;
        self.take(per_trip.checked_mul(trips)?)
    }

    fn block(&mut self, block: &IrBlock, depth: u32) -> Option<()> {
        let mut prev = None;
        for s in &block.stmts {
            self.take(1)?;
            match &s.kind {
                StmtKind::Loop { .. } => self.counted_loop(prev, s, depth)?,
                StmtKind::Block(b) => self.block(b, depth)?,
                StmtKind::If { cond, then, els } => {
                    self.expr(cond, depth)?;
                    self.block(then, depth)?;
                    if let Some(els) = els {
                        self.block(els, depth)?;
                    }
                }
                StmtKind::Switch { value, arms } => {
                    self.expr(value, depth)?;
                    for arm in arms {
                        self.block(&arm.body, depth)?;
                    }
                }
                StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e, depth)?,
                StmtKind::Let { init, .. } => match init {
                    None => {}
                    Some(Init::Expr(e)) if matches!(e.ty, Type::Scalar(_)) => {
                        self.expr(e, depth)?;
                    }
                    // An object copied, or built element by element: its
                    // size is not counted here.
                    Some(_) => return None,
                },
                StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) => {}
                // A jump may loop; the rest does not belong in host loops
                // this counts.
                _ => return None,
            }
            prev = Some(s);
        }
        Some(())
    }

    /// An expression's nodes, and the work of the functions it calls.
    fn expr(&mut self, e: &Expr, depth: u32) -> Option<()> {
        let mut known = true;
        let mut calls = Vec::new();
        let mut count = 0u64;
        for_each_subexpr(e, &mut |n| {
            count += 1;
            match &n.kind {
                ExprKind::Call { func, .. } => calls.push(*func),
                ExprKind::Intrinsic { op, .. } => known &= bounded(op),
                // A copy of an object costs its size, not one node.
                ExprKind::Assign { .. } if !matches!(n.ty, Type::Scalar(_)) => known = false,
                ExprKind::VirtualCall { .. }
                | ExprKind::CallPtr { .. }
                | ExprKind::Launch { .. }
                | ExprKind::New { .. }
                | ExprKind::Delete { .. }
                | ExprKind::Aggregate(_) => known = false,
                _ => {}
            }
        });
        if !known {
            return None;
        }
        self.take(count)?;
        for f in calls {
            if depth >= MAX_CALL_DEPTH {
                return None;
            }
            let body = self.prog.get_function(f)?.body.as_ref()?;
            self.block(body, depth + 1)?;
        }
        Some(())
    }
}

/// Whether an intrinsic's cost does not grow with the size of what it is
/// given (an element, not a container; one value printed).
fn bounded(op: &Intrinsic) -> bool {
    matches!(
        op,
        Intrinsic::Math(_)
            | Intrinsic::Atomic(_)
            | Intrinsic::MakeShape
            | Intrinsic::ShapeComponent
            | Intrinsic::ShapeArith(_)
            | Intrinsic::ExtentSize
            | Intrinsic::ExtentContains
            | Intrinsic::TiledIndexPart(_)
            | Intrinsic::ViewElement
            | Intrinsic::ViewExtent
            | Intrinsic::VectorSize
            | Intrinsic::VectorElement
            | Intrinsic::VectorAt
            | Intrinsic::Print
            | Intrinsic::Stdout
            | Intrinsic::Stderr
            | Intrinsic::Manipulator(_)
            | Intrinsic::Rand
    )
}
