//! `<random>` on the host: the engines `std::mt19937`, `std::mt19937_64`,
//! `std::minstd_rand0` (also `std::default_random_engine`, as in
//! libstdc++) and `std::minstd_rand`, and the distributions
//! `uniform_int_distribution<T>`, `uniform_real_distribution<T>`,
//! `normal_distribution<T>` and `bernoulli_distribution`.
//!
//! Each is a struct the checker makes on first use (see
//! [`tessera_ir::RandomEngine`] and [`tessera_ir::Distribution`] for their
//! fields), so the engines copy, pass and store them as any struct: a copy
//! of an engine continues from the same state, as in C++. Seeding, drawing
//! and advancing are intrinsics that the interpreter runs
//! (`tessera_runtime::random` gives libstdc++'s numbers); a distribution's
//! parameters are its fields.

use super::{Side, arity, check_side, intrinsic};
use crate::class::ClassInfo;
use crate::cx::{Checker, FnCx, error_expr};
use crate::expr::mk;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{
    Const, Distribution, Expr, ExprKind, Intrinsic, RandomEngine, Scalar, StructDef, StructId, Type,
};
use tessera_syntax::ast::{self, TemplateArg};

/// What a `<random>` struct is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandomKind {
    /// An engine.
    Engine(RandomEngine),
    /// A distribution.
    Distribution(Distribution),
    /// `std::random_device`: numbers from the operating system, different
    /// at each run, as C++'s are.
    Device,
}

const ULONG: Type = Type::Scalar(Scalar::ULong);

/// The engine `std::name` names, if it is one.
pub fn engine_named(name: &str) -> Option<RandomEngine> {
    Some(match name {
        "mt19937" => RandomEngine::Mt19937,
        "mt19937_64" => RandomEngine::Mt19937_64,
        "minstd_rand0" | "default_random_engine" => RandomEngine::MinstdRand0,
        "minstd_rand" => RandomEngine::MinstdRand,
        _ => return None,
    })
}

/// The struct of `kind`, made on first use.
fn struct_of(ck: &mut Checker, kind: RandomKind) -> Type {
    let (name, fields) = match kind {
        RandomKind::Device => (
            "std::random_device".to_string(),
            vec![("unused".to_string(), Type::Scalar(Scalar::Int))],
        ),
        RandomKind::Engine(e) => (
            format!("std::{}", e.name()),
            vec![
                (
                    "words".to_string(),
                    Type::CArray(Box::new(ULONG), e.state_words()),
                ),
                ("pos".to_string(), Type::Scalar(Scalar::Long)),
            ],
        ),
        RandomKind::Distribution(d) => {
            let (name, t) = match d {
                Distribution::UniformInt(t) => ("uniform_int_distribution", t),
                Distribution::UniformReal(t) => ("uniform_real_distribution", t),
                Distribution::Normal(t) => ("normal_distribution", t),
                Distribution::Bernoulli => ("bernoulli_distribution", Scalar::Double),
            };
            let t = Type::Scalar(t);
            let fields = match d {
                Distribution::UniformInt(_) | Distribution::UniformReal(_) => {
                    vec![("a".to_string(), t.clone()), ("b".to_string(), t.clone())]
                }
                Distribution::Normal(_) => vec![
                    ("mean".to_string(), t.clone()),
                    ("stddev".to_string(), t.clone()),
                    ("saved".to_string(), t.clone()),
                    ("has_saved".to_string(), Type::BOOL),
                ],
                Distribution::Bernoulli => vec![("p".to_string(), t.clone())],
            };
            let shown = if matches!(d, Distribution::Bernoulli) {
                format!("std::{name}")
            } else {
                format!("std::{name}<{}>", ck.show(&t))
            };
            (shown, fields)
        }
    };
    if let Some(&id) = ck.structs.get(&name) {
        return Type::Struct(id);
    }
    let id = StructId(ck.program.structs.len() as u32);
    ck.program.structs.push(StructDef {
        name: name.clone(),
        fields,
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
    ck.random.insert(id, kind);
    Type::Struct(id)
}

/// The struct of engine `e`.
pub fn engine_type(ck: &mut Checker, e: RandomEngine) -> Type {
    struct_of(ck, RandomKind::Engine(e))
}

/// `std::random_device`.
pub fn device_type(ck: &mut Checker) -> Type {
    struct_of(ck, RandomKind::Device)
}

/// `std::bernoulli_distribution`.
pub fn bernoulli_type(ck: &mut Checker) -> Type {
    struct_of(ck, RandomKind::Distribution(Distribution::Bernoulli))
}

/// A distribution template written as a type (`uniform_int_distribution<>`),
/// if `name` is one.
pub fn distribution_type(
    ck: &mut Checker,
    path: &ast::Path,
    args: &[TemplateArg],
    consts: crate::types::ConstLookup<'_>,
) -> Option<Type> {
    let name = path.last();
    let integral = match name {
        "uniform_int_distribution" => true,
        "uniform_real_distribution" | "normal_distribution" => false,
        _ => return None,
    };
    let t = match args {
        [] => {
            if integral {
                Scalar::Int
            } else {
                Scalar::Double
            }
        }
        [TemplateArg::Type(t)] => {
            let d = crate::types::resolve_type_name(ck, t, consts);
            if d.ty.is_error() {
                return Some(Type::Error);
            }
            match d.ty.scalar() {
                Some(s)
                    if !d.by_ref
                        && if integral {
                            matches!(
                                s,
                                Scalar::Short
                                    | Scalar::UShort
                                    | Scalar::Int
                                    | Scalar::UInt
                                    | Scalar::Long
                                    | Scalar::ULong
                            )
                        } else {
                            s.is_floating()
                        } =>
                {
                    s
                }
                _ => {
                    let shown = ck.show(&d.ty);
                    ck.error(
                        codes::E0213,
                        t.span,
                        format!("`std::{name}<{shown}>` is not a distribution C++ defines"),
                        "not a valid result type",
                        if integral {
                            "give an integer type other than `bool` and the character types: `int`, `unsigned`, `long`, ..."
                        } else {
                            "give `float` or `double`"
                        },
                    );
                    return Some(Type::Error);
                }
            }
        }
        _ => {
            ck.error(
                codes::E0213,
                path.span,
                format!("`std::{name}` takes one type"),
                "wrong template arguments",
                "",
            );
            return Some(Type::Error);
        }
    };
    let d = match name {
        "uniform_int_distribution" => Distribution::UniformInt(t),
        "uniform_real_distribution" => Distribution::UniformReal(t),
        _ => Distribution::Normal(t),
    };
    Some(struct_of(ck, RandomKind::Distribution(d)))
}

/// What `ty` is, if it is a `<random>` struct.
pub fn kind_of(ck: &Checker, ty: &Type) -> Option<RandomKind> {
    match ty {
        Type::Struct(id) => ck.random.get(id).copied(),
        _ => None,
    }
}

fn host_only(cx: &mut FnCx<'_>, what: &str, span: Span) -> bool {
    check_side(
        cx,
        Side::Host,
        what,
        span,
        "C3930",
        "draw the numbers on the host and pass them in an `array_view`",
    )
}

fn number(value: Const, t: Scalar, span: Span) -> Expr {
    mk(ExprKind::Const(value), Type::Scalar(t), false, span)
}

/// An object of `kind` built from `args` (its constructor's arguments).
pub fn construct(cx: &mut FnCx<'_>, id: StructId, args: Vec<Expr>, span: Span) -> Expr {
    let Some(kind) = cx.ck.random.get(&id).copied() else {
        return error_expr(span);
    };
    let ty = Type::Struct(id);
    let what = format!("`{}`", cx.ck.show(&ty));
    if !host_only(cx, &what, span) {
        return error_expr(span);
    }
    match kind {
        // `std::random_device rd;` or `rd("default")`: the token names the
        // source, which is the operating system's either way.
        RandomKind::Device => {
            if args.len() > 1 || args.first().is_some_and(|a| a.ty != Type::Str) {
                arity(cx, &what, &args, 0, "nothing, or a token string", span);
                return error_expr(span);
            }
            let zero = number(Const::Int(0), Scalar::Int, span);
            mk(ExprKind::Aggregate(vec![zero]), ty, false, span)
        }
        RandomKind::Engine(e) => {
            let seed = match args.as_slice() {
                [] => number(Const::Int(e.default_seed() as i64), Scalar::ULong, span),
                [s] => cx.coerce(s.clone(), &ULONG, "the seed"),
                _ => {
                    arity(cx, &what, &args, 1, "a seed", span);
                    return error_expr(span);
                }
            };
            intrinsic(Intrinsic::RandomSeed(e), vec![seed], ty, span)
        }
        RandomKind::Distribution(d) => {
            let (t, defaults): (Scalar, Vec<Const>) = match d {
                Distribution::UniformInt(t) => (t, vec![Const::Int(0), Const::Int(max_of(t))]),
                Distribution::UniformReal(t) => (t, vec![real(t, 0.0), real(t, 1.0)]),
                Distribution::Normal(t) => (t, vec![real(t, 0.0), real(t, 1.0)]),
                Distribution::Bernoulli => (Scalar::Double, vec![Const::Double(0.5)]),
            };
            if args.len() > defaults.len() {
                arity(cx, &what, &args, defaults.len(), "its parameters", span);
                return error_expr(span);
            }
            let pty = Type::Scalar(t);
            let mut fields: Vec<Expr> = defaults
                .into_iter()
                .enumerate()
                .map(|(i, default)| match args.get(i) {
                    Some(a) => cx.coerce(a.clone(), &pty, "a parameter of the distribution"),
                    None => number(default, t, span),
                })
                .collect();
            if matches!(d, Distribution::Normal(_)) {
                fields.push(number(real(t, 0.0), t, span));
                fields.push(number(Const::Bool(false), Scalar::Bool, span));
            }
            mk(ExprKind::Aggregate(fields), ty, false, span)
        }
    }
}

fn real(t: Scalar, v: f64) -> Const {
    if t == Scalar::Float {
        Const::Float(v as f32)
    } else {
        Const::Double(v)
    }
}

/// `numeric_limits<t>::max()` of an integer type, as the `i64` the typed
/// program holds it in (`unsigned long` as its bit pattern).
fn max_of(t: Scalar) -> i64 {
    match t {
        Scalar::Short => i64::from(i16::MAX),
        Scalar::UShort => i64::from(u16::MAX),
        Scalar::UInt => i64::from(u32::MAX),
        Scalar::Long => i64::MAX,
        Scalar::ULong => -1,
        _ => i64::from(i32::MAX),
    }
}

/// `object(args)` on a `<random>` struct: an engine's next number, or a
/// distribution's number from the engine given.
pub fn call(cx: &mut FnCx<'_>, object: Expr, args: Vec<Expr>, span: Span) -> Expr {
    let Some(kind) = kind_of(cx.ck, &object.ty) else {
        return error_expr(span);
    };
    let what = format!("`{}`", cx.ck.show(&object.ty));
    if !host_only(cx, &what, span) {
        return error_expr(span);
    }
    match kind {
        RandomKind::Device => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let draw = intrinsic(
                Intrinsic::RandomDevice,
                Vec::new(),
                Type::Scalar(Scalar::UInt),
                span,
            );
            if super::is_pure(&object) {
                return draw;
            }
            mk(
                ExprKind::Comma {
                    first: Box::new(object),
                    second: Box::new(draw),
                },
                Type::Scalar(Scalar::UInt),
                false,
                span,
            )
        }
        RandomKind::Engine(e) => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            // A temporary engine (`std::mt19937()()`) draws from its own
            // fresh state.
            intrinsic(Intrinsic::RandomNext(e), vec![object], ULONG, span)
        }
        RandomKind::Distribution(d) => {
            if !arity(cx, &what, &args, 1, "an engine", span) {
                return error_expr(span);
            }
            let Some(engine) = args.into_iter().next() else {
                return error_expr(span);
            };
            let Some(RandomKind::Engine(e)) = kind_of(cx.ck, &engine.ty) else {
                if engine.ty.is_error() {
                    return error_expr(span);
                }
                let shown = cx.ck.show(&engine.ty);
                cx.ck.error(
                    codes::E0203,
                    engine.span,
                    format!("mismatched types: a distribution draws from an engine of `<random>`, not a `{shown}`"),
                    format!("this is `{shown}`"),
                    "pass an engine: `std::mt19937 gen(seed); dist(gen)`",
                );
                return error_expr(span);
            };
            if !engine.place {
                return not_variable(cx, &engine, "an engine", span);
            }
            let result = match d {
                Distribution::UniformInt(t)
                | Distribution::UniformReal(t)
                | Distribution::Normal(t) => Type::Scalar(t),
                Distribution::Bernoulli => Type::BOOL,
            };
            // A temporary distribution (`uniform_int_distribution<>(1, 6)(g)`)
            // is drawn from as it is; its state ends with it.
            intrinsic(
                Intrinsic::RandomDraw(d, e),
                vec![object, engine],
                result,
                span,
            )
        }
    }
}

/// The `void` value of a member function that changes its object.
fn done(span: Span) -> Expr {
    intrinsic(Intrinsic::DeviceWait, Vec::new(), Type::Void, span)
}

fn not_variable(cx: &mut FnCx<'_>, e: &Expr, what: &str, span: Span) -> Expr {
    cx.ck.error(
        codes::E0203,
        e.span,
        format!("{what} of `<random>` is taken by reference: pass a variable"),
        "a temporary",
        "store it in a variable first",
    );
    error_expr(span)
}

/// `object.name(args)` on a `<random>` struct.
pub fn method(
    cx: &mut FnCx<'_>,
    object: Expr,
    name: &ast::Ident,
    args: Vec<Expr>,
    span: Span,
) -> Expr {
    let Some(kind) = kind_of(cx.ck, &object.ty) else {
        return error_expr(span);
    };
    let shown = cx.ck.show(&object.ty);
    let what = format!("`{shown}::{}`", name.name);
    if !host_only(cx, &what, name.span) {
        return error_expr(span);
    }
    let field = |index: u32, object: Expr, ty: Type| {
        let place = object.place;
        mk(
            ExprKind::Field {
                base: Box::new(object),
                field: index,
            },
            ty,
            place,
            span,
        )
    };
    let read = |e: Expr| Expr { place: false, ..e };
    match (kind, name.name.as_str()) {
        (RandomKind::Engine(e), "seed") => {
            let seed = match args.as_slice() {
                [] => number(Const::Int(e.default_seed() as i64), Scalar::ULong, span),
                [s] => cx.coerce(s.clone(), &ULONG, "the seed"),
                _ => {
                    arity(cx, &what, &args, 1, "a seed", span);
                    return error_expr(span);
                }
            };
            if !object.place {
                return not_variable(cx, &object, "an engine", span);
            }
            let ty = object.ty.clone();
            let fresh = intrinsic(Intrinsic::RandomSeed(e), vec![seed], ty.clone(), span);
            let assign = mk(
                ExprKind::Assign {
                    target: Box::new(object),
                    value: Box::new(fresh),
                },
                ty,
                false,
                span,
            );
            mk(
                ExprKind::Comma {
                    first: Box::new(assign),
                    second: Box::new(done(span)),
                },
                Type::Void,
                false,
                span,
            )
        }
        (RandomKind::Engine(e), "discard") => {
            if !arity(cx, &what, &args, 1, "a count", span) || !object.place {
                if !object.place {
                    return not_variable(cx, &object, "an engine", span);
                }
                return error_expr(span);
            }
            let n = cx.coerce(args[0].clone(), &ULONG, "the count");
            intrinsic(
                Intrinsic::RandomDiscard(e),
                vec![object, n],
                Type::Void,
                span,
            )
        }
        (RandomKind::Device, "min" | "max") => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let v = if name.name == "min" {
                0
            } else {
                i64::from(u32::MAX)
            };
            number(Const::Int(v), Scalar::UInt, span)
        }
        (RandomKind::Engine(e), "min" | "max") => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let v = if name.name == "min" { e.min() } else { e.max() };
            number(Const::Int(v as i64), Scalar::ULong, span)
        }
        (RandomKind::Distribution(d), member) => {
            if !arity(cx, &what, &args, 0, "no arguments", span) {
                return error_expr(span);
            }
            let t = match d {
                Distribution::UniformInt(t)
                | Distribution::UniformReal(t)
                | Distribution::Normal(t) => Type::Scalar(t),
                Distribution::Bernoulli => Type::Scalar(Scalar::Double),
            };
            let index = match (d, member) {
                (Distribution::UniformInt(_) | Distribution::UniformReal(_), "a" | "min") => 0,
                (Distribution::UniformInt(_) | Distribution::UniformReal(_), "b" | "max") => 1,
                (Distribution::Normal(_), "mean") => 0,
                (Distribution::Normal(_), "stddev") => 1,
                (Distribution::Bernoulli, "p") => 0,
                (Distribution::Normal(_), "reset") => {
                    if !object.place {
                        return not_variable(cx, &object, "a distribution", span);
                    }
                    let flag = field(3, object, Type::BOOL);
                    let no = number(Const::Bool(false), Scalar::Bool, span);
                    return mk(
                        ExprKind::Comma {
                            first: Box::new(mk(
                                ExprKind::Assign {
                                    target: Box::new(flag),
                                    value: Box::new(no),
                                },
                                Type::BOOL,
                                false,
                                span,
                            )),
                            second: Box::new(done(span)),
                        },
                        Type::Void,
                        false,
                        span,
                    );
                }
                // Nothing is kept between calls: nothing to forget.
                (_, "reset") => return done(span),
                _ => {
                    cx.ck.error(
                        codes::E0211,
                        name.span,
                        format!("{what} is not part of the Tessera library yet"),
                        "not supported",
                        "",
                    );
                    return error_expr(span);
                }
            };
            read(field(index, object, t))
        }
        _ => {
            cx.ck.error(
                codes::E0211,
                name.span,
                format!("{what} is not part of the Tessera library yet"),
                "not supported",
                "",
            );
            error_expr(span)
        }
    }
}
