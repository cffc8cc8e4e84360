//! The IR walker the JIT uses: every statement and expression of a block,
//! in order. Kept in one module so it can be swapped for a shared visitor.

use tessera_ir::{Block as IrBlock, Expr, ExprKind, Init, Stmt, StmtKind};

pub(crate) fn walk_block(b: &IrBlock, fs: &mut dyn FnMut(&Stmt), fe: &mut dyn FnMut(&Expr)) {
    for s in &b.stmts {
        walk_stmt(s, fs, fe);
    }
}

pub(crate) fn walk_stmt(s: &Stmt, fs: &mut dyn FnMut(&Stmt), fe: &mut dyn FnMut(&Expr)) {
    fs(s);
    match &s.kind {
        StmtKind::Expr(e) => walk_expr(e, fe),
        StmtKind::Let { init: Some(i), .. } => walk_init(i, fe),
        StmtKind::Block(b) => walk_block(b, fs, fe),
        StmtKind::If { cond, then, els } => {
            walk_expr(cond, fe);
            walk_block(then, fs, fe);
            if let Some(e) = els {
                walk_block(e, fs, fe);
            }
        }
        StmtKind::Loop {
            cond, body, step, ..
        } => {
            if let Some(c) = cond {
                walk_expr(c, fe);
            }
            walk_block(body, fs, fe);
            if let Some(st) = step {
                walk_expr(st, fe);
            }
        }
        StmtKind::Switch { value, arms } => {
            walk_expr(value, fe);
            for a in arms {
                walk_block(&a.body, fs, fe);
            }
        }
        StmtKind::Return(Some(e)) => walk_expr(e, fe),
        _ => {}
    }
}

pub(crate) fn walk_init(i: &Init, fe: &mut dyn FnMut(&Expr)) {
    match i {
        Init::Expr(e) | Init::Ref(e) => walk_expr(e, fe),
        Init::List(items) => {
            for it in items {
                walk_init(it, fe);
            }
        }
        Init::Zero => {}
    }
}

pub(crate) fn walk_expr(e: &Expr, fe: &mut dyn FnMut(&Expr)) {
    fe(e);
    match &e.kind {
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            walk_expr(lhs, fe);
            walk_expr(rhs, fe);
        }
        ExprKind::Unary { operand, .. } => walk_expr(operand, fe),
        ExprKind::Conditional { cond, then, els } => {
            walk_expr(cond, fe);
            walk_expr(then, fe);
            walk_expr(els, fe);
        }
        ExprKind::Convert(x) => walk_expr(x, fe),
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
            walk_expr(target, fe);
            walk_expr(value, fe);
        }
        ExprKind::IncDec { target, .. } => walk_expr(target, fe),
        ExprKind::Field { base, .. } => walk_expr(base, fe),
        ExprKind::Element { base, index } => {
            walk_expr(base, fe);
            walk_expr(index, fe);
        }
        ExprKind::Call { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Aggregate(args) => {
            for a in args {
                walk_expr(a, fe);
            }
        }
        ExprKind::Launch {
            domain, captures, ..
        } => {
            walk_expr(domain, fe);
            for c in captures {
                walk_expr(c, fe);
            }
        }
        ExprKind::Comma { first, second } => {
            walk_expr(first, fe);
            walk_expr(second, fe);
        }
        _ => {}
    }
}
