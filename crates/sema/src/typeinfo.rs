//! `typeid(T)` and `typeid(expr)` in host code. `typeid` of an object of a
//! polymorphic class (whose answer is its dynamic type) is refused, so
//! every `typeid` names the static type of its operand and is known while
//! checking: the forms whose
//! answer C++ fixes are folded to constants (`typeid(a) == typeid(b)`,
//! `!=`, `before` of a type with itself). What each implementation answers
//! its own way (`name()`, the order `before` gives two different types) and
//! a `std::type_info` kept as a value are refused. In amp code `typeid` is
//! not allowed (C++ AMP, MSVC C3591).

use crate::cx::{FnCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Type};
use tessera_syntax::ast::{self, BinaryOp, ExprKind as K};

/// The type a `typeid` names, and whether it was written with a spelling
/// Tessera merges with another type (`long long` is `long` in Tessera, a
/// distinct type in C++).
struct Named {
    ty: Type,
    merged_spelling: bool,
}

impl FnCx<'_> {
    /// The `typeid` forms Tessera answers, when `e` is one: a comparison of
    /// two `typeid`s, a call of a `std::type_info` member on one, or a
    /// `typeid` alone (refused). `None` for any other expression.
    pub(crate) fn typeid_form(&mut self, e: &ast::Expr) -> Option<Expr> {
        let span = e.span;
        match &e.kind {
            K::TypeidType(_) | K::TypeidExpr(_) => {
                let named = self.typeid_operand(e)?;
                if named.is_some() {
                    self.ck.error(
                        codes::E0211,
                        span,
                        "a `std::type_info` kept as a value is not supported",
                        "`typeid` used alone",
                        "compare two `typeid`s with `==` or `!=`",
                    );
                }
                Some(error_expr(span))
            }
            K::Binary {
                op: op @ (BinaryOp::Eq | BinaryOp::Ne),
                lhs,
                rhs,
            } if is_typeid(lhs) || is_typeid(rhs) => {
                let (Some(a), Some(b)) = (self.typeid_operand(lhs), self.typeid_operand(rhs))
                else {
                    return Some(self.typeid_misuse(lhs, rhs, span));
                };
                let (Some(a), Some(b)) = (a, b) else {
                    return Some(error_expr(span));
                };
                let Some(same) = self.same_type(&a, &b, span) else {
                    return Some(error_expr(span));
                };
                Some(bool_const(same == (*op == BinaryOp::Eq), span))
            }
            K::Call { callee, args } => {
                let K::Member {
                    base, name, arrow, ..
                } = &callee.kind
                else {
                    return None;
                };
                if *arrow || !is_typeid(base) {
                    return None;
                }
                let Some(a) = self.typeid_operand(base)? else {
                    return Some(error_expr(span));
                };
                match (name.name.as_str(), args.as_slice()) {
                    ("before", [other]) if is_typeid(other) => {
                        let Some(b) = self.typeid_operand(other)? else {
                            return Some(error_expr(span));
                        };
                        let Some(same) = self.same_type(&a, &b, span) else {
                            return Some(error_expr(span));
                        };
                        if same {
                            return Some(bool_const(false, span));
                        }
                        self.ck.error(
                            codes::E0211,
                            span,
                            "`type_info::before` of two different types is not supported",
                            "the order is the implementation's own",
                            "compare the types with `==` or `!=`",
                        );
                        Some(error_expr(span))
                    }
                    ("name", []) => {
                        self.ck.error(
                            codes::E0211,
                            span,
                            "`type_info::name()` is not supported: the name is implementation-defined (`int` with MSVC, `i` with g++)",
                            "implementation-defined text",
                            "print a name of your own for the type",
                        );
                        Some(error_expr(span))
                    }
                    _ => {
                        self.ck.error(
                            codes::E0211,
                            span,
                            format!(
                                "`type_info::{}` is not supported with these arguments",
                                name.name
                            ),
                            "not supported",
                            "compare two `typeid`s with `==` or `!=`",
                        );
                        Some(error_expr(span))
                    }
                }
            }
            _ => None,
        }
    }

    /// A comparison of a `typeid` with something else.
    fn typeid_misuse(&mut self, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> Expr {
        if !(self.in_amp() && (is_typeid(lhs) || is_typeid(rhs))) {
            self.ck.error(
                codes::E0211,
                span,
                "a `typeid` compares only with another `typeid` here",
                "not two `typeid`s",
                "write `typeid(a) == typeid(b)`",
            );
        }
        error_expr(span)
    }

    /// The type the `typeid` `e` names: `None` when `e` is no `typeid`,
    /// `Some(None)` when it is refused or its operand fails to check
    /// (already reported).
    fn typeid_operand(&mut self, e: &ast::Expr) -> Option<Option<Named>> {
        let named = match &e.kind {
            K::TypeidType(t) => {
                if self.typeid_in_amp(e.span) {
                    return Some(None);
                }
                let d = self.resolve(&t.specs, &t.modifiers, &[]);
                Named {
                    ty: d.ty,
                    merged_spelling: crate::traits::merged_spelling(&t.specs.ty),
                }
            }
            K::TypeidExpr(operand) => {
                if self.typeid_in_amp(e.span) {
                    return Some(None);
                }
                // Unevaluated, so only the operand's static type counts,
                // except for an object of a polymorphic class, whose
                // dynamic type `typeid` names.
                let lowered = self.expr(operand);
                if let Type::Struct(id) = lowered.ty
                    && lowered.place
                    && self.ck.program.dynamic.contains_key(&id)
                {
                    let shown = self.ck.show(&lowered.ty);
                    self.ck.error(
                        codes::E0211,
                        operand.span,
                        format!("`typeid` of an object of the polymorphic class `{shown}` is not supported yet"),
                        "names the object's dynamic type",
                        "compare the types with a virtual function instead",
                    );
                    return Some(None);
                }
                Named {
                    ty: lowered.ty,
                    merged_spelling: false,
                }
            }
            _ => return None,
        };
        if named.ty.is_error() {
            return Some(None);
        }
        Some(Some(named))
    }

    /// Reports `typeid` in amp code (C3591); true when it is there.
    fn typeid_in_amp(&mut self, span: Span) -> bool {
        if !self.in_amp() {
            return false;
        }
        self.ck.report(
            Diagnostic::error(codes::E0304, span, "`typeid` cannot be used in amp code")
                .with_label("not allowed in `restrict(amp)` code")
                .with_msvc("C3591")
                .with_help("compare types in host code, or with a template"),
        );
        true
    }

    /// Whether two `typeid`s name the same type; `None` (reported) when
    /// Tessera cannot tell (`long long` and `long` are one type in Tessera).
    fn same_type(&mut self, a: &Named, b: &Named, span: Span) -> Option<bool> {
        if a.ty == b.ty && a.merged_spelling != b.merged_spelling {
            self.ck.error(
                codes::E0211,
                span,
                "`typeid` of `long long` or `signed char` is not supported: Tessera gives them the type of `long` and `char`",
                "cannot tell these types apart",
                "compare with `long` or `char`",
            );
            return None;
        }
        Some(a.ty == b.ty)
    }
}

/// True for a `typeid` expression.
fn is_typeid(e: &ast::Expr) -> bool {
    matches!(e.kind, K::TypeidType(_) | K::TypeidExpr(_))
}

fn bool_const(v: bool, span: Span) -> Expr {
    mk(ExprKind::Const(Const::Bool(v)), Type::BOOL, false, span)
}
