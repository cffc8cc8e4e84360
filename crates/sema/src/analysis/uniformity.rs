//! Tile uniformity, and the barrier rules built on it:
//!
//! - E0408: a barrier (or a call of a function that waits at one) under an
//!   `if`, loop or `switch` whose condition can differ between the work-items
//!   of a tile (MSVC: C3561);
//! - E0409: a `return`, `break` or `continue` under such a condition that lets
//!   some work-items skip a barrier the others wait at.
//!
//! A value is *uniform* when every work-item of a tile computes the same one.
//! The analysis is flow-insensitive and runs to a fixpoint over a tiled kernel
//! and every function it can call:
//!
//! - uniform: constants, globals (only constants are readable in amp code),
//!   captures, `t.tile`, `t.tile_origin`, `t.tile_extent`, reads of
//!   `tile_static` memory and of `array`/`array_view` elements at uniform
//!   positions, and anything computed only from uniform values;
//! - not uniform: `t.local`, `t.global` (also the implicit conversion of a
//!   `tiled_index` to `index`), results of atomics, and anything computed from
//!   a non-uniform value;
//! - a local is non-uniform when any assignment or initialisation gives it a
//!   non-uniform value, or happens under non-uniform control (a condition, or
//!   a loop or `switch` that some work-items leave early); `tile_static`
//!   locals are shared, so writes never make them non-uniform;
//! - a parameter is non-uniform when any call site in the kernel passes a
//!   non-uniform argument; a call's result is non-uniform when an argument is,
//!   or when the callee can return a non-uniform value.
//!
//! A function *contains a barrier* when its body, or a function it calls, has
//! one; calling it counts as a barrier at the call site.

use super::walk;
use std::collections::{HashMap, HashSet};
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::facts::{self, Barriers, CallGraph};
use tessera_ir::visit;
use tessera_ir::{
    Block, Expr, ExprKind, FuncId, Init, Intrinsic, LocalId, Program, Space, Stmt, StmtKind,
    TiledIndexPart,
};

/// What makes a value differ between the work-items of a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `t.local`.
    Local,
    /// `t.global`, or a `tiled_index` used as an `index`.
    Global,
    /// The result of an atomic operation.
    Atomic,
}

/// Why a value is not uniform: the place where the difference comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Why {
    /// The expression that differs between work-items.
    pub span: Span,
    /// What it is.
    pub source: Source,
}

impl Why {
    /// A label for [`Why::span`].
    pub fn label(&self) -> &'static str {
        match self.source {
            Source::Local => "`local` differs between the work-items of a tile",
            Source::Global => "`global` differs between the work-items of a tile",
            Source::Atomic => "an atomic operation returns a different value to each work-item",
        }
    }
}

/// Which early exits [`Uniformity::divergent_exit`] looks for.
#[derive(Clone, Copy, Debug)]
pub struct ExitFilter {
    /// `break` out of the construct.
    pub breaks: bool,
    /// `continue` of the construct (for a loop).
    pub continues: bool,
    /// `return`, at any depth.
    pub returns: bool,
}

/// `break`s out of a loop: the work-items that take them run fewer iterations.
const BREAKS: ExitFilter = ExitFilter {
    breaks: true,
    continues: false,
    returns: false,
};

/// `continue`s of a loop: the work-items that take them skip the rest of the body.
const CONTINUES: ExitFilter = ExitFilter {
    breaks: false,
    continues: true,
    returns: false,
};

/// Exits that make a `switch` arm's statements differ between work-items.
const SWITCH_EXITS: ExitFilter = ExitFilter {
    breaks: true,
    continues: true,
    returns: false,
};

/// What the analysis knows of one function.
#[derive(Debug, Default)]
struct FnFacts {
    /// Per local: why it is not uniform (`None`: uniform).
    nonuniform: Vec<Option<Why>>,
    /// Per reference local: the local its place belongs to.
    ref_root: Vec<Option<LocalId>>,
    /// Why a returned value is not uniform.
    returns: Option<Why>,
    /// The locals the body may write (for by-reference parameters).
    written: HashSet<LocalId>,
}

/// Uniformity facts for one tiled kernel and every function it can call.
#[derive(Debug)]
pub struct Uniformity<'p> {
    program: &'p Program,
    /// The kernel.
    pub kernel: FuncId,
    /// The functions the kernel can run, the kernel first.
    pub funcs: Vec<FuncId>,
    facts: HashMap<FuncId, FnFacts>,
    changed: bool,
}

impl<'p> Uniformity<'p> {
    /// Analyses `kernel` and its callees until nothing changes.
    pub fn analyse(program: &'p Program, graph: &CallGraph, kernel: FuncId) -> Self {
        let funcs: Vec<FuncId> = graph.reach(kernel).iter().map(|r| r.func).collect();
        let mut facts = HashMap::new();
        for &f in &funcs {
            let Some(func) = program.get_function(f) else {
                continue;
            };
            let written = func
                .body
                .as_ref()
                .map(|b| facts::written_roots(program, b))
                .unwrap_or_default();
            facts.insert(
                f,
                FnFacts {
                    nonuniform: vec![None; func.locals.len()],
                    ref_root: vec![None; func.locals.len()],
                    returns: None,
                    written,
                },
            );
        }
        let mut u = Uniformity {
            program,
            kernel,
            funcs,
            facts,
            changed: true,
        };
        // Facts only ever go from uniform to non-uniform, so this ends.
        while u.changed {
            u.changed = false;
            for i in 0..u.funcs.len() {
                let f = u.funcs[i];
                if let Some(body) = program.get_function(f).and_then(|func| func.body.as_ref()) {
                    u.block(f, body, None);
                }
            }
        }
        u
    }

    /// Why `e`, evaluated in function `f`, can differ between the work-items
    /// of a tile; `None` when it is uniform.
    pub fn why(&self, f: FuncId, e: &Expr) -> Option<Why> {
        match &e.kind {
            ExprKind::Const(_)
            | ExprKind::Str(_)
            | ExprKind::Global(_)
            | ExprKind::Capture(_)
            | ExprKind::Launch { .. } => None,
            ExprKind::Local(id) => self.local_why(f, *id),
            ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(TiledIndexPart::Local),
                ..
            } => Some(Why {
                span: e.span,
                source: Source::Local,
            }),
            ExprKind::Intrinsic {
                op: Intrinsic::TiledIndexPart(TiledIndexPart::Global),
                ..
            } => Some(Why {
                span: e.span,
                source: Source::Global,
            }),
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                ..
            } => Some(Why {
                span: e.span,
                source: Source::Atomic,
            }),
            ExprKind::Comma { second, .. } => self.why(f, second),
            _ => {
                let mut found = None;
                visit::for_each_child(e, &mut |c| {
                    if found.is_none() {
                        found = self.why(f, c);
                    }
                });
                if found.is_none()
                    && let ExprKind::Call { func, .. } = &e.kind
                {
                    found = self.facts.get(func).and_then(|x| x.returns);
                }
                found
            }
        }
    }

    /// True when `e`, evaluated in `f`, is the same for every work-item of a tile.
    pub fn is_uniform(&self, f: FuncId, e: &Expr) -> bool {
        self.why(f, e).is_none()
    }

    /// Why the local `id` of `f` can differ between work-items (`tile_static`
    /// locals are shared: reading one whole is uniform).
    pub fn local_why(&self, f: FuncId, id: LocalId) -> Option<Why> {
        let func = self.program.get_function(f)?;
        if func.get_local(id)?.space == Space::TileStatic {
            return None;
        }
        self.facts
            .get(&f)?
            .nonuniform
            .get(id.index())
            .copied()
            .flatten()
    }

    /// Why the positions along a place (`a[i][j]`: `i` and `j`) can differ
    /// between work-items; `None` when every work-item names the same location.
    pub fn path_why(&self, f: FuncId, place: &Expr) -> Option<Why> {
        walk::place_path(place).iter().find_map(|step| match step {
            walk::PathStep::Index(i) => self.why(f, i),
            walk::PathStep::Field(_) => None,
        })
    }

    /// The condition of the first exit selected by `filter` out of `body` (of
    /// a loop or a `switch`) that only some work-items of a tile take: why
    /// that condition is not uniform. Conditions count from the body's start.
    pub fn divergent_exit(&self, f: FuncId, body: &Block, filter: ExitFilter) -> Option<Why> {
        self.exit_scan(f, body, filter, None, false, false)
    }

    /// [`Uniformity::divergent_exit`] under control `ctrl`, inside a nested
    /// loop (`in_loop`) or `switch` (`in_switch`) when those are set.
    fn exit_scan(
        &self,
        f: FuncId,
        block: &Block,
        filter: ExitFilter,
        ctrl: Option<Why>,
        in_loop: bool,
        in_switch: bool,
    ) -> Option<Why> {
        for s in &block.stmts {
            let found = match &s.kind {
                StmtKind::Break if !in_loop && !in_switch && filter.breaks => ctrl,
                // `continue` leaves every `switch` it is in, for the loop around them.
                StmtKind::Continue if !in_loop && filter.continues => ctrl,
                StmtKind::Return(_) if filter.returns => ctrl,
                StmtKind::Block(b) => self.exit_scan(f, b, filter, ctrl, in_loop, in_switch),
                StmtKind::If { cond, then, els } => {
                    let c = ctrl.or_else(|| self.why(f, cond));
                    self.exit_scan(f, then, filter, c, in_loop, in_switch)
                        .or_else(|| {
                            els.as_ref()
                                .and_then(|e| self.exit_scan(f, e, filter, c, in_loop, in_switch))
                        })
                }
                StmtKind::Loop { cond, body, .. } => {
                    let c = ctrl.or_else(|| cond.as_ref().and_then(|e| self.why(f, e)));
                    self.exit_scan(f, body, filter, c, true, in_switch)
                }
                StmtKind::Switch { value, arms } => {
                    let c = ctrl.or_else(|| self.why(f, value));
                    arms.iter()
                        .find_map(|a| self.exit_scan(f, &a.body, filter, c, in_loop, true))
                }
                _ => None,
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }

    fn mark_local(&mut self, f: FuncId, id: LocalId, why: Why) {
        let shared = self
            .program
            .get_function(f)
            .is_none_or(|func| func.is_tile_static(id));
        if shared {
            return;
        }
        if let Some(slot) = self
            .facts
            .get_mut(&f)
            .and_then(|x| x.nonuniform.get_mut(id.index()))
            && slot.is_none()
        {
            *slot = Some(why);
            self.changed = true;
        }
    }

    /// A write of a possibly non-uniform value to `place`.
    fn mark_place(&mut self, f: FuncId, place: &Expr, why: Why) {
        let Some(root) = facts::place_root(place) else {
            return;
        };
        self.mark_local(f, root, why);
        let referent = self
            .facts
            .get(&f)
            .and_then(|x| x.ref_root.get(root.index()).copied().flatten());
        if let Some(r) = referent {
            self.mark_local(f, r, why);
        }
    }

    fn block(&mut self, f: FuncId, block: &'p Block, ctrl: Option<Why>) {
        for s in &block.stmts {
            self.stmt(f, s, ctrl);
        }
    }

    fn stmt(&mut self, f: FuncId, s: &'p Stmt, ctrl: Option<Why>) {
        match &s.kind {
            StmtKind::Expr(e) => self.effects(f, e, ctrl),
            StmtKind::Let {
                local,
                init: Some(init),
            } => {
                visit::for_each_init_expr(init, &mut |e| self.effects(f, e, ctrl));
                if let Init::Ref(place) = init
                    && let Some(root) = facts::place_root(place)
                {
                    let facts = self.facts.get_mut(&f);
                    if let Some(facts) = facts {
                        let root = facts
                            .ref_root
                            .get(root.index())
                            .copied()
                            .flatten()
                            .unwrap_or(root);
                        if let Some(slot) = facts.ref_root.get_mut(local.index()) {
                            *slot = Some(root);
                        }
                    }
                }
                let why = ctrl.or_else(|| self.init_why(f, init));
                if let Some(why) = why {
                    self.mark_local(f, *local, why);
                }
            }
            StmtKind::Let { init: None, .. } => {}
            StmtKind::Block(b) => self.block(f, b, ctrl),
            StmtKind::If { cond, then, els } => {
                self.effects(f, cond, ctrl);
                let c = ctrl.or_else(|| self.why(f, cond));
                self.block(f, then, c);
                if let Some(els) = els {
                    self.block(f, els, c);
                }
            }
            StmtKind::Loop {
                cond, body, step, ..
            } => {
                // A `break` that only some work-items take makes them run
                // different numbers of iterations: everything the loop
                // computes differs afterwards. A `continue` only skips the
                // rest of the body; the step and the condition still run.
                let c = ctrl
                    .or_else(|| cond.as_ref().and_then(|e| self.why(f, e)))
                    .or_else(|| self.divergent_exit(f, body, BREAKS));
                let in_body = c.or_else(|| self.divergent_exit(f, body, CONTINUES));
                if let Some(cond) = cond {
                    self.effects(f, cond, c);
                }
                self.block(f, body, in_body);
                if let Some(step) = step {
                    self.effects(f, step, c);
                }
            }
            StmtKind::Switch { value, arms } => {
                self.effects(f, value, ctrl);
                let c = ctrl.or_else(|| self.why(f, value)).or_else(|| {
                    arms.iter()
                        .find_map(|a| self.exit_scan(f, &a.body, SWITCH_EXITS, None, false, false))
                });
                for arm in arms {
                    self.block(f, &arm.body, c);
                }
            }
            StmtKind::Return(Some(e)) => {
                self.effects(f, e, ctrl);
                if let Some(why) = ctrl.or_else(|| self.why(f, e))
                    && let Some(facts) = self.facts.get_mut(&f)
                    && facts.returns.is_none()
                {
                    facts.returns = Some(why);
                    self.changed = true;
                }
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Barrier(_) => {}
        }
    }

    fn init_why(&self, f: FuncId, init: &Init) -> Option<Why> {
        match init {
            Init::Expr(e) | Init::Ref(e) => self.why(f, e),
            Init::List(items) => items.iter().find_map(|i| self.init_why(f, i)),
            Init::Zero => None,
        }
    }

    /// Records what evaluating `e` under control `ctrl` writes.
    fn effects(&mut self, f: FuncId, e: &'p Expr, ctrl: Option<Why>) {
        match &e.kind {
            ExprKind::Assign { target, value } => {
                self.effects(f, value, ctrl);
                self.effects(f, target, ctrl);
                let why = ctrl
                    .or_else(|| self.why(f, value))
                    .or_else(|| self.path_why(f, target));
                if let Some(why) = why {
                    self.mark_place(f, target, why);
                }
            }
            ExprKind::CompoundAssign { target, value, .. } => {
                self.effects(f, value, ctrl);
                self.effects(f, target, ctrl);
                let why = ctrl
                    .or_else(|| self.why(f, value))
                    .or_else(|| self.why(f, target));
                if let Some(why) = why {
                    self.mark_place(f, target, why);
                }
            }
            ExprKind::IncDec { target, .. } => {
                self.effects(f, target, ctrl);
                if let Some(why) = ctrl.or_else(|| self.why(f, target)) {
                    self.mark_place(f, target, why);
                }
            }
            ExprKind::Conditional { cond, then, els } => {
                self.effects(f, cond, ctrl);
                let c = ctrl.or_else(|| self.why(f, cond));
                self.effects(f, then, c);
                self.effects(f, els, c);
            }
            ExprKind::Logical { lhs, rhs, .. } => {
                self.effects(f, lhs, ctrl);
                let c = ctrl.or_else(|| self.why(f, lhs));
                self.effects(f, rhs, c);
            }
            ExprKind::Call { func, args } => {
                for a in args {
                    self.effects(f, a, ctrl);
                }
                self.call(f, *func, args, ctrl);
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                args,
            } => {
                for a in args {
                    self.effects(f, a, ctrl);
                }
                if let Some(place) = args.first() {
                    let why = Why {
                        span: e.span,
                        source: Source::Atomic,
                    };
                    self.mark_place(f, place, why);
                }
            }
            _ => visit::for_each_child(e, &mut |c| self.effects(f, c, ctrl)),
        }
    }

    /// Passes the arguments' uniformity to the callee's parameters, and the
    /// callee's writes through reference parameters back to the arguments.
    fn call(&mut self, f: FuncId, callee: FuncId, args: &'p [Expr], ctrl: Option<Why>) {
        let Some(cfunc) = self.program.get_function(callee) else {
            return;
        };
        for (i, arg) in args.iter().enumerate() {
            let Some(param) = cfunc.locals.get(i).filter(|_| (i as u32) < cfunc.params) else {
                break;
            };
            let pid = LocalId(i as u32);
            if let Some(why) = self.why(f, arg) {
                self.mark_local(callee, pid, why);
            }
            let writes = param.by_ref
                && !param.is_const
                && self
                    .facts
                    .get(&callee)
                    .is_some_and(|x| x.written.contains(&pid));
            if writes && let Some(why) = ctrl.or_else(|| self.local_why(callee, pid)) {
                self.mark_place(f, arg, why);
            }
        }
    }
}

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
}

impl BarrierWalk<'_, '_> {
    fn push_cond(&mut self, cond: &Expr) -> bool {
        match self.uni.why(self.f, cond) {
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
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Let { init, .. } => {
                if let Some(init) = init {
                    visit::for_each_init_expr(init, &mut |e| self.expr(e));
                }
            }
            StmtKind::Block(b) => self.block(b),
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
                .with_note("MSVC reports this as C3561")
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
                .with_note("MSVC reports this as C3561")
                .with_help("keep every work-item on the way to the barrier and guard only the work, e.g. `if (inside) { ... }` instead of leaving early"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use tessera_ir::facts::CallGraph;
    use tessera_ir::{
        AtomicOp, BinOp, Capture, Expr, ExprKind, LocalId, Space, TiledIndexPart, Type,
    };

    const N: u32 = 64;

    fn eq0(e: Expr) -> Expr {
        bin(BinOp::Eq, e, int(0))
    }

    fn codes_of(more: Vec<tessera_ir::Local>, body: Vec<tessera_ir::Stmt>) -> Vec<&'static str> {
        ir_codes(&tiled_program(N, more, body))
    }

    // --- E0408 ---

    #[test]
    fn barrier_under_local_condition() {
        let cond = eq0(local0(N));
        let cond_span = cond.span;
        let p = tiled_program(N, vec![], vec![s_if(cond, vec![s_barrier()], None)]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0408");
        assert!(
            d[0].secondary
                .iter()
                .any(|l| l.span == cond_span && l.message.contains("differs between work-items"))
        );
        assert!(
            d[0].secondary.iter().any(|l| l.message.contains("`local`")),
            "{:#?}",
            d[0].secondary
        );
        assert!(
            d[0].help
                .as_deref()
                .is_some_and(|h| h.contains("move the barrier out of the condition"))
        );
        assert!(d[0].notes.iter().any(|n| n.contains("C3561")));
    }

    #[test]
    fn barrier_under_tile_condition_is_fine() {
        assert!(codes_of(vec![], vec![s_if(eq0(tile0(N)), vec![s_barrier()], None)]).is_empty());
    }

    #[test]
    fn barrier_under_capture_condition_is_fine() {
        let body = vec![s_if(
            bin(BinOp::Gt, cap(0, Type::INT), int(2)),
            vec![s_barrier()],
            Some(vec![s_barrier()]),
        )];
        assert!(codes_of(vec![], body).is_empty());
    }

    #[test]
    fn non_uniformity_flows_through_locals() {
        // int x = t.local[0]; int y = x * 2; if (y == 0) barrier;
        let source = local0(N);
        let source_span = match &source.kind {
            ExprKind::Intrinsic { args, .. } => args[0].span,
            _ => source.span,
        };
        let p = tiled_program(
            N,
            vec![private("x"), private("y")],
            vec![
                s_let(1, source),
                s_let(2, bin(BinOp::Mul, ivar(1), int(2))),
                s_if(eq0(ivar(2)), vec![s_barrier()], None),
            ],
        );
        let d = ir_diags(&p);
        assert_eq!(
            d.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
            ["E0408"]
        );
        assert!(
            d[0].secondary.iter().any(|l| l.span == source_span),
            "{:#?}",
            d[0].secondary
        );
    }

    #[test]
    fn assignment_order_does_not_matter() {
        // The use comes first in program order; the analysis is flow-insensitive.
        let body = vec![
            s_let(1, int(0)),
            s_for(
                2,
                int(0),
                int(4),
                int(1),
                vec![
                    s_if(eq0(ivar(1)), vec![s_barrier()], None),
                    s_expr(assign(ivar(1), local0(N))),
                ],
            ),
        ];
        assert_eq!(codes_of(vec![private("x"), private("k")], body), ["E0408"]);
    }

    #[test]
    fn tiled_loop_with_barriers_is_fine() {
        // for (int k = 0; k < n; k += 16) { ...; barrier; ...; barrier; }
        let body = vec![s_for(
            1,
            int(0),
            cap(0, Type::INT),
            int(16),
            vec![
                s_expr(assign(elem(var(2, floats(N)), local0(N)), float(1.0))),
                s_barrier(),
                s_barrier(),
            ],
        )];
        let more = vec![private("k"), shared("cache", floats(N))];
        let mut p = tiled_program(N, more, body);
        if let Some(b) = p.functions[1].body.as_mut() {
            b.stmts.insert(0, s_decl(2));
        }
        assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
    }

    #[test]
    fn loop_bound_from_global_is_divergent() {
        let body = vec![s_for(
            1,
            int(0),
            comp(part(TiledIndexPart::Global, tile1(N)), 0),
            int(1),
            vec![s_barrier()],
        )];
        assert_eq!(codes_of(vec![private("k")], body), ["E0408"]);
    }

    #[test]
    fn counter_changed_under_divergent_condition_is_divergent() {
        // for (k = 0; k < 4; k++) { if (t.local[0] == 0) k++; barrier; }
        let body = vec![s_for(
            1,
            int(0),
            int(4),
            int(1),
            vec![
                s_if(eq0(local0(N)), vec![s_expr(inc(ivar(1)))], None),
                s_barrier(),
            ],
        )];
        assert_eq!(codes_of(vec![private("k")], body), ["E0408"]);
    }

    #[test]
    fn guarded_write_before_a_barrier_is_fine() {
        // if (t.local[0] == 0) total = data[t.tile]; barrier;
        let body = vec![
            s_decl(1),
            s_if(
                eq0(local0(N)),
                vec![s_expr(assign(
                    var(1, float_ty()),
                    view_elem(
                        cap(1, float_view()),
                        part(TiledIndexPart::Tile, tile1(N)),
                        float_ty(),
                    ),
                ))],
                None,
            ),
            s_barrier(),
        ];
        assert!(codes_of(vec![shared("total", float_ty())], body).is_empty());
    }

    #[test]
    fn guarded_private_write_makes_the_local_divergent() {
        // int x = 0; if (t.local[0] == 0) x = 1; if (x) barrier;
        let body = vec![
            s_let(1, int(0)),
            s_if(eq0(local0(N)), vec![s_expr(assign(ivar(1), int(1)))], None),
            s_if(eq0(ivar(1)), vec![s_barrier()], None),
        ];
        assert_eq!(codes_of(vec![private("x")], body), ["E0408"]);
    }

    #[test]
    fn tile_static_reads_at_uniform_positions_are_uniform() {
        // tile_static int flag[4]; if (t.local[0] == 0) flag[0] = data...; barrier; if (flag[0]) barrier;
        let arr = Type::CArray(Box::new(Type::INT), 4);
        let body = vec![
            s_decl(1),
            s_if(
                eq0(local0(N)),
                vec![s_expr(assign(elem(var(1, arr.clone()), int(0)), local0(N)))],
                None,
            ),
            s_barrier(),
            s_if(
                eq0(elem(var(1, arr.clone()), int(0))),
                vec![s_barrier()],
                None,
            ),
        ];
        assert!(codes_of(vec![shared("flag", arr.clone())], body).is_empty());
        let body = vec![
            s_decl(1),
            s_expr(assign(elem(var(1, arr.clone()), local0(N)), int(1))),
            s_barrier(),
            s_if(
                eq0(elem(var(1, arr.clone()), local0(N))),
                vec![s_barrier()],
                None,
            ),
        ];
        assert_eq!(codes_of(vec![shared("flag", arr)], body), ["E0408"]);
    }

    #[test]
    fn view_reads_depend_on_the_position() {
        let at_tile = view_elem(
            cap(1, float_view()),
            part(TiledIndexPart::Tile, tile1(N)),
            float_ty(),
        );
        let body = vec![s_if(
            bin(BinOp::Gt, at_tile, float(0.0)),
            vec![s_barrier()],
            None,
        )];
        assert!(codes_of(vec![], body).is_empty());
        let at_global = view_elem(
            cap(1, float_view()),
            part(TiledIndexPart::Global, tile1(N)),
            float_ty(),
        );
        let body = vec![s_if(
            bin(BinOp::Gt, at_global, float(0.0)),
            vec![s_barrier()],
            None,
        )];
        assert_eq!(codes_of(vec![], body), ["E0408"]);
    }

    #[test]
    fn atomic_results_are_divergent() {
        let arr = Type::CArray(Box::new(Type::INT), 1);
        let old = atomic(AtomicOp::Add, elem(var(1, arr.clone()), int(0)), int(1));
        let body = vec![
            s_decl(1),
            s_let(2, old),
            s_if(eq0(ivar(2)), vec![s_barrier()], None),
        ];
        let d = ir_diags(&tiled_program(
            N,
            vec![shared("count", arr), private("old")],
            body,
        ));
        assert_eq!(
            d.iter().filter(|d| d.code.as_str() == "E0408").count(),
            1,
            "{d:#?}"
        );
        assert!(
            d.iter()
                .any(|d| d.secondary.iter().any(|l| l.message.contains("atomic")))
        );
    }

    #[test]
    fn divergent_switch_around_a_barrier() {
        let body = vec![s_switch(
            local0(N),
            vec![(Some(0), vec![s_barrier(), s_break()]), (None, vec![])],
        )];
        assert_eq!(codes_of(vec![], body), ["E0408"]);
        let body = vec![s_switch(
            cap(0, Type::INT),
            vec![
                (Some(0), vec![s_barrier(), s_break()]),
                (None, vec![s_barrier()]),
            ],
        )];
        assert!(codes_of(vec![], body).is_empty());
    }

    #[test]
    fn one_error_per_divergent_condition() {
        let body = vec![s_if(
            eq0(local0(N)),
            vec![s_barrier(), s_if(eq0(tile0(N)), vec![s_barrier()], None)],
            None,
        )];
        assert_eq!(codes_of(vec![], body), ["E0408"]);
    }

    #[test]
    fn short_circuit_before_a_waiting_call() {
        // t.local[0] == 0 && sync(t)   where sync waits at a barrier
        let tile = Type::TiledIndex(tile1(N));
        let sync = plain(
            "sync",
            true,
            1,
            vec![loc("t", tile.clone(), Space::Private)],
            Type::BOOL,
            vec![s_barrier(), s_return_value(int(1))],
        );
        let and = Expr {
            kind: ExprKind::Logical {
                and: true,
                lhs: Box::new(eq0(local0(N))),
                rhs: Box::new(call(2, vec![var(0, tile)], Type::BOOL)),
            },
            ty: Type::BOOL,
            place: false,
            span: sp(),
        };
        let k = kernel(Some(tile1(N)), vec![], vec![], vec![s_expr(and)]);
        let p = program(vec![main_launching(&[1]), k, sync]);
        assert_eq!(ir_codes(&p), ["E0408"]);
    }

    // --- helpers ---

    #[test]
    fn call_of_a_waiting_helper_under_a_divergent_condition() {
        let tile = Type::TiledIndex(tile1(N));
        let helper = plain(
            "sync",
            true,
            1,
            vec![loc("t", tile.clone(), Space::Private)],
            Type::Void,
            vec![s_barrier()],
        );
        let barrier_span = helper.body.as_ref().map(|b| b.stmts[0].span);
        let k = kernel(
            Some(tile1(N)),
            vec![],
            vec![],
            vec![s_if(
                eq0(local0(N)),
                vec![s_expr(call(2, vec![var(0, tile)], Type::Void))],
                None,
            )],
        );
        let p = program(vec![main_launching(&[1]), k, helper]);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0408");
        assert!(d[0].primary.message.contains("`sync` waits at a barrier"));
        assert!(d[0].secondary.iter().any(|l| Some(l.span) == barrier_span));
    }

    #[test]
    fn call_of_a_waiting_helper_under_a_uniform_loop_is_fine() {
        let tile = Type::TiledIndex(tile1(N));
        let helper = plain(
            "sync",
            true,
            1,
            vec![loc("t", tile.clone(), Space::Private)],
            Type::Void,
            vec![s_barrier()],
        );
        let k = kernel(
            Some(tile1(N)),
            vec![int_capture("x")],
            vec![private("i")],
            vec![s_for(
                1,
                int(0),
                cap(0, Type::INT),
                int(1),
                vec![s_switch(
                    cap(0, Type::INT),
                    vec![(
                        Some(1),
                        vec![s_expr(call(2, vec![var(0, tile)], Type::Void))],
                    )],
                )],
            )],
        );
        let p = program(vec![main_launching(&[1]), k, helper]);
        assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
    }

    /// `void helper(tiled_index t, int x) { if (x > 0) barrier; }` called with `arg`.
    fn helper_program(arg: Expr) -> tessera_ir::Program {
        let tile = Type::TiledIndex(tile1(N));
        let helper = plain(
            "helper",
            true,
            2,
            vec![loc("t", tile.clone(), Space::Private), private("x")],
            Type::Void,
            vec![s_if(
                bin(BinOp::Gt, ivar(1), int(0)),
                vec![s_barrier()],
                None,
            )],
        );
        let k = kernel(
            Some(tile1(N)),
            vec![],
            vec![],
            vec![s_expr(call(2, vec![var(0, tile), arg], Type::Void))],
        );
        program(vec![main_launching(&[1]), k, helper])
    }

    #[test]
    fn divergent_argument_makes_the_parameter_divergent() {
        assert_eq!(ir_codes(&helper_program(local0(N))), ["E0408"]);
        assert!(ir_codes(&helper_program(tile0(N))).is_empty());
    }

    #[test]
    fn helper_results_carry_their_divergence() {
        // int lid(tiled_index t) { return t.local[0]; }  if (lid(t) == 0) barrier;
        let tile = Type::TiledIndex(tile1(N));
        let lid = plain(
            "lid",
            true,
            1,
            vec![loc("t", tile.clone(), Space::Private)],
            Type::INT,
            vec![s_return_value(local0(N))],
        );
        let k = kernel(
            Some(tile1(N)),
            vec![],
            vec![],
            vec![s_if(
                eq0(call(2, vec![var(0, tile)], Type::INT)),
                vec![s_barrier()],
                None,
            )],
        );
        let p = program(vec![main_launching(&[1]), k, lid]);
        assert_eq!(ir_codes(&p), ["E0408"]);
    }

    #[test]
    fn writes_through_reference_parameters_reach_the_caller() {
        // void set(int& r, int v) { r = v; }   int x = 0; set(x, t.local[0]); if (x == 0) barrier;
        let mut r = private("r");
        r.by_ref = true;
        let set = plain(
            "set",
            true,
            2,
            vec![r, private("v")],
            Type::Void,
            vec![s_expr(assign(ivar(0), ivar(1)))],
        );
        let k = kernel(
            Some(tile1(N)),
            vec![],
            vec![private("x")],
            vec![
                s_let(1, int(0)),
                s_expr(call(2, vec![ivar(1), local0(N)], Type::Void)),
                s_if(eq0(ivar(1)), vec![s_barrier()], None),
            ],
        );
        let p = program(vec![main_launching(&[1]), k, set]);
        assert_eq!(ir_codes(&p), ["E0408"]);
    }

    #[test]
    fn writes_through_reference_locals_reach_the_referent() {
        // int x = 0; int& r = x; r = t.local[0]; if (x == 0) barrier;
        let mut r = private("r");
        r.by_ref = true;
        let body = vec![
            s_let(1, int(0)),
            s_ref(2, ivar(1)),
            s_expr(assign(ivar(2), local0(N))),
            s_if(eq0(ivar(1)), vec![s_barrier()], None),
        ];
        assert_eq!(codes_of(vec![private("x"), r], body), ["E0408"]);
    }

    #[test]
    fn loop_left_early_by_some_work_items_makes_its_counter_divergent() {
        // for (i = 0; i < n; i++) { if (data[t.global] == i) break; }  if (i < 5) barrier;
        let data = view_elem(
            cap(1, float_view()),
            part(TiledIndexPart::Global, tile1(N)),
            Type::INT,
        );
        let body = vec![
            s_let(1, int(0)),
            s_loop(
                Some(bin(BinOp::Lt, ivar(1), cap(0, Type::INT))),
                vec![s_if(bin(BinOp::Eq, data, ivar(1)), vec![s_break()], None)],
                Some(inc(ivar(1))),
            ),
            s_if(bin(BinOp::Lt, ivar(1), int(5)), vec![s_barrier()], None),
        ];
        assert_eq!(codes_of(vec![private("i")], body), ["E0408"]);
    }

    // --- E0409 ---

    #[test]
    fn early_return_before_a_barrier() {
        let cond = bin(
            BinOp::Ge,
            comp(part(TiledIndexPart::Global, tile1(N)), 0),
            cap(0, Type::INT),
        );
        let body = vec![s_if(cond, vec![s_return()], None), s_barrier()];
        let p = tiled_program(N, vec![], body);
        let d = ir_diags(&p);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code.as_str(), "E0409");
        assert!(
            d[0].secondary
                .iter()
                .any(|l| l.message.contains("this condition differs"))
        );
        assert!(
            d[0].secondary
                .iter()
                .any(|l| l.message.contains("wait for them at this barrier"))
        );
        assert!(
            d[0].secondary
                .iter()
                .any(|l| l.message.contains("`global`"))
        );
    }

    #[test]
    fn early_return_after_the_last_barrier_is_fine() {
        let body = vec![s_barrier(), s_if(eq0(local0(N)), vec![s_return()], None)];
        assert!(codes_of(vec![], body).is_empty());
    }

    #[test]
    fn early_return_on_a_uniform_condition_is_fine() {
        let body = vec![s_if(eq0(tile0(N)), vec![s_return()], None), s_barrier()];
        assert!(codes_of(vec![], body).is_empty());
    }

    #[test]
    fn early_return_does_not_skip_the_barrier_of_the_other_branch() {
        // if (n > 0) { if (t.local[0] == 0) return; } else { barrier; }
        let body = vec![s_if(
            bin(BinOp::Gt, cap(0, Type::INT), int(0)),
            vec![s_if(eq0(local0(N)), vec![s_return()], None)],
            Some(vec![s_barrier()]),
        )];
        assert!(codes_of(vec![], body).is_empty());
        // ... but it skips the ones after the `if`.
        let body = vec![
            s_if(
                bin(BinOp::Gt, cap(0, Type::INT), int(0)),
                vec![s_if(eq0(local0(N)), vec![s_return()], None)],
                Some(vec![s_barrier()]),
            ),
            s_barrier(),
        ];
        assert_eq!(codes_of(vec![], body), ["E0409"]);
    }

    #[test]
    fn early_return_in_a_loop_skips_the_next_iteration_barrier() {
        let body = vec![s_for(
            1,
            int(0),
            int(4),
            int(1),
            vec![s_barrier(), s_if(eq0(local0(N)), vec![s_return()], None)],
        )];
        assert_eq!(codes_of(vec![private("k")], body), ["E0409"]);
    }

    #[test]
    fn break_out_of_a_loop_with_a_barrier() {
        let body = vec![s_for(
            1,
            int(0),
            int(4),
            int(1),
            vec![s_barrier(), s_if(eq0(local0(N)), vec![s_break()], None)],
        )];
        assert_eq!(codes_of(vec![private("k")], body), ["E0409"]);
    }

    #[test]
    fn break_out_of_a_loop_without_barrier_is_fine() {
        let body = vec![
            s_for(
                1,
                int(0),
                int(4),
                int(1),
                vec![s_if(eq0(local0(N)), vec![s_break()], None)],
            ),
            s_barrier(),
        ];
        assert!(codes_of(vec![private("k")], body).is_empty());
    }

    #[test]
    fn continue_before_a_barrier() {
        let body = vec![s_for(
            1,
            int(0),
            int(4),
            int(1),
            vec![s_if(eq0(local0(N)), vec![s_continue()], None), s_barrier()],
        )];
        assert_eq!(codes_of(vec![private("k")], body), ["E0409"]);
    }

    #[test]
    fn continue_after_the_barrier_of_the_iteration_is_fine() {
        let body = vec![s_for(
            1,
            int(0),
            int(4),
            int(1),
            vec![s_barrier(), s_if(eq0(local0(N)), vec![s_continue()], None)],
        )];
        assert!(codes_of(vec![private("k")], body).is_empty());
    }

    #[test]
    fn divergent_loop_with_a_harmless_continue_is_still_reported() {
        // for (k = 0; k < t.local[0]; k++) { barrier; if (t.local[0] == k) continue; }
        let body = vec![s_for(
            1,
            int(0),
            local0(N),
            int(1),
            vec![
                s_barrier(),
                s_if(bin(BinOp::Eq, local0(N), ivar(1)), vec![s_continue()], None),
            ],
        )];
        assert_eq!(codes_of(vec![private("k")], body), ["E0408"]);
    }

    #[test]
    fn break_out_of_a_switch_before_its_barrier() {
        let body = vec![s_switch(
            cap(0, Type::INT),
            vec![(
                Some(0),
                vec![s_if(eq0(local0(N)), vec![s_break()], None), s_barrier()],
            )],
        )];
        assert_eq!(codes_of(vec![], body), ["E0409"]);
    }

    #[test]
    fn early_exit_in_a_helper_does_not_skip_the_callers_barrier() {
        let tile = Type::TiledIndex(tile1(N));
        let helper = plain(
            "helper",
            true,
            1,
            vec![loc("t", tile.clone(), Space::Private)],
            Type::Void,
            vec![s_if(eq0(local0(N)), vec![s_return()], None)],
        );
        let k = kernel(
            Some(tile1(N)),
            vec![],
            vec![],
            vec![s_expr(call(2, vec![var(0, tile)], Type::Void)), s_barrier()],
        );
        let p = program(vec![main_launching(&[1]), k, helper]);
        assert!(ir_codes(&p).is_empty(), "{:#?}", ir_diags(&p));
    }

    // --- robustness ---

    #[test]
    fn malformed_programs_do_not_panic() {
        let bad_local = var(99, Type::Error);
        let bad_call = call(77, vec![var(55, Type::Error)], Type::Error);
        let error_cond = Expr {
            kind: ExprKind::Const(tessera_ir::Const::Int(0)),
            ty: Type::Error,
            place: false,
            span: sp(),
        };
        let body = vec![
            s_if(bad_local.clone(), vec![s_barrier(), s_return()], None),
            s_expr(assign(var(42, Type::Error), local0(N))),
            s_expr(bad_call),
            s_if(error_cond, vec![s_barrier()], None),
            s_ref(88, var(3, Type::Error)),
            s_switch(
                var(12, Type::Error),
                vec![(None, vec![s_break(), s_continue()])],
            ),
            s_continue(),
            s_break(),
            s_barrier(),
        ];
        let mut p = tiled_program(N, vec![], body);
        p.functions.push(kernel(
            Some(tile1(N)),
            vec![Capture {
                name: "x".into(),
                ty: Type::Error,
                by_ref: false,
            }],
            vec![],
            vec![s_expr(call(0, vec![], Type::Error))],
        ));
        let _ = ir_codes(&p);
        let u = super::Uniformity::analyse(&p, &CallGraph::build(&p), tessera_ir::FuncId(1000));
        assert!(u.local_why(tessera_ir::FuncId(1000), LocalId(0)).is_none());
    }

    // --- from source ---

    const PRELUDE: &str = "#include <amp.h>\nusing namespace concurrency;\n";

    #[test]
    fn divergent_barrier_docs_example() {
        let src = format!(
            "{PRELUDE}void tile_sums(array_view<const float, 1> in, array_view<float, 1> sums) {{\n\
             parallel_for_each(in.extent.tile<64>(), [=](tiled_index<64> t) restrict(amp) {{\n\
                 tile_static float cache[64];\n\
                 cache[t.local[0]] = in[t.global];\n\
                 if (t.local[0] == 0) {{\n\
                     t.barrier.wait();\n\
                     float sum = 0.0f;\n\
                     for (int i = 0; i < 64; ++i) {{ sum += cache[i]; }}\n\
                     sums[t.tile] = sum;\n\
                 }}\n\
             }});\n}}\n"
        );
        assert_eq!(src_codes(&src), ["E0408"]);
    }

    #[test]
    fn divergent_barrier_docs_fix() {
        let src = format!(
            "{PRELUDE}void tile_sums(array_view<const float, 1> in, array_view<float, 1> sums) {{\n\
             parallel_for_each(in.extent.tile<64>(), [=](tiled_index<64> t) restrict(amp) {{\n\
                 tile_static float cache[64];\n\
                 cache[t.local[0]] = in[t.global];\n\
                 t.barrier.wait();\n\
                 if (t.local[0] == 0) {{\n\
                     float sum = 0.0f;\n\
                     for (int i = 0; i < 64; ++i) {{ sum += cache[i]; }}\n\
                     sums[t.tile] = sum;\n\
                 }}\n\
                 if (t.tile[0] == 0) {{ t.barrier.wait(); }}\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn barriers_in_helpers_under_captured_conditions() {
        // CONF ControlFlow Test.12/13: loops and switches on a captured `x`.
        let src = format!(
            "{PRELUDE}void sync(tiled_index<16> t) restrict(amp) {{ t.barrier.wait(); }}\n\
             void run(array_view<int, 1> out, int x) {{\n\
             parallel_for_each(out.extent.tile<16>(), [=](tiled_index<16> t) restrict(amp) {{\n\
                 for (int i = 0; i < x; i++) {{\n\
                     switch (x) {{ case 1: sync(t); break; default: t.barrier.wait(); break; }}\n\
                 }}\n\
                 while (x > 100) {{ sync(t); }}\n\
                 int g = t.tile[0];\n\
                 if (g > 0) {{ t.barrier.wait(); }}\n\
                 out[t.global] = x;\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn classic_tiled_kernels_are_clean() {
        // Bitonic sort steps, a scan, and a loop bound read from `tile_static` memory.
        let src = format!(
            "{PRELUDE}void run(array_view<int, 1> data, int n) {{\n\
             parallel_for_each(data.extent.tile<256>(), [=](tiled_index<256> t) restrict(amp) {{\n\
                 tile_static int s[256];\n\
                 tile_static int count;\n\
                 int i = t.local[0];\n\
                 bool active = t.global[0] < n;\n\
                 s[i] = active ? data[t.global] : 0;\n\
                 if (i == 0) {{ count = data[t.tile] % 8; }}\n\
                 t.barrier.wait();\n\
                 for (int k = 2; k <= 256; k <<= 1) {{\n\
                     for (int j = k >> 1; j > 0; j >>= 1) {{\n\
                         int ixj = i ^ j;\n\
                         if (ixj > i) {{\n\
                             int a = s[i];\n\
                             int b = s[ixj];\n\
                             if ((a > b) == ((i & k) == 0)) {{ s[i] = b; s[ixj] = a; }}\n\
                         }}\n\
                         t.barrier.wait();\n\
                     }}\n\
                 }}\n\
                 int offset = 1;\n\
                 for (int d = 128; d > 0; d >>= 1) {{\n\
                     t.barrier.wait();\n\
                     if (i < d) {{ s[offset * (2 * i + 2) - 1] += s[offset * (2 * i + 1) - 1]; }}\n\
                     offset *= 2;\n\
                 }}\n\
                 for (int r = 0; r < count; r++) {{ t.barrier.wait(); }}\n\
                 t.barrier.wait();\n\
                 if (active) {{ data[t.global] = s[i]; }}\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn barrier_in_helper_under_local_condition_from_source() {
        let src = format!(
            "{PRELUDE}void sync(tiled_index<16> t) restrict(amp) {{ t.barrier.wait(); }}\n\
             void run(array_view<int, 1> out) {{\n\
             parallel_for_each(out.extent.tile<16>(), [=](tiled_index<16> t) restrict(amp) {{\n\
                 if (t.local[0] % 2 == 0) {{ sync(t); }}\n\
                 out[t.global] = 1;\n\
             }});\n}}\n"
        );
        assert_eq!(src_codes(&src), ["E0408"]);
    }

    #[test]
    fn early_exit_docs_example() {
        let src = format!(
            "{PRELUDE}void shift(array_view<const float, 1> in, array_view<float, 1> out) {{\n\
             int n = in.extent[0];\n\
             parallel_for_each(extent<1>((n + 63) / 64 * 64).tile<64>(),\n\
                 [=](tiled_index<64> t) restrict(amp) {{\n\
                 tile_static float cache[64];\n\
                 if (t.global[0] >= n) {{\n\
                     return;\n\
                 }}\n\
                 cache[t.local[0]] = in[t.global];\n\
                 t.barrier.wait();\n\
                 out[t.global] = cache[(t.local[0] + 1) % 64];\n\
             }});\n}}\n"
        );
        assert_eq!(src_codes(&src), ["E0409"]);
    }

    #[test]
    fn early_exit_docs_fix() {
        let src = format!(
            "{PRELUDE}void shift(array_view<const float, 1> in, array_view<float, 1> out) {{\n\
             int n = in.extent[0];\n\
             parallel_for_each(extent<1>((n + 63) / 64 * 64).tile<64>(),\n\
                 [=](tiled_index<64> t) restrict(amp) {{\n\
                 tile_static float cache[64];\n\
                 bool inside = t.global[0] < n;\n\
                 cache[t.local[0]] = inside ? in[t.global] : 0.0f;\n\
                 t.barrier.wait();\n\
                 if (inside) {{\n\
                     out[t.global] = cache[(t.local[0] + 1) % 64];\n\
                 }}\n\
                 if (!inside) {{ return; }}\n\
             }});\n}}\n"
        );
        assert!(src_codes(&src).is_empty(), "{:#?}", check_src(&src));
    }

    #[test]
    fn break_and_continue_from_source() {
        let src = format!(
            "{PRELUDE}void run(array_view<int, 1> out, int x) {{\n\
             parallel_for_each(out.extent.tile<16>(), [=](tiled_index<16> t) restrict(amp) {{\n\
                 for (int i = 0; i < x; i++) {{\n\
                     if (t.local[0] == i) {{ continue; }}\n\
                     t.barrier.wait();\n\
                 }}\n\
                 for (int i = 0; i < x; i++) {{\n\
                     t.barrier.wait();\n\
                     if (out[t.global] > i) {{ break; }}\n\
                 }}\n\
             }});\n}}\n"
        );
        assert_eq!(src_codes(&src), ["E0409", "E0409"]);
    }
}
