//! Pointers: `nullptr`, `&`, `*`, `->`, `p[i]`, pointer arithmetic and
//! comparisons, array-to-pointer decay, `new` and `delete`, and the rules
//! C++ AMP adds for them in amp code.

use crate::cx::{FnCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{BinOp, Const, Expr, ExprKind, FuncId, Scalar, StructId, Type};
use tessera_syntax::ast::{self, BinaryOp as B};

/// A pointer to `elem`.
pub(crate) fn ptr_to(elem: Type, is_const: bool) -> Type {
    Type::Ptr {
        elem: Box::new(elem),
        is_const,
    }
}

impl FnCx<'_> {
    /// `nullptr`.
    pub(crate) fn null_pointer(&mut self, span: Span) -> Expr {
        mk(ExprKind::Null, Type::Null, false, span)
    }

    /// `this` as a value: the address of the object a member function runs on.
    pub(crate) fn this_pointer(&mut self, span: Span) -> Option<Expr> {
        let object = self.this_object(span)?;
        let is_const = self.read_only_reason(&object).is_some();
        let ty = ptr_to(object.ty.clone(), is_const);
        Some(mk(ExprKind::AddrOf(Box::new(object)), ty, false, span))
    }

    /// Reports a pointer construct amp code cannot have (E0306).
    fn amp_pointer_error(&mut self, span: Span, what: &str, msvc: &'static str) {
        self.ck.report(
            Diagnostic::error(codes::E0306, span, format!("{what} is not allowed in amp code"))
                .with_label("not allowed in `restrict(amp)` code")
                .with_msvc(msvc)
                .with_help("amp code may use one level of pointer to its locals, `tile_static` variables and view elements; use indices otherwise"),
        );
    }

    /// A C array decayed to a pointer to its first element.
    pub(crate) fn decay(&mut self, e: Expr) -> Expr {
        let Type::CArray(elem, _) = &e.ty else {
            return e;
        };
        let is_const = self.read_only_reason(&e).is_some();
        let ty = ptr_to((**elem).clone(), is_const);
        let span = e.span;
        mk(ExprKind::Convert(Box::new(e)), ty, false, span)
    }

    /// The operand of pointer arithmetic: arrays decay.
    pub(crate) fn pointer_operand(&mut self, e: Expr) -> Expr {
        if matches!(e.ty, Type::CArray(..)) && e.place {
            self.decay(e)
        } else {
            e
        }
    }

    /// `*e`.
    pub(crate) fn deref(&mut self, e: Expr, span: Span) -> Expr {
        let e = self.pointer_operand(e);
        match &e.ty {
            Type::Ptr { elem, .. } if **elem == Type::Void => {
                self.ck.error(
                    codes::E0210,
                    span,
                    "a `void*` cannot be dereferenced",
                    "points to `void`",
                    "",
                );
                error_expr(span)
            }
            Type::Ptr { elem, .. } => {
                let elem = (**elem).clone();
                mk(ExprKind::Deref(Box::new(e)), elem, true, span)
            }
            // `*p` of a function pointer is the function, which decays back
            // to the pointer wherever it is used.
            Type::FnPtr(_) => Expr { span, ..e },
            Type::Error => error_expr(span),
            other => {
                let shown = self.ck.show(other);
                self.ck.error(
                    codes::E0210,
                    span,
                    format!("`*` needs a pointer, not `{shown}`"),
                    "not a pointer",
                    "",
                );
                error_expr(span)
            }
        }
    }

    /// The object `base->m` names a member of: `*base` for a pointer; for
    /// an object of a class, the result of its `operator->`, applied again
    /// while it returns a class (as C++ drills down), then dereferenced.
    pub(crate) fn arrow_object(&mut self, base: Expr, span: Span) -> Expr {
        // C++ sets no limit; a chain this long is a class returning itself.
        const MAX_CHAIN: usize = 16;
        let mut base = base;
        for _ in 0..MAX_CHAIN {
            if !matches!(base.ty, Type::Struct(_)) {
                break;
            }
            base = match self.user_operator("->", vec![base], span) {
                Ok(call) => call,
                // No `operator->`: reported below as not a pointer.
                Err(mut operands) => match operands.pop() {
                    Some(object) => {
                        let shown = self.ck.show(&object.ty);
                        self.ck.error(
                            codes::E0210,
                            span,
                            format!("`->` needs a pointer, not `{shown}`"),
                            "not a pointer",
                            format!("use `.`, or declare `operator->` in `{shown}`"),
                        );
                        return error_expr(span);
                    }
                    None => return error_expr(span),
                },
            };
        }
        if base.ty.is_error() {
            return error_expr(span);
        }
        if base.ty.pointee().is_none() {
            let shown = self.ck.show(&base.ty);
            self.ck.error(
                codes::E0210,
                span,
                format!("`->` needs a pointer, not `{shown}`"),
                "not a pointer",
                if matches!(base.ty, Type::Struct(_)) {
                    "each `operator->` returns another class: let one return a pointer"
                } else {
                    "use `.`"
                },
            );
            return error_expr(span);
        }
        let bspan = base.span;
        self.deref(base, bspan)
    }

    /// `&e`.
    pub(crate) fn address_of(&mut self, e: Expr, span: Span) -> Expr {
        if e.ty.is_error() {
            return error_expr(span);
        }
        if !e.place {
            self.ck.error(
                codes::E0210,
                span,
                "cannot take the address of a temporary value",
                "not a variable or element",
                "store the value in a variable first",
            );
            return error_expr(span);
        }
        if matches!(
            e.ty,
            Type::Ostream | Type::StringStream(_) | Type::Manipulator | Type::Str | Type::Null
        ) {
            let shown = self.ck.show(&e.ty);
            self.ck.error(
                codes::E0211,
                span,
                format!("pointers to `{shown}` are not part of the Tessera language"),
                "here",
                "",
            );
            return error_expr(span);
        }
        let is_const = self.read_only_reason(&e).is_some();
        let ty = ptr_to(e.ty.clone(), is_const);
        mk(ExprKind::AddrOf(Box::new(e)), ty, false, span)
    }

    /// `p[i]`: `*(p + i)`.
    pub(crate) fn pointer_index(&mut self, base: Expr, index: Expr, span: Span) -> Expr {
        let index = self.integral_index(index);
        if index.ty.is_error() {
            return error_expr(span);
        }
        let ptr = self.pointer_add(base, index, false, span);
        self.deref(ptr, span)
    }

    /// `p + n` (`minus`: `p - n`), `n` already a `long`.
    fn pointer_add(&mut self, ptr: Expr, n: Expr, minus: bool, span: Span) -> Expr {
        if self.in_amp()
            && let Type::Ptr { elem, .. } = &ptr.ty
            && **elem == Type::BOOL
        {
            self.amp_pointer_error(span, "arithmetic on a `bool*`", "C3599");
            return error_expr(span);
        }
        if let Type::Ptr { elem, .. } = &ptr.ty
            && **elem == Type::Void
        {
            self.ck.error(
                codes::E0210,
                span,
                "arithmetic on a `void*`",
                "points to `void`",
                "",
            );
            return error_expr(span);
        }
        let n = if minus {
            let nspan = n.span;
            mk(
                ExprKind::Unary {
                    op: tessera_ir::UnOp::Neg,
                    operand: Box::new(n),
                },
                Type::Scalar(Scalar::Long),
                false,
                nspan,
            )
        } else {
            n
        };
        let ty = ptr.ty.clone();
        mk(
            ExprKind::PtrAdd {
                ptr: Box::new(ptr),
                offset: Box::new(n),
            },
            ty,
            false,
            span,
        )
    }

    /// A binary operator with a pointer operand; `None` when neither
    /// operand is a pointer (nor an array used as one).
    pub(crate) fn pointer_binary(
        &mut self,
        op: B,
        l: Expr,
        r: Expr,
        span: Span,
    ) -> Result<Expr, Box<(Expr, Expr)>> {
        let pointerish = |e: &Expr| matches!(e.ty, Type::Ptr { .. } | Type::Null);
        let arrayish = |e: &Expr| matches!(e.ty, Type::CArray(..)) && e.place;
        let arithmetic = matches!(op, B::Add | B::Sub);
        let comparison = matches!(op, B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge);
        // An iterator meeting a stored one (a pointer), or two compared:
        // both as pointers (`it != v.end()`).
        let iterator = |e: &Expr| matches!(e.ty, Type::Iterator(_));
        let (l, r) = if (iterator(&l) && pointerish(&r))
            || (iterator(&r) && pointerish(&l))
            || (comparison && iterator(&l) && iterator(&r))
        {
            (
                crate::library::materialize_iterator(self, l),
                crate::library::materialize_iterator(self, r),
            )
        } else {
            (l, r)
        };
        let involved = ((arithmetic || comparison) && (pointerish(&l) || pointerish(&r)))
            || (arithmetic && (arrayish(&l) || arrayish(&r)));
        if !involved {
            return Err(Box::new((l, r)));
        }
        let l = self.pointer_operand(l);
        let r = self.pointer_operand(r);
        let lp = matches!(l.ty, Type::Ptr { .. });
        let rp = matches!(r.ty, Type::Ptr { .. });
        let integral = |e: &Expr| e.ty.scalar().is_some_and(|s| s.is_integral());
        match op {
            B::Add if lp && integral(&r) => {
                let n = self.convert_scalar(r, Scalar::Long);
                Ok(self.pointer_add(l, n, false, span))
            }
            B::Add if rp && integral(&l) => {
                let n = self.convert_scalar(l, Scalar::Long);
                Ok(self.pointer_add(r, n, false, span))
            }
            B::Sub if lp && integral(&r) => {
                let n = self.convert_scalar(r, Scalar::Long);
                Ok(self.pointer_add(l, n, true, span))
            }
            B::Sub if lp && rp => {
                if l.ty.pointee() != r.ty.pointee() {
                    return Ok(self.pointer_mismatch(&l, &r, span));
                }
                Ok(mk(
                    ExprKind::PtrDiff {
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    Type::Scalar(Scalar::Long),
                    false,
                    span,
                ))
            }
            B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge => {
                let Some(bop) = crate::expr::bin_op(op) else {
                    return Ok(error_expr(span));
                };
                let (l, r) = match self.common_pointer(l, r, span) {
                    Ok(pair) => pair,
                    Err(e) => return Ok(e),
                };
                if !matches!(op, B::Eq | B::Ne) && matches!(l.ty, Type::Null) {
                    self.ck.error(
                        codes::E0210,
                        span,
                        "`nullptr` has no order",
                        "ordered comparison with `nullptr`",
                        "compare with `==` or `!=`",
                    );
                    return Ok(error_expr(span));
                }
                Ok(mk(
                    ExprKind::Binary {
                        op: bop,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    Type::BOOL,
                    false,
                    span,
                ))
            }
            _ => {
                if l.ty.is_error() || r.ty.is_error() {
                    return Ok(error_expr(span));
                }
                let (a, b) = (self.ck.show(&l.ty), self.ck.show(&r.ty));
                self.ck.error(
                    codes::E0210,
                    span,
                    format!("no operator `{}` for `{a}` and `{b}`", op.symbol()),
                    "invalid operands",
                    "pointers take `+`/`-` with an integer, `-` with another pointer, and comparisons",
                );
                Ok(error_expr(span))
            }
        }
    }

    fn pointer_mismatch(&mut self, l: &Expr, r: &Expr, span: Span) -> Expr {
        if l.ty.is_error() || r.ty.is_error() {
            return error_expr(span);
        }
        let (a, b) = (self.ck.show(&l.ty), self.ck.show(&r.ty));
        self.ck.report(
            Diagnostic::error(
                codes::E0203,
                span,
                format!("pointers of different types: `{a}` and `{b}`"),
            )
            .with_label("mismatched pointers")
            .with_msvc("C2446"),
        );
        error_expr(span)
    }

    /// Two pointer operands brought to one type (`nullptr` and `T*` to
    /// `T*`, `T*` and `const T*` to `const T*`).
    fn common_pointer(&mut self, l: Expr, r: Expr, span: Span) -> Result<(Expr, Expr), Expr> {
        match (&l.ty, &r.ty) {
            (a, b) if a == b => Ok((l, r)),
            (Type::Null, Type::Ptr { .. }) => {
                let ty = r.ty.clone();
                Ok((Expr { ty, ..l }, r))
            }
            (Type::Ptr { .. }, Type::Null) => {
                let ty = l.ty.clone();
                Ok((l, Expr { ty, ..r }))
            }
            (Type::Ptr { elem: a, .. }, Type::Ptr { elem: b, .. }) if a == b => {
                let ty = ptr_to((**a).clone(), true);
                let l = self.coerce(l, &ty, "an operand");
                let r = self.coerce(r, &ty, "an operand");
                Ok((l, r))
            }
            (Type::Ptr { .. } | Type::Null, Type::Scalar(_))
                if matches!(r.kind, ExprKind::Const(Const::Int(0))) =>
            {
                // The literal `0` is a null pointer constant.
                let ty = if matches!(l.ty, Type::Null) {
                    Type::Null
                } else {
                    l.ty.clone()
                };
                let rspan = r.span;
                Ok((l, mk(ExprKind::Null, ty, false, rspan)))
            }
            _ => Err(self.pointer_mismatch(&l, &r, span)),
        }
    }

    /// `p += n`, `p -= n`.
    pub(crate) fn pointer_compound(
        &mut self,
        op: B,
        target: Expr,
        value: Expr,
        span: Span,
    ) -> Expr {
        let integral = value.ty.scalar().is_some_and(|s| s.is_integral());
        if !matches!(op, B::Add | B::Sub) || !integral {
            if !value.ty.is_error() {
                let (a, b) = (self.ck.show(&target.ty), self.ck.show(&value.ty));
                self.ck.error(
                    codes::E0210,
                    span,
                    format!("no operator `{}=` for `{a}` and `{b}`", op.symbol()),
                    "invalid operands",
                    "a pointer takes `+=` and `-=` with an integer",
                );
            }
            return error_expr(span);
        }
        if self.in_amp()
            && let Type::Ptr { elem, .. } = &target.ty
            && **elem == Type::BOOL
        {
            self.amp_pointer_error(span, "arithmetic on a `bool*`", "C3599");
            return error_expr(span);
        }
        self.check_writable(&target, "assigned");
        let value = self.convert_scalar(value, Scalar::Long);
        let ty = target.ty.clone();
        let bop = if op == B::Add { BinOp::Add } else { BinOp::Sub };
        mk(
            ExprKind::CompoundAssign {
                op: bop,
                target: Box::new(target),
                value: Box::new(value),
            },
            ty,
            true,
            span,
        )
    }

    /// The implicit conversions to and from pointers; `Err` gives `e` back
    /// when none applies.
    /// `ptr` (a pointer to a class) converted to `to`, a pointer to the
    /// base reached through the base fields `path`: the address of the
    /// base subobject, or null for null. A pointer with side effects is
    /// evaluated once, into a hidden local.
    fn base_pointer(&mut self, ptr: Expr, path: &[u32], to: &Type) -> Expr {
        let span = ptr.span;
        let (setup, ptr) = self.evaluated_once(ptr);
        let test = mk(
            ExprKind::Convert(Box::new(ptr.clone())),
            Type::BOOL,
            false,
            span,
        );
        let object = self.deref(ptr, span);
        let base = self.upcast(object, path);
        let address = mk(ExprKind::AddrOf(Box::new(base)), to.clone(), false, span);
        let null = mk(ExprKind::Null, to.clone(), false, span);
        let chosen = mk(
            ExprKind::Conditional {
                cond: Box::new(test),
                then: Box::new(address),
                els: Box::new(null),
            },
            to.clone(),
            false,
            span,
        );
        Self::after(setup, chosen)
    }

    /// `second` after `first`, when there is a `first`.
    fn after(first: Option<Expr>, second: Expr) -> Expr {
        match first {
            None => second,
            Some(first) => {
                let (ty, span) = (second.ty.clone(), second.span);
                mk(
                    ExprKind::Comma {
                        first: Box::new(first),
                        second: Box::new(second),
                    },
                    ty,
                    false,
                    span,
                )
            }
        }
    }

    /// A pointer expression to use several times: itself when evaluating it
    /// has no effect, else a hidden local and the assignment that fills it.
    pub(crate) fn evaluated_once(&mut self, ptr: Expr) -> (Option<Expr>, Expr) {
        let span = ptr.span;
        if crate::library::is_pure(&ptr) && !matches!(ptr.kind, ExprKind::New { .. }) {
            (None, ptr)
        } else {
            let space = self.local_space();
            let local = self.declare(tessera_ir::Local {
                name: String::new(),
                ty: ptr.ty.clone(),
                by_ref: false,
                is_const: false,
                space,
                span,
            });
            let target = self.local_expr(local, span);
            let ty = ptr.ty.clone();
            let assign = mk(
                ExprKind::Assign {
                    target: Box::new(target.clone()),
                    value: Box::new(ptr),
                },
                ty,
                true,
                span,
            );
            (Some(assign), target)
        }
    }

    /// `delete p` of a pointer to an object whose destructor runs code:
    /// the destructor (the dynamic class's, when it is virtual), then the
    /// memory; nothing for null.
    fn delete_object(&mut self, ptr: Expr, class: StructId, span: Span) -> Expr {
        let (setup, ptr) = self.evaluated_once(ptr);
        let free = mk(
            ExprKind::Delete {
                ptr: Box::new(ptr.clone()),
                array: false,
            },
            Type::Void,
            false,
            span,
        );
        let object = self.deref(ptr.clone(), span);
        let Some(call) = self.destroy_call(object, span) else {
            return Self::after(setup, free);
        };
        let is_virtual = |f: FuncId| {
            self.ck
                .program
                .dynamic
                .get(&class)
                .is_some_and(|d| d.overriders.contains_key(&f))
        };
        let call = match call.kind {
            ExprKind::Call { func, args } if is_virtual(func) => Expr {
                kind: ExprKind::VirtualCall { func, args },
                ..call
            },
            kind => Expr { kind, ..call },
        };
        let destroy_then_free = mk(
            ExprKind::Comma {
                first: Box::new(call),
                second: Box::new(free.clone()),
            },
            Type::Void,
            false,
            span,
        );
        let test = mk(ExprKind::Convert(Box::new(ptr)), Type::BOOL, false, span);
        let chosen = mk(
            ExprKind::Conditional {
                cond: Box::new(test),
                then: Box::new(destroy_then_free),
                els: Box::new(free),
            },
            Type::Void,
            false,
            span,
        );
        Self::after(setup, chosen)
    }

    pub(crate) fn pointer_coerce(&mut self, e: Expr, to: &Type) -> Result<Expr, Expr> {
        let span = e.span;
        let convert =
            |e: Expr, to: &Type| mk(ExprKind::Convert(Box::new(e)), to.clone(), false, span);
        // `Base* p = &derived;`: a pointer to the base subobject (null
        // stays null).
        if let (
            Type::Ptr {
                elem: a,
                is_const: from_const,
            },
            Type::Ptr {
                elem: b,
                is_const: to_const,
            },
        ) = (&e.ty, to)
            && let (Type::Struct(src), Type::Struct(dst)) = (a.as_ref(), b.as_ref())
            && src != dst
            && (*to_const || !from_const)
            && self.ck.derives_from(*src, *dst)
            && let Some(path) = self.base_path(*src, *dst)
        {
            return Ok(self.base_pointer(e, &path, to));
        }
        match (&e.ty, to) {
            (Type::Null, Type::Ptr { .. }) => Ok(Expr {
                ty: to.clone(),
                place: false,
                ..e
            }),
            (Type::Scalar(s), Type::Ptr { .. })
                if s.is_integral() && matches!(e.kind, ExprKind::Const(Const::Int(0))) =>
            {
                Ok(mk(ExprKind::Null, to.clone(), false, span))
            }
            (
                Type::Ptr { elem: a, is_const },
                Type::Ptr {
                    elem: b,
                    is_const: true,
                },
            ) if a == b && !is_const => Ok(convert(e, to)),
            (Type::CArray(a, _), Type::Ptr { elem: b, is_const }) if a == b && e.place => {
                let read_only = self.read_only_reason(&e).is_some();
                if read_only && !is_const {
                    return Err(e);
                }
                Ok(convert(e, to))
            }
            (
                Type::Str,
                Type::Ptr {
                    elem,
                    is_const: true,
                },
            ) if **elem == Type::Scalar(Scalar::Char) => Ok(convert(e, to)),
            (Type::Ptr { .. } | Type::Null | Type::FnPtr(_), Type::Scalar(Scalar::Bool)) => {
                Ok(convert(e, to))
            }
            _ => Err(e),
        }
    }

    /// `new T`, `new T(v)`, `new T[n]` (host code; amp code has no heap).
    pub(crate) fn new_expr(
        &mut self,
        ty: &ast::TypeName,
        args: Option<&[ast::Expr]>,
        count: Option<&ast::Expr>,
        span: Span,
    ) -> Expr {
        if self.in_amp() {
            self.forbidden(span, "`new`", "C3930");
            return error_expr(span);
        }
        let declared = self.resolve(&ty.specs, &ty.modifiers, &[]);
        let elem = declared.ty;
        if elem.is_error() {
            return error_expr(span);
        }
        if elem == Type::Void || declared.by_ref {
            self.ck
                .error(codes::E0210, span, "`new` needs an object type", "here", "");
            return error_expr(span);
        }
        if !matches!(
            elem,
            Type::Scalar(_) | Type::Struct(_) | Type::Ptr { .. } | Type::CArray(..)
        ) {
            let shown = self.ck.show(&elem);
            self.ck.error(
                codes::E0211,
                span,
                format!("`new` of `{shown}` is not part of the Tessera language"),
                "here",
                "allocate scalars, structs and pointers with `new`; use a local for library types",
            );
            return error_expr(span);
        }
        let count = count.map(|c| {
            let n = self.expr(c);
            Box::new(self.integral_index(n))
        });
        // `new C(args)` direct-initialises: any constructor of `C` fits,
        // `explicit` ones included, and several arguments are fine.
        if let (Type::Struct(id), None, Some(args)) = (&elem, count.as_ref(), args) {
            let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
            if lowered.iter().any(|a| a.ty.is_error()) {
                return error_expr(span);
            }
            // A prvalue of the class itself (`new P{1, 2}`, `new P(make())`)
            // is the object: C++17 copies nothing.
            let built = match <[Expr; 1]>::try_from(lowered) {
                Ok([one]) if one.ty == elem && !one.place => Some(one),
                Ok([one]) => self.construct_object(*id, vec![one], false, span),
                Err(lowered) => self.construct_object(*id, lowered, false, span),
            };
            if let Some(built) = built {
                if built.ty.is_error() {
                    return error_expr(span);
                }
                let ty = ptr_to(elem, self.ck.specs_const(&ty.specs));
                return mk(
                    ExprKind::New {
                        count: None,
                        value: Some(Box::new(built)),
                    },
                    ty,
                    false,
                    span,
                );
            }
        }
        let value = match args {
            Some([]) | None => None,
            Some([one]) => {
                let v = self.expr(one);
                Some(Box::new(self.coerce(v, &elem, "the initial value")))
            }
            Some(_) => {
                self.ck.error(
                    codes::E0211,
                    span,
                    "`new` with several constructor arguments is not part of the Tessera language",
                    "here",
                    "allocate, then assign the members",
                );
                return error_expr(span);
            }
        };
        let ty = ptr_to(elem, self.ck.specs_const(&ty.specs));
        mk(ExprKind::New { count, value }, ty, false, span)
    }

    /// `delete p`, `delete[] p`.
    pub(crate) fn delete_expr(&mut self, operand: &ast::Expr, array: bool, span: Span) -> Expr {
        if self.in_amp() {
            self.forbidden(span, "`delete`", "C3930");
            return error_expr(span);
        }
        let ptr = self.expr(operand);
        if !array
            && let Type::Ptr { elem, .. } = &ptr.ty
            && let Type::Struct(class) = elem.as_ref()
            && self.ck.dtor_runs_code(*class)
        {
            let class = *class;
            return self.delete_object(ptr, class, span);
        }
        match &ptr.ty {
            Type::Ptr { .. } | Type::Null => mk(
                ExprKind::Delete {
                    ptr: Box::new(ptr),
                    array,
                },
                Type::Void,
                false,
                span,
            ),
            Type::Error => error_expr(span),
            other => {
                let shown = self.ck.show(other);
                self.ck.error(
                    codes::E0210,
                    span,
                    format!("`delete` needs a pointer, not `{shown}`"),
                    "not a pointer",
                    "",
                );
                error_expr(span)
            }
        }
    }

    /// `(T*)e` and `static_cast<T*>(e)` where no implicit conversion
    /// applies and no reinterpretation either (`pointer_reinterpret` takes
    /// C-style casts between pointer types): casts between pointers and
    /// integers, which Tessera's checked pointers (an allocation and an
    /// offset, no address) cannot follow, and `static_cast` between
    /// unrelated pointer types, which C++ refuses too.
    pub(crate) fn pointer_cast_refused(&mut self, from: &Type, to: &Type, span: Span) -> bool {
        let from_ptr = matches!(from, Type::Ptr { .. } | Type::Null);
        let to_ptr = matches!(to, Type::Ptr { .. });
        if !(from_ptr || to_ptr) || from.is_error() || to.is_error() {
            return false;
        }
        if self.in_amp() {
            let msvc = if from_ptr && to_ptr { "C3581" } else { "C3588" };
            let what = if from_ptr && to_ptr {
                "a `static_cast` between unrelated pointer types"
            } else {
                "a cast between a pointer and an integer"
            };
            self.amp_pointer_error(span, what, msvc);
        } else {
            let (a, b) = (self.ck.show(from), self.ck.show(to));
            self.ck.error(
                codes::E0211,
                span,
                format!("a cast from `{a}` to `{b}` is not part of the Tessera language"),
                if from_ptr && to_ptr {
                    "not a reinterpretation"
                } else {
                    "a pointer has no integer address"
                },
                if from_ptr && to_ptr {
                    "write a C-style cast or `reinterpret_cast` to read the same bytes as another type"
                } else {
                    "Tessera's pointers are checked: keep the pointer, or an index, instead of its address"
                },
            );
        }
        true
    }

    /// `reinterpret_cast<T>(e)`: between pointer types only (host and amp
    /// code); a pointer and an integer stay apart (C3588 in amp code).
    pub(crate) fn reinterpret_cast(
        &mut self,
        e: Expr,
        ty: &Type,
        by_ref: bool,
        span: Span,
    ) -> Expr {
        if e.ty.is_error() || ty.is_error() {
            return error_expr(span);
        }
        let e = self.pointer_operand(e);
        let from_ptr = matches!(e.ty, Type::Ptr { .. } | Type::Null);
        let to_ptr = matches!(ty, Type::Ptr { .. });
        if from_ptr && to_ptr && !by_ref {
            return self.pointer_reinterpret(e, ty, true, span);
        }
        if self.in_amp() && (from_ptr || to_ptr) {
            self.amp_pointer_error(
                span,
                "`reinterpret_cast` between a pointer and an integer",
                "C3588",
            );
        } else {
            let (a, b) = (self.ck.show(&e.ty), self.ck.show(ty));
            let b = if by_ref { format!("{b}&") } else { b };
            self.ck.error(
                codes::E0211,
                span,
                format!("`reinterpret_cast` from `{a}` to `{b}` is not part of the Tessera language"),
                "not supported",
                "Tessera reinterprets pointers only: `reinterpret_cast<float*>(p)`; use `static_cast` for numbers",
            );
        }
        error_expr(span)
    }

    /// A cast between pointer types that no implicit conversion covers
    /// (`reinterpret_cast<U*>(p)`, or `(U*)p`): a pointer to the same bytes
    /// read as `U`. Casting away `const` is refused (`reinterpret_cast`
    /// cannot; a C-style cast could, which Tessera does not follow).
    pub(crate) fn pointer_reinterpret(
        &mut self,
        e: Expr,
        to: &Type,
        explicit: bool,
        span: Span,
    ) -> Expr {
        let (
            Type::Ptr { .. } | Type::Null,
            Type::Ptr {
                elem: b,
                is_const: to_const,
            },
        ) = (&e.ty, to)
        else {
            return error_expr(span);
        };
        let (b, to_const) = ((**b).clone(), *to_const);
        if let Type::Ptr { is_const: true, .. } = &e.ty
            && !to_const
        {
            let (x, y) = (self.ck.show(&e.ty), self.ck.show(to));
            if explicit {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0203,
                        span,
                        format!("mismatched types: `reinterpret_cast` cannot cast `{x}` to `{y}`: it casts away `const`"),
                    )
                    .with_msvc("C2440")
                    .with_label("drops `const`")
                    .with_help("keep the `const`: cast to a pointer to `const`"),
                );
            } else {
                self.ck.error(
                    codes::E0211,
                    span,
                    format!("a cast from `{x}` to `{y}` casts away `const`, which is not part of the Tessera language"),
                    "drops `const`",
                    "keep the `const`: cast to a pointer to `const`",
                );
            }
            return error_expr(span);
        }
        let e = match self.pointer_coerce(e, to) {
            Ok(mut out) => {
                out.span = span;
                return out;
            }
            Err(e) if e.ty == *to => {
                return Expr {
                    span,
                    place: false,
                    ..e
                };
            }
            Err(e) => e,
        };
        let a = e.ty.pointee().cloned().unwrap_or(Type::Void);
        let structs = &self.ck.program.structs;
        let plain = |t: &Type| tessera_ir::layout::scalar_leaves(structs, t).is_some();
        if !plain(&a) || !plain(&b) {
            let (x, y) = (self.ck.show(&e.ty), self.ck.show(to));
            self.ck.error(
                codes::E0211,
                span,
                format!("a cast from `{x}` to `{y}` is not part of the Tessera language"),
                "not supported",
                "pointers are reinterpreted only between scalars and structs or arrays of scalars (no unions)",
            );
            return error_expr(span);
        }
        mk(
            ExprKind::Intrinsic {
                op: tessera_ir::Intrinsic::PtrReinterpret,
                args: vec![e],
            },
            to.clone(),
            false,
            span,
        )
    }
}
