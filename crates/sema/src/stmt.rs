//! Statements and declarations of locals.

use crate::cx::{Checker, Consts, FnCx};
use crate::expr::mk;
use crate::types::{self, Declared};
use std::collections::HashMap;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{
    Block, Const, Expr, ExprKind, Init, Intrinsic, Local, LocalId, Scalar, Space, Stmt, StmtKind,
    SwitchArm, Type,
};
use tessera_syntax::ast::{self, Label, StmtKind as S};

impl FnCx<'_> {
    /// Lowers a block in a new scope.
    pub fn block(&mut self, b: &ast::Block) -> Block {
        self.scoped(|cx| {
            cx.enter_label_block(b);
            let mut out = Block::default();
            for (i, s) in b.stmts.iter().enumerate() {
                cx.at_statement(i);
                cx.stmt_into(s, &mut out.stmts);
            }
            cx.close_scope(&mut out.stmts);
            cx.leave_label_block();
            out
        })
    }

    /// Lowers a statement that is the body of `if`/loops: its own scope.
    fn body(&mut self, s: &ast::Stmt) -> Block {
        match &s.kind {
            S::Block(b) => self.block(b),
            _ => self.scoped(|cx| {
                let mut out = Block::default();
                cx.stmt_into(s, &mut out.stmts);
                cx.close_scope(&mut out.stmts);
                out
            }),
        }
    }

    /// The named constants visible here: `const` integral locals with a
    /// constant value and global ones; a local that is not a constant hides
    /// any constant of the same name. Costs one pass over the visible locals.
    pub fn visible_consts(&self) -> Consts {
        let globals = self.ck.const_globals.clone();
        let mut locals: HashMap<String, Option<i64>> = HashMap::new();
        for scope in self.scopes.iter().rev() {
            for (name, id) in scope {
                let value = self.local_consts.get(id).copied();
                if value.is_some() || globals.contains_key(name) {
                    locals.entry(name.clone()).or_insert(value);
                }
            }
        }
        // In a member function, the class's static constants.
        if let Some(this) = &self.this
            && let Some(class) = self.ck.classes.get(&this.class)
        {
            for (name, v) in &class.static_consts {
                locals.entry(name.clone()).or_insert(Some(*v));
            }
        }
        // In a kernel, the constants of the function around the lambda.
        if let Some(kernel) = &self.kernel {
            for (name, v) in &kernel.outer_consts {
                locals.entry(name.clone()).or_insert(*v);
            }
        }
        Consts { locals, globals }
    }

    /// Evaluates a constant expression in this scope.
    pub fn eval_const(&mut self, e: &ast::Expr) -> Option<i64> {
        let visible = self.visible_consts();
        let lookup = move |n: &str| visible.get(n);
        types::eval(self.ck, e, &lookup)
    }

    /// Resolves a declared type in this scope.
    pub fn resolve(
        &mut self,
        specs: &ast::DeclSpecs,
        modifiers: &ast::Modifiers,
        dims: &[Option<ast::Expr>],
    ) -> Declared {
        let visible = self.visible_consts();
        let lookup = move |n: &str| visible.get(n);
        if crate::decltype::mentions_decltype(&specs.ty) {
            let scope = self.decltype_scope();
            let saved = self.ck.decltype_scope.replace(scope);
            let d = types::resolve(self.ck, specs, modifiers, dims, &lookup);
            self.ck.decltype_scope = saved;
            return d;
        }
        types::resolve(self.ck, specs, modifiers, dims, &lookup)
    }

    fn push(out: &mut Vec<Stmt>, kind: StmtKind, span: Span) {
        out.push(Stmt::new(kind, span));
    }

    /// Lowers one statement, appending to `out` (a declaration of several
    /// variables becomes several statements).
    pub fn stmt_into(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        let span = s.span;
        match &s.kind {
            S::Expr(e) => {
                let e = self.expr(e);
                match e.kind {
                    ExprKind::Intrinsic {
                        op: Intrinsic::Barrier(fence),
                        ..
                    } => Self::push(out, StmtKind::Barrier(fence), span),
                    _ => self.effect_stmt(e, span, out),
                }
            }
            S::Decl(d) => self.local_decl(d, out),
            // `int f(int);` in a block: the function is declared as at
            // namespace scope, and its definition later completes it.
            S::FnDecl(f) => {
                crate::declare::declare_function_signature_first(self.ck, f, span, |_, _| {});
            }
            S::StaticAssert(a) => self.static_assert(a),
            S::Class(def) => self.local_class(def, span, out),
            S::Block(b) => {
                let b = self.block(b);
                Self::push(out, StmtKind::Block(b), span);
            }
            S::If { cond, then, els } => {
                let cond = self.expr(cond);
                let cond = self.condition(cond);
                let cond = self.valued_expr(cond, out, true);
                let then = self.body(then);
                let els = els.as_ref().map(|e| self.body(e));
                Self::push(out, StmtKind::If { cond, then, els }, span);
            }
            S::While { cond, body } => {
                let cond = self.expr(cond);
                let cond = self.condition(cond);
                let cond = Some(self.valued_expr(cond, out, true));
                let body = self.loop_body(body);
                Self::push(
                    out,
                    StmtKind::Loop {
                        cond,
                        test_first: true,
                        body,
                        step: None,
                    },
                    span,
                );
            }
            S::DoWhile { body, cond } => {
                let body = self.loop_body(body);
                let cond = self.expr(cond);
                let cond = self.condition(cond);
                let cond = Some(self.valued_expr(cond, out, true));
                Self::push(
                    out,
                    StmtKind::Loop {
                        cond,
                        test_first: false,
                        body,
                        step: None,
                    },
                    span,
                );
            }
            S::For {
                init,
                cond,
                step,
                body,
            } => {
                let block = self.scoped(|cx| {
                    let mut stmts = Vec::new();
                    if let Some(init) = init {
                        cx.stmt_into(init, &mut stmts);
                    }
                    let cond = cond.as_ref().map(|c| {
                        let c = cx.expr(c);
                        let c = cx.condition(c);
                        cx.valued_expr(c, &mut stmts, true)
                    });
                    let step = step.as_ref().map(|e| {
                        let e = cx.expr(e);
                        cx.valued_expr(e, &mut stmts, false)
                    });
                    let body = cx.loop_body(body);
                    let mut ends = Vec::new();
                    cx.close_scope(&mut ends);
                    stmts.push(Stmt::new(
                        StmtKind::Loop {
                            cond,
                            test_first: true,
                            body,
                            step,
                        },
                        span,
                    ));
                    stmts.extend(ends);
                    Block { stmts }
                });
                Self::push(out, StmtKind::Block(block), span);
            }
            S::ForRange {
                specs,
                declarator,
                range,
                body,
            } => self.for_range(specs, declarator, range, body, span, out),
            S::Switch { cond, body } => self.switch(cond, body, span, out),
            S::Labeled { label, stmt } => match label {
                Label::Case(_) | Label::Default => {
                    let what = if matches!(label, Label::Default) {
                        "`default`"
                    } else {
                        "`case`"
                    };
                    self.ck.error(
                        codes::E0214,
                        span,
                        format!("{what} label outside a `switch`"),
                        "not in a switch",
                        "",
                    );
                    self.stmt_into(stmt, out);
                }
                Label::Named(name) => {
                    if self.in_amp() {
                        self.forbidden(name.span, "labels", "C3598");
                    } else {
                        let id = self.label_id(name);
                        Self::push(out, StmtKind::Label(id), name.span);
                    }
                    self.stmt_into(stmt, out);
                }
            },
            S::Break => {
                if self.loops == 0 && self.switches == 0 {
                    self.ck.error(
                        codes::E0214,
                        span,
                        "`break` outside a loop or `switch`",
                        "nothing to break out of",
                        "to leave the function, use `return`",
                    );
                }
                if let Some(depth) = self.jump_depth(false) {
                    out.extend(self.jump_cleanups(depth, None, span));
                }
                Self::push(out, StmtKind::Break, span);
            }
            S::Continue => {
                if self.loops == 0 {
                    self.ck.error(
                        codes::E0214,
                        span,
                        "`continue` outside a loop",
                        "no loop to continue",
                        "to leave the function, use `return`",
                    );
                }
                if let Some(depth) = self.jump_depth(true) {
                    out.extend(self.jump_cleanups(depth, None, span));
                }
                Self::push(out, StmtKind::Continue, span);
            }
            S::Return(None) if self.this.as_ref().is_some_and(|t| t.constructing) => {
                // A constructor returns the object it built (see `class`).
                let object = self.this.as_ref().and_then(|t| t.object);
                let value = object.map(|o| self.local_expr(o, span));
                out.extend(self.jump_cleanups(0, None, span));
                Self::push(out, StmtKind::Return(value), span);
            }
            S::Return(value) => self.return_stmt(value.as_ref(), span, out),
            S::Using { namespace, path } => {
                if *namespace {
                    crate::library::headers::directive_declared(self.ck, path);
                    self.ck.using_namespaces.push(path.text());
                } else if path
                    .last()
                    .rsplit("::")
                    .next()
                    .is_some_and(|n| n.starts_with("operator"))
                {
                    // Kept by the namespace pass, with the operator's flat
                    // name (one segment: `Concurrency::Test::operator<<`).
                    self.ck.used_operators.push(path.text());
                } else if crate::library::headers::is_library_namespace(path) {
                    crate::library::headers::declared(self.ck, path);
                }
            }
            S::Goto(label) => {
                if self.in_amp() {
                    self.forbidden(label.span.to(span), "`goto`", "C3593");
                } else {
                    self.goto(label, span, out);
                }
            }
            S::Try { body, handlers } => {
                if self.in_amp() {
                    // Point at the keyword, not the whole block.
                    let keyword = Span {
                        end: span.start.saturating_add(3).min(span.end),
                        ..span
                    };
                    self.forbidden(keyword, "exceptions (`try`/`catch`)", "C3594");
                    return;
                }
                // Unwinding does not run the destructor calls the checker
                // writes at scope ends: refused rather than skipped.
                if self.ck.any_dtor {
                    self.ck.error(
                        codes::E0211,
                        span,
                        "exceptions in a program whose classes declare destructors are not supported yet",
                        "`try`",
                        "",
                    );
                }
                let body = self.block(body);
                let mut lowered = Vec::new();
                for (i, h) in handlers.iter().enumerate() {
                    if h.param.is_none() && i + 1 < handlers.len() {
                        self.ck.error(
                            codes::E0202,
                            h.span,
                            "`catch (...)` must be the last handler",
                            "handlers after it could never run",
                            "move `catch (...)` to the end",
                        );
                    }
                    lowered.push(self.handler(h));
                }
                Self::push(
                    out,
                    StmtKind::Try {
                        body,
                        handlers: lowered,
                    },
                    span,
                );
            }
            S::Empty | S::Error => {}
        }
    }

    /// One `catch` handler: its parameter is a local of the handler's scope
    /// that receives a copy of the exception, or refers to it.
    fn handler(&mut self, h: &ast::Handler) -> tessera_ir::Handler {
        self.scoped(|cx| {
            let catches = h.param.as_ref().map(|p| {
                let d = cx.resolve(&p.specs, &p.declarator.modifiers, &p.declarator.array_dims);
                let local = p.declarator.name.as_ref().map(|n| {
                    cx.declare(tessera_ir::Local {
                        name: n.name.clone(),
                        ty: d.ty.clone(),
                        // A reference handler refers to the exception
                        // object (virtual calls see the class thrown).
                        by_ref: d.by_ref,
                        is_const: cx.ck.specs_const(&p.specs),
                        space: tessera_ir::Space::Host,
                        span: p.span,
                    })
                });
                (d.ty, local, d.by_ref)
            });
            let mut body = cx.block(&h.body);
            if let Some((ty, Some(local), false)) = &catches {
                body.stmts
                    .splice(0..0, cx.slice_std_exception(ty, *local, h.span));
            }
            let catches = catches.map(|(ty, local, _)| (ty, local));
            tessera_ir::Handler { catches, body }
        })
    }

    /// For a handler that catches a `std::exception` by value: the copy is
    /// a plain `std::exception` (sliced from whatever was thrown), whose
    /// `what()` says `std::exception` (libstdc++'s text), so the handler
    /// starts by replacing the message the copy took from the thrown object.
    fn slice_std_exception(&mut self, ty: &Type, local: LocalId, span: Span) -> Vec<Stmt> {
        let Type::Struct(id) = ty else {
            return Vec::new();
        };
        if self.ck.structs.get("std::exception") != Some(id) {
            return Vec::new();
        }
        let char_ptr = Type::Ptr {
            elem: Box::new(Type::Scalar(Scalar::Char)),
            is_const: true,
        };
        let object = mk(ExprKind::Local(local), ty.clone(), true, span);
        // The message follows the dynamic class (see `class::std_exception`).
        let field = mk(
            ExprKind::Field {
                base: Box::new(object),
                field: 1,
            },
            char_ptr.clone(),
            true,
            span,
        );
        let text = mk(
            ExprKind::Str(b"std::exception".to_vec()),
            Type::Str,
            false,
            span,
        );
        let text = self.coerce(text, &char_ptr, "a message");
        let assign = mk(
            ExprKind::Assign {
                target: Box::new(field),
                value: Box::new(text),
            },
            char_ptr,
            true,
            span,
        );
        vec![Stmt::new(StmtKind::Expr(assign), span)]
    }

    /// Reports a construct that C++ AMP forbids in amp code and that Tessera
    /// does not support on the host either.
    pub fn forbidden(&mut self, span: Span, what: &str, msvc: &'static str) {
        if self.in_amp() {
            self.ck.report(
                Diagnostic::error(codes::E0304, span, format!("{what} cannot be used in amp code"))
                    .with_label("not allowed in `restrict(amp)` code")
                    .with_msvc(msvc)
                    .with_help("kernels use structured control flow only: `if`, loops, `switch`, `break`, `continue`, `return`"),
            );
        } else {
            self.ck.error(
                codes::E0211,
                span,
                format!("{what} are not part of the Tessera language"),
                "not supported",
                "see docs/language.md for the supported subset",
            );
        }
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> Block {
        self.loops += 1;
        self.jump_scopes.push((self.scopes.len(), true));
        let b = self.body(body);
        self.jump_scopes.pop();
        self.loops -= 1;
        b
    }

    /// `return value;`: the value is computed, the temporaries and the
    /// objects in scope are destroyed (not the one returned, when C++
    /// builds it in the caller's object), and the function returns.
    fn return_stmt(&mut self, value: Option<&ast::Expr>, span: Span, out: &mut Vec<Stmt>) {
        // The variable every `return` names is not copied (nor destroyed).
        let nrvo = value.and_then(|v| match &v.kind {
            ast::ExprKind::Name(p)
                if p.segments.len() == 1 && !p.global && self.nrvo.as_deref() == Some(p.last()) =>
            {
                self.lookup_local(p.last()).filter(|id| {
                    id.0 >= self.func.params
                        && self.local(*id).is_some_and(|l| {
                            !l.by_ref && l.ty == self.func.ret && !self.func.ret_by_ref
                        })
                })
            }
            _ => None,
        });
        let value = self.return_value(value, span, nrvo.is_none());
        let Some(mut value) = value else {
            out.extend(self.jump_cleanups(0, None, span));
            Self::push(out, StmtKind::Return(None), span);
            return;
        };
        let dtors = self.temporaries(&mut value, !self.func.ret_by_ref, out);
        let cleanups = self.jump_cleanups(0, nrvo, span);
        if dtors.is_empty() && cleanups.is_empty() {
            Self::push(out, StmtKind::Return(Some(value)), span);
            return;
        }
        if nrvo.is_some() {
            out.extend(cleanups);
            Self::push(out, StmtKind::Return(Some(value)), span);
            return;
        }
        // The value is kept in a hidden local while the objects go.
        let by_ref = self.func.ret_by_ref;
        let space = self.local_space();
        let ty = value.ty.clone();
        let local = self.declare(Local {
            name: String::new(),
            ty,
            by_ref,
            is_const: false,
            space,
            span,
        });
        let init = if by_ref {
            Init::Ref(value)
        } else {
            Init::Expr(value)
        };
        Self::push(
            out,
            StmtKind::Let {
                local,
                init: Some(init),
            },
            span,
        );
        for d in dtors {
            Self::push(out, StmtKind::Expr(d), span);
        }
        out.extend(cleanups);
        let result = self.local_expr(local, span);
        Self::push(out, StmtKind::Return(Some(result)), span);
    }

    fn return_value(&mut self, value: Option<&ast::Expr>, span: Span, copy: bool) -> Option<Expr> {
        if self.deducing_return {
            self.deducing_return = false;
            if let Some(v) = value {
                let e = self.expr(v);
                self.func.ret = e.ty.clone();
                return Some(Expr { place: false, ..e });
            }
            return None;
        }
        let ret = self.func.ret.clone();
        match (value, &ret) {
            (None, Type::Void) => None,
            (None, Type::Error) => None,
            (None, _) if self.func.name == "main" => None,
            (None, _) => {
                let shown = self.ck.show(&ret);
                self.ck.error(
                    codes::E0212,
                    span,
                    format!("this function returns `{shown}`; `return` needs a value"),
                    "missing value",
                    "",
                );
                None
            }
            (Some(v), Type::Void) => {
                self.ck.error(
                    codes::E0212,
                    v.span,
                    "a `void` function cannot return a value",
                    "returned value",
                    "remove the value, or change the return type",
                );
                Some(self.expr(v))
            }
            (Some(v), _) => {
                let e = self.expr_for(v, &ret);
                let target = self.ret_enum;
                self.ck.check_enum_target(target, v.span, &e.ty);
                if self.func.ret_by_ref {
                    if !e.place && !e.ty.is_error() {
                        self.ck.error(
                            codes::E0204,
                            e.span,
                            "a reference cannot be returned to a temporary value",
                            "temporary",
                            "return by value",
                        );
                    }
                    Some(e)
                } else {
                    let e = self.coerce(e, &ret, "the return value");
                    let e = if copy { self.implicitly_moved(v, e) } else { e };
                    Some(if copy { self.copied(e) } else { e })
                }
            }
        }
    }

    /// `return x;` of a local object or by-value parameter of the
    /// function's class return type: C++ treats `x` as an rvalue first, so
    /// a move constructor builds the returned object when the class has one.
    fn implicitly_moved(&mut self, v: &ast::Expr, e: Expr) -> Expr {
        let ast::ExprKind::Name(p) = &v.kind else {
            return e;
        };
        let local = if p.segments.len() == 1 && !p.global {
            self.lookup_local(p.last()).and_then(|id| self.local(id))
        } else {
            None
        };
        let by_value = local.is_some_and(|l| !l.by_ref && l.ty == e.ty);
        if !by_value || !e.place || !matches!(e.ty, Type::Struct(_)) {
            return e;
        }
        self.ck.moved.insert(e.span);
        Expr { place: false, ..e }
    }

    fn switch(&mut self, cond: &ast::Expr, body: &ast::Stmt, span: Span, out: &mut Vec<Stmt>) {
        let value = self.expr(cond);
        let switch_enum = self.ck.enum_at(cond.span);
        self.switch_enums.push(switch_enum);
        let value = match value.ty.scalar() {
            Some(s) if s.is_integral() => self.convert_scalar(value, crate::convert::promote(s)),
            None if value.ty.is_error() => value,
            _ => {
                let shown = self.ck.show(&value.ty);
                self.ck.error(
                    codes::E0203,
                    value.span,
                    format!("`switch` needs an integer, not `{shown}`"),
                    "not an integer",
                    "",
                );
                crate::cx::error_expr(value.span)
            }
        };
        self.switches += 1;
        self.jump_scopes.push((self.scopes.len(), false));
        self.switch_types.push(value.ty.scalar());
        let arms = self.scoped(|cx| {
            let mut arms: Vec<SwitchArm> = Vec::new();
            let stmts: Vec<&ast::Stmt> = match &body.kind {
                S::Block(b) => b.stmts.iter().collect(),
                _ => vec![body],
            };
            for s in stmts {
                cx.switch_stmt(s, &mut arms);
            }
            arms
        });
        self.switches -= 1;
        self.jump_scopes.pop();
        self.switch_types.pop();
        self.switch_enums.pop();
        Self::push(out, StmtKind::Switch { value, arms }, span);
    }

    fn switch_stmt(&mut self, s: &ast::Stmt, arms: &mut Vec<SwitchArm>) {
        match &s.kind {
            S::Labeled {
                label: Label::Case(e),
                stmt,
            } => {
                let label_enum = match &e.kind {
                    ast::ExprKind::Name(p) => self.ck.enumerator(p),
                    _ => None,
                };
                let v = match label_enum {
                    Some((_, v)) => Some(v),
                    None => self.eval_const(e),
                };
                let switch_enum = self.switch_enums.last().copied().flatten();
                let label_enum = label_enum.map(|(id, _)| id);
                if (self
                    .ck
                    .enums
                    .get(switch_enum.unwrap_or(usize::MAX))
                    .is_some_and(|s| s.scoped)
                    || self
                        .ck
                        .enums
                        .get(label_enum.unwrap_or(usize::MAX))
                        .is_some_and(|s| s.scoped))
                    && switch_enum != label_enum
                {
                    self.ck.error(
                        codes::E0222,
                        e.span,
                        "the case label and the `switch` value must both be of the same scoped enumeration",
                        "other type than the `switch` value",
                        "name an enumerator of the `switch` value's enumeration: `case Color::Red:`",
                    );
                }
                // C++ converts the label to the switch's type, and a value
                // that does not fit is a narrowing error.
                if let (Some(v), Some(Some(t))) = (v, self.switch_types.last().copied())
                    && t.is_integral()
                    && !(t.int_range().0..=t.int_range().1).contains(&v)
                {
                    self.ck.error(
                        codes::E0215,
                        e.span,
                        format!(
                            "`case {v}` does not fit the `switch` value's type `{}`",
                            t.name()
                        ),
                        "out of range",
                        "use a value of the `switch` value's type",
                    );
                }
                if let Some(v) = v
                    && arms.iter().any(|a| a.value == Some(v))
                {
                    self.ck.error(
                        codes::E0202,
                        e.span,
                        format!("`case {v}` appears twice"),
                        "duplicate case",
                        "",
                    );
                }
                arms.push(SwitchArm {
                    value: Some(v.unwrap_or(i64::MIN)),
                    body: Block::default(),
                });
                self.switch_stmt(stmt, arms);
            }
            S::Labeled {
                label: Label::Default,
                stmt,
            } => {
                if arms.iter().any(|a| a.value.is_none()) {
                    self.ck.error(
                        codes::E0202,
                        s.span,
                        "`default` appears twice",
                        "second default",
                        "",
                    );
                }
                arms.push(SwitchArm {
                    value: None,
                    body: Block::default(),
                });
                self.switch_stmt(stmt, arms);
            }
            _ => {
                let mut stmts = Vec::new();
                self.stmt_into(s, &mut stmts);
                match arms.last_mut() {
                    Some(arm) => arm.body.stmts.extend(stmts),
                    None => {
                        // Statements before the first label never run; C++ allows them.
                    }
                }
            }
        }
    }

    fn for_range(
        &mut self,
        specs: &ast::DeclSpecs,
        declarator: &ast::Declarator,
        range: &ast::Expr,
        body: &ast::Stmt,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let range = self.expr(range);
        // A `std::string` loops over its characters: `<string>`'s vector of
        // them, without the zero that ends it.
        let (range, ends_in_zero) = match crate::library::sstream::string_chars(self, range) {
            Ok(chars) => (chars, true),
            Err(range) => (range, false),
        };
        if let Type::Struct(id) = range.ty
            && self.ck.find_methods(id, "begin").is_some()
        {
            self.for_range_class(specs, declarator, range, body, span, out);
            return;
        }
        let (elem, size, element) = match &range.ty {
            Type::Vector(elem) => ((**elem).clone(), Intrinsic::VectorSize, None),
            Type::Container(_, elem) => ((**elem).clone(), Intrinsic::VectorSize, None),
            Type::CArray(elem, n) => ((**elem).clone(), Intrinsic::VectorSize, Some(*n)),
            Type::Error => (Type::Error, Intrinsic::VectorSize, None),
            other => {
                let shown = self.ck.show(other);
                self.ck.error(
                    codes::E0203,
                    range.span,
                    format!("cannot loop over `{shown}`"),
                    "not a `std::vector` or array",
                    "",
                );
                return;
            }
        };
        let space = self.local_space();
        let range_ty = range.ty.clone();
        let block = self.scoped(|cx| {
            let mut stmts = Vec::new();
            let range_span = range.span;
            let range_ref = range.place;
            let range_local = cx.declare(Local {
                name: String::new(),
                ty: range.ty.clone(),
                by_ref: range_ref,
                is_const: false,
                space,
                span: range_span,
            });
            stmts.push(Stmt::new(
                StmtKind::Let {
                    local: range_local,
                    init: Some(if range_ref {
                        Init::Ref(range)
                    } else {
                        Init::Expr(range)
                    }),
                },
                span,
            ));
            let counter = cx.declare(Local {
                name: String::new(),
                ty: Type::Scalar(Scalar::Long),
                by_ref: false,
                is_const: false,
                space,
                span,
            });
            let zero = Expr {
                kind: ExprKind::Const(Const::Int(0)),
                ty: Type::Scalar(Scalar::Long),
                place: false,
                span,
            };
            stmts.push(Stmt::new(
                StmtKind::Let {
                    local: counter,
                    init: Some(Init::Expr(zero)),
                },
                span,
            ));
            let local_expr = |id: LocalId, ty: Type| Expr {
                kind: ExprKind::Local(id),
                ty,
                place: true,
                span,
            };
            let len = match element {
                Some(n) => Expr {
                    kind: ExprKind::Const(Const::Int(i64::from(n))),
                    ty: Type::Scalar(Scalar::Long),
                    place: false,
                    span,
                },
                None => Expr {
                    kind: ExprKind::Intrinsic {
                        op: size,
                        args: vec![local_expr(range_local, range_ty.clone())],
                    },
                    ty: Type::Scalar(Scalar::Long),
                    place: false,
                    span,
                },
            };
            let len = if ends_in_zero {
                Expr {
                    kind: ExprKind::Binary {
                        op: tessera_ir::BinOp::Sub,
                        lhs: Box::new(len),
                        rhs: Box::new(Expr {
                            kind: ExprKind::Const(Const::Int(1)),
                            ty: Type::Scalar(Scalar::Long),
                            place: false,
                            span,
                        }),
                    },
                    ty: Type::Scalar(Scalar::Long),
                    place: false,
                    span,
                }
            } else {
                len
            };
            let cond = Expr {
                kind: ExprKind::Binary {
                    op: tessera_ir::BinOp::Lt,
                    lhs: Box::new(local_expr(counter, Type::Scalar(Scalar::Long))),
                    rhs: Box::new(len),
                },
                ty: Type::BOOL,
                place: false,
                span,
            };
            let step = Expr {
                kind: ExprKind::IncDec {
                    increment: true,
                    prefix: true,
                    target: Box::new(local_expr(counter, Type::Scalar(Scalar::Long))),
                },
                ty: Type::Scalar(Scalar::Long),
                place: true,
                span,
            };
            let mut range_ty = cx
                .local(range_local)
                .map(|l| l.ty.clone())
                .unwrap_or(Type::Error);
            if let Some(first) = stmts.first_mut()
                && let StmtKind::Let {
                    init: Some(Init::Expr(e) | Init::Ref(e)),
                    ..
                } = &mut first.kind
            {
                range_ty = e.ty.clone();
            }
            let index = Box::new(local_expr(counter, Type::Scalar(Scalar::Long)));
            let elem_place = Expr {
                kind: match element {
                    Some(_) => ExprKind::Element {
                        base: Box::new(local_expr(range_local, range_ty)),
                        index,
                    },
                    None => ExprKind::Intrinsic {
                        op: Intrinsic::VectorElement,
                        args: vec![local_expr(range_local, range_ty), *index],
                    },
                },
                ty: elem.clone(),
                place: true,
                span,
            };
            cx.loops += 1;
            cx.jump_scopes.push((cx.scopes.len(), true));
            let body = cx.scoped(|cx| {
                let Declared { ty, by_ref } =
                    cx.resolve(specs, &declarator.modifiers, &declarator.array_dims);
                let ty = if matches!(specs.ty, ast::BaseType::Auto) {
                    elem.clone()
                } else {
                    ty
                };
                cx.range_loop_body(specs, declarator, ty, by_ref, elem_place, body, space)
            });
            cx.jump_scopes.pop();
            cx.loops -= 1;
            stmts.push(Stmt::new(
                StmtKind::Loop {
                    cond: Some(cond),
                    test_first: true,
                    body,
                    step: Some(step),
                },
                span,
            ));
            Block { stmts }
        });
        out.push(Stmt::new(StmtKind::Block(block), span));
    }

    /// The body of a range `for`: the loop variable declared (bound to the
    /// element `elem` by reference, or initialised from a copy of it
    /// converted to its type), then the statement.
    #[allow(clippy::too_many_arguments)]
    fn range_loop_body(
        &mut self,
        specs: &ast::DeclSpecs,
        declarator: &ast::Declarator,
        ty: Type,
        by_ref: bool,
        elem: Expr,
        body: &ast::Stmt,
        space: Space,
    ) -> Block {
        let mut stmts = Vec::new();
        let name = declarator
            .name
            .as_ref()
            .map_or_else(String::new, |n| n.name.clone());
        let var = self.declare(Local {
            name,
            ty: ty.clone(),
            by_ref,
            is_const: types::object_const(self.ck, specs, &declarator.modifiers),
            space,
            span: declarator.span,
        });
        let init = if by_ref {
            Init::Ref(elem)
        } else {
            let e = self.coerce(elem, &ty, "the loop variable");
            Init::Expr(self.copied(e))
        };
        stmts.push(Stmt::new(
            StmtKind::Let {
                local: var,
                init: Some(init),
            },
            declarator.span,
        ));
        self.register_local(var, declarator.span);
        let inner = self.body(body);
        stmts.push(Stmt::new(StmtKind::Block(inner), body.span));
        self.close_scope(&mut stmts);
        Block { stmts }
    }

    /// `for (decl : range) body` over a class object with member functions
    /// `begin()` and `end()` (`std::array`, a program's own container), as
    /// C++ defines it: `auto&& r = range; auto b = r.begin(), e = r.end();
    /// for (; b != e; ++b) { decl = *b; body }`, where `!=`, `++` and `*`
    /// are the iterator's own (a pointer's or a class's operators). The
    /// hidden variables have names no source can spell, so the loop is
    /// checked as that code would be.
    fn for_range_class(
        &mut self,
        specs: &ast::DeclSpecs,
        declarator: &ast::Declarator,
        range: Expr,
        body: &ast::Stmt,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        let space = self.local_space();
        let range_span = range.span;
        let name = |text: &str| ast::Expr {
            kind: ast::ExprKind::Name(ast::Path {
                global: false,
                segments: vec![ast::Ident {
                    name: text.to_string(),
                    span: range_span,
                }],
                span: range_span,
            }),
            span: range_span,
            height: 1,
        };
        let call = |member: &str| ast::Expr {
            kind: ast::ExprKind::Call {
                callee: Box::new(ast::Expr {
                    kind: ast::ExprKind::Member {
                        base: Box::new(name("range for: range")),
                        name: ast::Ident {
                            name: member.to_string(),
                            span: range_span,
                        },
                        arrow: false,
                        template_args: None,
                    },
                    span: range_span,
                    height: 2,
                }),
                args: Vec::new(),
            },
            span: range_span,
            height: 3,
        };
        let unary = |op: ast::UnaryOp| ast::Expr {
            kind: ast::ExprKind::Unary {
                op,
                operand: Box::new(name("range for: begin")),
            },
            span: range_span,
            height: 2,
        };
        let block = self.scoped(|cx| {
            let mut stmts = Vec::new();
            let by_ref = range.place;
            let range_local = cx.declare(Local {
                name: "range for: range".to_string(),
                ty: range.ty.clone(),
                by_ref,
                is_const: false,
                space,
                span: range_span,
            });
            let init = if by_ref {
                Init::Ref(range)
            } else {
                Init::Expr(range)
            };
            stmts.push(Stmt::new(
                StmtKind::Let {
                    local: range_local,
                    init: Some(init),
                },
                span,
            ));
            for (hidden, member) in [("range for: begin", "begin"), ("range for: end", "end")] {
                let value = cx.expr(&call(member));
                if value.ty.is_error() {
                    return Block { stmts };
                }
                let local = cx.declare(Local {
                    name: hidden.to_string(),
                    ty: value.ty.clone(),
                    by_ref: false,
                    is_const: false,
                    space,
                    span: range_span,
                });
                let value = cx.copied(value);
                stmts.push(Stmt::new(
                    StmtKind::Let {
                        local,
                        init: Some(Init::Expr(value)),
                    },
                    span,
                ));
            }
            let cond = cx.expr(&ast::Expr {
                kind: ast::ExprKind::Binary {
                    op: ast::BinaryOp::Ne,
                    lhs: Box::new(name("range for: begin")),
                    rhs: Box::new(name("range for: end")),
                },
                span: range_span,
                height: 2,
            });
            let cond = cx.condition(cond);
            let step = cx.expr(&unary(ast::UnaryOp::PreInc));
            let element = unary(ast::UnaryOp::Deref);
            cx.loops += 1;
            cx.jump_scopes.push((cx.scopes.len(), true));
            let body = cx.scoped(|cx| {
                let elem = cx.expr(&element);
                let Declared { ty, by_ref } =
                    cx.resolve(specs, &declarator.modifiers, &declarator.array_dims);
                let ty = if matches!(specs.ty, ast::BaseType::Auto) {
                    elem.ty.clone()
                } else {
                    ty
                };
                if by_ref && !elem.place && !elem.ty.is_error() {
                    let is_const = types::object_const(cx.ck, specs, &declarator.modifiers);
                    if !is_const {
                        cx.ck.error(
                            codes::E0204,
                            elem.span,
                            "the iterator's `*` gives a temporary value, which a non-const reference cannot bind",
                            "temporary",
                            "declare the loop variable by value or `const&`",
                        );
                    }
                }
                cx.range_loop_body(specs, declarator, ty, by_ref && elem.place, elem, body, space)
            });
            cx.jump_scopes.pop();
            cx.loops -= 1;
            stmts.push(Stmt::new(
                StmtKind::Loop {
                    cond: Some(cond),
                    test_first: true,
                    body,
                    step: Some(step),
                },
                span,
            ));
            Block { stmts }
        });
        out.push(Stmt::new(StmtKind::Block(block), span));
    }

    /// A `static_assert` in a block: it sees the constants visible there.
    /// `class C { ... };` in a function body. The class is declared as any
    /// other (its name must not clash with another class's); member
    /// functions written without a `restrict` clause take the enclosing
    /// function's, as C++ AMP infers them for a local class in amp code.
    fn local_class(&mut self, def: &ast::StructDef, span: Span, out: &mut Vec<Stmt>) {
        if self.ck.structs.contains_key(&def.name.name) {
            self.ck.error(
                codes::E0211,
                def.name.span,
                format!(
                    "a local class named like another class (`{}`) is not supported yet",
                    def.name.name
                ),
                "declared before, or in another instance of this template",
                "give the class a name of its own",
            );
            return;
        }
        let here = self.restriction();
        let mut def = def.clone();
        for m in &mut def.methods {
            if m.item.restrict.is_none() {
                let mut specifiers = Vec::new();
                let name = |n: &str| ast::Ident {
                    name: n.to_string(),
                    span: m.item.name.span,
                };
                if here.cpu {
                    specifiers.push(name("cpu"));
                }
                if here.amp {
                    specifiers.push(name("amp"));
                }
                m.item.restrict = Some(ast::Restrict {
                    specifiers,
                    span: m.item.name.span,
                });
            }
        }
        // `struct A { ... } x;` in a body declares `x` as a local variable
        // of the class, after the class.
        let trailing = std::mem::take(&mut def.trailing);
        let outer = self.ck.local_class_context.replace(here);
        crate::declare::declare_struct(self.ck, &def, span);
        self.ck.local_class_context = outer;
        if !trailing.is_empty() {
            let decl = ast::Decl {
                specs: ast::DeclSpecs::naming_class(&def.name),
                declarators: trailing,
                span,
            };
            self.local_decl(&decl, out);
        }
    }

    fn static_assert(&mut self, a: &ast::StaticAssert) {
        let visible = self.visible_consts();
        let lookup = move |n: &str| visible.get(n);
        let mut unsigned: HashMap<String, bool> = HashMap::new();
        for scope in &self.scopes {
            for (name, id) in scope {
                let u = matches!(self.local(*id).map(|l| &l.ty), Some(Type::Scalar(s)) if s.is_unsigned());
                unsigned.insert(name.clone(), u);
            }
        }
        let globals = &self.ck.globals;
        let program = &self.ck.program;
        let global_unsigned = |n: &str| {
            globals
                .get(n)
                .and_then(|id| program.get_global(*id))
                .is_some_and(|g| matches!(g.ty, Type::Scalar(s) if s.is_unsigned()))
        };
        let mut all: HashMap<String, bool> = HashMap::new();
        for name in unsigned.keys().chain(globals.keys()) {
            let u = match unsigned.get(name) {
                Some(u) => *u,
                None => global_unsigned(name),
            };
            all.insert(name.clone(), u);
        }
        let is_unsigned = move |n: &str| all.get(n).copied().unwrap_or(false);
        // A `decltype` in the condition sees this function's locals.
        let scope = self.decltype_scope();
        let saved = self.ck.decltype_scope.replace(scope);
        types::static_assert(self.ck, a, &lookup, &is_unsigned);
        self.ck.decltype_scope = saved;
    }

    fn local_decl(&mut self, d: &ast::Decl, out: &mut Vec<Stmt>) {
        let specs = &d.specs;
        if d.declarators.is_empty() {
            // `decltype(e);` declares nothing; its operand is still checked.
            self.resolve(specs, &ast::Modifiers::default(), &[]);
            return;
        }
        if specs.is_typedef {
            let visible = self.visible_consts();
            let lookup = move |n: &str| visible.get(n);
            types::declare_aliases(self.ck, specs, &d.declarators, &lookup);
            return;
        }
        if specs.is_static || specs.is_extern {
            if self.in_amp() {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0305,
                        specs.span,
                        "`static` and `extern` locals cannot be used in amp code",
                    )
                    .with_label("unsupported storage class")
                    .with_msvc("C3585")
                    .with_help(
                        "use an ordinary local, or `tile_static` to share a value within a tile",
                    ),
                );
            } else if specs.is_extern {
                self.ck.error(
                    codes::E0211,
                    specs.span,
                    "`extern` declarations in a function are not part of the Tessera language",
                    "here",
                    "declare the variable at namespace scope",
                );
            }
        }
        for decl in &d.declarators {
            let Some(name) = &decl.name else { continue };
            let Declared { mut ty, by_ref } =
                if self.in_amp() && types::written_type_unsupported(specs) {
                    // Reported below as C++ AMP's C3581.
                    Declared {
                        ty: Type::Error,
                        by_ref: false,
                    }
                } else {
                    self.resolve(specs, &decl.modifiers, &decl.array_dims)
                };
            let mut space = self.local_space();
            if let Some(ts) = specs.tile_static {
                space = Space::TileStatic;
                self.check_tile_static(ts, decl, &ty, by_ref);
            }
            if self.in_amp() && self.ck.specs_cv(specs).is_volatile {
                let what = format!("variable `{}`", name.name);
                self.ck
                    .report(types::amp_type_error(decl.span, &what, "`volatile`"));
            } else if self.in_amp()
                && let Some(problem) = types::written_type_problem(specs)
            {
                let what = format!("variable `{}`", name.name);
                self.ck
                    .report(types::amp_type_error(decl.span, &what, &problem));
            } else if self.in_amp() {
                self.check_kernel_type(&ty, decl.span, &format!("variable `{}`", name.name));
            }
            // Initialise before declaring: `int x = x;` reads the outer `x` in Tessera.
            let init = if specs.tile_static.is_some() {
                None
            } else {
                self.initializer(&mut ty, specs, decl, &name.name)
            };
            let init = match init {
                // `accelerator acc;` is the default accelerator at the time
                // (`accelerator::set_default` may have changed it).
                None if !by_ref && ty == Type::Accelerator && specs.tile_static.is_none() => {
                    let e = crate::library::construct(self, &ty, Vec::new(), decl.span);
                    Some(Init::Expr(e))
                }
                None if !by_ref && default_constructed(&ty) => Some(Init::Zero),
                // Views, arrays and tile objects have no default constructor:
                // the library reports it.
                None if !by_ref && specs.tile_static.is_none() && needs_constructor(&ty) => {
                    let e = crate::library::construct(self, &ty, Vec::new(), decl.span);
                    Some(Init::Expr(e))
                }
                other => other,
            };
            // `auto it = v.begin();`: a stored iterator is a pointer to its
            // element.
            let init = match init {
                Some(Init::Expr(e)) if matches!(ty, Type::Iterator(_)) && !by_ref => {
                    let e = crate::library::materialize_iterator(self, e);
                    ty = e.ty.clone();
                    Some(Init::Expr(e))
                }
                other => other,
            };
            // A string stream is made by its constructor; any other
            // initialiser copies one.
            let copies_string_stream = matches!(
                &init,
                Some(Init::Expr(e)) if matches!(e.ty, Type::StringStream(_))
                    && !matches!(
                        e.kind,
                        tessera_ir::ExprKind::Intrinsic {
                            op: tessera_ir::Intrinsic::StringStreamNew,
                            ..
                        }
                    )
            );
            if !matches!(ty, Type::StringStream(_))
                && ty.contains_string_stream(&self.ck.program.structs)
            {
                let shown = self.ck.show(&ty);
                self.ck.error(
                    codes::E0211,
                    decl.span,
                    format!("`{shown}` holds string streams, which is not supported yet"),
                    "holds string streams",
                    "declare each stream as a variable of its own",
                );
            }
            if (matches!(ty, Type::Ostream | Type::WideOstream) || copies_string_stream) && !by_ref
            {
                let shown = self.ck.show(&ty);
                let help = if matches!(ty, Type::Ostream | Type::WideOstream) {
                    "bind a reference: `std::ostream& out = std::cout;`".to_string()
                } else {
                    format!("bind a reference: `{shown}& other = stream;`")
                };
                self.ck.report(
                    Diagnostic::error(codes::E0203, decl.span, "a stream cannot be copied")
                        .with_label(format!("copies a `{shown}`"))
                        .with_msvc("C2280")
                        .with_help(help),
                );
            }
            if ty == Type::Void || matches!(ty, Type::Iterator(_)) {
                let shown = self.ck.show(&ty);
                self.ck.error(
                    codes::E0203,
                    decl.span,
                    format!("a variable cannot have type `{shown}`"),
                    "here",
                    "",
                );
            }
            if by_ref && init.is_none() && !ty.is_error() {
                self.ck.error(
                    codes::E0218,
                    decl.span,
                    format!("reference `{}` must be bound to something", name.name),
                    "no initialiser",
                    "write `T& r = x;`",
                );
            }
            // A const object of a class whose default initialisation sets
            // every member (here: a class with no data) needs no initialiser.
            let default_initialised = match &ty {
                Type::Struct(id) => self.ck.program.get_struct(*id).is_some_and(|s| {
                    s.fields.iter().all(|(_, t)| {
                        matches!(t, Type::Struct(b) if self.ck.program.get_struct(*b).is_some_and(|b| b.fields.is_empty()))
                    })
                }),
                _ => false,
            };
            if !by_ref && specs.tile_static.is_none() {
                self.check_destructible_here(&ty, decl.span);
            }
            let var_const = types::object_const(self.ck, specs, &decl.modifiers);
            if var_const && init.is_none() && !ty.is_error() && !by_ref && !default_initialised {
                self.ck.error(
                    codes::E0218,
                    decl.span,
                    format!("constant `{}` has no value", name.name),
                    "needs an initialiser",
                    "",
                );
            }
            let target = if matches!(specs.ty, ast::BaseType::Auto) {
                match &decl.init {
                    Some(ast::Init::Assign(v)) => self.ck.enum_at(v.span),
                    _ => None,
                }
            } else {
                self.ck.enum_of_specs(specs)
            };
            if !self.ck.enums.is_empty() {
                let is_const = self.ck.specs_const(specs) || specs.is_constexpr;
                self.enum_init(target, decl, &ty, by_ref, is_const);
            }
            // A `static` local (host code): a variable of the program's that
            // only this scope names, initialised the first time control
            // passes its declaration (at startup when the initialiser is a
            // constant, as C++'s constant initialisation does).
            let (by_ref, init) = if specs.is_static && !self.in_amp() && !by_ref && !ty.is_error() {
                match self.static_local(&name.name, &ty, var_const, init, decl.span, out) {
                    Some(place) => (true, Some(Init::Ref(place))),
                    None => (by_ref, None),
                }
            } else {
                (by_ref, init)
            };
            let local = self.declare(Local {
                name: name.name.clone(),
                ty,
                by_ref,
                is_const: var_const,
                space,
                span: name.span,
            });
            if let Some(t) = target {
                self.ck.enum_locals.insert(name.span, t);
            }
            // A `const` integer with a constant value can size arrays and tiles.
            if (self.ck.specs_const(specs) || specs.is_constexpr)
                && matches!(self.local(local).map(|l| &l.ty), Some(Type::Scalar(s)) if s.is_integral())
                && let Some(ast::Init::Assign(e)) = &decl.init
            {
                let visible = self.visible_consts();
                let lookup = move |n: &str| visible.get(n);
                if let Ok(v) = types::try_eval(e, &lookup) {
                    self.local_consts.insert(local, v);
                } else if let Some(Init::Expr(value)) = &init
                    && let Some(v) = lowered_int_const(value)
                {
                    // A constant only the checker knows (`T::rank`).
                    self.local_consts.insert(local, v);
                }
            }
            // The initialiser is a full expression: a copy of a named
            // object runs the copy constructor, and its temporaries are
            // destroyed once the variable is made.
            let mut dtors = Vec::new();
            let init = match init {
                Some(Init::Expr(e)) if !specs.is_static => {
                    let mut e = self.copied(e);
                    dtors = self.temporaries(&mut e, true, out);
                    Some(Init::Expr(e))
                }
                Some(Init::Ref(mut e)) if !specs.is_static => {
                    // (A reference of another type is refused above.)
                    let same_type = self.local(local).is_some_and(|l| l.ty == e.ty);
                    if let Some(shape) = component_of_temporary(&e).filter(|_| same_type) {
                        let shown = self.ck.show(shape);
                        self.ck.report(
                            Diagnostic::error(
                                codes::E0211,
                                e.span,
                                format!("a reference bound to a component of a temporary `{shown}`"),
                            )
                            .with_label("the temporary ends with this declaration")
                            .with_note(format!("`{shown}::operator[]` returns a reference into the temporary, whose life the reference does not extend: C++ leaves every later use of the reference undefined"))
                            .with_help("bind a copy: drop the `&`, or make the shape a variable"),
                        );
                    }
                    if !e.place && matches!(e.ty, Type::Struct(id) if self.ck.dtor_runs_code(id)) {
                        self.ck.error(
                            codes::E0211,
                            e.span,
                            "a reference bound to a temporary whose destructor runs code is not supported yet",
                            "temporary",
                            "make the object a variable",
                        );
                    }
                    dtors = self.temporaries(&mut e, true, out);
                    Some(Init::Ref(e))
                }
                other => other,
            };
            out.push(Stmt::new(StmtKind::Let { local, init }, decl.span));
            for d in dtors {
                out.push(Stmt::new(StmtKind::Expr(d), decl.span));
            }
            if specs.is_static && !self.in_amp() {
                let ty = self
                    .local(local)
                    .map(|l| l.ty.clone())
                    .unwrap_or(Type::Void);
                self.ck.refuse_static_dtor(&ty, decl.span);
            } else {
                self.register_local(local, decl.span);
            }
        }
    }

    /// The storage of `static T name = init;`: a global (named after the
    /// function), set at startup from a constant initialiser, or else by a
    /// statement guarded by a second global so that it runs once. The
    /// global, as a place for the local reference that names it here.
    fn static_local(
        &mut self,
        name: &str,
        ty: &Type,
        is_const: bool,
        init: Option<Init>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        fn constant(init: &Init) -> bool {
            match init {
                Init::Zero => true,
                Init::Expr(e) => lowered_constant(e),
                Init::List(items) => items.iter().all(constant),
                Init::Ref(_) => false,
            }
        }
        let at_startup = init.as_ref().is_none_or(constant);
        if !at_startup && matches!(init, Some(Init::List(_))) {
            self.ck.error(
                codes::E0211,
                span,
                "a `static` local with a computed aggregate initialiser is not supported yet",
                "computed at run time",
                "initialise it from constants, or assign its elements in the function",
            );
            return None;
        }
        let function = self.func.name.clone();
        let add_global =
            |ck: &mut Checker, name: String, ty: Type, is_const: bool, init: Option<Init>| {
                let id = tessera_ir::GlobalId(ck.program.globals.len() as u32);
                ck.program.globals.push(tessera_ir::Global {
                    name,
                    ty,
                    is_const,
                    init,
                    span,
                });
                id
            };
        let (startup, later) = if at_startup {
            (init, None)
        } else {
            (None, init)
        };
        let value = add_global(
            self.ck,
            format!("{function}::{name}"),
            ty.clone(),
            is_const && at_startup,
            startup,
        );
        let place = self.global(value, span);
        if let Some(Init::Expr(first)) = later {
            let guard = add_global(
                self.ck,
                format!("{function}::{name} (initialised)"),
                Type::BOOL,
                false,
                None,
            );
            let guard_place = self.global(guard, span);
            let not_yet = mk(
                ExprKind::Unary {
                    op: tessera_ir::UnOp::Not,
                    operand: Box::new(guard_place.clone()),
                },
                Type::BOOL,
                false,
                span,
            );
            let assign = |target: Expr, value: Expr| {
                let ty = target.ty.clone();
                Stmt::new(
                    StmtKind::Expr(mk(
                        ExprKind::Assign {
                            target: Box::new(target),
                            value: Box::new(value),
                        },
                        ty,
                        false,
                        span,
                    )),
                    span,
                )
            };
            let set = mk(ExprKind::Const(Const::Bool(true)), Type::BOOL, false, span);
            out.push(Stmt::new(
                StmtKind::If {
                    cond: not_yet,
                    then: Block {
                        stmts: vec![assign(guard_place, set), assign(place.clone(), first)],
                    },
                    els: None,
                },
                span,
            ));
        }
        Some(place)
    }

    fn check_tile_static(&mut self, ts: Span, decl: &ast::Declarator, ty: &Type, by_ref: bool) {
        let r = self.restriction();
        if !r.amp || r.cpu {
            let why = if r.amp {
                "this function may also run on the host (`restrict(amp, cpu)`)"
            } else {
                "this is host code"
            };
            self.ck.report(
                Diagnostic::error(
                    codes::E0402,
                    ts,
                    "`tile_static` can only be used in amp-only code",
                )
                .with_label(why)
                .with_msvc("C3584")
                .with_help(
                    "declare it inside the kernel, or in a function marked `restrict(amp)` only",
                ),
            );
        }
        if let Some(init) = &decl.init {
            let init_span = match init {
                ast::Init::Assign(e) => e.span,
                ast::Init::Paren(es) | ast::Init::Brace(es) => {
                    es.first().map_or(decl.span, |e| e.span)
                }
            };
            self.ck.report(
                Diagnostic::error(codes::E0403, init_span, "a `tile_static` variable cannot have an initialiser")
                    .with_label("initialiser")
                    .with_secondary(ts, "declared `tile_static` here")
                    .with_note("every work-item of the tile runs the declaration; an initialiser would be a race (MSVC: C3584)")
                    .with_help("declare it without a value, let one work-item (or each for its own element) write it, then wait at a barrier"),
            );
        }
        let problem = if by_ref {
            Some("a reference".to_string())
        } else {
            shared_type_problem(self, ty)
        };
        if let Some(problem) = problem {
            self.ck.report(
                Diagnostic::error(
                    codes::E0404,
                    decl.span,
                    format!("a `tile_static` variable cannot be {problem}"),
                )
                .with_label("cannot be shared by a tile")
                .with_secondary(ts, "declared `tile_static` here")
                .with_msvc("C3584")
                .with_help("use scalars, structs of scalars, or fixed-size arrays of them"),
            );
        }
    }

    /// Reports a type amp code cannot use (E0302).
    pub fn check_kernel_type(&mut self, ty: &Type, span: Span, what: &str) {
        if let Some(problem) = kernel_type_problem(self.ck, ty) {
            self.ck.report(types::amp_type_error(span, what, &problem));
        }
    }
}

/// Library types that a declaration without initialiser default-constructs.
fn default_constructed(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Vector(_)
            | Type::Container(..)
            | Type::Index(_)
            | Type::Extent(_)
            | Type::Accelerator
    )
}

/// Library types whose declaration needs constructor arguments.
fn needs_constructor(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Array(..)
            | Type::ArrayView { .. }
            | Type::TiledExtent(_)
            | Type::TiledIndex(_)
            | Type::TileBarrier
            | Type::AcceleratorView
            | Type::StringStream(_)
    )
}

/// Why `ty` cannot be used in amp code, if it cannot.
pub fn kernel_type_problem(ck: &Checker, ty: &Type) -> Option<String> {
    match ty {
        Type::Scalar(
            s @ (Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort | Scalar::WChar),
        ) => Some(format!("`{}`", s.name())),
        Type::Vector(_) => Some("`std::vector` lives on the host".into()),
        Type::Iter(_) => Some("the iterators of host containers live on the host".into()),
        Type::Container(kind, _) => Some(format!("`std::{}` lives on the host", kind.name())),
        Type::Ostream
        | Type::WideOstream
        | Type::StringStream(_)
        | Type::Manipulator
        | Type::Str
        | Type::WideStr => Some("streams and strings are host-only".into()),
        Type::Accelerator | Type::AcceleratorView => {
            Some("accelerators and their views are host-only".into())
        }
        Type::FnPtr(_) => Some("a function pointer or reference".into()),
        Type::Ptr { elem, .. } if matches!(**elem, Type::FnPtr(_)) => {
            Some("a pointer to a function pointer".into())
        }
        Type::CArray(elem, _) if **elem == Type::BOOL => Some("arrays of `bool`".into()),
        // C++ AMP allows one level of pointer, as a local, parameter or
        // return value; never as an element or member.
        Type::Ptr { elem, .. } if elem.pointee().is_some() => Some("a pointer to a pointer".into()),
        Type::Ptr { elem, .. } => kernel_type_problem(ck, elem),
        Type::CArray(elem, _) if elem.pointee().is_some() => Some("an array of pointers".into()),
        // An empty class has size 1, which the accelerator cannot lay out in
        // an array of 4-byte elements.
        Type::CArray(elem, _)
            if matches!(**elem, Type::Struct(id)
                if ck.program.get_struct(id).is_none_or(|s| s.fields.is_empty())) =>
        {
            Some("arrays of an empty class".into())
        }
        // Likewise an element whose size is not a multiple of 4 bytes (a
        // class holding only a `bool`, its own or a base's).
        Type::CArray(elem, _)
            if matches!(**elem, Type::Struct(_))
                && tessera_ir::layout::size_align_u64(&ck.program.structs, elem)
                    .is_some_and(|(size, _)| size % 4 != 0) =>
        {
            let size = tessera_ir::layout::size_align_u64(&ck.program.structs, elem)
                .map_or(0, |(size, _)| size);
            let unit = if size == 1 { "byte" } else { "bytes" };
            Some(format!(
                "arrays of a class of {size} {unit}, not a multiple of 4"
            ))
        }
        Type::CArray(elem, _) => kernel_type_problem(ck, elem),
        Type::Struct(_) if class_problem(ck, ty).is_some() => class_problem(ck, ty),
        Type::Struct(id) => {
            // Borrowed, not `struct_fields`' copy: asked for every amp
            // member function of every class, the copy's strings dominated.
            let fields = ck
                .program
                .get_struct(*id)
                .map_or(&[][..], |s| &s.fields[..]);
            fields.iter().find_map(|(name, t)| {
                if t.pointee().is_some() {
                    return Some(format!("member `{name}` is a pointer"));
                }
                kernel_type_problem(ck, t).map(|p| format!("member `{name}` is {p}"))
            })
        }
        _ => None,
    }
}

/// Why a class (or an array of it) cannot be used in amp code for what it
/// is, not for its members' types: virtual functions (no virtual calls in
/// amp code) or bit fields, its own or a base's or member's. C++ AMP's
/// C3581, also for the elements of a `concurrency::array` or
/// `array_view`.
pub fn class_problem(ck: &Checker, ty: &Type) -> Option<String> {
    match ty {
        Type::CArray(elem, _) => class_problem(ck, elem),
        Type::Struct(id) => {
            let info = ck.classes.get(id);
            if info.is_some_and(|c| c.has_virtual) {
                return Some("a class with virtual functions".into());
            }
            if info.is_some_and(|c| c.has_bit_field) {
                return Some("a class with bit fields".into());
            }
            let fields = ck
                .program
                .get_struct(*id)
                .map_or(&[][..], |s| &s.fields[..]);
            fields.iter().find_map(|(name, t)| {
                let p = class_problem(ck, t)?;
                Some(
                    match name
                        .strip_prefix("<base ")
                        .and_then(|n| n.strip_suffix('>'))
                    {
                        Some(base) => format!("a class whose base class `{base}` is {p}"),
                        None => format!("a class whose member `{name}` is {p}"),
                    },
                )
            })
        }
        _ => None,
    }
}

/// Why `ty` cannot be shared as `tile_static`, if it cannot.
fn shared_type_problem(cx: &FnCx<'_>, ty: &Type) -> Option<String> {
    match ty {
        Type::Ptr { .. } | Type::Null => Some("a pointer".into()),
        Type::ArrayView { .. } => Some("an `array_view`".into()),
        Type::Array(..) => Some("a `concurrency::array`".into()),
        Type::TileBarrier | Type::TiledIndex(_) => Some("a tile's index or barrier".into()),
        Type::CArray(elem, _) => shared_type_problem(cx, elem),
        Type::Struct(id) => {
            let fields = cx.ck.struct_fields(*id);
            let kind = if cx.ck.is_union(ty) {
                "union"
            } else {
                "struct"
            };
            fields.iter().find_map(|(name, t)| {
                shared_type_problem(cx, t).map(|p| format!("a {kind} whose member `{name}` is {p}"))
            })
        }
        _ => None,
    }
}

/// The value of a lowered integer constant, through conversions.
fn lowered_int_const(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Const(tessera_ir::Const::Int(v)) => Some(*v),
        ExprKind::Convert(inner) if e.ty.scalar().is_some_and(|s| s.is_integral()) => {
            lowered_int_const(inner)
        }
        _ => None,
    }
}

/// Whether a lowered initialiser is a constant the program can hold from
/// its start (literals and conversions of them).
fn lowered_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Convert(inner) => lowered_constant(inner),
        _ => false,
    }
}

/// The shape type of `e`, when `e` is `[k]` of an `index` or `extent`
/// that is not a place (a temporary: `(a + b)[0]`, `v.get_extent()[1]`):
/// a reference bound to it dangles once the declaration ends.
fn component_of_temporary(e: &Expr) -> Option<&Type> {
    let ExprKind::Intrinsic {
        op: tessera_ir::Intrinsic::ShapeComponent,
        args,
    } = &e.kind
    else {
        return None;
    };
    let base = args.first()?;
    (!base.place && matches!(base.ty, Type::Index(_) | Type::Extent(_))).then_some(&base.ty)
}
