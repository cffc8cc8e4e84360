//! Facts about a whole program that several passes need: who calls whom,
//! which functions are recursive, which functions and statements reach a
//! barrier, and which variables code may write.
//!
//! Edges of the call graph are the `ExprKind::Call`s of each body;
//! `parallel_for_each` is not a call (kernels are never called, only
//! launched). Calls to ids the program does not have are ignored, so every
//! query here is total on malformed programs too.

use crate::visit::{self, Node};
use crate::{
    Block, Expr, ExprKind, FuncId, Function, FunctionKind, Init, Intrinsic, LocalId, Program, Stmt,
    StmtKind, TileShape,
};
use std::collections::HashSet;
use tessera_diagnostics::Span;

/// Who calls whom.
#[derive(Debug, Default)]
pub struct CallGraph {
    /// For each function (by id), its calls in program order: callee and the
    /// span of the call expression.
    calls: Vec<Vec<(FuncId, Span)>>,
}

/// A function reached from a root, and the call that first reached it.
#[derive(Clone, Copy, Debug)]
pub struct Reached {
    /// The function.
    pub func: FuncId,
    /// How it was reached: the position (in the list returned by
    /// [`CallGraph::reach`]) of the caller, and the call's span. `None` for the root.
    pub via: Option<(usize, Span)>,
}

impl CallGraph {
    /// The call graph of every function of `program`.
    pub fn build(program: &Program) -> Self {
        let n = program.functions.len();
        let calls = program
            .functions
            .iter()
            .map(|f| {
                let mut out = Vec::new();
                if let Some(body) = &f.body {
                    visit::for_each_expr_deep(body, &mut |e| {
                        if let ExprKind::Call { func, .. } = &e.kind
                            && func.index() < n
                        {
                            out.push((*func, e.span));
                        }
                        // A virtual call may run any overrider.
                        if let ExprKind::VirtualCall { func, .. } = &e.kind {
                            for o in program.overriders_of(*func) {
                                if o.index() < n {
                                    out.push((o, e.span));
                                }
                            }
                        }
                    });
                }
                out
            })
            .collect();
        CallGraph { calls }
    }

    /// How many functions the graph has.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// True for the graph of a program without functions.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls made by `f`'s body, in program order.
    pub fn calls(&self, f: FuncId) -> &[(FuncId, Span)] {
        self.calls.get(f.index()).map_or(&[], Vec::as_slice)
    }

    /// For each function (by index), the functions it calls, by index,
    /// sorted and without repeats.
    pub fn adjacency(&self) -> Vec<Vec<usize>> {
        self.calls
            .iter()
            .map(|calls| {
                let mut s: Vec<usize> = calls.iter().map(|(c, _)| c.index()).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect()
    }

    /// For each function (by index), its callers, by index, in caller order.
    pub fn callers(&self) -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); self.calls.len()];
        for (caller, calls) in self.calls.iter().enumerate() {
            for &(callee, _) in calls {
                if let Some(list) = out.get_mut(callee.index()) {
                    list.push(caller);
                }
            }
        }
        out
    }

    /// By function index: true for the `roots` and every function they can
    /// run through calls.
    pub fn reachable(&self, roots: impl IntoIterator<Item = FuncId>) -> Vec<bool> {
        let mut seen = vec![false; self.calls.len()];
        let mut work: Vec<usize> = roots.into_iter().map(FuncId::index).collect();
        while let Some(v) = work.pop() {
            match seen.get_mut(v) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            work.extend(self.calls[v].iter().map(|(c, _)| c.index()));
        }
        seen
    }

    /// Every function `root` can run, itself first, breadth first (so the
    /// recorded paths are shortest).
    pub fn reach(&self, root: FuncId) -> Vec<Reached> {
        let mut out = vec![Reached {
            func: root,
            via: None,
        }];
        let mut seen = HashSet::from([root]);
        let mut next = 0;
        while let Some(&Reached { func, .. }) = out.get(next) {
            for &(callee, span) in self.calls(func) {
                if seen.insert(callee) {
                    out.push(Reached {
                        func: callee,
                        via: Some((next, span)),
                    });
                }
            }
            next += 1;
        }
        out
    }

    /// The calls leading from the root of `reached` to entry `at`, the
    /// root's call first: (callee, span of the call).
    pub fn path(reached: &[Reached], at: usize) -> Vec<(FuncId, Span)> {
        let mut out = Vec::new();
        let mut idx = at;
        while let Some(Reached {
            func,
            via: Some((parent, span)),
        }) = reached.get(idx)
        {
            // Callers come earlier in the list; anything else is not a path.
            if *parent >= idx {
                break;
            }
            out.push((*func, *span));
            idx = *parent;
        }
        out.reverse();
        out
    }

    /// The recursive groups among the functions marked in `in_scope` (by
    /// index): each a set of functions that call each other in a cycle, or
    /// one function that calls itself. Function indices, in no set order.
    pub fn recursive_components(&self, in_scope: &[bool]) -> Vec<Vec<usize>> {
        let adj = self.adjacency();
        strongly_connected(&adj, in_scope)
            .into_iter()
            .filter(|c| c.len() > 1 || c.first().is_some_and(|&v| adj[v].contains(&v)))
            .collect()
    }
}

/// Tarjan's algorithm without recursion: the strongly connected components of
/// the nodes marked in `in_scope`.
fn strongly_connected(adj: &[Vec<usize>], in_scope: &[bool]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = adj.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for start in 0..n {
        if !in_scope.get(start).copied().unwrap_or(false) || index[start] != UNSEEN {
            continue;
        }
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        let mut frames: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some(top) = frames.last_mut() {
            let (v, edge) = *top;
            if let Some(&w) = adj[v].get(edge) {
                top.1 += 1;
                if !in_scope.get(w).copied().unwrap_or(false) {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    frames.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

/// The kernels of a program with their tile shapes (`None`: launched without tiles).
pub fn kernels(program: &Program) -> Vec<(FuncId, Option<TileShape>)> {
    program
        .functions_with_ids()
        .filter_map(|(id, f)| match &f.kind {
            FunctionKind::Kernel { tile, .. } => Some((id, *tile)),
            FunctionKind::Plain => None,
        })
        .collect()
}

/// Which barriers count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierRule {
    /// The barriers that wait when run: `StmtKind::Barrier`. A `wait()`
    /// written inside a larger expression is an ordinary call that returns
    /// at once; this is what the engines run.
    Runs,
    /// Every barrier written: also a `wait()` inside an expression. The
    /// checker's rules use this, since C++ AMP waits there.
    Written,
}

/// Which functions wait at a barrier, directly or through calls.
#[derive(Debug)]
pub struct Barriers {
    /// By function id: the body or a callee has a barrier.
    contains: Vec<bool>,
    /// By function id: the first barrier written in the body itself.
    first: Vec<Option<Span>>,
}

impl Barriers {
    /// Finds the barriers of every function, counting those of `rule`.
    pub fn find(program: &Program, graph: &CallGraph, rule: BarrierRule) -> Self {
        let first: Vec<Option<Span>> = program
            .functions
            .iter()
            .map(|f| first_barrier(f.body.as_ref()?, rule))
            .collect();
        let callers = graph.callers();
        let mut contains: Vec<bool> = first.iter().map(Option::is_some).collect();
        let mut work: Vec<usize> = (0..contains.len()).filter(|&i| contains[i]).collect();
        while let Some(v) = work.pop() {
            for &c in callers.get(v).map_or(&[][..], Vec::as_slice) {
                if let Some(slot) = contains.get_mut(c)
                    && !*slot
                {
                    *slot = true;
                    work.push(c);
                }
            }
        }
        Barriers { contains, first }
    }

    /// The barriers the engines run ([`BarrierRule::Runs`]) of `program`.
    pub fn of(program: &Program) -> Self {
        Barriers::find(program, &CallGraph::build(program), BarrierRule::Runs)
    }

    /// True when calling `f` waits at a barrier.
    pub fn contains(&self, f: FuncId) -> bool {
        self.contains.get(f.index()).copied().unwrap_or(false)
    }

    /// By function index: true when calling the function waits at a barrier.
    pub fn functions(&self) -> &[bool] {
        &self.contains
    }

    /// A barrier that calling `f` waits at: in `f`, or in the nearest callee that has one.
    pub fn witness(&self, graph: &CallGraph, f: FuncId) -> Option<Span> {
        graph
            .reach(f)
            .iter()
            .find_map(|r| self.first.get(r.func.index()).copied().flatten())
    }

    /// True when evaluating `e` calls a function that waits at a barrier.
    pub fn in_expr(&self, e: &Expr) -> bool {
        visit::any_subexpr(
            e,
            &mut |e| matches!(&e.kind, ExprKind::Call { func, .. } if self.contains(*func)),
        )
    }

    /// True when running `s` reaches a barrier: a `Barrier` statement in it,
    /// or a call of a function that waits at one.
    pub fn in_stmt(&self, s: &Stmt) -> bool {
        let mut found = false;
        visit::for_each_node(s, &mut |n| {
            found = found
                || match n {
                    Node::Stmt(s) => matches!(s.kind, StmtKind::Barrier(_)),
                    Node::Expr(e) => self.in_expr(e),
                }
        });
        found
    }

    /// True when running `b` reaches a barrier.
    pub fn in_block(&self, b: &Block) -> bool {
        b.stmts.iter().any(|s| self.in_stmt(s))
    }

    /// For each statement of `func` (by [`crate::StmtId`]), whether running
    /// it reaches a barrier ([`Barriers::in_stmt`]); computed in one pass,
    /// for engines that ask again for every statement they run. Statements
    /// not numbered are left out.
    pub fn stmt_table(&self, func: &Function) -> Vec<bool> {
        let mut table = vec![false; func.stmt_count as usize];
        if let Some(body) = &func.body {
            for s in &body.stmts {
                self.mark(s, &mut table);
            }
        }
        table
    }

    fn mark(&self, s: &Stmt, table: &mut [bool]) -> bool {
        let mut has = matches!(s.kind, StmtKind::Barrier(_));
        s.for_each_expr(&mut |e| has = has || self.in_expr(e));
        s.for_each_block(&mut |b| {
            for inner in &b.stmts {
                // Every nested statement gets its entry, so no short cut.
                has |= self.mark(inner, table);
            }
        });
        if let Some(slot) = table.get_mut(s.id.index()) {
            *slot = has;
        }
        has
    }
}

/// The first barrier written in `body` that counts under `rule`.
fn first_barrier(body: &Block, rule: BarrierRule) -> Option<Span> {
    let mut found = None;
    visit::for_each_stmt(body, &mut |n| match n {
        Node::Stmt(s) => {
            if found.is_none() && matches!(s.kind, StmtKind::Barrier(_)) {
                found = Some(s.span);
            }
        }
        Node::Expr(e) if rule == BarrierRule::Written => visit::for_each_subexpr(e, &mut |e| {
            if found.is_none()
                && let ExprKind::Intrinsic {
                    op: Intrinsic::Barrier(_),
                    ..
                } = e.kind
            {
                found = Some(e.span);
            }
        }),
        Node::Expr(_) => {}
    });
    found
}

/// By function index: true when calling the function waits at a barrier
/// that runs ([`BarrierRule::Runs`]), in its body or in a function it calls.
pub fn barrier_functions(program: &Program) -> Vec<bool> {
    Barriers::of(program).contains
}

/// The local variable a place expression names or is part of (`x`, `x.f`,
/// `x[i][j]`, `(x = 1)`), if any. Elements of `array`/`array_view` and
/// references returned by calls have none.
pub fn place_root(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Local(id) => Some(*id),
        ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => place_root(base),
        ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
            place_root(target)
        }
        ExprKind::IncDec {
            target,
            prefix: true,
            ..
        } => place_root(target),
        ExprKind::Comma { second, .. } => place_root(second),
        _ => None,
    }
}

/// The places that evaluating `e` itself (not its operands) may write:
/// targets of assignments, `++`/`--` and atomics, and arguments of
/// non-const reference parameters.
pub fn written_places<'a>(program: &Program, e: &'a Expr) -> Vec<&'a Expr> {
    match &e.kind {
        ExprKind::Assign { target, .. }
        | ExprKind::CompoundAssign { target, .. }
        | ExprKind::IncDec { target, .. } => {
            vec![target.as_ref()]
        }
        ExprKind::Intrinsic {
            op: Intrinsic::Atomic(_),
            args,
        } => args.first().into_iter().collect(),
        ExprKind::Call { func, args } | ExprKind::VirtualCall { func, args } => {
            let params = program.get_function(*func).map(Function::param_locals);
            args.iter()
                .enumerate()
                .filter(|(i, _)| {
                    params
                        .and_then(|p| p.get(*i))
                        .is_some_and(|p| p.by_ref && !p.is_const)
                })
                .map(|(_, a)| a)
                .collect()
        }
        ExprKind::CallPtr { callee, args } => {
            let crate::Type::FnPtr(sig) = &callee.ty else {
                return Vec::new();
            };
            args.iter()
                .zip(&sig.params)
                .filter(|(_, p)| p.by_ref && !p.is_const)
                .map(|(a, _)| a)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The locals that code in `block` may write: targets of assignments,
/// `++`/`--` and atomics, places passed to non-const reference parameters,
/// and places references are bound to (a reference may be written later).
pub fn written_roots(program: &Program, block: &Block) -> HashSet<LocalId> {
    let mut out = HashSet::new();
    visit::for_each_stmt(block, &mut |n| match n {
        Node::Stmt(s) => {
            if let StmtKind::Let {
                init: Some(Init::Ref(place)),
                ..
            } = &s.kind
                && let Some(root) = place_root(place)
            {
                out.insert(root);
            }
        }
        Node::Expr(e) => visit::for_each_subexpr(e, &mut |e| {
            for place in written_places(program, e) {
                if let Some(root) = place_root(place) {
                    out.insert(root);
                }
            }
        }),
    });
    out
}

/// For each capture slot of `kernel`, whether running it may write the
/// data that capture reaches (an `array` or `array_view` capture's
/// elements): a launch hands such data over without a copy to restore
/// should it fail, and only copies what the kernel may write.
///
/// A capture is counted as read only when every use of it, and of each
/// projection `v[i]` of it that is still a view, is the view operand of an
/// element read, a further projection or an extent query, and no element
/// place built from it is assigned, incremented, handed to an atomic or a
/// non-const reference parameter, bound to a reference or has its address
/// taken. Anything else (a copy of the view, a call taking it, a section)
/// counts as a write, so the answer errs only towards copying. Slots past
/// the kernel's captures, and every slot of a function that is not a
/// kernel or has no body, are written.
pub fn captures_written(program: &Program, kernel: &Function) -> Vec<bool> {
    let FunctionKind::Kernel { captures, .. } = &kernel.kind else {
        return Vec::new();
    };
    let mut written = vec![false; captures.len()];
    let Some(body) = &kernel.body else {
        return vec![true; captures.len()];
    };
    let mark = |e: &Expr, written: &mut Vec<bool>| {
        capture_roots(e, &mut |i| {
            if let Some(slot) = written.get_mut(i as usize) {
                *slot = true;
            }
        });
    };
    visit::for_each_stmt(body, &mut |n| match n {
        Node::Stmt(s) => {
            if let StmtKind::Let {
                init: Some(Init::Ref(place)),
                ..
            } = &s.kind
            {
                mark(place, &mut written);
            }
        }
        Node::Expr(top) => {
            // A view at the top of a statement is copied or bound.
            if is_capture_view(top) {
                mark(top, &mut written);
            }
            visit::for_each_subexpr(top, &mut |e| {
                for place in written_places(program, e) {
                    mark(place, &mut written);
                }
                if let ExprKind::AddrOf(place) = &e.kind {
                    mark(place, &mut written);
                }
                let reads_through = match &e.kind {
                    ExprKind::Intrinsic {
                        op: Intrinsic::ViewElement | Intrinsic::ViewProject | Intrinsic::ViewExtent,
                        args,
                    } => args.first(),
                    _ => None,
                };
                visit::for_each_child(e, &mut |c| {
                    let operand = reads_through.is_some_and(|r| std::ptr::eq(r, c));
                    if !operand && is_capture_view(c) {
                        mark(c, &mut written);
                    }
                });
            });
        }
    });
    written
}

/// A capture, or a projection of one that is still a view.
fn is_capture_view(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Capture(_) => true,
        ExprKind::Intrinsic {
            op: Intrinsic::ViewProject,
            args,
        } => args.first().is_some_and(is_capture_view),
        _ => false,
    }
}

/// Calls `f` on each capture slot whose data a place or view expression
/// may reach: through elements and projections of views, fields, C array
/// elements, and either branch of a conditional place.
fn capture_roots(e: &Expr, f: &mut impl FnMut(u32)) {
    match &e.kind {
        ExprKind::Capture(i) => f(*i),
        ExprKind::Intrinsic {
            op: Intrinsic::ViewElement | Intrinsic::ViewProject,
            args,
        } => {
            if let Some(view) = args.first() {
                capture_roots(view, f);
            }
        }
        ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => capture_roots(base, f),
        ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
            capture_roots(target, f)
        }
        ExprKind::IncDec {
            target,
            prefix: true,
            ..
        } => capture_roots(target, f),
        ExprKind::Comma { second, .. } => capture_roots(second, f),
        ExprKind::Conditional { then, els, .. } => {
            capture_roots(then, f);
            capture_roots(els, f);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Const, Fence, Restriction, Space, StmtId, Type};

    fn expr(kind: ExprKind) -> Expr {
        Expr {
            kind,
            ty: Type::Void,
            place: false,
            span: Span::default(),
        }
    }

    fn call(f: u32) -> Stmt {
        Stmt::new(
            StmtKind::Expr(expr(ExprKind::Call {
                func: FuncId(f),
                args: Vec::new(),
            })),
            Span::default(),
        )
    }

    fn func(name: &str, stmts: Vec<Stmt>) -> Function {
        Function {
            name: name.into(),
            kind: FunctionKind::Plain,
            restriction: Restriction {
                cpu: false,
                amp: true,
            },
            params: 0,
            locals: Vec::new(),
            ret: Type::Void,
            ret_by_ref: false,
            body: Some(Block { stmts }),
            stmt_count: 0,
            span: Span::default(),
        }
    }

    /// `f0` waits; `f1` calls `f0` inside an `if`; `f2` calls `f1` and a
    /// function that does not exist; `f3` calls itself; `f4` and `f5` call
    /// each other.
    fn program() -> Program {
        let barrier = Stmt::new(StmtKind::Barrier(Fence::All), Span::default());
        let cond = expr(ExprKind::Const(Const::Bool(true)));
        let guarded = Stmt::new(
            StmtKind::If {
                cond,
                then: Block {
                    stmts: vec![call(0)],
                },
                els: None,
            },
            Span::default(),
        );
        let plain = Stmt::new(
            StmtKind::Let {
                local: LocalId(0),
                init: None,
            },
            Span::default(),
        );
        let mut p = Program {
            functions: vec![
                func("f0", vec![barrier]),
                func("f1", vec![plain, guarded]),
                func("f2", vec![call(1), call(99)]),
                func("f3", vec![call(3)]),
                func("f4", vec![call(5)]),
                func("f5", vec![call(4)]),
            ],
            ..Program::default()
        };
        p.functions[1].locals.push(crate::Local {
            name: "x".into(),
            ty: Type::INT,
            by_ref: false,
            is_const: false,
            space: Space::Private,
            span: Span::default(),
        });
        p.number_statements();
        p
    }

    #[test]
    fn statements_are_numbered_in_program_order() {
        let p = program();
        let f1 = p.function(FuncId(1));
        assert_eq!(f1.stmt_count, 3);
        let mut ids = Vec::new();
        visit::walk_block(
            f1.body.as_ref().unwrap_or(&Block::default()),
            &mut |s| ids.push(s.id),
            &mut |_| {},
        );
        assert_eq!(ids, [StmtId(0), StmtId(1), StmtId(2)]);
    }

    #[test]
    fn barriers_reach_callers_and_their_statements() {
        let p = program();
        let barriers = Barriers::of(&p);
        assert_eq!(
            barriers.functions(),
            [true, true, true, false, false, false]
        );
        // In f1: the `let` does not wait, the `if` and the call in it do.
        assert_eq!(
            barriers.stmt_table(p.function(FuncId(1))),
            [false, true, true]
        );
        assert_eq!(barrier_functions(&p), barriers.functions());
    }

    #[test]
    fn recursion_is_found_in_cycles_and_self_calls() {
        let p = program();
        let graph = CallGraph::build(&p);
        // The call of f99 is no edge.
        assert_eq!(graph.calls(FuncId(2)).len(), 1);
        let everything = graph.reachable((0..6).map(FuncId));
        let mut groups: Vec<Vec<usize>> = graph
            .recursive_components(&everything)
            .into_iter()
            .map(|mut c| {
                c.sort_unstable();
                c
            })
            .collect();
        groups.sort();
        assert_eq!(groups, [vec![3], vec![4, 5]]);
        assert_eq!(
            graph.reachable([FuncId(2)]),
            [true, true, true, false, false, false]
        );
    }
}
