//! Calls folded into the caller's expression: a call of a function whose
//! body is one `return` of arithmetic on its by-value scalar parameters
//! (`inValue(y, x)`) becomes that arithmetic on the arguments, so a region
//! run in lanes computes it on vectors instead of inlining the call once
//! per lane.
//!
//! Compiled code only has to fail where the reference fails (a failed run
//! is handed back to the interpreter, which reports the error), so the
//! folded form must evaluate every argument at least once and nothing
//! else: the arguments change nothing, every parameter appears in the
//! returned expression outside `&&`, `||` and `?:`, and that expression
//! changes nothing either. An argument named twice is computed twice.

use super::vector::is_pure;
use tessera_ir::visit::{any_subexpr, for_each_child_mut, for_each_stmt_expr_mut};
use tessera_ir::{
    Block as IrBlock, Expr, ExprKind, FuncId, LocalId, Program, Stmt, StmtKind, Type,
};

/// `stmts` with every foldable call (see the module's notes) folded.
pub(crate) fn fold_calls(prog: &Program, stmts: &[Stmt]) -> Vec<Stmt> {
    let mut block = IrBlock {
        stmts: stmts.to_vec(),
    };
    for_each_stmt_expr_mut(&mut block, &mut |e| fold_expr(prog, e));
    block.stmts
}

/// Folds the calls in `e`, arguments first.
fn fold_expr(prog: &Program, e: &mut Expr) {
    for_each_child_mut(e, &mut |c| fold_expr(prog, c));
    if let ExprKind::Call { func, args } = &e.kind
        && let Some(folded) = folded_call(prog, *func, args, &e.ty)
    {
        *e = folded;
    }
}

/// The returned expression of `func` with its parameters replaced by
/// `args`, when the call may be folded.
fn folded_call(prog: &Program, func: FuncId, args: &[Expr], ty: &Type) -> Option<Expr> {
    let f = prog.get_function(func)?;
    let body = f.body.as_ref()?;
    let [
        Stmt {
            kind: StmtKind::Return(Some(ret)),
            ..
        },
    ] = body.stmts.as_slice()
    else {
        return None;
    };
    let params = f.params as usize;
    if f.ret_by_ref || ret.ty != *ty || args.len() != params || !is_pure(ret) {
        return None;
    }
    for (k, a) in args.iter().enumerate() {
        let p = f.locals.get(k)?;
        if p.by_ref || !matches!(p.ty, Type::Scalar(_)) || a.ty != p.ty || !is_pure(a) {
            return None;
        }
    }
    // Only parameters, each evaluated unconditionally.
    let mut uses = vec![0usize; params];
    let shaped = !any_subexpr(ret, &mut |x| match &x.kind {
        ExprKind::Logical { .. } | ExprKind::Conditional { .. } => true,
        ExprKind::Local(LocalId(l)) => match uses.get_mut(*l as usize) {
            Some(n) => {
                *n += 1;
                false
            }
            None => true,
        },
        ExprKind::Global(_) | ExprKind::Capture(_) => true,
        _ => false,
    });
    if !shaped || uses.contains(&0) {
        return None;
    }
    let mut folded = ret.clone();
    substitute(&mut folded, args);
    Some(folded)
}

/// Replaces each parameter `Local(k)` in `e` by `args[k]`.
fn substitute(e: &mut Expr, args: &[Expr]) {
    if let ExprKind::Local(LocalId(l)) = e.kind
        && let Some(a) = args.get(l as usize)
    {
        *e = a.clone();
        return;
    }
    for_each_child_mut(e, &mut |c| substitute(c, args));
}
