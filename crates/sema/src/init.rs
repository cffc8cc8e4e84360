//! Initialisers: braced lists, aggregates, constructor calls (`T(args)`)
//! and the conversion of a declaration's initialiser to the variable's type.

use crate::cx::{FnCx, error_expr};
use crate::expr::mk;
use crate::library;
use crate::types::Declared;
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Const, Expr, ExprKind, Init, Scalar, StructId, Type};
use tessera_syntax::ast::{self, ExprKind as K};

/// The largest C array an expression may build element by element.
const MAX_ZERO_ELEMENTS: u32 = 1 << 16;

/// The most objects with a constructor an array may have (each is a call).
const MAX_CONSTRUCTED_ELEMENTS: u32 = 4096;

impl FnCx<'_> {
    pub(crate) fn construct(
        &mut self,
        ty: &ast::TypeName,
        args: &[ast::Expr],
        braces: bool,
        span: Span,
    ) -> Expr {
        // `std::get<0>(t)`: reads as a construction of `get<0>`.
        if let ast::BaseType::Template { path, args: targs } = &ty.specs.ty
            && path.last() == "get"
            && crate::types::qualifier_ok(path, &["std"])
            && !self.is_function_template("get")
        {
            let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
            return crate::library::tuple::get(self, path, targs, lowered, span);
        }
        // `copy<int, 1>(src, dst)`: the library's copy with explicit arguments.
        if let ast::BaseType::Template { path, args: targs } = &ty.specs.ty
            && matches!(path.last(), "copy" | "copy_async")
            && crate::types::qualifier_ok(path, crate::types::AMP_NAMESPACES)
            && !self.is_function_template(path.last())
        {
            return crate::library::container::explicit_copy(self, path, targs, args, span);
        }
        // `scaled<2>(i)` in a member function: the class's member template
        // (the class's scope is searched before the namespace's).
        if let ast::BaseType::Template { path, args: targs } = &ty.specs.ty
            && path.segments.len() == 1
            && !path.global
            && let Some(class) = self.current_class()
            && self
                .ck
                .classes
                .get(&class)
                .is_some_and(|c| c.member_templates.contains_key(path.last()))
        {
            let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
            if let Some(call) =
                self.qualified_method_call(class, path.last(), Some(targs), lowered, span)
            {
                return call;
            }
        }
        // `scale<16>(x)`: a function template called with explicit arguments.
        if let ast::BaseType::Template { path, args: targs } = &ty.specs.ty
            && path.segments.len() == 1
            && self.is_function_template(path.last())
        {
            let plain = self
                .ck
                .functions
                .get(path.last())
                .cloned()
                .unwrap_or_default();
            let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
            let _ = braces;
            return self.call_templates(path, &plain, Some(targs), lowered, span);
        }
        let Declared { ty, by_ref } = self.resolve(&ty.specs, &ty.modifiers, &[]);
        if ty.is_error() {
            return error_expr(span);
        }
        if let Type::Scalar(_) = ty {
            return match args {
                [one] => {
                    let e = self.expr(one);
                    self.explicit_conversion(e, &ty, by_ref, span)
                }
                [] => {
                    let zero = mk(ExprKind::Const(Const::Int(0)), Type::INT, false, span);
                    self.convert_scalar(zero, ty.scalar().unwrap_or(Scalar::Int))
                }
                _ => {
                    self.ck.error(
                        codes::E0206,
                        span,
                        "a number is built from one value",
                        "too many values",
                        "",
                    );
                    error_expr(span)
                }
            };
        }
        if let Type::Struct(id) = ty
            && let Some(e) = self.constructed(id, args, false, span)
        {
            return e;
        }
        if let Type::Struct(_) = ty {
            let mut t = ty.clone();
            let init = self.aggregate(&mut t, args, span);
            return self.init_as_expr(init, &t, span);
        }
        let _ = braces;
        let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
        library::construct(self, &ty, args, span)
    }

    /// An object of a class that constructors build, from `args`; `None`
    /// for a class built as an aggregate.
    fn constructed(
        &mut self,
        id: tessera_ir::StructId,
        args: &[ast::Expr],
        copy_init: bool,
        span: Span,
    ) -> Option<Expr> {
        if !self.ck.needs_construction(id) {
            return None;
        }
        if self.ck.random.contains_key(&id) {
            let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
            return self.construct_object(id, lowered, copy_init, span);
        }
        let has_ctors = self
            .ck
            .classes
            .get(&id)
            .is_some_and(|c| !c.ctors.is_empty());
        // `A b(a);`, `A b{a}`: a copy, by the copy constructor C++ defines
        // when the class declares none.
        let mut first = None;
        if let [one] = args
            && !matches!(one.kind, K::InitList(_))
        {
            let e = self.expr(one);
            let e = if let Type::Struct(from) = e.ty
                && from != id
                && self.ck.derives_from(from, id)
            {
                self.to_base(e, &Type::Struct(id))
            } else {
                e
            };
            if e.ty == Type::Struct(id) && self.ck.user_copy_ctors(id).is_empty() {
                return Some(self.copied(e));
            }
            first = Some(e);
        }
        if !has_ctors && !args.is_empty() {
            return Some(self.aggregate_with_defaults(id, args, first, span));
        }
        let lowered: Vec<Expr> = match first {
            Some(e) => vec![e],
            None => args.iter().map(|a| self.expr(a)).collect(),
        };
        self.construct_object(id, lowered, copy_init, span)
    }

    /// A braced list for an aggregate whose members are built by
    /// constructors or have default initialisers: the members the list
    /// names are initialised from it in order, the others from their
    /// default initialiser, their default constructor, or zero.
    fn aggregate_with_defaults(
        &mut self,
        id: tessera_ir::StructId,
        items: &[ast::Expr],
        mut first: Option<Expr>,
        span: Span,
    ) -> Expr {
        let fields = self.ck.struct_fields(id);
        let name = self.ck.show(&Type::Struct(id));
        if items.len() > fields.len() {
            self.ck.error(
                codes::E0206,
                span,
                format!(
                    "too many values for `{name}`: it has {} members",
                    fields.len()
                ),
                "too many values",
                "",
            );
            return error_expr(span);
        }
        let defaults = self
            .ck
            .classes
            .get(&id)
            .map(|c| c.default_inits.clone())
            .unwrap_or_default();
        let mut parts = Vec::new();
        for (i, (fname, fty)) in fields.iter().enumerate() {
            let what = format!("member `{fname}`");
            let value = match items.get(i) {
                Some(_) if i == 0 && first.is_some() => first.take().map(|e| {
                    let e = self.coerce(e, fty, &what);
                    self.copied(e)
                }),
                Some(item) => {
                    let mut t = fty.clone();
                    let init = self.init_item(&mut t, item, &what);
                    let e = self.init_as_expr(init, &t, item.span);
                    Some(self.copied(e))
                }
                None => match defaults.get(i).cloned().flatten() {
                    Some(init) => self.default_member_value(fty, &init, fname, span),
                    None => match fty {
                        Type::Struct(c) if self.ck.needs_construction(*c) => {
                            self.construct_object(*c, Vec::new(), false, span)
                        }
                        _ => None,
                    },
                },
            };
            if let Some(item) = items.get(i) {
                self.check_enum_member(id, i, item.span, fty);
            }
            let value = match value {
                Some(v) => v,
                None => self.init_as_expr(Some(Init::Zero), fty, span),
            };
            parts.push(value);
        }
        mk(ExprKind::Aggregate(parts), Type::Struct(id), false, span)
    }

    /// The objects of a declaration without an initialiser: built by the
    /// default constructor when their class has one (every element, for an
    /// array of them); `None` when nothing needs to run.
    fn default_constructed(&mut self, ty: &Type, span: Span) -> Option<Init> {
        match ty {
            Type::Struct(id) if self.ck.needs_construction(*id) => self
                .construct_object(*id, Vec::new(), false, span)
                .map(Init::Expr),
            Type::CArray(elem, n) => {
                let outer = std::mem::replace(&mut self.building_elements, true);
                let one = self.default_constructed(elem, span);
                self.building_elements = outer;
                let one = one?;
                if *n > MAX_CONSTRUCTED_ELEMENTS {
                    self.ck.error(
                        codes::E0211,
                        span,
                        format!("arrays of more than {MAX_CONSTRUCTED_ELEMENTS} objects with a constructor are not supported yet"),
                        "too many elements",
                        "use a `std::vector`, or a class without constructors",
                    );
                    return None;
                }
                Some(Init::List(vec![one; *n as usize]))
            }
            _ => None,
        }
    }

    /// C++'s enumeration rules for the value (lowered, at `at`) that
    /// initialises member `field` of class `id`.
    fn check_enum_member(&mut self, id: StructId, field: usize, at: Span, ty: &Type) {
        let target = self.ck.enum_fields.get(&(id, field as u32)).copied();
        if target.is_some() {
            self.ck.check_enum_target(target, at, ty);
        }
    }

    /// Builds a struct or C array from a braced list (aggregate initialisation).
    pub fn aggregate(&mut self, ty: &mut Type, items: &[ast::Expr], span: Span) -> Option<Init> {
        match ty.clone() {
            Type::Struct(id) if self.ck.needs_construction(id) => {
                self.constructed(id, items, false, span).map(Init::Expr)
            }
            // A braced list initialises a union's first member (C++20's
            // designated initialisers aside).
            Type::Struct(id) if self.ck.is_union(ty) => {
                let fields = self.ck.struct_fields(id);
                if items.len() > 1 {
                    let name = self.ck.show(ty);
                    self.ck.report(
                        tessera_diagnostics::Diagnostic::error(
                            codes::E0206,
                            span,
                            format!("too many values for union `{name}`: a braced list initialises its first member"),
                        )
                        .with_label("too many values")
                        .with_msvc("C2078"),
                    );
                    return None;
                }
                match (items.first(), fields.first()) {
                    (Some(item), Some((fname, fty))) => {
                        let mut fty = fty.clone();
                        let part = self.init_item(&mut fty, item, &format!("member `{fname}`"))?;
                        Some(Init::List(vec![part]))
                    }
                    _ => Some(Init::Zero),
                }
            }
            Type::Struct(id) => {
                let fields = self.ck.struct_fields(id);
                let mut parts = Vec::new();
                let mut rest = items;
                for (i, (fname, fty)) in fields.iter().enumerate() {
                    let Some(item) = rest.first() else {
                        parts.push(Init::Zero);
                        continue;
                    };
                    let mut fty = fty.clone();
                    // Brace elision: an array member written without its
                    // own braces takes as many of the values as it has
                    // elements (`std::array<int, 3> a = {1, 2, 3};`).
                    if let Some(take) = self.elided_count(&fty, rest) {
                        let (mine, after) = rest.split_at(take);
                        parts.push(self.aggregate(&mut fty, mine, item.span)?);
                        rest = after;
                        continue;
                    }
                    let part = self.init_item(&mut fty, item, &format!("member `{fname}`"));
                    self.check_enum_member(id, i, item.span, &fty);
                    parts.push(part?);
                    rest = &rest[1..];
                }
                if !rest.is_empty() {
                    let name = self.ck.show(ty);
                    self.ck.error(
                        codes::E0206,
                        span,
                        format!(
                            "too many values for `{name}`: it has {} members",
                            fields.len()
                        ),
                        "too many values",
                        "",
                    );
                    return None;
                }
                Some(Init::List(parts))
            }
            Type::CArray(elem, n) => {
                let n = if n == 0 { items.len() as u32 } else { n };
                if items.len() > n as usize {
                    self.ck.error(
                        codes::E0206,
                        span,
                        format!("too many values: the array has {n} elements"),
                        "too many values",
                        "",
                    );
                    return None;
                }
                *ty = Type::CArray(elem.clone(), n);
                let mut parts = Vec::new();
                for item in items {
                    let mut et = (*elem).clone();
                    parts.push(self.init_item(&mut et, item, "an array element")?);
                }
                Some(Init::List(parts))
            }
            Type::Scalar(_) => match items {
                [one] => {
                    let mut t = ty.clone();
                    self.init_item(&mut t, one, "the value")
                }
                [] => Some(Init::Zero),
                _ => {
                    self.ck.error(
                        codes::E0206,
                        span,
                        "a number is initialised from one value",
                        "too many values",
                        "",
                    );
                    None
                }
            },
            Type::Error => None,
            other => Some(Init::Expr(self.braced_library(&other, items, span))),
        }
    }

    /// A narrowing conversion in a braced list is an error in C++
    /// ([dcl.init.list]; MSVC's C2397): floating to integral, a wider
    /// floating type to a narrower one, integral to floating, and integral
    /// to an integral type that cannot hold every value, unless the value
    /// is a constant that fits.
    fn check_narrowing(&mut self, item: &ast::Expr, from: &Type, to: &Type) {
        let (Type::Scalar(from), Type::Scalar(to)) = (from, to) else {
            return;
        };
        let (from, to) = (*from, *to);
        if from == to {
            return;
        }
        let visible = self.visible_consts();
        let lookup = move |n: &str| visible.get(n);
        let constant = crate::types::try_eval(item, &lookup).ok();
        let narrowing = match (from.is_floating(), to.is_floating()) {
            (true, false) => true,
            // A literal (or another constant) in range is fine; names may
            // be constants this check cannot see, so only computed values
            // count.
            (true, true) => from.size() > to.size() && !float_literal_or_name(item),
            (false, true) => match constant {
                Some(v) => {
                    (v as f64) as i64 != v || (to == Scalar::Float && (v as f32) as i64 != v)
                }
                None => true,
            },
            (false, false) => {
                let (lo, hi) = to.int_range();
                let (flo, fhi) = from.int_range();
                let holds_all = lo <= flo && fhi <= hi;
                match constant {
                    Some(v) => !(lo..=hi).contains(&v),
                    None => !holds_all,
                }
            }
        };
        if narrowing {
            self.ck.report(
                tessera_diagnostics::Diagnostic::error(
                    codes::E0203,
                    item.span,
                    format!(
                        "a braced list cannot narrow `{}` to `{}`",
                        from.name(),
                        to.name()
                    ),
                )
                .with_label("narrowing conversion")
                .with_msvc("C2397")
                .with_help(format!("convert it explicitly: `({})value`", to.name())),
            );
        }
    }

    /// A library object from a braced list; a container's nested lists
    /// (`{{1, 2}, {3}}`) build its elements.
    fn braced_library(&mut self, ty: &Type, items: &[ast::Expr], span: Span) -> Expr {
        let elem = match ty {
            Type::Vector(elem) | Type::Container(_, elem) => Some((**elem).clone()),
            _ => None,
        };
        let args: Vec<Expr> = items
            .iter()
            .map(|a| match (&a.kind, &elem) {
                (K::InitList(inner), Some(Type::Struct(id))) => {
                    if self.ck.needs_construction(*id) {
                        self.constructed(*id, inner, false, a.span)
                            .unwrap_or_else(|| error_expr(a.span))
                    } else {
                        self.aggregate_with_defaults(*id, inner, None, a.span)
                    }
                }
                (K::InitList(inner), Some(elem)) => self.braced_library(elem, inner, a.span),
                (_, Some(elem)) => {
                    let e = self.expr(a);
                    self.check_narrowing(a, &e.ty, elem);
                    e
                }
                _ => self.expr(a),
            })
            .collect();
        library::construct_braced(self, ty, args, span)
    }

    /// How many of the values `rest` a member of type `ty` takes when its
    /// braces are left out ([dcl.init.aggr] brace elision): a C array of
    /// known size not given a braced list (nor a string literal, which
    /// initialises a `char` array itself) takes one value per element, at
    /// most those left. `None` when the member takes the first value alone.
    fn elided_count(&self, ty: &Type, rest: &[ast::Expr]) -> Option<usize> {
        let Type::CArray(elem, n) = ty else {
            return None;
        };
        let first = rest.first()?;
        if *n == 0 || matches!(first.kind, K::InitList(_) | K::Str(_)) {
            return None;
        }
        // Arrays of arrays and of classes keep their inner braces here.
        if matches!(**elem, Type::CArray(..) | Type::Struct(_)) {
            return None;
        }
        Some((*n as usize).min(rest.len()))
    }

    fn init_item(&mut self, ty: &mut Type, item: &ast::Expr, what: &str) -> Option<Init> {
        if let Some(chars) = self.string_into_chars(ty, item) {
            return chars;
        }
        match &item.kind {
            K::InitList(items) => self.aggregate(ty, items, item.span),
            _ => {
                let e = self.expr(item);
                self.check_narrowing(item, &e.ty, ty);
                Some(Init::Expr(self.coerce(e, ty, what)))
            }
        }
    }

    /// `char name[] = "text"` (a variable or an aggregate's member): the
    /// literal's characters and its terminating zero, element by element;
    /// `T x[]` takes their count as its size. `None` when `ty` is no `char`
    /// array or `item` no string literal; `Some(None)` after an error.
    fn string_into_chars(&mut self, ty: &mut Type, item: &ast::Expr) -> Option<Option<Init>> {
        let Type::CArray(elem, size) = &*ty else {
            return None;
        };
        let char_like = matches!(
            **elem,
            Type::Scalar(Scalar::Char | Scalar::UChar | Scalar::WChar)
        );
        if !char_like || !matches!(item.kind, K::Str(_)) {
            return None;
        }
        let wide_elem = **elem == Type::Scalar(Scalar::WChar);
        let elem = (**elem).clone();
        let size = *size;
        let literal = self.expr(item);
        let wide_literal = literal.ty == Type::WideStr;
        let units: Vec<i64> = match &literal.kind {
            // A `wchar_t` array holds the characters of a wide literal (its
            // text is kept as UTF-8).
            ExprKind::Str(text) if wide_elem && wide_literal => String::from_utf8_lossy(text)
                .chars()
                .map(|c| i64::from(u32::from(c)))
                .collect(),
            // `char` is signed: bytes above 127 are negative, as g++ and
            // MSVC store them.
            ExprKind::Str(text) if !wide_elem && !wide_literal => text
                .iter()
                .map(|&b| match elem {
                    Type::Scalar(Scalar::UChar) => i64::from(b),
                    _ => i64::from(b as i8),
                })
                .collect(),
            ExprKind::Str(_) if wide_elem => {
                self.ck.report(
                    tessera_diagnostics::Diagnostic::error(
                        codes::E0203,
                        item.span,
                        "mismatched types: a narrow string literal cannot initialise a `wchar_t` array",
                    )
                    .with_label("a narrow string")
                    .with_msvc("C2440")
                    .with_help("write a wide literal: `L\"...\"`"),
                );
                return Some(None);
            }
            _ => Vec::new(),
        };
        let ExprKind::Str(_) = &literal.kind else {
            return Some(None);
        };
        if wide_literal && !wide_elem {
            let shown = self.ck.show(ty);
            self.ck.report(
                tessera_diagnostics::Diagnostic::error(
                    codes::E0203,
                    item.span,
                    format!(
                        "mismatched types: a wide string literal cannot initialise a `{shown}`"
                    ),
                )
                .with_label("a wide string")
                .with_msvc("C2440")
                .with_help("write a narrow literal: `\"...\"`"),
            );
            return Some(None);
        }
        let Ok(needed) = u32::try_from(units.len() + 1) else {
            return Some(None);
        };
        if size == 0 {
            *ty = Type::CArray(Box::new(elem.clone()), needed);
        } else if needed > size {
            self.ck.report(
                tessera_diagnostics::Diagnostic::error(
                    codes::E0203,
                    item.span,
                    format!(
                        "a string of {} characters and its terminating zero do not fit in {size} elements",
                        units.len()
                    ),
                )
                .with_label(format!("{needed} elements needed"))
                .with_msvc("C2117")
                .with_help(format!("make the array at least `[{needed}]`, or leave the size out: `[]`")),
            );
            return Some(None);
        }
        let span = item.span;
        let chars = units
            .iter()
            .chain(std::iter::once(&0))
            .map(|&value| {
                Init::Expr(mk(
                    ExprKind::Const(Const::Int(value)),
                    elem.clone(),
                    false,
                    span,
                ))
            })
            .collect();
        Some(Some(Init::List(chars)))
    }

    /// The initialiser of a variable; infers `auto` and the size of `T x[]`.
    pub fn initializer(
        &mut self,
        ty: &mut Type,
        specs: &ast::DeclSpecs,
        d: &ast::Declarator,
        name: &str,
    ) -> Option<Init> {
        let is_auto = matches!(specs.ty, ast::BaseType::Auto);
        let what = format!("the initialiser of `{name}`");
        let by_ref = d.modifiers.reference == 1
            || crate::decltype::names_reference(self.ck, specs, &d.modifiers);
        match &d.init {
            None => {
                if is_auto {
                    self.ck.error(
                        codes::E0218,
                        d.span,
                        format!("`auto` variable `{name}` needs an initialiser"),
                        "type cannot be deduced",
                        "",
                    );
                }
                if let Type::CArray(_, 0) = ty {
                    self.ck.error(
                        codes::E0218,
                        d.span,
                        format!("array `{name}` needs a size or an initialiser"),
                        "unknown size",
                        "",
                    );
                    *ty = Type::Error;
                }
                // C++ AMP does not run the constructors of `tile_static`
                // objects (MSVC warns, C4881).
                if specs.tile_static.is_some() {
                    return None;
                }
                self.default_constructed(ty, d.span)
            }
            Some(ast::Init::Assign(e))
                if !is_auto
                    && !by_ref
                    && matches!(e.kind, K::Str(_))
                    && matches!(ty, Type::CArray(..)) =>
            {
                self.string_into_chars(ty, e).flatten()
            }
            Some(ast::Init::Assign(e)) => match &e.kind {
                K::InitList(items) if !is_auto => self.aggregate(ty, items, e.span),
                _ => {
                    let v = if is_auto {
                        self.expr_decayed(e)
                    } else {
                        self.expr_for(e, ty)
                    };
                    if is_auto {
                        *ty = v.ty.clone();
                    }
                    if by_ref {
                        // `Base& b = derived;`: the base subobject.
                        let v = self.to_base(v, ty);
                        if !v.place && !v.ty.is_error() && !self.ck.specs_const(specs) {
                            self.ck.error(
                                codes::E0204,
                                v.span,
                                "a non-const reference cannot be bound to a temporary value",
                                "temporary",
                                "bind it to a variable, or make it `const T&`",
                            );
                        }
                        if !self.ck.specs_const(specs)
                            && v.place
                            && let Some((why, _)) = self.read_only_reason(&v)
                        {
                            let shown = self.ck.show(ty);
                            self.ck.report(
                                tessera_diagnostics::Diagnostic::error(
                                    codes::E0203,
                                    v.span,
                                    format!("a `{shown}&` cannot refer to a const object: {why}"),
                                )
                                .with_label("const object")
                                .with_msvc("C2440")
                                .with_help(format!("bind a `const {shown}&` instead")),
                            );
                        }
                        if v.ty != *ty && !v.ty.is_error() && !ty.is_error() {
                            let (a, b) = (self.ck.show(ty), self.ck.show(&v.ty));
                            self.ck.error(
                                codes::E0203,
                                v.span,
                                format!("a `{a}&` cannot refer to a `{b}`"),
                                "different type",
                                "",
                            );
                        }
                        return Some(Init::Ref(v));
                    }
                    if let Type::Struct(id) = *ty
                        && v.ty != Type::Struct(id)
                        && !v.ty.is_error()
                        && self.ck.needs_construction(id)
                    {
                        return self
                            .construct_object(id, vec![v], true, d.span)
                            .map(Init::Expr);
                    }
                    Some(Init::Expr(self.coerce(v, ty, &what)))
                }
            },
            Some(ast::Init::Brace(items)) => {
                if is_auto {
                    self.ck.error(
                        codes::E0211,
                        d.span,
                        "`auto` with a braced initialiser is not supported",
                        "here",
                        "write `auto x = value;`",
                    );
                    return None;
                }
                match ty {
                    Type::Struct(_) | Type::CArray(..) | Type::Scalar(_) => {
                        self.aggregate(ty, items, d.span)
                    }
                    _ => {
                        let ty = ty.clone();
                        Some(Init::Expr(self.braced_library(&ty, items, d.span)))
                    }
                }
            }
            Some(ast::Init::Paren(args)) => {
                if is_auto {
                    self.ck.error(
                        codes::E0211,
                        d.span,
                        "`auto` with a parenthesised initialiser is not supported",
                        "here",
                        "write `auto x = value;`",
                    );
                    return None;
                }
                match (&*ty, args.as_slice()) {
                    (Type::Scalar(_), [one]) => {
                        let v = self.expr(one);
                        Some(Init::Expr(self.coerce(v, ty, &what)))
                    }
                    (Type::Struct(id), _) if self.ck.needs_construction(*id) => {
                        let id = *id;
                        self.constructed(id, args, false, d.span).map(Init::Expr)
                    }
                    (Type::Struct(_), [one]) => {
                        let v = self.expr(one);
                        Some(Init::Expr(self.coerce(v, ty, &what)))
                    }
                    (Type::Struct(_) | Type::CArray(..), _) => {
                        self.ck.error(
                            codes::E0211,
                            d.span,
                            "structs and arrays are initialised with braces",
                            "here",
                            format!("write `{name} = {{...}}`"),
                        );
                        None
                    }
                    (Type::Error, _) => None,
                    _ => {
                        let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                        Some(Init::Expr(library::construct(self, ty, args, d.span)))
                    }
                }
            }
        }
    }

    /// An aggregate initialiser as a value (`p = {1, 2}`, `P{1, 2}`); missing
    /// members are zero.
    pub(crate) fn init_as_expr(&mut self, init: Option<Init>, ty: &Type, span: Span) -> Expr {
        match init {
            Some(Init::Expr(e)) => e,
            Some(Init::List(parts)) => {
                let mut exprs = Vec::new();
                // The element (or member) types, to build nested parts.
                let part_types: Vec<Type> = match ty {
                    // A union's list holds its first member only.
                    Type::Struct(id) if self.ck.is_union(ty) => self
                        .ck
                        .struct_fields(*id)
                        .into_iter()
                        .take(1)
                        .map(|f| f.1)
                        .collect(),
                    Type::Struct(id) => self
                        .ck
                        .struct_fields(*id)
                        .into_iter()
                        .map(|f| f.1)
                        .collect(),
                    Type::CArray(elem, n) => vec![(**elem).clone(); *n as usize],
                    _ => Vec::new(),
                };
                for (i, part) in parts.into_iter().enumerate() {
                    let part_ty = part_types.get(i).cloned().unwrap_or(Type::Error);
                    match part {
                        Init::Expr(e) => exprs.push(e),
                        Init::Ref(_) => {
                            self.ck.error(
                                codes::E0211,
                                span,
                                "a reference inside a braced list is not supported here",
                                "here",
                                "declare a variable with this initialiser and use it",
                            );
                            return error_expr(span);
                        }
                        nested => exprs.push(self.init_as_expr(Some(nested), &part_ty, span)),
                    }
                }
                // Members and elements not given are zero.
                for part_ty in part_types.iter().skip(exprs.len()) {
                    exprs.push(self.zero_value(part_ty, span));
                }
                mk(ExprKind::Aggregate(exprs), ty.clone(), false, span)
            }
            Some(Init::Zero) => self.zero_value(ty, span),
            _ => error_expr(span),
        }
    }

    /// The value-initialised (zero) value of `ty` as an expression.
    fn zero_value(&mut self, ty: &Type, span: Span) -> Expr {
        match ty {
            Type::Scalar(s) => {
                let zero = mk(ExprKind::Const(Const::Int(0)), Type::INT, false, span);
                self.convert_scalar(zero, *s)
            }
            Type::Struct(id) => {
                let mut fields = self.ck.struct_fields(*id);
                // Zero-initialising a union zero-initialises its first member.
                if self.ck.is_union(ty) {
                    fields.truncate(1);
                }
                let parts = fields
                    .iter()
                    .map(|(_, t)| self.zero_value(t, span))
                    .collect();
                mk(ExprKind::Aggregate(parts), ty.clone(), false, span)
            }
            Type::CArray(elem, n) if *n <= MAX_ZERO_ELEMENTS => {
                let one = self.zero_value(elem, span);
                mk(
                    ExprKind::Aggregate(vec![one; *n as usize]),
                    ty.clone(),
                    false,
                    span,
                )
            }
            Type::Error => error_expr(span),
            _ => {
                let shown = self.ck.show(ty);
                self.ck.error(
                    codes::E0211,
                    span,
                    format!("a value-initialised `{shown}` in an expression is not supported yet"),
                    "here",
                    "declare a variable and use it",
                );
                error_expr(span)
            }
        }
    }
}

/// A floating literal, possibly negated, or a name (which may be a
/// constant): what a narrowing check between floating types lets through.
fn float_literal_or_name(e: &ast::Expr) -> bool {
    match &e.kind {
        K::Float(_) | K::Int(_) | K::Name(_) => true,
        K::Unary {
            op: ast::UnaryOp::Neg | ast::UnaryOp::Plus,
            operand,
        } => float_literal_or_name(operand),
        _ => false,
    }
}
