//! Overload resolution as C++ defines it, for the types Tessera has.
//!
//! Each argument's implicit conversion sequence to a parameter gets a rank
//! (exact match, promotion, conversion; [over.ics.rank]); a candidate is
//! better than another when none of its sequences is worse and one is
//! better; the call resolves to the one candidate better than all others,
//! or is ambiguous. Viability by restriction (`restrict(amp)` against
//! `restrict(cpu)`) is decided before ranking, by the caller.

use tessera_ir::{Scalar, Type};

/// How good one argument's conversion to a parameter is; lower is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// Identity, or binding a reference to an object of the same type.
    Exact,
    /// `bool`/`char` to `int`, `float` to `double`.
    Promotion,
    /// Any other arithmetic conversion.
    Conversion,
    /// A user-defined conversion: a library class's converting constructor
    /// (`array` to `array_view`, a writable view to a view of `const`).
    UserDefined,
}

/// One argument's implicit conversion sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sequence {
    /// Its rank.
    pub rank: Rank,
    /// For a reference binding: whether the reference is to `const`. Between
    /// two bindings of the same rank, the one to the less qualified type is
    /// better ([over.ics.rank] 3.2.6).
    pub binds_const_ref: Option<bool>,
    /// The conversion adds `const` to a pointer's target (`int*` to
    /// `const int*`): between sequences otherwise alike, the one without
    /// is better ([over.ics.rank] 3.2.5).
    pub adds_const: bool,
}

/// An argument as overload resolution sees it.
#[derive(Clone, Copy, Debug)]
pub struct Arg<'a> {
    /// Its type.
    pub ty: &'a Type,
    /// Whether it is an lvalue that a non-const reference may bind to.
    pub modifiable_lvalue: bool,
    /// Whether it is an lvalue at all (an rvalue reference binds none).
    pub lvalue: bool,
}

/// A parameter as overload resolution sees it.
#[derive(Clone, Copy, Debug)]
pub struct Param<'a> {
    /// Its type (without the reference).
    pub ty: &'a Type,
    /// Passed by reference.
    pub by_ref: bool,
    /// A reference to `const` (or a `const` value, which does not matter).
    pub is_const: bool,
    /// An rvalue reference (`T&&`): binds only rvalues.
    pub rvalue_ref: bool,
}

/// The conversion sequence from `arg` to `param`, or `None` when there is
/// none (the candidate is not viable).
pub fn sequence(arg: Arg<'_>, param: Param<'_>) -> Option<Sequence> {
    if param.rvalue_ref {
        // `T&&` binds an rvalue of its type (converted if need be), never an
        // lvalue; it is a better binding for an rvalue than `const T&`
        // ([over.ics.rank] 3.2.3), as a binding to the less qualified type.
        if arg.lvalue {
            return None;
        }
        let rank = value_rank(arg.ty, param.ty)?;
        return Some(Sequence {
            rank,
            binds_const_ref: Some(false),
            adds_const: false,
        });
    }
    if param.by_ref && !param.is_const {
        // A writing string stream is a `std::ostream` (its base class): a
        // derived-to-base binding, ranked as a conversion.
        if let (Type::StringStream(kind), Type::Ostream | Type::WideOstream) = (arg.ty, param.ty)
            && kind.base() == *param.ty
        {
            return (arg.modifiable_lvalue && kind.writes()).then_some(Sequence {
                rank: Rank::Conversion,
                binds_const_ref: Some(false),
                adds_const: false,
            });
        }
        // A reading string stream is a `std::istream` (its base class).
        if let Type::StringStream(kind) = arg.ty
            && kind.istream_base().as_ref() == Some(param.ty)
        {
            return arg.modifiable_lvalue.then_some(Sequence {
                rank: Rank::Conversion,
                binds_const_ref: Some(false),
                adds_const: false,
            });
        }
        // A non-const reference binds only to a modifiable lvalue of its type.
        return (arg.modifiable_lvalue && arg.ty == param.ty).then_some(Sequence {
            rank: Rank::Exact,
            binds_const_ref: Some(false),
            adds_const: false,
        });
    }
    let rank = value_rank(arg.ty, param.ty)?;
    let adds_const = matches!(
        (arg.ty, param.ty),
        (
            Type::Ptr {
                is_const: false,
                ..
            } | Type::CArray(..),
            Type::Ptr { is_const: true, .. }
        )
    );
    Some(Sequence {
        rank,
        binds_const_ref: param.by_ref.then_some(true),
        adds_const,
    })
}

/// The rank of converting a value of type `from` to type `to`.
fn value_rank(from: &Type, to: &Type) -> Option<Rank> {
    if from == to {
        return Some(Rank::Exact);
    }
    match (from, to) {
        // An array decays to a pointer to its first element, which may gain
        // `const`; a pointer may gain `const`: both are exact matches (an
        // lvalue transformation and a qualification adjustment).
        (Type::CArray(a, _), Type::Ptr { elem, .. }) => {
            return (**a == **elem).then_some(Rank::Exact);
        }
        (
            Type::Ptr {
                elem: a,
                is_const: false,
            },
            Type::Ptr {
                elem: b,
                is_const: true,
            },
        ) => return (a == b).then_some(Rank::Exact),
        (Type::Null, Type::Ptr { .. }) => return Some(Rank::Conversion),
        // A string literal is an array of `const char`, which decays.
        (
            Type::Str,
            Type::Ptr {
                elem,
                is_const: true,
            },
        ) => {
            return (**elem == Type::Scalar(Scalar::Char)).then_some(Rank::Exact);
        }
        (
            Type::Array(a, ra)
            | Type::ArrayView {
                elem: a,
                rank: ra,
                read_only: false,
            },
            Type::ArrayView { elem, rank, .. },
        ) => return (a == elem && ra == rank).then_some(Rank::UserDefined),
        (Type::Ptr { .. } | Type::CArray(..) | Type::Null, Type::Scalar(Scalar::Bool)) => {
            return Some(Rank::Conversion);
        }
        _ => {}
    }
    let (Type::Scalar(a), Type::Scalar(b)) = (from, to) else {
        return None;
    };
    let promotes = matches!(
        (a, b),
        (
            Scalar::Bool
                | Scalar::Char
                | Scalar::UChar
                | Scalar::Short
                | Scalar::UShort
                | Scalar::WChar,
            Scalar::Int
        ) | (Scalar::Float, Scalar::Double)
    );
    Some(if promotes {
        Rank::Promotion
    } else {
        Rank::Conversion
    })
}

/// Whether sequence `a` is better than `b`.
fn better(a: Sequence, b: Sequence) -> bool {
    if a.rank != b.rank {
        return a.rank < b.rank;
    }
    if a.adds_const != b.adds_const {
        return !a.adds_const;
    }
    matches!(
        (a.binds_const_ref, b.binds_const_ref),
        (Some(false), Some(true))
    )
}

/// Whether candidate `a` (its sequences, one per argument) is better than `b`.
fn better_candidate(a: &[Sequence], b: &[Sequence]) -> bool {
    let no_worse = a.iter().zip(b).all(|(x, y)| !better(*y, *x));
    let some_better = a.iter().zip(b).any(|(x, y)| better(*x, *y));
    no_worse && some_better
}

/// The outcome of overload resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The call resolves to the candidate at this index.
    Best(usize),
    /// No candidate accepts the arguments.
    NoneViable,
    /// These viable candidates are equally good.
    Ambiguous(Vec<usize>),
}

/// Picks the best candidate. `candidates[i]` holds candidate `i`'s sequences,
/// or `None` when it is not viable.
pub fn resolve(candidates: &[Option<Vec<Sequence>>]) -> Resolution {
    let viable: Vec<(usize, &[Sequence])> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_deref().map(|s| (i, s)))
        .collect();
    if viable.is_empty() {
        return Resolution::NoneViable;
    }
    let best: Vec<usize> = viable
        .iter()
        .filter(|(i, s)| viable.iter().all(|(j, t)| i == j || better_candidate(s, t)))
        .map(|(i, _)| *i)
        .collect();
    match best.as_slice() {
        [one] => Resolution::Best(*one),
        _ => {
            // Those no other candidate beats are the ones C++ names.
            let unbeaten = viable
                .iter()
                .filter(|(i, s)| !viable.iter().any(|(j, t)| i != j && better_candidate(t, s)))
                .map(|(i, _)| *i)
                .collect();
            Resolution::Ambiguous(unbeaten)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INT: Type = Type::Scalar(Scalar::Int);
    const CHAR: Type = Type::Scalar(Scalar::Char);
    const FLOAT: Type = Type::Scalar(Scalar::Float);
    const DOUBLE: Type = Type::Scalar(Scalar::Double);
    const LONG: Type = Type::Scalar(Scalar::Long);

    fn value(ty: &Type) -> Param<'_> {
        Param {
            ty,
            by_ref: false,
            is_const: false,
            rvalue_ref: false,
        }
    }

    fn rvalue(ty: &Type) -> Arg<'_> {
        Arg {
            ty,
            modifiable_lvalue: false,
            lvalue: false,
        }
    }

    fn lvalue(ty: &Type) -> Arg<'_> {
        Arg {
            ty,
            modifiable_lvalue: true,
            lvalue: true,
        }
    }

    /// Resolves a one-argument call among candidates taking `params`.
    fn pick(arg: Arg<'_>, params: &[Param<'_>]) -> Resolution {
        let cands: Vec<Option<Vec<Sequence>>> = params
            .iter()
            .map(|p| sequence(arg, *p).map(|s| vec![s]))
            .collect();
        resolve(&cands)
    }

    #[test]
    fn exact_beats_promotion_beats_conversion() {
        // pick(double), pick(int), pick(char): g++ picks by exact match.
        let params = [value(&DOUBLE), value(&INT), value(&CHAR)];
        assert_eq!(pick(rvalue(&INT), &params), Resolution::Best(1));
        assert_eq!(pick(rvalue(&DOUBLE), &params), Resolution::Best(0));
        assert_eq!(pick(rvalue(&CHAR), &params), Resolution::Best(2));
        // float: promotion to double beats conversion to int or char.
        assert_eq!(pick(rvalue(&FLOAT), &params), Resolution::Best(0));
        // long: a conversion to each, so ambiguous (as g++ says).
        assert_eq!(
            pick(rvalue(&LONG), &params),
            Resolution::Ambiguous(vec![0, 1, 2])
        );
    }

    #[test]
    fn array_to_view_is_a_user_defined_conversion() {
        let array = Type::Array(Box::new(INT), 1);
        let view = |read_only| Type::ArrayView {
            elem: Box::new(INT),
            rank: 1,
            read_only,
        };
        let (writable, read_only) = (view(false), view(true));
        // f(array_view<int, 1>) and f(array_view<const int, 1>): both take an
        // array through a constructor, so neither is better.
        assert_eq!(
            pick(lvalue(&array), &[value(&writable), value(&read_only)]),
            Resolution::Ambiguous(vec![0, 1])
        );
        // A writable view matches its own type exactly and becomes a view of
        // `const` only through a constructor; the reverse does not exist.
        assert_eq!(
            pick(lvalue(&writable), &[value(&read_only), value(&writable)]),
            Resolution::Best(1)
        );
        assert_eq!(
            pick(lvalue(&read_only), &[value(&writable)]),
            Resolution::NoneViable
        );
        // Another rank or element type is no conversion at all.
        let rank_2 = Type::Array(Box::new(INT), 2);
        assert_eq!(
            pick(lvalue(&rank_2), &[value(&writable)]),
            Resolution::NoneViable
        );
    }

    #[test]
    fn char_promotes_to_int_not_to_long() {
        let params = [value(&LONG), value(&INT)];
        assert_eq!(pick(rvalue(&CHAR), &params), Resolution::Best(1));
    }

    #[test]
    fn references_bind_by_lvalueness_and_constness() {
        let by_ref = Param {
            ty: &INT,
            by_ref: true,
            is_const: false,
            rvalue_ref: false,
        };
        let by_const_ref = Param {
            ty: &INT,
            by_ref: true,
            is_const: true,
            rvalue_ref: false,
        };
        let by_rvalue_ref = Param {
            ty: &INT,
            by_ref: true,
            is_const: false,
            rvalue_ref: true,
        };
        // f(int&) and f(const int&): an lvalue picks the first, an rvalue the second.
        assert_eq!(
            pick(lvalue(&INT), &[by_ref, by_const_ref]),
            Resolution::Best(0)
        );
        assert_eq!(
            pick(rvalue(&INT), &[by_ref, by_const_ref]),
            Resolution::Best(1)
        );
        // f(const int&) and f(int&&): an rvalue picks the second, an
        // lvalue the first (an rvalue reference binds no lvalue).
        assert_eq!(
            pick(rvalue(&INT), &[by_const_ref, by_rvalue_ref]),
            Resolution::Best(1)
        );
        assert_eq!(
            pick(lvalue(&INT), &[by_const_ref, by_rvalue_ref]),
            Resolution::Best(0)
        );
        // f(int) and f(int&) with an lvalue: ambiguous in C++.
        assert_eq!(
            pick(lvalue(&INT), &[value(&INT), by_ref]),
            Resolution::Ambiguous(vec![0, 1])
        );
        // A non-const reference never binds to a converted value.
        assert_eq!(pick(lvalue(&FLOAT), &[by_ref]), Resolution::NoneViable);
        // A const reference does, with the conversion's rank.
        assert_eq!(
            sequence(lvalue(&FLOAT), by_const_ref).map(|s| s.rank),
            Some(Rank::Conversion)
        );
    }

    #[test]
    fn each_argument_counts() {
        // f(int, double) and f(double, int) called with (int, int): each is
        // better in one argument, so neither is best.
        let a = vec![
            sequence(rvalue(&INT), value(&INT)),
            sequence(rvalue(&INT), value(&DOUBLE)),
        ];
        let b = vec![
            sequence(rvalue(&INT), value(&DOUBLE)),
            sequence(rvalue(&INT), value(&INT)),
        ];
        let cands: Vec<Option<Vec<Sequence>>> =
            vec![a.into_iter().collect(), b.into_iter().collect()];
        assert_eq!(resolve(&cands), Resolution::Ambiguous(vec![0, 1]));
    }

    #[test]
    fn arrays_and_pointers_convert_to_pointers() {
        // f(const int*) beside f(double): an int[8] or an int* picks the
        // first, as g++ does; a float* converts to neither.
        let arr = Type::CArray(Box::new(INT), 8);
        let ptr = Type::Ptr {
            elem: Box::new(INT),
            is_const: false,
        };
        let cptr = Type::Ptr {
            elem: Box::new(INT),
            is_const: true,
        };
        let fptr = Type::Ptr {
            elem: Box::new(FLOAT),
            is_const: false,
        };
        let params = [value(&cptr), value(&DOUBLE)];
        assert_eq!(pick(lvalue(&arr), &params), Resolution::Best(0));
        assert_eq!(pick(rvalue(&ptr), &params), Resolution::Best(0));
        assert_eq!(pick(rvalue(&fptr), &params), Resolution::NoneViable);
        // A pointer to const does not lose its `const`.
        assert_eq!(sequence(rvalue(&cptr), value(&ptr)), None);
        // nullptr and pointers convert to bool.
        let bool_ty = Type::Scalar(Scalar::Bool);
        assert_eq!(
            sequence(rvalue(&ptr), value(&bool_ty)).map(|s| s.rank),
            Some(Rank::Conversion)
        );
        assert_eq!(
            sequence(rvalue(&Type::Null), value(&ptr)).map(|s| s.rank),
            Some(Rank::Conversion)
        );
    }

    #[test]
    fn other_types_match_only_themselves() {
        let view = Type::Index(1);
        assert_eq!(sequence(rvalue(&INT), value(&view)), None);
        assert_eq!(
            sequence(rvalue(&view), value(&view)).map(|s| s.rank),
            Some(Rank::Exact)
        );
    }
}
