//! Functions called out of line: a kernel whose calls, inlined, pass the
//! emitter's budgets (a tree of thousands of calls, a chain of hundreds)
//! is lowered again with some of its callees compiled once each, as
//! functions of their own, and called.
//!
//! Only functions whose call is a plain value passing both ways qualify:
//! scalar parameters by value, a scalar or `void` result, no barrier in
//! the body or below it, no `tile_static` variable. Such a function can
//! reach nothing of its caller (a kernel function sees no global and no
//! capture), so calling it out of line changes no meaning; it fails or
//! stops by the status it returns, which the caller passes on.

use tessera_ir::facts::{Barriers, CallGraph};
use tessera_ir::visit::for_each_expr_deep;
use tessera_ir::{FuncId, FunctionKind, Program, Space, Type};
use tessera_runtime::launch::MAX_KERNEL_CALL_CHAIN;

/// What the calls below a kernel come to: one walk of the call graph
/// answers how the kernel lowers its calls ([`CallTree::outline_first`],
/// [`CallTree::shared_calls`]).
pub(crate) struct CallTree {
    /// The functions it reaches, callees before their callers, itself last.
    below_first: Vec<FuncId>,
    /// Its expressions with every call inlined (saturating).
    inlined: usize,
    /// Its longest chain of calls.
    depth: u32,
    /// The bodies of functions with barriers its calls inlined would
    /// emit (saturating).
    waiting: usize,
}

/// The [`CallTree`] of `kernel`, from one depth-first walk of the call
/// graph; `None` when its calls form a cycle.
pub(crate) fn call_tree(prog: &Program, kernel: FuncId) -> Option<CallTree> {
    let graph = CallGraph::build(prog);
    let n = graph.len();
    if kernel.index() >= n {
        return None;
    }
    // Of each function done: its expressions inlined, its deepest chain
    // and the bodies with barriers inlined below it.
    let barriers = Barriers::of(prog);
    let mut done: Vec<Option<(usize, u32, usize)>> = vec![None; n];
    let mut on_path = vec![false; n];
    let mut below_first = Vec::new();
    let mut stack: Vec<(FuncId, usize)> = vec![(kernel, 0)];
    on_path[kernel.index()] = true;
    while let Some(&mut (f, ref mut next)) = stack.last_mut() {
        let calls = graph.calls(f);
        if let Some((c, _)) = calls.get(*next) {
            *next += 1;
            if on_path[c.index()] {
                return None;
            }
            if done[c.index()].is_none() {
                on_path[c.index()] = true;
                stack.push((*c, 0));
            }
            continue;
        }
        let mut inlined = 0usize;
        if let Some(body) = prog.get_function(f).and_then(|x| x.body.as_ref()) {
            for_each_expr_deep(body, &mut |_| inlined += 1);
        }
        let mut depth = 0u32;
        let mut waiting = 0usize;
        for (c, _) in calls {
            let (size, below, waits) = done[c.index()].unwrap_or((0, 0, 0));
            inlined = inlined.saturating_add(size);
            depth = depth.max(below + 1);
            waiting = waiting
                .saturating_add(waits)
                .saturating_add(usize::from(barriers.contains(*c)));
        }
        done[f.index()] = Some((inlined, depth, waiting));
        on_path[f.index()] = false;
        below_first.push(f);
        stack.pop();
    }
    let (inlined, depth, waiting) = done[kernel.index()]?;
    Some(CallTree {
        below_first,
        inlined,
        depth,
        waiting,
    })
}

/// The functions `kernel` reaches that can be called out of line, callees
/// before their callers; `None` when there is none, when its calls form a
/// cycle, or when its longest chain of calls is deeper than the
/// interpreter lets a launch go (the inlining emitter declines the same).
pub(crate) fn candidates(prog: &Program, kernel: FuncId) -> Option<Vec<FuncId>> {
    let tree = call_tree(prog, kernel)?;
    // The kernel's frame and one per call of the longest chain.
    if tree.depth + 1 > MAX_KERNEL_CALL_CHAIN {
        return None;
    }
    let barriers = Barriers::of(prog);
    let chosen: Vec<FuncId> = tree
        .below_first
        .into_iter()
        .filter(|&f| f != kernel && callable_out_of_line(prog, &barriers, f))
        .collect();
    (!chosen.is_empty()).then_some(chosen)
}

/// Whether `f` qualifies (see the module's comment).
fn callable_out_of_line(prog: &Program, barriers: &Barriers, f: FuncId) -> bool {
    let Some(func) = prog.get_function(f) else {
        return false;
    };
    func.body.is_some()
        && matches!(func.kind, FunctionKind::Plain)
        && !barriers.contains(f)
        && !func.ret_by_ref
        && matches!(func.ret, Type::Void | Type::Scalar(_))
        && func.locals.len() >= func.params as usize
        && func.locals[..func.params as usize]
            .iter()
            .all(|l| !l.by_ref && matches!(l.ty, Type::Scalar(_)))
        && func.locals.iter().all(|l| l.space != Space::TileStatic)
}

/// Chains of calls deeper than this are called out of line from the
/// start: inlined, each level's variables stay live across the levels
/// below, and the compile time grows with the square of the depth (a
/// chain of 310 calls took half a second).
const DEEP_CHAIN: u32 = 32;

/// The functions of `outlined` that code lowered for `from` calls: those
/// its body calls, and those the functions it inlines call (the others are
/// left out of its imports, which Cranelift keeps per function).
pub(crate) fn called_out_of_line(
    prog: &Program,
    from: FuncId,
    outlined: &dyn Fn(FuncId) -> bool,
) -> Vec<FuncId> {
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![from];
    let mut out = Vec::new();
    while let Some(f) = todo.pop() {
        let Some(body) = prog.get_function(f).and_then(|x| x.body.as_ref()) else {
            continue;
        };
        for_each_expr_deep(body, &mut |e| {
            if let tessera_ir::ExprKind::Call { func, .. } = &e.kind
                && seen.insert(*func)
            {
                if outlined(*func) {
                    out.push(*func);
                } else {
                    todo.push(*func);
                }
            }
        });
    }
    out
}

/// Kernels whose calls inlined would emit more bodies of functions with
/// barriers than this are lowered with such calls shared from the start
/// (see `emit::shared`): inlining them first would mostly fail (eleven
/// levels of helpers calling the next twice make 4,095 bodies, and the
/// failed lowering took about 26 ms), and few copies gain little from
/// inlining.
const SHARED_FIRST: usize = 64;

impl CallTree {
    /// Whether the kernel is worth lowering with calls out of line from
    /// the start, rather than after inlining them has passed a budget: its
    /// calls inlined would come to more than `budget` expressions, or it
    /// has a chain of calls deeper than [`DEEP_CHAIN`].
    pub(crate) fn outline_first(&self, budget: usize) -> bool {
        self.inlined > budget || self.depth > DEEP_CHAIN
    }

    /// How the kernel should lower calls of functions with barriers:
    /// `None` when it makes none, else whether to share them from the
    /// start (more than [`SHARED_FIRST`] bodies inlined).
    pub(crate) fn shared_calls(&self) -> Option<bool> {
        (self.waiting > 0).then_some(self.waiting > SHARED_FIRST)
    }
}
