//! `std::tuple` (`<tuple>`): `std::tuple<A, B>` as a type, `std::make_tuple`
//! and `std::get<N>`, on the host.
//!
//! A tuple type is a struct the checker makes once per element list
//! (`std::tuple<int, float>`), with one field per element, so the engines
//! copy, store and pass it as any struct. An element of an enumeration
//! type is held as its integer, its enumeration kept in
//! `Checker::tuples`, so that `std::get<0>(t)` is again a value of the
//! enumeration (C++'s conversion rules apply to it).

use super::{Side, arity, check_side};
use crate::class::ClassInfo;
use crate::cx::{Checker, FnCx, error_expr};
use crate::enums::EnumId;
use crate::expr::mk;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{ExprKind, StructDef, StructId, Type};
use tessera_syntax::ast::{self, TemplateArg};

/// The types a tuple may hold here: numbers (and enumerations), classes,
/// indices and extents. Views, containers and pointers are left out: their
/// copies share or point into data, which a tuple's copy semantics would
/// have to follow.
fn element_ok(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Scalar(_) | Type::Struct(_) | Type::Index(_) | Type::Extent(_)
    )
}

/// The struct of `std::tuple<elems>`, made on first use.
pub fn tuple_type(ck: &mut Checker, elems: &[(Type, Option<EnumId>)]) -> Type {
    let shown: Vec<String> = elems
        .iter()
        .map(|(t, e)| match e.and_then(|e| ck.enums.get(e)) {
            Some(info) => info.name.clone(),
            None => ck.show(t),
        })
        .collect();
    let name = format!("std::tuple<{}>", shown.join(", "));
    if let Some(&id) = ck.structs.get(&name) {
        return Type::Struct(id);
    }
    let id = StructId(ck.program.structs.len() as u32);
    ck.program.structs.push(StructDef {
        name: name.clone(),
        fields: elems
            .iter()
            .enumerate()
            .map(|(i, (t, _))| (format!("_{i}"), t.clone()))
            .collect(),
        is_union: false,
        span: Span::default(),
    });
    ck.classes.insert(
        id,
        ClassInfo {
            name: name.clone(),
            ..ClassInfo::default()
        },
    );
    ck.structs.insert(name, id);
    ck.tuples
        .insert(id, elems.iter().map(|(_, e)| *e).collect());
    Type::Struct(id)
}

/// `std::tuple<A, B>` written as a type.
pub fn written_type(
    ck: &mut Checker,
    path: &ast::Path,
    args: &[TemplateArg],
    consts: crate::types::ConstLookup<'_>,
) -> Type {
    let mut elems = Vec::new();
    for a in args {
        let TemplateArg::Type(t) = a else {
            ck.error(
                codes::E0213,
                path.span,
                "`std::tuple` takes types",
                "a value as a tuple element",
                "",
            );
            return Type::Error;
        };
        let d = crate::types::resolve_type_name(ck, t, consts);
        if d.ty.is_error() {
            return Type::Error;
        }
        if d.by_ref || !element_ok(&d.ty) {
            let shown = ck.show(&d.ty);
            ck.error(
                codes::E0211,
                t.span,
                format!("tuples of `{shown}` are not supported yet"),
                "tuple element",
                "tuples hold numbers, enumerations, classes, indices and extents",
            );
            return Type::Error;
        }
        elems.push((d.ty, ck.enum_of_specs(&t.specs)));
    }
    tuple_type(ck, &elems)
}

/// `std::make_tuple(a, b, ...)`: a tuple of the arguments' types.
pub fn make_tuple(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    args: Vec<tessera_ir::Expr>,
    span: Span,
) -> tessera_ir::Expr {
    let what = format!("`{}`", path.text());
    if !check_side(
        cx,
        Side::Host,
        &what,
        path.span,
        "C3930",
        "build the values one by one",
    ) {
        return error_expr(span);
    }
    let mut elems = Vec::new();
    for a in &args {
        if !element_ok(&a.ty) {
            let shown = cx.ck.show(&a.ty);
            cx.ck.error(
                codes::E0211,
                a.span,
                format!("tuples of `{shown}` are not supported yet"),
                "tuple element",
                "tuples hold numbers, enumerations, classes, indices and extents",
            );
            return error_expr(span);
        }
        elems.push((a.ty.clone(), cx.ck.enum_at(a.span)));
    }
    let ty = tuple_type(cx.ck, &elems);
    mk(ExprKind::Aggregate(args), ty, false, span)
}

/// `std::get<N>(t)`: element `N` of a tuple, a place when `t` is one.
pub fn get(
    cx: &mut FnCx<'_>,
    path: &ast::Path,
    targs: &[TemplateArg],
    args: Vec<tessera_ir::Expr>,
    span: Span,
) -> tessera_ir::Expr {
    let what = format!("`{}`", path.text());
    if !check_side(
        cx,
        Side::Host,
        &what,
        path.span,
        "C3930",
        "read the member directly",
    ) {
        return error_expr(span);
    }
    if !arity(cx, &what, &args, 1, "the tuple", span) {
        return error_expr(span);
    }
    let Some(t) = args.into_iter().next() else {
        return error_expr(span);
    };
    if t.ty.is_error() {
        return error_expr(span);
    }
    let Type::Struct(id) = t.ty else {
        let shown = cx.ck.show(&t.ty);
        cx.ck.error(
            codes::E0203,
            t.span,
            format!("{what} takes a `std::tuple`, not a `{shown}`"),
            "not a tuple",
            "",
        );
        return error_expr(span);
    };
    let Some(count) = cx.ck.tuples.get(&id).map(Vec::len) else {
        let shown = cx.ck.show(&t.ty);
        cx.ck.error(
            codes::E0203,
            t.span,
            format!("{what} takes a `std::tuple`, not a `{shown}`"),
            "not a tuple",
            "",
        );
        return error_expr(span);
    };
    let n = match targs {
        [TemplateArg::Expr(e)] => {
            let visible = cx.visible_consts();
            let lookup = move |n: &str| visible.get(n);
            crate::types::eval(cx.ck, e, &lookup)
        }
        _ => None,
    };
    let Some(n) = n else {
        cx.ck.error(
            codes::E0213,
            path.span,
            format!("{what} takes the element's position as a constant: `std::get<0>(t)`"),
            "no position",
            "",
        );
        return error_expr(span);
    };
    let Some(index) = usize::try_from(n).ok().filter(|i| *i < count) else {
        cx.ck.error(
            codes::E0213,
            path.span,
            format!(
                "this tuple has {count} element{}; there is no element {n}",
                if count == 1 { "" } else { "s" }
            ),
            "position out of range",
            "",
        );
        return error_expr(span);
    };
    let fields = cx.ck.struct_fields(id);
    let Some((_, fty)) = fields.get(index).cloned() else {
        return error_expr(span);
    };
    let place = t.place;
    mk(
        ExprKind::Field {
            base: Box::new(t),
            field: index as u32,
        },
        fty,
        place,
        span,
    )
}

/// The enumeration of `std::get<N>(t)` as lowered (`e`), if that element is
/// of one.
pub fn field_enum(ck: &Checker, e: &tessera_ir::Expr) -> Option<EnumId> {
    let ExprKind::Field { base, field } = &e.kind else {
        return None;
    };
    let Type::Struct(id) = base.ty else {
        return None;
    };
    ck.tuples.get(&id)?.get(*field as usize).copied().flatten()
}
