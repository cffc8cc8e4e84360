//! Casts from a base class to a class derived from it:
//! `static_cast<D*>(b)`, `static_cast<D&>(b)` (and the C-style casts that
//! mean them), `dynamic_cast<D*>(b)` and `dynamic_cast<D&>(b)`. Each is an
//! `Intrinsic::Downcast` of a pointer; the reference forms take the
//! operand's address and dereference the result, and a failed
//! `dynamic_cast` to a reference throws `std::bad_cast` (from `<typeinfo>`).

use crate::cx::{FnCx, error_expr};
use crate::expr::mk;
use crate::pointer::ptr_to;
use crate::types::Declared;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, ExprKind, Intrinsic, StructId, Type};
use tessera_syntax::ast;

impl FnCx<'_> {
    /// `static_cast<T>(e)` or `(T)e` when it converts a pointer or a
    /// reference to a base class into one to a derived class; `Err` gives
    /// `e` back for every other cast.
    pub(crate) fn static_downcast(
        &mut self,
        e: Expr,
        ty: &Type,
        by_ref: bool,
        to_const: bool,
        span: Span,
    ) -> Result<Expr, Expr> {
        if by_ref {
            let (Type::Struct(from), Type::Struct(to)) = (&e.ty, ty) else {
                return Err(e);
            };
            let (from, to) = (*from, *to);
            if from == to || !e.place || !self.ck.derives_from(to, from) {
                return Err(e);
            }
            let ptr = self.address_of(e, span);
            let Some(out) = self.downcast_pointer(ptr, to, to_const, false, span) else {
                return Ok(error_expr(span));
            };
            return Ok(self.deref(out, span));
        }
        let (
            Type::Ptr { elem: a, .. },
            Type::Ptr {
                elem: b,
                is_const: to_const,
            },
        ) = (&e.ty, ty)
        else {
            return Err(e);
        };
        let (Type::Struct(from), Type::Struct(to)) = (a.as_ref(), b.as_ref()) else {
            return Err(e);
        };
        let (from, to, to_const) = (*from, *to, *to_const);
        if from == to || !self.ck.derives_from(to, from) {
            return Err(e);
        }
        Ok(self
            .downcast_pointer(e, to, to_const, false, span)
            .unwrap_or_else(|| error_expr(span)))
    }

    /// `dynamic_cast<T>(operand)`.
    pub(crate) fn dynamic_cast(
        &mut self,
        ty: &ast::TypeName,
        operand: &ast::Expr,
        span: Span,
    ) -> Expr {
        if self.in_amp() {
            self.forbidden(span, "`dynamic_cast`", "C3587");
            return error_expr(span);
        }
        let to_const = self.ck.specs_const(&ty.specs);
        let Declared { ty, by_ref } = self.resolve(&ty.specs, &ty.modifiers, &[]);
        let e = self.expr(operand);
        if ty.is_error() || e.ty.is_error() {
            return error_expr(span);
        }
        if by_ref {
            let Type::Struct(to) = ty else {
                return self.bad_dynamic_cast(&e.ty, &ty, by_ref, span);
            };
            let from = match &e.ty {
                Type::Struct(from) if e.place => *from,
                Type::Struct(_) => {
                    self.ck.error(
                        codes::E0203,
                        span,
                        "`dynamic_cast` to a reference of a temporary object",
                        "not an lvalue",
                        "cast a variable, or cast to a pointer",
                    );
                    return error_expr(span);
                }
                _ => return self.bad_dynamic_cast(&e.ty, &ty, by_ref, span),
            };
            // An upcast is the implicit conversion.
            if from == to || self.ck.derives_from(from, to) {
                let ptr = self.address_of(e, span);
                let target = ptr_to(Type::Struct(to), to_const);
                let ptr = self.coerce(ptr, &target, "the operand of `dynamic_cast`");
                return self.deref(ptr, span);
            }
            if !self.ck.derives_from(to, from) {
                return self.bad_dynamic_cast(&Type::Struct(from), &ty, by_ref, span);
            }
            let Some(bad_cast) = self.ck.structs.get("std::bad_cast").copied() else {
                self.ck.error(
                    codes::E0211,
                    span,
                    "`dynamic_cast` to a reference needs `std::bad_cast`",
                    "may throw `std::bad_cast`",
                    "include <typeinfo>",
                );
                return error_expr(span);
            };
            let ptr = self.address_of(e, span);
            let Some(out) = self.downcast_pointer(ptr, to, to_const, true, span) else {
                return error_expr(span);
            };
            let checked = self.or_throw(out, bad_cast, span);
            return self.deref(checked, span);
        }
        let e = self.pointer_operand(e);
        let (Type::Ptr { elem: a, .. }, Type::Ptr { elem: b, is_const }) = (&e.ty, &ty) else {
            return self.bad_dynamic_cast(&e.ty, &ty, by_ref, span);
        };
        let (Type::Struct(from), Type::Struct(to)) = (a.as_ref(), b.as_ref()) else {
            return self.bad_dynamic_cast(&e.ty, &ty, by_ref, span);
        };
        let (from, to, is_const) = (*from, *to, *is_const);
        if from == to || self.ck.derives_from(from, to) {
            let out = self.coerce(e, &ty, "the operand of `dynamic_cast`");
            return Expr { span, ..out };
        }
        if !self.ck.derives_from(to, from) {
            return self.bad_dynamic_cast(&e.ty, &ty, by_ref, span);
        }
        self.downcast_pointer(e, to, is_const, true, span)
            .unwrap_or_else(|| error_expr(span))
    }

    /// The downcast of `ptr` (a pointer to a base of `to`) to a pointer to
    /// `to`; `None` after an error.
    fn downcast_pointer(
        &mut self,
        ptr: Expr,
        to: StructId,
        to_const: bool,
        dynamic: bool,
        span: Span,
    ) -> Option<Expr> {
        let (from, from_const) = match &ptr.ty {
            Type::Ptr { elem, is_const } => match elem.as_ref() {
                Type::Struct(id) => (*id, *is_const),
                _ => return None,
            },
            _ => return None,
        };
        let (shown_from, shown_to) = (
            self.ck.show(&ptr.ty),
            self.ck.show(&ptr_to(Type::Struct(to), to_const)),
        );
        if from_const && !to_const {
            self.ck.error(
                codes::E0203,
                span,
                format!("a cast from `{shown_from}` to `{shown_to}` casts away `const`"),
                "drops `const`",
                "cast to a pointer or reference to `const`",
            );
            return None;
        }
        if dynamic && !self.ck.program.dynamic.contains_key(&from) {
            let base = self.ck.show(&Type::Struct(from));
            self.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    span,
                    format!("`dynamic_cast` from `{base}`, which is not a polymorphic class"),
                )
                .with_label("the operand's class has no virtual functions")
                .with_msvc("C2683")
                .with_help("`dynamic_cast` to a derived class needs a base with a virtual function; `static_cast` converts when the object's class is known"),
            );
            return None;
        }
        let Some(strip) = self.base_path(to, from) else {
            self.ck.error(
                codes::E0211,
                span,
                format!("a cast from `{shown_from}` to `{shown_to}` is not supported yet"),
                "not supported",
                "",
            );
            return None;
        };
        Some(mk(
            ExprKind::Intrinsic {
                op: Intrinsic::Downcast { to, strip, dynamic },
                args: vec![ptr],
            },
            ptr_to(Type::Struct(to), to_const),
            false,
            span,
        ))
    }

    /// `ptr`, or a thrown `std::bad_cast` when it is null (the result of a
    /// `dynamic_cast` to a reference).
    fn or_throw(&mut self, ptr: Expr, bad_cast: StructId, span: Span) -> Expr {
        let ty = ptr.ty.clone();
        let (setup, ptr) = self.evaluated_once(ptr);
        let test = mk(
            ExprKind::Convert(Box::new(ptr.clone())),
            Type::BOOL,
            false,
            span,
        );
        let Some(exception) = self.construct_object(bad_cast, Vec::new(), false, span) else {
            return error_expr(span);
        };
        let throw = mk(
            ExprKind::Throw(Some(Box::new(Expr {
                place: false,
                ..exception
            }))),
            Type::Void,
            false,
            span,
        );
        let thrown = mk(
            ExprKind::Comma {
                first: Box::new(throw),
                second: Box::new(mk(ExprKind::Null, ty.clone(), false, span)),
            },
            ty.clone(),
            false,
            span,
        );
        let chosen = mk(
            ExprKind::Conditional {
                cond: Box::new(test),
                then: Box::new(ptr),
                els: Box::new(thrown),
            },
            ty.clone(),
            false,
            span,
        );
        match setup {
            None => chosen,
            Some(first) => mk(
                ExprKind::Comma {
                    first: Box::new(first),
                    second: Box::new(chosen),
                },
                ty,
                false,
                span,
            ),
        }
    }

    /// A `dynamic_cast` Tessera does not make: to or from what is not a
    /// class, or between classes neither of which derives from the other.
    fn bad_dynamic_cast(&mut self, from: &Type, to: &Type, by_ref: bool, span: Span) -> Expr {
        let (a, b) = (self.ck.show(from), self.ck.show(to));
        let b = if by_ref { format!("{b}&") } else { b };
        let class_ptr = |t: &Type| match t {
            Type::Ptr { elem, .. } => matches!(elem.as_ref(), Type::Struct(_)),
            _ => false,
        };
        if (by_ref && matches!((from, to), (Type::Struct(_), Type::Struct(_))))
            || (class_ptr(from) && class_ptr(to))
        {
            self.ck.error(
                codes::E0211,
                span,
                format!("`dynamic_cast` from `{a}` to `{b}` is not supported yet"),
                "neither class derives from the other",
                "Tessera casts between a class and the classes derived from it",
            );
        } else {
            self.ck.report(
                Diagnostic::error(
                    codes::E0203,
                    span,
                    format!("`dynamic_cast` from `{a}` to `{b}`"),
                )
                .with_label("not a pointer or reference to a class")
                .with_msvc("C2680")
                .with_help("`dynamic_cast` converts pointers and references to classes (`void*` is not supported yet)"),
            );
        }
        error_expr(span)
    }
}
