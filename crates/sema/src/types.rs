//! Syntax types to typed-program types, and constant expressions (template
//! arguments, array sizes, case labels).

use crate::cx::Checker;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Container, Rank, Scalar, StringStreamKind, TileShape, Type};
use tessera_syntax::ast::{self, BaseType, Builtin, DeclSpecs, Modifiers, TemplateArg};

/// Looks up the value of a named constant (a `const` integral variable).
pub type ConstLookup<'a> = &'a dyn Fn(&str) -> Option<i64>;

/// A type as declared: the type and whether it is a reference.
#[derive(Clone, Debug)]
pub struct Declared {
    /// The type (the referent's, for a reference).
    pub ty: Type,
    /// Declared with `&`.
    pub by_ref: bool,
}

/// Resolves declaration specifiers, pointer/reference modifiers and array
/// bounds to a type. Reports what is not a valid type and yields `Type::Error`.
pub fn resolve(
    ck: &mut Checker,
    specs: &DeclSpecs,
    modifiers: &Modifiers,
    dims: &[Option<ast::Expr>],
    consts: ConstLookup<'_>,
) -> Declared {
    // A class being defined may be the pointee (or referent) of its own
    // members.
    ck.pointee_ok = ((modifiers.pointers > 0 || modifiers.reference > 0)
        && modifiers.function.is_none())
        || std::mem::take(&mut ck.declaring_member_alias);
    let mut ty = base_type(ck, &specs.ty, specs.span, consts);
    if specs.is_typedef {
        // Aliases are declared by `declare_aliases`; anywhere else (a
        // parameter, a member, a `for` header) Tessera has no use for one.
        ck.error(
            codes::E0211,
            specs.span,
            "a `typedef` is not supported here",
            "`typedef` here",
            "declare the alias at namespace or block scope",
        );
        ty = Type::Error;
    }
    if let Some(f) = &modifiers.function {
        // `int (*p)(int)`: the specifiers make the function's return type;
        // the first `*` is the function pointer itself, more point to it.
        ty = crate::fnptr::declarator_type(ck, ty, specs.is_const, f, consts);
        for _ in 1..modifiers.pointers {
            if ty.is_error() {
                break;
            }
            ty = Type::Ptr {
                elem: Box::new(ty),
                is_const: false,
            };
        }
    } else if modifiers.pointers > 0 && !ty.is_error() {
        // `const T* p`: the `const` of the specifiers is the pointee's; the
        // pointer itself is const only when written `T* const p`.
        let pointee_const = ck.specs_const(specs);
        for level in 0..modifiers.pointers {
            ty = Type::Ptr {
                elem: Box::new(ty),
                is_const: level == 0 && pointee_const,
            };
        }
    }
    if modifiers.reference == 2 && !ck.resolving_param {
        ck.error(
            codes::E0211,
            specs.span,
            "rvalue references (`&&`) are supported only as function parameters",
            "here",
            "use `const T&` or a value",
        );
        ty = Type::Error;
    }
    for dim in dims.iter().rev() {
        let Some(dim) = dim else {
            // `T x[] = {...}`: the size comes from the initialiser; the caller fixes it up.
            ty = Type::CArray(Box::new(ty), 0);
            continue;
        };
        let n = match eval(ck, dim, consts) {
            Some(n) if n > 0 && n <= i64::from(u32::MAX) => n as u32,
            Some(n) => {
                ck.error(
                    codes::E0213,
                    dim.span,
                    format!("array size must be positive, not {n}"),
                    "invalid size",
                    "",
                );
                return Declared {
                    ty: Type::Error,
                    by_ref: false,
                };
            }
            None => {
                return Declared {
                    ty: Type::Error,
                    by_ref: false,
                };
            }
        };
        ty = Type::CArray(Box::new(ty), n);
    }
    // `decltype((x)) y = x;`: a reference named by `decltype`.
    let decltype_ref = match &specs.ty {
        BaseType::Decltype { span, .. } => crate::decltype::result_of(ck, *span).by_ref,
        _ => false,
    };
    let decltype_ref = decltype_ref && modifiers.function.is_none();
    if decltype_ref && modifiers.pointers > 0 && !ty.is_error() {
        ck.error(
            codes::E0213,
            specs.span,
            "a pointer to a reference is not a type",
            "this `decltype` names a reference",
            "take the pointer to the referred type",
        );
        ty = Type::Error;
    }
    Declared {
        ty,
        by_ref: modifiers.reference > 0 || crate::decltype::names_reference(ck, specs, modifiers),
    }
}

/// Whether the declared object itself is `const`: for a pointer, only
/// `T* const p` is (`const T* p` points to const data). A template
/// parameter bound to a `const` type counts as written `const`.
pub fn object_const(ck: &Checker, specs: &DeclSpecs, modifiers: &Modifiers) -> bool {
    if let Some(f) = &modifiers.function {
        // A function reference never changes what it refers to.
        return f.inner.pointers == 0 || modifiers.const_pointer;
    }
    if modifiers.pointers > 0 {
        modifiers.const_pointer
    } else {
        ck.specs_const(specs) || specs.is_constexpr
    }
}

/// Resolves a type written in a cast or template argument.
pub fn resolve_type_name(
    ck: &mut Checker,
    ty: &ast::TypeName,
    consts: ConstLookup<'_>,
) -> Declared {
    resolve(ck, &ty.specs, &ty.modifiers, &[], consts)
}

fn builtin(ck: &mut Checker, b: Builtin, span: Span) -> Type {
    let scalar = match b {
        Builtin::Void => return Type::Void,
        Builtin::Bool => Scalar::Bool,
        // `signed char` behaves as `char` does on the targets g++ is
        // compared against (signed, 8 bits); `long long` as `long` (both 64
        // bits under LP64). Each stays a distinct type in C++; Tessera
        // names them by the type they behave as.
        Builtin::Char | Builtin::SignedChar => Scalar::Char,
        Builtin::UnsignedChar => Scalar::UChar,
        Builtin::Short => Scalar::Short,
        Builtin::UnsignedShort => Scalar::UShort,
        Builtin::Int => Scalar::Int,
        Builtin::Unsigned => Scalar::UInt,
        Builtin::Long | Builtin::LongLong => Scalar::Long,
        Builtin::UnsignedLong | Builtin::UnsignedLongLong => Scalar::ULong,
        Builtin::Float => Scalar::Float,
        Builtin::Double => Scalar::Double,
        Builtin::LongDouble => {
            ck.error(
                codes::E0211,
                span,
                format!("`{}` is not part of the Tessera language", b.name()),
                "unsupported type",
                "use `double`",
            );
            return Type::Error;
        }
    };
    Type::Scalar(scalar)
}

/// The namespaces a library name may be qualified with.
pub(crate) fn qualifier_ok(path: &ast::Path, allowed: &[&str]) -> bool {
    let n = path.segments.len();
    path.segments[..n.saturating_sub(1)]
        .iter()
        .all(|s| allowed.contains(&s.name.as_str()))
}

pub(crate) const AMP_NAMESPACES: &[&str] = &["concurrency", "Concurrency"];

/// The type a declaration's specifiers name. A class whose members are
/// being declared (`Checker::defining`) is incomplete: it may be named only
/// as the pointee of a pointer declarator, as C++ allows (`struct Node {
/// Node* next; };`); held by value, in its own members or in template
/// arguments (`std::vector<Node>`), it is refused.
fn base_type(ck: &mut Checker, ty: &BaseType, span: Span, consts: ConstLookup<'_>) -> Type {
    // Taken before anything nested (template arguments) is resolved, so
    // only this declarator's own pointee sees it.
    let pointee_ok = std::mem::take(&mut ck.pointee_ok);
    let t = named_type(ck, ty, span, consts);
    // An alias may hold the class in an array (`typedef Node row[2];`).
    let mut held = &t;
    while let Type::CArray(elem, _) = held {
        held = elem;
    }
    if let Type::Struct(id) = *held
        && !pointee_ok
        && let Some((name, _)) = ck.defining.iter().find(|(_, d)| *d == id)
    {
        let name = name.clone();
        ck.error(
            codes::E0201,
            span,
            format!("`{name}` is incomplete here: its definition is not finished"),
            "incomplete class",
            "a member may point to the class (`T*`); holding it, directly or in a container, is not supported",
        );
        return Type::Error;
    }
    t
}

/// The member alias `name` of class `id` or of one of its bases (the
/// nearest), with its access and the class declaring it. A class-template
/// instance's member typedefs count (`template::Templates::member_aliases`,
/// public).
fn class_member_alias(
    ck: &Checker,
    id: tessera_ir::StructId,
    name: &str,
) -> Option<(Type, ast::Access, tessera_ir::StructId)> {
    let mut todo = std::collections::VecDeque::from([(id, 0u32)]);
    let mut seen = std::collections::HashSet::new();
    while let Some((c, depth)) = todo.pop_front() {
        if !seen.insert(c) {
            continue;
        }
        if let Some((ty, access)) = ck.class_aliases.get(&c).and_then(|m| m.get(name)) {
            return Some((ty.clone(), *access, c));
        }
        if let Some(ty) = ck
            .program
            .get_struct(c)
            .and_then(|s| ck.templates.member_aliases.get(&s.name))
            .and_then(|m| m.get(name))
        {
            return Some((ty.clone(), ast::Access::Public, c));
        }
        if depth < 64
            && let Some(info) = ck.classes.get(&c)
        {
            todo.extend(info.bases.iter().map(|b| (*b, depth + 1)));
        }
    }
    None
}

/// The aliases a class's scope starts with: its bases' member aliases that
/// it may use (public and protected ones), nearest base first.
pub(crate) fn inherited_aliases(
    ck: &Checker,
    bases: &[tessera_ir::StructId],
) -> std::collections::HashMap<String, Type> {
    let mut out = std::collections::HashMap::new();
    let mut todo: std::collections::VecDeque<(tessera_ir::StructId, u32)> =
        bases.iter().map(|b| (*b, 0)).collect();
    let mut seen = std::collections::HashSet::new();
    while let Some((c, depth)) = todo.pop_front() {
        if !seen.insert(c) {
            continue;
        }
        if let Some(m) = ck.class_aliases.get(&c) {
            for (name, (ty, access)) in m {
                if *access != ast::Access::Private {
                    out.entry(name.clone()).or_insert_with(|| ty.clone());
                }
            }
        }
        if let Some(m) = ck
            .program
            .get_struct(c)
            .and_then(|s| ck.templates.member_aliases.get(&s.name))
        {
            for (name, ty) in m {
                out.entry(name.clone()).or_insert_with(|| ty.clone());
            }
        }
        if depth < 64
            && let Some(info) = ck.classes.get(&c)
        {
            todo.extend(info.bases.iter().map(|b| (*b, depth + 1)));
        }
    }
    out
}

/// Enters the scope of class `id` for code written outside its definition
/// (a member function defined out of class): its member aliases and its
/// bases' are named plainly. Undone by [`leave_class_scope`].
pub(crate) fn enter_class_scope(ck: &mut Checker, id: tessera_ir::StructId) {
    let bases = ck
        .classes
        .get(&id)
        .map(|c| c.bases.clone())
        .unwrap_or_default();
    let mut scope = inherited_aliases(ck, &bases);
    if let Some(m) = ck.class_aliases.get(&id) {
        for (name, (ty, _)) in m {
            scope.insert(name.clone(), ty.clone());
        }
    }
    if ck.aliases.is_empty() {
        // The first scope is the namespace's (see `FnCx::scoped`).
        ck.aliases.push(std::collections::HashMap::new());
    }
    ck.aliases.push(scope);
    ck.class_scopes.push(id);
}

/// Leaves the scope [`enter_class_scope`] entered.
pub(crate) fn leave_class_scope(ck: &mut Checker) {
    ck.aliases.pop();
    ck.class_scopes.pop();
}

/// The member type `name` of `owner`, named `Owner::name` (or `typename
/// C::name` with `C` bound to `owner`): a class's member alias, its own or
/// a base's, or the member types of the library's containers. A private
/// (protected) alias named outside its class (and the classes derived from
/// it) is E0250, MSVC's C2248.
pub(crate) fn member_type(ck: &mut Checker, owner: &Type, name: &str, span: Span) -> Option<Type> {
    match owner {
        Type::Struct(id) => {
            let (ty, access, declaring) = class_member_alias(ck, *id, name)?;
            let inside = ck.class_scopes.iter().any(|c| {
                *c == declaring
                    || (access == ast::Access::Protected && ck.derives_from(*c, declaring))
            });
            if access != ast::Access::Public && !inside {
                let class = ck.show(&Type::Struct(declaring));
                let word = if access == ast::Access::Private {
                    "private"
                } else {
                    "protected"
                };
                ck.report(
                    Diagnostic::error(
                        codes::E0250,
                        span,
                        format!("member type `{name}` is {word} in `{class}`"),
                    )
                    .with_label(format!("{word} member type"))
                    .with_msvc("C2248")
                    .with_help(format!("declare `{name}` after `public:` in `{class}`")),
                );
                return Some(Type::Error);
            }
            Some(ty)
        }
        Type::Vector(elem)
        | Type::Container(_, elem)
        | Type::Array(elem, _)
        | Type::ArrayView { elem, .. } => match name {
            "value_type" => Some((**elem).clone()),
            "size_type" if !matches!(owner, Type::Array(..) | Type::ArrayView { .. }) => {
                Some(Type::Scalar(Scalar::ULong))
            }
            "difference_type" if !matches!(owner, Type::Array(..) | Type::ArrayView { .. }) => {
                Some(Type::Scalar(Scalar::Long))
            }
            _ => None,
        },
        Type::Str => match name {
            "value_type" => Some(Type::Scalar(Scalar::Char)),
            "size_type" => Some(Type::Scalar(Scalar::ULong)),
            "difference_type" => Some(Type::Scalar(Scalar::Long)),
            _ => None,
        },
        _ => None,
    }
}

/// `Owner::name` where `Owner` names a class (or, in a template, a
/// parameter bound to a class or container): the member type, if the
/// owner is one and has it.
fn qualified_member_type(ck: &mut Checker, path: &ast::Path) -> Option<Type> {
    let n = path.segments.len();
    if n < 2 || path.global {
        return None;
    }
    let owner_segments = &path.segments[..n - 1];
    let owner_text = owner_segments
        .iter()
        .map(|s| s.name.as_str())
        .collect::<Vec<_>>()
        .join("::");
    let owner = if let [one] = owner_segments
        && let Some(t) = ck.alias(&one.name)
    {
        t.clone()
    } else if let Some(id) = ck.structs.get(&owner_text) {
        Type::Struct(*id)
    } else if let [one] = owner_segments
        && let Some((short, instance)) = &ck.templates.injected
        && *short == one.name
        && let Some(id) = ck.structs.get(instance)
    {
        Type::Struct(*id)
    } else {
        return None;
    };
    member_type(ck, &owner, path.last(), path.span)
}

/// The class of `defining` named `name`, if one is being defined.
fn being_defined(ck: &Checker, name: &str) -> Option<tessera_ir::StructId> {
    ck.defining
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, id)| *id)
}

fn named_type(ck: &mut Checker, ty: &BaseType, span: Span, consts: ConstLookup<'_>) -> Type {
    match ty {
        BaseType::Builtin(b) => builtin(ck, *b, span),
        BaseType::Auto => {
            // `auto` is resolved from the initialiser by the caller.
            Type::Error
        }
        BaseType::Error => Type::Error,
        BaseType::Named(path) => {
            let name = path.last();
            if name == "tile_barrier" && qualifier_ok(path, AMP_NAMESPACES) {
                if !crate::library::headers::declared(ck, path) {
                    return Type::Error;
                }
                return Type::TileBarrier;
            }
            if path.segments.len() == 1
                && let Some(ty) = ck.alias(name)
            {
                return ty.clone();
            }
            // Inside a class template's instance, the template's name.
            if path.segments.len() == 1
                && let Some((short, instance)) = &ck.templates.injected
                && short == name
                && let Some(id) = ck.structs.get(instance)
            {
                return Type::Struct(*id);
            }
            if path.segments.len() == 1
                && let Some((short, instance)) = &ck.templates.injected
                && short == name
                && let Some(id) = being_defined(ck, instance)
            {
                return Type::Struct(id);
            }
            if path.segments.len() == 1
                && let Some(e) = ck.enum_names.get(name).and_then(|id| ck.enums.get(*id))
            {
                return Type::Scalar(e.underlying);
            }
            if path.segments.len() == 1
                && let Some(id) = ck.structs.get(name)
            {
                return Type::Struct(*id);
            }
            if path.segments.len() == 1
                && let Some(id) = being_defined(ck, name)
            {
                return Type::Struct(id);
            }
            if path.segments.len() == 1
                && ck.prototype_param
                && let Some(id) = ck.declared_only.get(name)
            {
                return Type::Struct(*id);
            }
            // Not the program's own: a library type needs its header.
            if !crate::library::headers::declared(ck, path) {
                return Type::Error;
            }
            if is_wchar(ty) {
                return Type::Scalar(Scalar::WChar);
            }
            // `std::ios::fmtflags`: libstdc++'s flags fit an `int`.
            if name == "fmtflags" && qualifier_ok(path, &["std", "ios", "ios_base"]) {
                return Type::Scalar(Scalar::Int);
            }
            // The C library's integer typedefs, as in LP64.
            if qualifier_ok(path, &["std"]) {
                match name {
                    "size_t" => return Type::Scalar(Scalar::ULong),
                    "streamsize" => return Type::Scalar(Scalar::Long),
                    "ptrdiff_t" | "int64_t" | "clock_t" | "time_t" => {
                        return Type::Scalar(Scalar::Long);
                    }
                    "uint64_t" => return Type::Scalar(Scalar::ULong),
                    "int32_t" => return Type::Scalar(Scalar::Int),
                    // Only as `std::ostream&`: `std::cout` or `std::cerr`.
                    "ostream" if path.segments.len() == 2 => return Type::Ostream,
                    "uint32_t" => return Type::Scalar(Scalar::UInt),
                    "wstring" if path.segments.len() == 2 => return Type::WideStr,
                    // Only as `std::wostream&`: `std::wcout`, `std::wcerr` or
                    // a wide string stream.
                    "wostream" if path.segments.len() == 2 => return Type::WideOstream,
                    // Only as `std::istream&`: `std::cin` or a reading
                    // string stream.
                    "istream" if path.segments.len() == 2 => {
                        return Type::StringStream(StringStreamKind::Cin);
                    }
                    "wistream" if path.segments.len() == 2 => {
                        return Type::StringStream(StringStreamKind::WideCin);
                    }
                    _ if StringStreamKind::named(name).is_some() => {
                        if let Some(kind) = StringStreamKind::named(name) {
                            return Type::StringStream(kind);
                        }
                    }
                    "random_device" => {
                        return crate::library::random::device_type(ck);
                    }
                    "bernoulli_distribution" => {
                        return crate::library::random::bernoulli_type(ck);
                    }
                    _ if crate::library::random::engine_named(name).is_some() => {
                        if let Some(e) = crate::library::random::engine_named(name) {
                            return crate::library::random::engine_type(ck, e);
                        }
                    }
                    "exception" if path.segments.len() == 2 => {
                        if let Some(id) = crate::class::library_exception(ck, name) {
                            return Type::Struct(id);
                        }
                    }
                    _ => {}
                }
            }
            if qualifier_ok(path, AMP_NAMESPACES) {
                match name {
                    "accelerator" => return Type::Accelerator,
                    "accelerator_view" => return Type::AcceleratorView,
                    "access_type" => {
                        crate::library::access_type_enum(ck);
                        return Type::Scalar(Scalar::Int);
                    }
                    _ => {}
                }
            }
            if name == "completion_future" && qualifier_ok(path, AMP_NAMESPACES) {
                return crate::library::future::future_type(ck);
            }
            if qualifier_ok(path, AMP_NAMESPACES)
                && name != "exception"
                && let Some(id) = crate::class::library_exception(ck, name)
            {
                return Type::Struct(id);
            }
            // `S::value_type`, `C::value_type` with `C` bound to a class.
            if let Some(t) = qualified_member_type(ck, path) {
                return t;
            }
            // While a class's nested classes are declared (each is declared
            // first, then defined, before the class around it): a use
            // inside one of them.
            let nested_prefix = format!("{name}::");
            if path.segments.len() == 1
                && ck.declared_only.contains_key(name)
                && (ck
                    .declared_only
                    .keys()
                    .any(|k| k.starts_with(&nested_prefix))
                    || ck
                        .defining
                        .iter()
                        .any(|(k, _)| k.starts_with(&nested_prefix)))
            {
                ck.error(
                    codes::E0211,
                    path.span,
                    format!(
                        "naming the enclosing class `{name}` in a nested class's declarations is not supported yet"
                    ),
                    "enclosing class",
                    "a nested class is checked before the class around it: use it in the nested class's member function bodies, or by reference in their parameters",
                );
                return Type::Error;
            }
            if path.segments.len() == 1 && ck.declared_only.contains_key(name) {
                ck.error(
                    codes::E0201,
                    path.span,
                    format!("`{}` is declared but not defined yet", path.text()),
                    "incomplete class",
                    "define the class before this use: until then Tessera takes it only by reference, in the parameters of a member function declared without its body",
                );
                return Type::Error;
            }
            ck.error(
                codes::E0201,
                path.span,
                format!("`{}` is not a type Tessera knows", path.text()),
                "unknown type",
                if name == "string" {
                    "include `<string>` (or `<iostream>`), which declares it"
                } else {
                    "declare the struct before using it"
                },
            );
            Type::Error
        }
        BaseType::Template { path, args } => template(ck, path, args, consts),
        BaseType::Decltype {
            expr,
            parenthesised,
            span,
        } => crate::decltype::resolve(ck, expr, *parenthesised, *span),
    }
}

fn template(
    ck: &mut Checker,
    path: &ast::Path,
    args: &[TemplateArg],
    consts: ConstLookup<'_>,
) -> Type {
    let name = path.last();
    // `C<T, N>` where `C` is a template template parameter bound now: the
    // class template it names.
    if path.segments.len() == 1
        && let Some(bound) = ck.templates.template_params.get(name).cloned()
    {
        let named = ast::Path {
            global: false,
            segments: bound
                .iter()
                .map(|n| ast::Ident {
                    name: n.clone(),
                    span: path.span,
                })
                .collect(),
            span: path.span,
        };
        return template(ck, &named, args, consts);
    }
    if path.segments.len() == 1 && ck.templates.classes.contains_key(name) {
        return crate::template::instantiate_class(ck, path, args, consts);
    }
    if !crate::library::headers::declared(ck, path) {
        return Type::Error;
    }
    let amp_ok = qualifier_ok(path, AMP_NAMESPACES);
    for arg in args {
        if let TemplateArg::Type(t) = arg
            && name != "tuple"
            && ck.enum_of_specs(&t.specs).is_some()
        {
            ck.error(
                codes::E0211,
                t.span,
                "containers and views of enumerations are not supported yet",
                "enumeration element type",
                "use the underlying integer type and `static_cast`",
            );
            return Type::Error;
        }
    }
    if qualifier_ok(path, &["std"])
        && let Some(t) = crate::library::random::distribution_type(ck, path, args, consts)
    {
        return t;
    }
    match name {
        // PPL's `concurrency::task<T>` (see `library::task`).
        "task" if qualifier_ok(path, AMP_NAMESPACES) => match args {
            [TemplateArg::Type(t)] => {
                let d = resolve_type_name(ck, t, consts);
                if d.ty.is_error() {
                    return Type::Error;
                }
                if d.by_ref {
                    return bad_args(ck, path, "a type that is not a reference: `task<int>`");
                }
                crate::library::task::task_type(ck, &d.ty)
            }
            _ => bad_args(ck, path, "one type: `task<int>`, `task<void>`"),
        },
        // `std::shared_future<void>`: what a `completion_future` converts
        // to; Tessera's futures are ready at once, so the two are one type.
        "shared_future" if qualifier_ok(path, &["std"]) => match args {
            [TemplateArg::Type(t)]
                if matches!(t.specs.ty, ast::BaseType::Builtin(ast::Builtin::Void))
                    && t.modifiers == ast::Modifiers::default() =>
            {
                crate::library::future::future_type(ck)
            }
            _ => bad_args(ck, path, "`void`: `std::shared_future<void>`"),
        },
        // `std::remove_const<T>::type` and its kin: the type without the
        // qualifiers, which the typed program keeps beside it (see
        // `Checker::specs_cv`).
        "__remove_const" | "__remove_volatile" | "__remove_cv" => match args {
            [TemplateArg::Type(t)] => {
                let d = resolve_type_name(ck, t, consts);
                if d.by_ref {
                    ck.error(
                        codes::E0211,
                        t.span,
                        "the type traits of reference types are not supported yet",
                        "a reference type",
                        "name the type without `&`",
                    );
                    return Type::Error;
                }
                d.ty
            }
            _ => bad_args(ck, path, "one type: `std::remove_const<T>::type`"),
        },
        "__iterator" | "__const_iterator" | "__reverse_iterator" | "__const_reverse_iterator" => {
            match args {
                [TemplateArg::Type(t)] => {
                    let container = resolve_type_name(ck, t, consts).ty;
                    let (of, elem) = match container {
                        Type::Vector(elem) => (None, *elem),
                        Type::Container(kind, elem) => (Some(kind), *elem),
                        Type::Error => return Type::Error,
                        other => {
                            let shown = ck.show(&other);
                            ck.error(
                                codes::E0201,
                                t.span,
                                format!("`{shown}` has no iterator types"),
                                "not a container",
                                "",
                            );
                            return Type::Error;
                        }
                    };
                    Type::Iter(Box::new(tessera_ir::IterType {
                        elem,
                        of,
                        reverse: name.contains("reverse"),
                        is_const: name.starts_with("__const")
                            || of.is_some_and(tessera_ir::Container::is_associative),
                    }))
                }
                _ => bad_args(ck, path, "a container type"),
            }
        }
        "tuple" if qualifier_ok(path, &["std"]) => {
            crate::library::tuple::written_type(ck, path, args, consts)
        }
        "vector" if qualifier_ok(path, &["std"]) => match args {
            [TemplateArg::Type(t)] => {
                let elem = resolve_type_name(ck, t, consts);
                if elem.ty.is_error() {
                    Type::Error
                } else if elem.by_ref {
                    ck.error(
                        codes::E0213,
                        t.span,
                        "the elements of `std::vector` cannot be references",
                        "a reference type",
                        "use the element type itself: `std::vector<int>`",
                    );
                    Type::Error
                } else {
                    Type::Vector(Box::new(elem.ty))
                }
            }
            _ => bad_args(ck, path, "one element type: `std::vector<float>`"),
        },
        c if qualifier_ok(path, &["std"]) && Container::from_name(c).is_some() => match args {
            [TemplateArg::Type(t)] => {
                let elem = resolve_type_name(ck, t, consts);
                match Container::from_name(c) {
                    Some(kind) if !elem.ty.is_error() => Type::Container(kind, Box::new(elem.ty)),
                    _ => Type::Error,
                }
            }
            _ => bad_args(ck, path, &format!("one element type: `std::{c}<int>`")),
        },
        "array" | "array_view" if amp_ok => {
            let (elem, rank) = match args {
                [TemplateArg::Type(t)] => (t, None),
                [TemplateArg::Type(t), TemplateArg::Expr(e)] => (t, Some(e)),
                _ => {
                    return bad_args(
                        ck,
                        path,
                        &format!("an element type and a rank: `{name}<float, 2>`"),
                    );
                }
            };
            let elem_ty = resolve_type_name(ck, elem, consts);
            let rank = match rank {
                None => 1,
                Some(e) => match rank_of(ck, e, consts) {
                    Some(r) => r,
                    None => return Type::Error,
                },
            };
            if elem_ty.ty.is_error() {
                return Type::Error;
            }
            // Elements are objects: `array<int&, 1>` would hold references
            // (amp.h stores a pointer to its element type: C2528).
            if elem_ty.by_ref {
                ck.report(
                    tessera_diagnostics::Diagnostic::error(
                        codes::E0213,
                        elem.span,
                        format!("the elements of `{name}` cannot be references"),
                    )
                    .with_label("a reference type")
                    .with_msvc("C2528")
                    .with_help("use the element type itself: `array<int, 1>`"),
                );
                return Type::Error;
            }
            if let Type::Ptr { .. } = &elem_ty.ty {
                let shown = ck.show(&elem_ty.ty);
                ck.report(
                    tessera_diagnostics::Diagnostic::error(
                        codes::E0302,
                        elem.span,
                        format!("`{name}` of pointers (`{shown}`) is not allowed"),
                    )
                    .with_label("pointer element type")
                    .with_msvc("C3581")
                    .with_help("store indices instead of pointers"),
                );
                return Type::Error;
            }
            // The elements live on the accelerator: a class amp code cannot
            // use (virtual functions, bit fields) cannot be one.
            if let Some(problem) = crate::stmt::class_problem(ck, &elem_ty.ty) {
                let shown = ck.show(&elem_ty.ty);
                ck.report(
                    tessera_diagnostics::Diagnostic::error(
                        codes::E0302,
                        elem.span,
                        format!("`{name}` of `{shown}` is not allowed: `{shown}` is {problem}"),
                    )
                    .with_label("element type amp code cannot use")
                    .with_msvc("C3581")
                    .with_help("use a class without virtual functions or bit fields"),
                );
                return Type::Error;
            }
            // Containers do not nest: amp.h's element type cannot be an
            // `array` or `array_view`, nor hold one (MSVC: C2973).
            if let Some(inner) = nested_container(ck, &elem_ty.ty) {
                let shown = ck.show(&elem_ty.ty);
                ck.report(
                    tessera_diagnostics::Diagnostic::error(
                        codes::E0213,
                        elem.span,
                        format!("`{name}` of `{shown}` is not allowed: containers do not nest"),
                    )
                    .with_label(if inner == shown {
                        "a container element type".to_string()
                    } else {
                        format!("holds a `{inner}`")
                    })
                    .with_msvc("C2973")
                    .with_help("keep the data in one container and index it, or pass several views to the kernel"),
                );
                return Type::Error;
            }
            // Every element may be touched by amp code, so a class of them
            // may hold only what amp code can use (no `char` member, no
            // pointer, no host container): amp.h's members, restrict(amp),
            // fail to compile for it (MSVC: C3581).
            if let Type::Struct(_) = &elem_ty.ty
                && let Some(problem) = crate::stmt::kernel_type_problem(ck, &elem_ty.ty)
            {
                let shown = ck.show(&elem_ty.ty);
                ck.report(
                    tessera_diagnostics::Diagnostic::error(
                        codes::E0302,
                        elem.span,
                        format!("`{name}` of `{shown}` is not allowed: its {problem}"),
                    )
                    .with_label("element type amp code cannot use")
                    .with_msvc("C3581")
                    .with_help("kernels use `int`, `unsigned int`, `long`, `unsigned long`, `float`, `double`, `bool`, and classes and arrays of these"),
                );
                return Type::Error;
            }
            // amp.h asserts that an element is a whole number of 4-byte words
            // (an empty class, of size 1, is not; nor are `bool` and `char`).
            if let Type::Struct(_)
            | Type::Scalar(
                Scalar::Bool | Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort,
            ) = &elem_ty.ty
                && let Some((size, _)) =
                    tessera_ir::layout::size_align_u64(&ck.program.structs, &elem_ty.ty)
                && size % 4 != 0
            {
                let shown = ck.show(&elem_ty.ty);
                ck.report(
                    tessera_diagnostics::Diagnostic::error(
                        codes::E0213,
                        elem.span,
                        format!("the elements of `{name}` must be a multiple of 4 bytes; `{shown}` has {size}"),
                    )
                    .with_label("element type")
                    .with_msvc("C2338")
                    .with_help("add members (or padding) so the size is a multiple of 4 bytes"),
                );
                return Type::Error;
            }
            let elem_const = ck.specs_const(&elem.specs);
            if name == "array" {
                if elem_const {
                    ck.error(
                        codes::E0213,
                        elem.span,
                        "the element type of `array` cannot be const",
                        "const element",
                        "use `array<T, N>` and a `const` reference or an `array_view<const T, N>`",
                    );
                }
                Type::Array(Box::new(elem_ty.ty), rank)
            } else {
                Type::ArrayView {
                    elem: Box::new(elem_ty.ty),
                    rank,
                    read_only: elem_const,
                }
            }
        }
        "extent" | "index" if amp_ok => match args {
            [TemplateArg::Expr(e)] => match rank_of(ck, e, consts) {
                Some(r) if name == "extent" => Type::Extent(r),
                Some(r) => Type::Index(r),
                None => Type::Error,
            },
            _ => bad_args(ck, path, &format!("one rank: `{name}<2>`")),
        },
        "tiled_extent" | "tiled_index" if amp_ok => {
            match tile_shape(ck, path.span, args, consts, true) {
                Some(shape) if name == "tiled_extent" => Type::TiledExtent(shape),
                Some(shape) => Type::TiledIndex(shape),
                None => Type::Error,
            }
        }
        _ => {
            // The C library's integer typedefs, as in LP64.
            if qualifier_ok(path, &["std"]) {
                match name {
                    "size_t" => return Type::Scalar(Scalar::ULong),
                    "ptrdiff_t" | "int64_t" | "clock_t" | "time_t" => {
                        return Type::Scalar(Scalar::Long);
                    }
                    "uint64_t" => return Type::Scalar(Scalar::ULong),
                    "int32_t" => return Type::Scalar(Scalar::Int),
                    // Only as `std::ostream&`: `std::cout` or `std::cerr`.
                    "ostream" if path.segments.len() == 2 => return Type::Ostream,
                    "uint32_t" => return Type::Scalar(Scalar::UInt),
                    _ => {}
                }
            }
            if qualifier_ok(path, AMP_NAMESPACES) {
                match name {
                    "accelerator" => return Type::Accelerator,
                    "accelerator_view" => return Type::AcceleratorView,
                    _ => {}
                }
            }
            ck.error(
                codes::E0201,
                path.span,
                format!("`{}` is not a type Tessera knows", path.text()),
                "unknown template",
                "the library templates are `array`, `array_view`, `extent`, `index`, `tiled_extent`, `tiled_index` (namespace `concurrency`) and `std::vector`",
            );
            Type::Error
        }
    }
}

fn bad_args(ck: &mut Checker, path: &ast::Path, wanted: &str) -> Type {
    ck.error(
        codes::E0213,
        path.span,
        format!("wrong template arguments for `{}`", path.text()),
        "here",
        format!("it takes {wanted}"),
    );
    Type::Error
}

/// A rank: a constant from 1 to 128.
pub fn rank_of(ck: &mut Checker, e: &ast::Expr, consts: ConstLookup<'_>) -> Option<Rank> {
    let n = eval(ck, e, consts)?;
    if (1..=128).contains(&n) {
        Some(n as Rank)
    } else {
        ck.error(
            codes::E0213,
            e.span,
            format!("a rank must be at least 1, not {n}"),
            "invalid rank",
            "",
        );
        None
    }
}

/// The shape of `tile<D0[, D1[, D2]]>` (or `tiled_extent<...>`), checked
/// against C++ AMP's limits (E0401). For the class templates
/// (`defaulted_zeros`), trailing zero dimensions are the defaults of the
/// ones not written: `tiled_extent<16, 0, 0>` is `tiled_extent<16>`.
pub fn tile_shape(
    ck: &mut Checker,
    span: Span,
    args: &[TemplateArg],
    consts: ConstLookup<'_>,
    defaulted_zeros: bool,
) -> Option<TileShape> {
    let mut dims = [1u32; 3];
    let mut values = Vec::new();
    for arg in args {
        let TemplateArg::Expr(e) = arg else {
            ck.error(
                codes::E0213,
                span,
                "tile dimensions are numbers, not types",
                "here",
                "write e.g. `tile<16, 16>`",
            );
            return None;
        };
        values.push((eval(ck, e, consts)?, e.span));
    }
    while defaulted_zeros && values.len() > 1 && values.last().is_some_and(|(v, _)| *v == 0) {
        values.pop();
    }
    if values.is_empty() || values.len() > 3 {
        ck.error(
            codes::E0401,
            span,
            format!("a tile has 1, 2 or 3 dimensions, not {}", values.len()),
            "illegal tile extents",
            "tile a 1-, 2- or 3-dimensional extent",
        );
        return None;
    }
    for (i, (v, sp)) in values.iter().enumerate() {
        if *v <= 0 || *v > 1024 {
            let mut d = Diagnostic::error(
                codes::E0401,
                *sp,
                format!("tile dimension {i} is {v}; it must be between 1 and 1024"),
            )
            .with_label("illegal tile extent")
            .with_help("tile sizes are positive and at most 1024 work-items per tile in all");
            // amp.h asserts statically that each dimension is positive;
            // the compiler's own check of the launch (C3574) catches the
            // sizes too large.
            if *v <= 0 {
                d = d
                    .with_note("MSVC reports this as C2338 (a `static_assert` in `<amp.h>`)")
                    .standing_for("C2338");
            }
            ck.report(d);
            return None;
        }
        dims[i] = *v as u32;
    }
    let shape = TileShape {
        dims,
        rank: values.len() as Rank,
    };
    Some(shape)
}

/// Whether a kernel can run on tiles of `shape`: at most 1024 work-items,
/// and at most 64 in the first dimension of a 3-dimensional tile (E0401,
/// MSVC's C3574). A `tiled_extent` of a larger shape is a valid value; only
/// a launch over it is refused.
pub fn check_tile_threads(ck: &mut Checker, shape: TileShape, span: Span) -> bool {
    if shape.threads() > 1024 {
        ck.error(
            codes::E0401,
            span,
            format!(
                "a tile of {} has {} work-items; at most 1024 are allowed",
                shape,
                shape.threads()
            ),
            "too many work-items per tile",
            "use smaller tiles, e.g. `tile<16, 16>` (256 work-items) or `tile<32, 32>` (1024)",
        );
        return false;
    }
    if shape.rank == 3 && shape.dims[0] > 64 {
        ck.error(
            codes::E0401,
            span,
            format!(
                "the first dimension of a 3-dimensional tile is at most 64, not {}",
                shape.dims[0]
            ),
            "too large",
            "put the larger sizes in the last two dimensions",
        );
        return false;
    }
    true
}

/// Evaluates a constant integral expression (C++'s integral constant
/// expressions over literals and `const` integers). Reports E0209 if it is not one.
pub fn eval(ck: &mut Checker, e: &ast::Expr, consts: ConstLookup<'_>) -> Option<i64> {
    let folded = crate::traits::fold(ck, e, consts).ok()?;
    let e = folded.as_ref().unwrap_or(e);
    match try_eval(e, consts) {
        Ok(v) => Some(v),
        Err((span, why)) => {
            ck.error(
                codes::E0209,
                span,
                format!("not a constant expression: {why}"),
                "needs a value known at compile time",
                "use a literal, a `#define`, or a `const int` initialised with a constant",
            );
            None
        }
    }
}

/// Evaluates without reporting; the error names the offending part.
pub fn try_eval(e: &ast::Expr, consts: ConstLookup<'_>) -> Result<i64, (Span, String)> {
    use ast::{BinaryOp as B, ExprKind as K, UnaryOp as U};
    let fail = |why: &str| Err((e.span, why.to_string()));
    match &e.kind {
        K::Int(text) => crate::literal::parse_int(text)
            .map(|(v, _)| v)
            .ok_or((e.span, "the number is too large".into())),
        K::Char(text) => crate::literal::parse_char(text)
            .map(i64::from)
            .ok_or((e.span, "invalid character literal".into())),
        K::Bool(b) => Ok(i64::from(*b)),
        K::Name(path) if path.segments.len() == 1 => match consts(path.last()) {
            Some(v) => Ok(v),
            None => fail(&format!("`{}` is not a constant", path.last())),
        },
        K::Name(path) => match consts(&path.text()) {
            Some(v) => Ok(v),
            None => fail(&format!("`{}` is not a constant", path.text())),
        },
        K::Unary { op, operand } => {
            let v = try_eval(operand, consts)?;
            match op {
                U::Neg => v.checked_neg().ok_or((e.span, "overflow".into())),
                U::Plus => Ok(v),
                U::Not => Ok(i64::from(v == 0)),
                U::BitNot => Ok(!v),
                _ => fail("this operator is not allowed in a constant"),
            }
        }
        K::Binary { op, lhs, rhs } => {
            let a = try_eval(lhs, consts)?;
            if matches!(op, B::And) && a == 0 {
                return Ok(0);
            }
            if matches!(op, B::Or) && a != 0 {
                return Ok(1);
            }
            let b = try_eval(rhs, consts)?;
            let overflow = || (e.span, "overflow".to_string());
            match op {
                B::Add => a.checked_add(b).ok_or_else(overflow),
                B::Sub => a.checked_sub(b).ok_or_else(overflow),
                B::Mul => a.checked_mul(b).ok_or_else(overflow),
                B::Div | B::Rem if b == 0 => Err((rhs.span, "division by zero".into())),
                B::Div => a.checked_div(b).ok_or_else(overflow),
                B::Rem => a.checked_rem(b).ok_or_else(overflow),
                B::Shl if (0..63).contains(&b) => a.checked_shl(b as u32).ok_or_else(overflow),
                B::Shr if (0..63).contains(&b) => Ok(a >> b),
                B::Shl | B::Shr => Err((rhs.span, "shift count out of range".into())),
                B::Lt => Ok(i64::from(a < b)),
                B::Gt => Ok(i64::from(a > b)),
                B::Le => Ok(i64::from(a <= b)),
                B::Ge => Ok(i64::from(a >= b)),
                B::Eq => Ok(i64::from(a == b)),
                B::Ne => Ok(i64::from(a != b)),
                B::BitAnd => Ok(a & b),
                B::BitOr => Ok(a | b),
                B::BitXor => Ok(a ^ b),
                B::And => Ok(i64::from(b != 0)),
                B::Or => Ok(i64::from(b != 0)),
                B::Comma => fail("the comma operator is not allowed in a constant"),
                B::MemberPointer | B::MemberPointerArrow => fail("it is computed at run time"),
            }
        }
        K::Conditional { cond, then, els } => {
            if try_eval(cond, consts)? != 0 {
                try_eval(then, consts)
            } else {
                try_eval(els, consts)
            }
        }
        K::Cast { operand, .. } => try_eval(operand, consts),
        K::Construct { args, .. } if args.len() == 1 => try_eval(&args[0], consts),
        _ => fail("it is computed at run time"),
    }
}

/// Declares the names of a `typedef` (or `using name = T;`) in the innermost
/// alias scope. The forms Tessera does not carry through its types yet (an
/// alias of a `const` or reference type) are refused rather than half-kept.
pub fn declare_aliases(
    ck: &mut Checker,
    specs: &DeclSpecs,
    declarators: &[ast::Declarator],
    consts: ConstLookup<'_>,
) {
    // Given to each declarator's own `resolve`, which takes it, so that
    // nothing resolved inside (a template instance's members) sees it.
    let member = std::mem::take(&mut ck.declaring_member_alias);
    if specs.is_static
        || specs.is_extern
        || specs.is_inline
        || specs.is_constexpr
        || specs.tile_static.is_some()
    {
        ck.error(
            codes::E0105,
            specs.span,
            "a `typedef` takes no storage class or `constexpr`",
            "invalid with `typedef`",
            "write `typedef T name;`",
        );
        return;
    }
    if matches!(specs.ty, BaseType::Auto) {
        ck.error(
            codes::E0105,
            specs.span,
            "`auto` cannot name the type of an alias",
            "`auto` here",
            "write the type the alias stands for",
        );
        return;
    }
    if ck.enum_of_specs(specs).is_some() {
        ck.error(
            codes::E0211,
            specs.span,
            "aliases of enumerations are not supported yet",
            "enumeration",
            "use the enumeration's own name",
        );
        return;
    }
    for d in declarators {
        let Some(name) = &d.name else { continue };
        if d.init.is_some() {
            ck.error(
                codes::E0105,
                d.span,
                format!("the alias `{}` cannot have an initialiser", name.name),
                "initialiser",
                "a `typedef` names a type; declare a variable of it to hold a value",
            );
            continue;
        }
        let plain = DeclSpecs {
            is_typedef: false,
            ..specs.clone()
        };
        ck.declaring_member_alias = member;
        let Declared { ty, by_ref } = resolve(ck, &plain, &d.modifiers, &d.array_dims, consts);
        // `const T` or a `T` bound to `const int` alike.
        let cv = ck.specs_cv(specs);
        let ty = if cv.is_const || cv.is_volatile || by_ref {
            ck.error(
                codes::E0211,
                d.span,
                "aliases of `const`, `volatile` or reference types are not supported yet",
                "not supported",
                "write `const` or `&` where the alias is used: `const myint x = 1;`",
            );
            Type::Error
        } else {
            ty
        };
        if !ck.declare_alias(&name.name, ty) {
            ck.error(
                codes::E0202,
                name.span,
                format!("`{}` is already an alias of another type", name.name),
                "redefined here",
                "use another name",
            );
        }
    }
}

/// Checks a `static_assert`: its condition must be a constant and true;
/// a false one is reported with its message. `is_unsigned` tells whether a
/// named constant has an unsigned type.
pub fn static_assert(
    ck: &mut Checker,
    a: &ast::StaticAssert,
    consts: ConstLookup<'_>,
    is_unsigned: &dyn Fn(&str) -> bool,
) {
    // The evaluator computes in 64-bit signed arithmetic; C++'s unsigned
    // arithmetic and conversions could give another answer, so refuse them.
    if let Some((span, what)) = beyond_signed(&a.cond, is_unsigned) {
        ck.error(
            codes::E0211,
            span,
            format!("`static_assert` conditions with {what} are not supported yet"),
            "not supported in a `static_assert`",
            "write the condition with signed integer constants",
        );
        return;
    }
    let Some(value) = eval(ck, &a.cond, consts) else {
        return;
    };
    if value != 0 {
        return;
    }
    let message = a.message.as_ref().map(|parts| {
        let bytes: Vec<u8> = parts
            .iter()
            .flat_map(|p| crate::literal::parse_str(p).unwrap_or_default())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let text = match &message {
        Some(m) => format!("static assertion failed: {m}"),
        None => "static assertion failed".to_string(),
    };
    ck.report(
        tessera_diagnostics::Diagnostic::error(codes::E0219, a.cond.span, text)
            .with_label("this condition is false")
            .with_msvc("C2338"),
    );
}

/// The first part of a constant expression that 64-bit signed arithmetic
/// may not evaluate as C++ does: an unsigned literal or constant, a cast.
fn beyond_signed(
    e: &ast::Expr,
    is_unsigned: &dyn Fn(&str) -> bool,
) -> Option<(Span, &'static str)> {
    use ast::ExprKind as K;
    match &e.kind {
        K::Int(text) => match crate::literal::parse_int(text) {
            Some((_, s)) if s.is_unsigned() => Some((e.span, "unsigned values")),
            _ => None,
        },
        K::Name(path) if is_unsigned(path.last()) => Some((e.span, "unsigned values")),
        K::Cast { .. } | K::Construct { .. } => Some((e.span, "casts")),
        K::Unary { operand, .. } => beyond_signed(operand, is_unsigned),
        K::Binary { lhs, rhs, .. } => {
            beyond_signed(lhs, is_unsigned).or_else(|| beyond_signed(rhs, is_unsigned))
        }
        K::Conditional { cond, then, els } => beyond_signed(cond, is_unsigned)
            .or_else(|| beyond_signed(then, is_unsigned))
            .or_else(|| beyond_signed(els, is_unsigned)),
        _ => None,
    }
}

/// The container an element type is or holds (through members and C
/// arrays, not pointers), shown: C++ AMP's containers do not nest.
fn nested_container(ck: &Checker, ty: &Type) -> Option<String> {
    match ty {
        Type::Array(..) | Type::ArrayView { .. } => Some(ck.show(ty)),
        Type::CArray(elem, _) => nested_container(ck, elem),
        Type::Struct(id) => ck
            .struct_fields(*id)
            .iter()
            .find_map(|(_, t)| nested_container(ck, t)),
        _ => None,
    }
}

/// What C++ AMP forbids in the signature of a function that may run on the
/// accelerator (`restrict(amp)` or `restrict(amp, cpu)`), and `tile_static`
/// anywhere in a function's declaration: MSVC's C3581 for types amp code
/// cannot use (`char`, `volatile`, ...), C3584 for `tile_static`.
pub fn check_signature(ck: &mut Checker, f: &ast::Function, func: &tessera_ir::Function) {
    let declared = std::iter::once(&f.ret).chain(f.params.iter().map(|p| &p.specs));
    for specs in declared {
        if let Some(ts) = specs.tile_static {
            ck.report(
                Diagnostic::error(
                    codes::E0402,
                    ts,
                    "`tile_static` applies to local variables, not to functions or parameters",
                )
                .with_label("in a function's declaration")
                .with_msvc("C3584")
                .with_help("remove `tile_static`; declare a `tile_static` variable in the body"),
            );
        }
    }
    if !func.restriction.amp {
        return;
    }
    let params = func.locals.iter().take(func.params as usize);
    let typed = std::iter::once((
        &f.ret,
        &func.ret,
        f.ret.span,
        format!("the return value of `{}`", func.name),
    ))
    .chain(f.params.iter().zip(params).map(|(p, local)| {
        let what = if local.name.is_empty() {
            "a parameter".to_string()
        } else {
            format!("parameter `{}`", local.name)
        };
        (&p.specs, &local.ty, p.span, what)
    }));
    let mut problems = Vec::new();
    for (specs, ty, span, what) in typed {
        let problem = if ck.specs_cv(specs).is_volatile {
            Some("`volatile`".to_string())
        } else {
            written_type_problem(specs).or_else(|| crate::stmt::kernel_type_problem(ck, ty))
        };
        if let Some(problem) = problem {
            problems.push((span, what, problem));
        }
    }
    for (span, what, problem) in problems {
        ck.report(amp_type_error(span, &what, &problem));
    }
}

/// A type amp code cannot use that its checked type does not show: `long
/// long` behaves as `long` in Tessera, but C++ AMP forbids it; `long
/// double` and `wchar_t` have no type in Tessera (see
/// [`written_type_unsupported`]).
pub fn written_type_problem(specs: &ast::DeclSpecs) -> Option<String> {
    match &specs.ty {
        BaseType::Builtin(
            b @ (Builtin::LongLong | Builtin::UnsignedLongLong | Builtin::LongDouble),
        ) => Some(format!("`{}`", b.name())),
        ty if is_wchar(ty) => Some("`wchar_t`".into()),
        _ => None,
    }
}

/// Whether the written type is one C++ has and Tessera does not (`long
/// double`, `wchar_t`): in amp code C++ AMP's own refusal (C3581) is the
/// one reported, rather than Tessera's.
pub fn written_type_unsupported(specs: &ast::DeclSpecs) -> bool {
    matches!(specs.ty, BaseType::Builtin(Builtin::LongDouble)) || is_wchar(&specs.ty)
}

/// `wchar_t` (a name the classifier reads as a type).
fn is_wchar(ty: &BaseType) -> bool {
    matches!(ty, BaseType::Named(p) if p.segments.len() == 1 && !p.global && p.last() == "wchar_t")
}

/// E0302: `what` has a type amp code cannot use (MSVC's C3581).
pub fn amp_type_error(span: Span, what: &str, problem: &str) -> Diagnostic {
    Diagnostic::error(
        codes::E0302,
        span,
        format!("{what} has a type amp code cannot use: {problem}"),
    )
    .with_label("not allowed in `restrict(amp)` code")
    .with_msvc("C3581")
    .with_help("kernels use `int`, `unsigned int`, `long`, `unsigned long`, `float`, `double`, `bool`, structs and arrays of these, and the concurrency types")
}
