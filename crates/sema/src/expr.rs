//! Expressions: typing and lowering, with the rules that concern a single
//! expression (restriction contexts of calls, captures, const-correctness).

use crate::convert::{common, promote};
use crate::cx::{Capturable, FnCx, KernelCx, error_expr};
use crate::library;
use crate::literal;
use crate::types::Declared;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{
    BinOp, Const, Expr, ExprKind, FuncId, Function, FunctionKind, Init, Local, LocalId,
    Restriction, Scalar, Space, Type, UnOp,
};
use tessera_syntax::ast::{self, BinaryOp as B, ExprKind as K, UnaryOp as U};

/// A capture made by a kernel: name, the local it copies, by reference.
type MadeCapture = (String, LocalId, bool);

fn mk(kind: ExprKind, ty: Type, place: bool, span: Span) -> Expr {
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
        B::And | B::Or | B::Comma => return None,
    })
}

impl FnCx<'_> {
    /// Lowers an expression.
    pub fn expr(&mut self, e: &ast::Expr) -> Expr {
        let span = e.span;
        match &e.kind {
            K::Int(text) => match literal::parse_int(text) {
                Some((v, s)) if self.in_amp() && matches!(s, Scalar::Long | Scalar::ULong) => {
                    self.ck.report(
                        Diagnostic::error(codes::E0215, span, format!("integer constant `{text}` does not fit in 32 bits"))
                            .with_label("too large for amp code")
                            .with_note("amp code computes with 32-bit integers; MSVC reports this as C3595")
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
                        .with_note("MSVC reports this as C3589"),
                    );
                    return error_expr(span);
                }
                let K::Str(parts) = &e.kind else {
                    return error_expr(span);
                };
                let text: String = parts.iter().filter_map(|p| literal::parse_str(p)).collect();
                mk(ExprKind::Str(text), Type::Str, false, span)
            }
            K::Bool(b) => mk(ExprKind::Const(Const::Bool(*b)), Type::BOOL, false, span),
            K::Nullptr | K::This => {
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
                    _ => library::subscript(self, base, index, span),
                }
            }
            K::Member {
                base,
                name,
                arrow,
                template_args,
            } => {
                if *arrow {
                    self.ck.error(
                        codes::E0306,
                        span,
                        "`->` needs a pointer, and Tessera has no pointers",
                        "here",
                        "use `.`",
                    );
                    return error_expr(span);
                }
                let base = self.expr(base);
                self.member(base, name, template_args.as_deref(), span)
            }
            K::Lambda(_) => {
                self.ck.error(
                    codes::E0211,
                    span,
                    "a lambda can only be the kernel argument of `parallel_for_each`",
                    "lambda here",
                    "write the code inline, or as a function",
                );
                error_expr(span)
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
            K::SizeofType(_) | K::SizeofExpr(_) => {
                self.ck.error(
                    codes::E0211,
                    span,
                    "`sizeof` is not part of the Tessera language",
                    "here",
                    "",
                );
                error_expr(span)
            }
            K::New(_) | K::Delete(_) => {
                self.forbidden(span, "`new` and `delete`", "C3930");
                error_expr(span)
            }
            K::Throw(_) => {
                self.forbidden(span, "exceptions (`throw`)", "C3594");
                error_expr(span)
            }
            K::Error => error_expr(span),
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
            if let Some(id) = self.lookup_local(name) {
                return self.local_expr(id, span);
            }
            if let Some(e) = self.capture(name, span) {
                return e;
            }
            if let Some(&gid) = self.ck.globals.get(name) {
                return self.global(gid, span);
            }
        }
        if let Some(e) = library::name(self, path) {
            return e;
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

    fn local_expr(&self, id: LocalId, span: Span) -> Expr {
        let ty = self.local(id).map_or(Type::Error, |l| l.ty.clone());
        mk(ExprKind::Local(id), ty, true, span)
    }

    fn global(&mut self, gid: tessera_ir::GlobalId, span: Span) -> Expr {
        let Some(g) = self.ck.program.get_global(gid) else {
            return error_expr(span);
        };
        let (ty, is_const, decl_span, name) = (g.ty.clone(), g.is_const, g.span, g.name.clone());
        if self.in_amp() {
            // A constant integral global may be read as its value (C++ AMP 2.4.3.2).
            if let Some(v) = self.ck.global_consts.get(&gid) {
                return mk(ExprKind::Const(Const::Int(*v)), ty, false, span);
            }
            self.ck.report(
                Diagnostic::error(codes::E0305, span, format!("global variable `{name}` cannot be used in amp code"))
                    .with_label("used in a kernel")
                    .with_secondary(decl_span, "declared at namespace scope here")
                    .with_note("MSVC reports this as C3586; only `const` integers with a constant value may be read")
                    .with_help("pass the value in: capture a local copy, or make it a `const int`"),
            );
            return error_expr(span);
        }
        let _ = is_const;
        mk(ExprKind::Global(gid), ty, true, span)
    }

    /// Resolves a name from the function around a kernel lambda: a capture.
    fn capture(&mut self, name: &str, span: Span) -> Option<Expr> {
        let kernel = self.kernel.as_mut()?;
        if let Some(slot) = kernel.made.iter().position(|(n, _, _)| n == name) {
            let ty = self.func_capture_type(slot);
            return Some(mk(ExprKind::Capture(slot as u32), ty, true, span));
        }
        let (_, found) = kernel.outer.iter().rev().find(|(n, _)| n == name)?;
        let Capturable { local, info } = found.clone();
        let explicit = kernel.explicit.iter().find(|(n, _, _)| n == name).cloned();
        let by_ref = match (&explicit, kernel.default_capture) {
            (Some((_, by_ref, _)), _) => *by_ref,
            (None, Some(ast::CaptureDefault::ByValue)) => false,
            (None, Some(ast::CaptureDefault::ByRef)) => true,
            (None, None) => {
                let capture_span = kernel.capture_span;
                self.ck.report(
                    Diagnostic::error(
                        codes::E0200,
                        span,
                        format!("`{name}` is not captured by the kernel"),
                    )
                    .with_label("used here")
                    .with_secondary(capture_span, "capture list")
                    .with_secondary(info.span, "declared outside the lambda")
                    .with_help(format!(
                        "capture it: `[=]` captures everything by value, or list it: `[{name}]`"
                    )),
                );
                return Some(error_expr(span));
            }
        };
        let kernel = self.kernel.as_mut()?;
        let capture_span = explicit.as_ref().map_or(kernel.capture_span, |e| e.2);
        kernel.made.push((name.to_string(), local, by_ref));
        let slot = kernel.made.len() - 1;
        let before = self.ck.diags.len();
        self.check_capture(name, &info, by_ref, capture_span, span);
        // An invalid capture is reported once; its uses are not checked again.
        let ty = if self.ck.diags.len() == before {
            info.ty.clone()
        } else {
            Type::Error
        };
        if let FunctionKind::Kernel { captures, .. } = &mut self.func.kind {
            captures.push(tessera_ir::Capture {
                name: name.to_string(),
                ty: ty.clone(),
                by_ref,
            });
        }
        Some(mk(ExprKind::Capture(slot as u32), ty, true, span))
    }

    fn func_capture_type(&self, slot: usize) -> Type {
        match &self.func.kind {
            FunctionKind::Kernel { captures, .. } => {
                captures.get(slot).map_or(Type::Error, |c| c.ty.clone())
            }
            FunctionKind::Plain => Type::Error,
        }
    }

    /// The capture rules of C++ AMP (E0307, E0308, E0309).
    fn check_capture(
        &mut self,
        name: &str,
        info: &Local,
        by_ref: bool,
        capture_span: Span,
        use_span: Span,
    ) {
        let is_array = matches!(info.ty, Type::Array(..));
        if by_ref && !is_array && !info.ty.is_error() {
            let shown = self.ck.show(&info.ty);
            self.ck.report(
                Diagnostic::error(codes::E0307, use_span, format!("`{name}` is captured by reference; only a `concurrency::array` may be captured by reference"))
                    .with_label(format!("`{name}` is `{shown}`"))
                    .with_secondary(capture_span, "captured by reference here")
                    .with_note("MSVC reports this as C3590; the kernel runs on the accelerator, which cannot reach host variables")
                    .with_help(if matches!(info.ty, Type::ArrayView { .. }) {
                        "capture views by value (`[=]`): a copy of an `array_view` still refers to the same data".to_string()
                    } else {
                        format!("capture `{name}` by value, and write results through an `array_view` or `array`")
                    }),
            );
        }
        if is_array && !by_ref {
            self.ck.report(
                Diagnostic::error(codes::E0308, use_span, format!("`concurrency::array` `{name}` is captured by value"))
                    .with_label("captured by value")
                    .with_secondary(capture_span, "capture list")
                    .with_note("MSVC reports this as C3597; an `array` owns accelerator memory and cannot be copied into a kernel")
                    .with_help(format!("capture it by reference: `[=, &{name}]`")),
            );
        }
        let problem = match &info.ty {
            Type::Vector(_) => Some(
                "`std::vector` is host memory; wrap it in an `array_view` and capture the view"
                    .to_string(),
            ),
            Type::Ostream | Type::Manipulator | Type::Str => Some("streams are host-only".into()),
            other => crate::stmt::kernel_type_problem(self, other),
        };
        if let Some(problem) = problem {
            let shown = self.ck.show(&info.ty);
            self.ck.report(
                Diagnostic::error(
                    codes::E0309,
                    use_span,
                    format!("`{name}` of type `{shown}` cannot be captured by a kernel"),
                )
                .with_label("captured here")
                .with_secondary(info.span, "declared here")
                .with_note("MSVC reports this as C3596")
                .with_help(problem),
            );
        }
    }

    fn unary(&mut self, op: U, operand: &ast::Expr, span: Span) -> Expr {
        match op {
            U::PreInc | U::PreDec | U::PostInc | U::PostDec => {
                let target = self.expr(operand);
                if let Some(e) = library::inc_dec(self, &target, op, span) {
                    return e;
                }
                self.check_writable(&target, "incremented");
                let ty = target.ty.clone();
                if !matches!(ty, Type::Scalar(s) if s != Scalar::Bool) && !ty.is_error() {
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
            U::Deref | U::AddrOf => {
                let inner = self.expr(operand);
                if !inner.ty.is_error() {
                    self.ck.error(
                        codes::E0306,
                        span,
                        "pointers are not part of the Tessera language",
                        "pointer operation",
                        "use references (`T& r = x;`) or indices",
                    );
                }
                error_expr(span)
            }
            U::Not => {
                let e = self.expr(operand);
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
                let l = self.condition(l);
                let r = self.expr(rhs);
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
                if let Some(e) = library::binary(self, op, &l, &r, span) {
                    return e;
                }
                self.arith(op, l, r, span)
            }
        }
    }

    /// Reports a write to something that cannot be written (E0204, E0205).
    pub fn check_writable(&mut self, target: &Expr, what: &str) {
        if target.ty.is_error() {
            return;
        }
        if !target.place {
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
    fn read_only_reason(&self, place: &Expr) -> Option<(String, Option<Span>)> {
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
            ExprKind::Field { base, .. } | ExprKind::Element { base, .. } => {
                self.read_only_reason(base)
            }
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
                        ty: Type::Vector(_) | Type::Array(..),
                        ..
                    },
                ) => self.read_only_reason(base),
                _ => None,
            },
            _ => None,
        }
    }

    fn assign(&mut self, op: Option<B>, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> Expr {
        let target = self.expr(lhs);
        let value = match &rhs.kind {
            K::InitList(items) => {
                let mut ty = target.ty.clone();
                let init = self.aggregate(&mut ty, items, rhs.span);
                self.init_as_expr(init, &ty, rhs.span)
            }
            _ => self.expr(rhs),
        };
        if let Some(e) = library::assign(self, op, &target, &value, span) {
            return e;
        }
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
            _ if t.ty.is_error() || e.ty.is_error() => return error_expr(span),
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
                self.ck.error(
                    codes::E0211,
                    span,
                    "`reinterpret_cast` is not part of the Tessera language",
                    "here",
                    "use `static_cast` for numbers",
                );
                return error_expr(span);
            }
            ast::CastKind::Dynamic => {
                self.forbidden(span, "`dynamic_cast`", "C3587");
                return error_expr(span);
            }
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
        let Declared { ty, by_ref } = self.resolve(&ty.specs, &ty.modifiers, &[]);
        let e = self.expr(operand);
        self.explicit_conversion(e, &ty, by_ref, span)
    }

    /// `(T)e`, `static_cast<T>(e)`, `T(e)`.
    fn explicit_conversion(&mut self, e: Expr, ty: &Type, by_ref: bool, span: Span) -> Expr {
        if by_ref {
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
                let mut out = self.convert_scalar(e, *t);
                out.span = span;
                out.place = false;
                out
            }
            (_, Type::Void) => Expr {
                ty: Type::Void,
                place: false,
                ..e
            },
            _ => {
                let mut out = self.coerce(e, ty, "the result of the cast");
                out.span = span;
                out
            }
        }
    }

    fn construct(
        &mut self,
        ty: &ast::TypeName,
        args: &[ast::Expr],
        braces: bool,
        span: Span,
    ) -> Expr {
        let Declared { ty, by_ref } = self.resolve(&ty.specs, &ty.modifiers, &[]);
        if ty.is_error() {
            return error_expr(span);
        }
        if let Type::Scalar(_) = ty {
            return match args {
                [one] => {
                    let e = self.expr(one);
                    self.explicit_conversion(e, &ty, by_ref, span)
                }
                [] => {
                    let zero = mk(ExprKind::Const(Const::Int(0)), Type::INT, false, span);
                    self.convert_scalar(zero, ty.scalar().unwrap_or(Scalar::Int))
                }
                _ => {
                    self.ck.error(
                        codes::E0206,
                        span,
                        "a number is built from one value",
                        "too many values",
                        "",
                    );
                    error_expr(span)
                }
            };
        }
        if let Type::Struct(_) = ty {
            let mut t = ty.clone();
            let init = self.aggregate(&mut t, args, span);
            return self.init_as_expr(init, &t, span);
        }
        let _ = braces;
        let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        library::construct(self, &ty, args, span)
    }

    /// Builds a struct or C array from a braced list (aggregate initialisation).
    pub fn aggregate(&mut self, ty: &mut Type, items: &[ast::Expr], span: Span) -> Option<Init> {
        match ty.clone() {
            Type::Struct(id) => {
                let fields = self.ck.struct_fields(id);
                if items.len() > fields.len() {
                    let name = self.ck.show(ty);
                    self.ck.error(
                        codes::E0206,
                        span,
                        format!(
                            "too many values for `{name}`: it has {} members",
                            fields.len()
                        ),
                        "too many values",
                        "",
                    );
                    return None;
                }
                let mut parts = Vec::new();
                for (i, (fname, fty)) in fields.iter().enumerate() {
                    match items.get(i) {
                        Some(item) => {
                            let mut fty = fty.clone();
                            let part = self.init_item(&mut fty, item, &format!("member `{fname}`"));
                            parts.push(part?);
                        }
                        None => parts.push(Init::Zero),
                    }
                }
                Some(Init::List(parts))
            }
            Type::CArray(elem, n) => {
                let n = if n == 0 { items.len() as u32 } else { n };
                if items.len() > n as usize {
                    self.ck.error(
                        codes::E0206,
                        span,
                        format!("too many values: the array has {n} elements"),
                        "too many values",
                        "",
                    );
                    return None;
                }
                *ty = Type::CArray(elem.clone(), n);
                let mut parts = Vec::new();
                for item in items {
                    let mut et = (*elem).clone();
                    parts.push(self.init_item(&mut et, item, "an array element")?);
                }
                Some(Init::List(parts))
            }
            Type::Scalar(_) => match items {
                [one] => {
                    let mut t = ty.clone();
                    self.init_item(&mut t, one, "the value")
                }
                [] => Some(Init::Zero),
                _ => {
                    self.ck.error(
                        codes::E0206,
                        span,
                        "a number is initialised from one value",
                        "too many values",
                        "",
                    );
                    None
                }
            },
            Type::Error => None,
            other => {
                let args: Vec<Expr> = items.iter().map(|a| self.expr(a)).collect();
                Some(Init::Expr(library::construct(self, &other, args, span)))
            }
        }
    }

    fn init_item(&mut self, ty: &mut Type, item: &ast::Expr, what: &str) -> Option<Init> {
        match &item.kind {
            K::InitList(items) => self.aggregate(ty, items, item.span),
            _ => {
                let e = self.expr(item);
                Some(Init::Expr(self.coerce(e, ty, what)))
            }
        }
    }

    /// The initialiser of a variable; infers `auto` and the size of `T x[]`.
    pub fn initializer(
        &mut self,
        ty: &mut Type,
        specs: &ast::DeclSpecs,
        d: &ast::Declarator,
        name: &str,
    ) -> Option<Init> {
        let is_auto = matches!(specs.ty, ast::BaseType::Auto);
        let what = format!("the initialiser of `{name}`");
        let by_ref = d.modifiers.reference == 1;
        match &d.init {
            None => {
                if is_auto {
                    self.ck.error(
                        codes::E0218,
                        d.span,
                        format!("`auto` variable `{name}` needs an initialiser"),
                        "type cannot be deduced",
                        "",
                    );
                }
                if let Type::CArray(_, 0) = ty {
                    self.ck.error(
                        codes::E0218,
                        d.span,
                        format!("array `{name}` needs a size or an initialiser"),
                        "unknown size",
                        "",
                    );
                    *ty = Type::Error;
                }
                None
            }
            Some(ast::Init::Assign(e)) => match &e.kind {
                K::InitList(items) if !is_auto => self.aggregate(ty, items, e.span),
                _ => {
                    let v = self.expr(e);
                    if is_auto {
                        *ty = v.ty.clone();
                    }
                    if by_ref {
                        if !v.place && !v.ty.is_error() && !specs.is_const {
                            self.ck.error(
                                codes::E0204,
                                v.span,
                                "a non-const reference cannot be bound to a temporary value",
                                "temporary",
                                "bind it to a variable, or make it `const T&`",
                            );
                        }
                        if v.ty != *ty && !v.ty.is_error() && !ty.is_error() {
                            let (a, b) = (self.ck.show(ty), self.ck.show(&v.ty));
                            self.ck.error(
                                codes::E0203,
                                v.span,
                                format!("a `{a}&` cannot refer to a `{b}`"),
                                "different type",
                                "",
                            );
                        }
                        return Some(Init::Ref(v));
                    }
                    Some(Init::Expr(self.coerce(v, ty, &what)))
                }
            },
            Some(ast::Init::Brace(items)) => {
                if is_auto {
                    self.ck.error(
                        codes::E0211,
                        d.span,
                        "`auto` with a braced initialiser is not supported",
                        "here",
                        "write `auto x = value;`",
                    );
                    return None;
                }
                match ty {
                    Type::Struct(_) | Type::CArray(..) | Type::Scalar(_) => {
                        self.aggregate(ty, items, d.span)
                    }
                    _ => {
                        let args: Vec<Expr> = items.iter().map(|a| self.expr(a)).collect();
                        Some(Init::Expr(library::construct(self, ty, args, d.span)))
                    }
                }
            }
            Some(ast::Init::Paren(args)) => {
                if is_auto {
                    self.ck.error(
                        codes::E0211,
                        d.span,
                        "`auto` with a parenthesised initialiser is not supported",
                        "here",
                        "write `auto x = value;`",
                    );
                    return None;
                }
                match (&*ty, args.as_slice()) {
                    (Type::Scalar(_), [one]) => {
                        let v = self.expr(one);
                        Some(Init::Expr(self.coerce(v, ty, &what)))
                    }
                    (Type::Struct(_) | Type::CArray(..), _) => {
                        self.ck.error(
                            codes::E0211,
                            d.span,
                            "structs and arrays are initialised with braces",
                            "here",
                            format!("write `{name} = {{...}}`"),
                        );
                        None
                    }
                    (Type::Error, _) => None,
                    _ => {
                        let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                        Some(Init::Expr(library::construct(self, ty, args, d.span)))
                    }
                }
            }
        }
    }

    fn member(
        &mut self,
        base: Expr,
        name: &ast::Ident,
        template_args: Option<&[ast::TemplateArg]>,
        span: Span,
    ) -> Expr {
        if let Type::Struct(id) = &base.ty {
            let fields = self
                .ck
                .program
                .structs
                .get(id.index())
                .map(|s| (s.name.clone(), s.fields.clone()));
            if let Some((sname, fields)) = fields {
                if let Some(i) = fields.iter().position(|(n, _)| n == &name.name) {
                    let ty = fields[i].1.clone();
                    let place = base.place;
                    return mk(
                        ExprKind::Field {
                            base: Box::new(base),
                            field: i as u32,
                        },
                        ty,
                        place,
                        span,
                    );
                }
                self.ck.error(
                    codes::E0207,
                    name.span,
                    format!("`{sname}` has no member `{}`", name.name),
                    "unknown member",
                    "",
                );
                return error_expr(span);
            }
        }
        if base.ty.is_error() {
            return error_expr(span);
        }
        library::member(self, base, name, template_args, span)
    }

    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], span: Span) -> Expr {
        match &callee.kind {
            K::Name(path) if path.last() == "parallel_for_each" => {
                return self.launch(path, args, span);
            }
            // C++ AMP's atomics take the address of the location: `atomic_fetch_add(&x, 1)`.
            // Tessera has no pointers, so the place itself is passed on.
            K::Name(path) if library::takes_address(path) => {
                let lowered: Vec<Expr> = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let is_location =
                            i == 0 || (i == 1 && path.last() == "atomic_compare_exchange");
                        match &a.kind {
                            K::Unary {
                                op: U::AddrOf,
                                operand,
                            } if is_location => self.expr(operand),
                            _ if is_location => {
                                self.ck.error(
                                    codes::E0203,
                                    a.span,
                                    format!("`{}` takes the address of the location", path.text()),
                                    "a value, not an address",
                                    "write `&x` (for example `&counts[i]`)",
                                );
                                self.expr(a);
                                error_expr(a.span)
                            }
                            _ => self.expr(a),
                        }
                    })
                    .collect();
                return library::call(self, path, lowered, span);
            }
            K::Name(path)
                if path.segments.len() == 1 && self.lookup_local(path.last()).is_none() =>
            {
                if let Some(ids) = self.ck.functions.get(path.last()).cloned() {
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    return self.call_user(path, &ids, lowered, span);
                }
            }
            K::Member {
                base,
                name,
                arrow: false,
                template_args,
            } => {
                let base = self.expr(base);
                if base.ty.is_error() {
                    return error_expr(span);
                }
                if !matches!(base.ty, Type::Struct(_)) {
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    return library::method(
                        self,
                        base,
                        name,
                        template_args.as_deref(),
                        lowered,
                        span,
                    );
                }
                // `s.view(i, j)`: calling a data member (a view) is fine.
                let is_field = match &base.ty {
                    Type::Struct(id) => self
                        .ck
                        .program
                        .structs
                        .get(id.index())
                        .is_some_and(|s| s.fields.iter().any(|(n, _)| n == &name.name)),
                    _ => false,
                };
                if is_field {
                    let member_span = base.span.to(name.span);
                    let callee = self.member(base, name, None, member_span);
                    let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                    if callee.ty.is_error() {
                        return error_expr(span);
                    }
                    return library::call_value(self, callee, lowered, span);
                }
                self.ck.error(
                    codes::E0211,
                    name.span,
                    "member functions are not part of the Tessera language",
                    "struct members are data",
                    "write a free function taking the struct",
                );
                return error_expr(span);
            }
            _ => {}
        }
        if let K::Name(path) = &callee.kind
            && self.lookup_local(path.last()).is_none()
            && self
                .kernel
                .as_ref()
                .is_none_or(|k| !k.outer.iter().any(|(n, _)| n == path.last()))
            && !self.ck.globals.contains_key(path.last())
        {
            let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
            return library::call(self, path, lowered, span);
        }
        let callee = self.expr(callee);
        let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        if callee.ty.is_error() {
            return error_expr(span);
        }
        library::call_value(self, callee, lowered, span)
    }

    fn call_user(&mut self, path: &ast::Path, ids: &[FuncId], args: Vec<Expr>, span: Span) -> Expr {
        // Overloads: by arity, then by restriction fitting the caller (C++ AMP
        // allows overloading on `restrict`).
        let here = self.restriction();
        let candidates: Vec<FuncId> = ids
            .iter()
            .copied()
            .filter(|id| {
                self.ck
                    .program
                    .functions
                    .get(id.index())
                    .is_some_and(|f| f.params as usize == args.len())
            })
            .collect();
        let Some(&first) = candidates.first() else {
            let f = ids.first().and_then(|id| self.ck.program.get_function(*id));
            let (n, decl) = f.map_or((0, span), |f| (f.params, f.span));
            self.ck.report(
                Diagnostic::error(
                    codes::E0206,
                    span,
                    format!(
                        "`{}` takes {n} argument{}, but {} {} given",
                        path.text(),
                        if n == 1 { "" } else { "s" },
                        args.len(),
                        if args.len() == 1 { "was" } else { "were" }
                    ),
                )
                .with_label("wrong number of arguments")
                .with_secondary(decl, "declared here"),
            );
            return error_expr(span);
        };
        let fits = |r: Restriction| {
            (here.amp && r.amp)
                || (here.cpu && r.cpu && !here.amp)
                || (here.cpu && here.amp && r.cpu && r.amp)
        };
        let chosen = candidates
            .iter()
            .copied()
            .find(|id| {
                self.ck
                    .program
                    .functions
                    .get(id.index())
                    .is_some_and(|f| fits(f.restriction))
            })
            .unwrap_or(first);
        let Some(f) = self.ck.program.get_function(chosen) else {
            return error_expr(span);
        };
        let (restriction, decl_span, ret, ret_by_ref) =
            (f.restriction, f.span, f.ret.clone(), f.ret_by_ref);
        let params: Vec<Local> = f.locals.iter().take(f.params as usize).cloned().collect();
        self.check_call_restriction(path, restriction, decl_span, span);
        let mut lowered = Vec::new();
        for (arg, p) in args.into_iter().zip(params.iter()) {
            if p.by_ref {
                if !arg.place && !p.is_const && !arg.ty.is_error() {
                    self.ck.error(
                        codes::E0204,
                        arg.span,
                        "a temporary value cannot be passed by non-const reference",
                        "temporary",
                        "pass a variable",
                    );
                }
                if p.is_const && !arg.place {
                    lowered.push(self.coerce(arg, &p.ty, "an argument"));
                    continue;
                }
                if arg.ty != p.ty && !arg.ty.is_error() && !p.ty.is_error() {
                    let (a, b) = (self.ck.show(&p.ty), self.ck.show(&arg.ty));
                    self.ck.error(
                        codes::E0203,
                        arg.span,
                        format!("expected a `{a}` to pass by reference, found `{b}`"),
                        "different type",
                        "",
                    );
                }
                if !p.is_const && arg.place {
                    self.check_writable(&arg, "passed by non-const reference");
                }
                lowered.push(arg);
            } else {
                lowered.push(self.coerce(arg, &p.ty, &format!("parameter `{}`", p.name)));
            }
        }
        mk(
            ExprKind::Call {
                func: chosen,
                args: lowered,
            },
            ret,
            ret_by_ref,
            span,
        )
    }

    /// E0300/E0301: the callee must be able to run where the caller runs.
    pub fn check_call_restriction(
        &mut self,
        path: &ast::Path,
        callee: Restriction,
        decl_span: Span,
        span: Span,
    ) {
        let here = self.restriction();
        let name = path.text();
        if here.amp && !callee.amp {
            self.ck.report(
                Diagnostic::error(
                    codes::E0300,
                    span,
                    format!("`{name}` runs only on the host, but is called from amp code"),
                )
                .with_label("called from `restrict(amp)` code")
                .with_secondary(decl_span, "declared without `restrict(amp)`")
                .with_note("MSVC reports this as C3930")
                .with_help(format!(
                    "mark `{name}` `restrict(amp, cpu)` if its body is valid amp code"
                )),
            );
        } else if here.cpu && !here.amp && !callee.cpu {
            self.ck.report(
                Diagnostic::error(
                    codes::E0301,
                    span,
                    format!("`{name}` runs only on the accelerator, but is called from host code"),
                )
                .with_label("called from host code")
                .with_secondary(decl_span, "declared `restrict(amp)`")
                .with_note("MSVC reports this as C3930")
                .with_help(format!(
                    "mark `{name}` `restrict(amp, cpu)`, or call it from a kernel"
                )),
            );
        } else if here.cpu && here.amp && !(callee.cpu && callee.amp) {
            let missing = if callee.amp { "cpu" } else { "amp" };
            self.ck.report(
                Diagnostic::error(if callee.amp { codes::E0301 } else { codes::E0300 }, span, format!("`{name}` cannot run everywhere its `restrict(amp, cpu)` caller runs"))
                    .with_label("called here")
                    .with_secondary(decl_span, format!("not marked `{missing}`"))
                    .with_note("a function marked `restrict(amp, cpu)` may call only functions marked both ways")
                    .with_help(format!("add `{missing}` to `{name}`'s restrict clause")),
            );
        }
    }

    /// `parallel_for_each(domain, [captures](index) restrict(amp) { ... })`.
    fn launch(&mut self, path: &ast::Path, args: &[ast::Expr], span: Span) -> Expr {
        if self.in_amp() {
            self.ck.report(
                Diagnostic::error(
                    codes::E0310,
                    path.span,
                    "`parallel_for_each` can only be called from host code",
                )
                .with_label("called from amp code")
                .with_note("kernels cannot launch kernels")
                .with_help("launch the second kernel from the host after the first one"),
            );
            return error_expr(span);
        }
        let (domain_ast, lambda_ast) = match args {
            [d, l] => (d, l),
            [_, d, l] => (d, l),
            _ => {
                self.ck.error(
                    codes::E0206,
                    span,
                    "`parallel_for_each` takes a compute domain and a kernel",
                    "wrong number of arguments",
                    "write `parallel_for_each(e, [=](index<1> i) restrict(amp) { ... });`",
                );
                return error_expr(span);
            }
        };
        let domain = self.expr(domain_ast);
        let (tile, rank) = match &domain.ty {
            Type::Extent(r) => (None, *r),
            Type::TiledExtent(shape) => (Some(*shape), shape.rank),
            Type::Error => (None, 0),
            other => {
                let shown = self.ck.show(other);
                self.ck.error(
                    codes::E0203,
                    domain.span,
                    format!(
                        "the compute domain must be an `extent` or a `tiled_extent`, not `{shown}`"
                    ),
                    "not a compute domain",
                    "use `view.extent` or `view.extent.tile<16, 16>()`",
                );
                (None, 0)
            }
        };
        let K::Lambda(lambda) = &lambda_ast.kind else {
            self.ck.error(
                codes::E0211,
                lambda_ast.span,
                "the kernel must be a lambda written in the call",
                "not a lambda",
                "write `[=](index<1> i) restrict(amp) { ... }`",
            );
            return error_expr(span);
        };
        let kernel = self.kernel_function(lambda, &domain, tile, rank, lambda_ast.span);
        let Some((id, made)) = kernel else {
            return error_expr(span);
        };
        let captures: Vec<Expr> = made
            .iter()
            .map(|(_, local, _)| self.local_expr(*local, lambda_ast.span))
            .collect();
        mk(
            ExprKind::Launch {
                domain: Box::new(domain),
                kernel: id,
                captures,
            },
            Type::Void,
            false,
            span,
        )
    }

    fn kernel_function(
        &mut self,
        lambda: &ast::Lambda,
        domain: &Expr,
        tile: Option<tessera_ir::TileShape>,
        rank: u8,
        span: Span,
    ) -> Option<(FuncId, Vec<MadeCapture>)> {
        let domain_span = domain.span;
        let domain = &domain.ty;
        let restriction = crate::declare::restriction(self.ck, lambda.restrict.as_ref());
        if !restriction.amp {
            let at = lambda
                .restrict
                .as_ref()
                .map_or(lambda.capture_span, |r| r.span);
            self.ck.report(
                Diagnostic::error(codes::E0312, at, "the kernel must be `restrict(amp)`")
                    .with_label(if lambda.restrict.is_some() {
                        "restricted to the host"
                    } else {
                        "no `restrict(amp)` clause"
                    })
                    .with_note("MSVC reports this as C3577")
                    .with_help("add `restrict(amp)` after the parameter list"),
            );
        }
        if let Some(ret) = &lambda.ret
            && !matches!(ret.specs.ty, ast::BaseType::Builtin(ast::Builtin::Void))
        {
            self.ck.error(
                codes::E0312,
                ret.span,
                "a kernel returns `void`",
                "return type",
                "remove `-> T`",
            );
        }
        let expected = match tile {
            Some(shape) => Type::TiledIndex(shape),
            None => Type::Index(rank),
        };
        let param = match lambda.params.as_slice() {
            [p] => Some(p),
            _ => {
                let shown = self.ck.show(&expected);
                let at = lambda.params.get(1).map_or(lambda.capture_span, |p| p.span);
                self.ck.error(
                    codes::E0312,
                    at,
                    format!(
                        "a kernel takes exactly one parameter, the index; it has {}",
                        lambda.params.len()
                    ),
                    "kernel",
                    format!("write `({shown} idx)`"),
                );
                None
            }
        };
        let mut param_ty = Type::Error;
        let mut param_name = String::new();
        if let Some(p) = param {
            let d = self.resolve(&p.specs, &p.declarator.modifiers, &p.declarator.array_dims);
            param_ty = d.ty;
            param_name = p
                .declarator
                .name
                .as_ref()
                .map_or_else(String::new, |n| n.name.clone());
            if !param_ty.is_error() && !domain.is_error() && param_ty != expected {
                let (got, want, dom) = (
                    self.ck.show(&param_ty),
                    self.ck.show(&expected),
                    self.ck.show(domain),
                );
                let hint = match (&param_ty, &expected) {
                    (Type::TiledIndex(a), Type::TiledIndex(b)) if a.rank == b.rank => {
                        format!("the tile is <{b}>, the index says <{a}>")
                    }
                    (Type::Index(_), Type::TiledIndex(_)) => {
                        "a tiled launch passes a `tiled_index`".into()
                    }
                    (Type::TiledIndex(_), Type::Index(_)) => {
                        "only a tiled extent (`e.tile<...>()`) passes a `tiled_index`".into()
                    }
                    _ => "the index's rank must be the extent's".into(),
                };
                self.ck.report(
                    Diagnostic::error(codes::E0400, p.span, format!("the kernel takes `{got}`, but the compute domain `{dom}` passes `{want}`"))
                        .with_label(format!("should be `{want}`"))
                        .with_secondary(domain_span, format!("the compute domain is `{dom}`"))
                        .with_note(hint)
                        .with_note("MSVC reports this as C3577")
                        .with_help(format!("declare the parameter as `{want}`")),
                );
                param_ty = expected.clone();
            }
        }
        // Visible locals of the function around the lambda, for captures.
        let mut outer: Vec<(String, Capturable)> = Vec::new();
        for scope in &self.scopes {
            for (name, id) in scope {
                if let Some(info) = self.local(*id) {
                    outer.push((
                        name.clone(),
                        Capturable {
                            local: *id,
                            info: info.clone(),
                        },
                    ));
                }
            }
        }
        // A kernel inside a kernel is reported above; an enclosing kernel's
        // captures are not visible here.
        let mut explicit = Vec::new();
        for c in &lambda.captures {
            if c.name.name == "this" {
                self.ck.error(
                    codes::E0307,
                    c.span,
                    "a kernel cannot capture `this`",
                    "`this` capture",
                    "",
                );
                continue;
            }
            if !outer.iter().any(|(n, _)| n == &c.name.name) {
                self.ck.error(
                    codes::E0200,
                    c.name.span,
                    format!("cannot capture `{}`: no such local variable", c.name.name),
                    "not declared",
                    "",
                );
                continue;
            }
            explicit.push((c.name.name.clone(), c.by_ref, c.span));
        }
        let func = Function {
            name: "<kernel>".into(),
            kind: FunctionKind::Kernel {
                tile,
                captures: Vec::new(),
            },
            restriction: Restriction {
                amp: true,
                cpu: restriction.cpu,
            },
            params: 1,
            locals: vec![Local {
                name: param_name.clone(),
                ty: param_ty,
                by_ref: false,
                is_const: true,
                space: Space::Private,
                span: param.map_or(span, |p| p.span),
            }],
            ret: Type::Void,
            ret_by_ref: false,
            body: None,
            stmt_count: 0,
            span,
        };
        let outer_consts = self.visible_consts().locals;
        let id = crate::declare::reserve_function(self.ck, func.clone());
        let mut kcx = FnCx::new(self.ck, func);
        if !param_name.is_empty() {
            kcx.scopes[0].insert(param_name, LocalId(0));
        }
        // Extra parameters (already reported) stay visible so that their uses
        // are not reported again as unknown names.
        for p in lambda.params.iter().skip(1) {
            let d = kcx.resolve(&p.specs, &p.declarator.modifiers, &p.declarator.array_dims);
            if let Some(n) = &p.declarator.name {
                kcx.declare(Local {
                    name: n.name.clone(),
                    ty: d.ty,
                    by_ref: d.by_ref,
                    is_const: false,
                    space: Space::Private,
                    span: p.span,
                });
            }
        }
        kcx.kernel = Some(KernelCx {
            outer,
            default_capture: lambda.default_capture,
            is_mutable: lambda.is_mutable,
            outer_consts,
            explicit,
            made: Vec::new(),
            capture_span: lambda.capture_span,
        });
        let body = kcx.block(&lambda.body);
        let made = kcx.kernel.take().map(|k| k.made).unwrap_or_default();
        let mut func = kcx.func;
        func.body = Some(body);
        *self.ck.program.function_mut(id) = func;
        Some((id, made))
    }
}

impl FnCx<'_> {
    /// An aggregate initialiser as a value (`p = {1, 2}`, `P{1, 2}`); missing
    /// members are zero.
    fn init_as_expr(&mut self, init: Option<Init>, ty: &Type, span: Span) -> Expr {
        match init {
            Some(Init::Expr(e)) => e,
            Some(Init::List(parts)) => {
                let mut exprs = Vec::new();
                for part in parts {
                    match part {
                        Init::Expr(e) => exprs.push(e),
                        _ => {
                            self.ck.error(
                                codes::E0211,
                                span,
                                "nested or partial braced lists are supported only in declarations",
                                "here",
                                "declare a variable with this initialiser and use it",
                            );
                            return error_expr(span);
                        }
                    }
                }
                mk(ExprKind::Aggregate(exprs), ty.clone(), false, span)
            }
            _ => error_expr(span),
        }
    }
}
