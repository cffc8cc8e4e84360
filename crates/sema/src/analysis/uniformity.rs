//! Tile uniformity: which values every work-item of a tile computes alike.
//! The barrier rules ([`super::divergence`]) and the race rules
//! ([`super::races`]) are built on it.
//!
//! A value is *uniform* when every work-item of a tile computes the same one.
//! The analysis first runs flow-insensitively to a fixpoint over a tiled
//! kernel and every function it can call:
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
//! Then [`flow`] follows each function's statements in order on top of those
//! facts, so that a local becomes uniform again when it is assigned a uniform
//! value under uniform control: the uniformity of a local *at a statement*
//! ([`Uniformity::why_at`]) is what the barrier rules ask.

mod flow;

use super::places;
use std::collections::{HashMap, HashSet};
use tessera_diagnostics::Span;
use tessera_ir::facts::{self, CallGraph};
use tessera_ir::visit;
use tessera_ir::{
    Block, Expr, ExprKind, FuncId, Init, Intrinsic, LocalId, Program, Space, Stmt, StmtId,
    StmtKind, TiledIndexPart,
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
pub(super) const BREAKS: ExitFilter = ExitFilter {
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
    /// Per parameter: why some call site passes a non-uniform argument.
    param_in: Vec<Option<Why>>,
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
    /// Per statement: why each local may differ where the statement's own
    /// expressions are evaluated (see [`flow`]).
    at: HashMap<(FuncId, StmtId), flow::State>,
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
                    param_in: vec![None; func.params as usize],
                },
            );
        }
        let mut u = Uniformity {
            program,
            kernel,
            funcs,
            facts,
            changed: true,
            at: HashMap::new(),
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
        for i in 0..u.funcs.len() {
            let f = u.funcs[i];
            let at = flow::states(&u, f);
            u.at.extend(at.into_iter().map(|(s, state)| ((f, s), state)));
        }
        u
    }

    /// Why `e`, evaluated in function `f`, can differ between the work-items
    /// of a tile; `None` when it is uniform.
    pub fn why(&self, f: FuncId, e: &Expr) -> Option<Why> {
        self.why_in(f, e, None)
    }

    /// [`Uniformity::why`] for an expression of statement `s` of `f`, with
    /// what is known of the locals at that statement.
    pub fn why_at(&self, f: FuncId, s: StmtId, e: &Expr) -> Option<Why> {
        self.why_in(f, e, self.at.get(&(f, s)))
    }

    /// [`Uniformity::why`] with the locals' uniformity from `state` where it
    /// tracks them (see [`flow`]).
    fn why_in(&self, f: FuncId, e: &Expr, state: Option<&flow::State>) -> Option<Why> {
        match &e.kind {
            ExprKind::Const(_)
            | ExprKind::Str(_)
            | ExprKind::Global(_)
            | ExprKind::Capture(_)
            | ExprKind::Launch { .. } => None,
            ExprKind::Local(id) => match state.and_then(|st| st.get(*id)) {
                Some(why) => why,
                None => self.local_why(f, *id),
            },
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
            ExprKind::Comma { second, .. } => self.why_in(f, second, state),
            _ => {
                let mut found = None;
                visit::for_each_child(e, &mut |c| {
                    if found.is_none() {
                        found = self.why_in(f, c, state);
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
        self.path_why_in_state(f, place, None)
    }

    /// [`Uniformity::path_why`] with the locals' uniformity from `state`.
    fn path_why_in(&self, f: FuncId, place: &Expr, state: &flow::State) -> Option<Why> {
        self.path_why_in_state(f, place, Some(state))
    }

    fn path_why_in_state(
        &self,
        f: FuncId,
        place: &Expr,
        state: Option<&flow::State>,
    ) -> Option<Why> {
        places::place_path(place)
            .iter()
            .find_map(|step| match step {
                places::PathStep::Index(i) => self.why_in(f, i, state),
                places::PathStep::Field(_) => None,
            })
    }

    /// The condition of the first exit selected by `filter` out of `body` (of
    /// a loop or a `switch`) that only some work-items of a tile take: why
    /// that condition is not uniform. Conditions count from the body's start.
    pub fn divergent_exit(&self, f: FuncId, body: &Block, filter: ExitFilter) -> Option<Why> {
        self.exit_scan(f, body, filter, None, false, false)
    }

    /// The condition's uniformity for [`Uniformity::exit_scan`]: at its
    /// statement once [`flow`] has run, flow-insensitive while it runs.
    fn cond_why(&self, f: FuncId, s: &Stmt, cond: &Expr) -> Option<Why> {
        self.why_in(f, cond, self.at.get(&(f, s.id)))
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
                    let c = ctrl.or_else(|| self.cond_why(f, s, cond));
                    self.exit_scan(f, then, filter, c, in_loop, in_switch)
                        .or_else(|| {
                            els.as_ref()
                                .and_then(|e| self.exit_scan(f, e, filter, c, in_loop, in_switch))
                        })
                }
                StmtKind::Loop { cond, body, .. } => {
                    let c = ctrl.or_else(|| cond.as_ref().and_then(|e| self.cond_why(f, s, e)));
                    self.exit_scan(f, body, filter, c, true, in_switch)
                }
                StmtKind::Switch { value, arms } => {
                    let c = ctrl.or_else(|| self.cond_why(f, s, value));
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
            StmtKind::Try { body, handlers } => {
                self.block(f, body, ctrl);
                for h in handlers {
                    self.block(f, &h.body, ctrl);
                }
            }
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
            | StmtKind::Goto(_)
            | StmtKind::Label(_)
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
                if let Some(slot) = self
                    .facts
                    .get_mut(&callee)
                    .and_then(|x| x.param_in.get_mut(i))
                    && slot.is_none()
                {
                    *slot = Some(why);
                }
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
