//! Constants a type names: `std::is_same<A, B>::value` (the tokens
//! `std::is_same<...>::value` become `__is_same<...>::value`, see
//! `tessera_syntax::member_types`), the `rank` of the concurrency types
//! (`extent<2>::rank`) and a class's `static const` members
//! (`Traits<int>::size`). They are values in expressions and, unlike other
//! names of members, constants where C++ wants one (`static_assert`, array
//! bounds, template arguments): [`fold`] puts their values in place before
//! a constant expression is evaluated.

use crate::cx::Checker;
use crate::template::Cv;
use crate::types::{ConstLookup, resolve_type_name};
use tessera_diagnostics::codes;
use tessera_ir::Type;
use tessera_syntax::ast::{self, BaseType, Builtin, ExprKind as K, TemplateArg};

/// The library template `std::is_same<A, B>` becomes.
pub const IS_SAME: &str = "__is_same";

/// A constant named through a type.
pub enum TypeConstant {
    /// Its value and type.
    Value(i64, Type),
    /// The type failed to check (already reported).
    Failed,
}

impl crate::cx::FnCx<'_> {
    /// `std::is_same<A, B>::value` in this scope; `None` for any other
    /// member named through a type (the `rank` and static members of
    /// classes are values the expression lowering finds itself).
    pub(crate) fn type_constant(
        &mut self,
        ty: &ast::TypeName,
        member: &ast::Ident,
    ) -> Option<TypeConstant> {
        if !matches!(&ty.specs.ty, BaseType::Template { path, .. } if path.last() == IS_SAME) {
            return None;
        }
        let visible = self.visible_consts();
        let lookup = move |n: &str| visible.get(n);
        let scope = self.decltype_scope();
        let saved = self.ck.decltype_scope.replace(scope);
        let c = type_member_constant(self.ck, ty, member, &lookup);
        self.ck.decltype_scope = saved;
        c
    }
}

/// The constant `ty::member` names, if it is one this module knows.
pub fn type_member_constant(
    ck: &mut Checker,
    ty: &ast::TypeName,
    member: &ast::Ident,
    consts: ConstLookup<'_>,
) -> Option<TypeConstant> {
    if let BaseType::Template { path, args } = &ty.specs.ty
        && path.last() == IS_SAME
    {
        if member.name != "value" {
            return None;
        }
        return Some(is_same(ck, args, ty.span, consts));
    }
    let d = resolve_type_name(ck, ty, consts);
    if d.ty.is_error() {
        return Some(TypeConstant::Failed);
    }
    if member.name == "rank"
        && let Some(rank) = rank_of(&d.ty)
    {
        return Some(TypeConstant::Value(i64::from(rank), Type::INT));
    }
    if let Type::Struct(id) = d.ty {
        let info = ck.classes.get(&id)?;
        let &(gid, _) = info.static_data.get(&member.name)?;
        let v = *ck.global_consts.get(&gid)?;
        let ty = ck
            .program
            .get_global(gid)
            .map_or(Type::INT, |g| g.ty.clone());
        return Some(TypeConstant::Value(v, ty));
    }
    None
}

/// The `rank` of a concurrency type.
pub fn rank_of(ty: &Type) -> Option<u8> {
    match ty {
        Type::Index(n) | Type::Extent(n) | Type::Array(_, n) => Some(*n),
        Type::ArrayView { rank, .. } => Some(*rank),
        Type::TiledIndex(shape) | Type::TiledExtent(shape) => Some(shape.rank),
        _ => None,
    }
}

/// `std::is_same<A, B>::value`: the same type, with the same qualifiers
/// and reference.
fn is_same(
    ck: &mut Checker,
    args: &[TemplateArg],
    span: tessera_diagnostics::Span,
    consts: ConstLookup<'_>,
) -> TypeConstant {
    let [TemplateArg::Type(a), TemplateArg::Type(b)] = args else {
        ck.error(
            codes::E0210,
            span,
            "`std::is_same` takes two types",
            "needs `<A, B>`",
            "write `std::is_same<A, B>::value`",
        );
        return TypeConstant::Failed;
    };
    let mut sides = Vec::new();
    for t in [a, b] {
        let d = resolve_type_name(ck, t, consts);
        if d.ty.is_error() {
            return TypeConstant::Failed;
        }
        let cv = if d.by_ref && t.modifiers.pointers == 0 {
            // `const int&`: the referent's qualifiers count.
            ck.specs_cv(&t.specs)
        } else {
            ck.written_cv(t)
        };
        sides.push((d.ty, d.by_ref, cv, merged_spelling(&t.specs.ty)));
    }
    let (ta, ra, ca, ma) = &sides[0];
    let (tb, rb, cb, mb) = &sides[1];
    if ta == tb && ma != mb {
        ck.error(
            codes::E0211,
            span,
            "`std::is_same` of `long long` or `signed char` with another type is not supported: Tessera gives them the type of `long` and `char`",
            "cannot tell these types apart",
            "compare with `long` or `char`",
        );
        return TypeConstant::Failed;
    }
    let same = ta == tb && ra == rb && same_cv(*ca, *cb);
    TypeConstant::Value(i64::from(same), Type::BOOL)
}

fn same_cv(a: Cv, b: Cv) -> bool {
    a.is_const == b.is_const && a.is_volatile == b.is_volatile
}

/// True for the spellings Tessera gives another type's type.
pub fn merged_spelling(ty: &BaseType) -> bool {
    matches!(
        ty,
        BaseType::Builtin(Builtin::LongLong | Builtin::UnsignedLongLong | Builtin::SignedChar)
    )
}

/// `e` with the constants named through types replaced by their values,
/// when it has any; `Err` when one of them failed (already reported).
pub fn fold(
    ck: &mut Checker,
    e: &ast::Expr,
    consts: ConstLookup<'_>,
) -> Result<Option<ast::Expr>, ()> {
    if !names_type_member(e) {
        return Ok(None);
    }
    let mut out = e.clone();
    fold_in(ck, &mut out, consts)?;
    Ok(Some(out))
}

/// True when a constant expression has a `T::member` in it.
fn names_type_member(e: &ast::Expr) -> bool {
    match &e.kind {
        K::TypeMember {
            template_args: None,
            ..
        } => true,
        K::Unary { operand, .. } | K::Cast { operand, .. } => names_type_member(operand),
        K::Binary { lhs, rhs, .. } => names_type_member(lhs) || names_type_member(rhs),
        K::Conditional { cond, then, els } => {
            names_type_member(cond) || names_type_member(then) || names_type_member(els)
        }
        K::Construct { args, .. } => args.iter().any(names_type_member),
        // `T::num` read as a name: `T` may be a template parameter.
        K::Name(path) => path.segments.len() == 2 && !path.global,
        _ => false,
    }
}

/// The value of `T::member` where `T` is an alias (a template parameter
/// bound in an instance, a `typedef`) of a class with a constant static
/// data member of that name.
fn alias_member_constant(ck: &Checker, path: &ast::Path) -> Option<i64> {
    let [prefix, member] = path.segments.as_slice() else {
        return None;
    };
    let Some(Type::Struct(id)) = ck.alias(&prefix.name) else {
        return None;
    };
    let info = ck.classes.get(id)?;
    let &(gid, _) = info.static_data.get(&member.name)?;
    ck.global_consts.get(&gid).copied()
}

fn fold_in(ck: &mut Checker, e: &mut ast::Expr, consts: ConstLookup<'_>) -> Result<(), ()> {
    match &mut e.kind {
        K::TypeMember {
            ty,
            member,
            template_args: None,
        } => match type_member_constant(ck, ty, member, consts) {
            Some(TypeConstant::Value(v, _)) => {
                e.kind = K::Int(v.to_string());
                Ok(())
            }
            Some(TypeConstant::Failed) => Err(()),
            None => Ok(()),
        },
        K::Unary { operand, .. } | K::Cast { operand, .. } => fold_in(ck, operand, consts),
        K::Binary { lhs, rhs, .. } => {
            fold_in(ck, lhs, consts)?;
            fold_in(ck, rhs, consts)
        }
        K::Conditional { cond, then, els } => {
            fold_in(ck, cond, consts)?;
            fold_in(ck, then, consts)?;
            fold_in(ck, els, consts)
        }
        K::Construct { args, .. } => {
            for a in args {
                fold_in(ck, a, consts)?;
            }
            Ok(())
        }
        K::Name(path) => {
            if let Some(v) = alias_member_constant(ck, path) {
                e.kind = K::Int(v.to_string());
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
