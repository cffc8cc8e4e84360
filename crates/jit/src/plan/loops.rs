//! Counted loops: one recogniser for `for (k = start; k < n; ++k)` and its
//! variants, used both to give the counter a range inside the body (which
//! drops bounds and overflow checks) and to find the short loop nests
//! that need not poll.

use super::facts::Facts;
use super::locals::mutated_locals;
use super::ranges::const_int;
use std::collections::HashSet;
use tessera_ir::visit::walk_block;
use tessera_ir::{BinOp, Block as IrBlock, Expr, ExprKind, Init, LocalId, Scalar, Stmt, StmtKind};

/// Loop iterations between two polls.
pub(crate) const FUEL: i64 = 1 << 16;

/// A counted loop of at most this many iterations does not poll.
pub(crate) const SHORT_LOOP: i64 = 1 << 16;

/// A loop of at most this many iterations may be unrolled.
pub(crate) const UNROLL_TRIPS: i64 = 16;

/// Statements and expressions in the body of a loop that may be unrolled.
const UNROLL_BODY: usize = 24;

/// A counted loop: its counter's key (scope id and local), the counter's
/// range in the body, and the most iterations it can make.
pub(crate) type CountedLoop = ((usize, LocalId), (i64, i64), i64);

/// The condition and step of a counted loop, as the recogniser found them.
struct Counter<'e> {
    /// The counter, compared on the left of the condition.
    local: LocalId,
    /// The bound it is compared with.
    bound: &'e Expr,
    /// `k <= n` rather than `k < n`.
    inclusive: bool,
}

impl Facts<'_> {
    /// Recognises `k < n` (or `k <= n`) with a step `++k`, `k++` or `k += c`
    /// (`c` known positive) and a body that does not write `k`.
    fn counter<'e>(
        &self,
        scope: usize,
        cond: &'e Expr,
        step: &Expr,
        body: &IrBlock,
    ) -> Option<Counter<'e>> {
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return None;
        };
        let ExprKind::Local(k) = &lhs.kind else {
            return None;
        };
        let inclusive = match op {
            BinOp::Lt => false,
            BinOp::Le => true,
            _ => return None,
        };
        let step_ok = match &step.kind {
            ExprKind::IncDec {
                increment: true,
                target,
                ..
            } => matches!(&target.kind, ExprKind::Local(t) if t == k),
            ExprKind::CompoundAssign {
                op: BinOp::Add,
                target,
                value,
            } => {
                matches!(&target.kind, ExprKind::Local(t) if t == k)
                    && self.range_of(scope, value).is_some_and(|(lo, _)| lo > 0)
            }
            _ => false,
        };
        if !step_ok {
            return None;
        }
        let mut written = HashSet::new();
        mutated_locals(self.prog, body, &mut written);
        if written.contains(k) {
            return None;
        }
        Some(Counter {
            local: *k,
            bound: rhs,
            inclusive,
        })
    }

    /// The amount a loop's step `k += c` adds when `c` is one known
    /// value (`Some(1)` for `++k` and `k++`).
    fn constant_step(&self, scope: usize, step: &Expr) -> Option<i64> {
        match &step.kind {
            ExprKind::IncDec {
                increment: true, ..
            } => Some(1),
            ExprKind::CompoundAssign {
                op: BinOp::Add,
                value,
                ..
            } => match self.range_of(scope, value)? {
                (lo, hi) if lo == hi => Some(lo),
                _ => None,
            },
            _ => None,
        }
    }

    /// The counter's last value in the body, from the bound's range.
    fn last_value(&self, scope: usize, counter: &Counter<'_>) -> Option<i64> {
        let (_, limit) = self.range_of(scope, counter.bound)?;
        if counter.inclusive {
            Some(limit)
        } else {
            limit.checked_sub(1)
        }
    }

    /// For a counted loop whose counter is declared right before it (the
    /// last declaration seen, `prev_let`) with an initial value of known
    /// range: the counter's key, its range in the body, and the most
    /// iterations the loop can make.
    pub(crate) fn counted_loop(
        &self,
        scope: usize,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &IrBlock,
    ) -> Option<CountedLoop> {
        let counter = self.counter(scope, cond?, step?, body)?;
        let k = counter.local;
        // The counter's first value is its declaration's only when the
        // declaration comes right before the loop.
        if self.prev_let != Some(k) {
            return None;
        }
        let (start, start_hi) = *self.init_ranges.get(&(scope, k))?;
        let mut hi = self.last_value(scope, &counter)?;
        if hi < start {
            return None;
        }
        // From a known start by a known step (`k0 += 16`), the counter
        // takes only the values `start + i * step` in the body: the last
        // one below the bound is a whole number of steps from the start.
        if let Some(step) = self.constant_step(scope, step?)
            && start == start_hi
            && step > 1
            && let Some(span) = hi.checked_sub(start)
        {
            hi = start + span / step * step;
        }
        let trips = hi.saturating_sub(start).saturating_add(1);
        Some(((scope, k), (start, hi), trips))
    }

    /// The most iterations of `lp`, its nested loops' included, when it is
    /// a short loop nest: a counted loop (tested first, no call inside)
    /// whose counter is declared right before it (`prev`), whose nested
    /// loops are short nests themselves, at most [`SHORT_LOOP`] in all.
    /// Such a loop never polls; the loops around it are charged for it.
    pub(crate) fn short_loop(
        &self,
        scope: usize,
        prev: Option<(LocalId, Option<Expr>)>,
        lp: &Stmt,
    ) -> Option<i64> {
        let (cond, body, step) = for_parts(lp)?;
        let (declared, Some(init)) = prev? else {
            return None;
        };
        let counter = self.counter(scope, cond, step, body)?;
        if counter.local != declared {
            return None;
        }
        let call = std::cell::Cell::new(false);
        walk_block(body, &mut |_| {}, &mut |e| {
            if matches!(e.kind, ExprKind::Call { .. }) {
                call.set(true);
            }
        });
        if call.get() {
            return None;
        }
        let nested = self.nest_charge(scope, body)?;
        let (start, _) = self.range_of(scope, &init)?;
        let hi = self.last_value(scope, &counter)?;
        let trips = hi.saturating_sub(start).saturating_add(1).max(0);
        let total = trips.saturating_mul(nested.saturating_add(1));
        (total <= SHORT_LOOP).then_some(total)
    }

    /// The iterations of the loops in `b` (one iteration of a short nest's
    /// body), when every one of them is a short nest.
    fn nest_charge(&self, scope: usize, b: &IrBlock) -> Option<i64> {
        let mut total: i64 = 0;
        let mut prev: Option<(LocalId, Option<Expr>)> = None;
        for s in &b.stmts {
            let add = match &s.kind {
                StmtKind::Loop { .. } => self.short_loop(scope, prev.clone(), s)?,
                StmtKind::Block(inner) => self.nest_charge(scope, inner)?,
                StmtKind::If { then, els, .. } => {
                    let e = match els {
                        Some(e) => self.nest_charge(scope, e)?,
                        None => 0,
                    };
                    self.nest_charge(scope, then)?.max(e)
                }
                StmtKind::Switch { arms, .. } => {
                    let mut sum: i64 = 0;
                    for a in arms {
                        sum = sum.saturating_add(self.nest_charge(scope, &a.body)?);
                    }
                    sum
                }
                StmtKind::Try { .. } => return None,
                _ => 0,
            };
            total = total.saturating_add(add);
            prev = let_of(s);
        }
        Some(total)
    }

    /// The counter and its values, one per iteration, when `lp` is worth
    /// emitting once per iteration (unrolled): a short loop nest with no
    /// loop inside, tested first, counted from a constant start (its
    /// declaration `prev`) by steps of one up to a constant bound, at most
    /// [`UNROLL_TRIPS`] iterations, whose body is small and has no jump
    /// (`break`, `continue`, `return`, `goto`, `switch`). The iterations
    /// then run straight through, each with its counter a constant (its
    /// bounds checks proven, its addresses folded), and the step after the
    /// last iteration cannot overflow: the loop's own tests would all pass.
    pub(crate) fn unrolled(
        &self,
        scope: usize,
        prev: Option<(LocalId, Option<Expr>)>,
        lp: &Stmt,
    ) -> Option<(LocalId, Vec<i64>)> {
        let StmtKind::Loop {
            cond: Some(cond),
            test_first: true,
            body,
            step: Some(step),
        } = &lp.kind
        else {
            return None;
        };
        self.short_loop(scope, prev.clone(), lp)?;
        let (declared, Some(init)) = prev? else {
            return None;
        };
        let counter = self.counter(scope, cond, step, body)?;
        if counter.local != declared || !steps_by_one(step) {
            return None;
        }
        let start = const_int(&init)?;
        let bound = const_int(counter.bound)?;
        let last = if counter.inclusive {
            bound
        } else {
            bound.checked_sub(1)?
        };
        // An integer counter, whose every value (and the one after the
        // last step) its type holds.
        let ExprKind::Binary { lhs, .. } = &cond.kind else {
            return None;
        };
        let ty = lhs.ty.scalar()?;
        if ty.is_floating() || ty == Scalar::Bool {
            return None;
        }
        let (lo, hi) = ty.int_range();
        let after = last.checked_add(1)?;
        if start < lo || after > hi || last < start || last - start >= UNROLL_TRIPS {
            return None;
        }
        let size = std::cell::Cell::new(0usize);
        let jumps = std::cell::Cell::new(false);
        walk_block(
            body,
            &mut |s| {
                size.set(size.get() + 1);
                if matches!(
                    s.kind,
                    StmtKind::Loop { .. }
                        | StmtKind::Break
                        | StmtKind::Continue
                        | StmtKind::Return(_)
                        | StmtKind::Goto(_)
                        | StmtKind::Label(_)
                        | StmtKind::Switch { .. }
                        | StmtKind::Try { .. }
                        | StmtKind::Barrier(_)
                ) {
                    jumps.set(true);
                }
            },
            &mut |_| size.set(size.get() + 1),
        );
        if jumps.get() || size.get() > UNROLL_BODY {
            return None;
        }
        Some((counter.local, (start..=last).collect()))
    }

    /// Units of work one iteration of a loop with body `body` stands for:
    /// one, plus every iteration of the short loop nests inside it,
    /// which do not poll (see [`Facts::short_loop`]).
    pub(crate) fn loop_charge(&self, scope: usize, body: &IrBlock) -> i64 {
        self.block_charge(scope, body).saturating_add(1).min(FUEL)
    }

    fn block_charge(&self, scope: usize, b: &IrBlock) -> i64 {
        let mut total: i64 = 0;
        let mut prev: Option<(LocalId, Option<Expr>)> = None;
        for s in &b.stmts {
            let add = match &s.kind {
                StmtKind::Loop { .. } => self.short_loop(scope, prev.clone(), s).unwrap_or(0),
                StmtKind::Block(inner) => self.block_charge(scope, inner),
                StmtKind::If { then, els, .. } => self
                    .block_charge(scope, then)
                    .max(els.as_ref().map_or(0, |e| self.block_charge(scope, e))),
                StmtKind::Switch { arms, .. } => {
                    arms.iter().map(|a| self.block_charge(scope, &a.body)).sum()
                }
                _ => 0,
            };
            total = total.saturating_add(add);
            prev = let_of(s);
        }
        total
    }
}

/// The condition, body and step of a loop tested before each trip that has
/// both (a `for` with a condition and a step).
pub(crate) fn for_parts(lp: &Stmt) -> Option<(&Expr, &IrBlock, &Expr)> {
    match &lp.kind {
        StmtKind::Loop {
            cond: Some(cond),
            test_first: true,
            body,
            step: Some(step),
        } => Some((cond, body, step)),
        _ => None,
    }
}

/// Whether `step` adds exactly one to its target: `++k`, `k++`, `k += 1`.
pub(crate) fn steps_by_one(step: &Expr) -> bool {
    match &step.kind {
        ExprKind::IncDec {
            increment: true, ..
        } => true,
        ExprKind::CompoundAssign {
            op: BinOp::Add,
            value,
            ..
        } => const_int(value) == Some(1),
        _ => false,
    }
}

/// The local `s` declares and its initial value, if it is a declaration.
fn let_of(s: &Stmt) -> Option<(LocalId, Option<Expr>)> {
    match &s.kind {
        StmtKind::Let { local, init } => {
            let e = match init {
                Some(Init::Expr(e)) => Some(e.clone()),
                _ => None,
            };
            Some((*local, e))
        }
        _ => None,
    }
}
