//! Classes: member functions, constructors, destructors, operators, access,
//! static members, bases, virtual functions and function objects as kernels.
//!
//! Everything is lowered here to what the typed program already has, so the
//! engines need nothing new:
//!
//! - a member function is a plain function whose first parameter is the
//!   object, a reference named `this` (`const` for a `const` member);
//! - a constructor is a function that returns the object: it declares a
//!   local `this`, initialises bases and members in declaration order (from
//!   the initialiser list, a default member initialiser or a default
//!   constructor), runs the body and returns `this`. So `Point p(1, 2);` is
//!   `Point p = Point::Point(1, 2);` and a temporary `Point(1, 2)` is the call
//!   itself. The copy this would cost in C++ is one C++17 elides;
//! - a base class is the struct's first fields, one subobject per base, as
//!   C++ lays it out; a base's member is reached through its subobject, and
//!   converting a derived object to its base is naming that field;
//! - an operator on a class object is a call of `operator@`, a member (the
//!   object first) or a free function, chosen by the one overload resolution;
//! - a function object passed to `parallel_for_each` becomes a kernel that
//!   captures the object by value and calls its `operator()`;
//! - a polymorphic class holds its dynamic class in a hidden field (see
//!   `tessera_ir::DynamicClass`), set by its constructors after the bases
//!   and by its destructor; a call of a virtual function through an object
//!   is a `VirtualCall`, which the interpreter sends to the final overrider.

use crate::cx::{Checker, FnCx, error_expr};
use crate::expr::mk;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{
    Expr, ExprKind, FuncId, Function, FunctionKind, Local, LocalId, Restriction, Space, Stmt,
    StmtKind, StructId, Type,
};
use tessera_syntax::ast::{self, Access};

/// What the checker knows of a struct or class beyond its data members.
#[derive(Clone, Debug, Default)]
pub struct ClassInfo {
    /// The class's name.
    pub name: String,
    /// The names of the classes declared `friend` (a class template's name
    /// stands for every instance of it).
    pub friends: Vec<String>,
    /// Base classes in order: base `i` is the struct's field `i`.
    pub bases: Vec<StructId>,
    /// The access of each field (bases included), parallel to the fields.
    pub access: Vec<Access>,
    /// Default member initialisers, parallel to the fields.
    pub default_inits: Vec<Option<ast::Init>>,
    /// Which fields are declared `const`, parallel to the fields.
    pub const_fields: Vec<bool>,
    /// Member functions by name (`operator+` for operators), static ones included.
    pub methods: HashMap<String, Vec<FuncId>>,
    /// The access of each member function and constructor.
    pub method_access: HashMap<FuncId, Access>,
    /// Static member functions.
    pub statics: HashSet<FuncId>,
    /// Conversion functions (`operator float()`), with whether each is
    /// `explicit`.
    pub conversions: Vec<(FuncId, bool)>,
    /// Members declared `= delete`.
    pub deleted: HashSet<FuncId>,
    /// Constructors the class declares.
    pub ctors: Vec<FuncId>,
    /// Constructors declared `explicit`.
    pub explicit: HashSet<FuncId>,
    /// The default constructor the compiler defines, once one was needed.
    pub implicit_ctor: Option<FuncId>,
    /// The destructor, if declared.
    pub dtor: Option<FuncId>,
    /// The destructor C++ defines for a class that declares none, once one
    /// was needed (a base or member has a destructor that runs code).
    pub implicit_dtor: Option<FuncId>,
    /// The copy constructor C++ defines for a class that declares none,
    /// once one was needed (a base or member has a user-written one).
    pub implicit_copy: Option<FuncId>,
    /// The copy assignment C++ defines for a class that declares none, once
    /// one was needed (a base or member declares `operator=`).
    pub implicit_assign: Option<FuncId>,
    /// Static data members: their global and access.
    pub static_data: HashMap<String, (tessera_ir::GlobalId, Access)>,
    /// Values of the static integral constants, by plain name.
    pub static_consts: HashMap<String, i64>,
    /// Static data members declared in the class without a value, whose
    /// one definition outside it (`int Counter::made = 0;`) is still to come.
    pub undefined_statics: HashSet<String>,
    /// A member function is `virtual`.
    pub has_virtual: bool,
    /// The class is declared `final`: no class may derive from it.
    pub is_final: bool,
    /// Its virtual member functions (declared `virtual`, or overriding a
    /// base's virtual function).
    pub virtuals: HashSet<FuncId>,
    /// Its virtual functions declared `final`.
    pub finals: HashSet<FuncId>,
    /// Its pure virtual functions (`= 0`).
    pub pure: HashSet<FuncId>,
    /// The pure virtual functions that no class from the one declaring
    /// them down to this one overrides: the class is abstract when there
    /// are any.
    pub abstract_because: Vec<FuncId>,
    /// A data member is a bit field.
    pub has_bit_field: bool,
    /// Member function templates by name (see
    /// `template::MemberTemplate`).
    pub member_templates: HashMap<String, Vec<Rc<crate::template::MemberTemplate>>>,
}

/// The parts of a class that `declare_struct` reads with its data members.
#[derive(Default)]
pub struct Layout {
    /// Base classes in order.
    pub bases: Vec<StructId>,
    /// Access of each field, bases included.
    pub access: Vec<Access>,
    /// Default member initialisers, bases included (always `None`).
    pub default_inits: Vec<Option<ast::Init>>,
    /// Which fields are `const`, bases included (never).
    pub const_fields: Vec<bool>,
    /// Static data member declarations with their access.
    pub statics: Vec<(ast::Decl, Access)>,
}

/// The object of the member function being lowered.
#[derive(Clone, Debug)]
pub struct ThisCx {
    /// The class.
    pub class: StructId,
    /// The local holding the object (`None` in a static member function).
    pub object: Option<LocalId>,
    /// Lowering a constructor: `return;` returns the object.
    pub constructing: bool,
}

/// The name of the field holding the base class `name`.
pub fn base_field_name(name: &str) -> String {
    tessera_ir::base_field_name(name)
}

/// The values of a class's `static const` integral members written in the
/// class, for constant expressions in the class (array bounds, bodies).
pub fn static_consts(ck: &mut Checker, s: &ast::StructDef) -> Rc<HashMap<String, i64>> {
    let mut out: HashMap<String, i64> = HashMap::new();
    for decl in &s.fields {
        if !decl.specs.is_static || !(decl.specs.is_const || decl.specs.is_constexpr) {
            continue;
        }
        for d in &decl.declarators {
            let (Some(name), Some(ast::Init::Assign(e))) = (&d.name, &d.init) else {
                continue;
            };
            let snapshot = crate::declare::const_snapshot(ck);
            let known = out.clone();
            let lookup = move |n: &str| known.get(n).or_else(|| snapshot.get(n)).copied();
            if let Ok(v) = crate::types::try_eval(e, &lookup) {
                out.insert(name.name.clone(), v);
            }
        }
    }
    Rc::new(out)
}

/// Declares the members of class `id` beyond its data: static members,
/// member functions (signatures first, then bodies, which see the whole
/// class as C++ requires), constructors and the destructor.
pub fn declare_class(
    ck: &mut Checker,
    id: StructId,
    s: &ast::StructDef,
    layout: Layout,
    consts: Rc<HashMap<String, i64>>,
) {
    let mut info = ClassInfo {
        name: s.name.name.clone(),
        friends: s.friends.iter().map(|f| f.name.clone()).collect(),
        bases: layout.bases,
        access: layout.access,
        default_inits: layout.default_inits,
        const_fields: layout.const_fields,
        static_consts: (*consts).clone(),
        is_final: s.is_final,
        ..ClassInfo::default()
    };
    for (decl, access) in &layout.statics {
        declare_static_data(ck, &mut info, decl, *access);
    }
    for m in &s.method_templates {
        let template = crate::template::MemberTemplate::new(ck, &m.item, m.access, &s.name.name);
        if let Some(t) = template {
            info.member_templates
                .entry(t.name.clone())
                .or_default()
                .push(Rc::new(t));
        }
    }
    ck.classes.insert(id, info);
    let mut declared = Vec::new();
    let mut amp_problem = AmpProblem::default();
    for m in &s.methods {
        if let Some(fid) = declare_method(ck, id, &m.item, m.access, &mut amp_problem) {
            declared.push((fid, &m.item));
        }
    }
    check_destructor_restriction(ck, id);
    finish_virtuals(ck, id, &declared);
    let inherits_virtual_dtor = ck.program.dynamic.get(&id).is_some_and(|d| {
        d.overriders.keys().any(|k| {
            ck.program
                .get_function(*k)
                .is_some_and(|f| member_name(f).starts_with('~'))
        })
    });
    if inherits_virtual_dtor
        && let Some(dtor) = crate::special::implicit_virtual_dtor(ck, id, s.name.span)
    {
        implicit_dtor_overrides(ck, id, dtor);
    }
    // In a class-template instance, a member's body is checked when it is
    // first called (see `template::ensure_body`).
    let declaring = ck.templates.declaring.take();
    // So is a member of a class of the library headers (`std::string`):
    // a program uses few of them. A polymorphic class's are lowered now,
    // as its virtual functions run through its dynamic class.
    let lazy_library = declaring.is_none()
        && ck.library_files.contains(&s.name.span.file)
        && !ck.program.dynamic.contains_key(&id);
    let mut scope: Option<Rc<DeclaredScope>> = None;
    for (fid, f) in declared {
        if f.body.is_none() && !f.method.defaulted {
            continue;
        }
        match &declaring {
            Some((def, args, instance)) => {
                let plain = match &def.item.kind {
                    ast::ItemKind::Struct(s) => s.name.name.clone(),
                    _ => String::new(),
                };
                ck.templates.lazy.insert(
                    fid,
                    crate::template::LazyMember {
                        def: def.clone(),
                        args: args.clone(),
                        instance: instance.clone(),
                        plain,
                        class: id,
                        function: f.clone(),
                        out_of_class: false,
                    },
                );
            }
            None if lazy_library => {
                let scope = scope
                    .get_or_insert_with(|| Rc::new(DeclaredScope::capture(ck)))
                    .clone();
                // The member's definition: in the class the checker keeps
                // whole, or a copy.
                let kept = ck
                    .library_class
                    .as_ref()
                    .filter(|c| std::ptr::eq(Rc::as_ptr(c), s))
                    .and_then(|c| {
                        let at = c.methods.iter().position(|m| std::ptr::eq(&m.item, f))?;
                        Some(MemberSource::InClass(Rc::clone(c), at))
                    });
                let source = kept.unwrap_or_else(|| MemberSource::Copied(Box::new(f.clone())));
                ck.library_lazy.insert(
                    fid,
                    LazyLibraryMember {
                        class: Some(id),
                        source,
                        scope,
                    },
                );
            }
            None => lower_method(ck, id, fid, f),
        }
    }
    // A class-template instance's virtual functions run through virtual
    // calls, which name the base's function: their bodies are checked now.
    let mut virtuals: Vec<FuncId> = ck
        .classes
        .get(&id)
        .map(|c| c.virtuals.iter().copied().collect())
        .unwrap_or_default();
    virtuals.sort();
    for f in virtuals {
        crate::template::ensure_body(ck, f, s.name.span);
    }
}

/// The short name of member function `f` (`f` of `A::f`).
fn member_name(f: &Function) -> &str {
    f.name.rsplit("::").next().unwrap_or(&f.name)
}

/// True when member function `a` overrides `b` if `b` is virtual: the same
/// name, parameter types and `const` (destructors: any two).
fn same_override_signature(a: &Function, b: &Function) -> bool {
    let a_dtor = member_name(a).starts_with('~');
    let b_dtor = member_name(b).starts_with('~');
    if a_dtor || b_dtor {
        return a_dtor && b_dtor;
    }
    if member_name(a) != member_name(b) || a.params != b.params || a.params == 0 {
        return false;
    }
    let this_const = |f: &Function| f.locals.first().is_some_and(|l| l.is_const);
    if this_const(a) != this_const(b) {
        return false;
    }
    a.param_locals()
        .iter()
        .zip(b.param_locals())
        .skip(1)
        .all(|(x, y)| {
            x.ty == y.ty && x.by_ref == y.by_ref && (!x.by_ref || x.is_const == y.is_const)
        })
}

/// The virtual functions of class `id` once its member functions are
/// declared: which of them override a base's (and so are virtual without
/// saying so), the final overrider of each virtual function in the class
/// (`tessera_ir::DynamicClass::overriders`), and the rules of `override`,
/// `final` and pure functions.
fn finish_virtuals(ck: &mut Checker, id: StructId, declared: &[(FuncId, &ast::Function)]) {
    let Some(dynamic) = ck.program.dynamic.get(&id).cloned() else {
        for (_, f) in declared {
            if f.method.is_override || f.method.is_final {
                let word = if f.method.is_override {
                    "override"
                } else {
                    "final"
                };
                ck.report(
                    Diagnostic::error(
                        codes::E0258,
                        f.name.span,
                        format!(
                            "`{}` is declared `{word}` but overrides no virtual function",
                            f.name.name
                        ),
                    )
                    .with_label(format!("`{word}` on a function that is not virtual"))
                    .with_msvc("C3668")
                    .with_help("only a virtual function that overrides a base's virtual function can be declared so; remove it, or fix the name, parameters or `const`"),
                );
            }
        }
        return;
    };
    let base = dynamic.base.map(|(b, _)| b);
    let mut overriders = base
        .and_then(|b| ck.program.dynamic.get(&b))
        .map(|d| d.overriders.clone())
        .unwrap_or_default();
    let inherited: Vec<FuncId> = {
        let mut keys: Vec<FuncId> = overriders.keys().copied().collect();
        keys.sort();
        keys
    };
    let mut virtuals = HashSet::new();
    let mut finals = HashSet::new();
    let mut pure = HashSet::new();
    for (fid, f) in declared {
        let is_method = matches!(
            f.method.special,
            ast::Special::None | ast::Special::Destructor
        );
        let is_static = f.ret.is_static;
        if !is_method || is_static {
            continue;
        }
        let Some(this_fn) = ck.program.get_function(*fid).cloned() else {
            continue;
        };
        let mut overridden = Vec::new();
        for k in &inherited {
            let Some(base_fn) = ck.program.get_function(*k) else {
                continue;
            };
            if same_override_signature(&this_fn, base_fn) {
                overridden.push(*k);
            }
        }
        for k in &overridden {
            let current = overriders.get(k).copied().unwrap_or(*k);
            let owner = ck
                .program
                .get_function(current)
                .and_then(|g| g.locals.first())
                .and_then(|l| match l.ty {
                    Type::Struct(c) => Some(c),
                    _ => None,
                });
            let is_final = owner
                .and_then(|c| ck.classes.get(&c))
                .is_some_and(|c| c.finals.contains(&current));
            if is_final {
                let (name, at) = ck
                    .program
                    .get_function(current)
                    .map(|g| (g.name.clone(), g.span))
                    .unwrap_or_default();
                ck.report(
                    Diagnostic::error(
                        codes::E0256,
                        f.name.span,
                        format!(
                            "`{}` overrides `{name}`, which is declared `final`",
                            f.name.name
                        ),
                    )
                    .with_label("overrides a `final` function")
                    .with_secondary(at, "declared `final` here")
                    .with_msvc("C3248")
                    .with_help("rename this function, or remove `final` from the base's"),
                );
            }
        }
        let is_virtual = f.method.is_virtual || !overridden.is_empty();
        if f.method.is_override && overridden.is_empty() {
            ck.report(
                Diagnostic::error(
                    codes::E0258,
                    f.name.span,
                    format!(
                        "`{}` is declared `override` but overrides no virtual function of a base",
                        f.name.name
                    ),
                )
                .with_label("overrides nothing")
                .with_msvc("C3668")
                .with_help("declare it as the base's virtual function is declared: the same name, parameter types and `const`"),
            );
        }
        if f.method.is_final && !is_virtual {
            ck.report(
                Diagnostic::error(
                    codes::E0258,
                    f.name.span,
                    format!("`{}` is declared `final` but is not virtual", f.name.name),
                )
                .with_label("`final` on a function that is not virtual")
                .with_msvc("C3668")
                .with_help("declare it `virtual`, or remove `final`"),
            );
        }
        if !is_virtual {
            continue;
        }
        for k in overridden {
            overriders.insert(k, *fid);
        }
        overriders.insert(*fid, *fid);
        virtuals.insert(*fid);
        if f.method.is_final {
            finals.insert(*fid);
        }
        if f.method.is_pure {
            pure.insert(*fid);
        }
    }
    // Pure functions nothing here or below their class overrides.
    let is_pure = |ck: &Checker, f: FuncId| {
        pure.contains(&f)
            || ck
                .program
                .get_function(f)
                .and_then(|g| g.locals.first())
                .and_then(|l| match l.ty {
                    Type::Struct(c) => ck.classes.get(&c),
                    _ => None,
                })
                .is_some_and(|c| c.pure.contains(&f))
    };
    let mut abstract_because: Vec<FuncId> = overriders
        .values()
        .copied()
        .filter(|f| is_pure(ck, *f))
        .collect();
    abstract_because.sort();
    abstract_because.dedup();
    if let Some(c) = ck.classes.get_mut(&id) {
        c.virtuals = virtuals;
        c.finals = finals;
        c.pure = pure;
        c.abstract_because = abstract_because;
    }
    if let Some(d) = ck.program.dynamic.get_mut(&id) {
        d.overriders = overriders;
    }
}

/// Registers `dtor`, the destructor C++ defines for class `id`, as the
/// overrider of its bases' virtual destructors.
pub(crate) fn implicit_dtor_overrides(ck: &mut Checker, id: StructId, dtor: FuncId) {
    let Some(d) = ck.program.dynamic.get_mut(&id) else {
        return;
    };
    let inherited: Vec<FuncId> = d.overriders.keys().copied().collect();
    let dtors: Vec<FuncId> = inherited
        .into_iter()
        .filter(|k| {
            ck.program
                .get_function(*k)
                .is_some_and(|f| member_name(f).starts_with('~'))
        })
        .collect();
    if let Some(d) = ck.program.dynamic.get_mut(&id) {
        for k in dtors {
            d.overriders.insert(k, dtor);
        }
    }
}

/// For an object of a polymorphic class `id` (a place): the statement
/// making its dynamic class `id` (see `tessera_ir::DynamicClass`).
pub(crate) fn dynamic_class_assignment(
    ck: &Checker,
    object: Expr,
    id: StructId,
    span: Span,
) -> Option<Stmt> {
    let path = ck.program.dynamic_class_path(id)?;
    let mut field = object;
    for &i in &path {
        let Type::Struct(s) = field.ty else {
            return None;
        };
        let ty = ck.program.get_struct(s)?.fields.get(i as usize)?.1.clone();
        field = mk(
            ExprKind::Field {
                base: Box::new(field),
                field: i,
            },
            ty,
            true,
            span,
        );
    }
    let class = mk(
        ExprKind::Const(tessera_ir::Const::Int(i64::from(id.0))),
        Type::Scalar(tessera_ir::Scalar::Long),
        false,
        span,
    );
    let assign = mk(
        ExprKind::Assign {
            target: Box::new(field),
            value: Box::new(class),
        },
        Type::Scalar(tessera_ir::Scalar::Long),
        true,
        span,
    );
    Some(Stmt::new(StmtKind::Expr(assign), span))
}

/// A member function of a class of the library headers, or a function of
/// theirs, declared, whose body is lowered on its first use (see
/// [`lower_library_member`]).
pub struct LazyLibraryMember {
    /// The class; `None` for a function that is not a member.
    pub class: Option<StructId>,
    /// The member's definition.
    pub source: MemberSource,
    /// The names in scope where the class was declared.
    pub scope: Rc<DeclaredScope>,
}

/// Where a lazy library member's definition is kept.
pub enum MemberSource {
    /// In its class's definition, which the checker owns: the member at
    /// this index of `methods`.
    InClass(Rc<ast::StructDef>, usize),
    /// A copy (the checker borrows the tree).
    Copied(Box<ast::Function>),
    /// A function that is not a member, kept whole.
    Free(Rc<ast::Function>),
}

impl MemberSource {
    /// The member's definition.
    fn function(&self) -> Option<&ast::Function> {
        match self {
            MemberSource::InClass(class, at) => class.methods.get(*at).map(|m| &m.item),
            MemberSource::Copied(f) => Some(f),
            MemberSource::Free(f) => Some(f),
        }
    }
}

/// The checker's scope where a library class was declared: its body is
/// lowered later, wherever its first use is, but must see the names its
/// class saw (C++ looks a name in a member function up from its
/// definition, not from its uses).
pub struct DeclaredScope {
    aliases: Vec<HashMap<String, Type>>,
    class_scopes: Vec<StructId>,
    defining: Vec<(String, StructId)>,
    using_namespaces: Vec<String>,
    const_globals: Rc<HashMap<String, i64>>,
}

impl DeclaredScope {
    /// The scope the checker is in now.
    pub fn capture(ck: &Checker) -> DeclaredScope {
        DeclaredScope {
            aliases: ck.aliases.clone(),
            class_scopes: ck.class_scopes.clone(),
            defining: ck.defining.clone(),
            using_namespaces: ck.using_namespaces.clone(),
            const_globals: Rc::clone(&ck.const_globals),
        }
    }
}

/// Lowers the body of library member `fid` (see [`LazyLibraryMember`]) in
/// the scope its class was declared in, whatever is being checked when its
/// first use is found; the checker's scope is restored after.
pub fn lower_library_member(ck: &mut Checker, fid: FuncId, lazy: LazyLibraryMember) {
    let scope = &*lazy.scope;
    let aliases = std::mem::replace(&mut ck.aliases, scope.aliases.clone());
    let class_scopes = std::mem::replace(&mut ck.class_scopes, scope.class_scopes.clone());
    let defining = std::mem::replace(&mut ck.defining, scope.defining.clone());
    let usings = std::mem::replace(&mut ck.using_namespaces, scope.using_namespaces.clone());
    let consts = std::mem::replace(&mut ck.const_globals, Rc::clone(&scope.const_globals));
    let values = std::mem::take(&mut ck.templates.values);
    let qualified = std::mem::take(&mut ck.templates.qualified);
    let template_params = std::mem::take(&mut ck.templates.template_params);
    let injected = ck.templates.injected.take();
    let declaring = ck.templates.declaring.take();
    let local_class_context = ck.local_class_context.take();
    let decltype_scope = ck.decltype_scope.take();
    let flags = (
        std::mem::take(&mut ck.resolving_param),
        std::mem::take(&mut ck.prototype_param),
        std::mem::take(&mut ck.pointee_ok),
        std::mem::take(&mut ck.declaring_member_alias),
    );
    match (lazy.class, lazy.source.function()) {
        (Some(class), Some(f)) => lower_method(ck, class, fid, f),
        (None, Some(f)) => crate::declare::define_body(ck, f, fid),
        (_, None) => {}
    }
    (
        ck.resolving_param,
        ck.prototype_param,
        ck.pointee_ok,
        ck.declaring_member_alias,
    ) = flags;
    ck.decltype_scope = decltype_scope;
    ck.local_class_context = local_class_context;
    ck.templates.declaring = declaring;
    ck.templates.injected = injected;
    ck.templates.template_params = template_params;
    ck.templates.qualified = qualified;
    ck.templates.values = values;
    ck.const_globals = consts;
    ck.using_namespaces = usings;
    ck.defining = defining;
    ck.class_scopes = class_scopes;
    ck.aliases = aliases;
}

/// Lowers the library members (see [`LazyLibraryMember`]) that lowered
/// code uses where no use lowered them yet (an address taken, a call the
/// checker built itself), until none is left without its body; true when
/// it lowered any. Members nothing uses stay declarations.
pub fn define_used_library_members(ck: &mut Checker) -> bool {
    let mut any = false;
    loop {
        if ck.library_lazy.is_empty() {
            return any;
        }
        let mut wanted: Vec<FuncId> = Vec::new();
        let lazy = &ck.library_lazy;
        let mut note = |e: &tessera_ir::Expr| {
            let used = match &e.kind {
                tessera_ir::ExprKind::Call { func, .. }
                | tessera_ir::ExprKind::VirtualCall { func, .. } => Some(*func),
                tessera_ir::ExprKind::Launch { kernel, .. } => Some(*kernel),
                tessera_ir::ExprKind::FuncAddr(Some(func)) => Some(*func),
                _ => None,
            };
            if let Some(id) = used
                && lazy.contains_key(&id)
                && !wanted.contains(&id)
            {
                wanted.push(id);
            }
        };
        tessera_ir::visit::for_each_program_expr(&ck.program, &mut note);
        for d in ck.program.dynamic.values() {
            for id in d.overriders.values() {
                if lazy.contains_key(id) && !wanted.contains(id) {
                    wanted.push(*id);
                }
            }
        }
        if wanted.is_empty() {
            return any;
        }
        // In id order, so the order of lowering does not depend on how
        // the uses were found.
        wanted.sort();
        for id in wanted {
            if let Some(lazy) = ck.library_lazy.remove(&id) {
                lower_library_member(ck, id, lazy);
                any = true;
            }
        }
    }
}

/// Checks member `fid`'s body now (a class-template instance's member, on
/// its first call).
pub fn lower_method_now(ck: &mut Checker, id: StructId, fid: FuncId, f: &ast::Function) {
    lower_method(ck, id, fid, f);
}

/// The member function of class `id` that the out-of-class definition `f`
/// defines, if it is declared there.
pub fn matching_member(ck: &mut Checker, id: StructId, f: &ast::Function) -> Option<FuncId> {
    let info = ck.classes.get(&id)?;
    let candidates: Vec<FuncId> = match &f.method.special {
        ast::Special::Constructor(_) => info.ctors.clone(),
        ast::Special::Destructor => info.dtor.into_iter().collect(),
        ast::Special::None => info.methods.get(&f.name.name).cloned().unwrap_or_default(),
    };
    // Parameter types need the template's bindings; with one candidate the
    // name decides, otherwise the definition is checked at once.
    match candidates.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// A destructor must be able to run wherever an object can be made: its
/// restriction covers those of all constructors (C++ AMP, MSVC C3933).
fn check_destructor_restriction(ck: &mut Checker, id: StructId) {
    let Some(info) = ck.classes.get(&id) else {
        return;
    };
    let Some(dtor) = info.dtor.and_then(|d| ck.program.get_function(d)) else {
        return;
    };
    let (have, at) = (dtor.restriction, dtor.span);
    let mut need = tessera_ir::Restriction::default();
    for c in &info.ctors {
        if let Some(f) = ck.program.get_function(*c) {
            need.cpu |= f.restriction.cpu;
            need.amp |= f.restriction.amp;
        }
    }
    let missing: Vec<&str> = [
        (need.cpu && !have.cpu, "cpu"),
        (need.amp && !have.amp, "amp"),
    ]
    .into_iter()
    .filter_map(|(m, w)| m.then_some(w))
    .collect();
    if missing.is_empty() {
        return;
    }
    let name = info.name.clone();
    ck.report(
        Diagnostic::error(
            codes::E0311,
            at,
            format!(
                "the destructor of `{name}` must also be `{}`: a constructor makes objects there",
                missing.join(", ")
            ),
        )
        .with_label("destructor")
        .with_msvc("C3933")
        .with_help("give the destructor every restriction its constructors have"),
    );
}

fn declare_static_data(ck: &mut Checker, info: &mut ClassInfo, decl: &ast::Decl, access: Access) {
    let mut specs = decl.specs.clone();
    specs.is_static = false;
    for d in &decl.declarators {
        let Some(name) = &d.name else { continue };
        // Without a value in the class (and not `inline`), C++ wants one
        // definition outside it, which gives the value (and which a `const`
        // member needs: until then it is declared as a variable).
        let mut member_specs = specs.clone();
        if d.init.is_none() && !decl.specs.is_inline {
            info.undefined_statics.insert(name.name.clone());
            member_specs.is_const = false;
            member_specs.is_constexpr = false;
        }
        let mut renamed = d.clone();
        let qualified = format!("{}::{}", info.name, name.name);
        renamed.name = Some(ast::Ident {
            name: qualified.clone(),
            span: name.span,
        });
        crate::declare::declare_globals(ck, &member_specs, std::slice::from_ref(&renamed));
        if let Some(&gid) = ck.globals.get(&qualified) {
            info.static_data.insert(name.name.clone(), (gid, access));
        }
    }
}

/// An instance of a member template: declared as a member function (under
/// its instance name, `f<int>`), its body left to the caller.
pub fn declare_member_instance(
    ck: &mut Checker,
    id: StructId,
    f: &ast::Function,
    access: Access,
) -> Option<FuncId> {
    declare_method(ck, id, f, access, &mut AmpProblem::default())
}

/// Why class `id` cannot be used in amp code (`stmt::kernel_type_problem`),
/// remembered across the member functions of one class: asked once per
/// `restrict(amp)` member, it is the same answer for all of them while the
/// class's `has_virtual` stays as it was (its data members and their
/// classes are complete before its members are declared). The library's
/// short vector classes have hundreds of such members each.
#[derive(Default)]
struct AmpProblem {
    /// The answer and the `has_virtual` it was computed under.
    known: Option<(bool, Option<String>)>,
}

impl AmpProblem {
    /// Why class `id` cannot be used in amp code, computed when not known
    /// for its current `has_virtual`.
    fn of(&mut self, ck: &Checker, id: StructId) -> Option<String> {
        let has_virtual = ck.classes.get(&id).is_some_and(|c| c.has_virtual);
        match &self.known {
            Some((v, problem)) if *v == has_virtual => problem.clone(),
            _ => {
                let problem = crate::stmt::kernel_type_problem(ck, &Type::Struct(id));
                self.known = Some((has_virtual, problem.clone()));
                problem
            }
        }
    }
}

/// The signature of a member function, constructor or destructor of class
/// `id`, registered in its class; `None` after reporting why it cannot be.
fn declare_method(
    ck: &mut Checker,
    id: StructId,
    f: &ast::Function,
    access: Access,
    amp_problem: &mut AmpProblem,
) -> Option<FuncId> {
    let class_name = ck
        .classes
        .get(&id)
        .map(|c| c.name.clone())
        .unwrap_or_default();
    let restriction = crate::declare::restriction(ck, f.restrict.as_ref());
    crate::declare::check_exception_spec(ck, f.exception_spec, restriction);
    let space = if restriction.amp {
        Space::Private
    } else {
        Space::Host
    };
    let consts = ck
        .classes
        .get(&id)
        .map(|c| c.static_consts.clone())
        .unwrap_or_default();
    let snapshot = crate::declare::const_snapshot(ck);
    let lookup = move |n: &str| consts.get(n).or_else(|| snapshot.get(n)).copied();
    let is_static = f.ret.is_static;
    let (ret, ret_by_ref) = match &f.method.special {
        ast::Special::Constructor(_) => (Type::Struct(id), false),
        ast::Special::Destructor => (Type::Void, false),
        // A trailing `decltype` is typed once the parameters are known.
        ast::Special::None if crate::decltype::trailing(f) => (Type::Void, false),
        ast::Special::None => {
            let d = crate::types::resolve(ck, &f.ret, &f.ret_modifiers, &[], &lookup);
            (d.ty, d.by_ref)
        }
    };
    if f.method.is_virtual {
        if let Some(c) = ck.classes.get_mut(&id) {
            c.has_virtual = true;
        }
        let form = f
            .name
            .name
            .starts_with("operator")
            .then_some("virtual operators and conversion functions");
        if restriction.amp {
            ck.report(
                Diagnostic::error(
                    codes::E0302,
                    f.name.span,
                    format!(
                        "virtual function `{}` cannot be `restrict(amp)`",
                        f.name.name
                    ),
                )
                .with_label("virtual")
                .with_msvc("C3581")
                .with_help("amp code has no virtual calls; make the function non-virtual"),
            );
        } else if let Some(form) = form {
            ck.error(
                codes::E0211,
                f.name.span,
                format!("{form} are not supported yet"),
                "virtual",
                "make the function non-virtual, or call a virtual function from it",
            );
        }
    }
    if f.method.is_volatile && restriction.amp {
        ck.report(
            Diagnostic::error(
                codes::E0302,
                f.name.span,
                format!(
                    "member function `{}` is `volatile`, which amp code cannot use",
                    f.name.name
                ),
            )
            .with_label("a `volatile` member function that runs in amp code")
            .with_msvc("C3581")
            .with_help("remove `volatile`, or make the function `restrict(cpu)`"),
        );
    }
    if f.method.const_after_restrict
        && let Some(r) = &f.restrict
    {
        ck.report(
            Diagnostic::error(
                codes::E0100,
                r.span,
                "`const` must come before the `restrict` clause",
            )
            .with_label("`restrict(...)` written before `const`")
            .with_msvc("C4430")
            .with_help("write `int f() const restrict(amp)`"),
        );
    }
    if matches!(f.method.special, ast::Special::Destructor)
        && let Some(prev) = ck.classes.get(&id).and_then(|c| c.dtor)
    {
        let at = ck.program.get_function(prev).map(|p| p.span);
        let mut d = Diagnostic::error(
            codes::E0202,
            f.name.span,
            format!("`{}` is declared twice: a class has one destructor", f.name.name),
        )
        .with_label("second destructor")
        .with_msvc("C2535")
        .with_help("destructors cannot be overloaded, not even on `restrict`; give one destructor every restriction it needs: `restrict(amp, cpu)`");
        if let Some(at) = at {
            d = d.with_secondary(at, "first declared here");
        }
        ck.report(d);
        return None;
    }
    // A member function that runs in amp code works on an object of the
    // class there: the class must be a type amp code may use.
    if restriction.amp
        && !f.method.is_virtual
        && let Some(problem) = amp_problem.of(ck, id)
    {
        ck.report(
            Diagnostic::error(
                codes::E0302,
                f.name.span,
                format!("`{class_name}` cannot be used in amp code: {problem}"),
            )
            .with_label("amp member function")
            .with_msvc("C3581")
            .with_help(
                "keep pointers, references and host-only types out of classes used in amp code",
            ),
        );
    }
    let mut locals = Vec::new();
    let constructing = matches!(f.method.special, ast::Special::Constructor(_));
    if !is_static && !constructing {
        locals.push(Local {
            name: "this".into(),
            ty: Type::Struct(id),
            by_ref: true,
            is_const: f.method.is_const,
            space,
            span: f.name.span,
        });
    }
    let is_void_list = f.params.len() == 1
        && matches!(
            f.params[0].specs.ty,
            ast::BaseType::Builtin(ast::Builtin::Void)
        )
        && f.params[0].declarator.name.is_none();
    let first_param = locals.len();
    if !is_void_list {
        // A prototype may take a class declared but not defined yet by
        // reference; its definition comes after the class is complete.
        let prototype = f.body.is_none() && !f.method.defaulted;
        for p in &f.params {
            ck.prototype_param = prototype && p.declarator.modifiers.reference == 1;
            let local = crate::declare::param_local(ck, p, space, &lookup);
            ck.prototype_param = false;
            locals.push(local);
        }
    }
    let (ret, ret_by_ref) = if crate::decltype::trailing(f) {
        let this = (first_param > 0).then_some(ThisCx {
            class: id,
            object: Some(LocalId(0)),
            constructing: false,
        });
        let d = crate::decltype::trailing_return(
            ck,
            f,
            &locals,
            first_param,
            restriction,
            this,
            &lookup,
        );
        (d.ty, d.by_ref)
    } else {
        (ret, ret_by_ref)
    };
    let name = match &f.method.special {
        ast::Special::Constructor(_) => format!("{class_name}::{class_name}"),
        _ => format!("{class_name}::{}", f.name.name),
    };
    let func = Function {
        name,
        kind: FunctionKind::Plain,
        restriction,
        params: locals.len() as u32,
        locals,
        ret,
        ret_by_ref,
        body: None,
        stmt_count: 0,
        span: f.name.span,
    };
    // `= default` copy constructors, destructors and assignments are the
    // ones C++ defines implicitly (see `special.rs`).
    let copy_like = constructing
        && func.params == 1
        && func
            .locals
            .first()
            .is_some_and(|p| p.by_ref && p.ty == Type::Struct(id));
    if f.method.defaulted
        && match &f.method.special {
            ast::Special::Destructor => true,
            ast::Special::Constructor(_) => copy_like,
            ast::Special::None => f.name.name == "operator=",
        }
    {
        return None;
    }
    if matches!(f.method.special, ast::Special::Destructor) {
        ck.any_dtor = true;
    }
    let fid = FuncId(ck.program.functions.len() as u32);
    // The defaults read the parameters' locals; copied only when a
    // parameter has a default, not the whole function for every member.
    let has_default = f
        .params
        .iter()
        .any(|p| matches!(p.declarator.init, Some(ast::Init::Assign(_))));
    let params = func.params as usize;
    let param_locals: Vec<Local> = if has_default {
        func.locals.iter().take(params).cloned().collect()
    } else {
        Vec::new()
    };
    ck.program.functions.push(func);
    let class = ck.classes.get_mut(&id)?;
    class.method_access.insert(fid, access);
    if f.method.deleted {
        class.deleted.insert(fid);
    }
    match &f.method.special {
        ast::Special::Constructor(_) => {
            class.ctors.push(fid);
            if f.method.is_explicit {
                class.explicit.insert(fid);
            }
        }
        ast::Special::Destructor => class.dtor = Some(fid),
        ast::Special::None => {
            if is_static {
                class.statics.insert(fid);
            }
            if f.name.name.starts_with("operator ") {
                class.conversions.push((fid, f.method.is_explicit));
            }
            class
                .methods
                .entry(f.name.name.clone())
                .or_default()
                .push(fid);
        }
    }
    if !is_void_list {
        crate::declare::declare_defaults(ck, f, fid, params, &param_locals);
    }
    check_special(ck, id, f, fid);
    Some(fid)
}

/// The forms of special member Tessera does not run yet: refused rather than
/// run wrongly.
fn check_special(ck: &mut Checker, _id: StructId, f: &ast::Function, _fid: FuncId) {
    // A destructor's members are destroyed after its body: a `return` in
    // it would have to run them too.
    if matches!(f.method.special, ast::Special::Destructor)
        && f.body
            .as_ref()
            .is_some_and(|b| b.stmts.iter().any(has_return))
    {
        ck.error(
            codes::E0211,
            f.name.span,
            "`return` in a destructor is not supported yet",
            "destructor",
            "let the body end instead",
        );
    }
}

/// True when statement `s` holds a `return`.
fn has_return(s: &ast::Stmt) -> bool {
    use ast::StmtKind as S;
    match &s.kind {
        S::Return(_) => true,
        S::Block(b) => b.stmts.iter().any(has_return),
        S::If { then, els, .. } => has_return(then) || els.as_deref().is_some_and(has_return),
        S::While { body, .. }
        | S::DoWhile { body, .. }
        | S::Switch { body, .. }
        | S::For { body, .. }
        | S::ForRange { body, .. } => has_return(body),
        S::Labeled { stmt, .. } => has_return(stmt),
        S::Try { body, handlers } => {
            body.stmts.iter().any(has_return)
                || handlers.iter().any(|h| h.body.stmts.iter().any(has_return))
        }
        _ => false,
    }
}

/// Lowers the body of member `fid` of class `id` from its definition `f`.
fn lower_method(ck: &mut Checker, id: StructId, fid: FuncId, f: &ast::Function) {
    // `A() = default;` builds the members as the implicit one would.
    let empty;
    let body = match &f.body {
        Some(b) => b,
        None if f.method.defaulted => {
            empty = ast::Block {
                stmts: Vec::new(),
                span: f.name.span,
                lazy: None,
            };
            &empty
        }
        None => return,
    };
    let parsed = ck.lazy_body(body);
    let body = parsed.as_deref().unwrap_or(body);
    let Some(func) = ck.program.get_function(fid).cloned() else {
        return;
    };
    let constructing = matches!(f.method.special, ast::Special::Constructor(_));
    let is_static = ck
        .classes
        .get(&id)
        .is_some_and(|c| c.statics.contains(&fid));
    let first_param = usize::from(!is_static && !constructing);
    let mut fcx = FnCx::new(ck, func);
    for (i, p) in f.params.iter().enumerate() {
        if let Some(name) = &p.declarator.name {
            fcx.scopes[0].insert(name.name.clone(), LocalId((i + first_param) as u32));
        }
    }
    fcx.this = Some(ThisCx {
        class: id,
        object: (first_param == 1).then_some(LocalId(0)),
        constructing,
    });
    let mut stmts = Vec::new();
    if let ast::Special::Constructor(inits) = &f.method.special {
        stmts = fcx.construct_members(id, inits, f.name.span);
    }
    // While its destructor runs, the object is of this class again.
    if matches!(f.method.special, ast::Special::Destructor) {
        let this = fcx.local_expr(LocalId(0), f.name.span);
        stmts.extend(fcx.set_dynamic_class(this, id, f.name.span));
    }
    fcx.nrvo = crate::special::nrvo_name(body);
    let block = fcx.block(body);
    stmts.extend(block.stmts);
    if matches!(f.method.special, ast::Special::Destructor) {
        stmts.extend(fcx.member_dtors(id, LocalId(0), body.span));
    }
    if let Some(ThisCx {
        object: Some(object),
        constructing: true,
        ..
    }) = fcx.this
    {
        let end = body.span;
        let result = fcx.local_expr(object, end);
        stmts.push(Stmt::new(StmtKind::Return(Some(result)), end));
    }
    let mut func = fcx.func;
    func.body = Some(tessera_ir::Block { stmts });
    *ck.program.function_mut(fid) = func;
}

/// The body of the implicit default constructor of class `id` lowered
/// under restriction `r`, and where its calls may run.
fn lower_default_ctor(
    ck: &mut Checker,
    id: StructId,
    mut func: Function,
    r: Restriction,
    span: Span,
) -> (Function, Restriction) {
    func.restriction = r;
    func.locals.clear();
    func.body = None;
    let mut fcx = FnCx::new(ck, func);
    fcx.this = Some(ThisCx {
        class: id,
        object: None,
        constructing: true,
    });
    let mut stmts = fcx.construct_members(id, &[], span);
    if let Some(object) = fcx.this.as_ref().and_then(|t| t.object) {
        let result = fcx.local_expr(object, span);
        stmts.push(Stmt::new(StmtKind::Return(Some(result)), span));
    }
    let block = tessera_ir::Block { stmts };
    let left = crate::special::calls_restriction(fcx.ck, &block);
    let mut func = fcx.func;
    func.body = Some(block);
    (func, left)
}

/// The definition of a static data member outside its class:
/// `int Counter::made = 0;` (`d` is named `Counter::made`).
pub fn define_static_data(ck: &mut Checker, specs: &ast::DeclSpecs, d: &ast::Declarator) {
    let Some(name) = &d.name else { return };
    let Some((class, member)) = name.name.rsplit_once("::") else {
        return;
    };
    let Some(&id) = ck.structs.get(class) else {
        ck.error(
            codes::E0200,
            name.span,
            format!("cannot find class `{class}`"),
            "not declared",
            "",
        );
        return;
    };
    let waiting = ck
        .classes
        .get_mut(&id)
        .is_some_and(|c| c.undefined_statics.remove(member));
    let declared = ck
        .classes
        .get(&id)
        .and_then(|c| c.static_data.get(member).copied())
        .filter(|_| waiting);
    let Some((old, _)) = declared else {
        ck.report(
            Diagnostic::error(
                codes::E0253,
                name.span,
                format!(
                    "`{member}` is not a static data member of `{class}` waiting for its definition"
                ),
            )
            .with_label("not declared in the class, or already defined")
            .with_msvc("C2039")
            .with_help("declare it `static` in the class, and define it once"),
        );
        return;
    };
    // Checked as a global of its own, whose value then goes to the variable
    // the class declared (which member functions already refer to).
    ck.globals.remove(&name.name);
    crate::declare::declare_globals(ck, specs, std::slice::from_ref(d));
    let defined = ck.globals.insert(name.name.clone(), old);
    if let Some(new) = defined
        && new.0 as usize + 1 == ck.program.globals.len()
        && new != old
        && let Some(g) = ck.program.globals.pop()
    {
        let old_ty = ck.program.get_global(old).map(|o| o.ty.clone());
        if old_ty
            .as_ref()
            .is_some_and(|t| *t != g.ty && !t.is_error() && !g.ty.is_error())
        {
            ck.error(
                codes::E0203,
                name.span,
                format!(
                    "`{}` is defined with another type than its declaration in the class",
                    name.name
                ),
                "different type",
                "use the type of the declaration",
            );
        }
        if let Some(v) = ck.global_consts.remove(&new) {
            ck.global_consts.insert(old, v);
        }
        if let Some(target) = ck.program.globals.get_mut(old.0 as usize) {
            target.init = g.init;
            target.is_const |= g.is_const;
        }
    }
}

/// A member defined outside its class: `float Point::length() const { ... }`.
pub fn define_out_of_class(ck: &mut Checker, f: &ast::Function) {
    // The definition is in its class's scope from the parameters on.
    let class = f
        .class
        .as_ref()
        .and_then(|c| ck.structs.get(&c.name).copied());
    if let Some(id) = class {
        crate::types::enter_class_scope(ck, id);
    }
    define_out_of_class_in(ck, f);
    if class.is_some() {
        crate::types::leave_class_scope(ck);
    }
}

fn define_out_of_class_in(ck: &mut Checker, f: &ast::Function) {
    let Some(class) = &f.class else { return };
    let Some(&id) = ck.structs.get(&class.name) else {
        ck.error(
            codes::E0200,
            class.span,
            format!("cannot find class `{}`", class.name),
            "not declared",
            "define the class before its members",
        );
        return;
    };
    let Some(info) = ck.classes.get(&id) else {
        return;
    };
    let candidates: Vec<FuncId> = match &f.method.special {
        ast::Special::Constructor(_) => info.ctors.clone(),
        ast::Special::Destructor => info.dtor.into_iter().collect(),
        ast::Special::None => info.methods.get(&f.name.name).cloned().unwrap_or_default(),
    };
    // The declaration in the class with the same parameter types.
    let consts = info.static_consts.clone();
    let snapshot = crate::declare::const_snapshot(ck);
    let lookup = move |n: &str| consts.get(n).or_else(|| snapshot.get(n)).copied();
    let before = ck.diags.len();
    let params: Vec<Local> = f
        .params
        .iter()
        .filter(|p| {
            !(f.params.len() == 1
                && matches!(p.specs.ty, ast::BaseType::Builtin(ast::Builtin::Void))
                && p.declarator.name.is_none())
        })
        .map(|p| crate::declare::param_local(ck, p, Space::Host, &lookup))
        .collect();
    // Parameter types were reported with the declaration in the class.
    ck.diags.truncate(before);
    let matching = candidates.iter().copied().find(|fid| {
        ck.program.get_function(*fid).is_some_and(|g| {
            let skip = usize::from(g.locals.first().is_some_and(|l| l.name == "this"));
            let theirs = &g.locals[skip.min(g.locals.len())..(g.params as usize).max(skip)];
            theirs.len() == params.len()
                && theirs.iter().zip(&params).all(|(a, b)| {
                    a.ty == b.ty && a.by_ref == b.by_ref && (!a.by_ref || a.is_const == b.is_const)
                })
                && g.locals
                    .first()
                    .is_none_or(|l| l.name != "this" || l.is_const == f.method.is_const)
        })
    });
    let Some(fid) = matching else {
        ck.report(
            Diagnostic::error(
                codes::E0253,
                f.name.span,
                format!(
                    "`{}` is not a member function of `{}` with these parameters",
                    f.name.name, class.name
                ),
            )
            .with_label("not declared in the class")
            .with_msvc("C2511")
            .with_help("declare it in the class with the same parameters and `const`"),
        );
        return;
    };
    if ck.has_body(fid) {
        ck.error(
            codes::E0202,
            f.name.span,
            format!("`{}::{}` is defined twice", class.name, f.name.name),
            "second definition",
            "",
        );
        return;
    }
    let restriction = crate::declare::restriction(ck, f.restrict.as_ref());
    if let Some(declared) = ck
        .program
        .get_function(fid)
        .map(|g| g.restriction)
        .filter(|r| *r != restriction)
    {
        // MSVC reads the definition as another overload, which shares a
        // side with the declared one (C3935) or is not declared (C2511).
        let overlaps = (declared.amp && restriction.amp) || (declared.cpu && restriction.cpu);
        let msvc = if overlaps { "C3935" } else { "C2511" };
        crate::declare::report_clause_mismatch(ck, f.name.span, msvc);
    }
    lower_method(ck, id, fid, f);
}

/// One step from a class to a member: through base subobject `field`.
type BasePath = Vec<u32>;

impl Checker {
    /// The field `name` of class `id` or of one of its bases (searched in
    /// order, the class first): the path of base fields to its subobject,
    /// the field's position there, its type, its class and access.
    pub fn find_field(
        &self,
        id: StructId,
        name: &str,
    ) -> Option<(BasePath, u32, Type, StructId, Access)> {
        self.find_field_depth(id, name, 0)
    }

    fn find_field_depth(
        &self,
        id: StructId,
        name: &str,
        depth: u32,
    ) -> Option<(BasePath, u32, Type, StructId, Access)> {
        if depth > 64 {
            return None;
        }
        let def = self.program.get_struct(id)?;
        if let Some(i) = def.fields.iter().position(|(n, _)| n == name) {
            let access = self
                .classes
                .get(&id)
                .and_then(|c| c.access.get(i).copied())
                .unwrap_or(Access::Public);
            return Some((Vec::new(), i as u32, def.fields[i].1.clone(), id, access));
        }
        let bases = self
            .classes
            .get(&id)
            .map(|c| c.bases.clone())
            .unwrap_or_default();
        for (i, b) in bases.iter().enumerate() {
            if let Some((mut path, f, ty, owner, access)) =
                self.find_field_depth(*b, name, depth + 1)
            {
                path.insert(0, i as u32);
                return Some((path, f, ty, owner, access));
            }
        }
        None
    }

    /// The member functions named `name` of class `id`, or of its first base
    /// that has some (a name in a class hides the bases' ones): the path to
    /// that class's subobject, the class, the functions.
    pub fn find_methods(
        &self,
        id: StructId,
        name: &str,
    ) -> Option<(BasePath, StructId, Vec<FuncId>)> {
        self.find_methods_depth(id, name, 0)
    }

    fn find_methods_depth(
        &self,
        id: StructId,
        name: &str,
        depth: u32,
    ) -> Option<(BasePath, StructId, Vec<FuncId>)> {
        if depth > 64 {
            return None;
        }
        let info = self.classes.get(&id)?;
        if let Some(ids) = info.methods.get(name) {
            return Some((Vec::new(), id, ids.clone()));
        }
        for (i, b) in info.bases.iter().enumerate() {
            if let Some((mut path, owner, ids)) = self.find_methods_depth(*b, name, depth + 1) {
                path.insert(0, i as u32);
                return Some((path, owner, ids));
            }
        }
        None
    }

    /// The member function that reads (`set` false) or writes property
    /// `name` of class `id`, when `name` is one: a short vector's swizzle
    /// or component alias (`v.xy`, `v.bgr`, `v.r`), for which MSVC's header
    /// declares properties of its `get_`/`set_` members, each swizzle
    /// under its `xyzw` name and its `rgba` one (`rg` is `get_xy`/`set_xy`).
    /// A name the class has as a data member or member function is not a
    /// property.
    pub fn property_accessor(&self, id: StructId, name: &str, set: bool) -> Option<String> {
        const COMPONENTS: &str = "xyzw";
        const COLORS: &str = "rgba";
        // The name's shape first: most members asked about are not
        // swizzles, and this asks nothing of the class.
        if name.is_empty() || name.len() > 4 {
            return None;
        }
        let components: String = if name.chars().all(|c| COMPONENTS.contains(c)) {
            name.to_string()
        } else if name.chars().all(|c| COLORS.contains(c)) {
            name.chars()
                .filter_map(|c| COLORS.find(c).and_then(|i| COMPONENTS.chars().nth(i)))
                .collect()
        } else {
            return None;
        };
        let def = self.program.get_struct(id)?;
        let short_vector = def.name.starts_with("concurrency::graphics::")
            && self.library_files.contains(&def.span.file);
        if !short_vector
            || self.find_field(id, name).is_some()
            || self.find_methods(id, name).is_some()
        {
            return None;
        }
        let accessor = format!("{}_{components}", if set { "set" } else { "get" });
        self.find_methods(id, &accessor).map(|_| accessor)
    }

    /// True when assigning a whole object of class `id` runs user code: a
    /// base or member (at any depth) declares `operator=` (C++'s implicit
    /// assignment calls it).
    pub fn assignment_runs_code(&self, id: StructId) -> bool {
        self.assignment_runs_code_depth(id, 0)
    }

    fn assignment_runs_code_depth(&self, id: StructId, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        if depth > 0
            && self
                .classes
                .get(&id)
                .is_some_and(|c| c.methods.contains_key("operator="))
        {
            return true;
        }
        self.program.get_struct(id).is_some_and(|s| {
            s.fields.iter().any(|(_, t)| {
                let mut t = t;
                while let Type::CArray(inner, _) = t {
                    t = inner;
                }
                matches!(t, Type::Struct(m) if self.assignment_runs_code_depth(*m, depth + 1))
            })
        })
    }

    /// Where the destructor of class `id` may run: the declared one's
    /// restriction, or for the implicit one what all of its bases' and
    /// members' destructors allow; `None` when no destructor runs code.
    pub fn dtor_restriction(&self, id: StructId) -> Option<tessera_ir::Restriction> {
        self.dtor_restriction_depth(id, 0)
    }

    fn dtor_restriction_depth(&self, id: StructId, depth: u32) -> Option<tessera_ir::Restriction> {
        if depth > 64 {
            return None;
        }
        if let Some(d) = self.classes.get(&id).and_then(|c| c.dtor) {
            return self.program.get_function(d).map(|f| f.restriction);
        }
        let mut out: Option<tessera_ir::Restriction> = None;
        for (_, t) in self
            .program
            .get_struct(id)
            .map(|s| s.fields.as_slice())
            .unwrap_or_default()
        {
            let mut t = t;
            while let Type::CArray(inner, _) = t {
                t = inner;
            }
            if let Type::Struct(m) = t
                && let Some(r) = self.dtor_restriction_depth(*m, depth + 1)
            {
                let o = out.get_or_insert(tessera_ir::Restriction {
                    cpu: true,
                    amp: true,
                });
                o.cpu &= r.cpu;
                o.amp &= r.amp;
            }
        }
        out
    }

    /// The name of a `const` data member of class `id` (at any depth, bases
    /// and members included), if it has one: such an object cannot be
    /// assigned as a whole.
    pub fn const_member(&self, id: StructId) -> Option<String> {
        self.const_member_depth(id, 0)
    }

    fn const_member_depth(&self, id: StructId, depth: u32) -> Option<String> {
        if depth > 64 {
            return None;
        }
        let def = self.program.get_struct(id)?;
        let consts = self
            .classes
            .get(&id)
            .map(|c| c.const_fields.clone())
            .unwrap_or_default();
        for (i, (name, t)) in def.fields.iter().enumerate() {
            if consts.get(i).copied().unwrap_or(false) {
                return Some(name.clone());
            }
            let mut t = t;
            while let Type::CArray(inner, _) = t {
                t = inner;
            }
            if let Type::Struct(m) = t
                && let Some(n) = self.const_member_depth(*m, depth + 1)
            {
                return Some(n);
            }
        }
        None
    }

    /// True when `derived` is `base` or derives from it.
    pub fn derives_from(&self, derived: StructId, base: StructId) -> bool {
        let mut todo = vec![(derived, 0u32)];
        while let Some((c, depth)) = todo.pop() {
            if c == base {
                return true;
            }
            if depth < 64
                && let Some(info) = self.classes.get(&c)
            {
                todo.extend(info.bases.iter().map(|b| (*b, depth + 1)));
            }
        }
        false
    }

    /// True when objects of class `id` are made by calling a constructor:
    /// it declares one, or a member or base needs one, or a member has a
    /// default initialiser.
    pub fn needs_construction(&self, id: StructId) -> bool {
        self.needs_construction_depth(id, 0)
    }

    fn needs_construction_depth(&self, id: StructId, depth: u32) -> bool {
        // `<random>` objects: their constructors seed or set parameters.
        if self.random.contains_key(&id) {
            return true;
        }
        let Some(info) = self.classes.get(&id) else {
            return false;
        };
        if !info.ctors.is_empty()
            || info.default_inits.iter().any(Option::is_some)
            || self.program.dynamic.contains_key(&id)
        {
            return true;
        }
        if depth > 64 {
            return false;
        }
        self.program.get_struct(id).is_some_and(|s| {
            s.fields.iter().any(|(_, ty)| match ty {
                Type::Struct(f) => self.needs_construction_depth(*f, depth + 1),
                _ => false,
            })
        })
    }
}

impl Checker {
    /// Reports an object of type `ty` (`what`: "a variable", ...) when it
    /// is an abstract class, or an array of one (E0255, MSVC C2259); true
    /// when it reported.
    pub fn check_not_abstract(&mut self, ty: &Type, span: Span, what: &str) -> bool {
        let mut t = ty;
        while let Type::CArray(inner, _) = t {
            t = inner;
        }
        let Type::Struct(id) = t else {
            return false;
        };
        let Some(info) = self.classes.get(id) else {
            return false;
        };
        let Some(&pure) = info.abstract_because.first() else {
            return false;
        };
        let class = info.name.clone();
        let (name, at) = self
            .program
            .get_function(pure)
            .map(|f| (f.name.clone(), f.span))
            .unwrap_or_default();
        self.report(
            Diagnostic::error(
                codes::E0255,
                span,
                format!("cannot make {what} of abstract class `{class}`: `{name}` is pure virtual and not overridden"),
            )
            .with_label(format!("an object of abstract class `{class}`"))
            .with_secondary(at, "pure virtual function")
            .with_msvc("C2259")
            .with_help(format!(
                "make an object of a class derived from `{class}` that overrides `{name}`, and use `{class}` through a pointer or reference"
            )),
        );
        true
    }

    /// True when class `owner` declares `class` a friend (by its name, or
    /// for an instance of a class template, by the template's name).
    pub(crate) fn is_friend(&self, class: StructId, owner: StructId) -> bool {
        let (Some(c), Some(o)) = (self.classes.get(&class), self.classes.get(&owner)) else {
            return false;
        };
        // The friend is named as written; the class by its flat name
        // (`ns::X<int>`).
        let template = c.name.split('<').next().unwrap_or_default();
        let unqualified = template.rsplit("::").next().unwrap_or_default();
        o.friends
            .iter()
            .any(|f| *f == c.name || f == template || f == unqualified)
    }
}

impl FnCx<'_> {
    /// The class whose members the code being lowered may name freely.
    pub(crate) fn current_class(&self) -> Option<StructId> {
        self.this.as_ref().map(|t| t.class)
    }

    /// Reports naming a member the code here may not (E0250).
    fn check_access(&mut self, owner: StructId, access: Access, what: &str, span: Span) {
        let here = self.current_class();
        let allowed = match access {
            Access::Public => true,
            Access::Private => here == Some(owner),
            Access::Protected => here.is_some_and(|h| self.ck.derives_from(h, owner)),
        } || here.is_some_and(|h| self.ck.is_friend(h, owner));
        if allowed {
            return;
        }
        let class = self
            .ck
            .classes
            .get(&owner)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        let word = if access == Access::Private {
            "private"
        } else {
            "protected"
        };
        self.ck.report(
            Diagnostic::error(codes::E0250, span, format!("{what} is {word} in `{class}`"))
                .with_label(format!("{word} member"))
                .with_msvc("C2248")
                .with_help(format!(
                    "only {} can use it; make it `public`, or add a public member function",
                    if access == Access::Private {
                        format!("`{class}`'s own members")
                    } else {
                        format!("`{class}` and the classes derived from it")
                    }
                )),
        );
    }

    /// `e` converted to its base class `to` when it is an object of a class
    /// derived from it (a place stays a place); otherwise `e` itself.
    pub(crate) fn to_base(&self, e: Expr, to: &Type) -> Expr {
        match (&e.ty, to) {
            // A writing string stream as the `std::ostream` it derives from.
            (Type::StringStream(kind), Type::Ostream | Type::WideOstream)
                if kind.writes() && kind.base() == *to =>
            {
                crate::library::sstream::as_ostream(e)
            }
            // A reading string stream as the `std::istream` it derives from.
            (Type::StringStream(kind), Type::StringStream(_))
                if kind.istream_base().as_ref() == Some(to) =>
            {
                crate::library::sstream::as_base(e, to.clone())
            }
            (Type::Struct(from), Type::Struct(base)) if from != base => {
                match self.base_path(*from, *base) {
                    Some(path) => self.upcast(e, &path),
                    None => e,
                }
            }
            _ => e,
        }
    }

    /// The object `base` seen as its base-class subobject along `path`.
    pub(crate) fn upcast(&self, base: Expr, path: &[u32]) -> Expr {
        let mut e = base;
        for &i in path {
            let Type::Struct(id) = e.ty else { return e };
            let ty = self
                .ck
                .program
                .get_struct(id)
                .and_then(|s| s.fields.get(i as usize))
                .map_or(Type::Error, |f| f.1.clone());
            let (place, span) = (e.place, e.span);
            e = mk(
                ExprKind::Field {
                    base: Box::new(e),
                    field: i,
                },
                ty,
                place,
                span,
            );
        }
        e
    }

    /// An object of type `ty` made here is destroyed here: its destructor
    /// must be able to run in this code (MSVC C3930).
    pub(crate) fn check_destructible_here(&mut self, ty: &Type, span: Span) {
        let mut t = ty;
        while let Type::CArray(inner, _) = t {
            t = inner;
        }
        let Type::Struct(id) = t else { return };
        let Some(r) = self.ck.dtor_restriction(*id) else {
            return;
        };
        let here = self.restriction();
        let fits = (!here.amp || r.amp) && (!here.cpu || r.cpu);
        if fits {
            return;
        }
        let name = self
            .ck
            .classes
            .get(id)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        let (code, only) = if r.amp {
            (codes::E0301, "in amp code")
        } else {
            (codes::E0300, "on the host")
        };
        self.ck.report(
            Diagnostic::error(
                code,
                span,
                format!("the destructor of `{name}` runs only {only}, but the object is destroyed here"),
            )
            .with_label("object made here")
            .with_msvc("C3930")
            .with_help(format!(
                "give `{name}`'s destructor (or its members' and bases' destructors) the restriction of this code"
            )),
        );
    }

    /// `obj.name` for a data member of a class (its bases included), with
    /// the access check; `None` when the class has no such data member.
    pub(crate) fn class_field(
        &mut self,
        base: Expr,
        id: StructId,
        name: &ast::Ident,
        span: Span,
    ) -> Option<Expr> {
        let (path, field, ty, owner, access) = self.ck.find_field(id, &name.name)?;
        self.check_access(owner, access, &format!("`{}`", name.name), name.span);
        let base = self.upcast(base, &path);
        let place = base.place;
        Some(mk(
            ExprKind::Field {
                base: Box::new(base),
                field,
            },
            ty,
            place,
            span,
        ))
    }

    /// The object of the member function being lowered, as a place.
    pub(crate) fn this_object(&mut self, span: Span) -> Option<Expr> {
        let object = self.this.as_ref()?.object?;
        Some(self.local_expr(object, span))
    }

    /// A name inside a member function that names a member of its class:
    /// a data member of the object, or a static data member.
    pub(crate) fn class_member_name(&mut self, name: &str, span: Span) -> Option<Expr> {
        let class = self.current_class()?;
        let ident = ast::Ident {
            name: name.to_string(),
            span,
        };
        if self.ck.find_field(class, name).is_some() {
            let Some(object) = self.this_object(span) else {
                self.ck.error(
                    codes::E0200,
                    span,
                    format!(
                        "`{name}` is a data member, and a static member function has no object"
                    ),
                    "no object here",
                    "pass the object as a parameter",
                );
                return Some(error_expr(span));
            };
            return self.class_field(object, class, &ident, span);
        }
        self.static_member(class, name, span)
    }

    /// `Class::name` for a static data member (also found through the bases).
    pub(crate) fn static_member(
        &mut self,
        class: StructId,
        name: &str,
        span: Span,
    ) -> Option<Expr> {
        let mut todo = vec![class];
        let mut seen = 0;
        while let Some(c) = todo.pop() {
            seen += 1;
            if seen > 64 {
                return None;
            }
            let info = self.ck.classes.get(&c)?;
            if let Some(&(gid, access)) = info.static_data.get(name) {
                self.check_access(c, access, &format!("`{name}`"), span);
                if let Some(v) = self.ck.global_consts.get(&gid) {
                    let ty = self
                        .ck
                        .program
                        .get_global(gid)
                        .map_or(Type::INT, |g| g.ty.clone());
                    return Some(mk(
                        ExprKind::Const(tessera_ir::Const::Int(*v)),
                        ty,
                        false,
                        span,
                    ));
                }
                return Some(self.global(gid, span));
            }
            todo.extend(info.bases.iter().copied());
        }
        None
    }

    /// `obj.name(args)` for a member function of `obj`'s class.
    pub(crate) fn method_call(
        &mut self,
        object: Expr,
        id: StructId,
        name: &ast::Ident,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        self.method_call_with(object, id, name, None, args, span)
    }

    /// `object.name<template_args>(args)`: the class's member functions of
    /// that name and the instances of its member templates that take the
    /// arguments (only those, when template arguments are written).
    pub(crate) fn method_call_with(
        &mut self,
        object: Expr,
        id: StructId,
        name: &ast::Ident,
        template_args: Option<&[ast::TemplateArg]>,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let instances = self.member_template_instances(id, &name.name, template_args, &args, span);
        let found = self.ck.find_methods(id, &name.name);
        let (path, owner, ids) = match found {
            Some((path, owner, mut ids)) if template_args.is_none() || owner == id => {
                if template_args.is_some() {
                    ids.clear();
                }
                if owner == id {
                    ids.extend(instances);
                }
                (path, owner, ids)
            }
            _ if !instances.is_empty() => (Vec::new(), id, instances),
            _ => {
                let has_templates = self
                    .ck
                    .classes
                    .get(&id)
                    .is_some_and(|c| c.member_templates.contains_key(&name.name));
                if !has_templates {
                    return None;
                }
                let shown: Vec<String> = args.iter().map(|a| self.ck.show(&a.ty)).collect();
                let class = self.ck.show(&Type::Struct(id));
                self.ck.report(
                    Diagnostic::error(
                        codes::E0240,
                        span,
                        format!(
                            "no instance of member template `{class}::{}` takes ({})",
                            name.name,
                            shown.join(", ")
                        ),
                    )
                    .with_label("template arguments cannot be deduced from these arguments")
                    .with_msvc("C2783")
                    .with_help(format!(
                        "give the template arguments: `obj.{}<...>(...)`",
                        name.name
                    )),
                );
                return Some(error_expr(span));
            }
        };
        let object = self.upcast(object, &path);
        let class = self
            .ck
            .classes
            .get(&owner)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        Some(self.call_members_as(
            Some(object),
            (owner, &class),
            &name.name,
            &ids,
            args,
            true,
            span,
        ))
    }

    /// An unqualified call inside a member function of a member function of
    /// its class: `helper(x)` is `this->helper(x)`.
    pub(crate) fn implicit_method_call(
        &mut self,
        name: &str,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let class = self.current_class()?;
        let has_templates = self
            .ck
            .classes
            .get(&class)
            .is_some_and(|c| c.member_templates.contains_key(name));
        if has_templates {
            let object = self.this_object(span)?;
            let ident = ast::Ident {
                name: name.to_string(),
                span,
            };
            return self.method_call_with(object, class, &ident, None, args, span);
        }
        let (path, owner, ids) = self.ck.find_methods(class, name)?;
        let object = self.this_object(span).map(|o| self.upcast(o, &path));
        let class_name = self
            .ck
            .classes
            .get(&owner)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        Some(self.call_members_as(object, (owner, &class_name), name, &ids, args, true, span))
    }

    /// `Class::name(args)`: a static member function, or (inside a member
    /// of a derived class) a base's member function called on this object.
    /// The class a name denotes before `::`: a type alias or template type
    /// parameter bound to a class (`T::make()`), else a class of that name.
    pub(crate) fn class_named(&self, name: &str) -> Option<StructId> {
        match self.ck.alias(name) {
            Some(Type::Struct(id)) => Some(*id),
            Some(_) => None,
            None => self.ck.structs.get(name).copied(),
        }
    }

    pub(crate) fn qualified_method_call(
        &mut self,
        class: StructId,
        name: &str,
        template_args: Option<&[ast::TemplateArg]>,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        // The class's own member templates beside its member functions, as
        // for a call on an object (`method_call_with`).
        let instances = self.member_template_instances(class, name, template_args, &args, span);
        let (path, owner, ids) = match self.ck.find_methods(class, name) {
            Some((path, owner, mut ids)) if template_args.is_none() || owner == class => {
                if template_args.is_some() {
                    ids.clear();
                }
                if owner == class {
                    ids.extend(instances);
                }
                (path, owner, ids)
            }
            _ if !instances.is_empty() => (Vec::new(), class, instances),
            _ => {
                let has_templates = self
                    .ck
                    .classes
                    .get(&class)
                    .is_some_and(|c| c.member_templates.contains_key(name));
                if !has_templates {
                    return None;
                }
                let shown: Vec<String> = args.iter().map(|a| self.ck.show(&a.ty)).collect();
                let class = self.ck.show(&Type::Struct(class));
                self.ck.report(
                    Diagnostic::error(
                        codes::E0240,
                        span,
                        format!(
                            "no instance of member template `{class}::{name}` takes ({})",
                            shown.join(", ")
                        ),
                    )
                    .with_label("template arguments cannot be deduced from these arguments")
                    .with_msvc("C2783")
                    .with_help(format!(
                        "give the template arguments: `{class}::{name}<...>(...)`"
                    )),
                );
                return Some(error_expr(span));
            }
        };
        let object = match self.current_class() {
            Some(here) if self.ck.derives_from(here, class) => {
                let to_class = self.base_path(here, class);
                match (self.this_object(span), to_class) {
                    (Some(o), Some(mut steps)) => {
                        steps.extend(path);
                        Some(self.upcast(o, &steps))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let class_name = self
            .ck
            .classes
            .get(&owner)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        Some(self.call_members(object, owner, &class_name, name, &ids, args, span))
    }

    /// The path of base fields from class `from` to its base `to`.
    pub(crate) fn base_path(&self, from: StructId, to: StructId) -> Option<BasePath> {
        if from == to {
            return Some(Vec::new());
        }
        let info = self.ck.classes.get(&from)?;
        for (i, b) in info.bases.iter().enumerate() {
            if self.ck.derives_from(*b, to)
                && let Some(mut rest) = self.base_path(*b, to)
            {
                rest.insert(0, i as u32);
                return Some(rest);
            }
        }
        None
    }

    /// Calls one of the member functions `ids` of class `owner`, on
    /// `object` (`None`: no object, so only static members fit); a call of
    /// a virtual function is not virtual (`Class::f()`).
    #[allow(clippy::too_many_arguments)]
    fn call_members(
        &mut self,
        object: Option<Expr>,
        owner: StructId,
        class: &str,
        name: &str,
        ids: &[FuncId],
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        self.call_members_as(object, (owner, class), name, ids, args, false, span)
    }

    /// `call_members`, the call of a virtual function made virtual when
    /// `dispatch` (a call through an object, not `Class::f()`): it runs
    /// the final overrider in the object's dynamic class.
    #[allow(clippy::too_many_arguments)]
    fn call_members_as(
        &mut self,
        object: Option<Expr>,
        (owner, class): (StructId, &str),
        name: &str,
        ids: &[FuncId],
        args: Vec<Expr>,
        dispatch: bool,
        span: Span,
    ) -> Expr {
        let statics: Vec<FuncId> = ids
            .iter()
            .copied()
            .filter(|f| {
                self.ck
                    .classes
                    .get(&owner)
                    .is_some_and(|c| c.statics.contains(f))
            })
            .collect();
        let path = ast::Path {
            global: false,
            segments: vec![ast::Ident {
                name: format!("{class}::{name}"),
                span,
            }],
            span,
        };
        let chosen = if statics.len() == ids.len() {
            self.call_user(&path, ids, args, span, false)
        } else {
            let Some(object) = object else {
                self.ck.error(
                    codes::E0200,
                    span,
                    format!("`{class}::{name}` needs an object, and there is none here"),
                    "called without an object",
                    "call it on an object: `obj.f()`",
                );
                return error_expr(span);
            };
            let members: Vec<FuncId> = ids
                .iter()
                .copied()
                .filter(|f| !statics.contains(f))
                .collect();
            let mut all = vec![object];
            all.extend(args);
            self.call_user(&path, &members, all, span, true)
        };
        if let ExprKind::Call { func, .. } = &chosen.kind {
            self.check_member_use(owner, *func, &format!("`{class}::{name}`"), span);
        }
        let is_virtual = |f: &FuncId| {
            self.ck
                .classes
                .get(&owner)
                .is_some_and(|c| c.virtuals.contains(f))
        };
        match chosen.kind {
            ExprKind::Call { func, args } if dispatch && is_virtual(&func) => Expr {
                kind: ExprKind::VirtualCall { func, args },
                ..chosen
            },
            kind => Expr { kind, ..chosen },
        }
    }

    /// The rules for calling member `func` of class `owner` (`what` names
    /// it): its access (E0250) and `= delete`.
    fn check_member_use(&mut self, owner: StructId, func: FuncId, what: &str, span: Span) {
        let (access, deleted) = self
            .ck
            .classes
            .get(&owner)
            .map_or((Access::Public, false), |c| {
                (
                    c.method_access
                        .get(&func)
                        .copied()
                        .unwrap_or(Access::Public),
                    c.deleted.contains(&func),
                )
            });
        self.check_access(owner, access, what, span);
        if deleted {
            self.ck.error(
                codes::E0211,
                span,
                format!("{what} is deleted"),
                "call of a deleted function",
                "",
            );
        }
    }

    /// An object of class `id` built from `args` by a constructor, or by
    /// the implicit default constructor when there are none and no
    /// arguments; `None` when the class is built without one (an aggregate).
    pub(crate) fn construct_object(
        &mut self,
        id: StructId,
        args: Vec<Expr>,
        copy_init: bool,
        span: Span,
    ) -> Option<Expr> {
        // Copy-initialisation from one value of another type is a
        // user-defined conversion: the constructor's argument is then
        // converted without another (see `FnCx::converting`).
        let conversion = copy_init
            && matches!(args.as_slice(), [one] if !matches!(one.ty,
                Type::Struct(from) if from == id || self.ck.derives_from(from, id)));
        let outer = self.converting;
        self.converting |= conversion;
        let built = self.construct_object_with(id, args, copy_init, span);
        self.converting = outer;
        built
    }

    /// [`FnCx::construct_object`], the conversion rule applied.
    fn construct_object_with(
        &mut self,
        id: StructId,
        args: Vec<Expr>,
        copy_init: bool,
        span: Span,
    ) -> Option<Expr> {
        if self.ck.random.contains_key(&id) {
            return Some(crate::library::random::construct(self, id, args, span));
        }
        let as_base = std::mem::take(&mut self.building_base);
        if !as_base
            && self
                .ck
                .check_not_abstract(&Type::Struct(id), span, "an object")
        {
            return Some(error_expr(span));
        }
        // Constructor templates (`template <class U> Box(const Box<U>&)`):
        // the instances that take these arguments join the constructors,
        // as candidates like any other.
        let ctor_templates: Vec<String> = self
            .ck
            .classes
            .get(&id)?
            .member_templates
            .iter()
            .filter(|(_, ts)| {
                ts.iter().any(|t| {
                    matches!(&t.def.item.kind, ast::ItemKind::Function(f)
                        if matches!(f.method.special, ast::Special::Constructor(_)))
                })
            })
            .map(|(name, _)| name.clone())
            .collect();
        if !args.is_empty() {
            for template in ctor_templates {
                self.member_template_instances(id, &template, None, &args, span);
            }
        }
        let info = self.ck.classes.get(&id)?;
        let name = info.name.clone();
        if info.ctors.is_empty() {
            if !args.is_empty() || !self.ck.needs_construction(id) {
                return None;
            }
            let ctor = self.implicit_default_ctor(id, span)?;
            let restriction = self
                .ck
                .program
                .get_function(ctor)
                .map(|f| (f.restriction, f.span));
            if let Some((r, at)) = restriction
                && !r.cpu
                && !r.amp
            {
                self.ck.report(
                    Diagnostic::error(
                        codes::E0251,
                        span,
                        format!("`{name}` has no default constructor: those of its bases and members run in no common context"),
                    )
                    .with_label("needs a default constructor")
                    .with_secondary(at, "class")
                    .with_msvc("C2512")
                    .with_help("give the bases' and members' default constructors (and destructors) a restriction in common"),
                );
                return Some(error_expr(span));
            }
            if let Some((r, at)) = restriction {
                let path = ast::Path {
                    global: false,
                    segments: vec![ast::Ident {
                        name: format!("{name}::{name}"),
                        span,
                    }],
                    span,
                };
                self.check_call_restriction(&path, r, at, span);
            }
            return Some(mk(
                ExprKind::Call {
                    func: ctor,
                    args: Vec::new(),
                },
                Type::Struct(id),
                false,
                span,
            ));
        }
        let ctors = info.ctors.clone();
        let explicit = info.explicit.clone();
        // `Base b(derived)`: the copy of the base subobject (sliced).
        let mut args = args;
        if let [one] = args.as_slice()
            && let Type::Struct(src) = one.ty
            && src != id
            && self.ck.derives_from(src, id)
            && let Some(one) = args.pop()
        {
            args.push(self.to_base(one, &Type::Struct(id)));
        }
        // `X b(a)` with `a` an `X`: the implicit copy constructor, unless
        // the class declares its own.
        let copies = |c: FuncId| {
            self.ck.program.get_function(c).is_some_and(|f| {
                f.params >= 1
                    && f.locals.first().is_some_and(|l| l.ty == Type::Struct(id))
                    && f.params as usize <= 1 + self.defaulted_count(c)
            })
        };
        if let [one] = args.as_slice()
            && one.ty == Type::Struct(id)
            && !ctors.iter().any(|c| copies(*c))
        {
            return args.into_iter().next().map(|one| Expr {
                place: false,
                ..one
            });
        }
        if args.is_empty()
            && !ctors.iter().any(|c| {
                self.ck
                    .program
                    .get_function(*c)
                    .is_some_and(|f| f.params as usize <= self.defaulted_count(*c))
            })
        {
            let mut d = Diagnostic::error(
                codes::E0251,
                span,
                format!("`{name}` has no default constructor"),
            )
            .with_label("needs constructor arguments")
            .with_msvc("C2512")
            .with_help(format!(
                "pass the arguments of one of `{name}`'s constructors, or declare `{name}()`"
            ));
            for c in &ctors {
                if let Some(f) = self.ck.program.get_function(*c) {
                    d = d.with_secondary(f.span, "a constructor");
                }
            }
            self.ck.report(d);
            return Some(error_expr(span));
        }
        let path = ast::Path {
            global: false,
            segments: vec![ast::Ident {
                name: format!("{name}::{name}"),
                span,
            }],
            span,
        };
        let call = self.call_user(&path, &ctors, args, span, false);
        if let ExprKind::Call { func, .. } = &call.kind {
            let func = *func;
            if copy_init && explicit.contains(&func) {
                self.ck.error(
                    codes::E0203,
                    span,
                    format!("the constructor of `{name}` chosen here is `explicit`"),
                    "implicit conversion",
                    format!("write `{name}(...)` to call it explicitly"),
                );
            }
            self.check_member_use(id, func, &format!("this constructor of `{name}`"), span);
        }
        Some(call)
    }

    /// How many trailing parameters of `id` have a default argument.
    pub(crate) fn defaulted_count(&self, id: FuncId) -> usize {
        self.ck.defaults.get(&id).map_or(0, |d| {
            d.iter().rev().take_while(|slot| slot.is_some()).count()
        })
    }

    /// The default constructor C++ defines for a class that declares none but
    /// needs one (a member with a constructor or a default initialiser).
    fn implicit_default_ctor(&mut self, id: StructId, span: Span) -> Option<FuncId> {
        if let Some(f) = self.ck.classes.get(&id).and_then(|c| c.implicit_ctor) {
            return Some(f);
        }
        let name = self.ck.classes.get(&id)?.name.clone();
        let func = Function {
            name: format!("{name}::{name}"),
            kind: FunctionKind::Plain,
            restriction: Restriction {
                cpu: true,
                amp: true,
            },
            params: 0,
            locals: Vec::new(),
            ret: Type::Struct(id),
            ret_by_ref: false,
            body: None,
            stmt_count: 0,
            span: self.ck.program.get_struct(id).map_or(span, |s| s.span),
        };
        let fid = crate::declare::reserve_function(self.ck, func.clone());
        if let Some(c) = self.ck.classes.get_mut(&id) {
            c.implicit_ctor = Some(fid);
        }
        // Lowered for both contexts, then (when what it calls runs in one
        // only) again for that one, so that calls overloaded on `restrict`
        // resolve for it; what it cannot call is reported at its uses.
        let before = self.ck.diags.len();
        let both = Restriction {
            cpu: true,
            amp: true,
        };
        let (mut func, mut restriction) = lower_default_ctor(self.ck, id, func, both, span);
        if let Some(d) = self.ck.classes.get(&id).and_then(|c| c.dtor)
            && let Some(f) = self.ck.program.get_function(d)
        {
            restriction.cpu &= f.restriction.cpu;
            restriction.amp &= f.restriction.amp;
        }
        if restriction != both && (restriction.cpu || restriction.amp) {
            // The first lowering's reports were for a context it does not run in.
            self.ck.diags.truncate(before);
            func = lower_default_ctor(self.ck, id, func, restriction, span).0;
        }
        crate::special::drop_restriction_errors(self.ck, before);
        func.restriction = restriction;
        *self.ck.program.function_mut(fid) = func;
        Some(fid)
    }

    /// The start of a constructor of class `id`: declares the object `this`
    /// and initialises its bases and members in declaration order.
    fn construct_members(
        &mut self,
        id: StructId,
        inits: &[ast::MemberInit],
        span: Span,
    ) -> Vec<Stmt> {
        let space = self.local_space();
        let object = self.declare(Local {
            name: String::new(),
            ty: Type::Struct(id),
            by_ref: false,
            is_const: false,
            space,
            span,
        });
        if let Some(t) = &mut self.this {
            t.object = Some(object);
        }
        let mut stmts = vec![Stmt::new(
            StmtKind::Let {
                local: object,
                init: Some(tessera_ir::Init::Zero),
            },
            span,
        )];
        let fields = self.ck.struct_fields(id);
        // Only the class's bases, default initialisers and name: a copy of
        // its whole `ClassInfo` (every member's overloads) per constructor
        // lowered was most of this function's cost for the library's short
        // vector classes.
        let (info_bases, info_default_inits, info_name) = self
            .ck
            .classes
            .get(&id)
            .map(|c| (c.bases.clone(), c.default_inits.clone(), c.name.clone()))
            .unwrap_or_default();
        let mut used = vec![false; inits.len()];
        // A union's constructor makes one member at most: the one named.
        let is_union = self.ck.is_union(&Type::Struct(id));
        let mut class_set = false;
        for (i, (fname, fty)) in fields.iter().enumerate() {
            // Once the bases are built, the object is of this class (for
            // the virtual calls of member initialisers and the body).
            if i >= info_bases.len() && !class_set {
                class_set = true;
                let target = self.local_expr(object, span);
                stmts.extend(self.set_dynamic_class(target, id, span));
            }
            if fname == tessera_ir::DYNAMIC_CLASS_FIELD {
                continue;
            }
            let base_name = info_bases
                .get(i)
                .and_then(|b| self.ck.classes.get(b))
                .map(|c| c.name.clone());
            // A base is named as written in scope: `Base`, `ns::Base`, or
            // unqualified inside its namespace.
            let names_base = |m: &ast::MemberInit| {
                base_name.as_ref().is_some_and(|b| {
                    *b == m.name.name || b.ends_with(&format!("::{}", m.name.name))
                })
            };
            let written = inits
                .iter()
                .position(|m| names_base(m) || (base_name.is_none() && &m.name.name == fname));
            let outer_building = self.building_base;
            self.building_base = i < info_bases.len();
            let value = match written {
                Some(k) => {
                    used[k] = true;
                    let m = &inits[k];
                    self.member_value(fty, &m.args, m.braces, fname, m.span)
                }
                None => match info_default_inits.get(i).cloned().flatten() {
                    Some(init) => self.default_member_value(fty, &init, fname, span),
                    None => match fty {
                        Type::Struct(c) if !is_union => {
                            self.construct_object(*c, Vec::new(), false, span)
                        }
                        _ => None,
                    },
                },
            };
            self.building_base = outer_building;
            let Some(value) = value else { continue };
            let target = self.local_expr(object, span);
            let target = mk(
                ExprKind::Field {
                    base: Box::new(target),
                    field: i as u32,
                },
                fty.clone(),
                true,
                span,
            );
            let assign = mk(
                ExprKind::Assign {
                    target: Box::new(target),
                    value: Box::new(value),
                },
                fty.clone(),
                true,
                span,
            );
            stmts.push(Stmt::new(StmtKind::Expr(assign), span));
        }
        if !class_set {
            let target = self.local_expr(object, span);
            stmts.extend(self.set_dynamic_class(target, id, span));
        }
        for (k, m) in inits.iter().enumerate() {
            if !used[k] {
                self.ck.error(
                    codes::E0207,
                    m.name.span,
                    format!(
                        "`{}` is not a member or direct base of `{}`",
                        m.name.name, info_name
                    ),
                    "unknown member",
                    "",
                );
            }
        }
        stmts
    }

    /// For an object of a polymorphic class `id` (a place): the statement
    /// making its dynamic class `id` (see `tessera_ir::DynamicClass`).
    pub(crate) fn set_dynamic_class(
        &mut self,
        object: Expr,
        id: StructId,
        span: Span,
    ) -> Option<Stmt> {
        dynamic_class_assignment(self.ck, object, id, span)
    }

    /// The value a member initialiser `name(args)` gives a member of type `ty`.
    fn member_value(
        &mut self,
        ty: &Type,
        args: &[ast::Expr],
        braces: bool,
        name: &str,
        span: Span,
    ) -> Option<Expr> {
        // The flag is for this object, not for those its arguments make.
        let as_base = std::mem::take(&mut self.building_base);
        match ty {
            Type::Struct(c) if self.ck.needs_construction(*c) => {
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                if let [one] = lowered.as_slice()
                    && one.ty == *ty
                    && self.ck.user_copy_ctors(*c).is_empty()
                {
                    return lowered.into_iter().next().map(|e| self.copied(e));
                }
                self.building_base = as_base;
                self.construct_object(*c, lowered, false, span)
            }
            Type::Struct(_) | Type::CArray(..) => {
                let mut t = ty.clone();
                if let [one] = args
                    && !braces
                {
                    let e = self.expr(one);
                    let e = self.coerce(e, ty, &format!("member `{name}`"));
                    return Some(self.copied(e));
                }
                let init = self.aggregate(&mut t, args, span);
                match init {
                    Some(tessera_ir::Init::Zero) | None if args.is_empty() => None,
                    init => Some(self.init_as_expr(init, &t, span)),
                }
            }
            // `next(nullptr)`, `left(l)`; `p()` value-initialises: null.
            Type::Ptr { .. } | Type::FnPtr(_) if args.len() <= 1 => {
                let e = match args {
                    [one] => self.expr(one),
                    _ => self.null_pointer(span),
                };
                Some(self.coerce(e, ty, &format!("member `{name}`")))
            }
            Type::Scalar(_) => match args {
                [] => None,
                [one] => {
                    let e = self.expr(one);
                    Some(self.coerce(e, ty, &format!("member `{name}`")))
                }
                _ => {
                    self.ck.error(
                        codes::E0206,
                        span,
                        format!("member `{name}` is initialised from one value"),
                        "too many values",
                        "",
                    );
                    None
                }
            },
            _ => {
                let lowered: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect();
                if let Type::Array(..) = ty
                    && self.in_amp()
                {
                    self.ck.report(
                        Diagnostic::error(
                            codes::E0300,
                            span,
                            format!("member `{name}`, a `concurrency::array`, cannot be copied in amp code"),
                        )
                        .with_label("copies an `array`")
                        .with_msvc("C3930")
                        .with_help("an `array`'s copy constructor runs only on the host; keep an `array_view` member instead"),
                    );
                    return None;
                }
                if let [one] = lowered.as_slice()
                    && (one.ty == *ty || one.ty.is_error())
                {
                    return lowered.into_iter().next();
                }
                Some(crate::library::construct(self, ty, lowered, span))
            }
        }
    }

    /// The value of a default member initialiser (`int n = 4;`, `P p{1, 2};`).
    pub(crate) fn default_member_value(
        &mut self,
        ty: &Type,
        init: &ast::Init,
        name: &str,
        span: Span,
    ) -> Option<Expr> {
        match init {
            ast::Init::Assign(e) => match &e.kind {
                ast::ExprKind::InitList(items) => self.member_value(ty, items, true, name, span),
                _ => {
                    let v = self.expr(e);
                    match ty {
                        Type::Struct(c) if v.ty != *ty && self.ck.needs_construction(*c) => {
                            self.construct_object(*c, vec![v], true, span)
                        }
                        _ => {
                            let v = self.coerce(v, ty, &format!("member `{name}`"));
                            Some(self.copied(v))
                        }
                    }
                }
            },
            ast::Init::Brace(items) => self.member_value(ty, items, true, name, span),
            ast::Init::Paren(items) => self.member_value(ty, items, false, name, span),
        }
    }

    /// `a @ b` (or `@a`, with `operands` of one) where an operand is a class
    /// object: a call of `operator@`, a member of the first operand's class
    /// or a free function. `None` when no such operator is declared.
    pub(crate) fn user_operator(
        &mut self,
        symbol: &str,
        operands: Vec<Expr>,
        span: Span,
    ) -> Result<Expr, Vec<Expr>> {
        let name = format!("operator{symbol}");
        let mut members: Vec<FuncId> = Vec::new();
        let mut object = None;
        if let Some(Expr {
            ty: Type::Struct(id),
            ..
        }) = operands.first()
            && let Some((path, _, ids)) = self.ck.find_methods(*id, &name)
        {
            members = ids;
            object = Some(path);
        }
        let mut free: Vec<FuncId> = self.ck.functions.get(&name).cloned().unwrap_or_default();
        // `using ns::operator<<;` in an enclosing block.
        for used in &self.ck.used_operators {
            if used.rsplit("::").next() == Some(name.as_str())
                && let Some(ids) = self.ck.functions.get(used)
            {
                free.extend(
                    ids.iter()
                        .filter(|id| !free.contains(id))
                        .copied()
                        .collect::<Vec<_>>(),
                );
            }
        }
        // Operators declared in a namespace are found through the operands'
        // classes (argument-dependent lookup: the namespace each class is
        // declared in) and through `using namespace` directives in force.
        let mut scopes: Vec<String> = self.ck.using_namespaces.clone();
        for operand in &operands {
            // The standard containers live in `std`, whose operators
            // (`==` of two vectors) argument-dependent lookup finds.
            if matches!(operand.ty, Type::Vector(_)) && !scopes.iter().any(|s| s == "std") {
                scopes.push("std".to_string());
            }
            if let Type::Struct(_) = operand.ty {
                let shown = self.ck.show(&operand.ty);
                let plain = shown.split('<').next().unwrap_or_default();
                if let Some((ns, _)) = plain.rsplit_once("::") {
                    scopes.push(ns.to_string());
                }
            }
        }
        // Operator templates (`template <class A, class B> bool
        // operator<(const pair<A, B>&, const pair<A, B>&)`) are looked up in
        // the same scopes.
        let mut template_names: Vec<String> = Vec::new();
        if self.is_function_template(&name) {
            template_names.push(name.clone());
        }
        for ns in scopes {
            let qualified = format!("{ns}::{name}");
            if self.is_function_template(&qualified) && !template_names.contains(&qualified) {
                template_names.push(qualified.clone());
            }
            for id in self
                .ck
                .functions
                .get(&qualified)
                .cloned()
                .unwrap_or_default()
            {
                if !free.contains(&id) {
                    free.push(id);
                }
            }
        }
        if members.is_empty() && !template_names.is_empty() {
            // The first scope whose templates take the operands; an
            // operator no template takes is C++'s built-in one, or none.
            for template in &template_names {
                let before = self.ck.diags.len();
                let path = ast::Path {
                    global: false,
                    segments: vec![ast::Ident {
                        name: template.clone(),
                        span,
                    }],
                    span,
                };
                let call = self.call_templates(&path, &free, None, operands.clone(), span);
                if !call.ty.is_error() || self.ck.diags.len() == before {
                    return Ok(call);
                }
                self.ck.diags.truncate(before);
            }
        }
        if members.is_empty() && free.is_empty() {
            return Err(operands);
        }
        // C++'s built-in operator is a candidate too: when no `operator@`
        // can take the operands, not even through a converting constructor
        // or a conversion function, the operands' conversions to numbers
        // reach it (`n * 2.0f` of a `norm` beside `norm * norm`).
        if object.is_none() && !self.any_operator_may_take(&free, &operands) {
            return Err(operands);
        }
        let mut operands = operands;
        if let Some(path) = object
            && !path.is_empty()
            && !operands.is_empty()
        {
            let first = operands.remove(0);
            operands.insert(0, self.upcast(first, &path));
        }
        let mut all = members;
        all.extend(free);
        let path = ast::Path {
            global: false,
            segments: vec![ast::Ident { name, span }],
            span,
        };
        Ok(self.call_user(&path, &all, operands, span, true))
    }

    /// Whether one of the operator functions `candidates` may take
    /// `operands`: through a standard conversion, or possibly through one
    /// user-defined conversion (a non-`explicit` constructor of a class
    /// parameter, or a non-`explicit` conversion function of a class
    /// operand, that could start or end at the types at hand). It errs
    /// toward "may": only a `false` lets the built-in operator be chosen.
    fn any_operator_may_take(&self, candidates: &[FuncId], operands: &[Expr]) -> bool {
        candidates.iter().any(|id| {
            let Some(f) = self.ck.program.get_function(*id) else {
                return true;
            };
            // An operator function takes exactly its operands (no defaults).
            if f.params as usize != operands.len() {
                return false;
            }
            f.locals
                .iter()
                .zip(operands)
                .all(|(p, a)| self.may_convert(&a.ty, p))
        })
    }

    /// Whether a value of type `from` may initialise parameter `p` (see
    /// `any_operator_may_take`).
    fn may_convert(&self, from: &Type, p: &tessera_ir::Local) -> bool {
        let arg = crate::overload::Arg {
            ty: from,
            modifiable_lvalue: false,
            lvalue: false,
        };
        let param = crate::overload::Param {
            ty: &p.ty,
            by_ref: p.by_ref,
            is_const: true,
            rvalue_ref: false,
        };
        if crate::overload::sequence(arg, param).is_some() {
            return true;
        }
        // A non-const reference to a base binds an object of a derived
        // class (a string stream to `std::ostream&`): erring toward "may",
        // the operand is taken as a modifiable lvalue.
        let as_lvalue = crate::overload::Arg {
            ty: from,
            modifiable_lvalue: true,
            lvalue: true,
        };
        let non_const = crate::overload::Param {
            ty: &p.ty,
            by_ref: p.by_ref,
            is_const: false,
            rvalue_ref: false,
        };
        if p.by_ref && crate::overload::sequence(as_lvalue, non_const).is_some() {
            return true;
        }
        if let Type::Struct(pid) = p.ty {
            let Some(info) = self.ck.classes.get(&pid) else {
                return true;
            };
            let by_ctor = info.ctors.iter().any(|c| {
                if info.explicit.contains(c) {
                    return false;
                }
                let Some(ctor) = self.ck.program.get_function(*c) else {
                    return true;
                };
                // Only a constructor callable with one argument converts.
                let defaults = self.defaulted_count(*c);
                match ctor.locals.first().map(|l| &l.ty) {
                    _ if ctor.params == 0 || ctor.params as usize > 1 + defaults => false,
                    Some(Type::Struct(t)) => match from {
                        Type::Struct(o) => {
                            o == t || self.ck.classes.get(o).is_none_or(|c| !c.bases.is_empty())
                        }
                        _ => false,
                    },
                    Some(_) => !matches!(from, Type::Struct(_)),
                    None => true,
                }
            });
            if by_ctor {
                return true;
            }
        }
        if let Type::Struct(oid) = from {
            let Some(info) = self.ck.classes.get(oid) else {
                return true;
            };
            return info.conversions.iter().any(|(c, explicit)| {
                !explicit
                    && self.ck.program.get_function(*c).is_none_or(|c| {
                        matches!(c.ret, Type::Struct(_)) || !matches!(p.ty, Type::Struct(_))
                    })
            });
        }
        false
    }

    /// The conversion sequence from `arg` to `param` that involves a class,
    /// for overload resolution where `overload::sequence` found no standard
    /// one: a derived object or pointer to its base (ranked a conversion,
    /// [over.best.ics] 6), or one user-defined conversion (a non-`explicit`
    /// constructor of the parameter's class callable with the argument, or a
    /// non-`explicit` conversion function of the argument's class giving
    /// the parameter's type, or a number for a number). `None` when there
    /// is none. A non-const lvalue reference binds no converted temporary,
    /// and the object a member function is called on (`object`) is never
    /// converted by a user-defined conversion ([over.match.funcs] 5).
    pub(crate) fn class_sequence(
        &self,
        arg: crate::overload::Arg<'_>,
        param: crate::overload::Param<'_>,
        object: bool,
    ) -> Option<crate::overload::Sequence> {
        use crate::overload::{Rank, Sequence};
        let binding = |rank| Sequence {
            rank,
            binds_const_ref: param.by_ref.then_some(param.is_const && !param.rvalue_ref),
            adds_const: false,
        };
        let writable_ref = param.by_ref && !param.is_const && !param.rvalue_ref;
        // Derived to base: the object itself is bound or copied (sliced).
        match (arg.ty, param.ty) {
            (Type::Struct(d), Type::Struct(b)) if d != b && self.ck.derives_from(*d, *b) => {
                let binds = if writable_ref {
                    arg.modifiable_lvalue
                } else {
                    !(param.rvalue_ref && arg.lvalue)
                };
                return binds.then(|| binding(Rank::Conversion));
            }
            (
                Type::Ptr {
                    elem: a,
                    is_const: from_const,
                },
                Type::Ptr {
                    elem: b,
                    is_const: to_const,
                },
            ) if !param.by_ref || param.is_const => {
                return match (a.as_ref(), b.as_ref()) {
                    (Type::Struct(d), Type::Struct(b))
                        if d != b && (*to_const || !from_const) && self.ck.derives_from(*d, *b) =>
                    {
                        Some(binding(Rank::Conversion))
                    }
                    _ => None,
                };
            }
            _ => {}
        }
        if object || writable_ref || (param.rvalue_ref && arg.lvalue) {
            return None;
        }
        // A converting constructor of the parameter's class, taking the
        // argument through a standard conversion or a derived-to-base one.
        if let Type::Struct(pid) = param.ty
            && let Some(info) = self.ck.classes.get(pid)
        {
            let converts = info.ctors.iter().any(|c| {
                if info.explicit.contains(c) || info.deleted.contains(c) {
                    return false;
                }
                let Some(ctor) = self.ck.program.get_function(*c) else {
                    return false;
                };
                if ctor.params == 0 || ctor.params as usize > 1 + self.defaulted_count(*c) {
                    return false;
                }
                let Some(first) = ctor.locals.first() else {
                    return false;
                };
                // A copy or move constructor of the class itself is no
                // conversion from another type.
                if first.ty == *param.ty {
                    return false;
                }
                let inner = crate::overload::Param {
                    ty: &first.ty,
                    by_ref: first.by_ref,
                    is_const: first.is_const,
                    rvalue_ref: self.ck.rvalue_refs.contains(&first.span),
                };
                crate::overload::sequence(arg, inner).is_some()
                    || matches!((arg.ty, &first.ty), (Type::Struct(d), Type::Struct(b))
                        if (!first.by_ref || first.is_const) && self.ck.derives_from(*d, *b))
            });
            if converts {
                return Some(binding(Rank::UserDefined));
            }
        }
        // A conversion function of the argument's class: to the parameter's
        // type, or to a number converted on to a number.
        if let Type::Struct(aid) = arg.ty
            && let Some(info) = self.ck.classes.get(aid)
        {
            let converts =
                info.conversions.iter().any(|(f, explicit)| {
                    !explicit
                        && self.ck.program.get_function(*f).is_some_and(|f| {
                            match (&f.ret, param.ty) {
                                (r, p) if r == p => true,
                                (Type::Scalar(_), Type::Scalar(_)) => true,
                                _ => false,
                            }
                        })
                });
            if converts {
                return Some(binding(Rank::UserDefined));
            }
        }
        None
    }

    /// `e`, a class object, converted to `to` by one of its class's
    /// conversion functions: one returning `to` itself, or else a scalar
    /// that converts to a scalar `to`. `explicit` ones only where the
    /// conversion is written (a cast, a condition). `Err(e)` when none fits.
    pub(crate) fn user_conversion(
        &mut self,
        e: Expr,
        to: &Type,
        explicit_ok: bool,
    ) -> Result<Expr, Expr> {
        let Type::Struct(id) = e.ty else {
            return Err(e);
        };
        let conversions: Vec<FuncId> = self
            .ck
            .classes
            .get(&id)
            .map(|c| {
                c.conversions
                    .iter()
                    .filter(|(_, explicit)| explicit_ok || !explicit)
                    .map(|(f, _)| *f)
                    .collect()
            })
            .unwrap_or_default();
        let ret_of = |ck: &Checker, f: FuncId| ck.program.get_function(f).map(|f| f.ret.clone());
        let exact = conversions
            .iter()
            .copied()
            .find(|f| ret_of(self.ck, *f).as_ref() == Some(to));
        let scalar = conversions.iter().copied().find(|f| {
            matches!(ret_of(self.ck, *f), Some(Type::Scalar(_))) && matches!(to, Type::Scalar(_))
        });
        let Some(chosen) = exact.or(scalar) else {
            return Err(e);
        };
        let name = self
            .ck
            .program
            .get_function(chosen)
            .map(|f| f.name.clone())
            .unwrap_or_default();
        let short = name.rsplit("::").next().unwrap_or(&name).to_string();
        let class = self
            .ck
            .classes
            .get(&id)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        let span = e.span;
        // Conversion functions to the same type that differ in their
        // `restrict` clause are overloads: the call picks by context.
        let chosen_ret = ret_of(self.ck, chosen);
        let same: Vec<FuncId> = conversions
            .iter()
            .copied()
            .filter(|f| ret_of(self.ck, *f) == chosen_ret)
            .collect();
        let call = self.call_members(Some(e), id, &class, &short, &same, Vec::new(), span);
        match (&call.ty, to) {
            (Type::Scalar(_), Type::Scalar(t)) if call.ty != *to => {
                Ok(self.convert_scalar(call, *t))
            }
            _ => Ok(call),
        }
    }

    /// `parallel_for_each(domain, f)` with a function object `f`: a kernel
    /// that captures the object by value and calls its `operator()`.
    pub(crate) fn functor_kernel(
        &mut self,
        functor: Expr,
        domain: &Expr,
        tile: Option<tessera_ir::TileShape>,
        rank: u8,
        span: Span,
    ) -> Option<(FuncId, Expr)> {
        let Type::Struct(id) = functor.ty else {
            return None;
        };
        let (_, owner, ids) = self.ck.find_methods(id, "operator()")?;
        let index_ty = match tile {
            Some(shape) => Type::TiledIndex(shape),
            None => Type::Index(rank),
        };
        let func = Function {
            name: "<kernel>".into(),
            kind: FunctionKind::Kernel {
                tile,
                captures: vec![tessera_ir::Capture {
                    name: "<function object>".into(),
                    ty: functor.ty.clone(),
                    by_ref: false,
                }],
            },
            restriction: Restriction {
                amp: true,
                cpu: false,
            },
            params: 1,
            locals: vec![Local {
                name: "<index>".into(),
                ty: index_ty.clone(),
                by_ref: false,
                is_const: false,
                space: Space::Private,
                span,
            }],
            ret: Type::Void,
            ret_by_ref: false,
            body: None,
            stmt_count: 0,
            span,
        };
        let kernel_id = crate::declare::reserve_function(self.ck, func.clone());
        let mut kcx = FnCx::new(self.ck, func);
        let object = mk(ExprKind::Capture(0), functor.ty.clone(), true, span);
        let index = mk(ExprKind::Local(LocalId(0)), index_ty, true, span);
        let class = kcx
            .ck
            .classes
            .get(&owner)
            .map(|c| c.name.clone())
            .unwrap_or_default();
        let call = kcx.call_members(
            Some(object),
            owner,
            &class,
            "operator()",
            &ids,
            vec![index],
            span,
        );
        if let ExprKind::Call { func, .. } = &call.kind
            && let Some(f) = kcx.ck.program.get_function(*func)
            && f.ret != Type::Void
        {
            let (at, shown) = (f.span, kcx.ck.show(&f.ret));
            kcx.ck.report(
                Diagnostic::error(
                    codes::E0312,
                    domain.span.to(span),
                    format!("the kernel's `operator()` returns `{shown}`; a kernel returns `void`"),
                )
                .with_label("function object used as a kernel")
                .with_secondary(at, "declared here")
                .with_msvc("C3577")
                .with_help("declare `void operator()(index<N> idx) const restrict(amp)`"),
            );
        }
        // The `operator()` chosen: one that is not `const` may change the
        // object, which is each work-item's own.
        let non_const = match &call.kind {
            ExprKind::Call { func, .. } => kcx.ck.program.get_function(*func).and_then(|f| {
                f.locals
                    .first()
                    .filter(|this| this.name == "this" && !this.is_const)
                    .map(|_| f.span)
            }),
            _ => None,
        };
        let body = tessera_ir::Block {
            stmts: vec![Stmt::new(StmtKind::Expr(call), span)],
        };
        let mut func = kcx.func;
        func.body = Some(body);
        if let Some(declared) = non_const {
            self.ck.report(
                crate::launch::non_const_kernel_warning(
                    span,
                    "this function object's `operator()` is not `const`",
                )
                .with_secondary(declared, "declared here"),
            );
            crate::launch::privatize_captures(&self.ck.program, &mut func, span);
        }
        *self.ck.program.function_mut(kernel_id) = func;
        Some((kernel_id, functor))
    }
}

/// The name of `std::exception`'s hidden constructor from a message, which
/// the library's exceptions use for their base (C++ has no such public
/// constructor, so it is not among the class's constructors).
const EXCEPTION_FROM_MESSAGE: &str = "std::exception::<from message>";

/// The classes of the exceptions C++ AMP throws, made when a program first
/// names one: `std::exception` (a message, `what()`), `runtime_exception`
/// derived from it (and an error code, `get_error_code()`) and the classes
/// derived from that. Their objects are what a `catch` receives when the
/// library reports an error. Every class keeps its message in the
/// `std::exception` at its start, whose virtual `what()` returns it, so
/// these classes need no overrider of their own.
pub fn library_exception(ck: &mut Checker, name: &str) -> Option<StructId> {
    if name == "exception" {
        // The library's own errors must reach a `catch (std::exception&)`
        // even in a program that never names `runtime_exception`.
        library_exception(ck, "runtime_exception");
        return Some(std_exception(ck));
    }
    let derived_code: i64 = match name {
        "runtime_exception" => 0,
        // `HRESULT` is a `long`, as in the oracle's emulation on LP64.
        "invalid_compute_domain" | "unsupported_feature" => 0x8007_0057,
        "out_of_memory" => 0x8007_000E,
        _ => return None,
    };
    let full = format!("concurrency::{name}");
    if let Some(&id) = ck.structs.get(&full) {
        return Some(id);
    }
    let root = std_exception(ck);
    let base = if name == "runtime_exception" {
        None
    } else {
        Some(library_exception(ck, "runtime_exception")?)
    };
    let span = tessera_diagnostics::Span::default();
    let char_ptr = Type::Ptr {
        elem: Box::new(Type::Scalar(tessera_ir::Scalar::Char)),
        is_const: true,
    };
    let id = StructId(ck.program.structs.len() as u32);
    let fields = match base {
        None => vec![
            (base_field_name("std::exception"), Type::Struct(root)),
            ("<code>".to_string(), Type::Scalar(tessera_ir::Scalar::Long)),
        ],
        Some(b) => vec![(
            base_field_name("concurrency::runtime_exception"),
            Type::Struct(b),
        )],
    };
    ck.program.structs.push(tessera_ir::StructDef {
        name: full.clone(),
        fields: fields.clone(),
        is_union: false,
        span,
    });
    ck.structs.insert(full.clone(), id);
    let parent = base.unwrap_or(root);
    let overriders = ck
        .program
        .dynamic
        .get(&parent)
        .map(|d| d.overriders.clone())
        .unwrap_or_default();
    ck.program.dynamic.insert(
        id,
        tessera_ir::DynamicClass {
            base: Some((parent, 0)),
            tag_field: 0,
            overriders,
        },
    );
    let mut info = ClassInfo {
        name: full.clone(),
        bases: vec![base.unwrap_or(root)],
        access: vec![Access::Private; fields.len()],
        default_inits: vec![None; fields.len()],
        ..ClassInfo::default()
    };
    // The base subobject is public, as the classes derive publicly.
    if let Some(a) = info.access.first_mut() {
        *a = Access::Public;
    }
    ck.classes.insert(id, info.clone());
    let host = Restriction {
        cpu: true,
        amp: false,
    };
    let local = |name: &str, ty: Type, by_ref: bool| Local {
        name: name.to_string(),
        ty,
        by_ref,
        is_const: by_ref,
        space: Space::Host,
        span,
    };
    let this_field = |field: u32, ty: Type| {
        let this = mk(ExprKind::Local(LocalId(0)), Type::Struct(id), true, span);
        mk(
            ExprKind::Field {
                base: Box::new(this),
                field,
            },
            ty,
            true,
            span,
        )
    };
    let add = |ck: &mut Checker, func: Function| {
        let fid = FuncId(ck.program.functions.len() as u32);
        ck.program.functions.push(func);
        fid
    };
    let plain =
        |name: String, locals: Vec<Local>, params: u32, ret: Type, stmts: Vec<Stmt>| Function {
            name,
            kind: FunctionKind::Plain,
            restriction: host,
            params,
            locals,
            ret,
            ret_by_ref: false,
            body: Some(tessera_ir::Block { stmts }),
            stmt_count: 0,
            span,
        };
    if base.is_none() {
        let code = plain(
            format!("{full}::get_error_code"),
            vec![local("this", Type::Struct(id), true)],
            1,
            Type::Scalar(tessera_ir::Scalar::Long),
            vec![Stmt::new(
                StmtKind::Return(Some(this_field(1, Type::Scalar(tessera_ir::Scalar::Long)))),
                span,
            )],
        );
        let code = add(ck, code);
        info.methods.insert("get_error_code".into(), vec![code]);
    }
    // Constructors return the object they build (see the module docs).
    let build = |ck: &mut Checker, params: Vec<Local>, parts: Vec<Expr>| {
        let n = params.len() as u32;
        let mut locals = params;
        let object = LocalId(n);
        locals.push(local("", Type::Struct(id), false));
        let target = |field: u32, ty: Type| {
            let o = mk(ExprKind::Local(object), Type::Struct(id), true, span);
            mk(
                ExprKind::Field {
                    base: Box::new(o),
                    field,
                },
                ty,
                true,
                span,
            )
        };
        let mut stmts = vec![Stmt::new(
            StmtKind::Let {
                local: object,
                init: Some(tessera_ir::Init::Zero),
            },
            span,
        )];
        for (i, value) in parts.into_iter().enumerate() {
            let ty = value.ty.clone();
            let assign = mk(
                ExprKind::Assign {
                    target: Box::new(target(i as u32, ty.clone())),
                    value: Box::new(value),
                },
                ty,
                true,
                span,
            );
            stmts.push(Stmt::new(StmtKind::Expr(assign), span));
        }
        let result = mk(ExprKind::Local(object), Type::Struct(id), true, span);
        stmts.extend(dynamic_class_assignment(ck, result.clone(), id, span));
        stmts.push(Stmt::new(StmtKind::Return(Some(result)), span));
        let f = plain(
            format!("{full}::{name}"),
            locals,
            n,
            Type::Struct(id),
            stmts,
        );
        let fid = FuncId(ck.program.functions.len() as u32);
        ck.program.functions.push(f);
        fid
    };
    let param = |i: u32, ty: Type| mk(ExprKind::Local(LocalId(i)), ty, true, span);
    let literal = |text: &str, ck: &mut Checker| {
        let s = mk(
            ExprKind::Str(text.as_bytes().to_vec()),
            Type::Str,
            false,
            span,
        );
        let mut fcx = FnCx::new(
            ck,
            plain(String::new(), Vec::new(), 0, Type::Void, Vec::new()),
        );
        fcx.coerce(s, &char_ptr, "a message")
    };
    let from_message = ck
        .program
        .functions
        .iter()
        .position(|f| f.name == EXCEPTION_FROM_MESSAGE)
        .map(|i| FuncId(i as u32));
    let root_of = |message: Expr| match from_message {
        Some(f) => mk(
            ExprKind::Call {
                func: f,
                args: vec![message],
            },
            Type::Struct(root),
            false,
            span,
        ),
        None => crate::cx::error_expr(span),
    };
    let (with_message, without_message, explicit_one) = match base {
        None => {
            let a = build(
                ck,
                vec![
                    local("message", char_ptr.clone(), false),
                    local("hresult", Type::Scalar(tessera_ir::Scalar::Long), false),
                ],
                vec![
                    root_of(param(0, char_ptr.clone())),
                    param(1, Type::Scalar(tessera_ir::Scalar::Long)),
                ],
            );
            let default_text = literal("concurrency::runtime_exception", ck);
            let b = build(
                ck,
                vec![local(
                    "hresult",
                    Type::Scalar(tessera_ir::Scalar::Long),
                    false,
                )],
                vec![
                    root_of(default_text),
                    param(0, Type::Scalar(tessera_ir::Scalar::Long)),
                ],
            );
            (a, b, b)
        }
        Some(b) => {
            let base_ctor = ck.classes.get(&b).and_then(|c| c.ctors.first().copied());
            let call = |args: Vec<Expr>| match base_ctor {
                Some(f) => mk(
                    ExprKind::Call { func: f, args },
                    Type::Struct(b),
                    false,
                    span,
                ),
                None => crate::cx::error_expr(span),
            };
            let code = mk(
                ExprKind::Const(tessera_ir::Const::Int(derived_code)),
                Type::Scalar(tessera_ir::Scalar::Long),
                false,
                span,
            );
            let a = build(
                ck,
                vec![local("message", char_ptr.clone(), false)],
                vec![call(vec![param(0, char_ptr.clone()), code.clone()])],
            );
            let text = literal(&full, ck);
            let c = build(ck, Vec::new(), vec![call(vec![text, code])]);
            (a, c, a)
        }
    };
    info.ctors = vec![with_message, without_message];
    info.explicit.insert(explicit_one);
    for f in [with_message, without_message] {
        info.method_access.insert(f, Access::Public);
    }
    for fs in info.methods.values() {
        for f in fs {
            info.method_access.insert(*f, Access::Public);
        }
    }
    ck.classes.insert(id, info);
    Some(id)
}

/// `std::exception`: a class holding the text `what()` returns, made when a
/// program first names it or a C++ AMP exception (their common base). A
/// default-constructed one says `std::exception`, as libstdc++'s does.
fn std_exception(ck: &mut Checker) -> StructId {
    const NAME: &str = "std::exception";
    if let Some(&id) = ck.structs.get(NAME) {
        return id;
    }
    let span = Span::default();
    let char_ptr = Type::Ptr {
        elem: Box::new(Type::Scalar(tessera_ir::Scalar::Char)),
        is_const: true,
    };
    let id = StructId(ck.program.structs.len() as u32);
    // Polymorphic (`what()` is virtual): its dynamic class first, where
    // libstdc++'s virtual table pointer is.
    ck.program.structs.push(tessera_ir::StructDef {
        name: NAME.to_string(),
        fields: vec![
            (
                tessera_ir::DYNAMIC_CLASS_FIELD.to_string(),
                Type::Scalar(tessera_ir::Scalar::Long),
            ),
            ("<message>".to_string(), char_ptr.clone()),
        ],
        is_union: false,
        span,
    });
    ck.structs.insert(NAME.to_string(), id);
    ck.program
        .dynamic
        .insert(id, tessera_ir::DynamicClass::default());
    let mut info = ClassInfo {
        name: NAME.to_string(),
        access: vec![Access::Private; 2],
        default_inits: vec![None; 2],
        const_fields: vec![false; 2],
        ..ClassInfo::default()
    };
    ck.classes.insert(id, info.clone());
    let local = |name: &str, ty: Type, by_ref: bool| Local {
        name: name.to_string(),
        ty,
        by_ref,
        is_const: by_ref,
        space: Space::Host,
        span,
    };
    let function =
        |name: &str, locals: Vec<Local>, params: u32, ret: Type, stmts: Vec<Stmt>| Function {
            name: format!("{NAME}::{name}"),
            kind: FunctionKind::Plain,
            restriction: Restriction {
                cpu: true,
                amp: false,
            },
            params,
            locals,
            ret,
            ret_by_ref: false,
            body: Some(tessera_ir::Block { stmts }),
            stmt_count: 0,
            span,
        };
    let add = |ck: &mut Checker, f: Function| {
        let fid = FuncId(ck.program.functions.len() as u32);
        ck.program.functions.push(f);
        fid
    };
    // `what()`: the message field of `*this`.
    let this = mk(ExprKind::Local(LocalId(0)), Type::Struct(id), true, span);
    let message = mk(
        ExprKind::Field {
            base: Box::new(this),
            field: 1,
        },
        char_ptr.clone(),
        true,
        span,
    );
    let what = function(
        "what",
        vec![local("this", Type::Struct(id), true)],
        1,
        char_ptr.clone(),
        vec![Stmt::new(StmtKind::Return(Some(message)), span)],
    );
    let what = add(ck, what);
    if let Some(d) = ck.program.dynamic.get_mut(&id) {
        d.overriders.insert(what, what);
    }
    info.virtuals.insert(what);
    // A constructor from a message: a new object whose field is `text`.
    let construct = |ck: &mut Checker, name: &str, params: Vec<Local>, text: Expr| {
        let n = params.len() as u32;
        let mut locals = params;
        let object = LocalId(n);
        locals.push(local("", Type::Struct(id), false));
        let o = mk(ExprKind::Local(object), Type::Struct(id), true, span);
        let field = mk(
            ExprKind::Field {
                base: Box::new(o.clone()),
                field: 1,
            },
            char_ptr.clone(),
            true,
            span,
        );
        let class = dynamic_class_assignment(ck, o.clone(), id, span);
        let assign = mk(
            ExprKind::Assign {
                target: Box::new(field),
                value: Box::new(text),
            },
            char_ptr.clone(),
            true,
            span,
        );
        let stmts = vec![
            Stmt::new(
                StmtKind::Let {
                    local: object,
                    init: Some(tessera_ir::Init::Zero),
                },
                span,
            ),
            Stmt::new(StmtKind::Expr(assign), span),
        ];
        let mut stmts = stmts;
        stmts.extend(class);
        stmts.push(Stmt::new(StmtKind::Return(Some(o)), span));
        let f = function(name, locals, n, Type::Struct(id), stmts);
        add(ck, f)
    };
    let given = mk(ExprKind::Local(LocalId(0)), char_ptr.clone(), true, span);
    construct(
        ck,
        "<from message>",
        vec![local("message", char_ptr.clone(), false)],
        given,
    );
    let text = mk(
        ExprKind::Str(NAME.as_bytes().to_vec()),
        Type::Str,
        false,
        span,
    );
    let mut fcx = FnCx::new(ck, function("", Vec::new(), 0, Type::Void, Vec::new()));
    let text = fcx.coerce(text, &char_ptr, "a message");
    let default = construct(ck, "exception", Vec::new(), text);
    info.ctors = vec![default];
    info.methods.insert("what".into(), vec![what]);
    info.method_access.insert(default, Access::Public);
    info.method_access.insert(what, Access::Public);
    ck.classes.insert(id, info);
    id
}
