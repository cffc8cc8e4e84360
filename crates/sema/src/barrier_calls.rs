//! Calls of functions that wait at a barrier, taken out of the expressions
//! around them.
//!
//! Both engines run a function with a barrier for a whole tile in step, so
//! they need its call to be a statement of its own: `f(t);`, `x = f(t);`,
//! `T x = f(t);` or `return f(t);`. A call elsewhere in an expression
//! (`av[t] = g(f(t), 1)`, `if (f(t) > 1)`, `while (f(t) < n)`,
//! `do { ... } while (f(t) < n)`) is given a
//! local of its own here, declared and set by such a statement just before
//! the expression, which then reads the local. This changes no result:
//! C++ sequences a call only against what it must (its arguments before
//! it), and every expression this moves a call ahead of is, in C++,
//! indeterminately sequenced with it. Calls C++ might not evaluate at all
//! (the right of `&&` and `||`, a branch of `?:`) or must evaluate after
//! something else (the right of a comma, the target of an assignment,
//! whose value is computed first) are left where they are; the engines
//! report those as before.

use tessera_ir::{
    Block, Const, Expr, ExprKind, FunctionKind, Init, Local, LocalId, Program, Space, Stmt,
    StmtKind, Type, UnOp, facts,
};

/// Takes the calls of functions with barriers out of the expressions of
/// every function that may run on the accelerator.
pub(crate) fn lift(program: &mut Program) {
    let waits = facts::barrier_functions(program);
    if !waits.iter().any(|&w| w) {
        return;
    }
    // A call can be given a local only for a value (not `void`, not a
    // reference).
    let values: Vec<bool> = program
        .functions
        .iter()
        .map(|f| !f.ret_by_ref && !matches!(f.ret, Type::Void))
        .collect();
    let cx = Cx {
        waits: &waits,
        values: &values,
    };
    for f in &mut program.functions {
        let amp = f.restriction.amp || matches!(f.kind, FunctionKind::Kernel { .. });
        if !amp {
            continue;
        }
        let Some(mut body) = f.body.take() else {
            continue;
        };
        cx.block(&mut body, &mut f.locals);
        f.body = Some(body);
    }
}

struct Cx<'a> {
    /// By function: whether running it waits at a barrier.
    waits: &'a [bool],
    /// By function: whether it returns a value a local can hold.
    values: &'a [bool],
}

impl Cx<'_> {
    fn waits(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Call { func, .. }
            if self.waits.get(func.index()).copied().unwrap_or(false))
    }

    /// Whether `e` holds a call of a function with a barrier.
    fn holds(&self, e: &Expr) -> bool {
        tessera_ir::visit::any_subexpr(e, &mut |x| self.waits(x))
    }

    fn block(&self, block: &mut Block, locals: &mut Vec<Local>) {
        let old = std::mem::take(&mut block.stmts);
        for mut s in old {
            self.nested(&mut s, locals);
            let mut before = Vec::new();
            self.stmt(&mut s, locals, &mut before);
            block.stmts.extend(before);
            block.stmts.push(s);
        }
    }

    /// The blocks inside `s`.
    fn nested(&self, s: &mut Stmt, locals: &mut Vec<Local>) {
        match &mut s.kind {
            StmtKind::Block(b) => self.block(b, locals),
            StmtKind::If { then, els, .. } => {
                self.block(then, locals);
                if let Some(e) = els {
                    self.block(e, locals);
                }
            }
            StmtKind::Loop { body, .. } => self.block(body, locals),
            StmtKind::Switch { arms, .. } => {
                for arm in arms {
                    self.block(&mut arm.body, locals);
                }
            }
            StmtKind::Try { body, handlers } => {
                self.block(body, locals);
                for h in handlers {
                    self.block(&mut h.body, locals);
                }
            }
            _ => {}
        }
    }

    /// Takes the calls out of `s`'s own expressions: the statements that
    /// set their locals go to `before`; a loop's condition moves into its
    /// body.
    fn stmt(&self, s: &mut Stmt, locals: &mut Vec<Local>, before: &mut Vec<Stmt>) {
        let span = s.span;
        match &mut s.kind {
            StmtKind::Expr(e) => match &mut e.kind {
                ExprKind::Call { .. } => self.lift_args(e, locals, before),
                ExprKind::Assign { target, value } if self.waits(value) && !self.holds(target) => {
                    self.lift_args(value, locals, before)
                }
                _ => self.lift(e, locals, before),
            },
            StmtKind::Let {
                init: Some(Init::Expr(e)),
                ..
            }
            | StmtKind::Return(Some(e)) => {
                if self.waits(e) {
                    self.lift_args(e, locals, before);
                } else {
                    self.lift(e, locals, before);
                }
            }
            StmtKind::If { cond, .. } => self.lift(cond, locals, before),
            StmtKind::Switch { value, .. } => self.lift(value, locals, before),
            // `while (c) body` and `for (...; c; step) body` whose `c`
            // calls one: `for (;;) { T x = f(t); if (!c') break; body }`,
            // which evaluates `c` where and as often as the loop did
            // (`continue` runs the step, then the body's start).
            StmtKind::Loop {
                cond,
                test_first: true,
                body,
                ..
            } if cond
                .as_ref()
                .is_some_and(|c| self.holds(c) && self.liftable(c)) =>
            {
                let Some(mut c) = cond.take() else {
                    return;
                };
                let mut head = Vec::new();
                self.lift(&mut c, locals, &mut head);
                head.push(break_unless(c, span));
                head.append(&mut body.stmts);
                body.stmts = head;
            }
            // `do body while (c);` whose `c` calls one:
            // `for (;;) { body T x = f(t); if (!c') break; }`. A body with a
            // `continue` of its own (which goes to `c`) runs inside a
            // `do { body } while (false);`, where that `continue` ends it,
            // and its own `break`s set a flag the loop then breaks on.
            StmtKind::Loop {
                cond,
                test_first: false,
                body,
                step: None,
            } if cond
                .as_ref()
                .is_some_and(|c| self.holds(c) && self.liftable(c)) =>
            {
                let Some(mut c) = cond.take() else {
                    return;
                };
                if continues(body) {
                    let left = new_local(locals, Type::BOOL, span);
                    let mut inner = std::mem::take(&mut body.stmts);
                    flag_breaks(&mut inner, left, span);
                    body.stmts = vec![
                        Stmt::new(
                            StmtKind::Let {
                                local: left,
                                init: Some(Init::Expr(bool_const(false, span))),
                            },
                            span,
                        ),
                        Stmt::new(
                            StmtKind::Loop {
                                cond: Some(bool_const(false, span)),
                                test_first: false,
                                body: Block { stmts: inner },
                                step: None,
                            },
                            span,
                        ),
                        break_if(read_local(left, Type::BOOL, span), span),
                    ];
                }
                let mut tail = Vec::new();
                self.lift(&mut c, locals, &mut tail);
                tail.push(break_unless(c, span));
                body.stmts.append(&mut tail);
            }
            _ => {}
        }
    }

    /// Whether every call with a barrier in `e` may be taken out (see the
    /// module's comment).
    fn liftable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Logical { lhs, rhs, .. } => self.liftable(lhs) && !self.holds(rhs),
            ExprKind::Conditional { cond, then, els } => {
                self.liftable(cond) && !self.holds(then) && !self.holds(els)
            }
            ExprKind::Comma { first, second } => self.liftable(first) && !self.holds(second),
            ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
                !self.holds(target) && self.liftable(value)
            }
            ExprKind::IncDec { target, .. } => !self.holds(target),
            ExprKind::Call { func, .. } if self.waits(e) => {
                self.values.get(func.index()).copied().unwrap_or(false) && self.children_liftable(e)
            }
            _ => self.children_liftable(e),
        }
    }

    fn children_liftable(&self, e: &Expr) -> bool {
        let mut ok = true;
        tessera_ir::visit::for_each_child(e, &mut |c| ok &= self.liftable(c));
        ok
    }

    /// The calls in the arguments of the call `e`, which is a statement's
    /// own (its arguments are evaluated before it in any case).
    fn lift_args(&self, e: &mut Expr, locals: &mut Vec<Local>, before: &mut Vec<Stmt>) {
        if let ExprKind::Call { args, .. } = &mut e.kind
            && args.iter().all(|a| self.liftable(a))
        {
            for a in args {
                self.lift(a, locals, before);
            }
        }
    }

    /// Replaces each call with a barrier in `e` by a new local set just
    /// before (inner calls first, in evaluation order), when all may be.
    fn lift(&self, e: &mut Expr, locals: &mut Vec<Local>, before: &mut Vec<Stmt>) {
        if !self.holds(e) || !self.liftable(e) {
            return;
        }
        self.replace(e, locals, before);
    }

    fn replace(&self, e: &mut Expr, locals: &mut Vec<Local>, before: &mut Vec<Stmt>) {
        tessera_ir::visit::for_each_child_mut(e, &mut |c| self.replace(c, locals, before));
        if !self.waits(e) {
            return;
        }
        let id = new_local(locals, e.ty.clone(), e.span);
        let read = read_local(id, e.ty.clone(), e.span);
        let call = std::mem::replace(e, read);
        let span = call.span;
        before.push(Stmt::new(
            StmtKind::Let {
                local: id,
                init: Some(Init::Expr(call)),
            },
            span,
        ));
    }
}

/// `if (!cond) break;`
fn break_unless(cond: Expr, span: tessera_diagnostics::Span) -> Stmt {
    let not = Expr {
        ty: Type::BOOL,
        place: false,
        span: cond.span,
        kind: ExprKind::Unary {
            op: UnOp::Not,
            operand: Box::new(cond),
        },
    };
    break_if(not, span)
}

/// `if (cond) break;`
fn break_if(cond: Expr, span: tessera_diagnostics::Span) -> Stmt {
    Stmt::new(
        StmtKind::If {
            cond,
            then: Block {
                stmts: vec![Stmt::new(StmtKind::Break, span)],
            },
            els: None,
        },
        span,
    )
}

/// The `bool` constant `b`.
fn bool_const(b: bool, span: tessera_diagnostics::Span) -> Expr {
    Expr {
        kind: ExprKind::Const(Const::Bool(b)),
        ty: Type::BOOL,
        place: false,
        span,
    }
}

/// Whether `block` holds a `continue` of the loop around it (not one of
/// a loop inside it).
fn continues(block: &Block) -> bool {
    block.stmts.iter().any(|s| match &s.kind {
        StmtKind::Continue => true,
        StmtKind::Block(b) => continues(b),
        StmtKind::If { then, els, .. } => continues(then) || els.as_ref().is_some_and(continues),
        StmtKind::Switch { arms, .. } => arms.iter().any(|a| continues(&a.body)),
        StmtKind::Try { body, handlers } => {
            continues(body) || handlers.iter().any(|h| continues(&h.body))
        }
        _ => false,
    })
}

/// A new unnamed local of type `ty`.
fn new_local(locals: &mut Vec<Local>, ty: Type, span: tessera_diagnostics::Span) -> LocalId {
    let id = LocalId(locals.len() as u32);
    locals.push(Local {
        name: String::new(),
        ty,
        by_ref: false,
        is_const: false,
        space: Space::Private,
        span,
    });
    id
}

/// The local `id` named as an expression.
fn read_local(id: LocalId, ty: Type, span: tessera_diagnostics::Span) -> Expr {
    Expr {
        kind: ExprKind::Local(id),
        ty,
        place: true,
        span,
    }
}

/// Makes each `break` of the loop around `stmts` (not one of a loop or
/// `switch` inside them) first set the `bool` local `flag`.
fn flag_breaks(stmts: &mut [Stmt], flag: LocalId, span: tessera_diagnostics::Span) {
    for s in stmts {
        match &mut s.kind {
            StmtKind::Break => {
                let set = Expr {
                    kind: ExprKind::Assign {
                        target: Box::new(read_local(flag, Type::BOOL, span)),
                        value: Box::new(bool_const(true, span)),
                    },
                    ty: Type::BOOL,
                    place: true,
                    span,
                };
                s.kind = StmtKind::Block(Block {
                    stmts: vec![
                        Stmt::new(StmtKind::Expr(set), s.span),
                        Stmt::new(StmtKind::Break, s.span),
                    ],
                });
            }
            StmtKind::Block(b) => flag_breaks(&mut b.stmts, flag, span),
            StmtKind::If { then, els, .. } => {
                flag_breaks(&mut then.stmts, flag, span);
                if let Some(e) = els {
                    flag_breaks(&mut e.stmts, flag, span);
                }
            }
            StmtKind::Try { body, handlers } => {
                flag_breaks(&mut body.stmts, flag, span);
                for h in handlers {
                    flag_breaks(&mut h.body.stmts, flag, span);
                }
            }
            _ => {}
        }
    }
}
