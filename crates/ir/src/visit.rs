//! Walking the typed program: the operands of an expression, the expressions
//! and blocks of a statement, and every statement and expression of a block.
//!
//! Every pass that looks at the whole of a body (the checker's analyses, the
//! interpreter's barrier facts, the JIT's plans) walks it with these, so a
//! new expression or statement kind is taught to every pass in one place.
//! Operands are visited in evaluation order (an assignment's value before
//! its target); statements in program order, each before what it contains.

use crate::{Block, Expr, ExprKind, Init, Stmt, StmtKind};

/// Calls `f` on each direct operand of `e`, in evaluation order.
pub fn for_each_child<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Capture(_)
        | ExprKind::Null
        | ExprKind::FuncAddr(_)
        | ExprKind::Str(_) => {}
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::AddrOf(inner) | ExprKind::Deref(inner) => f(inner),
        ExprKind::PtrAdd { ptr, offset } => {
            f(ptr);
            f(offset);
        }
        ExprKind::PtrDiff { lhs, rhs } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::New { count, value } => {
            if let Some(c) = count {
                f(c);
            }
            if let Some(v) = value {
                f(v);
            }
        }
        ExprKind::Delete { ptr, .. } => f(ptr),
        ExprKind::Unary { operand, .. } => f(operand),
        ExprKind::Throw(value) => {
            if let Some(v) = value {
                f(v);
            }
        }
        ExprKind::Conditional { cond, then, els } => {
            f(cond);
            f(then);
            f(els);
        }
        ExprKind::Convert(inner) => f(inner),
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
            f(value);
            f(target);
        }
        ExprKind::IncDec { target, .. } => f(target),
        ExprKind::Field { base, .. } => f(base),
        ExprKind::Element { base, index } => {
            f(base);
            f(index);
        }
        ExprKind::Call { args, .. }
        | ExprKind::VirtualCall { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Aggregate(args) => {
            for a in args {
                f(a);
            }
        }
        ExprKind::CallPtr { callee, args } => {
            f(callee);
            for a in args {
                f(a);
            }
        }
        ExprKind::Launch {
            domain, captures, ..
        } => {
            f(domain);
            for c in captures {
                f(c);
            }
        }
        ExprKind::Comma { first, second } => {
            f(first);
            f(second);
        }
    }
}

/// Calls `f` on each direct operand of `e`, mutably, in evaluation order
/// (for passes that rewrite expressions in place).
pub fn for_each_child_mut(e: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Capture(_)
        | ExprKind::Null
        | ExprKind::FuncAddr(_)
        | ExprKind::Str(_) => {}
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::PtrDiff { lhs, rhs }
        | ExprKind::Comma {
            first: lhs,
            second: rhs,
        } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::AddrOf(inner) | ExprKind::Deref(inner) => f(inner),
        ExprKind::PtrAdd { ptr, offset } => {
            f(ptr);
            f(offset);
        }
        ExprKind::New { count, value } => {
            if let Some(c) = count {
                f(c);
            }
            if let Some(v) = value {
                f(v);
            }
        }
        ExprKind::Delete { ptr, .. } => f(ptr),
        ExprKind::Unary { operand, .. } => f(operand),
        ExprKind::Throw(value) => {
            if let Some(v) = value {
                f(v);
            }
        }
        ExprKind::Conditional { cond, then, els } => {
            f(cond);
            f(then);
            f(els);
        }
        ExprKind::Convert(inner) => f(inner),
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
            f(value);
            f(target);
        }
        ExprKind::IncDec { target, .. } => f(target),
        ExprKind::Field { base, .. } => f(base),
        ExprKind::Element { base, index } => {
            f(base);
            f(index);
        }
        ExprKind::Call { args, .. }
        | ExprKind::VirtualCall { args, .. }
        | ExprKind::Intrinsic { args, .. }
        | ExprKind::Aggregate(args) => {
            for a in args {
                f(a);
            }
        }
        ExprKind::CallPtr { callee, args } => {
            f(callee);
            for a in args {
                f(a);
            }
        }
        ExprKind::Launch {
            domain, captures, ..
        } => {
            f(domain);
            for c in captures {
                f(c);
            }
        }
    }
}

/// Calls `f` on each top-level expression of every statement of `block`,
/// nested statements included (conditions, steps, initialisers, switched
/// and returned values; not their operands), for passes that rewrite
/// expressions in place.
pub fn for_each_stmt_expr_mut(block: &mut Block, f: &mut impl FnMut(&mut Expr)) {
    fn init(i: &mut Init, f: &mut impl FnMut(&mut Expr)) {
        match i {
            Init::Expr(e) | Init::Ref(e) => f(e),
            Init::List(items) => {
                for item in items {
                    init(item, f);
                }
            }
            Init::Zero => {}
        }
    }
    for_each_stmt_mut(block, &mut |s| match &mut s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(e),
        StmtKind::Let { init: Some(i), .. } => init(i, f),
        StmtKind::If { cond, .. } => f(cond),
        StmtKind::Loop { cond, step, .. } => {
            if let Some(c) = cond {
                f(c);
            }
            if let Some(st) = step {
                f(st);
            }
        }
        StmtKind::Switch { value, .. } => f(value),
        StmtKind::Let { init: None, .. }
        | StmtKind::Block(_)
        | StmtKind::Try { .. }
        | StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Goto(_)
        | StmtKind::Label(_)
        | StmtKind::Continue
        | StmtKind::Barrier(_) => {}
    });
}

/// Calls `f` on `e` and on every expression inside it, parents first.
pub fn for_each_subexpr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    for_each_child(e, &mut |c| for_each_subexpr(c, f));
}

/// True when `pred` holds for `e` or any expression inside it; stops at the
/// first that does.
pub fn any_subexpr(e: &Expr, pred: &mut impl FnMut(&Expr) -> bool) -> bool {
    if pred(e) {
        return true;
    }
    let mut found = false;
    for_each_child(e, &mut |c| {
        if !found {
            found = any_subexpr(c, pred);
        }
    });
    found
}

/// Calls `f` on every expression of an initialiser.
pub fn for_each_init_expr<'a>(init: &'a Init, f: &mut impl FnMut(&'a Expr)) {
    match init {
        Init::Expr(e) | Init::Ref(e) => f(e),
        Init::List(items) => {
            for i in items {
                for_each_init_expr(i, f);
            }
        }
        Init::Zero => {}
    }
}

impl Stmt {
    /// Calls `f` on each top-level expression this statement evaluates itself
    /// (condition, step, initialisers, switched or returned value), not on
    /// those of its nested blocks.
    pub fn for_each_expr<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match &self.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(e),
            StmtKind::Let { init: Some(i), .. } => for_each_init_expr(i, f),
            StmtKind::If { cond, .. } => f(cond),
            StmtKind::Loop { cond, step, .. } => {
                if let Some(c) = cond {
                    f(c);
                }
                if let Some(s) = step {
                    f(s);
                }
            }
            StmtKind::Switch { value, .. } => f(value),
            StmtKind::Let { init: None, .. }
            | StmtKind::Block(_)
            | StmtKind::Try { .. }
            | StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Goto(_)
            | StmtKind::Label(_)
            | StmtKind::Continue
            | StmtKind::Barrier(_) => {}
        }
    }

    /// Calls `f` on each block nested directly in this statement, in order.
    pub fn for_each_block<'a>(&'a self, f: &mut impl FnMut(&'a Block)) {
        match &self.kind {
            StmtKind::Block(b) => f(b),
            StmtKind::If { then, els, .. } => {
                f(then);
                if let Some(e) = els {
                    f(e);
                }
            }
            StmtKind::Loop { body, .. } => f(body),
            StmtKind::Switch { arms, .. } => {
                for a in arms {
                    f(&a.body);
                }
            }
            StmtKind::Try { body, handlers } => {
                f(body);
                for h in handlers {
                    f(&h.body);
                }
            }
            StmtKind::Expr(_)
            | StmtKind::Let { .. }
            | StmtKind::Return(_)
            | StmtKind::Break
            | StmtKind::Goto(_)
            | StmtKind::Label(_)
            | StmtKind::Continue
            | StmtKind::Barrier(_) => {}
        }
    }
}

/// A statement, or a top-level expression of one.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    /// A statement, before what it contains.
    Stmt(&'a Stmt),
    /// A condition, step, initialiser, returned value or expression statement.
    Expr(&'a Expr),
}

/// Calls `f` on every statement of `block`, nested ones included, and on
/// every top-level expression they contain (conditions, steps, initialisers,
/// returned values), in program order: a loop's step after its body.
pub fn for_each_stmt<'a>(block: &'a Block, f: &mut impl FnMut(Node<'a>)) {
    for s in &block.stmts {
        for_each_node(s, f);
    }
}

/// [`for_each_stmt`] for one statement and what it contains.
pub fn for_each_node<'a>(s: &'a Stmt, f: &mut impl FnMut(Node<'a>)) {
    f(Node::Stmt(s));
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(Node::Expr(e)),
        StmtKind::Let { init, .. } => {
            if let Some(init) = init {
                for_each_init_expr(init, &mut |e| f(Node::Expr(e)));
            }
        }
        StmtKind::Block(b) => for_each_stmt(b, f),
        StmtKind::If { cond, then, els } => {
            f(Node::Expr(cond));
            for_each_stmt(then, f);
            if let Some(els) = els {
                for_each_stmt(els, f);
            }
        }
        StmtKind::Loop {
            cond, body, step, ..
        } => {
            if let Some(c) = cond {
                f(Node::Expr(c));
            }
            for_each_stmt(body, f);
            if let Some(st) = step {
                f(Node::Expr(st));
            }
        }
        StmtKind::Switch { value, arms } => {
            f(Node::Expr(value));
            for arm in arms {
                for_each_stmt(&arm.body, f);
            }
        }
        StmtKind::Try { body, handlers } => {
            for_each_stmt(body, f);
            for h in handlers {
                for_each_stmt(&h.body, f);
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

/// Calls `f` on every expression of `program`, sub-expressions included:
/// those of every function's body, then of every global's initialiser.
pub fn for_each_program_expr<'a>(program: &'a crate::Program, f: &mut impl FnMut(&'a Expr)) {
    for func in &program.functions {
        if let Some(body) = &func.body {
            for_each_expr_deep(body, f);
        }
    }
    for g in &program.globals {
        if let Some(init) = &g.init {
            for_each_init_expr(init, &mut |e| for_each_subexpr(e, f));
        }
    }
}

/// Calls `f` on every expression of `block`, sub-expressions included.
pub fn for_each_expr_deep<'a>(block: &'a Block, f: &mut impl FnMut(&'a Expr)) {
    for_each_stmt(block, &mut |n| {
        if let Node::Expr(e) = n {
            for_each_subexpr(e, f);
        }
    });
}

/// Calls `fs` on every statement of `block` (nested ones included) and `fe`
/// on every expression (sub-expressions included), in program order.
pub fn walk_block<'a>(
    block: &'a Block,
    fs: &mut impl FnMut(&'a Stmt),
    fe: &mut impl FnMut(&'a Expr),
) {
    for_each_stmt(block, &mut |n| match n {
        Node::Stmt(s) => fs(s),
        Node::Expr(e) => for_each_subexpr(e, fe),
    });
}

/// [`walk_block`] for one statement and what it contains.
pub fn walk_stmt<'a>(s: &'a Stmt, fs: &mut impl FnMut(&'a Stmt), fe: &mut impl FnMut(&'a Expr)) {
    for_each_node(s, &mut |n| match n {
        Node::Stmt(s) => fs(s),
        Node::Expr(e) => for_each_subexpr(e, fe),
    });
}

/// Mutable access to every statement of a block, nested ones included, each
/// before what it contains (for passes that annotate statements in place).
pub fn for_each_stmt_mut(block: &mut Block, f: &mut impl FnMut(&mut Stmt)) {
    for s in &mut block.stmts {
        f(s);
        match &mut s.kind {
            StmtKind::Block(b) => for_each_stmt_mut(b, f),
            StmtKind::If { then, els, .. } => {
                for_each_stmt_mut(then, f);
                if let Some(e) = els {
                    for_each_stmt_mut(e, f);
                }
            }
            StmtKind::Loop { body, .. } => for_each_stmt_mut(body, f),
            StmtKind::Switch { arms, .. } => {
                for a in arms {
                    for_each_stmt_mut(&mut a.body, f);
                }
            }
            StmtKind::Try { body, handlers } => {
                for_each_stmt_mut(body, f);
                for h in handlers {
                    for_each_stmt_mut(&mut h.body, f);
                }
            }
            StmtKind::Expr(_)
            | StmtKind::Let { .. }
            | StmtKind::Return(_)
            | StmtKind::Break
            | StmtKind::Goto(_)
            | StmtKind::Label(_)
            | StmtKind::Continue
            | StmtKind::Barrier(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Const, Stmt, StmtId, Type};
    use tessera_diagnostics::Span;

    fn int(v: i64) -> Expr {
        Expr {
            kind: ExprKind::Const(Const::Int(v)),
            ty: Type::INT,
            place: false,
            span: Span::default(),
        }
    }

    fn stmt(kind: StmtKind) -> Stmt {
        Stmt::new(kind, Span::default())
    }

    #[test]
    fn a_loop_step_is_visited_after_its_body() {
        let body = Block {
            stmts: vec![stmt(StmtKind::Expr(int(2)))],
        };
        let lp = stmt(StmtKind::Loop {
            cond: Some(int(1)),
            test_first: true,
            body,
            step: Some(int(3)),
        });
        let block = Block { stmts: vec![lp] };
        let mut seen = Vec::new();
        for_each_expr_deep(&block, &mut |e| {
            if let ExprKind::Const(Const::Int(v)) = e.kind {
                seen.push(v);
            }
        });
        assert_eq!(seen, [1, 2, 3]);
        let mut direct = Vec::new();
        block.stmts[0].for_each_expr(&mut |e| direct.push(e.span));
        assert_eq!(direct.len(), 2);
        assert_eq!(block.stmts[0].id, StmtId::UNNUMBERED);
    }
}
