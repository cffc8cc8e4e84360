//! Enumerations: `enum E { ... }` and `enum class E : T { ... }`.
//!
//! The typed program holds an enumeration as its underlying integer type, so
//! the engines need nothing new. The checker keeps each value's enumeration
//! aside (by the span of the expression, in `Checker::enum_spans`) to apply
//! C++'s rules: nothing converts to an enumeration implicitly; an unscoped
//! enumeration converts to its integer implicitly, a scoped one
//! (`enum class`) only through a cast, and it has no operators but the
//! comparisons with a value of the same enumeration.

use crate::cx::{Checker, FnCx};
use crate::types;
use std::collections::HashMap;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, ExprKind, Scalar, Type};
use tessera_syntax::ast::{self, BaseType, BinaryOp as B, ExprKind as K, UnaryOp as U};

/// An enumeration, by its index in `Checker::enums`.
pub type EnumId = usize;

/// The enumerations of a function's return type and of its parameters.
pub type EnumSig = (Option<EnumId>, Vec<Option<EnumId>>);

/// What the checker knows of an enumeration.
#[derive(Clone, Debug)]
pub struct EnumInfo {
    /// Its name.
    pub name: String,
    /// `enum class`.
    pub scoped: bool,
    /// The integer type that holds its values.
    pub underlying: Scalar,
    /// The enumerators and their values, in order.
    pub values: Vec<(String, i64)>,
}

/// Declares an enumeration at namespace scope.
pub fn declare_enum(ck: &mut Checker, def: &ast::EnumDef) {
    let name = &def.name.name;
    if name.is_empty() && def.scoped {
        ck.error(
            codes::E0100,
            def.span,
            "a scoped enumeration needs a name",
            "unnamed `enum class`",
            "name it: `enum class Name { ... };`",
        );
        return;
    }
    if !name.is_empty() && ck.enum_names.contains_key(name)
        || ck.structs.contains_key(name)
        || ck.alias(name).is_some()
    {
        ck.error(
            codes::E0202,
            def.name.span,
            format!("`{name}` is already a type"),
            "second definition",
            "use another name",
        );
        return;
    }
    let underlying = match &def.underlying {
        None => None,
        Some(t) => {
            let snapshot = ck.const_globals.clone();
            let lookup = move |n: &str| snapshot.get(n).copied();
            let d = types::resolve_type_name(ck, t, &lookup);
            match d.ty {
                Type::Scalar(s @ (Scalar::Int | Scalar::UInt | Scalar::Long | Scalar::ULong))
                    if !d.by_ref && !t.specs.is_const =>
                {
                    Some(s)
                }
                Type::Error => return,
                // Refused, but still declared with its type, so that amp
                // code using the enumeration gets C++ AMP's own refusal of
                // the type (C3581) rather than an unknown name.
                Type::Scalar(
                    s @ (Scalar::Char
                    | Scalar::UChar
                    | Scalar::Short
                    | Scalar::UShort
                    | Scalar::WChar),
                ) if !d.by_ref && !t.specs.is_const => {
                    ck.error(
                        codes::E0211,
                        t.span,
                        "the underlying type of an enumeration must be `int`, `unsigned int`, `long` or `unsigned long` here",
                        "unsupported underlying type",
                        "C++ AMP allows only these four in amp code; use one of them",
                    );
                    Some(s)
                }
                _ => {
                    ck.error(
                        codes::E0211,
                        t.span,
                        "the underlying type of an enumeration must be `int`, `unsigned int`, `long` or `unsigned long` here",
                        "unsupported underlying type",
                        "C++ AMP allows only these four in amp code; use one of them",
                    );
                    return;
                }
            }
        }
    };
    let scalar = underlying.unwrap_or(Scalar::Int);
    let (lo, hi) = match scalar {
        Scalar::UInt => (0, i64::from(u32::MAX)),
        Scalar::Long => (i64::MIN, i64::MAX),
        Scalar::ULong => (0, i64::MAX),
        Scalar::Char => (i64::from(i8::MIN), i64::from(i8::MAX)),
        Scalar::UChar => (0, i64::from(u8::MAX)),
        Scalar::Short => (i64::from(i16::MIN), i64::from(i16::MAX)),
        Scalar::UShort => (0, i64::from(u16::MAX)),
        _ => (i64::from(i32::MIN), i64::from(i32::MAX)),
    };
    let id = ck.enums.len();
    let mut values: Vec<(String, i64)> = Vec::new();
    let mut next: Option<i64> = Some(0);
    for (e, value) in &def.enumerators {
        let v = match value {
            Some(expr) => {
                if let Some(u) = unsigned_in(expr) {
                    ck.error(
                        codes::E0211,
                        u,
                        "enumerator values computed with unsigned values are not supported yet",
                        "not supported here",
                        "write the value with signed constants",
                    );
                    None
                } else {
                    let consts = enum_consts(ck, &values);
                    let lookup = move |n: &str| consts.get(n).copied();
                    types::eval(ck, expr, &lookup)
                }
            }
            None => next,
        };
        let Some(v) = v else {
            next = None;
            continue;
        };
        if v < lo || v > hi {
            let why = if underlying.is_some() {
                format!("does not fit its underlying type `{}`", scalar.name())
            } else {
                "does not fit `int` (an enumeration without an underlying type larger than `int` is not supported yet)".to_string()
            };
            ck.report(
                Diagnostic::error(
                    codes::E0215,
                    e.span,
                    format!("the value {v} of `{}` {why}", e.name),
                )
                .with_label("out of range")
                .with_note("MSVC reports this as C2177 or C3434")
                .standing_for("C2177"),
            );
            next = None;
            continue;
        }
        if values.iter().any(|(n, _)| n == &e.name)
            || (!def.scoped
                && (ck.enumerators.contains_key(&e.name)
                    || ck.globals.contains_key(&e.name)
                    || ck.functions.contains_key(&e.name)))
        {
            ck.error(
                codes::E0202,
                e.span,
                format!("`{}` is already declared", e.name),
                "second declaration",
                "use another name",
            );
            continue;
        }
        values.push((e.name.clone(), v));
        next = v.checked_add(1);
    }
    let consts = std::rc::Rc::make_mut(&mut ck.const_globals);
    if !def.scoped {
        for (n, v) in &values {
            consts.insert(n.clone(), *v);
            if !name.is_empty() {
                consts.insert(format!("{name}::{n}"), *v);
            }
        }
        for (n, v) in &values {
            ck.enumerators.insert(n.clone(), (id, *v));
        }
    }
    ck.enums.push(EnumInfo {
        name: name.clone(),
        scoped: def.scoped,
        underlying: scalar,
        values,
    });
    if !name.is_empty() {
        ck.enum_names.insert(name.clone(), id);
    }
}

/// The constants an enumerator's value may use: the constant globals and
/// the enumerators before it.
fn enum_consts(ck: &Checker, earlier: &[(String, i64)]) -> HashMap<String, i64> {
    let mut all: HashMap<String, i64> = (*ck.const_globals).clone();
    for (n, v) in earlier {
        all.insert(n.clone(), *v);
    }
    all
}

/// Checks a declarator's initialiser (already lowered) against the
/// enumeration `target` of the variable, and refuses arrays of enumerations.
pub fn check_declarator(
    ck: &mut Checker,
    target: Option<EnumId>,
    decl: &ast::Declarator,
    ty: &Type,
) {
    // A one-dimensional array initialised by a list: each value must be of
    // the enumeration (its elements are, see `enum_rules`).
    if target.is_some()
        && decl.array_dims.len() == 1
        && let Type::CArray(elem, _) = ty
    {
        match &decl.init {
            Some(
                ast::Init::Brace(items)
                | ast::Init::Assign(ast::Expr {
                    kind: K::InitList(items),
                    ..
                }),
            ) => {
                for item in items {
                    ck.check_enum_target(target, item.span, elem);
                }
                return;
            }
            None => return,
            _ => {}
        }
    }
    if target.is_some() && !decl.array_dims.is_empty() {
        ck.error(
            codes::E0211,
            decl.span,
            "arrays of enumerations are not supported yet",
            "array of an enumeration",
            "use an array of the underlying integer type and `static_cast`",
        );
        return;
    }
    match &decl.init {
        Some(ast::Init::Assign(v)) => ck.check_enum_target(target, v.span, ty),
        Some(ast::Init::Paren(args) | ast::Init::Brace(args)) => match target {
            Some(_) if args.len() == 1 => ck.check_enum_target(target, args[0].span, ty),
            Some(_) => ck.error(
                codes::E0222,
                decl.span,
                "an enumeration is initialised with one value",
                "wrong number of values",
                "",
            ),
            None => {
                for a in args {
                    ck.check_not_scoped(a.span);
                }
            }
        },
        None => {}
    }
}

/// An unsigned literal in a constant expression (evaluated in signed
/// arithmetic, which could differ from C++).
fn unsigned_in(e: &ast::Expr) -> Option<Span> {
    match &e.kind {
        K::Int(text) => match crate::literal::parse_int(text) {
            Some((_, s)) if s.is_unsigned() => Some(e.span),
            _ => None,
        },
        K::Unary { operand, .. } => unsigned_in(operand),
        K::Binary { lhs, rhs, .. } => unsigned_in(lhs).or_else(|| unsigned_in(rhs)),
        K::Conditional { cond, then, els } => unsigned_in(cond)
            .or_else(|| unsigned_in(then))
            .or_else(|| unsigned_in(els)),
        K::Cast { .. } | K::Construct { .. } => Some(e.span),
        _ => None,
    }
}

impl Checker {
    /// The enumeration a type written in declaration specifiers names.
    pub fn enum_of_specs(&self, specs: &ast::DeclSpecs) -> Option<EnumId> {
        match &specs.ty {
            BaseType::Named(path)
                if path.segments.len() == 1 && self.alias(path.last()).is_none() =>
            {
                self.enum_names.get(path.last()).copied()
            }
            // The library's `concurrency::access_type` (declared by then:
            // resolving the type declares it).
            BaseType::Named(path)
                if path.last() == "access_type"
                    && types::qualifier_ok(path, types::AMP_NAMESPACES) =>
            {
                self.enum_names.get(path.last()).copied()
            }
            _ => None,
        }
    }

    /// The enumerator a name in an expression denotes, with its value:
    /// `Red` (unscoped only) or `Color::Red`.
    pub fn enumerator(&self, path: &ast::Path) -> Option<(EnumId, i64)> {
        match path.segments.as_slice() {
            [one] if !path.global => self.enumerators.get(&one.name).copied(),
            // `concurrency::access_type_read`: the library's enumerators.
            [.., x]
                if types::qualifier_ok(path, types::AMP_NAMESPACES)
                    && x.name.starts_with("access_type_") =>
            {
                self.enumerators.get(&x.name).copied()
            }
            [e, x] if !path.global => {
                let id = *self.enum_names.get(&e.name)?;
                let info = self.enums.get(id)?;
                info.values
                    .iter()
                    .find(|(n, _)| n == &x.name)
                    .map(|(_, v)| (id, *v))
            }
            _ => None,
        }
    }

    fn is_scoped(&self, id: Option<EnumId>) -> bool {
        id.and_then(|id| self.enums.get(id))
            .is_some_and(|e| e.scoped)
    }

    fn enum_name(&self, id: EnumId) -> String {
        self.enums
            .get(id)
            .map_or_else(String::new, |e| e.name.clone())
    }

    /// The enumeration of the expression lowered at `span`, if any.
    pub fn enum_at(&self, span: Span) -> Option<EnumId> {
        self.enum_spans.get(&span).copied()
    }

    fn bad_enum(
        &mut self,
        span: Span,
        message: String,
        label: &str,
        msvc: &'static str,
        help: &str,
    ) {
        let mut d = Diagnostic::error(codes::E0222, span, message)
            .with_label(label.to_string())
            .with_msvc(msvc);
        if !help.is_empty() {
            d = d.with_help(help.to_string());
        }
        self.report(d);
    }

    /// Checks that the value lowered at `span` may initialise (or be
    /// assigned to, passed to, returned as) something of enumeration
    /// `target` (`None`: not an enumeration).
    pub fn check_enum_target(&mut self, target: Option<EnumId>, span: Span, ty: &Type) {
        if self.enums.is_empty() || ty.is_error() {
            return;
        }
        let found = self.enum_at(span);
        match target {
            Some(t) if found != Some(t) => {
                let to = self.enum_name(t);
                let message = match found {
                    Some(f) => format!(
                        "a `{}` does not convert implicitly to the enumeration `{to}`",
                        self.enum_name(f)
                    ),
                    None => format!(
                        "this value is not a `{to}`; nothing converts implicitly to an enumeration"
                    ),
                };
                self.bad_enum(
                    span,
                    message,
                    "needs a cast",
                    "C2440",
                    &format!("write `static_cast<{to}>(...)` if the value is meant as a `{to}`"),
                );
            }
            None if self.is_scoped(found) => self.scoped_used(span, found),
            _ => {}
        }
    }

    fn scoped_used(&mut self, span: Span, found: Option<EnumId>) {
        let name = found.map(|f| self.enum_name(f)).unwrap_or_default();
        self.bad_enum(
            span,
            format!(
                "a value of the scoped enumeration `{name}` does not convert implicitly to a number"
            ),
            "`enum class` value",
            "C2440 (C2676 for an operator)",
            &format!(
                "write `static_cast<int>(...)`; a `{name}` compares only with another `{name}`"
            ),
        );
    }

    /// Checks that the value at `span` may bind to a reference (`const` if
    /// `is_const`) to something of enumeration `target`: an enumeration does
    /// not bind to `int&` (nor a number to `E&`). A `const int&` would bind
    /// to a converted copy, which the typed program cannot tell from the
    /// variable itself, so that is refused too.
    pub fn check_ref_bind(
        &mut self,
        target: Option<EnumId>,
        span: Span,
        ty: &Type,
        is_const: bool,
    ) {
        if self.enums.is_empty() || ty.is_error() {
            return;
        }
        let found = self.enum_at(span);
        if target.is_none()
            && let Some(f) = found
        {
            let name = self.enum_name(f);
            if is_const {
                self.error(
                    codes::E0211,
                    span,
                    format!("binding a `const` reference to a number to a `{name}` is not supported yet"),
                    "enumeration",
                    format!("convert first: `static_cast<int>(...)`, or declare the reference as `const {name}&`"),
                );
                return;
            }
            self.bad_enum(
                span,
                format!("a `{name}` cannot be bound to a non-const reference to a number"),
                "enumeration",
                "C2664 or C2440",
                &format!("declare the reference as `{name}&`"),
            );
        } else {
            self.check_enum_target(target, span, ty);
        }
    }

    /// Reports a scoped enumeration value used where a number is needed.
    pub fn check_not_scoped(&mut self, span: Span) {
        let found = self.enum_at(span);
        if self.is_scoped(found) {
            self.scoped_used(span, found);
        }
    }
}

impl FnCx<'_> {
    /// Checks the initialiser (already lowered) of a variable declared with
    /// `decl` against its enumeration `target`.
    pub(crate) fn enum_init(
        &mut self,
        target: Option<EnumId>,
        decl: &ast::Declarator,
        ty: &Type,
        by_ref: bool,
        is_const: bool,
    ) {
        if by_ref && let Some(ast::Init::Assign(v)) = &decl.init {
            self.ck.check_ref_bind(target, v.span, ty, is_const);
            return;
        }
        check_declarator(self.ck, target, decl, ty);
    }

    /// The enumeration a name denotes, as `name` lowers it.
    fn name_enum(&self, path: &ast::Path) -> Option<EnumId> {
        if path.segments.len() == 1 && !path.global {
            let name = path.last();
            if let Some(id) = self.lookup_local(name) {
                let span = self.local(id)?.span;
                return self.ck.enum_locals.get(&span).copied();
            }
            if let Some(k) = &self.kernel
                && let Some((_, c)) = k.outer.iter().rev().find(|(n, _)| n == name)
            {
                return self.ck.enum_locals.get(&c.info.span).copied();
            }
            if let Some(g) = self.ck.globals.get(name) {
                return self.ck.enum_globals.get(g).copied();
            }
        }
        self.ck.enumerator(path).map(|(id, _)| id)
    }

    fn type_enum(&self, t: &ast::TypeName) -> Option<EnumId> {
        if t.modifiers.pointers > 0 || t.modifiers.reference > 0 {
            return None;
        }
        self.ck.enum_of_specs(&t.specs)
    }

    /// Applies the enumeration rules to `e` (whose operands are lowered and
    /// recorded) and records the enumeration of `e` itself.
    pub(crate) fn enum_rules(&mut self, e: &ast::Expr, lowered: &Expr) {
        let at = |cx: &Self, s: Span| cx.ck.enum_at(s);
        let this = match &e.kind {
            K::Name(path) => self.name_enum(path),
            K::Binary { op, lhs, rhs } => {
                let (l, r) = (at(self, lhs.span), at(self, rhs.span));
                match op {
                    B::Eq | B::Ne | B::Lt | B::Gt | B::Le | B::Ge => {
                        if (self.ck.is_scoped(l) || self.ck.is_scoped(r)) && l != r {
                            let span = if self.ck.is_scoped(l) {
                                lhs.span
                            } else {
                                rhs.span
                            };
                            let other = if self.ck.is_scoped(l) { r } else { l };
                            let scoped = if self.ck.is_scoped(l) { l } else { r };
                            let name = scoped.map(|s| self.ck.enum_name(s)).unwrap_or_default();
                            let what = match other {
                                Some(o) => format!("a `{}`", self.ck.enum_name(o)),
                                None => "a number".to_string(),
                            };
                            self.ck.bad_enum(
                                span,
                                format!("a `{name}` cannot be compared with {what}"),
                                "scoped enumeration",
                                "C2676",
                                &format!("compare with another `{name}`, or cast with `static_cast<int>(...)`"),
                            );
                        }
                    }
                    B::Comma => {}
                    _ => {
                        self.ck.check_not_scoped(lhs.span);
                        self.ck.check_not_scoped(rhs.span);
                    }
                }
                if matches!(op, B::Comma) {
                    at(self, rhs.span)
                } else {
                    None
                }
            }
            K::Unary { op, operand } => {
                let o = at(self, operand.span);
                match op {
                    U::PreInc | U::PreDec | U::PostInc | U::PostDec if o.is_some() => {
                        let name = o.map(|s| self.ck.enum_name(s)).unwrap_or_default();
                        self.ck.bad_enum(
                            operand.span,
                            format!("`++` and `--` are not defined for the enumeration `{name}`"),
                            "enumeration",
                            "C2675",
                            &format!("assign the next value: `x = static_cast<{name}>(x + 1)`"),
                        );
                    }
                    U::AddrOf | U::Deref | U::PreInc | U::PreDec | U::PostInc | U::PostDec => {}
                    _ => self.ck.check_not_scoped(operand.span),
                }
                None
            }
            K::Assign { op, lhs, rhs } => {
                let l = at(self, lhs.span);
                match op {
                    None => self.ck.check_enum_target(l, rhs.span, &lowered.ty),
                    Some(_) => {
                        if let Some(id) = l {
                            let name = self.ck.enum_name(id);
                            self.ck.bad_enum(
                                lhs.span,
                                format!("compound assignment is not defined for the enumeration `{name}`"),
                                "enumeration",
                                "C2676 or C2440",
                                &format!("assign a `{name}`: `x = static_cast<{name}>(x + 1)`"),
                            );
                        }
                        self.ck.check_not_scoped(rhs.span);
                    }
                }
                l
            }
            K::Call { args, .. } => match &lowered.kind {
                ExprKind::Call { func, .. } => {
                    self.ck.enum_sigs.get(func).and_then(|(ret, _)| *ret)
                }
                _ => {
                    for a in args {
                        self.ck.check_not_scoped(a.span);
                    }
                    None
                }
            },
            // A data member of an enumeration type.
            K::Member { .. } => match &lowered.kind {
                ExprKind::Field { base, field } => match &base.ty {
                    Type::Struct(id) => self.ck.enum_fields.get(&(*id, *field)).copied(),
                    _ => None,
                },
                _ => None,
            },
            K::Index { base, index } => {
                self.ck.check_not_scoped(index.span);
                // An element of an array of an enumeration.
                match &lowered.kind {
                    ExprKind::Element { .. } => at(self, base.span),
                    _ => None,
                }
            }
            K::Conditional { cond, then, els } => {
                self.ck.check_not_scoped(cond.span);
                let (t, f) = (at(self, then.span), at(self, els.span));
                if t == f {
                    t
                } else {
                    self.ck.check_not_scoped(then.span);
                    self.ck.check_not_scoped(els.span);
                    None
                }
            }
            K::Cast { ty, .. } => self.type_enum(ty),
            // `std::get<N>(t)` of a tuple element of an enumeration.
            K::Construct { .. }
                if crate::library::tuple::field_enum(self.ck, lowered).is_some() =>
            {
                crate::library::tuple::field_enum(self.ck, lowered)
            }
            K::Construct { ty, args, braces } => match self.type_enum(ty) {
                Some(id) => {
                    if *braces || args.len() != 1 {
                        self.ck.error(
                            codes::E0211,
                            e.span,
                            "only the functional cast `E(value)` constructs an enumeration here",
                            "not supported",
                            "write `static_cast<E>(value)`",
                        );
                    }
                    Some(id)
                }
                None => {
                    let scalar_cast =
                        args.len() == 1 && !*braces && matches!(ty.specs.ty, BaseType::Builtin(_));
                    if !scalar_cast {
                        for a in args {
                            self.ck.check_not_scoped(a.span);
                        }
                    }
                    None
                }
            },
            K::InitList(items) => {
                for i in items {
                    self.ck.check_not_scoped(i.span);
                }
                None
            }
            _ => None,
        };
        match this {
            Some(id) if !lowered.ty.is_error() => {
                self.ck.enum_spans.insert(e.span, id);
            }
            _ => {
                self.ck.enum_spans.remove(&e.span);
            }
        }
    }
}
