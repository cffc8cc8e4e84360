//! Function pointers and references: `int (*p)(int) = &f;`, `p(x)`,
//! `(*p)(x)`, `p == q`, `typedef int (*Fn)(int);`.
//!
//! They are host code only: C++ AMP has no function pointers in amp code
//! (a function pointer or reference there is an unsupported type, MSVC
//! C3581), and a pointer may only point to a function host code can call
//! (a pointer type carrying `restrict(amp)`, or the address of an amp-only
//! function, is MSVC C3939). A function reference is held as a function
//! pointer that cannot change.
//!
//! A function named where a function pointer is wanted (an initialiser, an
//! assignment, a `return`, a cast, `&f`) is resolved as C++ resolves the
//! address of an overloaded function ([over.over]): the overload whose type
//! is the target's. Elsewhere a function named as a value stays what
//! `lambda.rs` makes of it (a function object), which converts to a
//! function pointer when one is wanted.

use crate::cx::{Checker, FnCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, ExprKind, FnParam, FnSig, FuncId, StructId, Type};
use tessera_syntax::ast::{self, ExprKind as K, UnaryOp as U};

/// What a function designator names (see `FnCx::designated`).
struct Designated {
    /// The candidate functions.
    ids: Vec<FuncId>,
    /// The name as written.
    name: String,
    /// `&` was written.
    explicit: bool,
    /// The class, for `&C::f` naming member functions.
    member_of: Option<StructId>,
}

impl Checker {
    /// The function pointer type of function `id`; with `member_of`, the
    /// pointer to member function type of a member function of that class.
    pub(crate) fn fn_pointer_type(&self, id: FuncId, member_of: Option<StructId>) -> Option<Type> {
        let f = self.program.get_function(id)?;
        let params = f
            .locals
            .iter()
            .take(f.params as usize)
            .map(|l| FnParam {
                ty: l.ty.clone(),
                by_ref: l.by_ref,
                is_const: l.by_ref && l.is_const,
            })
            .collect();
        Some(Type::FnPtr(Box::new(FnSig {
            ret: f.ret.clone(),
            ret_by_ref: f.ret_by_ref,
            params,
            member_of,
        })))
    }

    /// The function a function object made for a function named as a value
    /// calls (see `FnCx::function_object`).
    pub(crate) fn designated_function(&self, ty: &Type) -> Option<FuncId> {
        match ty {
            Type::Struct(id) => self.function_objects.get(id).copied(),
            _ => None,
        }
    }

    /// The non-static member functions `name` of class `class` (its own or
    /// a base's), for `&C::f`.
    fn member_functions(&self, class: StructId, name: &str) -> Option<Vec<FuncId>> {
        let (_, owner, ids) = self.find_methods(class, name)?;
        let statics = self.classes.get(&owner).map(|c| &c.statics);
        let ids: Vec<FuncId> = ids
            .into_iter()
            .filter(|id| statics.is_none_or(|s| !s.contains(id)))
            .collect();
        (!ids.is_empty()).then_some(ids)
    }
}

impl FnCx<'_> {
    /// Lowers `e`, whose value goes where a `target` is wanted: a function
    /// named there (`f` or `&f`) is the overload whose type is `target`'s.
    pub(crate) fn expr_for(&mut self, e: &ast::Expr, target: &Type) -> Expr {
        if let Type::FnPtr(_) = target {
            self.fn_target = Some(target.clone());
        }
        self.expr(e)
    }

    /// The arguments of a call of one of `candidates`: an argument whose
    /// parameter is a function pointer of one type in every candidate is
    /// lowered for that type, so a function named there is the overload of
    /// that type (`apply(half, 4)` with `half` overloaded).
    pub(crate) fn arguments_for(&mut self, candidates: &[FuncId], args: &[ast::Expr]) -> Vec<Expr> {
        let mut lowered = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let mut wanted: Option<Type> = None;
            let mut agree = true;
            for id in candidates {
                let Some(f) = self.ck.program.get_function(*id) else {
                    continue;
                };
                if (f.params as usize) <= i {
                    continue;
                }
                match f.locals.get(i).map(|l| &l.ty) {
                    Some(t @ Type::FnPtr(_)) => match &wanted {
                        Some(w) if w != t => agree = false,
                        Some(_) => {}
                        None => wanted = Some(t.clone()),
                    },
                    _ => agree = false,
                }
            }
            lowered.push(match wanted {
                Some(t) if agree => self.expr_for(a, &t),
                _ => self.expr(a),
            });
        }
        lowered
    }

    /// `auto p = f;`: a function named as the initialiser of an `auto`
    /// variable decays to a pointer to it, as `&f` would.
    pub(crate) fn expr_decayed(&mut self, e: &ast::Expr) -> Expr {
        if let K::Name(_) = e.kind
            && self.designated(e).is_some()
        {
            let address = ast::Expr {
                kind: K::Unary {
                    op: U::AddrOf,
                    operand: Box::new(e.clone()),
                },
                span: e.span,
                height: e.height + 1,
            };
            return self.expr(&address);
        }
        self.expr(e)
    }

    /// The functions `e` names if it designates functions (`f`, `&f`,
    /// `ns::f`, `&C::f`) rather than a variable: the candidates, the name
    /// as written, whether `&` was written, and the class of member
    /// functions.
    fn designated(&self, e: &ast::Expr) -> Option<Designated> {
        let (path, explicit) = match &e.kind {
            K::Name(path) => (path, false),
            K::Unary {
                op: U::AddrOf,
                operand,
            } => match &operand.kind {
                K::Name(path) => (path, true),
                _ => return None,
            },
            _ => return None,
        };
        if path.segments.len() == 1 && !path.global {
            let name = path.last();
            if self.lookup_local(name).is_some()
                || self.ck.globals.contains_key(name)
                || self
                    .kernel
                    .as_ref()
                    .is_some_and(|k| k.outer.iter().any(|(n, _)| n == name))
                || self
                    .current_class()
                    .is_some_and(|c| self.ck.find_methods(c, name).is_some())
            {
                return None;
            }
        }
        // `&C::f`: a pointer to member function (`&` is required).
        if explicit
            && path.segments.len() == 2
            && let Some(class) = self.class_named(&path.segments[0].name)
            && let Some(ids) = self.ck.member_functions(class, path.last())
        {
            return Some(Designated {
                ids,
                name: path.text(),
                explicit,
                member_of: Some(class),
            });
        }
        let ids = self
            .ck
            .functions
            .get(&path.text())
            .filter(|ids| !ids.is_empty())?
            .clone();
        Some(Designated {
            ids,
            name: path.text(),
            explicit,
            member_of: None,
        })
    }

    /// `f` or `&f` naming functions, where the value may become a function
    /// pointer: `None` when `e` is something else, or a bare `f` with no
    /// function pointer wanted (a function object then, as before).
    pub(crate) fn function_designator(
        &mut self,
        e: &ast::Expr,
        target: Option<&Type>,
    ) -> Option<Expr> {
        let Designated {
            ids,
            name,
            explicit,
            member_of,
        } = self.designated(e)?;
        let span = e.span;
        let target = target.filter(|t| matches!(t, Type::FnPtr(_)));
        if !explicit && target.is_none() {
            return None;
        }
        if self.in_amp() {
            self.ck.report(fn_pointer_in_amp(span));
            return Some(error_expr(span));
        }
        // Only functions host code can call can be pointed to.
        let host: Vec<FuncId> = ids
            .iter()
            .copied()
            .filter(|id| {
                self.ck
                    .program
                    .get_function(*id)
                    .is_some_and(|f| f.restriction.cpu)
            })
            .collect();
        let Some(target) = target else {
            return Some(match host.as_slice() {
                [only] => self.function_address(*only, member_of, span),
                [] => {
                    self.ck.report(amp_function_pointed(span, &name));
                    error_expr(span)
                }
                _ => {
                    self.ck.report(
                        Diagnostic::error(
                            codes::E0241,
                            span,
                            format!("`&{name}` names an overloaded function"),
                        )
                        .with_label("which overload is meant?")
                        .with_msvc("C2568")
                        .with_help("give it a target type: `int (*p)(int) = &f;`"),
                    );
                    error_expr(span)
                }
            });
        };
        let typed =
            |ck: &Checker, id: &FuncId| ck.fn_pointer_type(*id, member_of).as_ref() == Some(target);
        if let Some(&id) = host.iter().find(|id| typed(self.ck, id)) {
            return Some(self.function_address(id, member_of, span));
        }
        let shown = self.ck.show(target);
        if ids.iter().any(|id| typed(self.ck, id)) {
            // The overload of this type runs in amp code only.
            if explicit {
                self.ck.report(amp_function_pointed(span, &name));
            } else {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0203,
                        span,
                        format!("`{name}` cannot convert to `{shown}`: it is `restrict(amp)`"),
                    )
                    .with_label("an amp-only function")
                    .with_msvc("C2440")
                    .with_help(
                        "a function pointer may only point to a function host code can call",
                    ),
                );
            }
            return Some(error_expr(span));
        }
        self.ck.report(
            Diagnostic::error(
                codes::E0203,
                span,
                format!("no function `{name}` has the type `{shown}`"),
            )
            .with_label("no overload of this type")
            .with_msvc("C2440")
            .with_help("a function pointer points to a function of exactly its type"),
        );
        Some(error_expr(span))
    }

    /// A pointer to function `id` (host code), to a member function of
    /// `member_of`.
    fn function_address(&mut self, id: FuncId, member_of: Option<StructId>, span: Span) -> Expr {
        match self.ck.fn_pointer_type(id, member_of) {
            Some(ty) => mk(ExprKind::FuncAddr(Some(id)), ty, false, span),
            None => error_expr(span),
        }
    }

    /// The conversions to a function pointer type: the null pointer
    /// (`nullptr`, `0`) and a function named as a value.
    pub(crate) fn fn_pointer_coerce(&mut self, e: Expr, to: &Type) -> Result<Expr, Expr> {
        let Type::FnPtr(_) = to else {
            return Err(e);
        };
        let span = e.span;
        let null = match (&e.ty, &e.kind) {
            (Type::Null, _) => true,
            (Type::Scalar(s), ExprKind::Const(tessera_ir::Const::Int(0))) => s.is_integral(),
            _ => false,
        };
        if null {
            return Ok(mk(ExprKind::FuncAddr(None), to.clone(), false, span));
        }
        let Some(id) = self.ck.designated_function(&e.ty) else {
            // A lambda that captures (or may run in amp code) has no
            // function to point to.
            if let Type::Struct(closure) = &e.ty
                && self
                    .ck
                    .classes
                    .get(closure)
                    .is_some_and(|c| c.name.starts_with("<lambda "))
            {
                let shown = self.ck.show(to);
                self.ck.report(
                    Diagnostic::error(
                        codes::E0203,
                        span,
                        format!("this lambda cannot convert to `{shown}`"),
                    )
                    .with_label("a lambda with a capture list")
                    .with_msvc("C2440")
                    .with_help("only a host lambda with an empty capture list `[]` converts to a function pointer"),
                );
                return Ok(error_expr(span));
            }
            return Err(e);
        };
        let Some(f) = self.ck.program.get_function(id) else {
            return Err(e);
        };
        let (cpu, name) = (f.restriction.cpu, f.name.clone());
        if self.ck.fn_pointer_type(id, None).as_ref() != Some(to) {
            return Err(e);
        }
        if self.in_amp() {
            self.ck.report(fn_pointer_in_amp(span));
            return Ok(error_expr(span));
        }
        if !cpu {
            let shown = self.ck.show(to);
            self.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    span,
                    format!("`{name}` cannot convert to `{shown}`: it is `restrict(amp)`"),
                )
                .with_label("an amp-only function")
                .with_msvc("C2440")
                .with_help("a function pointer may only point to a function host code can call"),
            );
            return Ok(error_expr(span));
        }
        Ok(mk(ExprKind::FuncAddr(Some(id)), to.clone(), false, span))
    }

    /// The function pointer type `e` has or converts to: a function
    /// pointer, or a function named as a value.
    pub(crate) fn fn_pointer_of(&self, e: &Expr) -> Option<Type> {
        match &e.ty {
            Type::FnPtr(_) => Some(e.ty.clone()),
            ty => self
                .ck
                .designated_function(ty)
                .and_then(|id| self.ck.fn_pointer_type(id, None)),
        }
    }

    /// `p == q`, `p != nullptr`, `p == f`, where either operand is a
    /// function pointer (see [`compares_fn_pointers`]): both converted to
    /// its type.
    pub(crate) fn fn_pointer_comparison(
        &mut self,
        equal: bool,
        l: Expr,
        r: Expr,
        span: Span,
    ) -> Expr {
        let ty = match (&l.ty, &r.ty) {
            (Type::FnPtr(_), _) => l.ty.clone(),
            _ => r.ty.clone(),
        };
        let l = self.coerce(l, &ty, "an operand of the comparison");
        let r = self.coerce(r, &ty, "an operand of the comparison");
        if l.ty.is_error() || r.ty.is_error() {
            return error_expr(span);
        }
        let op = if equal {
            tessera_ir::BinOp::Eq
        } else {
            tessera_ir::BinOp::Ne
        };
        mk(
            ExprKind::Binary {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            Type::BOOL,
            false,
            span,
        )
    }

    /// `(object.*pointer)(args)`, `(p->*pointer)(args)`: a call through a
    /// pointer to member function, the object its first argument.
    pub(crate) fn call_member_pointer(
        &mut self,
        object: Expr,
        pointer: Expr,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        if object.ty.is_error() || pointer.ty.is_error() {
            return error_expr(span);
        }
        let class = match &pointer.ty {
            Type::FnPtr(sig) => sig.member_of,
            _ => None,
        };
        let Some(class) = class else {
            let shown = self.ck.show(&pointer.ty);
            self.ck.error(
                codes::E0210,
                pointer.span,
                format!("`.*` needs a pointer to member function, not `{shown}`"),
                "not a pointer to member",
                "",
            );
            return error_expr(span);
        };
        if object.ty != Type::Struct(class) {
            let (want, found) = (self.ck.show(&Type::Struct(class)), self.ck.show(&object.ty));
            self.ck.error(
                codes::E0203,
                object.span,
                format!("a pointer to a member of `{want}` applied to a `{found}`"),
                "object of another class",
                "",
            );
            return error_expr(span);
        }
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(object);
        all.extend(args);
        self.call_through(pointer, all, span)
    }

    /// `p(args)` through a function pointer (also `(*p)(args)`, `r(args)`
    /// of a function reference).
    pub(crate) fn call_pointer(&mut self, callee: Expr, args: Vec<Expr>, span: Span) -> Expr {
        if let Type::FnPtr(sig) = &callee.ty
            && sig.member_of.is_some()
        {
            self.ck.error(
                codes::E0208,
                callee.span,
                "a pointer to member function is called through an object",
                "no object",
                "write `(object.*pointer)(args)`",
            );
            return error_expr(span);
        }
        self.call_through(callee, args, span)
    }

    /// A call through a function pointer of its full argument list.
    fn call_through(&mut self, callee: Expr, args: Vec<Expr>, span: Span) -> Expr {
        let Type::FnPtr(sig) = callee.ty.clone() else {
            return error_expr(span);
        };
        if self.in_amp() {
            self.ck.report(fn_pointer_in_amp(callee.span));
            return error_expr(span);
        }
        if args.len() != sig.params.len() {
            self.ck.error(
                codes::E0206,
                span,
                format!(
                    "the function pointer takes {} argument(s), {} given",
                    sig.params.len(),
                    args.len()
                ),
                "wrong number of arguments",
                "",
            );
            return error_expr(span);
        }
        let mut lowered = Vec::with_capacity(args.len());
        for (i, (a, p)) in args.into_iter().zip(&sig.params).enumerate() {
            let what = format!("argument {} of the call", i + 1);
            if a.ty.is_error() {
                return error_expr(span);
            }
            if p.by_ref {
                if a.ty != p.ty || (!a.place && !p.is_const) {
                    let shown = self.ck.show(&p.ty);
                    self.ck.error(
                        codes::E0203,
                        a.span,
                        format!("{what} must be a variable of type `{shown}`"),
                        "cannot bind the reference parameter",
                        "",
                    );
                    return error_expr(span);
                }
                if !p.is_const {
                    self.check_writable(&a, "passed by reference");
                }
                lowered.push(a);
            } else {
                lowered.push(self.coerce(a, &p.ty, &what));
            }
        }
        mk(
            ExprKind::CallPtr {
                callee: Box::new(callee),
                args: lowered,
            },
            sig.ret.clone(),
            sig.ret_by_ref,
            span,
        )
    }
}

/// Whether a comparison of `l` and `r` compares function pointers.
pub(crate) fn compares_fn_pointers(l: &Expr, r: &Expr) -> bool {
    matches!(l.ty, Type::FnPtr(_)) || matches!(r.ty, Type::FnPtr(_))
}

/// E0306: a function pointer or reference in amp code (MSVC C3581).
pub(crate) fn fn_pointer_in_amp(span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::E0306,
        span,
        "function pointers and references are not allowed in amp code",
    )
    .with_label("not allowed in `restrict(amp)` code")
    .with_msvc("C3581")
    .with_help("call the function directly; amp code has no indirect calls")
}

/// E0314: the address of a function only amp code may call (MSVC C3939).
fn amp_function_pointed(span: Span, name: &str) -> Diagnostic {
    Diagnostic::error(
        codes::E0314,
        span,
        format!("`{name}` is `restrict(amp)`: no pointer may point to it"),
    )
    .with_label("an amp-only function")
    .with_msvc("C3939")
    .with_help("function pointers are host code: point to a `restrict(cpu)` or `restrict(amp, cpu)` function")
}

/// The function pointer type a function declarator makes, from its return
/// type `ret` (before the declarator's own `*`/`&`, which the caller
/// applies). Reports `restrict(amp)` on it (E0314) and what Tessera does
/// not support.
pub(crate) fn declarator_type(
    ck: &mut Checker,
    ret: Type,
    ret_const: bool,
    f: &ast::FunctionDeclarator,
    consts: crate::types::ConstLookup<'_>,
) -> Type {
    if ret.is_error() {
        return Type::Error;
    }
    let member_of = match &f.class {
        None => None,
        Some(c) => match ck.structs.get(&c.name) {
            Some(id) => Some(*id),
            None => {
                ck.error(
                    codes::E0211,
                    c.span,
                    format!("pointers to members of `{}` are not supported", c.name),
                    "not a class Tessera knows here",
                    "",
                );
                return Type::Error;
            }
        },
    };
    let mut ret = ret;
    for level in 0..f.ret.pointers {
        ret = Type::Ptr {
            elem: Box::new(ret),
            is_const: level == 0 && ret_const,
        };
    }
    if f.ret.reference == 2 {
        ck.error(
            codes::E0211,
            f.span,
            "rvalue references (`&&`) are not supported",
            "here",
            "use `const T&` or a value",
        );
        return Type::Error;
    }
    if let Some(r) = &f.restrict {
        let restriction = crate::declare::restriction(ck, Some(r));
        if restriction.amp {
            ck.report(
                Diagnostic::error(
                    codes::E0314,
                    r.span,
                    "a function pointer or reference cannot be `restrict(amp)`",
                )
                .with_label("amp functions cannot be pointed to")
                .with_msvc("C3939")
                .with_help("function pointers are host code: drop `amp` from the clause"),
            );
        }
    }
    let is_void_list = f.params.len() == 1
        && matches!(
            f.params[0].specs.ty,
            ast::BaseType::Builtin(ast::Builtin::Void)
        )
        && f.params[0].declarator.name.is_none()
        && f.params[0].declarator.modifiers == ast::Modifiers::default();
    // A member function's object is its first parameter.
    let mut params: Vec<FnParam> = member_of
        .iter()
        .map(|id| FnParam {
            ty: Type::Struct(*id),
            by_ref: true,
            is_const: f.object_const,
        })
        .collect();
    if !is_void_list {
        for p in &f.params {
            let d = crate::types::resolve(
                ck,
                &p.specs,
                &p.declarator.modifiers,
                &p.declarator.array_dims,
                consts,
            );
            // A parameter declared as an array is a pointer.
            let ty = match d.ty {
                Type::CArray(elem, _) => crate::pointer::ptr_to(*elem, p.specs.is_const),
                Type::Error => return Type::Error,
                other => other,
            };
            params.push(FnParam {
                ty,
                by_ref: d.by_ref,
                is_const: d.by_ref && p.specs.is_const,
            });
        }
    }
    Type::FnPtr(Box::new(FnSig {
        ret,
        ret_by_ref: f.ret.reference == 1,
        params,
        member_of,
    }))
}
