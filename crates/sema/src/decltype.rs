//! `decltype(expr)`: the type of an expression, found by typing the
//! expression where it is written. The operand is unevaluated: it is lowered
//! in a throwaway function that sees the locals of the code around it, and
//! nothing of it enters the program.
//!
//! C++'s rules (\[dcl.type.decltype\]): an unparenthesised name gives the
//! type its entity was declared with (a reference stays a reference);
//! any other expression gives `T&` for an lvalue and `T` otherwise. C++ AMP
//! types the operand in the restriction of the code around it, so a call
//! picks the overload that code would call; a trailing return type is in
//! the function's own restriction, with its parameters in scope.

use crate::cx::{Checker, FnCx, KernelCx};
use crate::template::Cv;
use std::collections::HashMap;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Local, LocalId, Restriction, Type};
use tessera_syntax::ast::{self, BaseType, ExprKind};

/// The code a `decltype` operand is typed in: the locals visible there and
/// its restriction.
#[derive(Clone, Debug)]
pub struct DecltypeScope {
    /// The locals of the function around the operand.
    pub locals: Vec<Local>,
    /// Its scopes, innermost last: name to local.
    pub scopes: Vec<HashMap<String, LocalId>>,
    /// The restriction of the code around the operand.
    pub restriction: Restriction,
    /// The object of the member function around it.
    pub this: Option<crate::class::ThisCx>,
    /// The kernel lambda around it, for the names it may capture.
    pub kernel: Option<KernelCx>,
}

/// What `decltype` found beside its type: the qualifiers and whether it is
/// a reference (`decltype((x))` is `T&`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DecltypeResult {
    /// `const`/`volatile` of the type (of the referent, for a reference).
    pub cv: Cv,
    /// The type is an lvalue reference.
    pub by_ref: bool,
}

/// True when the base type is, or names in its template arguments, a
/// `decltype` (the code around must then tell where it is written).
pub fn mentions_decltype(ty: &BaseType) -> bool {
    match ty {
        BaseType::Decltype { .. } => true,
        BaseType::Template { args, .. } => args.iter().any(|a| match a {
            ast::TemplateArg::Type(t) => mentions_decltype(&t.specs.ty),
            ast::TemplateArg::Expr(_) => false,
        }),
        _ => false,
    }
}

/// The qualifiers and reference of the `decltype` written at `span`, as
/// last resolved.
pub fn result_of(ck: &Checker, span: Span) -> DecltypeResult {
    ck.decltypes.get(&span).copied().unwrap_or_default()
}

/// True when the specifiers are a `decltype` that gave a reference and
/// the declarator adds no pointer: the declaration declares a reference.
pub fn names_reference(ck: &Checker, specs: &ast::DeclSpecs, modifiers: &ast::Modifiers) -> bool {
    match &specs.ty {
        BaseType::Decltype { span, .. } => modifiers.pointers == 0 && result_of(ck, *span).by_ref,
        _ => false,
    }
}

/// The type of `decltype(expr)` written at `span`, typed in the scope the
/// code around set (`Checker::decltype_scope`), or at namespace scope.
pub fn resolve(ck: &mut Checker, expr: &ast::Expr, parenthesised: bool, span: Span) -> Type {
    let scope = ck.decltype_scope.take();
    let restriction = scope
        .as_ref()
        .map(|s| s.restriction)
        .or(ck.local_class_context)
        .unwrap_or(Restriction {
            cpu: true,
            amp: false,
        });
    let mut func = crate::declare::host_function("<decltype>", span);
    func.restriction = restriction;
    if let Some(s) = &scope {
        func.locals = s.locals.clone();
    }
    let mut fcx = FnCx::new(ck, func);
    if let Some(s) = &scope {
        fcx.scopes = s.scopes.clone();
        fcx.this = s.this.clone();
        fcx.kernel = s.kernel.clone();
    }
    fcx.ck.unevaluated += 1;
    let (ty, result) = operand_type(&mut fcx, expr, parenthesised);
    fcx.ck.unevaluated -= 1;
    drop(fcx);
    ck.decltype_scope = scope;
    ck.decltypes.insert(span, result);
    ty
}

/// The type and qualifiers `decltype` gives for `expr`.
fn operand_type(
    fcx: &mut FnCx<'_>,
    expr: &ast::Expr,
    parenthesised: bool,
) -> (Type, DecltypeResult) {
    let none = DecltypeResult::default();
    if let ExprKind::Name(path) = &expr.kind
        && path.segments.len() == 1
        && fcx.lookup_local(path.last()).is_none()
        && !fcx.ck.globals.contains_key(path.last())
        && !captured(fcx, path.last())
        && fcx.ck.functions.contains_key(path.last())
    {
        fcx.ck.error(
            codes::E0211,
            expr.span,
            "`decltype` of a function (a function type) is not supported",
            "names a function",
            "name the function's return type with `decltype(f(args))`",
        );
        return (Type::Error, none);
    }
    // `decltype(S::m)`: a non-static data member named through its class,
    // which only an unevaluated operand may do; its declared type. Public
    // members only: naming another is left to the lookup below, which
    // refuses it.
    if !parenthesised
        && let ExprKind::Name(path) = &expr.kind
        && path.segments.len() >= 2
        && !path.global
    {
        let n = path.segments.len();
        let owner = path.segments[..n - 1]
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join("::");
        if let Some(&class) = fcx.ck.structs.get(&owner)
            && let Some((_, field, ty, declaring, ast::Access::Public)) =
                fcx.ck.find_field(class, path.last())
        {
            let is_const = fcx
                .ck
                .classes
                .get(&declaring)
                .and_then(|c| c.const_fields.get(field as usize).copied())
                .unwrap_or(false);
            let cv = Cv {
                is_const,
                is_volatile: false,
            };
            return (ty, DecltypeResult { cv, by_ref: false });
        }
    }
    let lowered = fcx.expr(expr);
    if lowered.ty.is_error() {
        return (Type::Error, none);
    }
    if !parenthesised && let ExprKind::Name(path) = &expr.kind {
        // The declared type of the entity named.
        if path.segments.len() == 1
            && let Some(local) = declared_local(fcx, path.last())
        {
            let cv = Cv {
                is_const: local.is_const,
                is_volatile: false,
            };
            return (
                local.ty,
                DecltypeResult {
                    cv,
                    by_ref: local.by_ref,
                },
            );
        }
        if let tessera_ir::ExprKind::Global(id) = &lowered.kind
            && let Some(g) = fcx.ck.program.get_global(*id)
        {
            let cv = Cv {
                is_const: g.is_const,
                is_volatile: false,
            };
            return (g.ty.clone(), DecltypeResult { cv, by_ref: false });
        }
        return (lowered.ty, none);
    }
    if !parenthesised && let ExprKind::Member { .. } = &expr.kind {
        // A member's declared type: the object's constness is not part of it.
        return (lowered.ty, none);
    }
    if lowered.place {
        let is_const = fcx.read_only_reason(&lowered).is_some();
        let cv = Cv {
            is_const,
            is_volatile: false,
        };
        return (lowered.ty, DecltypeResult { cv, by_ref: true });
    }
    (lowered.ty, none)
}

/// The local (or the variable of the enclosing function a kernel lambda
/// sees) named `name`, as declared.
fn declared_local(fcx: &FnCx<'_>, name: &str) -> Option<Local> {
    if let Some(id) = fcx.lookup_local(name) {
        return fcx.local(id).cloned();
    }
    let kernel = fcx.kernel.as_ref()?;
    kernel
        .outer
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, c)| c.info.clone())
}

/// True when `name` is a variable of the function around a kernel lambda.
fn captured(fcx: &FnCx<'_>, name: &str) -> bool {
    fcx.kernel
        .as_ref()
        .is_some_and(|k| k.outer.iter().any(|(n, _)| n == name))
}

impl FnCx<'_> {
    /// The scope a `decltype` written here is typed in.
    pub fn decltype_scope(&self) -> DecltypeScope {
        DecltypeScope {
            locals: self.func.locals.clone(),
            scopes: self.scopes.clone(),
            restriction: self.func.restriction,
            this: self.this.clone(),
            kernel: self.kernel.clone(),
        }
    }
}

/// True when a function's return type is a `decltype` written after its
/// parameters (`auto f(int x) -> decltype(x + 1)`): it is typed in the
/// function's restriction, with the parameters in scope.
pub fn trailing(f: &ast::Function) -> bool {
    match &f.ret.ty {
        BaseType::Decltype { span, .. } => span.start > f.name.span.start,
        _ => false,
    }
}

/// The return type of `f` when it is a trailing `decltype` (see
/// [`trailing`]): `locals` are the function's locals so far, its
/// parameters from `first_param` on.
pub fn trailing_return(
    ck: &mut Checker,
    f: &ast::Function,
    locals: &[Local],
    first_param: usize,
    restriction: Restriction,
    this: Option<crate::class::ThisCx>,
    consts: crate::types::ConstLookup<'_>,
) -> crate::types::Declared {
    let mut names = HashMap::new();
    for (i, p) in f.params.iter().enumerate() {
        if let Some(n) = &p.declarator.name {
            names.insert(n.name.clone(), LocalId((first_param + i) as u32));
        }
    }
    let scope = DecltypeScope {
        locals: locals.to_vec(),
        scopes: vec![names],
        restriction,
        this,
        kernel: None,
    };
    let saved = ck.decltype_scope.replace(scope);
    let d = crate::types::resolve(ck, &f.ret, &f.ret_modifiers, &[], consts);
    ck.decltype_scope = saved;
    d
}
