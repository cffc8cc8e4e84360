//! Expressions: typing and lowering, with the rules that concern a single
//! expression (restriction contexts of calls, captures, const-correctness).

use crate::convert::{common, promote};
use crate::cx::{FnCx, error_expr};
use crate::library;
use crate::literal;
use crate::types::Declared;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{BinOp, Const, Expr, ExprKind, LocalId, Scalar, Type, UnOp};
use tessera_syntax::ast::{self, BinaryOp as B, ExprKind as K, UnaryOp as U};

pub(crate) fn mk(kind: ExprKind, ty: Type, place: bool, span: Span) -> Expr {
    Expr {
        kind,
        ty,
        place,
        span,
    }
}

/// The typed-program operator for an arithmetic or comparison operator.
pub fn bin_op(op: B) -> Option<BinOp> {
    Some(match op {
        B::Add => BinOp::Add,
        B::Sub => BinOp::Sub,
        B::Mul => BinOp::Mul,
        B::Div => BinOp::Div,
        B::Rem => BinOp::Rem,
        B::Shl => BinOp::Shl,
        B::Shr => BinOp::Shr,
        B::BitAnd => BinOp::BitAnd,
        B::BitOr => BinOp::BitOr,
        B::BitXor => BinOp::BitXor,
        B::Eq => BinOp::Eq,
        B::Ne => BinOp::Ne,
        B::Lt => BinOp::Lt,
        B::Le => BinOp::Le,
        B::Gt => BinOp::Gt,
        B::Ge => BinOp::Ge,
        B::And | B::Or | B::Comma | B::MemberPointer | B::MemberPointerArrow => return None,
    })
}

impl FnCx<'_> {
    /// Lowers an expression.
    pub fn expr(&mut self, e: &ast::Expr) -> Expr {
        let target = self.fn_target.take();
        if let Some(found) = self.function_designator(e, target.as_ref()) {
            return found;
        }
        let lowered = self.expr_kind(e);
        if !self.ck.enums.is_empty() {
            self.enum_rules(e, &lowered);
        }
        lowered
    }

    fn expr_kind(&mut self, e: &ast::Expr) -> Expr {
        let span = e.span;
        if let Some(folded) = self.typeid_form(e) {
            return folded;
        }
        match &e.kind {
            K::Int(text) => match literal::parse_int(text) {
                Some((v, s)) if self.in_amp() && !literal::fits_32_bits(v, s) => {
                    self.ck.report(
                        Diagnostic::error(codes::E0215, span, format!("integer constant `{text}` does not fit in 32 bits"))
                            .with_label("too large for amp code")
                            .with_note("amp code computes with 32-bit integers; MSVC reports this as C3595")
                    .standing_for("C3595")
                            .with_help("use a value that fits `int` or `unsigned int`, or compute in `float`/`double`"),
                    );
                    mk(ExprKind::Const(Const::Int(v)), Type::Scalar(s), false, span)
                }
                Some((v, s)) => mk(ExprKind::Const(Const::Int(v)), Type::Scalar(s), false, span),
                None => {
                    self.ck.error(
                        codes::E0215,
                        span,
                        format!("integer literal `{text}` is too large"),
                        "does not fit in `unsigned long`",
                        "",
                    );
                    error_expr(span)
                }
            },
            K::Float(text) => match literal::parse_float(text) {
                Some((v, s)) if literal::float_too_big(text, v, s) => {
                    self.ck.report(literal::float_too_big_error(text, s, span));
                    error_expr(span)
                }
                Some((v, Scalar::Float)) => mk(
                    ExprKind::Const(Const::Float(v as f32)),
                    Type::FLOAT,
                    false,
                    span,
                ),
                Some((v, _)) => mk(
                    ExprKind::Const(Const::Double(v)),
                    Type::Scalar(Scalar::Double),
                    false,
                    span,
                ),
                None => {
                    self.ck.error(
                        codes::E0211,
                        span,
                        "`long double` is not part of the Tessera language",
                        "`L` suffix",
                        "drop the suffix for a `double`",
                    );
                    error_expr(span)
                }
            },
            K::Char(text) if text.starts_with('L') => match literal::parse_wide_char(text) {
                Some(c) => mk(
                    ExprKind::Const(Const::Int(i64::from(c))),
                    Type::Scalar(Scalar::WChar),
                    false,
                    span,
                ),
                None => {
                    self.ck.error(
                        codes::E0211,
                        span,
                        "a wide character literal of several characters is not supported",
                        "here",
                        "write one character: `L'x'`",
                    );
                    error_expr(span)
                }
            },
            K::Char(text) => match literal::parse_char(text) {
                Some(c) => mk(
                    ExprKind::Const(Const::Int(i64::from(c))),
                    Type::Scalar(Scalar::Char),
                    false,
                    span,
                ),
                None => {
                    self.ck.error(
                        codes::E0211,
                        span,
                        "multi-character and wide character literals are not supported",
                        "here",
                        "",
                    );
                    error_expr(span)
                }
            },
            K::Str(_) => {
                if self.in_amp() {
                    self.ck.report(
                        Diagnostic::error(
                            codes::E0304,
                            span,
                            "string literals cannot be used in amp code",
                        )
                        .with_label("string literal")
                        .with_msvc("C3589"),
                    );
                    return error_expr(span);
                }
                let K::Str(parts) = &e.kind else {
                    return error_expr(span);
                };
                let text: Vec<u8> = parts
                    .iter()
                    .filter_map(|p| literal::parse_str(p))
                    .flatten()
                    .collect();
                let wide = parts.iter().any(|p| p.starts_with('L'));
                let ty = if wide { Type::WideStr } else { Type::Str };
                mk(ExprKind::Str(text), ty, false, span)
            }
            K::Bool(b) => mk(ExprKind::Const(Const::Bool(*b)), Type::BOOL, false, span),
            K::This if self.this.as_ref().is_some_and(|t| t.object.is_some()) => {
                self.this_pointer(span).unwrap_or_else(|| error_expr(span))
            }
            K::Nullptr => self.null_pointer(span),
            K::This => {
                self.ck.error(
                    codes::E0306,
                    span,
                    "pointers are not part of the Tessera language",
                    "pointer",
                    "use references or indices",
                );
                error_expr(span)
            }
            K::Name(path) => self.name(path),
            K::Unary { op, operand } => self.unary(*op, operand, span),
            K::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, span),
            K::Assign { op, lhs, rhs } => self.assign(*op, lhs, rhs, span),
            K::Conditional { cond, then, els } => self.conditional(cond, then, els, span),
            K::Cast { kind, ty, operand } => self.cast(*kind, ty, operand, span),
            K::Construct { ty, args, braces } => self.construct(ty, args, *braces, span),
            K::Call { callee, args } => self.call(callee, args, span),
            K::Index { base, index } => {
                let base = self.expr(base);
                let index = self.expr(index);
                match &base.ty {
                    Type::CArray(elem, _) => {
                        let elem = (**elem).clone();
                        let index = self.integral_index(index);
                        let place = base.place;
                        mk(
                            ExprKind::Element {
                                base: Box::new(base),
                                index: Box::new(index),
                            },
                            elem,
                            place,
                            span,
                        )
                    }
                    Type::Error => error_expr(span),
                    Type::Ptr { .. } => self.pointer_index(base, index, span),
                    Type::Struct(_) => self.class_operator("[]", vec![base, index], span),
                    _ => library::subscript(self, base, index, span),
                }
            }
            K::Member {
                base,
                name,
                arrow,
                template_args,
            } => {
                if *arrow
                    && matches!(base.kind, K::This)
                    && let Some(object) = self.this_object(base.span)
                {
                    return self.member(object, name, template_args.as_deref(), span);
                }
                let base = self.expr(base);
                if *arrow {
                    let object = self.arrow_object(base, span);
                    if object.ty.is_error() {
                        return error_expr(span);
                    }
                    return self.member(object, name, template_args.as_deref(), span);
                }
                self.member(base, name, template_args.as_deref(), span)
            }
            K::Lambda(lambda) => self.lambda_value(lambda, span),
            K::TypeMember {
                ty: _,
                member,
                template_args: Some(_),
            } => {
                // `C<int>::f<2>` not called: a function named as a value.
                self.ck.error(
                    codes::E0211,
                    member.span,
                    format!(
                        "a member function template named without a call (`{}<...>`) is not supported yet",
                        member.name
                    ),
                    "not called",
                    "call it, or wrap the call in a lambda",
                );
                error_expr(span)
            }
            K::TypeMember {
                ty,
                member,
                template_args: None,
            } => {
                if let Some(c) = self.type_constant(ty, member) {
                    return match c {
                        crate::traits::TypeConstant::Value(v, ty) => {
                            let value = if ty == Type::BOOL {
                                Const::Bool(v != 0)
                            } else {
                                Const::Int(v)
                            };
                            mk(ExprKind::Const(value), ty, false, span)
                        }
                        crate::traits::TypeConstant::Failed => error_expr(span),
                    };
                }
                let d = self.resolve(&ty.specs, &ty.modifiers, &[]);
                match d.ty {
                    Type::Struct(id) => match self.static_member(id, &member.name, member.span) {
                        Some(e) => Expr { span, ..e },
                        None => {
                            let shown = self.ck.show(&d.ty);
                            self.ck.error(
                                codes::E0207,
                                member.span,
                                format!("`{shown}` has no static data member `{}`", member.name),
                                "unknown member",
                                "",
                            );
                            error_expr(span)
                        }
                    },
                    Type::Error => error_expr(span),
                    other => {
                        if let Some(e) = library_rank(&other, &member.name, span) {
                            return e;
                        }
                        let shown = self.ck.show(&other);
                        self.ck.error(
                            codes::E0211,
                            span,
                            format!("members of `{shown}` named with `::` are not supported"),
                            "here",
                            "",
                        );
                        error_expr(span)
                    }
                }
            }
            K::InitList(_) => {
                self.ck.error(
                    codes::E0211,
                    span,
                    "a braced list cannot be used here",
                    "braced list",
                    "use it to initialise a variable: `P p = {1, 2};`",
                );
                error_expr(span)
            }
            K::SizeofType(t) => {
                let d = self.resolve(&t.specs, &t.modifiers, &[]);
                self.size_of(&d.ty, span)
            }
            K::SizeofExpr(operand) => {
                // The operand is not evaluated: only its type counts.
                let e = self.expr(operand);
                self.size_of(&e.ty, span)
            }
            K::New { ty, args, count } => {
                self.new_expr(ty, args.as_deref(), count.as_deref(), span)
            }
            K::Delete { operand, array } => self.delete_expr(operand, *array, span),
            K::Throw(value) => {
                if self.in_amp() {
                    self.forbidden(span, "exceptions (`throw`)", "C3594");
                    return error_expr(span);
                }
                let value = value.as_ref().map(|v| {
                    let e = self.expr(v);
                    Box::new(Expr { place: false, ..e })
                });
                mk(ExprKind::Throw(value), Type::Void, false, span)
            }
            // Answered by `typeid_form` above.
            K::TypeidType(_) | K::TypeidExpr(_) => error_expr(span),
            K::Error => error_expr(span),
        }
    }

    /// `sizeof` a type: its size in C++'s layout on the platforms Tessera
    /// runs on (LP64), as a `size_t` (`unsigned long`).
    fn size_of(&mut self, ty: &Type, span: Span) -> Expr {
        if ty.is_error() {
            return error_expr(span);
        }
        if ty.contains_leaf_scalar(&self.ck.program.structs, Scalar::WChar) {
            let shown = self.ck.show(ty);
            self.ck.report(
                Diagnostic::error(
                    codes::E0211,
                    span,
                    format!("`sizeof` of `{shown}` is not supported: the size of `wchar_t` is implementation-defined (2 bytes with MSVC, 4 with g++)"),
                )
                .with_label("implementation-defined size")
                .with_help("count the characters instead (`wcslen`, a `std::wstring`'s `size()`), or use `sizeof` of a type with a fixed size"),
            );
            return error_expr(span);
        }
        let size =
            tessera_ir::layout::sizeof_align_u64(&self.ck.program.structs, ty).map(|(s, _)| s);
        match size.and_then(|s| i64::try_from(s).ok()) {
            Some(n) => mk(
                ExprKind::Const(Const::Int(n)),
                Type::Scalar(Scalar::ULong),
                false,
                span,
            ),
            None => {
                let shown = self.ck.show(ty);
                self.ck.error(
                    codes::E0211,
                    span,
                    format!("`sizeof` of `{shown}` is not supported"),
                    "its size depends on the C++ library",
                    "use `sizeof` on scalars, structs and arrays of them",
                );
                error_expr(span)
            }
        }
    }

    /// A class object converted to the scalar its (non-explicit) conversion
    /// function gives, for a built-in operator; anything else unchanged.
    fn scalar_through_conversion(&mut self, e: Expr) -> Expr {
        let Type::Struct(id) = e.ty else { return e };
        let target = self.ck.classes.get(&id).and_then(|c| {
            c.conversions.iter().find_map(|(f, explicit)| {
                (!explicit)
                    .then(|| self.ck.program.get_function(*f))
                    .flatten()
                    .and_then(|f| matches!(f.ret, Type::Scalar(_)).then(|| f.ret.clone()))
            })
        });
        match target {
            Some(t) => match self.user_conversion(e, &t, false) {
                Ok(done) | Err(done) => done,
            },
            None => e,
        }
    }

    /// `a @ b` on a class object: its `operator@`, or an error naming the
    /// operands when the class has none.
    pub(crate) fn class_operator(&mut self, symbol: &str, operands: Vec<Expr>, span: Span) -> Expr {
        match self.user_operator(symbol, operands, span) {
            Ok(call) => call,
            Err(operands) => {
                if operands.iter().any(|o| o.ty.is_error()) {
                    return error_expr(span);
                }
                let shown: Vec<String> = operands
                    .iter()
                    .map(|o| format!("`{}`", self.ck.show(&o.ty)))
                    .collect();
                self.ck.error(
                    codes::E0210,
                    span,
                    format!("no `operator{symbol}` for {}", shown.join(" and ")),
                    "invalid operands",
                    format!("declare `operator{symbol}` for the class"),
                );
                error_expr(span)
            }
        }
    }

    /// An index into a C array or vector, as `long`.
    pub fn integral_index(&mut self, index: Expr) -> Expr {
        match index.ty.scalar() {
            Some(s) if s.is_integral() => self.convert_scalar(index, Scalar::Long),
            _ if index.ty.is_error() => index,
            _ => {
                let shown = self.ck.show(&index.ty);
                self.ck.error(
                    codes::E0203,
                    index.span,
                    format!("an index must be an integer, not `{shown}`"),
                    "not an integer",
                    "",
                );
                error_expr(index.span)
            }
        }
    }

    fn name(&mut self, path: &ast::Path) -> Expr {
        let span = path.span;
        if path.segments.len() == 1 {
            let name = path.last();
            if !path.global
                && let Some(id) = self.lookup_local(name)
            {
                return self.local_expr(id, span);
            }
            if !path.global
                && let Some(e) = self.capture(name, span)
            {
                return e;
            }
            if !path.global
                && let Some(e) = self.template_value(name, span)
            {
                return e;
            }
            if !path.global
                && let Some(e) = self.class_member_name(name, span)
            {
                return e;
            }
            if let Some(&gid) = self.ck.globals.get(name) {
                return self.global(gid, span);
            }
        }
        // `Point::count`: a static data member, also through a type
        // parameter (`T::count`); `T::rank` of an index, extent or view type.
        if path.segments.len() == 2 {
            let first = &path.segments[0].name;
            if let Some(class) = self.class_named(first)
                && let Some(e) = self.static_member(class, path.last(), span)
            {
                return e;
            }
            if let Some(ty) = self.ck.alias(first).cloned()
                && let Some(e) = library_rank(&ty, path.last(), span)
            {
                return e;
            }
        }
        if let Some((id, value)) = self.ck.enumerator(path) {
            let scalar = self.ck.enums.get(id).map_or(Scalar::Int, |e| e.underlying);
            return mk(
                ExprKind::Const(Const::Int(value)),
                Type::Scalar(scalar),
                false,
                span,
            );
        }
        if let Some(e) = library::name(self, path) {
            return e;
        }
        // A function named as a value: one function, not overloaded, is
        // passed as a function object (see `function_object`).
        let named = self
            .ck
            .functions
            .get(&path.text())
            .or_else(|| self.ck.functions.get(path.last()));
        if let Some([only]) = named.map(Vec::as_slice) {
            let only = *only;
            return self.function_object(crate::lambda::Callee::Function(only), span);
        }
        if path.last() == "rand"
            && path.segments.len() <= 2
            && path
                .segments
                .first()
                .is_none_or(|s| s.name == "std" || path.segments.len() == 1)
        {
            return self.function_object(crate::lambda::Callee::Rand, span);
        }
        if self.ck.functions.contains_key(path.last()) {
            self.ck.error(
                codes::E0208,
                span,
                format!("`{}` is a function; call it", path.text()),
                "function used as a value",
                "add the arguments: `f(x)`",
            );
            return error_expr(span);
        }
        self.ck.error(
            codes::E0200,
            span,
            format!("cannot find `{}` in this scope", path.text()),
            "not declared",
            "declare it before this use",
        );
        error_expr(span)
    }

    pub(crate) fn local_expr(&self, id: LocalId, span: Span) -> Expr {
        let ty = self.local(id).map_or(Type::Error, |l| l.ty.clone());
        mk(ExprKind::Local(id), ty, true, span)
    }

    pub(crate) fn global(&mut self, gid: tessera_ir::GlobalId, span: Span) -> Expr {
        let Some(g) = self.ck.program.get_global(gid) else {
            return error_expr(span);
        };
        let (ty, is_const, decl_span, name) = (g.ty.clone(), g.is_const, g.span, g.name.clone());
        if self.in_amp() {
            // A constant integral global may be read as its value (C++ AMP
            // 2.4.3.2), but not used as an object (`&flag`).
            if let Some(v) = self.ck.global_consts.get(&gid)
                && !self.taking_address
            {
                return mk(ExprKind::Const(Const::Int(*v)), ty, false, span);
            }
            self.ck.report(
                Diagnostic::error(codes::E0305, span, format!("global variable `{name}` cannot be used in amp code"))
                    .with_label("used in a kernel")
                    .with_secondary(decl_span, "declared at namespace scope here")
                    .with_note("MSVC reports this as C3586; only `const` integers with a constant value may be read")
                    .standing_for("C3586")
                    .with_help("pass the value in: capture a local copy, or make it a `const int`"),
            );
            return error_expr(span);
        }
        let _ = is_const;
        mk(ExprKind::Global(gid), ty, true, span)
    }

    fn unary(&mut self, op: U, operand: &ast::Expr, span: Span) -> Expr {
        match op {
            U::PreInc | U::PreDec | U::PostInc | U::PostDec => {
                let target = self.expr(operand);
                if let Type::Struct(_) = target.ty {
                    let symbol = if matches!(op, U::PreInc | U::PostInc) {
                        "++"
                    } else {
                        "--"
                    };
                    let mut operands = vec![target];
                    if matches!(op, U::PostInc | U::PostDec) {
                        // `x++` calls `operator++(int)`, with a dummy 0.
                        operands.push(mk(ExprKind::Const(Const::Int(0)), Type::INT, false, span));
                    }
                    return self.class_operator(symbol, operands, span);
                }
                if let Some(e) = library::inc_dec(self, &target, op, span) {
                    return e;
                }
                self.check_writable(&target, "incremented");
                let ty = target.ty.clone();
                if self.in_amp() && matches!(&ty, Type::Ptr { elem, .. } if **elem == Type::BOOL) {
                    self.ck.report(
                        Diagnostic::error(
                            codes::E0306,
                            span,
                            "arithmetic on a `bool*` is not allowed in amp code",
                        )
                        .with_label("not allowed in `restrict(amp)` code")
                        .with_msvc("C3599"),
                    );
                    return error_expr(span);
                }
                let pointer = matches!(&ty, Type::Ptr { elem, .. } if **elem != Type::Void);
                if !matches!(ty, Type::Scalar(s) if s != Scalar::Bool) && !pointer && !ty.is_error()
                {
                    let shown = self.ck.show(&ty);
                    self.ck.error(
                        codes::E0210,
                        span,
                        format!("`++`/`--` needs a number, not `{shown}`"),
                        "here",
                        "",
                    );
                    return error_expr(span);
                }
                let prefix = matches!(op, U::PreInc | U::PreDec);
                let increment = matches!(op, U::PreInc | U::PostInc);
                mk(
                    ExprKind::IncDec {
                        increment,
                        prefix,
                        target: Box::new(target),
                    },
                    ty,
                    prefix,
                    span,
                )
            }
            U::Deref if matches!(operand.kind, K::This) && self.this_object(span).is_some() => {
                self.this_object(span).unwrap_or_else(|| error_expr(span))
            }
            U::Deref => {
                let inner = self.expr(operand);
                if matches!(inner.ty, Type::Iterator(_) | Type::Iter(_)) {
                    return library::deref(self, inner, span);
                }
                if let Type::Struct(_) = inner.ty {
                    return self.class_operator("*", vec![inner], span);
                }
                self.deref(inner, span)
            }
            U::AddrOf => {
                // Only a name itself is the object: `&a[flag]` reads `flag`.
                self.taking_address = matches!(operand.kind, K::Name(_));
                let inner = self.expr(operand);
                self.taking_address = false;
                self.address_of(inner, span)
            }
            U::Not => {
                let e = self.expr(operand);
                let e = if let Type::Struct(_) = e.ty {
                    match self.user_operator("!", vec![e], span) {
                        Ok(call) => return call,
                        // `!x` of a class with a conversion to `bool`.
                        Err(mut operands) => match operands.pop() {
                            Some(e) => e,
                            None => return error_expr(span),
                        },
                    }
                } else {
                    e
                };
                let e = self.condition(e);
                mk(
                    ExprKind::Unary {
                        op: UnOp::Not,
                        operand: Box::new(e),
                    },
                    Type::BOOL,
                    false,
                    span,
                )
            }
            U::Neg | U::Plus | U::BitNot => {
                let e = self.expr(operand);
                let e = if let Type::Struct(_) = e.ty {
                    let symbol = match op {
                        U::Neg => "-",
                        U::Plus => "+",
                        _ => "~",
                    };
                    // No `operator@` that takes the operand: C++'s built-in
                    // one, through its conversion to a number (`-u` of a
                    // `unorm` is a `float`).
                    let e = match self.user_operator(symbol, vec![e], span) {
                        Ok(call) => return call,
                        Err(mut operands) => match operands.pop() {
                            Some(e) => self.scalar_through_conversion(e),
                            None => return error_expr(span),
                        },
                    };
                    if let Type::Struct(_) = e.ty {
                        return self.class_operator(symbol, vec![e], span);
                    }
                    e
                } else {
                    e
                };
                if let Some(out) = library::unary(self, &e, op, span) {
                    return out;
                }
                let Some(s) = e.ty.scalar() else {
                    if !e.ty.is_error() {
                        let shown = self.ck.show(&e.ty);
                        self.ck.error(
                            codes::E0210,
                            span,
                            format!("invalid operand of type `{shown}`"),
                            "here",
                            "",
                        );
                    }
                    return error_expr(span);
                };
                if op == U::BitNot && s.is_floating() {
                    self.ck.error(
                        codes::E0210,
                        span,
                        "`~` needs an integer",
                        "floating-point operand",
                        "",
                    );
                    return error_expr(span);
                }
                let t = promote(s);
                let e = self.convert_scalar(e, t);
                match op {
                    U::Plus => Expr { place: false, ..e },
                    U::Neg => mk(
                        ExprKind::Unary {
                            op: UnOp::Neg,
                            operand: Box::new(e),
                        },
                        Type::Scalar(t),
                        false,
                        span,
                    ),
                    _ => mk(
                        ExprKind::Unary {
                            op: UnOp::BitNot,
                            operand: Box::new(e),
                        },
                        Type::Scalar(t),
                        false,
                        span,
                    ),
                }
            }
        }
    }

    /// Arithmetic on two scalars with the usual arithmetic conversions.
    pub fn arith(&mut self, op: B, lhs: Expr, rhs: Expr, span: Span) -> Expr {
        let (Some(a), Some(b)) = (lhs.ty.scalar(), rhs.ty.scalar()) else {
            if !lhs.ty.is_error() && !rhs.ty.is_error() {
                let (l, r) = (self.ck.show(&lhs.ty), self.ck.show(&rhs.ty));
                self.ck.report(
                    Diagnostic::error(
                        codes::E0210,
                        span,
                        format!("no operator `{}` for `{l}` and `{r}`", op.symbol()),
                    )
                    .with_label("invalid operands")
                    .with_secondary(lhs.span, format!("`{l}`"))
                    .with_secondary(rhs.span, format!("`{r}`")),
                );
            }
            return error_expr(span);
        };
        let Some(bop) = bin_op(op) else {
            return error_expr(span);
        };
        let integral_only = matches!(
            op,
            B::Rem | B::Shl | B::Shr | B::BitAnd | B::BitOr | B::BitXor
        );
        if integral_only && (a.is_floating() || b.is_floating()) {
            self.ck.error(
                codes::E0210,
                span,
                format!("`{}` needs integer operands", op.symbol()),
                "floating-point operand",
                if op == B::Rem {
                    "for a floating-point remainder use `fmod(a, b)`"
                } else {
                    "convert the operands to an integer type first"
                },
            );
            return error_expr(span);
        }
        if matches!(op, B::Shl | B::Shr) {
            let (pa, pb) = (promote(a), promote(b));
            let lhs = self.convert_scalar(lhs, pa);
            let rhs = self.convert_scalar(rhs, pb);
            return mk(
                ExprKind::Binary {
                    op: bop,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                Type::Scalar(pa),
                false,
                span,
            );
        }
        let c = common(a, b);
        let lhs = self.convert_scalar(lhs, c);
        let rhs = self.convert_scalar(rhs, c);
        let ty = if matches!(op, B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge) {
            Type::BOOL
        } else {
            Type::Scalar(c)
        };
        mk(
            ExprKind::Binary {
                op: bop,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty,
            false,
            span,
        )
    }

    fn binary(&mut self, op: B, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> Expr {
        match op {
            B::And | B::Or => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let tasks = library::task::result_of(self.ck, &l.ty).is_some()
                    || library::task::result_of(self.ck, &r.ty).is_some();
                if tasks && (l.ty.is_error() || r.ty.is_error()) {
                    return error_expr(span);
                }
                // PPL's `a && b` of two tasks: done when both are.
                if let (Some(a), Some(b)) = (
                    library::task::result_of(self.ck, &l.ty),
                    library::task::result_of(self.ck, &r.ty),
                ) {
                    if op == B::And && a == Type::Void && b == Type::Void {
                        let ty = r.ty.clone();
                        let both = mk(
                            ExprKind::Comma {
                                first: Box::new(l),
                                second: Box::new(r),
                            },
                            ty,
                            false,
                            span,
                        );
                        return library::task::ready_after(self.ck, both, span);
                    }
                    self.ck.error(
                        codes::E0211,
                        span,
                        format!(
                            "`{}` of two tasks is not supported yet (only `&&` of two `task<void>`s)",
                            op.symbol()
                        ),
                        "not supported",
                        "wait for each task with `get()`",
                    );
                    return error_expr(span);
                }
                // A class operand may have its own `operator&&`, which
                // evaluates both operands.
                let (l, r) = if matches!(l.ty, Type::Struct(_)) || matches!(r.ty, Type::Struct(_)) {
                    match self.user_operator(op.symbol(), vec![l, r], span) {
                        Ok(call) => return call,
                        Err(mut operands) => {
                            let (Some(r), Some(l)) = (operands.pop(), operands.pop()) else {
                                return error_expr(span);
                            };
                            (l, r)
                        }
                    }
                } else {
                    (l, r)
                };
                let l = self.condition(l);
                let r = self.condition(r);
                mk(
                    ExprKind::Logical {
                        and: op == B::And,
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    Type::BOOL,
                    false,
                    span,
                )
            }
            B::MemberPointer | B::MemberPointerArrow => {
                // Only a call applies a pointer to member function (see
                // `call`): the bound function is not a value.
                self.expr(lhs);
                self.expr(rhs);
                self.ck.error(
                    codes::E0208,
                    span,
                    format!("`{}` names a member function: call it", op.symbol()),
                    "a bound member function is not a value",
                    "call it: `(object.*pointer)(args)`",
                );
                error_expr(span)
            }
            B::Comma => {
                let first = self.expr(lhs);
                let second = self.expr(rhs);
                let (ty, place) = (second.ty.clone(), second.place);
                mk(
                    ExprKind::Comma {
                        first: Box::new(first),
                        second: Box::new(second),
                    },
                    ty,
                    place,
                    span,
                )
            }
            _ => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                // `in >> s` reads a `std::string` itself: no `operator>>`
                // of the program's or `<string>`'s is involved.
                if op == B::Shr && matches!(l.ty, Type::StringStream(_)) {
                    return crate::library::sstream::read(self, l, r, span);
                }
                if matches!(op, B::Eq | B::Ne) && crate::fnptr::compares_fn_pointers(&l, &r) {
                    return self.fn_pointer_comparison(op == B::Eq, l, r, span);
                }
                // `os << ext` where the program declares a function template
                // `operator<<` for a library type the stream cannot print
                // itself (`template <int N> ostream& operator<<(ostream&,
                // const extent<N>&)`).
                if op == B::Shl
                    && matches!(l.ty, Type::Ostream | Type::WideOstream)
                    && matches!(r.ty, Type::Index(_) | Type::Extent(_))
                    && self.is_function_template("operator<<")
                {
                    let path = ast::Path {
                        global: false,
                        segments: vec![ast::Ident {
                            name: "operator<<".into(),
                            span,
                        }],
                        span,
                    };
                    let plain = self
                        .ck
                        .functions
                        .get("operator<<")
                        .cloned()
                        .unwrap_or_default();
                    return self.call_templates(&path, &plain, None, vec![l, r], span);
                }
                // A program's `operator<<` may also print an index or an
                // extent, or a wide string on a narrow stream, which the
                // library's streams do not.
                let printed_shape = op == B::Shl
                    && (matches!(l.ty, Type::Ostream | Type::WideOstream)
                        && matches!(r.ty, Type::Index(_) | Type::Extent(_))
                        || l.ty == Type::Ostream && r.ty == Type::WideStr);
                // Two vectors compare through `<vector>`'s operator
                // templates (or a program's own).
                let vectors = matches!(l.ty, Type::Vector(_)) && matches!(r.ty, Type::Vector(_));
                let (l, r) = if matches!(l.ty, Type::Struct(_))
                    || matches!(r.ty, Type::Struct(_))
                    || printed_shape
                    || vectors
                {
                    match self.user_operator(op.symbol(), vec![l, r], span) {
                        Ok(call) => return call,
                        // No `operator@`: C++'s built-in operator, reached
                        // through the operands' conversion functions.
                        Err(mut operands) => {
                            let (Some(r), Some(l)) = (operands.pop(), operands.pop()) else {
                                return error_expr(span);
                            };
                            let l = self.scalar_through_conversion(l);
                            let r = self.scalar_through_conversion(r);
                            if matches!(l.ty, Type::Struct(_)) || matches!(r.ty, Type::Struct(_)) {
                                return self.class_operator(op.symbol(), vec![l, r], span);
                            }
                            (l, r)
                        }
                    }
                } else {
                    (l, r)
                };
                let (l, r) = match self.pointer_binary(op, l, r, span) {
                    Ok(e) => return e,
                    Err(operands) => *operands,
                };
                if let Some(e) = library::binary(self, op, &l, &r, span) {
                    return e;
                }
                self.arith(op, l, r, span)
            }
        }
    }

    /// `a.get_extent()[0] = x`: a component of an index or extent returned
    /// by value is a component of a temporary, which C++ lets a program
    /// assign (the copy is then dropped). The copy becomes a hidden local,
    /// so the component is a place; any other target is returned as it is.
    fn component_of_copy(&mut self, target: Expr) -> Expr {
        let ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::ShapeComponent,
            args,
        } = &target.kind
        else {
            return target;
        };
        let [base, component] = args.as_slice() else {
            return target;
        };
        let returned = matches!(
            &base.kind,
            ExprKind::Call { .. }
                | ExprKind::Intrinsic {
                    op: tessera_ir::Intrinsic::ViewExtent,
                    ..
                }
        );
        if target.place
            || base.place
            || !returned
            || !matches!(base.ty, Type::Index(_) | Type::Extent(_))
        {
            return target;
        }
        let (ty, span) = (base.ty.clone(), base.span);
        let id = self.declare(tessera_ir::Local {
            name: String::new(),
            ty: ty.clone(),
            by_ref: false,
            is_const: false,
            space: self.local_space(),
            span,
        });
        let copy = mk(ExprKind::Local(id), ty.clone(), true, span);
        let store = mk(
            ExprKind::Assign {
                target: Box::new(copy.clone()),
                value: Box::new(base.clone()),
            },
            ty,
            true,
            span,
        );
        let element = mk(
            ExprKind::Intrinsic {
                op: tessera_ir::Intrinsic::ShapeComponent,
                args: vec![copy, component.clone()],
            },
            Type::INT,
            true,
            target.span,
        );
        mk(
            ExprKind::Comma {
                first: Box::new(store),
                second: Box::new(element),
            },
            Type::INT,
            true,
            target.span,
        )
    }

    /// Reports a write to something that cannot be written (E0204, E0205).
    pub fn check_writable(&mut self, target: &Expr, what: &str) {
        if target.ty.is_error() {
            return;
        }
        if !target.place {
            if let Some(property) = library_property(target) {
                // MSVC's library declares these as properties with only a
                // getter (`__declspec(property(get=...))`), and its getter
                // functions return copies the compiler refuses to assign.
                self.ck.report(
                    Diagnostic::error(
                        codes::E0204,
                        target.span,
                        format!("{property} is a read-only property: it cannot be {what}"),
                    )
                    .with_label("read-only: a getter's copy")
                    .with_msvc("C2774")
                    .with_help("make a new object with the value you want instead"),
                );
                return;
            }
            self.ck.error(
                codes::E0204,
                target.span,
                format!("this value cannot be {what}"),
                "not a variable or element",
                "only variables, members and elements can be assigned",
            );
            return;
        }
        if let Some((why, at)) = self.read_only_reason(target) {
            let mut d = Diagnostic::error(
                codes::E0205,
                target.span,
                format!("cannot write here: {why}"),
            )
            .with_label(format!("{what} here"));
            if let Some(at) = at {
                d = d.with_secondary(at, "declared here");
            }
            self.ck.report(d.with_help(
                "write through a non-const variable or an `array_view<T, N>` without `const`",
            ));
        }
    }

    /// Why a place is read-only, and where that was declared.
    pub(crate) fn read_only_reason(&self, place: &Expr) -> Option<(String, Option<Span>)> {
        match &place.kind {
            ExprKind::Local(id) => {
                let l = self.local(*id)?;
                l.is_const
                    .then(|| (format!("`{}` is const", l.name), Some(l.span)))
            }
            ExprKind::Global(id) => {
                let g = self.ck.program.get_global(*id)?;
                g.is_const
                    .then(|| (format!("`{}` is const", g.name), Some(g.span)))
            }
            ExprKind::Capture(slot) => {
                let kernel = self.kernel.as_ref()?;
                let (name, _, by_ref) = kernel.made.get(*slot as usize)?;
                (!by_ref && !kernel.is_mutable).then(|| {
                    (
                        format!("`{name}` is a copy captured by value, and the kernel lambda is not `mutable`"),
                        Some(kernel.capture_span),
                    )
                })
            }
            ExprKind::Field { base, field } => {
                if let Type::Struct(id) = &base.ty
                    && let Some(info) = self.ck.classes.get(id)
                    && info
                        .const_fields
                        .get(*field as usize)
                        .copied()
                        .unwrap_or(false)
                {
                    let name = self
                        .ck
                        .program
                        .get_struct(*id)
                        .and_then(|s| s.fields.get(*field as usize))
                        .map(|f| f.0.clone())
                        .unwrap_or_default();
                    return Some((format!("member `{name}` is const"), None));
                }
                self.read_only_reason(base)
            }
            ExprKind::Element { base, .. } => self.read_only_reason(base),
            ExprKind::Deref(ptr) => match &ptr.ty {
                Type::Ptr { is_const: true, .. } if through_iterator(ptr) => Some((
                    "the element is `const` through this iterator (a `const_iterator`, or a set's)"
                        .into(),
                    None,
                )),
                Type::Ptr { is_const: true, .. } => {
                    Some(("it is reached through a pointer to `const`".into(), None))
                }
                _ => None,
            },
            ExprKind::Intrinsic { args, .. } => match args.first() {
                Some(Expr {
                    ty:
                        Type::ArrayView {
                            read_only: true, ..
                        },
                    ..
                }) => Some(("the view's elements are `const`".into(), None)),
                // Elements of a const vector or array are const too.
                Some(
                    base @ Expr {
                        ty: Type::Vector(_) | Type::Container(..) | Type::Array(..),
                        ..
                    },
                ) => self.read_only_reason(base),
                _ => None,
            },
            _ => None,
        }
    }

    /// `v.xy = w` where `xy` is a property (a short vector's swizzle: see
    /// `Checker::property_accessor`): a call of the setter. `v.xy += w` is `v.xy = v.xy + w`, so the
    /// object is evaluated twice.
    fn property_assign(
        &mut self,
        op: Option<B>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let K::Member {
            base,
            name,
            arrow: false,
            template_args: None,
        } = &lhs.kind
        else {
            return None;
        };
        // Only a class with such a property makes the object worth
        // lowering here.
        if !self
            .ck
            .classes
            .keys()
            .any(|id| self.ck.property_accessor(*id, &name.name, true).is_some())
        {
            return None;
        }
        let object = self.expr(base);
        let Type::Struct(id) = object.ty else {
            return None;
        };
        let setter = self.ck.property_accessor(id, &name.name, true)?;
        let value = match op {
            None => self.expr(rhs),
            Some(op) => {
                let combined = ast::Expr {
                    kind: K::Binary {
                        op,
                        lhs: Box::new(lhs.clone()),
                        rhs: Box::new(rhs.clone()),
                    },
                    span,
                    height: lhs.height.max(rhs.height).saturating_add(1),
                };
                self.expr(&combined)
            }
        };
        let ident = ast::Ident {
            name: setter,
            span: name.span,
        };
        Some(
            self.method_call_with(object, id, &ident, None, vec![value], span)
                .unwrap_or_else(|| error_expr(span)),
        )
    }

    fn assign(&mut self, op: Option<B>, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> Expr {
        if let Some(e) = self.property_assign(op, lhs, rhs, span) {
            return e;
        }
        let target = self.expr(lhs);
        let value = match &rhs.kind {
            K::InitList(items) => {
                let mut ty = target.ty.clone();
                let init = self.aggregate(&mut ty, items, rhs.span);
                self.init_as_expr(init, &ty, rhs.span)
            }
            _ => self.expr_for(rhs, &target.ty),
        };
        if let Type::Struct(id) = target.ty {
            let symbol = format!("{}=", op.map_or("", |o| o.symbol()));
            let declared = self
                .ck
                .find_methods(id, &format!("operator{symbol}"))
                .is_some()
                || self.ck.functions.contains_key(&format!("operator{symbol}"));
            if op.is_some() || declared {
                return self.class_operator(&symbol, vec![target, value], span);
            }
            if op.is_none()
                && let Some(member) = self.ck.const_member(id)
            {
                let shown = self.ck.show(&target.ty);
                self.ck.report(
                    Diagnostic::error(
                        codes::E0205,
                        span,
                        format!("a `{shown}` cannot be assigned: its member `{member}` is const"),
                    )
                    .with_label("assignment of the whole object")
                    .with_msvc("C2582")
                    .with_help(
                        "assign the other members one by one, or drop `const` from the member",
                    ),
                );
                return error_expr(span);
            }
            if self.ck.assignment_runs_code(id) {
                return self.implicit_assign(target, value, span);
            }
        }
        if let Some(e) = library::assign(self, op, &target, &value, span) {
            return e;
        }
        if op.is_none() && matches!(target.ty, Type::TiledIndex(_)) {
            // Its members are const, so C++ deletes its copy assignment.
            let d = Diagnostic::error(codes::E0204, span, "a `tiled_index` cannot be assigned")
                .with_label("its members are const")
                .with_msvc("C2582")
                .with_help("declare a new variable: `tiled_index<...> u = t;`");
            self.ck.report(d);
            return error_expr(span);
        }
        let target = self.component_of_copy(target);
        self.check_writable(&target, "assigned");
        let ty = target.ty.clone();
        match op {
            None => {
                let value = self.coerce(value, &ty, "the assigned value");
                mk(
                    ExprKind::Assign {
                        target: Box::new(target),
                        value: Box::new(value),
                    },
                    ty,
                    true,
                    span,
                )
            }
            Some(op) if matches!(ty, Type::Ptr { .. }) => {
                self.pointer_compound(op, target, value, span)
            }
            Some(op) => {
                let (Some(a), Some(b)) = (ty.scalar(), value.ty.scalar()) else {
                    if !ty.is_error() && !value.ty.is_error() {
                        let (l, r) = (self.ck.show(&ty), self.ck.show(&value.ty));
                        self.ck.error(
                            codes::E0210,
                            span,
                            format!("no operator `{}=` for `{l}` and `{r}`", op.symbol()),
                            "invalid operands",
                            "",
                        );
                    }
                    return error_expr(span);
                };
                let Some(bop) = bin_op(op) else {
                    return error_expr(span);
                };
                let op_ty = if matches!(op, B::Shl | B::Shr) {
                    promote(b)
                } else {
                    common(a, b)
                };
                if matches!(
                    op,
                    B::Rem | B::Shl | B::Shr | B::BitAnd | B::BitOr | B::BitXor
                ) && (a.is_floating() || b.is_floating())
                {
                    self.ck.error(
                        codes::E0210,
                        span,
                        format!("`{}=` needs integer operands", op.symbol()),
                        "floating-point operand",
                        "",
                    );
                    return error_expr(span);
                }
                let value = self.convert_scalar(value, op_ty);
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
        }
    }

    fn conditional(
        &mut self,
        cond: &ast::Expr,
        then: &ast::Expr,
        els: &ast::Expr,
        span: Span,
    ) -> Expr {
        let c = self.expr(cond);
        let c = self.condition(c);
        let t = self.expr(then);
        let e = self.expr(els);
        let (t, e, ty) = match (t.ty.scalar(), e.ty.scalar()) {
            (Some(a), Some(b)) => {
                let c = if a == b { a } else { common(a, b) };
                (
                    self.convert_scalar(t, c),
                    self.convert_scalar(e, c),
                    Type::Scalar(c),
                )
            }
            _ if t.ty == e.ty => {
                let ty = t.ty.clone();
                (t, e, ty)
            }
            // `c ? p : nullptr`, `c ? p : q` with `q` a `const T*`.
            _ if matches!(
                (&t.ty, &e.ty),
                (Type::Ptr { .. }, Type::Ptr { .. } | Type::Null) | (Type::Null, Type::Ptr { .. })
            ) =>
            {
                let ty = match (&t.ty, &e.ty) {
                    (Type::Null, other) | (other, Type::Null) => other.clone(),
                    (Type::Ptr { elem, is_const: a }, Type::Ptr { is_const: b, .. }) => {
                        crate::pointer::ptr_to((**elem).clone(), *a || *b)
                    }
                    _ => t.ty.clone(),
                };
                let t = self.coerce(t, &ty, "a branch of `?:`");
                let e = self.coerce(e, &ty, "a branch of `?:`");
                (Expr { place: false, ..t }, Expr { place: false, ..e }, ty)
            }
            // `c ? a : p` with `a` an array (or two arrays of different
            // lengths): an array decays to a pointer to its first element.
            _ if decayed_common(&t.ty, &e.ty).is_some() => {
                let Some(ty) = decayed_common(&t.ty, &e.ty) else {
                    return error_expr(span);
                };
                let t = self.coerce(t, &ty, "a branch of `?:`");
                let e = self.coerce(e, &ty, "a branch of `?:`");
                (Expr { place: false, ..t }, Expr { place: false, ..e }, ty)
            }
            _ if t.ty.is_error() || e.ty.is_error() => return error_expr(span),
            // `c ? f : g` of two functions, or of a function pointer and a
            // function or `nullptr`: a function pointer.
            _ if self
                .fn_pointer_of(&t)
                .or_else(|| self.fn_pointer_of(&e))
                .is_some() =>
            {
                let Some(ty) = self.fn_pointer_of(&t).or_else(|| self.fn_pointer_of(&e)) else {
                    return error_expr(span);
                };
                let t = self.coerce(t, &ty, "a branch of `?:`");
                let e = self.coerce(e, &ty, "a branch of `?:`");
                (Expr { place: false, ..t }, Expr { place: false, ..e }, ty)
            }
            _ => {
                let (a, b) = (self.ck.show(&t.ty), self.ck.show(&e.ty));
                self.ck.error(
                    codes::E0203,
                    span,
                    format!("the branches of `?:` have different types: `{a}` and `{b}`"),
                    "mismatched branches",
                    "",
                );
                return error_expr(span);
            }
        };
        let place = t.place && e.place;
        mk(
            ExprKind::Conditional {
                cond: Box::new(c),
                then: Box::new(t),
                els: Box::new(e),
            },
            ty,
            place,
            span,
        )
    }

    fn cast(
        &mut self,
        kind: ast::CastKind,
        ty: &ast::TypeName,
        operand: &ast::Expr,
        span: Span,
    ) -> Expr {
        match kind {
            ast::CastKind::Reinterpret => {
                let Declared { ty, by_ref } = self.resolve(&ty.specs, &ty.modifiers, &[]);
                let e = self.expr_for(operand, &ty);
                if e.ty == ty && matches!(ty, Type::FnPtr(_)) {
                    return Expr { span, ..e };
                }
                return self.reinterpret_cast(e, &ty, by_ref, span);
            }
            ast::CastKind::Dynamic => return self.dynamic_cast(ty, operand, span),
            ast::CastKind::Const => {
                self.ck.error(
                    codes::E0211,
                    span,
                    "`const_cast` is not part of the Tessera language",
                    "here",
                    "",
                );
                return error_expr(span);
            }
            ast::CastKind::CStyle | ast::CastKind::Static => {}
        }
        let to_const = self.ck.specs_const(&ty.specs);
        let Declared { ty, by_ref } = self.resolve(&ty.specs, &ty.modifiers, &[]);
        let e = self.expr_for(operand, &ty);
        // `static_cast<const T&>(x)` of a `T`: `x` itself, read only.
        if by_ref && to_const && e.ty == ty && !ty.is_error() && ty.pointee().is_none() {
            return Expr {
                span,
                place: false,
                ..e
            };
        }
        // `static_cast<Derived*>(base_ptr)`, `(Derived&)base`.
        let e = match self.static_downcast(e, &ty, by_ref, to_const, span) {
            Ok(done) => return done,
            Err(e) => e,
        };
        // `(int (*)(int))nullptr`, `static_cast<F>(f)`: what converts
        // implicitly to a function pointer converts explicitly too.
        let e = match self.fn_pointer_coerce(e, &ty) {
            Ok(done) => return Expr { span, ..done },
            Err(e) => e,
        };
        // `(U*)p` between unrelated pointer types is a `reinterpret_cast`
        // (`(U*)a` of a C array too: it decays first).
        let e = if kind == ast::CastKind::CStyle
            && matches!(ty, Type::Ptr { .. })
            && matches!(&e.ty, Type::CArray(elem, _) if Some(&**elem) != ty.pointee())
        {
            self.pointer_operand(e)
        } else {
            e
        };
        if kind == ast::CastKind::CStyle
            && !by_ref
            && let (Type::Ptr { elem: a, .. }, Type::Ptr { elem: b, .. }) = (&e.ty, &ty)
            && a != b
        {
            return self.pointer_reinterpret(e, &ty, false, span);
        }
        self.explicit_conversion(e, &ty, by_ref, span)
    }

    /// Whether a cast of a `from` to class `id` is a call of one of `id`'s
    /// constructors: the class declares some, and `from` is not a class
    /// (whose conversion functions, or whose base, the cast might use
    /// instead: such casts keep the rules of an implicit conversion).
    fn constructs_directly(&self, from: &Type, id: tessera_ir::StructId) -> bool {
        let has_ctors = self
            .ck
            .classes
            .get(&id)
            .is_some_and(|c| !c.ctors.is_empty());
        has_ctors && !matches!(from, Type::Struct(_)) && !self.ck.random.contains_key(&id)
    }

    /// Whether class `id` declares an `explicit` constructor taking one
    /// `from` (by value or by reference): `static_cast<float_4>(i)` and
    /// `(float_4)i` of an `int_4` call it, as `float_4 f(i);` does (a cast
    /// to a class initialises it directly).
    fn explicit_ctor_from(&self, from: &Type, id: tessera_ir::StructId) -> bool {
        let Some(info) = self.ck.classes.get(&id) else {
            return false;
        };
        info.explicit.iter().any(|f| {
            self.ck.program.get_function(*f).is_some_and(|g| {
                let skip = usize::from(g.locals.first().is_some_and(|l| l.name == "this"));
                let params = g.locals.get(skip..(g.params as usize).max(skip));
                matches!(params, Some([p]) if &p.ty == from)
            })
        })
    }

    /// `(T)e`, `static_cast<T>(e)`, `T(e)`.
    pub(crate) fn explicit_conversion(
        &mut self,
        e: Expr,
        ty: &Type,
        by_ref: bool,
        span: Span,
    ) -> Expr {
        if by_ref {
            // `(int*&) i` reinterprets an integer as a pointer: in amp code
            // C++ AMP's own refusal (C3588) is the one to report.
            let from_ptr = matches!(e.ty, Type::Ptr { .. } | Type::Null);
            if from_ptr != matches!(ty, Type::Ptr { .. })
                && self.pointer_cast_refused(&e.ty, ty, span)
            {
                return error_expr(span);
            }
            self.ck.error(
                codes::E0211,
                span,
                "casts to reference types are not supported",
                "here",
                "",
            );
            return error_expr(span);
        }
        match (&e.ty, ty) {
            (Type::Scalar(_), Type::Scalar(t)) => {
                // `(int)x` of an `int` variable is a copy of its value, not
                // `x`: a `const int&` bound to it must not see `x` change
                // (nor dangle, for a component of a temporary index).
                let component = matches!(
                    e.kind,
                    ExprKind::Intrinsic {
                        op: tessera_ir::Intrinsic::ShapeComponent,
                        ..
                    }
                );
                let mut out = if (e.place || component) && e.ty == Type::Scalar(*t) {
                    mk(
                        ExprKind::Convert(Box::new(e)),
                        Type::Scalar(*t),
                        false,
                        span,
                    )
                } else {
                    self.convert_scalar(e, *t)
                };
                out.span = span;
                out.place = false;
                out
            }
            (_, Type::Void) => Expr {
                ty: Type::Void,
                place: false,
                ..e
            },
            (Type::Struct(_), t) if !matches!(t, Type::Struct(_)) => {
                match self.user_conversion(e, ty, true) {
                    Ok(mut out) => {
                        out.span = span;
                        out
                    }
                    Err(e) => {
                        let mut out = self.coerce(e, ty, "the result of the cast");
                        out.span = span;
                        out
                    }
                }
            }
            // `(T)e` and `static_cast<T>(e)` of a class `T` initialise a
            // `T` directly from `e`, so an `explicit` constructor is
            // chosen as in `T(e)` (`(norm)0.5f`).
            (from, Type::Struct(id))
                if from != ty
                    && !from.is_error()
                    && (self.constructs_directly(from, *id)
                        || self.explicit_ctor_from(from, *id)) =>
            {
                match self.construct_object(*id, vec![e], false, span) {
                    Some(mut out) => {
                        out.span = span;
                        out
                    }
                    None => error_expr(span),
                }
            }
            (Type::Ptr { .. } | Type::Null, _) | (_, Type::Ptr { .. }) => {
                let from = e.ty.clone();
                match self.pointer_coerce(e, ty) {
                    Ok(mut out) => {
                        out.span = span;
                        out
                    }
                    Err(e) if e.ty == *ty => e,
                    Err(_) => {
                        self.pointer_cast_refused(&from, ty, span);
                        error_expr(span)
                    }
                }
            }
            _ => {
                let mut out = self.coerce(e, ty, "the result of the cast");
                out.span = span;
                out
            }
        }
    }
}

/// `extent<2>::rank`, `T::rank` for an `index`, `extent`, tiled type,
/// `array` or `array_view`: the library's `static const int rank`.
fn library_rank(ty: &Type, member: &str, span: Span) -> Option<Expr> {
    if member != "rank" {
        return None;
    }
    let rank = match ty {
        Type::Index(n) | Type::Extent(n) | Type::Array(_, n) => *n,
        Type::ArrayView { rank, .. } => *rank,
        Type::TiledIndex(shape) | Type::TiledExtent(shape) => shape.rank,
        _ => return None,
    };
    Some(mk(
        ExprKind::Const(Const::Int(i64::from(rank))),
        Type::INT,
        false,
        span,
    ))
}

/// True for the pointer of `*it` on an iterator value (`Type::Iter`).
fn through_iterator(ptr: &Expr) -> bool {
    match &ptr.kind {
        ExprKind::Intrinsic {
            op: tessera_ir::Intrinsic::IterBase,
            ..
        } => true,
        ExprKind::PtrAdd { ptr, .. } => through_iterator(ptr),
        _ => false,
    }
}

/// The C++ AMP property (a member with only a getter, in MSVC's library) a
/// value is read from, if it is one: the extent of an array or view, the
/// views of an array, and what an accelerator or view says of itself.
fn library_property(e: &Expr) -> Option<&'static str> {
    use tessera_ir::Intrinsic;
    let ExprKind::Intrinsic { op, .. } = &e.kind else {
        return None;
    };
    Some(match op {
        Intrinsic::ViewExtent => "`extent`",
        Intrinsic::ArrayDeviceView { associated: false } => "`accelerator_view`",
        Intrinsic::ArrayDeviceView { associated: true } => "`associated_accelerator_view`",
        Intrinsic::ArrayCpuAccess => "`cpu_access_type`",
        Intrinsic::DeviceText(tessera_ir::DeviceText::Description) => "`description`",
        Intrinsic::DeviceText(tessera_ir::DeviceText::Path) => "`device_path`",
        Intrinsic::DeviceDefaultView => "`default_view`",
        Intrinsic::DeviceQueuingMode => "`queuing_mode`",
        Intrinsic::DeviceViewAccelerator => "`accelerator`",
        Intrinsic::DeviceCpuAccess => "`default_cpu_access_type`",
        _ => return None,
    })
}

/// The pointer type of `c ? x : y` where an array branch decays to a
/// pointer to its first element (the other a pointer to the same element
/// type, `nullptr`, or an array of another length); `None` when neither is
/// an array or the element types differ.
fn decayed_common(x: &Type, y: &Type) -> Option<Type> {
    if !matches!(x, Type::CArray(..)) && !matches!(y, Type::CArray(..)) {
        return None;
    }
    let decay = |ty: &Type| match ty {
        Type::CArray(elem, _) => Some(crate::pointer::ptr_to((**elem).clone(), false)),
        Type::Ptr { .. } | Type::Null => Some(ty.clone()),
        _ => None,
    };
    match (decay(x)?, decay(y)?) {
        (Type::Null, other) | (other, Type::Null) => Some(other),
        (
            Type::Ptr {
                elem: a,
                is_const: ca,
            },
            Type::Ptr {
                elem: b,
                is_const: cb,
            },
        ) if a == b => Some(crate::pointer::ptr_to(*a, ca || cb)),
        _ => None,
    }
}
