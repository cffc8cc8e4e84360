//! Helpers for the grammar's actions: building nodes with spans and heights,
//! and turning declaration specifiers into a [`DeclSpecs`].

use crate::ast::*;
use crate::files::Files;
use tessera_diagnostics::{Diagnostic, Span, codes};

/// The external lexer's error type: lexing problems are reported before
/// parsing, so the token stream the parser sees never fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoError;

/// What the grammar's entry point read: a translation unit, or, after the
/// marker token [`crate::token::Tok::StmtsMarker`], a sequence of statements.
#[derive(Debug)]
pub enum Input {
    /// A file's top-level items.
    Unit(TranslationUnit),
    /// Statements, as in a function body (a REPL input).
    Stmts(Vec<Stmt>),
}

/// A span of `file` from byte `l` to byte `r`.
pub fn span(file: Files<'_, '_>, l: usize, r: usize) -> Span {
    file.span(l as u32, r.max(l) as u32)
}

/// An identifier node.
pub fn ident(file: Files<'_, '_>, name: &str, l: usize, r: usize) -> Ident {
    Ident {
        name: name.to_string(),
        span: span(file, l, r),
    }
}

/// The member name of an explicit destructor call (`a.~A()`): `~A`, at
/// the class name.
pub fn tilde_name(name: Ident) -> Ident {
    Ident {
        name: format!("~{}", name.name),
        span: name.span,
    }
}

/// The member name of `b.B::~B()`: `~B`, as for `b.~B()`. The type
/// named before `::` must be the one after `~` (E0203).
pub fn qualified_tilde_name(diags: &mut Vec<Diagnostic>, qualifier: Ident, name: Ident) -> Ident {
    if qualifier.name != name.name {
        diags.push(
            Diagnostic::error(
                codes::E0203,
                qualifier.span,
                format!(
                    "`{}::~{}` names two different types",
                    qualifier.name, name.name
                ),
            )
            .with_label("the type named first")
            .with_secondary(name.span, "the type named after `~`")
            .with_help(format!("write `{0}::~{0}()`", name.name)),
        );
    }
    tilde_name(name)
}

/// A path node from its segments.
pub fn path(file: Files<'_, '_>, segments: Vec<Ident>, l: usize, r: usize) -> Path {
    Path {
        global: false,
        segments,
        span: span(file, l, r),
    }
}

/// Prefixes a qualifier to a type reference: `std` + `vector<int>`.
pub fn qualify(file: Files<'_, '_>, qualifier: Ident, ty: BaseType, l: usize) -> BaseType {
    let extend = |mut p: Path| {
        p.segments.insert(0, qualifier.clone());
        p.span = span(file, l, p.span.end as usize);
        p
    };
    match ty {
        BaseType::Named(p) => BaseType::Named(extend(p)),
        BaseType::Template { path, args } => BaseType::Template {
            path: extend(path),
            args,
        },
        other => other,
    }
}

/// `Outer::Inner` before `::f` in a member defined outside its class: the
/// enclosing class's name joined to the nested one's, as one name that the
/// checker resolves.
pub fn nested_qualifier(
    file: Files<'_, '_>,
    (outer, args): (Ident, Option<Vec<TemplateArg>>),
    inner: &str,
    l: usize,
    r: usize,
) -> (Ident, Option<Vec<TemplateArg>>) {
    (ident(file, &format!("{}::{inner}", outer.name), l, r), args)
}

/// `List<int>::Node`: a member type named through a class template's
/// instance, which Tessera does not have yet (E0211); the type is an error
/// node, so nothing else is reported about it.
pub fn template_member_type(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    template: &str,
    ty: BaseType,
    l: usize,
    r: usize,
) -> BaseType {
    let member = match &ty {
        BaseType::Named(p) | BaseType::Template { path: p, .. } => p.text(),
        _ => String::new(),
    };
    diags.push(
        Diagnostic::error(
            codes::E0211,
            span(file, l, r),
            format!(
                "a member type named through a class template (`{template}<...>::{member}`) is not supported yet"
            ),
        )
        .with_label("member type of a template instance")
        .with_help("nested classes of class templates are not supported yet either; define the class outside the template"),
    );
    BaseType::Error
}

fn too_deep(diags: &mut Vec<Diagnostic>, sp: Span) {
    // One report per region: nodes above an error node are low again, so a
    // long chain would otherwise report every MAX_HEIGHT levels.
    let already = diags.iter().any(|d| {
        d.code == codes::E0104 && d.primary.span.start >= sp.start && d.primary.span.end <= sp.end
    });
    if !already {
        diags.push(
            Diagnostic::error(
                codes::E0104,
                sp,
                "expression or statement nested too deeply",
            )
            .with_label(format!("more than {MAX_HEIGHT} levels deep"))
            .with_help("split it into several statements with named intermediate variables"),
        );
    }
}

/// A namespace definition; nesting deeper than [`MAX_HEIGHT`] is E0104.
pub fn namespace(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    name: Vec<Ident>,
    items: Vec<Item>,
    l: usize,
    r: usize,
) -> Item {
    let sp = span(file, l, r);
    let depth = items
        .iter()
        .map(|i| match &i.kind {
            ItemKind::Namespace(ns) => ns.depth,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
        + 1;
    if depth > MAX_HEIGHT {
        let already = diags.iter().any(|d| d.code == codes::E0104);
        if !already {
            diags.push(
                Diagnostic::error(codes::E0104, sp, "namespaces nested too deeply")
                    .with_label(format!("more than {MAX_HEIGHT} levels deep"))
                    .with_help("nest fewer namespaces"),
            );
        }
        return Item {
            kind: ItemKind::Error,
            span: sp,
        };
    }
    Item {
        kind: ItemKind::Namespace(Namespace { name, items, depth }),
        span: sp,
    }
}

/// An expression node; enforces [`MAX_HEIGHT`].
pub fn expr(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    kind: ExprKind,
    l: usize,
    r: usize,
) -> Expr {
    let sp = span(file, l, r);
    let height = kind.child_height() + 1;
    if height > MAX_HEIGHT {
        too_deep(diags, sp);
        return Expr {
            kind: ExprKind::Error,
            span: sp,
            height: 1,
        };
    }
    Expr {
        kind,
        span: sp,
        height,
    }
}

/// A binary expression node.
pub fn binary(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    op: BinaryOp,
    lhs: Expr,
    rhs: Expr,
    l: usize,
    r: usize,
) -> Expr {
    let kind = ExprKind::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    };
    expr(file, diags, kind, l, r)
}

/// The values of a list whose elements the grammar produced boxed.
///
/// The parser's stack holds every grammar symbol in one enum, as large as
/// its largest variant, and copies it on every shift and reduction: the
/// grammar boxes its large nodes (statements, items, functions,
/// parameters, declarators) so that enum stays small, and unboxes them
/// here, once, where they join their list.
pub fn unbox_all<T>(v: Vec<Box<T>>) -> Vec<T> {
    v.into_iter().map(|b| *b).collect()
}

/// A statement node; enforces [`MAX_HEIGHT`].
pub fn stmt(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    kind: StmtKind,
    l: usize,
    r: usize,
) -> Stmt {
    let sp = span(file, l, r);
    let height = kind.child_height() + 1;
    if height > MAX_HEIGHT {
        too_deep(diags, sp);
        return Stmt {
            kind: StmtKind::Error,
            span: sp,
            height: 1,
        };
    }
    Stmt {
        kind,
        span: sp,
        height,
    }
}

/// The head of a statement that takes a body: `while (c)`, `for (...)`, `switch (c)`.
pub enum LoopHead {
    /// `while (c)`
    While(Expr),
    /// `switch (c)`
    Switch(Expr),
    /// `for (init; cond; step)`
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>),
    /// `for (decl : range)`
    ForRange(DeclSpecs, Declarator, Expr),
}

/// A loop or switch statement from its head and body.
pub fn loop_stmt(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    head: Box<LoopHead>,
    body: Box<Stmt>,
    l: usize,
    r: usize,
) -> Stmt {
    let kind = match *head {
        LoopHead::While(cond) => StmtKind::While { cond, body },
        LoopHead::Switch(cond) => StmtKind::Switch { cond, body },
        LoopHead::For(init, cond, step) => StmtKind::For {
            init,
            cond,
            step,
            body,
        },
        LoopHead::ForRange(specs, declarator, range) => StmtKind::ForRange {
            specs,
            declarator,
            range,
            body,
        },
    };
    stmt(file, diags, kind, l, r)
}

/// A statement label as parsed, before the statement it labels.
pub enum LabelHead {
    /// `case e:`
    Case(Expr, Span),
    /// `default:`
    Default(Span),
    /// `name:`
    Named(Ident),
}

/// The condition of an `if`, as written.
#[derive(Debug)]
pub enum IfCond {
    /// `if (e)`.
    Expr(Expr),
    /// `if (T x = e)`: one variable, initialised.
    Decl(Box<Decl>),
}

/// `if (cond) then else els`. A condition that declares a variable reads
/// as a block holding the declaration and an `if` on the variable, which
/// is in scope in both branches and not after them, as in C++.
pub fn if_stmt(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    cond: IfCond,
    then: Box<Stmt>,
    els: Option<Box<Stmt>>,
    l: usize,
    r: usize,
) -> Stmt {
    let decl = match cond {
        IfCond::Expr(cond) => {
            return stmt(file, diags, StmtKind::If { cond, then, els }, l, r);
        }
        IfCond::Decl(decl) => *decl,
    };
    let name = match decl.declarators.first() {
        Some(Declarator {
            name: Some(name),
            init: Some(_),
            ..
        }) => name.clone(),
        _ => {
            diags.push(
                Diagnostic::error(
                    codes::E0100,
                    decl.span,
                    "a declaration in a condition needs an initialiser",
                )
                .with_label("no initialiser")
                .with_help("write `if (T x = value)`"),
            );
            return Stmt {
                kind: StmtKind::Error,
                span: span(file, l, r),
                height: 1,
            };
        }
    };
    let used = Expr {
        kind: ExprKind::Name(Path {
            global: false,
            segments: vec![name.clone()],
            span: name.span,
        }),
        span: name.span,
        height: 1,
    };
    let decl_span = decl.span;
    let kind = StmtKind::Decl(decl);
    let declared = Stmt {
        height: kind.child_height() + 1,
        kind,
        span: decl_span,
    };
    let chosen = stmt(
        file,
        diags,
        StmtKind::If {
            cond: used,
            then,
            els,
        },
        l,
        r,
    );
    let sp = span(file, l, r);
    stmt(
        file,
        diags,
        StmtKind::Block(Block {
            stmts: vec![declared, chosen],
            span: sp,
            lazy: None,
        }),
        l,
        r,
    )
}

/// A labelled statement.
pub fn labelled(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    head: LabelHead,
    inner: Box<Stmt>,
    l: usize,
    r: usize,
) -> Stmt {
    let label = match head {
        LabelHead::Case(e, _) => Label::Case(e),
        LabelHead::Default(_) => Label::Default,
        LabelHead::Named(i) => Label::Named(i),
    };
    let kind = StmtKind::Labeled { label, stmt: inner };
    stmt(file, diags, kind, l, r)
}

/// A struct member as parsed.
pub enum Member {
    /// A data member declaration.
    Field(Box<Decl>),
    /// A member function template: its parameters, the function, and the
    /// span of the whole declaration.
    Template(Vec<crate::ast::TemplateParam>, Box<Function>, Span),
    /// `public:` and friends.
    Access(Access, Span),
    /// `static_assert(...)`.
    Assert(Box<StaticAssert>),
    /// A member function, constructor or destructor.
    Method(Box<Function>),
    /// A stray `;`.
    Empty,
    /// A member that failed to parse (already reported).
    Error,
    /// `friend class X;` (the class's name).
    Friend(Ident),
    /// A bit field (`unsigned n : 31;`): the field and the span of its
    /// declaration.
    BitField(Box<Decl>, Span),
    /// A class defined among the members (a nested class).
    Class(Box<StructDef>),
}

impl Member {
    /// `friend class T;`: the befriended class's name (a class template's
    /// name befriends its instances).
    pub fn friend(t: TypeName) -> Member {
        match t.specs.ty {
            BaseType::Named(path) | BaseType::Template { path, .. } => match path.segments.last() {
                Some(last) => Member::Friend(last.clone()),
                None => Member::Empty,
            },
            _ => Member::Empty,
        }
    }
}

/// What follows a member function's declarator.
pub enum MethodBody {
    /// `;`
    Declared,
    /// `{ ... }`
    Body(Block),
    /// `= default;`
    Default,
    /// `= delete;`
    Delete,
    /// `= 0;`: pure virtual.
    Pure,
}

/// `= 0` after a member function: pure virtual. Any other number is a
/// syntax error (E0100).
pub fn pure_body(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    value: &str,
    l: usize,
    r: usize,
) -> MethodBody {
    if value != "0" {
        diags.push(
            Diagnostic::error(
                codes::E0100,
                span(file, l, r),
                format!("expected `default`, `delete` or `0`, found number `{value}`"),
            )
            .with_label("not `0`")
            .with_help("write `= 0` for a pure virtual function"),
        );
    }
    MethodBody::Pure
}

/// The `...` ending a C variadic parameter list, as a parameter named
/// [`ELLIPSIS_PARAM`] whose type is [`BaseType::Error`].
pub fn ellipsis_param(file: Files<'_, '_>, l: usize, r: usize) -> Param {
    let at = span(file, l, r);
    Param {
        specs: DeclSpecs {
            is_const: false,
            is_volatile: false,
            is_static: false,
            is_constexpr: false,
            tile_static: None,
            is_extern: false,
            is_inline: false,
            is_typedef: false,
            ty: BaseType::Error,
            span: at,
        },
        declarator: Declarator {
            name: Some(ident(file, ELLIPSIS_PARAM, l, r)),
            modifiers: Modifiers::default(),
            array_dims: Vec::new(),
            init: None,
            span: at,
        },
        span: at,
    }
}

/// The parameter of a `catch` handler: `None` for `catch (...)`.
pub fn handler_param(p: Box<Param>) -> Option<Box<Param>> {
    if p.is_ellipsis() { None } else { Some(p) }
}

/// `unsigned n : 31;` in a class: the field, kept beside the span of its
/// declaration (the width is not kept: the checker refuses bit fields).
#[allow(clippy::too_many_arguments)]
pub fn bit_field(
    file: Files<'_, '_>,
    specs: DeclSpecs,
    modifiers: Modifiers,
    name: Ident,
    _width: Expr,
    width_at: usize,
    l: usize,
    r: usize,
) -> Member {
    let decl_span = span(file, l, r);
    let declarator = Declarator {
        span: name.span.to(span(file, width_at, r)),
        name: Some(name),
        modifiers,
        array_dims: Vec::new(),
        init: None,
    };
    Member::BitField(
        Box::new(Decl {
            specs,
            declarators: vec![declarator],
            span: decl_span,
        }),
        decl_span,
    )
}

/// `class X;`: a class declared, to be defined later.
pub fn forward_class(key: ClassKey, name: Ident) -> StructDef {
    StructDef {
        forward: true,
        ..struct_def(key, name, Vec::new(), Vec::new(), Vec::new())
    }
}

/// A `struct`/`class` definition from its parts: members sorted into data,
/// functions and access labels, each member with the access that applies
/// (`private` until the first label in a `class`, `public` in a `struct`).
pub fn struct_def(
    key: ClassKey,
    name: Ident,
    bases: Vec<(Option<Access>, BaseType)>,
    members: Vec<Member>,
    trailing: Vec<Declarator>,
) -> StructDef {
    let is_class = key == ClassKey::Class;
    let default_access = if is_class {
        Access::Private
    } else {
        Access::Public
    };
    let mut access = default_access;
    let mut def = StructDef {
        is_class,
        is_union: key == ClassKey::Union,
        name,
        fields: Vec::new(),
        access_spans: Vec::new(),
        trailing,
        asserts: Vec::new(),
        methods: Vec::new(),
        method_templates: Vec::new(),
        field_access: Vec::new(),
        specialization: None,
        friends: Vec::new(),
        forward: false,
        bit_fields: Vec::new(),
        classes: Vec::new(),
        is_final: false,
        bases: bases
            .into_iter()
            .map(|(a, item)| crate::ast::Member {
                access: a.unwrap_or(default_access),
                item,
            })
            .collect(),
    };
    for m in members {
        match m {
            Member::Field(d) => {
                def.fields.push(*d);
                def.field_access.push(access);
            }
            Member::BitField(d, at) => {
                def.fields.push(*d);
                def.field_access.push(access);
                def.bit_fields.push(at);
            }
            Member::Assert(a) => def.asserts.push(*a),
            Member::Class(mut c) => {
                // `struct Inner { ... } a, b;`: the declarators are members
                // of the enclosing class, of the nested class's type.
                if !c.trailing.is_empty() {
                    let span = c.name.span;
                    let path = Path {
                        global: false,
                        segments: vec![c.name.clone()],
                        span,
                    };
                    def.fields.push(Decl {
                        specs: DeclSpecs::plain(BaseType::Named(path), span),
                        declarators: std::mem::take(&mut c.trailing),
                        span,
                    });
                    def.field_access.push(access);
                }
                def.classes.push(crate::ast::Member { access, item: *c });
            }
            Member::Friend(name) => def.friends.push(name),
            Member::Access(a, s) => {
                access = a;
                def.access_spans.push(s);
            }
            Member::Method(f) => def.methods.push(crate::ast::Member { access, item: *f }),
            Member::Template(params, f, span) => def.method_templates.push(crate::ast::Member {
                access,
                item: crate::ast::Template {
                    params,
                    item: Box::new(crate::ast::Item {
                        kind: crate::ast::ItemKind::Function(*f),
                        span,
                    }),
                    specialised: None,
                },
            }),
            Member::Empty | Member::Error => {}
        }
    }
    if def.field_access.iter().all(|a| *a == Access::Public) && def.methods.is_empty() {
        def.field_access.clear();
    }
    def
}

/// The return type of `auto f(...) -> T`: `T`, with the specifiers written
/// before the name (`static`, `inline`) kept. Anything but a plain `auto`
/// before the name keeps what was written there (`int* f() -> int*` is
/// not C++), which the checker then reports as it would without the
/// trailing type.
pub fn trailing_return(
    written: DeclSpecs,
    written_modifiers: Modifiers,
    t: TypeName,
) -> (DeclSpecs, Modifiers) {
    if !matches!(written.ty, BaseType::Auto) || written_modifiers != Modifiers::default() {
        return (written, written_modifiers);
    }
    let ty = t.specs.ty;
    (
        DeclSpecs {
            ty,
            is_const: written.is_const || t.specs.is_const,
            ..written
        },
        t.modifiers,
    )
}

/// `const`, `volatile` and `restrict(...)` after a member function's parameters.
#[derive(Default)]
pub struct MethodQuals {
    /// `const`
    pub is_const: bool,
    /// `volatile`
    pub is_volatile: bool,
    /// `restrict(...)`
    pub restrict: Option<Restrict>,
    /// `const` was written after `restrict(...)`.
    pub const_after: bool,
    /// A dynamic exception specification after them.
    pub exception_spec: Option<Span>,
    /// `override`
    pub is_override: bool,
    /// `final`
    pub is_final: bool,
}

fn method_info(quals: MethodQuals, body: &MethodBody) -> (MethodInfo, Option<Restrict>) {
    let info = MethodInfo {
        is_const: quals.is_const,
        is_volatile: quals.is_volatile,
        is_pure: matches!(body, MethodBody::Pure),
        is_override: quals.is_override,
        is_final: quals.is_final,
        const_after_restrict: quals.const_after,
        defaulted: matches!(body, MethodBody::Default),
        deleted: matches!(body, MethodBody::Delete),
        ..MethodInfo::default()
    };
    (info, quals.restrict)
}

fn body_block(body: MethodBody) -> Option<Block> {
    match body {
        MethodBody::Body(b) => Some(b),
        MethodBody::Declared | MethodBody::Default | MethodBody::Delete | MethodBody::Pure => None,
    }
}

/// A member function (in its class, or defined outside with `class`).
#[allow(clippy::too_many_arguments)]
pub fn method(
    ret: DeclSpecs,
    ret_modifiers: Modifiers,
    name: Ident,
    params: Vec<Param>,
    quals: MethodQuals,
    body: MethodBody,
    is_virtual: bool,
    class: Option<Ident>,
) -> Function {
    let exception_spec = quals.exception_spec;
    let (mut method, restrict) = method_info(quals, &body);
    method.is_virtual = is_virtual;
    Function {
        ret,
        ret_modifiers,
        name,
        params,
        restrict,
        exception_spec,
        body: body_block(body),
        class,
        class_args: None,
        method,
        c_linkage: None,
    }
}

/// `int Counter::made = 0;`: a global declaration whose one declarator is
/// named `Counter::made`.
#[allow(clippy::too_many_arguments)]
pub fn static_member_definition(
    file: Files<'_, '_>,
    specs: DeclSpecs,
    modifiers: Modifiers,
    class: Ident,
    name: Ident,
    init: Option<Init>,
    l: usize,
    r: usize,
) -> Item {
    let declarator = Declarator {
        name: Some(Ident {
            name: format!("{}::{}", class.name, name.name),
            span: class.span.to(name.span),
        }),
        modifiers,
        array_dims: Vec::new(),
        init,
        span: class.span.to(name.span),
    };
    Item {
        kind: ItemKind::Global(Decl {
            specs,
            declarators: vec![declarator],
            span: span(file, l, r),
        }),
        span: span(file, l, r),
    }
}

/// `Name<args>::member` in an expression.
#[allow(clippy::too_many_arguments)]
pub fn type_member(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    name: &str,
    args: Vec<TemplateArg>,
    tl: usize,
    tr: usize,
    member: Ident,
    template_args: Option<Vec<TemplateArg>>,
    l: usize,
    r: usize,
) -> Expr {
    let template = path(
        file,
        vec![ident(file, name, tl, tl + name.len())],
        tl,
        tl + name.len(),
    );
    let ty = BaseType::Template {
        path: template,
        args,
    };
    class_member(file, diags, ty, tl, tr, member, template_args, l, r)
}

/// `Class::member` or `Class::member<args>` (`ty` is the class, written
/// from `tl` to `tr`): a member of a class named as a type.
#[allow(clippy::too_many_arguments)]
pub fn class_member(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    ty: BaseType,
    tl: usize,
    tr: usize,
    member: Ident,
    template_args: Option<Vec<TemplateArg>>,
    l: usize,
    r: usize,
) -> Expr {
    let specs = DeclSpecs {
        ty,
        ..no_return(span(file, tl, tr))
    };
    let ty = Box::new(TypeName {
        specs,
        modifiers: Modifiers::default(),
        span: span(file, tl, tr),
    });
    expr(
        file,
        diags,
        ExprKind::TypeMember {
            ty,
            member,
            template_args,
        },
        l,
        r,
    )
}

/// A member defined outside its class, with the template arguments of its
/// class qualifier (`Matrix<T>::`).
pub fn qualified(mut f: Function, class_args: Option<Vec<TemplateArg>>) -> Function {
    f.class_args = class_args;
    f
}

/// A conversion function `operator T()`, named `operator T` as written.
pub fn conversion(
    file: Files<'_, '_>,
    ty: TypeName,
    quals: MethodQuals,
    body: MethodBody,
    is_explicit: bool,
    l: usize,
    r: usize,
) -> Function {
    let exception_spec = quals.exception_spec;
    let (mut method, restrict) = method_info(quals, &body);
    method.is_explicit = is_explicit;
    let text = file.text(l as u32, r.max(l) as u32);
    let name = Ident {
        name: text.split_whitespace().collect::<Vec<_>>().join(" "),
        span: span(file, l, r),
    };
    Function {
        ret: ty.specs,
        ret_modifiers: ty.modifiers,
        name,
        params: Vec::new(),
        restrict,
        exception_spec,
        body: body_block(body),
        class: None,
        class_args: None,
        method,
        c_linkage: None,
    }
}

/// The return specifiers of a constructor or destructor: `void`, spanning
/// its name.
fn no_return(at: Span) -> DeclSpecs {
    DeclSpecs::plain(BaseType::Builtin(Builtin::Void), at)
}

/// A constructor.
pub fn constructor(
    name: Ident,
    params: Vec<Param>,
    quals: MethodQuals,
    inits: Vec<MemberInit>,
    body: MethodBody,
    is_explicit: bool,
    class: Option<Ident>,
) -> Function {
    let exception_spec = quals.exception_spec;
    let (mut method, restrict) = method_info(quals, &body);
    method.is_explicit = is_explicit;
    method.special = Special::Constructor(inits);
    Function {
        ret: no_return(name.span),
        ret_modifiers: Modifiers::default(),
        name,
        params,
        restrict,
        exception_spec,
        body: body_block(body),
        class,
        class_args: None,
        method,
        c_linkage: None,
    }
}

/// A destructor (`name` is `~Class`).
pub fn destructor(
    name: Ident,
    quals: MethodQuals,
    body: MethodBody,
    is_virtual: bool,
    class: Option<Ident>,
) -> Function {
    let exception_spec = quals.exception_spec;
    let (mut method, restrict) = method_info(quals, &body);
    method.is_virtual = is_virtual;
    method.special = Special::Destructor;
    Function {
        ret: no_return(name.span),
        ret_modifiers: Modifiers::default(),
        name,
        params: Vec::new(),
        restrict,
        exception_spec,
        body: body_block(body),
        class,
        class_args: None,
        method,
        c_linkage: None,
    }
}

/// One entry of a lambda's capture list.
pub enum CaptureItem {
    /// `=` or `&`.
    Default(CaptureDefault, Span),
    /// `x`, `&x`, `this`.
    Named(Capture),
}

/// What a lambda's declarator says between its parameters and its body.
pub struct LambdaSpecifiers {
    /// `restrict(...)`
    pub restrict: Option<Restrict>,
    /// `mutable`
    pub is_mutable: bool,
    /// Where `mutable` is written after `restrict(...)`, an order C++ AMP
    /// does not allow.
    pub mutable_after: Option<Span>,
}

/// A lambda from its parts; checks that a default capture comes first and
/// only once, and that `mutable` comes before `restrict(...)`.
#[allow(clippy::too_many_arguments)]
pub fn lambda(
    _file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    items: Vec<CaptureItem>,
    capture_span: Span,
    params: Vec<Param>,
    specifiers: LambdaSpecifiers,
    exception_spec: Option<Span>,
    ret: Option<TypeName>,
    body: Block,
) -> Lambda {
    let LambdaSpecifiers {
        restrict,
        is_mutable,
        mutable_after,
    } = specifiers;
    if let Some(at) = mutable_after {
        diags.push(
            Diagnostic::error(
                codes::E0100,
                at,
                "`mutable` must come before `restrict(...)`",
            )
            .with_label("after the restriction")
            .with_msvc("C3409")
            .with_help("write `[=]() mutable restrict(amp) { ... }`"),
        );
    }
    let mut default_capture = None;
    let mut captures = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match item {
            CaptureItem::Default(kind, sp) => {
                if i != 0 {
                    diags.push(
                        Diagnostic::error(
                            codes::E0100,
                            sp,
                            "a default capture must come first in the capture list",
                        )
                        .with_label("default capture here")
                        .with_help("write `[=, &x]` rather than `[&x, =]`"),
                    );
                } else {
                    default_capture = Some(kind);
                }
            }
            CaptureItem::Named(c) => captures.push(c),
        }
    }
    Lambda {
        default_capture,
        captures,
        capture_span,
        params,
        restrict,
        exception_spec,
        is_mutable,
        ret,
        body,
    }
}

/// One declaration specifier as parsed.
pub enum Spec {
    /// `const`
    Const,
    /// `volatile`
    Volatile,
    /// `static`
    Static,
    /// `constexpr`
    Constexpr,
    /// `tile_static`
    TileStatic(Span),
    /// `extern`
    Extern,
    /// `inline`
    Inline,
    /// `register`, which has no effect
    Register(Span),
    /// `typedef`
    Typedef,
    /// A fundamental type keyword (`int`, `unsigned`, `long`, ...).
    Word(&'static str, Span),
    /// `auto`
    Auto(Span),
    /// A class or template name.
    Type(BaseType),
}

/// Combines declaration specifiers, written in any order as C++ allows
/// (`const int static N`), into a [`DeclSpecs`]; an impossible combination is
/// reported (E0105) and yields [`BaseType::Error`].
pub fn decl_specs(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    specs: Vec<Spec>,
    l: usize,
    r: usize,
) -> DeclSpecs {
    let sp = span(file, l, r);
    let mut out = DeclSpecs {
        is_const: false,
        is_volatile: false,
        is_static: false,
        is_constexpr: false,
        tile_static: None,
        is_extern: false,
        is_inline: false,
        is_typedef: false,
        ty: BaseType::Error,
        span: sp,
    };
    let mut words: Vec<&'static str> = Vec::new();
    let mut named: Vec<BaseType> = Vec::new();
    let mut auto = false;
    for spec in specs {
        match spec {
            Spec::Const => out.is_const = true,
            Spec::Volatile => out.is_volatile = true,
            Spec::Static => out.is_static = true,
            Spec::Constexpr => out.is_constexpr = true,
            Spec::TileStatic(s) => out.tile_static = Some(s),
            Spec::Extern => out.is_extern = true,
            Spec::Inline => out.is_inline = true,
            Spec::Register(at) => diags.push(
                Diagnostic::warning(
                    codes::W0108,
                    at,
                    "`register` is no longer a storage class (C++17 removed it)",
                )
                .with_label("has no effect")
                .with_note("MSVC (C5033) and g++ (-Wregister) warn and ignore it, as Tessera does")
                .with_help("remove `register`: compilers choose registers themselves"),
            ),
            Spec::Typedef => out.is_typedef = true,
            Spec::Word(w, _) => words.push(w),
            Spec::Auto(_) => auto = true,
            Spec::Type(t) => named.push(t),
        }
    }
    let kinds = usize::from(!words.is_empty()) + usize::from(auto) + named.len();
    out.ty = if kinds == 0 {
        invalid_specs(
            diags,
            sp,
            "no type given",
            "name a type, e.g. `int` or `float`",
        )
    } else if kinds > 1 {
        invalid_specs(
            diags,
            sp,
            "more than one type given",
            "a declaration names exactly one type",
        )
    } else if auto {
        BaseType::Auto
    } else if let Some(t) = named.pop() {
        t
    } else {
        match builtin_from_words(&words) {
            Some(b) => BaseType::Builtin(b),
            None => invalid_specs(
                diags,
                sp,
                &format!("`{}` is not a type", words.join(" ")),
                "valid combinations include `unsigned int`, `unsigned long`, `long long` and `signed char`",
            ),
        }
    };
    out
}

fn invalid_specs(diags: &mut Vec<Diagnostic>, sp: Span, what: &str, help: &str) -> BaseType {
    diags.push(
        Diagnostic::error(codes::E0105, sp, format!("invalid type specifiers: {what}"))
            .with_label("in these specifiers")
            .with_help(help.to_string()),
    );
    BaseType::Error
}

/// The fundamental type named by a multiset of type keywords, if any.
fn builtin_from_words(words: &[&str]) -> Option<Builtin> {
    let count = |w: &str| words.iter().filter(|x| **x == w).count();
    let (signed, unsigned, long, short, int) = (
        count("signed"),
        count("unsigned"),
        count("long"),
        count("short"),
        count("int"),
    );
    let others: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "signed" | "unsigned" | "long" | "short" | "int"))
        .collect();
    if signed + unsigned > 1 || int > 1 || short > 1 || long > 2 || (short > 0 && long > 0) {
        return None;
    }
    match others.as_slice() {
        [] => Some(match (unsigned > 0, short > 0, long) {
            (false, true, _) => Builtin::Short,
            (true, true, _) => Builtin::UnsignedShort,
            (false, false, 0) => Builtin::Int,
            (true, false, 0) => Builtin::Unsigned,
            (false, false, 1) => Builtin::Long,
            (true, false, 1) => Builtin::UnsignedLong,
            (false, false, _) => Builtin::LongLong,
            (true, false, _) => Builtin::UnsignedLongLong,
        }),
        [word] if int + short == 0 => match (*word, signed > 0, unsigned > 0, long) {
            ("char", false, false, 0) => Some(Builtin::Char),
            ("char", true, false, 0) => Some(Builtin::SignedChar),
            ("char", false, true, 0) => Some(Builtin::UnsignedChar),
            ("double", false, false, 1) => Some(Builtin::LongDouble),
            (w, false, false, 0) => match w {
                "void" => Some(Builtin::Void),
                "bool" => Some(Builtin::Bool),
                "float" => Some(Builtin::Float),
                "double" => Some(Builtin::Double),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// `using name = T;` as the declaration `typedef T name;` it means.
pub fn alias(file: Files<'_, '_>, name: Ident, t: TypeName, l: usize, r: usize) -> Decl {
    let mut specs = t.specs;
    specs.is_typedef = true;
    let declarator = Declarator {
        span: name.span,
        name: Some(name),
        modifiers: t.modifiers,
        array_dims: Vec::new(),
        init: None,
    };
    Decl {
        specs,
        declarators: vec![declarator],
        span: span(file, l, r),
    }
}

/// How deep function declarators may nest in each other's parameters
/// (`int (*)(int (*)(int (*)(int)))`): later passes recurse over them.
const MAX_FUNCTION_DECLARATOR_DEPTH: u32 = 32;

/// The modifiers of a declarator with a function declarator: `outer` are
/// those of the function's return type, `open` the class (for a pointer to
/// member) and modifiers written inside the parentheses, `tail` the
/// parameters and `restrict`.
pub fn fn_modifiers(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    outer: Modifiers,
    open: (Option<Ident>, Modifiers),
    tail: (Vec<Param>, Option<Restrict>, Option<(bool, bool)>),
    l: usize,
    r: usize,
) -> Modifiers {
    let sp = span(file, l, r);
    let (class, inner) = open;
    let (params, restrict, cv) = tail;
    if cv.is_some() && class.is_none() {
        diags.push(
            Diagnostic::error(
                codes::E0100,
                sp,
                "only a pointer to a member function may be `const` or `volatile`",
            )
            .with_label("qualifies a plain function type")
            .with_help("drop the qualifier, or point to a member function: `int (C::*pm)() const`"),
        );
    }
    let entity = Modifiers {
        pointers: inner.pointers,
        reference: if inner.pointers > 0 {
            inner.reference
        } else {
            0
        },
        const_pointer: inner.const_pointer,
        function: None,
    };
    let declarator = FunctionDeclarator {
        inner,
        ret: outer.clone(),
        class,
        params,
        restrict,
        object_const: cv.is_some_and(|(is_const, _)| is_const),
        span: sp,
    };
    if function_depth(&declarator) > MAX_FUNCTION_DECLARATOR_DEPTH {
        if !diags.iter().any(|d| d.code == codes::E0104) {
            diags.push(
                Diagnostic::error(codes::E0104, sp, "function declarators nested too deeply")
                    .with_label(format!(
                        "more than {MAX_FUNCTION_DECLARATOR_DEPTH} levels deep"
                    ))
                    .with_help("name the inner function types with `using`"),
            );
        }
        return outer;
    }
    Modifiers {
        function: Some(Box::new(declarator)),
        ..entity
    }
}

/// How deeply function declarators nest in `d` (1 for one without any in
/// its parameters).
fn function_depth(d: &FunctionDeclarator) -> u32 {
    1 + d
        .params
        .iter()
        .filter_map(|p| p.declarator.modifiers.function.as_deref())
        .map(function_depth)
        .max()
        .unwrap_or(0)
}

/// The items of a linkage specification, `extern "C"` or `extern "C++"`
/// (`lang` is the string literal as written): each function declared with
/// C linkage is marked with where `extern "C"` is written.
pub fn linkage(
    file: Files<'_, '_>,
    diags: &mut Vec<Diagnostic>,
    lang: &str,
    mut items: Vec<Item>,
    l: usize,
    r: usize,
) -> Vec<Item> {
    let sp = span(file, l, r);
    match lang {
        "\"C++\"" => {}
        "\"C\"" => {
            for item in &mut items {
                if let ItemKind::Function(f) = &mut item.kind {
                    f.c_linkage = Some(sp);
                }
            }
        }
        other => diags.push(
            Diagnostic::error(
                codes::E0106,
                sp,
                format!("linkage {other} is not supported"),
            )
            .with_label("unknown language linkage")
            .with_help("write `extern \"C\"` or `extern \"C++\"`"),
        ),
    }
    items
}
