//! Facts read while emitting: value ranges of expressions, counted loops and
//! the work an iteration stands for, for the checks and polls they remove.

use super::*;

impl Lower<'_, '_, '_> {
    /// The most iterations of `lp` when it is an innermost loop (no loop or
    /// call inside) counted from its counter's declaration right before it
    /// (`prev`) to a bound of known range, at most [`SHORT_LOOP`]. Such a
    /// loop never polls; the loops around it are charged for it.
    pub(super) fn innermost_short(
        &self,
        prev: Option<(LocalId, Option<Expr>)>,
        lp: &Stmt,
    ) -> Option<i64> {
        let StmtKind::Loop {
            cond: Some(cond),
            test_first: true,
            body,
            step: Some(step),
        } = &lp.kind
        else {
            return None;
        };
        let (declared, Some(init)) = prev? else {
            return None;
        };
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return None;
        };
        let ExprKind::Local(k) = &lhs.kind else {
            return None;
        };
        if *k != declared {
            return None;
        }
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
                    && self.range_of(value).is_some_and(|(lo, _)| lo > 0)
            }
            _ => false,
        };
        if !step_ok {
            return None;
        }
        let inner = std::cell::Cell::new(false);
        walk_block(
            body,
            &mut |s| {
                if matches!(s.kind, StmtKind::Loop { .. }) {
                    inner.set(true);
                }
            },
            &mut |e| {
                if matches!(e.kind, ExprKind::Call { .. }) {
                    inner.set(true);
                }
            },
        );
        let mut written = HashSet::new();
        mutated_locals(self.prog, body, &mut written);
        if inner.get() || written.contains(k) {
            return None;
        }
        let (start, _) = self.range_of(&init)?;
        let (_, limit) = self.range_of(rhs)?;
        let hi = match op {
            BinOp::Lt => limit.checked_sub(1)?,
            BinOp::Le => limit,
            _ => return None,
        };
        let trips = hi.saturating_sub(start).saturating_add(1).max(0);
        (trips <= SHORT_LOOP).then_some(trips)
    }

    /// True when the current function writes local `l` after declaring it.
    pub(super) fn is_mutated(&mut self, l: LocalId) -> bool {
        let func = self.scope().func;
        if !self.mutated.contains_key(&func) {
            let mut set = HashSet::new();
            if let Some(body) = &self.prog.functions[func.0 as usize].body {
                mutated_locals(self.prog, body, &mut set);
            }
            self.mutated.insert(func, set);
        }
        self.mutated.get(&func).is_some_and(|m| m.contains(&l))
    }

    /// The range (inclusive) an `int`-like expression's value is known to
    /// lie in, when it is known.
    pub(super) fn range_of(&self, e: &Expr) -> Option<(i64, i64)> {
        let s = e.ty.scalar()?;
        if s.is_floating() || s == Scalar::Bool {
            return None;
        }
        let (tlo, thi) = int_limits(s);
        let r = match &e.kind {
            ExprKind::Const(Const::Int(n)) => (*n, *n),
            ExprKind::Local(l) => *self.ranges.get(&(self.scope().id, *l))?,
            ExprKind::Convert(inner) => {
                let is = inner.ty.scalar()?;
                if is.is_floating() || is == Scalar::Bool {
                    return None;
                }
                self.range_of(inner)?
            }
            // `x & m` with `m >= 0` lies in `[0, m]` whatever `x` is; `x % n`
            // with `x >= 0` and `n > 0` in `[0, n - 1]`.
            ExprKind::Binary {
                op: BinOp::BitAnd,
                lhs,
                rhs,
            } if self
                .range_of(rhs)
                .or_else(|| self.range_of(lhs))
                .is_some_and(|(lo, _)| lo >= 0) =>
            {
                let m = self.range_of(rhs).filter(|(lo, _)| *lo >= 0);
                let m = m.or_else(|| self.range_of(lhs).filter(|(lo, _)| *lo >= 0))?;
                (0, m.1)
            }
            ExprKind::Binary {
                op: BinOp::Rem,
                lhs,
                rhs,
            } => {
                let (a, b) = (self.range_of(lhs)?, self.range_of(rhs)?);
                if a.0 < 0 || b.0 <= 0 {
                    return None;
                }
                (0, (b.1 - 1).min(a.1))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.range_of(lhs)?, self.range_of(rhs)?);
                let c = |x: i64, y: i64| -> Option<i64> {
                    match op {
                        BinOp::Add => x.checked_add(y),
                        BinOp::Sub => x.checked_sub(y),
                        BinOp::Mul => x.checked_mul(y),
                        _ => None,
                    }
                };
                let (ylo, yhi) = if *op == BinOp::Sub { (b.1, b.0) } else { b };
                let corners = [c(a.0, ylo)?, c(a.0, yhi)?, c(a.1, ylo)?, c(a.1, yhi)?];
                let lo = corners.iter().copied().min()?;
                let hi = corners.iter().copied().max()?;
                (lo, hi)
            }
            ExprKind::Intrinsic {
                op: Intrinsic::ShapeComponent,
                args,
            } => {
                let k = const_int(&args[1])?;
                let ExprKind::Intrinsic {
                    op: Intrinsic::TiledIndexPart(TiledIndexPart::Local),
                    ..
                } = &args[0].kind
                else {
                    return None;
                };
                let shape = self.layout.tile?;
                let d = *shape.dims().get(usize::try_from(k).ok()?)?;
                (0, i64::from(d) - 1)
            }
            _ => return None,
        };
        (r.0 >= tlo && r.1 <= thi).then_some(r)
    }

    /// For `for (...; k < n; ++k)` (or `k <= n`, `k++`, `k += c` with
    /// `c > 0`) whose body does not write `k`, where `k` starts in a known
    /// range and `n` is known: the counter's key, its range in the body, and
    /// the most iterations the loop can make.
    pub(super) fn counted_loop(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &IrBlock,
    ) -> Option<CountedLoop> {
        let ExprKind::Binary { op, lhs, rhs } = &cond?.kind else {
            return None;
        };
        let ExprKind::Local(k) = &lhs.kind else {
            return None;
        };
        let step_ok = match &step?.kind {
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
                    && self.range_of(value).is_some_and(|(lo, _)| lo > 0)
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
        // The counter's first value is its declaration's only when the
        // declaration comes right before the loop.
        if self.prev_let != Some(*k) {
            return None;
        }
        let depth = self.scope().id;
        let (start, _) = *self.init_ranges.get(&(depth, *k))?;
        let (_, limit) = self.range_of(rhs)?;
        let hi = match op {
            BinOp::Lt => limit.checked_sub(1)?,
            BinOp::Le => limit,
            _ => return None,
        };
        if hi < start {
            return None;
        }
        let trips = hi.saturating_sub(start).saturating_add(1);
        Some(((depth, *k), (start, hi), trips))
    }
}

/// Units of work one iteration of a loop with body `body` stands for: one,
/// plus every iteration of the innermost short loops inside it, which do
/// not poll (see `Lower::innermost_short`).
pub(crate) fn loop_charge(lw: &Lower<'_, '_, '_>, body: &IrBlock) -> i64 {
    fn block(lw: &Lower<'_, '_, '_>, b: &IrBlock) -> i64 {
        let mut total: i64 = 0;
        let mut prev: Option<(LocalId, Option<Expr>)> = None;
        for s in &b.stmts {
            let add = match &s.kind {
                StmtKind::Loop { .. } => lw.innermost_short(prev.clone(), s).unwrap_or(0),
                StmtKind::Block(inner) => block(lw, inner),
                StmtKind::If { then, els, .. } => {
                    block(lw, then).max(els.as_ref().map_or(0, |e| block(lw, e)))
                }
                StmtKind::Switch { arms, .. } => arms.iter().map(|a| block(lw, &a.body)).sum(),
                _ => 0,
            };
            total = total.saturating_add(add);
            prev = match &s.kind {
                StmtKind::Let { local, init } => {
                    let e = match init {
                        Some(Init::Expr(e)) => Some(e.clone()),
                        _ => None,
                    };
                    Some((*local, e))
                }
                _ => None,
            };
        }
        total
    }
    block(lw, body).saturating_add(1).min(FUEL)
}
