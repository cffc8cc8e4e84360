//! Top-level declarations, in source order: C++ requires every name to be
//! declared before it is used, so each item is checked (bodies included) when
//! it is reached, seeing only what came before it.

use crate::cx::{Checker, FnCx};
use crate::types::{self, Declared};
use std::borrow::Cow;
use std::collections::HashMap;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{
    FuncId, Function, FunctionKind, Global, GlobalId, Local, Restriction, Space, StructDef,
    StructId, Type,
};
use tessera_syntax::ast::{self, Item, ItemKind, TranslationUnit};

/// Checks every item of the file in order. A template's item is kept by
/// the checker (it is instantiated on use): from a tree the checker owns
/// it is moved there, from a borrowed one copied.
pub fn declare_all(ck: &mut Checker, unit: Cow<'_, TranslationUnit>) {
    match unit {
        Cow::Borrowed(unit) => {
            for item in &unit.items {
                declare_item(ck, item);
            }
        }
        Cow::Owned(unit) => {
            for item in unit.items {
                match item.kind {
                    ItemKind::Template(t) => {
                        crate::template::declare_template(ck, Cow::Owned(t), item.span);
                    }
                    // A library function, lowered on first use.
                    ItemKind::Function(f)
                        if f.class.is_none()
                            && f.body.is_some()
                            && ck.library_files.contains(&f.name.span.file) =>
                    {
                        let f = std::rc::Rc::new(f);
                        ck.library_function = Some(std::rc::Rc::clone(&f));
                        declare_function(ck, &f, item.span);
                        ck.library_function = None;
                    }
                    // Kept whole, for its members lowered on first use.
                    ItemKind::Struct(s)
                        if !s.forward && ck.library_files.contains(&s.name.span.file) =>
                    {
                        let s = std::rc::Rc::new(s);
                        ck.library_class = Some(std::rc::Rc::clone(&s));
                        declare_struct(ck, &s, item.span);
                        ck.library_class = None;
                    }
                    kind => declare_item(
                        ck,
                        &Item {
                            kind,
                            span: item.span,
                        },
                    ),
                }
            }
        }
    }
}

/// Checks one item of the file.
fn declare_item(ck: &mut Checker, item: &Item) {
    match &item.kind {
        ItemKind::UsingNamespace(path) => {
            crate::library::headers::directive_declared(ck, path);
            ck.using_namespaces.push(path.text());
        }
        ItemKind::UsingDecl(path) => {
            if crate::library::headers::is_library_namespace(path) {
                crate::library::headers::declared(ck, path);
            }
        }
        ItemKind::Namespace(_)
        | ItemKind::NamespaceAlias { .. }
        | ItemKind::Empty
        | ItemKind::Error => {}
        // `class X;`: the definition declares it; until then only a
        // member function's prototype may name it (by reference).
        ItemKind::Struct(s) if s.forward => declare_only(ck, s, item.span),
        ItemKind::Struct(s) => declare_struct(ck, s, item.span),
        ItemKind::Global(decl) if decl.specs.is_typedef => {
            let snapshot = const_snapshot(ck);
            let lookup = move |n: &str| snapshot.get(n).copied();
            types::declare_aliases(ck, &decl.specs, &decl.declarators, &lookup);
        }
        // `int Counter::made = 0;` (a namespace's globals have flat
        // names with `::` too, but not after a class's name).
        ItemKind::Global(decl)
            if decl.declarators.iter().any(|d| {
                d.name.as_ref().is_some_and(|n| {
                    n.name
                        .rsplit_once("::")
                        .is_some_and(|(class, _)| ck.structs.contains_key(class))
                })
            }) =>
        {
            for d in &decl.declarators {
                crate::class::define_static_data(ck, &decl.specs, d);
            }
        }
        ItemKind::Global(decl) => declare_globals(ck, &decl.specs, &decl.declarators),
        ItemKind::StaticAssert(a) => namespace_static_assert(ck, a),
        ItemKind::Enum(e) => crate::enums::declare_enum(ck, e),
        ItemKind::Template(t) => {
            crate::template::declare_template(ck, Cow::Borrowed(t), item.span);
        }
        ItemKind::Function(f) if f.class.is_some() => crate::class::define_out_of_class(ck, f),
        ItemKind::Function(f) => declare_function(ck, f, item.span),
    }
}

/// A `static_assert` at namespace or class scope: it sees the constant globals.
fn namespace_static_assert(ck: &mut Checker, a: &ast::StaticAssert) {
    let snapshot = const_snapshot(ck);
    let lookup = move |n: &str| snapshot.get(n).copied();
    let unsigned: HashMap<String, bool> = ck
        .globals
        .iter()
        .map(|(name, id)| {
            let ty = ck.program.get_global(*id).map(|g| &g.ty);
            let u = matches!(ty, Some(Type::Scalar(s)) if s.is_unsigned());
            (name.clone(), u)
        })
        .collect();
    let is_unsigned = move |n: &str| unsigned.get(n).copied().unwrap_or(false);
    types::static_assert(ck, a, &lookup, &is_unsigned);
}

/// The values of the constant globals declared so far, by name (shared, not copied).
pub(crate) fn const_snapshot(ck: &Checker) -> std::rc::Rc<HashMap<String, i64>> {
    ck.const_globals.clone()
}

/// `class X;` before `X` is defined: reserves the id its definition will
/// have, so prototypes may take an `X&` (see `Checker::declared_only`).
/// The reserved definition is empty until then; nothing but those
/// prototypes can name it.
fn declare_only(ck: &mut Checker, s: &ast::StructDef, span: Span) {
    let name = &s.name.name;
    if ck.structs.contains_key(name)
        || ck.declared_only.contains_key(name)
        || ck.enum_names.contains_key(name)
    {
        return;
    }
    let id = StructId(ck.program.structs.len() as u32);
    ck.program.structs.push(StructDef {
        name: name.clone(),
        fields: Vec::new(),
        is_union: s.is_union,
        span,
    });
    ck.declared_only.insert(name.clone(), id);
}

pub(crate) fn declare_struct(ck: &mut Checker, s: &ast::StructDef, span: Span) {
    if ck.structs.contains_key(&s.name.name) || ck.enum_names.contains_key(&s.name.name) {
        ck.error(
            codes::E0202,
            s.name.span,
            format!("struct `{}` is defined twice", s.name.name),
            "second definition",
            "",
        );
        return;
    }
    for a in &s.asserts {
        namespace_static_assert(ck, a);
    }
    // The class's id is taken before its members are declared, so that a
    // member may point to the class (`Node* next`): the id a forward
    // declaration reserved, or a new one, filled at the end.
    let id = match ck.declared_only.remove(&s.name.name) {
        Some(id) if (id.0 as usize) < ck.program.structs.len() => id,
        _ => {
            let id = StructId(ck.program.structs.len() as u32);
            ck.program.structs.push(StructDef {
                name: s.name.name.clone(),
                fields: Vec::new(),
                is_union: s.is_union,
                span,
            });
            id
        }
    };
    ck.defining.push((s.name.name.clone(), id));
    // Base classes are subobjects, laid out first, in order (see `class`).
    let mut fields: Vec<(String, Type)> = Vec::new();
    let mut layout = crate::class::Layout::default();
    if s.is_union && !s.bases.is_empty() {
        ck.report(
            Diagnostic::error(
                codes::E0254,
                s.name.span,
                format!("union `{}` cannot have base classes", s.name.name),
            )
            .with_label("a union")
            .with_help("make the union a member of a struct instead"),
        );
    }
    for base in &s.bases {
        if s.is_union {
            break;
        }
        let base_span = match &base.item {
            ast::BaseType::Named(p) | ast::BaseType::Template { path: p, .. } => p.span,
            _ => s.name.span,
        };
        let written = match &base.item {
            ast::BaseType::Named(p) => p.last().to_string(),
            ast::BaseType::Template { path, .. } => path.last().to_string(),
            _ => String::new(),
        };
        if let Some(name) = written.strip_prefix("virtual ") {
            ck.report(
                Diagnostic::error(
                    codes::E0302,
                    base_span,
                    format!("virtual base class `{name}` is not supported"),
                )
                .with_label("virtual base")
                .with_msvc("C3581")
                .with_help("C++ AMP forbids virtual bases in types amp code uses; derive without `virtual`"),
            );
            continue;
        }
        let found = match &base.item {
            ast::BaseType::Named(p) if p.segments.len() == 1 && !p.global => {
                ck.structs.get(p.last()).copied()
            }
            other => {
                // A qualified name or a template instance: resolved as a type.
                let specs = ast::DeclSpecs::plain(other.clone(), base_span);
                let snapshot = const_snapshot(ck);
                let lookup = move |n: &str| snapshot.get(n).copied();
                let before = ck.diags.len();
                match types::resolve(ck, &specs, &ast::Modifiers::default(), &[], &lookup).ty {
                    Type::Struct(b) => Some(b),
                    Type::Error if ck.diags.len() > before => continue,
                    _ => None,
                }
            }
        };
        match found {
            Some(b) if ck.is_union(&Type::Struct(b)) => ck.report(
                Diagnostic::error(
                    codes::E0254,
                    base_span,
                    format!("union `{written}` cannot be used as a base class"),
                )
                .with_label("a union")
                .with_msvc("C2569")
                .with_help("make the union a member of the class instead"),
            ),
            Some(b) => {
                if let Some(info) = ck.classes.get(&b)
                    && info.is_final
                {
                    let shown = info.name.clone();
                    ck.report(
                        Diagnostic::error(
                            codes::E0257,
                            base_span,
                            format!("`{shown}` is declared `final` and cannot be a base class"),
                        )
                        .with_label("base class declared `final`")
                        .with_msvc("C3246")
                        .with_help(format!(
                            "remove `final` from `{shown}`, or make it a member instead of a base"
                        )),
                    );
                }
                let base_name = ck
                    .program
                    .get_struct(b)
                    .map_or(written.clone(), |s| s.name.clone());
                fields.push((crate::class::base_field_name(&base_name), Type::Struct(b)));
                layout.bases.push(b);
                layout.access.push(base.access);
                layout.default_inits.push(None);
                layout.const_fields.push(false);
            }
            None => ck.error(
                codes::E0200,
                base_span,
                format!("cannot find class `{written}`"),
                "not declared",
                "define the base class before this one",
            ),
        }
    }
    // A polymorphic class's objects hold their dynamic class (see
    // `tessera_ir::DynamicClass`): in the polymorphic base's field, or in a
    // hidden field of this class, after its bases.
    let writes_virtual = s.methods.iter().any(|m| m.item.method.is_virtual);
    let polymorphic_bases: Vec<(StructId, u32)> = layout
        .bases
        .iter()
        .enumerate()
        .filter(|(_, b)| ck.program.dynamic.contains_key(b))
        .map(|(i, b)| (*b, i as u32))
        .collect();
    let mut dynamic = None;
    if (writes_virtual || !polymorphic_bases.is_empty()) && !s.is_union {
        if layout.bases.len() > 1 {
            ck.error(
                codes::E0211,
                s.name.span,
                "virtual functions in a class with several bases are not supported yet",
                "several bases",
                "derive from one base class",
            );
        } else if let Some(&(base, field)) = polymorphic_bases.first() {
            dynamic = Some(tessera_ir::DynamicClass {
                base: Some((base, field)),
                ..Default::default()
            });
        } else {
            dynamic = Some(tessera_ir::DynamicClass {
                base: None,
                tag_field: fields.len() as u32,
                ..Default::default()
            });
            fields.push((
                tessera_ir::DYNAMIC_CLASS_FIELD.to_string(),
                Type::Scalar(tessera_ir::Scalar::Long),
            ));
            layout.access.push(ast::Access::Private);
            layout.default_inits.push(None);
            layout.const_fields.push(false);
        }
    }
    let class_consts = crate::class::static_consts(ck, s);
    let mut pending_enum_fields = Vec::new();
    // The class's scope: its member aliases, and those of its bases it may
    // use, are named plainly in its members and member functions. Left
    // once the member functions are declared (and the bodies written in
    // the class checked).
    let inherited = types::inherited_aliases(ck, &layout.bases);
    if ck.aliases.is_empty() {
        // The first scope is the namespace's (see `FnCx::scoped`).
        ck.aliases.push(HashMap::new());
    }
    // Two scopes: the class's own aliases hide its bases' (C++ allows a
    // derived class to declare the same name for another type).
    ck.aliases.push(inherited);
    ck.aliases.push(HashMap::new());
    ck.class_scopes.push(id);
    let mut member_aliases: HashMap<String, (Type, ast::Access)> = HashMap::new();
    for (k, decl) in s.fields.iter().enumerate() {
        let access = s
            .field_access
            .get(k)
            .copied()
            .unwrap_or(ast::Access::Public);
        if decl.specs.is_typedef {
            // In order: a member alias is known from its declaration on.
            let snapshot = const_snapshot(ck);
            let consts = class_consts.clone();
            let lookup = move |n: &str| consts.get(n).or_else(|| snapshot.get(n)).copied();
            // Unlike a typedef at namespace or block scope, a member alias
            // cannot be declared again in its class, even for the same
            // type (C++'s [dcl.typedef]; g++'s "redeclaration").
            for d in &decl.declarators {
                if let Some(name) = &d.name
                    && member_aliases.contains_key(&name.name)
                {
                    ck.error(
                        codes::E0202,
                        name.span,
                        format!(
                            "member alias `{}` is declared twice in `{}`",
                            name.name, s.name.name
                        ),
                        "second declaration",
                        "a class declares each member alias once",
                    );
                }
            }
            ck.declaring_member_alias = true;
            types::declare_aliases(ck, &decl.specs, &decl.declarators, &lookup);
            ck.declaring_member_alias = false;
            for d in &decl.declarators {
                if let Some(name) = &d.name
                    && !member_aliases.contains_key(&name.name)
                    && let Some(ty) = ck.aliases.last().and_then(|a| a.get(&name.name))
                {
                    member_aliases.insert(name.name.clone(), (ty.clone(), access));
                }
            }
            continue;
        }
        if decl.specs.is_static {
            layout.statics.push((decl.clone(), access));
            continue;
        }
        if matches!(decl.specs.ty, ast::BaseType::Auto) {
            // C++ deduces no type for a data member (g++: "non-static data
            // member declared with placeholder `auto`").
            ck.error(
                codes::E0105,
                decl.specs.span,
                "a data member cannot be declared `auto`",
                "`auto` member",
                "name the member's type",
            );
        }
        if decl.specs.tile_static.is_some() {
            ck.error(
                codes::E0211,
                decl.span,
                "`tile_static` members are not part of the Tessera language",
                "here",
                "declare the `tile_static` variable in the kernel",
            );
        }
        // A member of an enumeration type keeps its enumeration (for C++'s
        // conversion rules) by position; arrays of them and default member
        // initialisers are not checked against it yet.
        let field_enum = ck.enum_of_specs(&decl.specs);
        if field_enum.is_some()
            && decl
                .declarators
                .iter()
                .any(|d| !d.array_dims.is_empty() || d.init.is_some() || d.modifiers.pointers > 0)
        {
            ck.error(
                codes::E0211,
                decl.span,
                "arrays, pointers and initialised members of an enumeration type are not supported yet",
                "enumeration member",
                "use the underlying integer type and `static_cast`",
            );
        }
        for d in &decl.declarators {
            let snapshot = const_snapshot(ck);
            let consts = class_consts.clone();
            let lookup = move |n: &str| consts.get(n).or_else(|| snapshot.get(n)).copied();
            let Declared { ty, by_ref } =
                types::resolve(ck, &decl.specs, &d.modifiers, &d.array_dims, &lookup);
            let Some(name) = &d.name else { continue };
            if by_ref {
                ck.error(
                    codes::E0306,
                    d.span,
                    "reference members are not part of the Tessera language",
                    "reference member",
                    "store the value itself",
                );
            }
            if fields.iter().any(|(n, _)| n == &name.name) {
                ck.error(
                    codes::E0202,
                    name.span,
                    format!("member `{}` is declared twice", name.name),
                    "second declaration",
                    "",
                );
                continue;
            }
            if ty.contains_string_stream(&ck.program.structs) {
                // A class holding a stream cannot be copied in C++, which
                // Tessera does not check for classes yet.
                ck.error(
                    codes::E0211,
                    d.span,
                    "a string stream as a member is not supported yet",
                    "string stream member",
                    "declare the stream where it is used, or pass it by reference",
                );
            }
            if let Some(e) = field_enum {
                pending_enum_fields.push((fields.len() as u32, e));
            }
            fields.push((name.name.clone(), ty));
            layout.access.push(access);
            layout.default_inits.push(d.init.clone());
            layout
                .const_fields
                .push(crate::types::object_const(ck, &decl.specs, &d.modifiers));
        }
    }
    if s.is_union {
        for (name, ty) in &fields {
            if let Some(why) = union_member_problem(ck, ty, 0) {
                let at = s
                    .fields
                    .iter()
                    .find(|d| {
                        d.declarators
                            .iter()
                            .any(|x| x.name.as_ref().is_some_and(|n| &n.name == name))
                    })
                    .map_or(s.name.span, |d| d.span);
                ck.error(
                    codes::E0211,
                    at,
                    format!("union member `{name}` {why}: such members are not supported yet"),
                    "union member",
                    "keep union members to numbers, pointers, arrays of them and plain structs",
                );
            }
        }
    }
    let def = StructDef {
        name: s.name.name.clone(),
        fields,
        is_union: s.is_union,
        span,
    };
    ck.defining.pop();
    if let Some(slot) = ck.program.structs.get_mut(id.0 as usize) {
        *slot = def;
    }
    ck.structs.insert(s.name.name.clone(), id);
    if let Some(d) = dynamic {
        ck.program.dynamic.insert(id, d);
    }
    for (field, e) in pending_enum_fields {
        ck.enum_fields.insert((id, field), e);
    }
    used_before_alias(ck, s);
    ck.class_aliases.insert(id, member_aliases);
    crate::class::declare_class(ck, id, s, layout, class_consts);
    ck.aliases.pop();
    ck.aliases.pop();
    ck.class_scopes.pop();
    // Bit fields: refused on the host for now, and a class holding one is
    // a type amp code cannot use (see `stmt::kernel_type_problem`).
    for &at in &s.bit_fields {
        ck.error(
            codes::E0211,
            at,
            "bit fields are not supported yet",
            "bit field",
            "declare the member without a width",
        );
    }
    if !s.bit_fields.is_empty()
        && let Some(c) = ck.classes.get_mut(&id)
    {
        c.has_bit_field = true;
    }
    if !s.trailing.is_empty() {
        let specs = ast::DeclSpecs::naming_class(&s.name);
        declare_globals(ck, &specs, &s.trailing);
    }
}

/// A member alias must be declared before the member declarations that
/// name it (C++'s [basic.scope.class]; g++ says the later alias "changes
/// meaning" of the name): member functions are declared after every data
/// member and alias here, so a use above the alias is found by position.
/// Bodies are not looked at: they see the whole class, as in C++.
fn used_before_alias(ck: &mut Checker, s: &ast::StructDef) {
    /// Whether `ty` names `name` plainly, also in template arguments.
    fn names(ty: &ast::BaseType, name: &str, depth: u32) -> bool {
        match ty {
            ast::BaseType::Named(p) => p.segments.len() == 1 && !p.global && p.last() == name,
            ast::BaseType::Template { args, .. } if depth < 64 => args.iter().any(
                |a| matches!(a, ast::TemplateArg::Type(t) if names(&t.specs.ty, name, depth + 1)),
            ),
            _ => false,
        }
    }
    for decl in s.fields.iter().filter(|d| d.specs.is_typedef) {
        let at = decl.span;
        let before = |sp: Span| sp.file == at.file && sp.start < at.start;
        for d in &decl.declarators {
            let Some(alias) = &d.name else { continue };
            let field_use = s
                .fields
                .iter()
                .any(|f| before(f.span) && names(&f.specs.ty, &alias.name, 0));
            let method_use = s.methods.iter().any(|m| {
                let f = &m.item;
                before(f.name.span)
                    && (names(&f.ret.ty, &alias.name, 0)
                        || f.params.iter().any(|p| names(&p.specs.ty, &alias.name, 0)))
            });
            if field_use || method_use {
                ck.error(
                    codes::E0201,
                    alias.span,
                    format!(
                        "member alias `{}` is declared after a member of `{}` that names it",
                        alias.name, s.name.name
                    ),
                    "declared too late",
                    "declare the alias above the members that use it",
                );
            }
        }
    }
}

/// Why a union member of type `ty` is not supported, if it is not: C++
/// deletes a union's constructors, destructor or assignment when a member
/// has non-trivial ones, which Tessera does not model, so only members
/// without them are taken.
fn union_member_problem(ck: &Checker, ty: &Type, depth: u32) -> Option<String> {
    if depth > 64 {
        return None;
    }
    match ty {
        Type::Scalar(_) | Type::Ptr { .. } | Type::Error => None,
        Type::CArray(elem, _) => union_member_problem(ck, elem, depth + 1),
        Type::Struct(id) => {
            let info = ck.classes.get(id);
            let special = info.is_some_and(|c| {
                !c.ctors.is_empty()
                    || c.dtor.is_some()
                    || c.default_inits.iter().any(Option::is_some)
                    || c.methods.contains_key("operator=")
            });
            if special {
                return Some(format!(
                    "has the class type `{}`, which declares constructors, a destructor, `operator=` or member initialisers",
                    ck.show(ty)
                ));
            }
            let fields = ck.struct_fields(*id);
            fields
                .iter()
                .find_map(|(_, t)| union_member_problem(ck, t, depth + 1))
        }
        other => Some(format!(
            "has the type `{}`, which has constructors",
            ck.show(other)
        )),
    }
}

pub(crate) fn host_function(name: &str, span: Span) -> Function {
    Function {
        name: name.to_string(),
        kind: FunctionKind::Plain,
        restriction: Restriction {
            cpu: true,
            amp: false,
        },
        params: 0,
        locals: Vec::new(),
        ret: Type::Void,
        ret_by_ref: false,
        body: None,
        stmt_count: 0,
        span,
    }
}

pub(crate) fn declare_globals(
    ck: &mut Checker,
    specs: &ast::DeclSpecs,
    declarators: &[ast::Declarator],
) {
    if let Some(ts) = specs.tile_static {
        ck.error(
            codes::E0402,
            ts,
            "`tile_static` variables can only be declared inside a kernel or an amp-only function",
            "at namespace scope",
            "declare it inside the kernel's body",
        );
    }
    for d in declarators {
        let Some(name) = &d.name else { continue };
        if ck.enumerators.contains_key(&name.name) {
            ck.error(
                codes::E0202,
                name.span,
                format!("`{}` is already an enumerator", name.name),
                "second declaration",
                "use another name",
            );
        }
        let Declared { mut ty, by_ref } = {
            let snapshot = const_snapshot(ck);
            let lookup = move |n: &str| snapshot.get(n).copied();
            types::resolve(ck, specs, &d.modifiers, &d.array_dims, &lookup)
        };
        if by_ref {
            ck.error(
                codes::E0211,
                d.span,
                "global references are not part of the Tessera language",
                "reference",
                "use a global variable",
            );
        }
        // The initialiser is lowered as host code of a throwaway function:
        // globals are initialised on the host before `main` runs.
        let mut fcx = FnCx::new(ck, host_function("<global>", d.span));
        let init = fcx.initializer(&mut ty, specs, d, &name.name);
        let locals_used = !fcx.func.locals.is_empty();
        drop(fcx);
        let target = if matches!(specs.ty, ast::BaseType::Auto) {
            match &d.init {
                Some(ast::Init::Assign(v)) => ck.enum_at(v.span),
                _ => None,
            }
        } else {
            ck.enum_of_specs(specs)
        };
        if !ck.enums.is_empty() {
            crate::enums::check_declarator(ck, target, d, &ty);
        }
        if locals_used {
            ck.error(
                codes::E0211,
                d.span,
                "this initialiser is too complex for a global",
                "here",
                "initialise the global in `main`",
            );
        }
        let is_const = types::object_const(ck, specs, &d.modifiers);
        if is_const && init.is_none() && !ty.is_error() {
            ck.error(
                codes::E0218,
                d.span,
                format!("constant `{}` has no value", name.name),
                "needs an initialiser",
                "write `const int N = 4;`",
            );
        }
        let id = GlobalId(ck.program.globals.len() as u32);
        if let Some(t) = target {
            ck.enum_globals.insert(id, t);
        }
        if is_const
            && matches!(ty, Type::Scalar(s) if s.is_integral())
            && let Some(ast::Init::Assign(e)) = &d.init
        {
            let value = {
                let snapshot = const_snapshot(ck);
                let lookup = move |n: &str| snapshot.get(n).copied();
                types::try_eval(e, &lookup)
            };
            // The snapshot is gone: the shared map is updated in place.
            if let Ok(v) = value {
                ck.global_consts.insert(id, v);
                std::rc::Rc::make_mut(&mut ck.const_globals).insert(name.name.clone(), v);
            }
        }
        ck.refuse_static_dtor(&ty, d.span);
        ck.program.globals.push(Global {
            name: name.name.clone(),
            ty,
            is_const,
            init,
            span: d.span,
        });
        if ck.globals.insert(name.name.clone(), id).is_some()
            || ck.functions.contains_key(&name.name)
        {
            ck.error(
                codes::E0202,
                name.span,
                format!("`{}` is declared twice", name.name),
                "second declaration",
                "",
            );
        }
    }
}

/// Reads `restrict(...)`; reports unknown or empty specifier lists (E0311).
/// C++ AMP forbids dynamic exception specifications (`throw()`) on
/// functions that may run on the accelerator (MSVC C3581).
pub fn check_exception_spec(ck: &mut Checker, spec: Option<Span>, restriction: Restriction) {
    if let Some(at) = spec
        && restriction.amp
    {
        ck.report(
            Diagnostic::error(
                codes::E0302,
                at,
                "an exception specification is not allowed on a function that may run on the accelerator",
            )
            .with_label("exception specification")
            .with_msvc("C3581")
            .with_help("remove the `throw(...)`: amp code has no exceptions"),
        );
    }
}

pub fn restriction(ck: &mut Checker, r: Option<&ast::Restrict>) -> Restriction {
    let Some(r) = r else {
        return Restriction {
            cpu: true,
            amp: false,
        };
    };
    let mut out = Restriction::default();
    if r.specifiers.is_empty() {
        ck.error(
            codes::E0311,
            r.span,
            "`restrict()` needs at least one specifier",
            "empty",
            "write `restrict(amp)`, `restrict(cpu)` or `restrict(amp, cpu)`",
        );
        return Restriction {
            cpu: true,
            amp: false,
        };
    }
    for s in &r.specifiers {
        match s.name.as_str() {
            "amp" => out.amp = true,
            "cpu" => out.cpu = true,
            other => ck.error(
                codes::E0311,
                s.span,
                format!("unknown restriction specifier `{other}`"),
                "not `amp` or `cpu`",
                "the specifiers are `amp` (runs on the accelerator) and `cpu` (runs on the host)",
            ),
        }
    }
    if !out.amp && !out.cpu {
        out.cpu = true;
    }
    // After an unknown specifier, assume the function may run anywhere so
    // that its calls are not reported again.
    if r.specifiers
        .iter()
        .any(|s| s.name != "amp" && s.name != "cpu")
    {
        out = Restriction {
            cpu: true,
            amp: true,
        };
    }
    out
}

fn same_signature(a: &Function, b: &Function) -> bool {
    a.params == b.params
        && a.locals
            .iter()
            .take(a.params as usize)
            .zip(b.locals.iter())
            // `const` on a by-value parameter is not part of the signature;
            // on a reference it is (`f(int&)` and `f(const int&)` overload).
            .all(|(x, y)| {
                x.ty == y.ty && x.by_ref == y.by_ref && (!x.by_ref || x.is_const == y.is_const)
            })
}

fn declare_function(ck: &mut Checker, f: &ast::Function, item_span: Span) {
    declare_function_signature_first(ck, f, item_span, |_, _| {});
}

/// Declares a function (or completes its prototype) and lowers its body;
/// `declared` runs once the function has its id, before the body is
/// lowered (a template instance caches itself there, so that a recursive
/// call finds it). The id, unless the declaration was refused.
pub(crate) fn declare_function_signature_first(
    ck: &mut Checker,
    f: &ast::Function,
    _item_span: Span,
    declared: impl FnOnce(&mut Checker, FuncId),
) -> Option<FuncId> {
    let restriction = restriction(ck, f.restrict.as_ref());
    check_exception_spec(ck, f.exception_spec, restriction);
    let snapshot = const_snapshot(ck);
    let lookup = move |n: &str| snapshot.get(n).copied();
    let ret = if crate::decltype::trailing(f) {
        // Typed once the parameters are known, below.
        types::Declared {
            ty: Type::Void,
            by_ref: false,
        }
    } else {
        types::resolve(ck, &f.ret, &f.ret_modifiers, &[], &lookup)
    };
    if matches!(f.ret.ty, ast::BaseType::Auto) {
        ck.error(
            codes::E0211,
            f.ret.span,
            "deduced return types are not part of the Tessera language",
            "`auto`",
            "write the return type",
        );
    }
    let space = if restriction.amp {
        Space::Private
    } else {
        Space::Host
    };
    let mut func = Function {
        name: f.name.name.clone(),
        kind: FunctionKind::Plain,
        restriction,
        params: 0,
        locals: Vec::new(),
        ret: ret.ty,
        ret_by_ref: ret.by_ref,
        body: None,
        stmt_count: 0,
        span: f.name.span,
    };
    let mut param_names: Vec<Option<ast::Ident>> = Vec::new();
    let mut param_enums: Vec<Option<crate::enums::EnumId>> = Vec::new();
    let ret_enum = ck.enum_of_specs(&f.ret);
    let is_void_list = f.params.len() == 1
        && matches!(
            f.params[0].specs.ty,
            ast::BaseType::Builtin(ast::Builtin::Void)
        )
        && f.params[0].declarator.name.is_none();
    if !is_void_list {
        for p in &f.params {
            let local = param_local(ck, p, space, &lookup);
            func.locals.push(local);
            param_names.push(p.declarator.name.clone());
            let param_enum = ck.enum_of_specs(&p.specs);
            if let Some(e) = param_enum {
                if p.declarator.array_dims.is_empty() {
                    ck.enum_locals.insert(p.span, e);
                } else {
                    ck.error(
                        codes::E0211,
                        p.span,
                        "arrays of enumerations are not supported yet",
                        "array of an enumeration",
                        "use the underlying integer type and `static_cast`",
                    );
                }
            }
            param_enums.push(param_enum);
        }
    }
    func.params = func.locals.len() as u32;
    if crate::decltype::trailing(f) {
        let d =
            crate::decltype::trailing_return(ck, f, &func.locals, 0, restriction, None, &lookup);
        func.ret = d.ty;
        func.ret_by_ref = d.by_ref;
    }
    types::check_signature(ck, f, &func);

    if f.name.name == "main" {
        check_main(ck, f, restriction, &func.ret);
        check_main_params(ck, f, &func);
    }

    // A definition after a prototype with the same signature completes it:
    // the one with the same restriction first. A declaration whose
    // restriction shares no specifier with another's is an overload on
    // restrictions (`int f() restrict(cpu); float f() restrict(amp);`).
    let existing = ck.functions.get(&f.name.name).and_then(|ids| {
        let same: Vec<(FuncId, Restriction, bool)> = ids
            .iter()
            .filter_map(|id| {
                let g = ck.program.get_function(*id)?;
                same_signature(g, &func).then_some((*id, g.restriction, ck.has_body(*id)))
            })
            .collect();
        let overlaps = |r: Restriction| (r.amp && restriction.amp) || (r.cpu && restriction.cpu);
        same.iter()
            .find(|(_, r, _)| *r == restriction)
            .or_else(|| {
                same.iter()
                    .find(|(_, r, defined)| overlaps(*r) || (*defined && f.body.is_some()))
            })
            .map(|(id, _, _)| *id)
    });
    let id = match existing {
        Some(id) => {
            let prev = ck.program.function(id).clone();
            let prev_defined = ck.has_body(id);
            if prev.restriction != restriction && f.body.is_some() && !prev_defined {
                // The two share a side (else the definition would be an
                // overload of its own): MSVC's "redefinition with
                // overlapping restriction".
                report_clause_mismatch(ck, f.name.span, "C3935");
            }
            if prev_defined && f.body.is_some() {
                let prev_span = prev.span;
                if prev.restriction == restriction {
                    ck.report(
                        Diagnostic::error(
                            codes::E0202,
                            f.name.span,
                            format!("function `{}` is defined twice", f.name.name),
                        )
                        .with_label("second definition")
                        .with_secondary(prev_span, "first defined here"),
                    );
                    return None;
                }
                // Overloading on restriction: a separate function, for
                // restrictions that do not overlap (C++ AMP, MSVC C3935).
                let (a, b) = (prev.restriction, restriction);
                if (a.amp && b.amp) || (a.cpu && b.cpu) {
                    ck.report(
                        Diagnostic::error(
                            codes::E0202,
                            f.name.span,
                            format!("`{}` is overloaded on restrictions that overlap", f.name.name),
                        )
                        .with_label("runs where the other overload runs too")
                        .with_secondary(prev_span, "the other overload")
                        .with_msvc("C3935")
                        .with_help("overloads on `restrict` must not share a specifier: use `restrict(amp)` and `restrict(cpu)`"),
                    );
                    return None;
                }
                new_function(ck, &f.name.name, func.clone())
            } else {
                id
            }
        }
        None => {
            if ck.globals.contains_key(&f.name.name) || ck.enumerators.contains_key(&f.name.name) {
                ck.error(
                    codes::E0202,
                    f.name.span,
                    format!("`{}` is already a variable", f.name.name),
                    "here",
                    "",
                );
            }
            new_function(ck, &f.name.name, func.clone())
        }
    };
    if let Some(linkage) = f.c_linkage {
        check_c_linkage(ck, f, id, restriction, linkage);
    }
    if ret_enum.is_some() || param_enums.iter().any(Option::is_some) {
        ck.enum_sigs.insert(id, (ret_enum, param_enums));
    }
    if !is_void_list {
        declare_defaults(ck, f, id, func.params as usize, &func.locals);
    }
    declared(ck, id);
    if f.body.is_none() {
        return Some(id);
    }
    // A library function's body waits for its first use.
    if let Some(kept) = ck
        .library_function
        .as_ref()
        .filter(|k| std::ptr::eq(std::rc::Rc::as_ptr(k), f))
    {
        let source = crate::class::MemberSource::Free(std::rc::Rc::clone(kept));
        let scope = std::rc::Rc::new(crate::class::DeclaredScope::capture(ck));
        ck.library_lazy.insert(
            id,
            crate::class::LazyLibraryMember {
                class: None,
                source,
                scope,
            },
        );
        return Some(id);
    }
    check_body(ck, f, id, func, ret_enum, &param_names);
    Some(id)
}

/// Checks the body of `f`, declared as `id`, whose declaration was checked
/// apart (an instance of a function template, on its first use).
pub(crate) fn define_body(ck: &mut Checker, f: &ast::Function, id: FuncId) {
    let Some(declared) = ck.program.get_function(id) else {
        return;
    };
    let func = declared.clone();
    let ret_enum = ck.enum_of_specs(&f.ret);
    let param_names: Vec<Option<ast::Ident>> = f
        .params
        .iter()
        .take(func.params as usize)
        .map(|p| p.declarator.name.clone())
        .collect();
    check_body(ck, f, id, func, ret_enum, &param_names);
}

/// Checks the body of `f` into function `id` (`func`, its declaration).
fn check_body(
    ck: &mut Checker,
    f: &ast::Function,
    id: FuncId,
    func: Function,
    ret_enum: Option<crate::enums::EnumId>,
    param_names: &[Option<ast::Ident>],
) {
    let Some(body) = &f.body else { return };
    let parsed = ck.lazy_body(body);
    let body = parsed.as_deref().unwrap_or(body);
    let mut fcx = FnCx::new(ck, func);
    fcx.ret_enum = ret_enum;
    fcx.nrvo = crate::special::nrvo_name(body);
    for (i, name) in param_names.iter().enumerate() {
        if let Some(name) = name {
            fcx.scopes[0].insert(name.name.clone(), tessera_ir::LocalId(i as u32));
        }
    }
    let block = fcx.block(body);
    let mut func = fcx.func;
    func.body = Some(block);
    *ck.program.function_mut(id) = func;
}

/// C++ AMP's rules for a function declared `extern "C"`: one restriction
/// specifier (its name has no room for more, MSVC C3938), and no other
/// function of the same name with C linkage (C2733), which also rules out
/// overloading it on restrictions.
fn check_c_linkage(
    ck: &mut Checker,
    f: &ast::Function,
    id: FuncId,
    restriction: Restriction,
    linkage: Span,
) {
    if restriction.amp && restriction.cpu {
        ck.report(
            Diagnostic::error(
                codes::E0313,
                f.restrict.as_ref().map_or(f.name.span, |r| r.span),
                format!(
                    "`extern \"C\"` function `{}` has more than one restriction specifier",
                    f.name.name
                ),
            )
            .with_label("`amp` and `cpu`")
            .with_secondary(linkage, "C linkage given here")
            .with_help("give it one specifier, or drop `extern \"C\"`"),
        );
    }
    match ck.c_functions.get(&f.name.name) {
        Some(&(prev, prev_span)) if prev != id => {
            ck.report(
                Diagnostic::error(
                    codes::E0224,
                    f.name.span,
                    format!(
                        "`{}` is declared `extern \"C\"` twice as different functions",
                        f.name.name
                    ),
                )
                .with_label("second function with C linkage")
                .with_secondary(prev_span, "the first")
                .with_help(
                    "a name with C linkage names one function: rename one or drop `extern \"C\"`",
                ),
            );
        }
        Some(_) => {}
        None => {
            ck.c_functions
                .insert(f.name.name.clone(), (id, f.name.span));
        }
    }
}

/// A parameter as a local of its function. C++ adjusts a parameter declared
/// as an array to a pointer, so the callee writes the caller's elements.
pub(crate) fn param_local(
    ck: &mut Checker,
    p: &ast::Param,
    space: Space,
    lookup: crate::types::ConstLookup<'_>,
) -> Local {
    if p.is_ellipsis() {
        // C++ AMP forbids a variadic function in amp code (C3581); on the
        // host, Tessera has no variadic arguments yet.
        if space == Space::Host {
            ck.error(
                codes::E0211,
                p.span,
                "variadic functions (`...`) are not supported yet",
                "variadic parameter list",
                "give the function the parameters it takes",
            );
        } else {
            ck.report(
                Diagnostic::error(
                    codes::E0302,
                    p.span,
                    "a function that runs in amp code cannot take variadic arguments (`...`)",
                )
                .with_label("not allowed in `restrict(amp)` code")
                .with_msvc("C3581")
                .with_help("give the function the parameters it takes"),
            );
        }
    }
    // A parameter's `auto` (a generic lambda, C++20's abbreviated
    // template) makes a template, which Tessera does not form from it yet:
    // refused, rather than typed as nothing.
    if matches!(p.specs.ty, ast::BaseType::Auto) {
        ck.error(
            codes::E0211,
            p.specs.span,
            "`auto` parameters (generic lambdas) are not supported yet",
            "`auto` parameter",
            "name the parameter's type",
        );
    }
    let saved = std::mem::replace(&mut ck.resolving_param, true);
    let d = types::resolve(
        ck,
        &p.specs,
        &p.declarator.modifiers,
        &p.declarator.array_dims,
        lookup,
    );
    ck.resolving_param = saved;
    if !d.by_ref {
        ck.check_not_abstract(&d.ty, p.span, "a parameter");
    }
    if p.declarator.modifiers.reference == 2 && !d.ty.is_error() {
        ck.rvalue_refs.insert(p.span);
    }
    let mut ty = d.ty;
    let mut is_const = types::object_const(ck, &p.specs, &p.declarator.modifiers);
    if matches!(
        ty,
        Type::Ostream | Type::WideOstream | Type::StringStream(_)
    ) && !d.by_ref
    {
        let shown = ck.show(&ty);
        ck.report(
            Diagnostic::error(codes::E0203, p.span, "a stream cannot be passed by value")
                .with_label(format!("copies a `{shown}`"))
                .with_msvc("C2280")
                .with_help(if ty == Type::Ostream {
                    "take it by reference: `std::ostream& os`".to_string()
                } else {
                    format!("take it by reference: `{shown}& s`")
                }),
        );
    }
    // `int a[4]` and `int a[]` declare a pointer parameter: the callee
    // reaches the caller's elements.
    if let Type::CArray(elem, _) = &ty
        && !d.by_ref
    {
        ty = Type::Ptr {
            elem: elem.clone(),
            is_const: is_const && p.declarator.modifiers.pointers == 0,
        };
        is_const = false;
    }
    Local {
        name: p
            .declarator
            .name
            .as_ref()
            .map_or_else(String::new, |n| n.name.clone()),
        ty,
        by_ref: d.by_ref,
        is_const,
        space,
        span: p.span,
    }
}

/// Lowers the default arguments of this declaration of `f` (whose id is
/// `id`) and merges them with those of earlier declarations: C++ lets a
/// later declaration add defaults but not repeat one, and once a parameter
/// has a default every parameter after it needs one. `params` is the
/// function's parameter count and `locals` its parameters' locals, only
/// read for a parameter with a default (so a caller may pass none when no
/// parameter has one, sparing a copy of the function).
pub(crate) fn declare_defaults(
    ck: &mut Checker,
    f: &ast::Function,
    id: FuncId,
    params: usize,
    locals: &[Local],
) {
    let mut merged = ck
        .defaults
        .remove(&id)
        .unwrap_or_else(|| vec![None; params]);
    merged.resize(params, None);
    for (i, p) in f.params.iter().enumerate() {
        let Some(ast::Init::Assign(value)) = &p.declarator.init else {
            continue;
        };
        let Some(param) = locals.get(i) else {
            continue;
        };
        if let Some(Some((_, first))) = merged.get(i) {
            ck.report(
                Diagnostic::error(
                    codes::E0220,
                    value.span,
                    format!(
                        "the default argument of parameter {} of `{}` is given again",
                        i + 1,
                        f.name.name
                    ),
                )
                .with_label("redefined here")
                .with_secondary(*first, "first given here")
                .with_msvc("C2572")
                .with_help("give a default argument in one declaration only"),
            );
            continue;
        }
        if param.by_ref && !param.is_const {
            ck.error(
                codes::E0211,
                value.span,
                "default arguments of non-const reference parameters are not supported yet",
                "default argument",
                "take the parameter by value or by `const&`",
            );
            continue;
        }
        // Lowered as code of a throwaway function with the callee's
        // restriction: a default sees what the declaration sees, not the
        // caller's locals, and is checked once, where it is written.
        let mut scratch = host_function("<default argument>", value.span);
        // MSVC binds the names in a default argument as host code, whatever
        // the function's restriction (in a local class: as code of the
        // enclosing function); a call from amp code that needs a default
        // with host-only calls is refused there (C3931), and the other way
        // round.
        scratch.restriction = ck.local_class_context.unwrap_or(Restriction {
            cpu: true,
            amp: false,
        });
        let mut fcx = FnCx::new(ck, scratch);
        let lowered = fcx.expr(value);
        let param_enum = fcx.ck.enum_locals.get(&param.span).copied();
        fcx.ck
            .check_enum_target(param_enum, value.span, &lowered.ty);
        let what = format!("the default of parameter `{}`", param.name);
        let lowered = fcx.coerce(lowered, &param.ty, &what);
        let locals_used = !fcx.func.locals.is_empty();
        drop(fcx);
        if locals_used {
            ck.error(
                codes::E0211,
                value.span,
                "this default argument is too complex",
                "here",
                "use a constant, a global or a call with such arguments",
            );
            continue;
        }
        if let Some(slot) = merged.get_mut(i) {
            *slot = Some((lowered, value.span));
        }
    }
    if let Some(first) = merged.iter().position(Option::is_some)
        && let Some(gap) = merged[first..].iter().position(Option::is_none)
    {
        let at = first + gap;
        let span = f.params.get(at).map_or(f.name.span, |p| p.span);
        ck.report(
            Diagnostic::error(
                codes::E0221,
                span,
                format!(
                    "parameter {} of `{}` needs a default argument, since an earlier one has one",
                    at + 1,
                    f.name.name
                ),
            )
            .with_label("no default argument")
            .with_msvc("C2548")
            .with_help("give defaults to the last parameters only"),
        );
        merged.fill(None);
    }
    ck.defaults.insert(id, merged);
}

/// `main` takes no parameters or `(int argc, char** argv)` (also written
/// `char* argv[]`); a program run by Tessera gets `argc == 1` and `argv[0]`.
fn check_main_params(ck: &mut Checker, f: &ast::Function, func: &Function) {
    let params: Vec<&Local> = func.locals.iter().take(func.params as usize).collect();
    let char_ptr_ptr = |t: &Type| match t {
        Type::Ptr { elem, .. } => {
            matches!(&**elem, Type::Ptr { elem, .. } if **elem == Type::Scalar(tessera_ir::Scalar::Char))
        }
        _ => false,
    };
    let fits = match params.as_slice() {
        [] => true,
        [argc, argv] => {
            argc.ty == Type::INT && !argc.by_ref && char_ptr_ptr(&argv.ty) && !argv.by_ref
        }
        _ => false,
    };
    if !fits && !params.iter().any(|p| p.ty.is_error()) {
        let at = f.params.first().map_or(f.name.span, |p| p.span);
        ck.error(
            codes::E0212,
            at,
            "`main` takes no parameters, or `(int argc, char** argv)`",
            "other parameters",
            "write `int main()` or `int main(int argc, char** argv)`",
        );
    }
}

/// The rules for `main`: host code, returning `int`.
fn check_main(ck: &mut Checker, f: &ast::Function, restriction: Restriction, ret: &Type) {
    if restriction.amp {
        ck.error(
            codes::E0311,
            f.restrict.as_ref().map_or(f.name.span, |r| r.span),
            "`main` can only run on the host",
            "`main` restricted to amp",
            "remove the `restrict` clause from `main`",
        );
    }
    match ret {
        Type::Void => ck.report(
            Diagnostic::warning(codes::W0217, f.ret.span, "`void main()` is not standard C++")
                .with_label("`main` should return `int`")
                .with_note("MSVC accepts it, but other compilers reject it, and the exit status is then undefined")
                .with_help("write `int main()`; returning from it without a value returns 0"),
        ),
        Type::Scalar(tessera_ir::Scalar::Int) | Type::Error => {}
        other => {
            let shown = ck.show(other);
            ck.error(codes::E0212, f.ret.span, format!("`main` must return `int`, not `{shown}`"), "here", "write `int main()`");
        }
    }
}

fn new_function(ck: &mut Checker, name: &str, func: Function) -> FuncId {
    let id = FuncId(ck.program.functions.len() as u32);
    if name == "main" {
        ck.program.main = Some(id);
    }
    ck.program.functions.push(func);
    ck.functions.entry(name.to_string()).or_default().push(id);
    id
}

/// The id of a kernel about to be lowered: reserves its slot.
pub fn reserve_function(ck: &mut Checker, placeholder: Function) -> FuncId {
    let id = FuncId(ck.program.functions.len() as u32);
    ck.program.functions.push(placeholder);
    id
}

/// E0311: a definition's `restrict` clause differs from its declaration's;
/// `msvc` is the error MSVC gives for it there.
pub(crate) fn report_clause_mismatch(ck: &mut Checker, at: Span, msvc: &'static str) {
    ck.report(
        Diagnostic::error(
            codes::E0311,
            at,
            "the definition's `restrict` clause differs from the declaration's",
        )
        .with_label("here")
        .with_msvc(msvc)
        .with_help("use the same clause in both"),
    );
}
