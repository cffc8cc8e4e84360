//! Lambdas as values: `auto f = [=](int x) { return x + k; };`.
//!
//! A lambda is what C++ says it is, an object of a class of its own: the
//! class has one data member per captured variable and an `operator()`
//! whose body is the lambda's. So calling it, passing it to a function
//! template and launching it as a kernel (`parallel_for_each(e, f)`) all go
//! through the class machinery (`class.rs`), and the engines see a struct
//! and a member function.
//!
//! Captures are found as the body is lowered, as for kernels: the body's
//! uses of outer variables become capture slots, which are then rewritten
//! to the closure object's members. A capture by reference is a member
//! holding a checked pointer to the variable, and its uses read and write
//! through it: what C++'s reference member does, and a use after the
//! variable's scope has ended is a run-time error rather than undefined
//! behaviour. Amp code has no pointers, so lambdas that may run there
//! capture by value only (kernels have their own rules, in `launch.rs`).

use crate::class::ClassInfo;
use crate::cx::{Capturable, FnCx, KernelCx, error_expr};
use crate::expr::mk;
use std::collections::HashMap;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{
    Expr, ExprKind, FuncId, Function, FunctionKind, Local, LocalId, Space, Stmt, StmtKind,
    StructDef, StructId, Type,
};
use tessera_syntax::ast;

impl FnCx<'_> {
    /// A lambda expression that is not the kernel argument of a launch: a
    /// closure object.
    pub(crate) fn lambda_value(&mut self, lambda: &ast::Lambda, span: Span) -> Expr {
        if let Some(c) = lambda.captures.iter().find(|c| c.name.name == "this") {
            self.ck.error(
                codes::E0211,
                c.span,
                "lambdas that capture `this` are not supported yet",
                "`this` capture",
                "capture the members you need in locals first",
            );
            return error_expr(span);
        }
        // The closure class, its data members filled in once the captures
        // are known.
        let id = StructId(self.ck.program.structs.len() as u32);
        let name = format!("<lambda {}>", id.0);
        self.ck.program.structs.push(StructDef {
            name: name.clone(),
            fields: Vec::new(),
            is_union: false,
            span,
        });
        self.ck.classes.insert(
            id,
            ClassInfo {
                name: name.clone(),
                ..ClassInfo::default()
            },
        );
        // A lambda without `restrict` has the restriction of the code around it.
        let restriction = match &lambda.restrict {
            Some(r) => crate::declare::restriction(self.ck, Some(r)),
            None => self.restriction(),
        };
        crate::declare::check_exception_spec(self.ck, lambda.exception_spec, restriction);
        // Host lambdas capture by reference through pointers to the
        // variables (see `by_ref_members`); amp code has no pointer members.
        let by_ref = lambda.default_capture == Some(ast::CaptureDefault::ByRef)
            || lambda.captures.iter().any(|c| c.by_ref);
        if by_ref && restriction.amp {
            self.ck.error(
                codes::E0211,
                lambda.capture_span,
                "lambdas that may run on the accelerator and capture by reference are supported only as kernels yet",
                "capture by reference",
                "capture by value (`[=]`), or pass the variables as arguments",
            );
            return error_expr(span);
        }
        let space = if restriction.amp {
            Space::Private
        } else {
            Space::Host
        };
        let mut locals = vec![Local {
            name: "this".into(),
            ty: Type::Struct(id),
            by_ref: true,
            is_const: !lambda.is_mutable,
            space,
            span,
        }];
        let before = self.ck.diags.len();
        for p in &lambda.params {
            let visible = self.visible_consts();
            let lookup = move |n: &str| visible.get(n);
            locals.push(crate::declare::param_local(self.ck, p, space, &lookup));
        }
        let ret_written = match &lambda.ret {
            Some(t) if crate::decltype::mentions_decltype(&t.specs.ty) => {
                // `-> decltype(a + b)`: typed in the lambda's restriction,
                // its parameters in scope over the enclosing locals.
                let mut scope = self.decltype_scope();
                scope.restriction = restriction;
                let mut params = HashMap::new();
                for (p, local) in lambda.params.iter().zip(locals.iter().skip(1)) {
                    if let Some(n) = &p.declarator.name {
                        params.insert(n.name.clone(), LocalId(scope.locals.len() as u32));
                        scope.locals.push(local.clone());
                    }
                }
                scope.scopes.push(params);
                let saved = self.ck.decltype_scope.replace(scope);
                let visible = self.visible_consts();
                let lookup = move |n: &str| visible.get(n);
                let d = crate::types::resolve(self.ck, &t.specs, &t.modifiers, &[], &lookup);
                self.ck.decltype_scope = saved;
                Some((d.ty, d.by_ref))
            }
            // `-> auto` deduces the type as no return type does.
            Some(t)
                if matches!(t.specs.ty, ast::BaseType::Auto)
                    && t.modifiers == ast::Modifiers::default()
                    && !t.specs.is_const =>
            {
                None
            }
            Some(t) if matches!(t.specs.ty, ast::BaseType::Auto) => {
                self.ck.error(
                    codes::E0211,
                    t.specs.span,
                    "a lambda's return type deduced from `auto` with qualifiers is not supported yet",
                    "`auto` return type",
                    "name the return type, or leave it out",
                );
                return error_expr(span);
            }
            Some(t) => {
                let d = self.resolve(&t.specs, &t.modifiers, &[]);
                Some((d.ty, d.by_ref))
            }
            None => None,
        };
        if self.ck.diags.len() > before {
            return error_expr(span);
        }
        let (ret, ret_by_ref) = ret_written.clone().unwrap_or((Type::Void, false));
        let func = Function {
            name: format!("{name}::operator()"),
            kind: FunctionKind::Plain,
            restriction,
            params: locals.len() as u32,
            locals,
            ret,
            ret_by_ref,
            body: None,
            stmt_count: 0,
            span,
        };
        let fid = crate::declare::reserve_function(self.ck, func.clone());
        if let Some(c) = self.ck.classes.get_mut(&id) {
            c.methods.insert("operator()".into(), vec![fid]);
            c.method_access.insert(fid, ast::Access::Public);
        }
        // Visible locals of the function around the lambda, for captures.
        let mut outer: Vec<(String, Capturable)> = Vec::new();
        for scope in &self.scopes {
            for (n, local) in scope {
                if let Some(info) = self.local(*local) {
                    outer.push((
                        n.clone(),
                        Capturable {
                            local: *local,
                            info: info.clone(),
                        },
                    ));
                }
            }
        }
        let explicit: Vec<(String, bool, Span)> = lambda
            .captures
            .iter()
            .map(|c| (c.name.name.clone(), c.by_ref, c.span))
            .collect();
        for (n, _, at) in &explicit {
            if !outer.iter().any(|(o, _)| o == n) {
                self.ck.error(
                    codes::E0200,
                    *at,
                    format!("cannot capture `{n}`: no such local variable"),
                    "not declared",
                    "",
                );
            }
        }
        let outer_consts = self.visible_consts().locals;
        let mut fcx = FnCx::new(self.ck, func);
        for (i, p) in lambda.params.iter().enumerate() {
            if let Some(n) = &p.declarator.name {
                fcx.scopes[0].insert(n.name.clone(), LocalId(i as u32 + 1));
            }
        }
        fcx.kernel = Some(KernelCx {
            outer,
            default_capture: lambda.default_capture,
            is_mutable: lambda.is_mutable,
            outer_consts,
            explicit,
            made: Vec::new(),
            capture_span: lambda.capture_span,
        });
        fcx.func.kind = FunctionKind::Kernel {
            tile: None,
            captures: Vec::new(),
        };
        fcx.deducing_return = ret_written.is_none();
        // A variable named in the capture list is captured even when the
        // body does not use it (and must be capturable).
        for c in &lambda.captures {
            let _ = fcx.capture(&c.name.name, c.span);
        }
        let body = fcx.block(&lambda.body);
        let made = fcx.kernel.take().map(|k| k.made).unwrap_or_default();
        let captures = match std::mem::replace(&mut fcx.func.kind, FunctionKind::Plain) {
            FunctionKind::Kernel { captures, .. } => captures,
            FunctionKind::Plain => Vec::new(),
        };
        let mut func = fcx.func;
        let mut body = body;
        // Captures become the closure object's members: the value, or for
        // a capture by reference a pointer to the variable.
        let values: Vec<Expr> = made
            .iter()
            .map(|(_, local, by_ref)| {
                let variable = self.local_expr(*local, span);
                if *by_ref {
                    self.address_of(variable, span)
                } else {
                    variable
                }
            })
            .collect();
        let this_ty = Type::Struct(id);
        let members: Vec<Member> = captures
            .iter()
            .zip(&values)
            .map(|(c, v)| Member {
                ty: c.ty.clone(),
                stored: if c.by_ref { v.ty.clone() } else { c.ty.clone() },
                by_ref: c.by_ref,
            })
            .collect();
        let rewrite = |e: &mut Expr| rewrite_captures(e, &this_ty, &members);
        tessera_ir::visit::for_each_stmt_expr_mut(&mut body, &mut |e| rewrite(e));
        func.body = Some(body);
        *self.ck.program.function_mut(fid) = func;
        if let Some(def) = self.ck.program.structs.get_mut(id.0 as usize) {
            def.fields = captures
                .iter()
                .zip(&members)
                .map(|(c, m)| (c.name.clone(), m.stored.clone()))
                .collect();
        }
        if let Some(c) = self.ck.classes.get_mut(&id) {
            c.access = vec![ast::Access::Private; captures.len()];
            c.default_inits = vec![None; captures.len()];
        }
        // A lambda without a capture list converts to a pointer to a
        // function of its call's type, as C++ says: a function calling
        // the call operator on a closure object of its own, which holds
        // nothing.
        if lambda.captures.is_empty()
            && lambda.default_capture.is_none()
            && restriction.cpu
            && !restriction.amp
        {
            let thunk = self.lambda_function(id, fid, span);
            self.ck.function_objects.insert(id, thunk);
        }
        mk(ExprKind::Aggregate(values), Type::Struct(id), false, span)
    }

    /// The function a capture-less lambda of closure class `id`, whose
    /// call operator is `call`, converts to a pointer to.
    fn lambda_function(&mut self, id: StructId, call: FuncId, span: Span) -> FuncId {
        let op = self.ck.program.function(call);
        let params: Vec<Local> = op
            .locals
            .iter()
            .take(op.params as usize)
            .skip(1)
            .cloned()
            .collect();
        let (ret, ret_by_ref, restriction) = (op.ret.clone(), op.ret_by_ref, op.restriction);
        let name = format!("{}::<function>", op.name.trim_end_matches("::operator()"));
        let n = params.len() as u32;
        let mut locals = params;
        let object = LocalId(n);
        locals.push(Local {
            name: String::new(),
            ty: Type::Struct(id),
            by_ref: false,
            is_const: false,
            space: Space::Host,
            span,
        });
        let mut args = vec![mk(ExprKind::Local(object), Type::Struct(id), true, span)];
        args.extend(
            locals
                .iter()
                .take(n as usize)
                .enumerate()
                .map(|(i, p)| mk(ExprKind::Local(LocalId(i as u32)), p.ty.clone(), true, span)),
        );
        let call = mk(
            ExprKind::Call { func: call, args },
            ret.clone(),
            ret_by_ref,
            span,
        );
        let last = if ret == Type::Void {
            StmtKind::Expr(call)
        } else {
            StmtKind::Return(Some(call))
        };
        let stmts = vec![
            Stmt::new(
                StmtKind::Let {
                    local: object,
                    init: Some(tessera_ir::Init::Zero),
                },
                span,
            ),
            Stmt::new(last, span),
        ];
        let func = Function {
            name,
            kind: FunctionKind::Plain,
            restriction,
            params: n,
            locals,
            ret,
            ret_by_ref,
            body: Some(tessera_ir::Block { stmts }),
            stmt_count: 0,
            span,
        };
        crate::declare::reserve_function(self.ck, func)
    }
}

/// One data member of a closure, for a capture.
struct Member {
    /// The captured variable's type.
    ty: Type,
    /// The member's type: the variable's, or a pointer to it.
    stored: Type,
    /// Captured by reference: the member points to the variable.
    by_ref: bool,
}

/// Rewrites the capture slots in `e` (the body of a closure's `operator()`)
/// to members of the closure object, its parameter 0; a capture by
/// reference to the variable its member points to.
fn rewrite_captures(e: &mut Expr, this_ty: &Type, members: &[Member]) {
    if let ExprKind::Capture(slot) = e.kind {
        let object = Expr {
            kind: ExprKind::Local(LocalId(0)),
            ty: this_ty.clone(),
            place: true,
            span: e.span,
        };
        let member = members.get(slot as usize);
        let field = ExprKind::Field {
            base: Box::new(object),
            field: slot,
        };
        match member {
            Some(m) if m.by_ref && !m.ty.is_error() => {
                let pointer = Expr {
                    kind: field,
                    ty: m.stored.clone(),
                    place: true,
                    span: e.span,
                };
                e.kind = ExprKind::Deref(Box::new(pointer));
                e.ty = m.ty.clone();
                e.place = true;
            }
            _ => {
                e.kind = field;
                if let Some(m) = member
                    && !m.ty.is_error()
                {
                    e.ty = m.ty.clone();
                }
            }
        }
        return;
    }
    tessera_ir::visit::for_each_child_mut(e, &mut |c| rewrite_captures(c, this_ty, members));
}

/// What the operator of a function object made for a function used as a
/// value calls.
pub(crate) enum Callee {
    /// A function of the program.
    Function(FuncId),
    /// `rand()`.
    Rand,
}

impl FnCx<'_> {
    /// A function named as a value (`std::generate(b, e, rand)`): C++
    /// passes a pointer to it; here it is a function object without data
    /// whose `operator()` calls it, which a template calling its argument
    /// (the one use Tessera accepts) treats the same way.
    pub(crate) fn function_object(&mut self, callee: Callee, span: Span) -> Expr {
        let (shown, params, ret, restriction) = match &callee {
            Callee::Function(id) => match self.ck.program.get_function(*id) {
                Some(f) => (
                    f.name.clone(),
                    f.locals[..f.params as usize].to_vec(),
                    f.ret.clone(),
                    f.restriction,
                ),
                None => return error_expr(span),
            },
            Callee::Rand => (
                "rand".to_string(),
                Vec::new(),
                Type::Scalar(tessera_ir::Scalar::Int),
                tessera_ir::Restriction {
                    amp: false,
                    cpu: true,
                },
            ),
        };
        let id = StructId(self.ck.program.structs.len() as u32);
        if let Callee::Function(func) = &callee {
            self.ck.function_objects.insert(id, *func);
        }
        let name = format!("<function {shown}>");
        self.ck.program.structs.push(StructDef {
            name: name.clone(),
            fields: Vec::new(),
            is_union: false,
            span,
        });
        self.ck.classes.insert(
            id,
            ClassInfo {
                name: name.clone(),
                ..ClassInfo::default()
            },
        );
        let mut locals = vec![Local {
            name: "this".into(),
            ty: Type::Struct(id),
            by_ref: true,
            is_const: true,
            space: Space::Host,
            span,
        }];
        locals.extend(params.iter().cloned());
        let args: Vec<Expr> = params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                mk(
                    ExprKind::Local(LocalId(i as u32 + 1)),
                    p.ty.clone(),
                    true,
                    span,
                )
            })
            .collect();
        let call = match callee {
            Callee::Function(func) => mk(ExprKind::Call { func, args }, ret.clone(), false, span),
            Callee::Rand => mk(
                ExprKind::Intrinsic {
                    op: tessera_ir::Intrinsic::Rand,
                    args,
                },
                ret.clone(),
                false,
                span,
            ),
        };
        let stmt = if ret == Type::Void {
            StmtKind::Expr(call)
        } else {
            StmtKind::Return(Some(call))
        };
        let func = Function {
            name: format!("{name}::operator()"),
            kind: FunctionKind::Plain,
            restriction,
            params: locals.len() as u32,
            locals,
            ret,
            ret_by_ref: false,
            body: Some(tessera_ir::Block {
                stmts: vec![Stmt::new(stmt, span)],
            }),
            stmt_count: 0,
            span,
        };
        let fid = crate::declare::reserve_function(self.ck, func);
        if let Some(c) = self.ck.classes.get_mut(&id) {
            c.methods.insert("operator()".into(), vec![fid]);
            c.method_access.insert(fid, ast::Access::Public);
        }
        mk(
            ExprKind::Aggregate(Vec::new()),
            Type::Struct(id),
            false,
            span,
        )
    }
}
