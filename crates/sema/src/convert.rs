//! Conversions: integral promotion, the usual arithmetic conversions, and the
//! implicit conversions C++ applies when a value of one type is used where
//! another is expected.

use crate::cx::{FnCx, error_expr};
use tessera_diagnostics::{Diagnostic, codes};
use tessera_ir::{Expr, ExprKind, Intrinsic, Scalar, TiledIndexPart, Type};

/// Integral promotion: `bool`, the character types, `short` and `unsigned
/// short` become `int`.
pub fn promote(s: Scalar) -> Scalar {
    match s {
        Scalar::Bool
        | Scalar::Char
        | Scalar::UChar
        | Scalar::Short
        | Scalar::UShort
        | Scalar::WChar => Scalar::Int,
        other => other,
    }
}

/// The usual arithmetic conversions (C++ [expr.arith.conv]) for LP64.
pub fn common(a: Scalar, b: Scalar) -> Scalar {
    if a == Scalar::Double || b == Scalar::Double {
        return Scalar::Double;
    }
    if a == Scalar::Float || b == Scalar::Float {
        return Scalar::Float;
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    if a.is_unsigned() == b.is_unsigned() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (unsigned, signed) = if a.is_unsigned() { (a, b) } else { (b, a) };
    if unsigned.rank() >= signed.rank() {
        unsigned
    } else if signed.size() > unsigned.size() {
        // `long` holds every `unsigned int`.
        signed
    } else {
        match signed {
            Scalar::Long => Scalar::ULong,
            _ => Scalar::UInt,
        }
    }
}

impl FnCx<'_> {
    /// Wraps `e` in a conversion to scalar `to` if it has another scalar type.
    pub fn convert_scalar(&mut self, e: Expr, to: Scalar) -> Expr {
        if e.ty == Type::Scalar(to) || e.ty.is_error() {
            return e;
        }
        let span = e.span;
        Expr {
            kind: ExprKind::Convert(Box::new(e)),
            ty: Type::Scalar(to),
            place: false,
            span,
        }
    }

    /// Converts `e` implicitly to `to`, reporting E0203 when C++ has no such
    /// conversion. `what` says where the value goes ("the initialiser of `x`").
    pub fn coerce(&mut self, e: Expr, to: &Type, what: &str) -> Expr {
        if &e.ty == to || e.ty.is_error() || to.is_error() {
            return e;
        }
        let span = e.span;
        // `int* p = v.begin();`, `it = v.end();`: a vector's iterator as a
        // pointer to its element.
        let e = if matches!(e.ty, Type::Iterator(_)) && matches!(to, Type::Ptr { .. }) {
            let e = crate::library::materialize_iterator(self, e);
            if &e.ty == to || e.ty.is_error() {
                return e;
            }
            e
        } else {
            e
        };
        let e = match crate::library::coerce_iterator(self, e, to) {
            Ok(done) => return done,
            Err(e) => e,
        };
        let e = match crate::library::coerce_array_to_view(self, e, to) {
            Ok(done) => return done,
            Err(e) => e,
        };
        // `std::wstring s = p;` of a `const wchar_t*`, and
        // `const wchar_t* p = L"...";`.
        let e = match to {
            Type::WideStr => match crate::library::wstring::from_pointer(self, e) {
                Ok(done) => return done,
                Err(e) => e,
            },
            Type::Ptr {
                elem,
                is_const: true,
            } if **elem == Type::Scalar(Scalar::WChar) => {
                match crate::library::wstring::literal_pointer(e) {
                    Ok(done) => return done,
                    Err(e) => e,
                }
            }
            _ => e,
        };
        let e = match self.pointer_coerce(e, to) {
            Ok(done) => return done,
            Err(e) => e,
        };
        let e = match self.fn_pointer_coerce(e, to) {
            Ok(done) => return done,
            Err(e) => e,
        };
        // A class object with a conversion function: `float f = meters;`,
        // and `B b = a;` through `A::operator B()` or a constructor `B(A)`
        // (for classes unrelated by derivation).
        let e = match (&e.ty, to) {
            (Type::Struct(src), Type::Struct(dst))
                if src != dst && !self.ck.derives_from(*src, *dst) =>
            {
                let e = match self.user_conversion(e, to, false) {
                    Ok(done) => return done,
                    Err(e) => e,
                };
                if !self.converting
                    && self
                        .ck
                        .classes
                        .get(dst)
                        .is_some_and(|c| !c.ctors.is_empty())
                    && let Some(built) = self.construct_object(*dst, vec![e.clone()], true, span)
                {
                    return built;
                }
                e
            }
            (_, Type::Struct(_)) => e,
            _ => match self.user_conversion(e, to, false) {
                Ok(done) => return done,
                Err(e) => e,
            },
        };
        // A class with a converting constructor: `Result r = 3;`,
        // `return failure_code;` from a function returning the class.
        if let Type::Struct(id) = to
            && !self.converting
            && !matches!(e.ty, Type::Struct(_))
            && self.ck.classes.get(id).is_some_and(|c| !c.ctors.is_empty())
            && let Some(built) = self.construct_object(*id, vec![e.clone()], true, span)
        {
            return built;
        }
        let e = match to {
            Type::Struct(_) => self.to_base(e, to),
            _ => e,
        };
        if &e.ty == to {
            return e;
        }
        match (&e.ty, to) {
            (Type::Scalar(_), Type::Scalar(t)) => return self.convert_scalar(e, *t),
            (Type::TiledIndex(shape), Type::Index(rank)) if shape.rank == *rank => {
                return Expr {
                    kind: ExprKind::Intrinsic {
                        op: Intrinsic::TiledIndexPart(TiledIndexPart::Global),
                        args: vec![e],
                    },
                    ty: to.clone(),
                    place: false,
                    span,
                };
            }
            (
                Type::ArrayView {
                    elem,
                    rank,
                    read_only: false,
                },
                Type::ArrayView {
                    elem: e2,
                    rank: r2,
                    read_only: true,
                },
            ) if elem == e2 && rank == r2 => {
                return Expr {
                    kind: ExprKind::Convert(Box::new(e)),
                    ty: to.clone(),
                    place: false,
                    span,
                };
            }
            (Type::TiledExtent(shape), Type::Extent(rank)) if shape.rank == *rank => {
                return Expr {
                    kind: ExprKind::Convert(Box::new(e)),
                    ty: to.clone(),
                    place: false,
                    span,
                };
            }
            (Type::Array(elem, _), Type::Vector(e2)) if elem == e2 => {
                return Expr {
                    kind: ExprKind::Intrinsic {
                        op: Intrinsic::ArrayToVector,
                        args: vec![e],
                    },
                    ty: to.clone(),
                    place: false,
                    span,
                };
            }
            _ => {}
        }
        let from = self.ck.show(&e.ty);
        let want = self.ck.show(to);
        let mut d = Diagnostic::error(
            codes::E0203,
            span,
            format!("mismatched types: expected `{want}`, found `{from}`"),
        )
        .with_label(format!("this is `{from}`"))
        .with_note(format!("the value is used as {what}"));
        if let (
            Type::ArrayView {
                read_only: true, ..
            },
            Type::ArrayView {
                read_only: false, ..
            },
        ) = (&e.ty, to)
        {
            d = d.with_help("a view of `const` elements cannot become a writable view; declare the target `array_view<const T, N>`");
        }
        self.ck.report(d);
        error_expr(span)
    }

    /// Converts a condition to `bool` (scalars only).
    pub fn condition(&mut self, e: Expr) -> Expr {
        self.ck.check_not_scoped(e.span);
        // A class object with `(explicit) operator bool()` or another
        // conversion to a scalar.
        let e = match self.user_conversion(e, &Type::BOOL, true) {
            Ok(done) => return done,
            Err(e) => e,
        };
        match e.ty {
            Type::Scalar(_) => self.convert_scalar(e, Scalar::Bool),
            // `while (in >> x)`: the stream's `explicit operator bool`.
            Type::StringStream(_) | Type::Ostream => crate::library::sstream::truth(e),
            Type::Ptr { .. } | Type::Null | Type::FnPtr(_) => {
                let span = e.span;
                Expr {
                    kind: ExprKind::Convert(Box::new(e)),
                    ty: Type::BOOL,
                    place: false,
                    span,
                }
            }
            Type::Error => e,
            _ => {
                let shown = self.ck.show(&e.ty);
                self.ck.report(
                    Diagnostic::error(
                        codes::E0203,
                        e.span,
                        format!("`{shown}` cannot be used as a condition"),
                    )
                    .with_label("not a number or `bool`")
                    .with_help("compare it with something, e.g. `x != 0`"),
                );
                error_expr(e.span)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions() {
        assert_eq!(common(Scalar::Int, Scalar::Float), Scalar::Float);
        assert_eq!(common(Scalar::Float, Scalar::Double), Scalar::Double);
        assert_eq!(common(Scalar::Char, Scalar::Bool), Scalar::Int);
        assert_eq!(common(Scalar::Int, Scalar::UInt), Scalar::UInt);
        assert_eq!(common(Scalar::Long, Scalar::UInt), Scalar::Long);
        assert_eq!(common(Scalar::Long, Scalar::ULong), Scalar::ULong);
        assert_eq!(common(Scalar::Int, Scalar::Long), Scalar::Long);
    }
}
