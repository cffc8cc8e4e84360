//! The barrier rules, built on tile uniformity ([`super::uniformity`]):
//!
//! - E0408: a barrier (or a call of a function that waits at one) under an
//!   `if`, loop or `switch` whose condition can differ between the work-items
//!   of a tile (MSVC: C3561);
//! - E0409: a `return`, `break` or `continue` under such a condition that lets
//!   some work-items skip a barrier the others wait at.
//!
//! A function *contains a barrier* when its body, or a function it calls, has
//! one; calling it counts as a barrier at the call site.

use super::uniformity::{BREAKS, Uniformity, Why};
use std::collections::HashSet;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::facts::{Barriers, CallGraph};
use tessera_ir::visit;
use tessera_ir::{Block, Expr, ExprKind, FuncId, Intrinsic, Program, Stmt, StmtId, StmtKind};

/// Runs E0408 and E0409 on every tiled kernel.
pub fn check(
    program: &Program,
    graph: &CallGraph,
    barriers: &Barriers,
    kernels: &[Uniformity<'_>],
    out: &mut Vec<Diagnostic>,
) {
    for uni in kernels {
        for &f in &uni.funcs {
            let Some(body) = program.get_function(f).and_then(|func| func.body.as_ref()) else {
                continue;
            };
            let mut walker = BarrierWalk {
                program,
                graph,
                uni,
                barriers,
                f,
                conds: Vec::new(),
                frames: Vec::new(),
                events: Vec::new(),
                returns: Vec::new(),
                reported: HashSet::new(),
                out: &mut *out,
                current: None,
            };
            walker.block(body);
            walker.finish();
        }
    }
}

/// An enclosing condition that is not uniform.
#[derive(Clone, Copy, Debug)]
struct NuCond {
    /// The condition.
    span: Span,
    /// Why it is not uniform.
    why: Why,
    /// How many loops and `switch`es enclosed it.
    frames: usize,
}

/// An early exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExitKind {
    Return,
    Break,
    Continue,
}

/// An early exit under a non-uniform condition, waiting to learn which
/// barriers it skips.
#[derive(Clone, Copy, Debug)]
struct Exit {
    span: Span,
    kind: ExitKind,
    cond: NuCond,
    /// Barriers met before it.
    at: usize,
    /// For a `return`: barriers met before the outermost enclosing loop.
    loop_start: Option<usize>,
}

/// An enclosing loop or `switch`.
#[derive(Debug)]
struct Frame {
    is_loop: bool,
    /// Barriers met before it.
    start: usize,
    /// Barriers met before the end of the loop body.
    body_end: usize,
    exits: Vec<Exit>,
}

/// A barrier, or a call that waits at one.
#[derive(Clone, Copy, Debug)]
struct Event {
    span: Span,
    callee: Option<FuncId>,
}

/// Walks one function in program order for E0408 and E0409.
struct BarrierWalk<'a, 'p> {
    program: &'p Program,
    graph: &'a CallGraph,
    uni: &'a Uniformity<'p>,
    barriers: &'a Barriers,
    f: FuncId,
    conds: Vec<NuCond>,
    frames: Vec<Frame>,
    events: Vec<Event>,
    returns: Vec<Exit>,
    /// Conditions already reported for a barrier under them.
    reported: HashSet<Span>,
    out: &'a mut Vec<Diagnostic>,
    /// The statement whose own expressions are being walked: conditions are
    /// judged with what is known of the locals there.
    current: Option<StmtId>,
}

impl BarrierWalk<'_, '_> {
    fn push_cond(&mut self, cond: &Expr) -> bool {
        let why = match self.current {
            Some(s) => self.uni.why_at(self.f, s, cond),
            None => self.uni.why(self.f, cond),
        };
        match why {
            Some(why) => {
                self.conds.push(NuCond {
                    span: cond.span,
                    why,
                    frames: self.frames.len(),
                });
                true
            }
            None => false,
        }
    }

    fn pop_cond(&mut self, pushed: bool) {
        if pushed {
            self.conds.pop();
        }
    }

    fn block(&mut self, block: &Block) {
        for s in &block.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.current = Some(s.id);
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Let { init, .. } => {
                if let Some(init) = init {
                    visit::for_each_init_expr(init, &mut |e| self.expr(e));
                }
            }
            StmtKind::Block(b) => self.block(b),
            // Host code only: nothing of a kernel's barriers inside.
            StmtKind::Try { body, handlers } => {
                self.block(body);
                for h in handlers {
                    self.block(&h.body);
                }
            }
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                let pushed = self.push_cond(cond);
                let first = self.returns.len();
                self.block(then);
                let taken = self.returns.len();
                if let Some(els) = els {
                    self.block(els);
                    // A work-item that returned in the `then` branch would
                    // not have run the `else` branch: its barriers are not
                    // skipped by those returns.
                    let after = self.events.len();
                    for r in self.returns.get_mut(first..taken).into_iter().flatten() {
                        r.at = r.at.max(after);
                    }
                }
                self.pop_cond(pushed);
            }
            StmtKind::Loop {
                cond,
                test_first,
                body,
                step,
            } => {
                // The condition decides how often the body runs: it encloses
                // the whole loop, but exits inside are judged by what is
                // inside the loop only. When some work-items leave the loop
                // early, its counter differs afterwards and so the condition
                // does too: the exit is the error (E0409), not the condition.
                let leaves = self.uni.divergent_exit(self.f, body, BREAKS).is_some();
                let pushed = !leaves && cond.as_ref().is_some_and(|c| self.push_cond(c));
                self.frames.push(Frame {
                    is_loop: true,
                    start: self.events.len(),
                    body_end: 0,
                    exits: Vec::new(),
                });
                if *test_first && let Some(c) = cond {
                    self.expr(c);
                }
                self.block(body);
                self.current = Some(s.id);
                let body_end = self.events.len();
                if let Some(step) = step {
                    self.expr(step);
                }
                if !*test_first && let Some(c) = cond {
                    self.expr(c);
                }
                if let Some(mut frame) = self.frames.pop() {
                    frame.body_end = body_end;
                    self.resolve(frame);
                }
                self.pop_cond(pushed);
            }
            StmtKind::Switch { value, arms } => {
                self.expr(value);
                let pushed = self.push_cond(value);
                self.frames.push(Frame {
                    is_loop: false,
                    start: self.events.len(),
                    body_end: 0,
                    exits: Vec::new(),
                });
                for arm in arms {
                    self.block(&arm.body);
                }
                if let Some(mut frame) = self.frames.pop() {
                    frame.body_end = self.events.len();
                    self.resolve(frame);
                }
                self.pop_cond(pushed);
            }
            StmtKind::Break => self.exit(s.span, ExitKind::Break),
            StmtKind::Continue => self.exit(s.span, ExitKind::Continue),
            StmtKind::Return(value) => {
                if let Some(v) = value {
                    self.expr(v);
                }
                self.exit(s.span, ExitKind::Return);
            }
            // Host code only: amp code has no `goto` (E0304).
            StmtKind::Goto(_) | StmtKind::Label(_) => {}
            StmtKind::Barrier(_) => self.barrier(s.span, None),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Conditional { cond, then, els } => {
                self.expr(cond);
                let pushed = self.push_cond(cond);
                self.expr(then);
                self.expr(els);
                self.pop_cond(pushed);
            }
            ExprKind::Logical { lhs, rhs, .. } => {
                self.expr(lhs);
                let pushed = self.push_cond(lhs);
                self.expr(rhs);
                self.pop_cond(pushed);
            }
            ExprKind::Call { func, args } => {
                for a in args {
                    self.expr(a);
                }
                if self.barriers.contains(*func) {
                    self.barrier(e.span, Some(*func));
                }
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Barrier(_),
                args,
            } => {
                for a in args {
                    self.expr(a);
                }
                self.barrier(e.span, None);
            }
            _ => visit::for_each_child(e, &mut |c| self.expr(c)),
        }
    }

    fn barrier(&mut self, span: Span, callee: Option<FuncId>) {
        self.events.push(Event { span, callee });
        let Some(cond) = self.conds.last().copied() else {
            return;
        };
        if !self.reported.insert(cond.span) {
            return;
        }
        let label = match callee {
            Some(c) => {
                let name = self.program.get_function(c).map_or("", |f| f.name.as_str());
                format!("`{name}` waits at a barrier")
            }
            None => "this barrier".to_string(),
        };
        let mut d = Diagnostic::error(
            codes::E0408,
            span,
            "barrier in control flow that differs between the work-items of a tile",
        )
        .with_label(label)
        .with_secondary(
            cond.span,
            "this condition differs between work-items of a tile",
        );
        if cond.why.span != cond.span {
            d = d.with_secondary(cond.why.span, cond.why.label());
        }
        if let Some(c) = callee
            && let Some(at) = self.barriers.witness(self.graph, c)
        {
            d = d.with_secondary(at, "the barrier");
        }
        self.out.push(
            d.with_note("a barrier completes only when every work-item of the tile reaches it; work-items that do not come this way never arrive")
                .with_msvc("C3561")
                .with_help("move the barrier out of the condition, or make the condition depend only on `tile`, captures and constants"),
        );
    }

    fn exit(&mut self, span: Span, kind: ExitKind) {
        let at = self.events.len();
        match kind {
            ExitKind::Return => {
                let Some(cond) = self.conds.last().copied() else {
                    return;
                };
                let loop_start = self.frames.iter().find(|fr| fr.is_loop).map(|fr| fr.start);
                self.returns.push(Exit {
                    span,
                    kind,
                    cond,
                    at,
                    loop_start,
                });
            }
            ExitKind::Break | ExitKind::Continue => {
                let target = if kind == ExitKind::Break {
                    self.frames.len().checked_sub(1)
                } else {
                    self.frames.iter().rposition(|fr| fr.is_loop)
                };
                let Some(target) = target else { return };
                // Only conditions inside the construct left decide who leaves.
                let Some(cond) = self.conds.iter().rev().find(|c| c.frames > target).copied()
                else {
                    return;
                };
                if let Some(frame) = self.frames.get_mut(target) {
                    frame.exits.push(Exit {
                        span,
                        kind,
                        cond,
                        at,
                        loop_start: None,
                    });
                }
            }
        }
    }

    /// Reports the exits out of a loop or `switch` that skip one of its barriers.
    fn resolve(&mut self, frame: Frame) {
        let end = self.events.len();
        for exit in &frame.exits {
            let skipped = match exit.kind {
                // The others run the rest of this iteration and the next ones.
                ExitKind::Break if frame.is_loop => self
                    .event_in(exit.at, end)
                    .or_else(|| self.event_in(frame.start, exit.at)),
                ExitKind::Continue if frame.is_loop => self.event_in(exit.at, frame.body_end),
                _ => self.event_in(exit.at, end),
            };
            if let Some(event) = skipped {
                self.report_exit(exit, event, !frame.is_loop);
            }
        }
    }

    /// The first barrier met between `from` (included) and `to` (excluded).
    fn event_in(&self, from: usize, to: usize) -> Option<Event> {
        if from < to {
            self.events.get(from).copied()
        } else {
            None
        }
    }

    /// Reports the `return`s that skip a later barrier of the function.
    fn finish(&mut self) {
        let end = self.events.len();
        let returns = std::mem::take(&mut self.returns);
        for exit in &returns {
            let skipped = self
                .event_in(exit.at, end)
                .or_else(|| exit.loop_start.and_then(|s| self.event_in(s, exit.at)));
            if let Some(event) = skipped {
                self.report_exit(exit, event, false);
            }
        }
    }

    fn report_exit(&mut self, exit: &Exit, event: Event, from_switch: bool) {
        let (what, label) = match exit.kind {
            ExitKind::Return => ("`return`", "some work-items leave here"),
            ExitKind::Break if from_switch => {
                ("`break`", "some work-items leave the `switch` here")
            }
            ExitKind::Break => ("`break`", "some work-items leave the loop here"),
            ExitKind::Continue => (
                "`continue`",
                "some work-items skip the rest of the iteration here",
            ),
        };
        let mut d = Diagnostic::error(
            codes::E0409,
            exit.span,
            format!("{what} under a condition that differs between work-items skips a barrier"),
        )
        .with_label(label)
        .with_secondary(
            exit.cond.span,
            "this condition differs between work-items of a tile",
        );
        if exit.cond.why.span != exit.cond.span {
            d = d.with_secondary(exit.cond.why.span, exit.cond.why.label());
        }
        let barrier_label = match event.callee {
            Some(c) => {
                let name = self.program.get_function(c).map_or("", |f| f.name.as_str());
                format!("the others wait for them at the barrier in `{name}`")
            }
            None => "the others wait for them at this barrier".to_string(),
        };
        self.out.push(
            d.with_secondary(event.span, barrier_label)
                .with_note("a barrier completes only when every work-item of the tile reaches it; a work-item that has left never does")
                .with_msvc("C3561")
                .with_help("keep every work-item on the way to the barrier and guard only the work, e.g. `if (inside) { ... }` instead of leaving early"),
        );
    }
}

#[cfg(test)]
mod tests;
