//! Which functions reach a barrier, and which statements hold one. Kept in
//! one module so it can be swapped for shared per-function facts.

use crate::walk::{walk_block, walk_stmt};
use tessera_ir::{Block as IrBlock, ExprKind, FuncId, Program, Stmt, StmtKind};

/// Functions that reach a barrier, directly or through calls.
pub(crate) fn barrier_functions(prog: &Program) -> Vec<bool> {
    let n = prog.functions.len();
    let mut has = vec![false; n];
    let mut calls: Vec<Vec<FuncId>> = vec![Vec::new(); n];
    for (i, f) in prog.functions.iter().enumerate() {
        if let Some(b) = &f.body {
            walk_block(
                b,
                &mut |s| {
                    if matches!(s.kind, StmtKind::Barrier(_)) {
                        has[i] = true;
                    }
                },
                &mut |e| {
                    if let ExprKind::Call { func, .. } = &e.kind {
                        calls[i].push(*func);
                    }
                },
            );
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            if !has[i]
                && calls[i]
                    .iter()
                    .any(|c| has.get(c.0 as usize).copied().unwrap_or(false))
            {
                has[i] = true;
                changed = true;
            }
        }
    }
    has
}

pub(crate) fn stmt_has_barrier(s: &Stmt, barrier_fns: &[bool]) -> bool {
    let found = std::cell::Cell::new(false);
    walk_stmt(
        s,
        &mut |s| {
            if matches!(s.kind, StmtKind::Barrier(_)) {
                found.set(true);
            }
        },
        &mut |e| {
            if let ExprKind::Call { func, .. } = &e.kind
                && barrier_fns.get(func.0 as usize).copied().unwrap_or(false)
            {
                found.set(true);
            }
        },
    );
    found.get()
}

pub(crate) fn block_has_barrier(b: &IrBlock, barrier_fns: &[bool]) -> bool {
    b.stmts.iter().any(|s| stmt_has_barrier(s, barrier_fns))
}
