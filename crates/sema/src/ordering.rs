//! Partial ordering of function templates ([temp.func.order]): when two
//! instances fit a call equally well, the one from the more specialised
//! template wins. `f(It, It)` is more specialised than `f(A, B)`: every
//! call `f(It, It)` accepts, `f(A, B)` accepts too, not the other way round.
//!
//! Each parameter type is turned into a [`Pattern`] in which the template's
//! own parameters are variables; template `a` is at least as specialised
//! as `b` when `b`'s patterns can be matched against `a`'s, treating `a`'s
//! variables as unique types. References and a parameter's own `const`
//! are set aside, as C++ does for by-value parameters; the tie of `T&`
//! against `const T&` is settled earlier by the conversion sequences. The
//! `const` of a pointee or of a template argument is kept: `const T*` is
//! more specialised than `T*` (`T*` takes a `const U*` with `T = const U`,
//! not the other way round).

use std::collections::HashMap;

use tessera_syntax::ast::{self, BaseType, TemplateArg};

/// A parameter type as a template writes it.
#[derive(Clone, Debug, PartialEq)]
enum Pattern {
    /// One of the template's own parameters (a type or a value).
    Var(String),
    /// A fundamental type or a class named by a path.
    Named(String),
    /// A template instance written with these arguments.
    Instance(String, Vec<Pattern>),
    /// A pointer to the pattern.
    Ptr(Box<Pattern>),
    /// The pattern, `const`.
    Const(Box<Pattern>),
    /// A constant or expression argument: equal only to the same literal.
    Literal(String),
    /// Something this ordering does not look into: matches nothing.
    Opaque,
}

fn is_param(def: &[ast::TemplateParam], name: &str) -> bool {
    def.iter().any(|p| p.name().name == name)
}

fn base_pattern(def: &[ast::TemplateParam], ty: &BaseType) -> Pattern {
    match ty {
        BaseType::Builtin(b) => Pattern::Named(format!("{b:?}")),
        BaseType::Named(path) if path.segments.len() == 1 && is_param(def, path.last()) => {
            Pattern::Var(path.last().to_string())
        }
        BaseType::Named(path) => Pattern::Named(path.text()),
        BaseType::Template { path, args } => Pattern::Instance(
            path.text(),
            args.iter().map(|a| arg_pattern(def, a)).collect(),
        ),
        BaseType::Auto | BaseType::Decltype { .. } | BaseType::Error => Pattern::Opaque,
    }
}

fn arg_pattern(def: &[ast::TemplateParam], arg: &TemplateArg) -> Pattern {
    match arg {
        TemplateArg::Type(t) => {
            let p = type_pattern(def, &t.specs, t.modifiers.pointers);
            if t.specs.is_const && t.modifiers.pointers == 0 {
                Pattern::Const(Box::new(p))
            } else {
                p
            }
        }
        TemplateArg::Expr(e) => match &e.kind {
            ast::ExprKind::Name(p) if p.segments.len() == 1 && is_param(def, p.last()) => {
                Pattern::Var(p.last().to_string())
            }
            ast::ExprKind::Name(p) => Pattern::Literal(p.text()),
            ast::ExprKind::Int(v) => Pattern::Literal(v.to_string()),
            _ => Pattern::Opaque,
        },
    }
}

/// The pattern of `specs` under `pointers` pointers; the `const` of the
/// specifiers is kept when it is a pointee's.
fn type_pattern(def: &[ast::TemplateParam], specs: &ast::DeclSpecs, pointers: u32) -> Pattern {
    let mut p = base_pattern(def, &specs.ty);
    if specs.is_const && pointers > 0 {
        p = Pattern::Const(Box::new(p));
    }
    for _ in 0..pointers {
        p = Pattern::Ptr(Box::new(p));
    }
    p
}

/// Matches `general` (with its variables bound in `bound`) against
/// `special`, whose variables stand for unique types.
fn matches(general: &Pattern, special: &Pattern, bound: &mut HashMap<String, Pattern>) -> bool {
    match (general, special) {
        (Pattern::Var(n), _) => match bound.get(n) {
            Some(prev) => prev == special,
            None => {
                bound.insert(n.clone(), special.clone());
                true
            }
        },
        (Pattern::Named(a), Pattern::Named(b)) | (Pattern::Literal(a), Pattern::Literal(b)) => {
            a == b
        }
        (Pattern::Instance(a, xs), Pattern::Instance(b, ys)) => {
            a == b && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| matches(x, y, bound))
        }
        (Pattern::Ptr(a), Pattern::Ptr(b)) | (Pattern::Const(a), Pattern::Const(b)) => {
            matches(a, b, bound)
        }
        _ => false,
    }
}

/// The patterns of a function template's first `count` parameters.
fn parameter_patterns(
    params: &[ast::TemplateParam],
    f: &ast::Function,
    count: usize,
) -> Vec<Pattern> {
    f.params
        .iter()
        .take(count)
        .map(|p| type_pattern(params, &p.specs, p.declarator.modifiers.pointers))
        .collect()
}

/// Whether template `a` is at least as specialised as `b` for a call with
/// `count` arguments.
fn at_least_as_specialised(
    a: (&[ast::TemplateParam], &ast::Function),
    b: (&[ast::TemplateParam], &ast::Function),
    count: usize,
) -> bool {
    let special = parameter_patterns(a.0, a.1, count);
    let general = parameter_patterns(b.0, b.1, count);
    let mut bound = HashMap::new();
    special.len() == general.len()
        && general
            .iter()
            .zip(&special)
            .all(|(g, s)| matches(g, s, &mut bound))
}

/// Whether template `a` is more specialised than `b` for a call with
/// `count` arguments: `a`'s calls are all `b`'s, not the other way round.
pub(crate) fn more_specialised(
    a: (&[ast::TemplateParam], &ast::Function),
    b: (&[ast::TemplateParam], &ast::Function),
    count: usize,
) -> bool {
    at_least_as_specialised(a, b, count) && !at_least_as_specialised(b, a, count)
}

/// Whether `a` and `b` declare the same function template (a declaration
/// and its later definition): the same parameters, each matching the other.
pub(crate) fn equivalent(
    a: (&[ast::TemplateParam], &ast::Function),
    b: (&[ast::TemplateParam], &ast::Function),
) -> bool {
    let count = a.1.params.len();
    count == b.1.params.len()
        && a.0.len() == b.0.len()
        && at_least_as_specialised(a, b, count)
        && at_least_as_specialised(b, a, count)
}
