//! The flow-sensitive part of the uniformity analysis: a local's uniformity
//! at each statement, following the statements in order.
//!
//! `int n = t.local[0]; ... n = 2; for (k = 0; k < n; k++) barrier` is
//! correct C++ AMP: after the second assignment every work-item holds 2. The
//! flow-insensitive facts say `n` may differ; here the assignment of a
//! uniform value under uniform control makes it uniform again.
//!
//! Only plain locals are followed: not references, not the locals a
//! reference is bound to (a write through the reference changes them
//! unseen), not `tile_static` ones. Their uniformity stays the
//! flow-insensitive one. A followed local is uniform on entry unless it is a
//! parameter that a call site passes a non-uniform value; branches join
//! (non-uniform when either is), loops run to a fixpoint, and `break`,
//! `continue` and `return` only add their states to where they go (the code
//! after them in the block keeps the state, which can only make more locals
//! non-uniform). Assignments inside `?:` and `&&`/`||` operands, to elements
//! and members, and through calls add non-uniformity but never remove it.

use super::{BREAKS, CONTINUES, SWITCH_EXITS, Source, Uniformity, Why};
use std::collections::{HashMap, HashSet};
use tessera_ir::facts;
use tessera_ir::visit;
use tessera_ir::{
    Block, Expr, ExprKind, FuncId, Init, Intrinsic, LocalId, Space, Stmt, StmtId, StmtKind,
};

/// One local as the flow follows it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    /// Not followed: its flow-insensitive uniformity holds everywhere.
    Untracked,
    /// Why it may differ between work-items here (`None`: uniform).
    Known(Option<Why>),
}

/// What is known of every local of a function at one point.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct State(Vec<Slot>);

impl State {
    /// The local's uniformity here: `None` when the state does not follow
    /// it (ask the flow-insensitive facts), `Some(why)` otherwise.
    pub(super) fn get(&self, id: LocalId) -> Option<Option<Why>> {
        match self.0.get(id.index()) {
            Some(Slot::Known(why)) => Some(*why),
            _ => None,
        }
    }

    /// Sets a followed local: to `why` when `strong` (an assignment of the
    /// whole local), or only towards non-uniform otherwise.
    fn set(&mut self, id: LocalId, why: Option<Why>, strong: bool) {
        if let Some(Slot::Known(slot)) = self.0.get_mut(id.index())
            && (strong || slot.is_none())
        {
            *slot = why;
        }
    }

    /// Adds `other`'s non-uniformity (the join of two paths).
    fn join(&mut self, other: &State) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            if let (Slot::Known(a), Slot::Known(b)) = (a, b)
                && a.is_none()
            {
                *a = *b;
            }
        }
    }
}

/// The state at each statement of `f` (see [`Uniformity::why_at`]).
pub(super) fn states(u: &Uniformity<'_>, f: FuncId) -> HashMap<StmtId, State> {
    let Some(func) = u.program.get_function(f) else {
        return HashMap::new();
    };
    let Some(body) = &func.body else {
        return HashMap::new();
    };
    let Some(facts) = u.facts.get(&f) else {
        return HashMap::new();
    };
    let bound: HashSet<LocalId> = facts.ref_root.iter().flatten().copied().collect();
    let slots = func
        .locals
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let id = LocalId(i as u32);
            if l.by_ref || l.space == Space::TileStatic || bound.contains(&id) {
                Slot::Untracked
            } else {
                Slot::Known(facts.param_in.get(i).copied().flatten())
            }
        })
        .collect();
    let mut walk = Flow {
        u,
        f,
        at: HashMap::new(),
        breaks: Vec::new(),
        continues: Vec::new(),
        budget: BUDGET,
    };
    let mut state = State(slots);
    walk.block(body, &mut state, None);
    if walk.budget == 0 {
        // Cut short: some states are missing or not final. Without any, the
        // flow-insensitive facts answer for the whole function.
        return HashMap::new();
    }
    walk.at
}

/// Statements the walk of one function may visit. Nested loops each run to
/// a fixpoint, so deep nests revisit their bodies many times; past this the
/// function keeps its flow-insensitive facts.
const BUDGET: usize = 100_000;

/// The walk over one function.
struct Flow<'a, 'p> {
    u: &'a Uniformity<'p>,
    f: FuncId,
    at: HashMap<StmtId, State>,
    /// States at the `break`s of each enclosing loop or `switch`.
    breaks: Vec<Vec<State>>,
    /// States at the `continue`s of each enclosing loop.
    continues: Vec<Vec<State>>,
    /// Statements left to visit (see [`BUDGET`]).
    budget: usize,
}

impl Flow<'_, '_> {
    fn why(&self, e: &Expr, state: &State) -> Option<Why> {
        self.u.why_in(self.f, e, Some(state))
    }

    /// Records the state for `s`'s own expressions: `state` with what they
    /// may write added (an expression may read a local it assigned).
    fn record(&mut self, s: &Stmt, state: &State, exprs: &[&Expr], ctrl: Option<Why>) {
        let mut eval = state.clone();
        for e in exprs {
            self.effects(e, &mut eval, ctrl, false);
        }
        self.at.insert(s.id, eval);
    }

    fn block(&mut self, block: &Block, state: &mut State, ctrl: Option<Why>) {
        for s in &block.stmts {
            self.stmt(s, state, ctrl);
        }
    }

    fn stmt(&mut self, s: &Stmt, state: &mut State, ctrl: Option<Why>) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        match &s.kind {
            StmtKind::Expr(e) => {
                self.record(s, state, &[e], ctrl);
                self.effects(e, state, ctrl, true);
            }
            StmtKind::Let { local, init } => {
                let mut exprs = Vec::new();
                if let Some(init) = init {
                    visit::for_each_init_expr(init, &mut |e| exprs.push(e));
                }
                self.record(s, state, &exprs, ctrl);
                for e in exprs {
                    self.effects(e, state, ctrl, true);
                }
                let why = ctrl.or_else(|| init.as_ref().and_then(|i| self.init_why(i, state)));
                state.set(*local, why, true);
            }
            StmtKind::Block(b) => {
                self.record(s, state, &[], ctrl);
                self.block(b, state, ctrl);
            }
            // Host code only (amp code has no exceptions): followed as blocks.
            StmtKind::Try { body, handlers } => {
                self.record(s, state, &[], ctrl);
                self.block(body, state, ctrl);
                for h in handlers {
                    self.block(&h.body, state, ctrl);
                }
            }
            StmtKind::If { cond, then, els } => {
                self.record(s, state, &[cond], ctrl);
                self.effects(cond, state, ctrl, true);
                let c = ctrl.or_else(|| self.why(cond, state));
                let mut other = state.clone();
                self.block(then, state, c);
                if let Some(els) = els {
                    self.block(els, &mut other, c);
                }
                state.join(&other);
            }
            StmtKind::Loop {
                cond,
                test_first,
                body,
                step,
            } => self.looped(
                s,
                cond.as_ref(),
                *test_first,
                body,
                step.as_ref(),
                state,
                ctrl,
            ),
            StmtKind::Switch { value, arms } => {
                self.record(s, state, &[value], ctrl);
                self.effects(value, state, ctrl, true);
                let c = ctrl.or_else(|| self.why(value, state)).or_else(|| {
                    arms.iter().find_map(|a| {
                        self.u
                            .exit_scan(self.f, &a.body, SWITCH_EXITS, None, false, false)
                    })
                });
                self.breaks.push(Vec::new());
                // No arm taken, or the last arm's end; an arm also starts
                // with what falls through from the one before it.
                let entry = state.clone();
                let mut through: Option<State> = None;
                for arm in arms {
                    let mut cur = entry.clone();
                    if let Some(t) = &through {
                        cur.join(t);
                    }
                    self.block(&arm.body, &mut cur, c);
                    through = Some(cur);
                }
                if let Some(t) = &through {
                    state.join(t);
                }
                for b in self.breaks.pop().unwrap_or_default() {
                    state.join(&b);
                }
            }
            StmtKind::Return(value) => {
                let exprs: Vec<&Expr> = value.iter().collect();
                self.record(s, state, &exprs, ctrl);
                if let Some(v) = value {
                    self.effects(v, state, ctrl, true);
                }
            }
            StmtKind::Break => {
                self.record(s, state, &[], ctrl);
                if let Some(b) = self.breaks.last_mut() {
                    b.push(state.clone());
                }
            }
            StmtKind::Continue => {
                self.record(s, state, &[], ctrl);
                if let Some(c) = self.continues.last_mut() {
                    c.push(state.clone());
                }
            }
            // Host code only: amp code has no `goto` (E0304).
            StmtKind::Goto(_) | StmtKind::Label(_) => {}
            StmtKind::Barrier(_) => self.record(s, state, &[], ctrl),
        }
    }

    /// A loop: its head state is the fixpoint of the entry state joined with
    /// the states at the end of the body and at its `continue`s.
    #[allow(clippy::too_many_arguments)]
    fn looped(
        &mut self,
        s: &Stmt,
        cond: Option<&Expr>,
        test_first: bool,
        body: &Block,
        step: Option<&Expr>,
        state: &mut State,
        ctrl: Option<Why>,
    ) {
        // Early exits: flow-insensitive here (the states inside the body are
        // not known yet), which can only make more locals non-uniform.
        let leaves = self.u.divergent_exit(self.f, body, BREAKS);
        let skips = self.u.divergent_exit(self.f, body, CONTINUES);
        let own: Vec<&Expr> = cond.iter().chain(step.iter()).copied().collect();
        let mut head = state.clone();
        loop {
            let mut eval = head.clone();
            for e in &own {
                self.effects(e, &mut eval, ctrl, false);
            }
            let c = ctrl
                .or_else(|| cond.and_then(|e| self.why(e, &eval)))
                .or(leaves);
            let in_body = c.or(skips);
            self.breaks.push(Vec::new());
            self.continues.push(Vec::new());
            let mut cur = head.clone();
            if test_first && let Some(e) = cond {
                self.effects(e, &mut cur, c, true);
            }
            self.block(body, &mut cur, in_body);
            for k in self.continues.pop().unwrap_or_default() {
                cur.join(&k);
            }
            if let Some(e) = step {
                self.effects(e, &mut cur, c, true);
            }
            if !test_first && let Some(e) = cond {
                self.effects(e, &mut cur, c, true);
            }
            let breaks = self.breaks.pop().unwrap_or_default();
            let mut next = head.clone();
            next.join(&cur);
            if next == head || self.budget == 0 {
                self.at.insert(s.id, eval);
                for b in &breaks {
                    head.join(b);
                }
                *state = head;
                return;
            }
            head = next;
        }
    }

    fn init_why(&self, init: &Init, state: &State) -> Option<Why> {
        match init {
            Init::Expr(e) | Init::Ref(e) => self.why(e, state),
            Init::List(items) => items.iter().find_map(|i| self.init_why(i, state)),
            Init::Zero => None,
        }
    }

    /// A write of a value that differs for `why` (`None`: uniform) to `place`.
    fn write(&self, place: &Expr, why: Option<Why>, state: &mut State, strong: bool) {
        let Some(root) = facts::place_root(place) else {
            return;
        };
        let whole = matches!(place.kind, ExprKind::Local(id) if id == root);
        state.set(root, why, strong && whole);
    }

    /// Follows what evaluating `e` under control `ctrl` writes; `strong`
    /// when the evaluation certainly happens (not in a `?:` or `&&` operand).
    fn effects(&self, e: &Expr, state: &mut State, ctrl: Option<Why>, strong: bool) {
        match &e.kind {
            ExprKind::Assign { target, value } => {
                self.effects(value, state, ctrl, strong);
                self.effects(target, state, ctrl, strong);
                let why = ctrl
                    .or_else(|| self.why(value, state))
                    .or_else(|| self.u.path_why_in(self.f, target, state));
                self.write(target, why, state, strong);
            }
            ExprKind::CompoundAssign { target, value, .. } => {
                self.effects(value, state, ctrl, strong);
                self.effects(target, state, ctrl, strong);
                let why = ctrl
                    .or_else(|| self.why(value, state))
                    .or_else(|| self.why(target, state));
                self.write(target, why, state, false);
            }
            ExprKind::IncDec { target, .. } => {
                self.effects(target, state, ctrl, strong);
                let why = ctrl.or_else(|| self.why(target, state));
                self.write(target, why, state, false);
            }
            ExprKind::Conditional { cond, then, els } => {
                self.effects(cond, state, ctrl, strong);
                let c = ctrl.or_else(|| self.why(cond, state));
                self.effects(then, state, c, false);
                self.effects(els, state, c, false);
            }
            ExprKind::Logical { lhs, rhs, .. } => {
                self.effects(lhs, state, ctrl, strong);
                let c = ctrl.or_else(|| self.why(lhs, state));
                self.effects(rhs, state, c, false);
            }
            ExprKind::Call { func, args } => {
                for a in args {
                    self.effects(a, state, ctrl, strong);
                }
                let Some(callee) = self.u.program.get_function(*func) else {
                    return;
                };
                let written = self.u.facts.get(func).map(|x| &x.written);
                for (i, arg) in args.iter().enumerate() {
                    let Some(param) = callee.locals.get(i).filter(|_| (i as u32) < callee.params)
                    else {
                        break;
                    };
                    let pid = LocalId(i as u32);
                    let writes = param.by_ref
                        && !param.is_const
                        && written.is_some_and(|w| w.contains(&pid));
                    if writes {
                        let why = ctrl.or_else(|| self.u.local_why(*func, pid));
                        self.write(arg, why, state, false);
                    }
                }
            }
            ExprKind::Intrinsic {
                op: Intrinsic::Atomic(_),
                args,
            } => {
                for a in args {
                    self.effects(a, state, ctrl, strong);
                }
                if let Some(place) = args.first() {
                    let why = Why {
                        span: e.span,
                        source: Source::Atomic,
                    };
                    self.write(place, Some(why), state, false);
                }
            }
            _ => visit::for_each_child(e, &mut |c| self.effects(c, state, ctrl, strong)),
        }
    }
}
