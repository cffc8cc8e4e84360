//! Templates: class and function templates with type and value parameters,
//! default arguments, argument deduction and explicit arguments.
//!
//! A template is kept as syntax and checked once per distinct argument
//! list, when a use needs it (C++'s implicit instantiation): its
//! parameters are bound (type parameters as type aliases, value parameters
//! as constants) and the class or function is declared again under the name
//! of the instance (`Vec<float>`, `scale<16>`), so the typed program holds
//! only concrete structs and functions and the engines know nothing of
//! templates. Instances are cached by argument list: a template used ten
//! thousand times with one argument list is checked once.
//!
//! An error inside an instance is reported where it is in the template,
//! with the use that asked for the instance beside it.

use crate::cx::{Checker, FnCx, error_expr};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;
use tessera_diagnostics::{Diagnostic, Span, codes};
use tessera_ir::{Expr, FuncId, Scalar, StructId, Type};
use tessera_syntax::ast::{self, BaseType, TemplateArg};

/// Instances deeper than this (a template instantiating itself with ever
/// new arguments) are refused.
const MAX_DEPTH: u32 = 1024;

/// A template as written, with what its definition saw.
#[derive(Debug)]
pub struct TemplateDef {
    /// The parameters.
    pub params: Vec<ast::TemplateParam>,
    /// The class or function.
    pub item: ast::Item,
    /// The `using namespace` directives in force at the definition.
    pub usings: Vec<String>,
}

/// The `const` and `volatile` of a type argument (`T = const int`). The
/// typed program keeps `const` with the declared object rather than in its
/// `Type`, so a type argument carries its qualifiers beside the type: a
/// declaration naming the parameter gets them as if written there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cv {
    /// `const`
    pub is_const: bool,
    /// `volatile`
    pub is_volatile: bool,
}

impl Cv {
    /// The qualifiers written in `specs`.
    pub fn of_specs(specs: &ast::DeclSpecs) -> Cv {
        Cv {
            is_const: specs.is_const,
            is_volatile: specs.is_volatile,
        }
    }

    /// Both sets of qualifiers (`const T` with `T = volatile int`).
    pub fn union(self, other: Cv) -> Cv {
        Cv {
            is_const: self.is_const || other.is_const,
            is_volatile: self.is_volatile || other.is_volatile,
        }
    }

    /// These qualifiers without those of `other`: what a parameter `const T`
    /// leaves for `T` when deduced from a `const int`.
    pub fn without(self, other: Cv) -> Cv {
        Cv {
            is_const: self.is_const && !other.is_const,
            is_volatile: self.is_volatile && !other.is_volatile,
        }
    }
}

/// A template argument, resolved.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TArg {
    /// A type, with its top-level qualifiers.
    Type(Type, Cv),
    /// A constant.
    Value(i64),
    /// A class template, for a template template parameter: its path as
    /// written (`array`, `std::vector`), which a use of the parameter
    /// (`C<T, N>`) names instead.
    Template(Vec<String>),
}

/// A partial specialisation: its template (with its own parameters) and
/// the arguments it is written for.
pub type PartialSpec = (Rc<TemplateDef>, Vec<TemplateArg>);

/// The templates of a program and their instances.
#[derive(Debug, Default)]
pub struct Templates {
    /// Class templates by name.
    pub classes: HashMap<String, Rc<TemplateDef>>,
    /// Function templates by name (several: overloaded templates).
    pub functions: HashMap<String, Vec<Rc<TemplateDef>>>,
    /// Function instances: by template (name, position) and arguments.
    pub function_instances: HashMap<(String, usize, Vec<TArg>), Option<FuncId>>,
    /// Which template and arguments each class instance comes from.
    pub instance_of: HashMap<StructId, (String, Vec<TArg>)>,
    /// Inside a class instance, its template's plain name names the
    /// instance (the injected class name): plain name, instance name.
    pub injected: Option<(String, String)>,
    /// Instances being checked, innermost last.
    pub depth: u32,
    /// Values of the value parameters bound now, with their types.
    pub values: HashMap<String, (i64, Scalar)>,
    /// The type parameters bound now to qualified types (`T = const int`),
    /// with their qualifiers.
    pub qualified: HashMap<String, Cv>,
    /// The aliases of each class-template instance's scope (its member
    /// typedefs), by instance name, for its members checked later.
    pub member_aliases: HashMap<String, HashMap<String, Type>>,
    /// The class templates the template template parameters bound now
    /// name, as paths.
    pub template_params: HashMap<String, Vec<String>>,
    /// Members of class templates defined outside the class
    /// (`template <typename T> T Matrix<T>::get() {...}`), by class.
    pub class_members: HashMap<String, Vec<Rc<TemplateDef>>>,
    /// The instances of each class template so far, with their arguments.
    pub class_instances: HashMap<String, Vec<(String, Vec<TArg>)>>,
    /// Explicit specialisations of class templates, by name and arguments.
    pub class_specs: HashMap<(String, Vec<TArg>), Rc<TemplateDef>>,
    /// Partial specialisations of class templates, by name: each one's
    /// template (its own parameters) and the arguments it is written for
    /// (`template <typename T> struct P<T*, int>`: `T*, int`).
    pub partial_specs: HashMap<String, Vec<PartialSpec>>,
    /// Class templates with a partial specialisation Tessera cannot match
    /// (for reference types): their instances are refused, since the
    /// primary template might be the wrong choice.
    pub unmatchable: std::collections::HashSet<String>,
    /// The class-template instance being declared: its template, arguments
    /// and name. Its member functions' bodies are checked when first called
    /// (C++ instantiates a member only when it is used).
    pub declaring: Option<(Rc<TemplateDef>, Vec<TArg>, String)>,
    /// Member functions of class-template instances whose bodies are not
    /// checked yet, with what checking them needs.
    pub lazy: HashMap<FuncId, LazyMember>,
    /// Instances of function templates whose bodies are not checked yet:
    /// C++ instantiates a function template's body only for the candidate
    /// a call chooses (or another use that needs its definition), so one
    /// that is merely a candidate must not be checked.
    pub lazy_functions: HashMap<FuncId, LazyFunction>,
    /// Instances of member templates: by class, name, template and the
    /// member's own arguments.
    pub member_instances: HashMap<(StructId, String, usize, Vec<TArg>), Option<FuncId>>,
    /// Explicit specialisations of function templates, by the template
    /// (name, position) and arguments.
    pub function_specs: HashMap<(String, usize, Vec<TArg>), Rc<TemplateDef>>,
}

/// A member function of a class-template instance, checked on first use.
#[derive(Debug, Clone)]
pub struct LazyMember {
    /// The template (class or out-of-class member definition) it comes from.
    pub def: Rc<TemplateDef>,
    /// The instance's arguments.
    pub args: Vec<TArg>,
    /// The instance's name (`Stack<int, 8>`).
    pub instance: String,
    /// The class's plain name (`Stack`), which names the instance inside it.
    pub plain: String,
    /// The instance's struct.
    pub class: StructId,
    /// The member's definition, its class already named as the instance.
    pub function: ast::Function,
    /// Defined outside the class (`Stack<T>::pop`) rather than in it.
    pub out_of_class: bool,
}

/// An instance of a function template, declared, whose body is checked on
/// first use (see [`ensure_body`]).
#[derive(Debug, Clone)]
pub struct LazyFunction {
    /// The template (or the explicit specialisation) it comes from.
    pub def: Rc<TemplateDef>,
    /// The instance's arguments.
    pub args: Vec<TArg>,
    /// The instance's name (`twice<int>`).
    pub instance: String,
    /// Its definition, named as the instance.
    pub function: ast::Function,
}

/// A member function template of a class (of a class-template instance
/// too): instantiated per argument list when a call needs it, as a member
/// function of the class named `f<args>`, with the class template's
/// arguments bound around its own.
#[derive(Debug)]
pub struct MemberTemplate {
    /// The member's name.
    pub name: String,
    /// Its access.
    pub access: ast::Access,
    /// The class template's parameters followed by the member's, and the
    /// member as the item.
    pub def: Rc<TemplateDef>,
    /// How many of `def.params` are the member's own (the last ones).
    pub own: usize,
    /// The class template's arguments (none for a plain class).
    pub class_args: Vec<TArg>,
    /// The class's name as written and as instantiated (`Box`, `Box<int>`).
    pub plain: String,
    /// The instance's name.
    pub instance: String,
}

impl MemberTemplate {
    /// The member template `t` of the class being declared (named
    /// `plain`), with the bindings of the class template instance being
    /// declared, if any.
    pub fn new(ck: &Checker, t: &ast::Template, access: ast::Access, plain: &str) -> Option<Self> {
        let ast::ItemKind::Function(f) = &t.item.kind else {
            return None;
        };
        let (mut params, class_args, usings, plain, instance) = match &ck.templates.declaring {
            Some((def, args, instance)) => {
                let plain = match &def.item.kind {
                    ast::ItemKind::Struct(s) => s.name.name.clone(),
                    _ => plain.to_string(),
                };
                (
                    def.params.clone(),
                    args.clone(),
                    def.usings.clone(),
                    plain,
                    instance.clone(),
                )
            }
            None => (
                Vec::new(),
                Vec::new(),
                ck.using_namespaces.clone(),
                plain.to_string(),
                plain.to_string(),
            ),
        };
        params.extend(t.params.iter().cloned());
        Some(MemberTemplate {
            name: f.name.name.clone(),
            access,
            def: Rc::new(TemplateDef {
                params,
                item: (*t.item).clone(),
                usings,
            }),
            own: t.params.len(),
            class_args,
            plain,
            instance,
        })
    }
}

impl FnCx<'_> {
    /// The instances of class `class`'s member templates named `name` that
    /// take `args` (after the `explicit` template arguments), made now if
    /// new. Each template is deduced as a function template is.
    pub(crate) fn member_template_instances(
        &mut self,
        class: StructId,
        name: &str,
        explicit: Option<&[TemplateArg]>,
        args: &[Expr],
        span: Span,
    ) -> Vec<FuncId> {
        let templates = self
            .ck
            .classes
            .get(&class)
            .and_then(|c| c.member_templates.get(name))
            .cloned()
            .unwrap_or_default();
        if templates.is_empty() {
            return Vec::new();
        }
        let explicit = match explicit {
            Some(written) => {
                let visible = self.visible_consts();
                let lookup = move |n: &str| visible.get(n);
                match resolve_args(self.ck, written, &lookup) {
                    Some(a) => a,
                    None => return Vec::new(),
                }
            }
            None => Vec::new(),
        };
        let args: Vec<Expr> = args
            .iter()
            .cloned()
            .map(|a| crate::library::materialize_iterator(self, a))
            .collect();
        let read_only: Vec<bool> = args
            .iter()
            .map(|a| self.read_only_reason(a).is_some())
            .collect();
        let mut found = Vec::new();
        for mt in templates {
            let ast::ItemKind::Function(f) = &mt.def.item.kind else {
                continue;
            };
            let own_params = &mt.def.params[mt.def.params.len() - mt.own..];
            if explicit.len() > own_params.len() || f.params.len() < args.len() {
                continue;
            }
            // Deduction sees only the member's own parameters: the class's
            // are bound already.
            let own_def = TemplateDef {
                params: own_params.to_vec(),
                item: mt.def.item.clone(),
                usings: mt.def.usings.clone(),
            };
            let mut bound: HashMap<String, TArg> = HashMap::new();
            for (p, a) in own_params.iter().zip(&explicit) {
                bound.insert(p.name().name.clone(), a.clone());
            }
            let given: Vec<String> = bound.keys().cloned().collect();
            let class_bindings = mt.class_args.clone();
            let outer_def = mt.def.clone();
            let class_def = TemplateDef {
                params: outer_def.params[..outer_def.params.len() - mt.own].to_vec(),
                item: outer_def.item.clone(),
                usings: outer_def.usings.clone(),
            };
            // Deduction and the member's default arguments see the class
            // template's arguments (`template <int R = rank>`).
            let own_args = with_bindings(
                self.ck,
                &class_def,
                &class_bindings,
                &mt.instance,
                span,
                |ck| {
                    let deduced =
                        f.params
                            .iter()
                            .zip(&args)
                            .zip(&read_only)
                            .all(|((p, a), &ro)| {
                                if a.ty.is_error() {
                                    return true;
                                }
                                let Some((ty, cv)) = deduction_target(p, a, ro) else {
                                    return false;
                                };
                                deduce(ck, &own_def, &p.specs, &ty, cv, &mut bound, &given)
                            });
                    if !deduced {
                        return None;
                    }
                    let mut ordered = Vec::new();
                    for p in own_params {
                        match bound.get(&p.name().name) {
                            Some(a) => ordered.push(a.clone()),
                            None => break,
                        }
                    }
                    let before = ck.diags.len();
                    let completed = complete_args(ck, &own_def, ordered, name, span);
                    if completed.is_none() {
                        ck.diags.truncate(before);
                    }
                    completed
                },
            );
            let Some(own_args) = own_args else {
                continue;
            };
            if let Some(id) = instantiate_member(self.ck, class, &mt, own_args, span) {
                found.push(id);
            }
        }
        found
    }
}

/// Instance `own_args` of member template `mt` of class `class`: declared
/// as a member function, its body checked on first call.
fn instantiate_member(
    ck: &mut Checker,
    class: StructId,
    mt: &Rc<MemberTemplate>,
    own_args: Vec<TArg>,
    span: Span,
) -> Option<FuncId> {
    let key = (
        class,
        mt.name.clone(),
        Rc::as_ptr(mt) as usize,
        own_args.clone(),
    );
    if let Some(found) = ck.templates.member_instances.get(&key) {
        return *found;
    }
    if too_deep(ck, span) {
        return None;
    }
    let ast::ItemKind::Function(f) = &mt.def.item.kind else {
        return None;
    };
    let mut f = f.clone();
    f.name.name = format!("{}<{}>", mt.name, show_args(ck, &own_args));
    let mut args = mt.class_args.clone();
    args.extend(own_args);
    let shown = format!("{}::{}", mt.instance, f.name.name);
    let (plain, instance) = (mt.plain.clone(), mt.instance.clone());
    let access = mt.access;
    let id = with_bindings(ck, &mt.def, &args, &shown, span, |ck| {
        enter_class(ck, plain.clone(), instance.clone());
        crate::class::declare_member_instance(ck, class, &f, access)
    });
    ck.templates.member_instances.insert(key, id);
    if let Some(fid) = id
        && f.body.is_some()
    {
        ck.templates.lazy.insert(
            fid,
            LazyMember {
                def: mt.def.clone(),
                args,
                instance: mt.instance.clone(),
                plain: mt.plain.clone(),
                class,
                function: f,
                out_of_class: false,
            },
        );
    }
    id
}

/// Checks the body of `id` now, if it is a member function of a
/// class-template instance not yet checked.
pub fn ensure_body(ck: &mut Checker, id: FuncId, use_span: Span) {
    if let Some(lazy) = ck.library_lazy.remove(&id) {
        crate::class::lower_library_member(ck, id, lazy);
        return;
    }
    if let Some(lazy) = ck.templates.lazy_functions.remove(&id) {
        if too_deep(ck, use_span) {
            return;
        }
        let LazyFunction {
            def,
            args,
            instance,
            function,
        } = lazy;
        with_bindings(ck, &def, &args, &instance, use_span, |ck| {
            crate::declare::define_body(ck, &function, id);
        });
        return;
    }
    let Some(lazy) = ck.templates.lazy.remove(&id) else {
        return;
    };
    if too_deep(ck, use_span) {
        return;
    }
    let LazyMember {
        def,
        args,
        instance,
        plain,
        class,
        function,
        out_of_class,
    } = lazy;
    with_bindings(ck, &def, &args, &instance, use_span, |ck| {
        enter_class(ck, plain, instance.clone());
        if out_of_class {
            crate::class::define_out_of_class(ck, &function);
        } else {
            crate::class::lower_method_now(ck, class, id, &function);
        }
    });
}

/// Enters the scope of class-template instance `instance` (whose template
/// is named `plain`), inside the bindings of its arguments: its template's
/// name names it, and its member typedefs are visible.
fn enter_class(ck: &mut Checker, plain: String, instance: String) {
    if let Some(members) = ck.templates.member_aliases.get(&instance).cloned()
        && let Some(scope) = ck.aliases.last_mut()
    {
        for (name, ty) in members {
            scope.entry(name).or_insert(ty);
        }
    }
    ck.templates.injected = Some((plain, instance));
}

/// Registers `template <typename T> struct Name<pattern> { ... }`, a
/// partial specialisation of the class template `Name` declared before.
/// Its pattern may write the parameters bare, behind `*` (`T*`, `const
/// T*`), inside class templates (`Box<T>`) or as values (`N`); other
/// forms (references, functions) are refused rather than never matched.
fn declare_partial_specialization(ck: &mut Checker, s: &ast::StructDef, def: Rc<TemplateDef>) {
    let name = s.name.name.clone();
    let pattern = s.specialization.clone().unwrap_or_default();
    if !ck.templates.classes.contains_key(&name) {
        ck.error(
            codes::E0200,
            s.name.span,
            format!("`{name}` is not a class template declared before"),
            "specialised here",
            "declare the primary template first: `template <typename T> struct Name { ... };`",
        );
        return;
    }
    let unsupported = pattern.iter().find_map(|a| match a {
        TemplateArg::Type(t) if t.modifiers.reference != 0 || t.modifiers.function.is_some() => {
            Some(t.span)
        }
        _ => None,
    });
    if let Some(at) = unsupported {
        ck.templates.unmatchable.insert(name);
        ck.error(
            codes::E0211,
            at,
            "a partial specialisation for reference or function types is not supported yet",
            "this argument",
            "specialise for the types you need with `template <>`",
        );
        return;
    }
    ck.templates
        .partial_specs
        .entry(name)
        .or_default()
        .push((def, pattern));
}

/// The partial specialisations of `name` that `args` match, each with the
/// arguments of its own parameters.
fn matching_partial_specs(
    ck: &mut Checker,
    name: &str,
    args: &[TArg],
    span: Span,
) -> Vec<(Rc<TemplateDef>, Vec<TArg>)> {
    let specs = ck
        .templates
        .partial_specs
        .get(name)
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    for (def, pattern) in specs {
        if pattern.len() != args.len() {
            continue;
        }
        let mut bound: HashMap<String, TArg> = HashMap::new();
        let mut fits = true;
        for (pat, actual) in pattern.iter().zip(args) {
            fits = match (pat, actual) {
                (TemplateArg::Type(t), TArg::Type(ty, cv)) => {
                    // `T*` against `int*`: `T` against `int`, qualified as
                    // what the pointer points to.
                    let mut ty = ty.clone();
                    let mut cv = *cv;
                    let mut levels = t.modifiers.pointers;
                    while levels > 0 {
                        let Type::Ptr { elem, is_const } = ty else {
                            break;
                        };
                        cv = Cv {
                            is_const,
                            is_volatile: false,
                        };
                        ty = *elem;
                        levels -= 1;
                    }
                    levels == 0 && deduce(ck, &def, &t.specs, &ty, cv, &mut bound, &[])
                }
                (TemplateArg::Type(t), TArg::Value(_)) => match &t.specs.ty {
                    BaseType::Named(p) if p.segments.len() == 1 => {
                        bind_value(&def, p.last(), actual, &mut bound)
                    }
                    _ => true,
                },
                (TemplateArg::Expr(e), TArg::Value(_)) => match &e.kind {
                    ast::ExprKind::Name(p) if p.segments.len() == 1 => {
                        bind_value(&def, p.last(), actual, &mut bound)
                    }
                    _ => true,
                },
                _ => true,
            };
            if !fits {
                break;
            }
        }
        if !fits {
            continue;
        }
        // Every parameter must be deduced, and the pattern with them
        // substituted must be the arguments themselves (its fixed parts,
        // `int` in `P<T, int>`, included).
        let Some(own) = def
            .params
            .iter()
            .map(|p| {
                let n = match p {
                    ast::TemplateParam::Type { name, .. }
                    | ast::TemplateParam::Value { name, .. }
                    | ast::TemplateParam::Template { name, .. } => &name.name,
                };
                bound.get(n).cloned()
            })
            .collect::<Option<Vec<TArg>>>()
        else {
            continue;
        };
        let substituted = with_bindings(ck, &def, &own, name, span, |ck| {
            // The value parameters are constants while bound.
            let consts = ck.const_globals.clone();
            resolve_args(ck, &pattern, &|n| consts.get(n).copied())
        });
        if substituted.as_deref() == Some(args) {
            out.push((def, own));
        }
    }
    out
}

/// Binds value parameter `name` of `def` to `actual`; true when `name` is
/// not one (a fixed value, checked after substitution) or agrees.
fn bind_value(
    def: &TemplateDef,
    name: &str,
    actual: &TArg,
    bound: &mut HashMap<String, TArg>,
) -> bool {
    let is_value = def
        .params
        .iter()
        .any(|p| matches!(p, ast::TemplateParam::Value { name: n, .. } if n.name == name));
    if !is_value {
        return true;
    }
    match bound.get(name) {
        Some(prev) => prev == actual,
        None => {
            bound.insert(name.to_string(), actual.clone());
            true
        }
    }
}

/// Registers `template <...> item`.
pub fn declare_template(ck: &mut Checker, t: Cow<'_, ast::Template>, span: Span) {
    if let Some(args) = &t.specialised
        && !t.params.is_empty()
    {
        // `template <typename T> void f<T*>(T*)`: C++ has no partial
        // specialisation of function templates.
        let at = args.first().map_or(span, |a| match a {
            TemplateArg::Type(t) => t.span,
            TemplateArg::Expr(e) => e.span,
        });
        ck.report(
            Diagnostic::error(
                codes::E0213,
                at,
                "a function template cannot be partially specialised",
            )
            .with_label("template arguments after the name")
            .with_msvc("C2768")
            .with_help("write `template <>` with every argument, or overload the template"),
        );
        return;
    }
    if t.params.is_empty() {
        declare_specialization(ck, &t, span);
        return;
    }
    let usings = ck.using_namespaces.clone();
    let def = Rc::new(match t {
        Cow::Borrowed(t) => TemplateDef {
            params: t.params.clone(),
            item: (*t.item).clone(),
            usings,
        },
        Cow::Owned(t) => TemplateDef {
            params: t.params,
            item: *t.item,
            usings,
        },
    });
    // The item is read from the definition (it is the template's item)
    // while the definition itself is handed on.
    let kept = Rc::clone(&def);
    match &kept.item.kind {
        // `template <typename T> class X;`: the definition follows.
        ast::ItemKind::Struct(s) if s.forward => {}
        ast::ItemKind::Struct(s) if s.specialization.is_some() => {
            declare_partial_specialization(ck, s, def);
        }
        ast::ItemKind::Struct(s) => {
            let name = s.name.name.clone();
            if ck.templates.classes.contains_key(&name) || ck.structs.contains_key(&name) {
                ck.error(
                    codes::E0202,
                    s.name.span,
                    format!("class template `{name}` is defined twice"),
                    "second definition",
                    "a specialisation names its arguments: `template <typename T> struct Name<T*> { ... }`",
                );
                return;
            }
            ck.templates.classes.insert(name, def);
        }
        ast::ItemKind::Function(f) if f.class.is_none() => {
            let name = f.name.name.clone();
            let index = ck.templates.functions.get(&name).map_or(0, Vec::len);
            ck.templates
                .functions
                .entry(name.clone())
                .or_default()
                .push(Rc::clone(&def));
            if f.body.is_some() {
                define_declared_instances(ck, &name, index, &def, span);
            }
        }
        ast::ItemKind::Function(f) => {
            let Some(class) = &f.class else { return };
            if !ck.templates.classes.contains_key(&class.name) {
                ck.error(
                    codes::E0200,
                    class.span,
                    format!("`{}` is not a class template declared before", class.name),
                    "not a class template",
                    "",
                );
                return;
            }
            // Instances made before this definition get the member now;
            // later ones when they are made.
            let made = ck
                .templates
                .class_instances
                .get(&class.name)
                .cloned()
                .unwrap_or_default();
            for (instance, args) in made {
                define_member(ck, &def, &instance, &args, span);
            }
            ck.templates
                .class_members
                .entry(class.name.clone())
                .or_default()
                .push(def);
        }
        _ => ck.error(
            codes::E0211,
            span,
            "this kind of template is not supported yet",
            "template",
            "",
        ),
    }
}

/// Defines member `def` (a class template's member written outside the
/// class) for the class instance `instance` with arguments `args`.
fn define_member(
    ck: &mut Checker,
    def: &TemplateDef,
    instance: &str,
    args: &[TArg],
    use_span: Span,
) {
    let ast::ItemKind::Function(f) = &def.item.kind else {
        return;
    };
    let Some(class) = &f.class else { return };
    let mut f = f.clone();
    let plain = class.name.clone();
    if let Some(c) = &mut f.class {
        c.name = instance.to_string();
    }
    f.class_args = None;
    // The member's declaration in the instance: its body waits for a call.
    let id = ck.structs.get(instance).copied();
    let declared = id.and_then(|id| crate::class::matching_member(ck, id, &f));
    match (id, declared) {
        (Some(class), Some(fid)) => {
            ck.templates.lazy.insert(
                fid,
                LazyMember {
                    def: Rc::new(TemplateDef {
                        params: def.params.clone(),
                        item: def.item.clone(),
                        usings: def.usings.clone(),
                    }),
                    args: args.to_vec(),
                    instance: instance.to_string(),
                    plain,
                    class,
                    function: f,
                    out_of_class: true,
                },
            );
        }
        _ => {
            let inst = instance.to_string();
            with_bindings(ck, def, args, instance, use_span, |ck| {
                enter_class(ck, plain, inst);
                crate::class::define_out_of_class(ck, &f);
            });
        }
    }
}

/// `template <> item`: an explicit specialisation of a template declared
/// before, used instead of the template for its arguments.
fn declare_specialization(ck: &mut Checker, t: &ast::Template, span: Span) {
    let def = Rc::new(TemplateDef {
        params: Vec::new(),
        item: (*t.item).clone(),
        usings: ck.using_namespaces.clone(),
    });
    match &t.item.kind {
        ast::ItemKind::Struct(s) if s.specialization.is_some() => {
            let name = s.name.name.clone();
            let Some(primary) = ck.templates.classes.get(&name).cloned() else {
                ck.error(
                    codes::E0200,
                    s.name.span,
                    format!("`{name}` is not a class template declared before"),
                    "specialisation of an unknown template",
                    "declare the template first",
                );
                return;
            };
            let snapshot = crate::declare::const_snapshot(ck);
            let lookup = move |n: &str| snapshot.get(n).copied();
            let written = s.specialization.clone().unwrap_or_default();
            let Some(args) = resolve_args(ck, &written, &lookup) else {
                return;
            };
            let Some(args) = complete_args(ck, &primary, args, &name, s.name.span) else {
                return;
            };
            if ck
                .templates
                .class_specs
                .insert((name.clone(), args), def)
                .is_some()
            {
                ck.error(
                    codes::E0202,
                    s.name.span,
                    format!("this specialisation of `{name}` is defined twice"),
                    "second definition",
                    "",
                );
            }
        }
        ast::ItemKind::Function(f) if f.class.is_none() => {
            let name = f.name.name.clone();
            let primaries = ck
                .templates
                .functions
                .get(&name)
                .cloned()
                .unwrap_or_default();
            // `template <> bool f<u>(u x)`: the arguments written, the rest
            // deduced from the parameter types.
            let explicit = match &t.specialised {
                Some(written) => {
                    let snapshot = crate::declare::const_snapshot(ck);
                    let lookup = move |n: &str| snapshot.get(n).copied();
                    match resolve_args(ck, written, &lookup) {
                        Some(args) => args,
                        None => return,
                    }
                }
                None => Vec::new(),
            };
            let before = ck.diags.len();
            let snapshot = crate::declare::const_snapshot(ck);
            let lookup = move |n: &str| snapshot.get(n).copied();
            let locals: Vec<tessera_ir::Local> = f
                .params
                .iter()
                .map(|p| crate::declare::param_local(ck, p, tessera_ir::Space::Host, &lookup))
                .collect();
            ck.diags.truncate(before);
            // The template whose parameters it fixes: deduced from its
            // parameter types, as C++ does for `template <> bool f(float)`.
            let found = primaries.iter().enumerate().find_map(|(index, primary)| {
                let ast::ItemKind::Function(pf) = &primary.item.kind else {
                    return None;
                };
                if pf.params.len() != locals.len() || explicit.len() > primary.params.len() {
                    return None;
                }
                let mut bound = HashMap::new();
                for (p, a) in primary.params.iter().zip(&explicit) {
                    bound.insert(p.name().name.clone(), a.clone());
                }
                let ok = pf.params.iter().zip(&locals).all(|(p, local)| {
                    let Some((ty, cv)) = specialised_param(p, local, &bound) else {
                        return false;
                    };
                    deduce(ck, primary, &p.specs, ty, cv, &mut bound, &[])
                });
                let args: Option<Vec<TArg>> = primary
                    .params
                    .iter()
                    .map(|p| bound.get(&p.name().name).cloned())
                    .collect();
                (ok).then_some(()).and(args).map(|a| (index, a))
            });
            let Some((index, args)) = found else {
                ck.error(
                    codes::E0240,
                    f.name.span,
                    format!("this specialisation matches no template `{name}` declared before"),
                    "no template to specialise",
                    "declare the template first, with parameters this specialisation fixes",
                );
                return;
            };
            ck.templates.function_specs.insert((name, index, args), def);
        }
        _ => ck.error(
            codes::E0211,
            span,
            "this kind of explicit specialisation is not supported yet",
            "specialisation",
            "write the specialised class or function under its own name",
        ),
    }
}

/// What the primary template's parameter `p` deduces from when an explicit
/// specialisation declares it as `local` (`bound`: the arguments known so
/// far): the type under `p`'s pointers, with the `const` a pointee or a
/// referent has. A parameter taken by value keeps the qualifiers of an
/// argument given for it (`f<const int>(int)` specialises `f(T)`: its
/// own `const` is no part of the function's type).
fn specialised_param<'t>(
    p: &ast::Param,
    local: &'t tessera_ir::Local,
    bound: &HashMap<String, TArg>,
) -> Option<(&'t Type, Cv)> {
    let modifiers = &p.declarator.modifiers;
    let mut ty = &local.ty;
    let mut cv = Cv::default();
    for _ in 0..modifiers.pointers {
        match ty {
            Type::Ptr { elem, is_const } => {
                ty = elem;
                cv.is_const = *is_const;
            }
            _ => return None,
        }
    }
    if modifiers.pointers == 0 {
        if modifiers.reference > 0 {
            cv.is_const = local.is_const;
        } else if let BaseType::Named(path) = &p.specs.ty
            && let Some(TArg::Type(_, given)) = bound.get(path.last())
        {
            cv = *given;
        }
    }
    Some((ty, cv))
}

/// How an argument list is shown in an instance's name: `float, 16`.
fn show_args(ck: &Checker, args: &[TArg]) -> String {
    args.iter()
        .map(|a| match a {
            TArg::Type(t, cv) => {
                let mut shown = String::new();
                if cv.is_const {
                    shown.push_str("const ");
                }
                if cv.is_volatile {
                    shown.push_str("volatile ");
                }
                shown.push_str(&ck.show(t));
                shown
            }
            TArg::Value(v) => v.to_string(),
            TArg::Template(path) => path.join("::"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The type a value parameter has (`int` unless written otherwise).
fn value_param_type(ck: &mut Checker, specs: &ast::DeclSpecs) -> Scalar {
    let before = ck.diags.len();
    let snapshot = crate::declare::const_snapshot(ck);
    let lookup = move |n: &str| snapshot.get(n).copied();
    let d = crate::types::resolve(ck, specs, &ast::Modifiers::default(), &[], &lookup);
    ck.diags.truncate(before);
    d.ty.scalar().unwrap_or(Scalar::Int)
}

/// Runs `f` with the parameters of `def` bound to `args`, seeing what the
/// template's definition saw; diagnostics it reports get a note naming the
/// instance and the use at `use_span` that asked for it.
fn with_bindings<T>(
    ck: &mut Checker,
    def: &TemplateDef,
    args: &[TArg],
    instance: &str,
    use_span: Span,
    f: impl FnOnce(&mut Checker) -> T,
) -> T {
    let mut types = HashMap::new();
    let mut values = HashMap::new();
    let mut template_params = HashMap::new();
    let mut qualified = HashMap::new();
    for (p, a) in def.params.iter().zip(args) {
        match (p, a) {
            (ast::TemplateParam::Template { name, .. }, TArg::Template(path)) => {
                template_params.insert(name.name.clone(), path.clone());
            }
            (ast::TemplateParam::Type { name, .. }, TArg::Type(t, cv)) => {
                types.insert(name.name.clone(), t.clone());
                if *cv != Cv::default() {
                    qualified.insert(name.name.clone(), *cv);
                }
            }
            (ast::TemplateParam::Value { name, specs, .. }, TArg::Value(v)) => {
                let s = value_param_type(ck, specs);
                values.insert(name.name.clone(), (*v, s));
            }
            _ => {}
        }
    }
    let namespace_aliases = ck.aliases.first().cloned().unwrap_or_default();
    let saved_aliases = std::mem::replace(&mut ck.aliases, vec![namespace_aliases, types]);
    let saved_usings = std::mem::replace(&mut ck.using_namespaces, def.usings.clone());
    let saved_consts = ck.const_globals.clone();
    {
        let consts = Rc::make_mut(&mut ck.const_globals);
        for (name, (v, _)) in &values {
            consts.insert(name.clone(), *v);
        }
    }
    let saved_values = std::mem::replace(&mut ck.templates.values, values);
    let saved_qualified = std::mem::replace(&mut ck.templates.qualified, qualified);
    let saved_template_params =
        std::mem::replace(&mut ck.templates.template_params, template_params);
    let saved_injected = ck.templates.injected.take();
    ck.templates.depth += 1;
    let before = ck.diags.len();
    let out = f(ck);
    ck.templates.depth -= 1;
    ck.templates.injected = saved_injected;
    ck.templates.values = saved_values;
    ck.templates.qualified = saved_qualified;
    ck.templates.template_params = saved_template_params;
    ck.const_globals = saved_consts;
    ck.using_namespaces = saved_usings;
    ck.aliases = saved_aliases;
    for d in &mut ck.diags[before..] {
        let note = format!("in `{instance}`, the instance of a template used here");
        if !d.secondary.iter().any(|s| s.span == use_span) {
            *d = d.clone().with_secondary(use_span, note);
        }
    }
    out
}

/// Reports a template nested too deeply; true when it is.
fn too_deep(ck: &mut Checker, span: Span) -> bool {
    if ck.templates.depth < MAX_DEPTH {
        return false;
    }
    ck.error(
        codes::E0213,
        span,
        format!("templates are instantiated more than {MAX_DEPTH} levels deep"),
        "instance needed here",
        "a template instantiating itself needs a case that stops it",
    );
    true
}

/// Resolves written template arguments.
fn resolve_args(
    ck: &mut Checker,
    args: &[TemplateArg],
    consts: crate::types::ConstLookup<'_>,
) -> Option<Vec<TArg>> {
    let mut out = Vec::new();
    for a in args {
        if let Some(path) = class_template_arg(ck, a, consts) {
            out.push(TArg::Template(path));
            continue;
        }
        match a {
            TemplateArg::Type(t) => {
                // `N` written where a value is expected parses as a type name
                // when it names a type; otherwise it is a value.
                let d = crate::types::resolve_type_name(ck, t, consts);
                if d.ty.is_error() {
                    return None;
                }
                out.push(TArg::Type(d.ty, ck.written_cv(t)));
            }
            TemplateArg::Expr(e) => out.push(TArg::Value(crate::types::eval(ck, e, consts)?)),
        }
    }
    Some(out)
}

/// The library's class templates a template template parameter may take.
const LIBRARY_CLASS_TEMPLATES: &[&str] = &[
    "array",
    "array_view",
    "vector",
    "deque",
    "list",
    "set",
    "multiset",
];

/// A template argument that names a class template without arguments
/// (`array`, `std::vector`, a user's `Stack`, or a template template
/// parameter bound now): its path.
fn class_template_arg(
    ck: &Checker,
    arg: &TemplateArg,
    consts: crate::types::ConstLookup<'_>,
) -> Option<Vec<String>> {
    let path = match arg {
        TemplateArg::Expr(ast::Expr {
            kind: ast::ExprKind::Name(path),
            ..
        }) => path,
        TemplateArg::Type(t) if t.modifiers == ast::Modifiers::default() && !t.specs.is_const => {
            match &t.specs.ty {
                BaseType::Named(path) => path,
                _ => return None,
            }
        }
        _ => return None,
    };
    let name = path.last();
    if path.segments.len() == 1 {
        if consts(name).is_some() || ck.alias(name).is_some() {
            return None;
        }
        if let Some(bound) = ck.templates.template_params.get(name) {
            return Some(bound.clone());
        }
    }
    let known = ck.templates.classes.contains_key(name) && path.segments.len() == 1
        || LIBRARY_CLASS_TEMPLATES.contains(&name);
    known.then(|| path.segments.iter().map(|s| s.name.clone()).collect())
}

/// Completes `args` with the defaults of the parameters after them; reports
/// a wrong number or kind of arguments.
fn complete_args(
    ck: &mut Checker,
    def: &TemplateDef,
    mut args: Vec<TArg>,
    name: &str,
    span: Span,
) -> Option<Vec<TArg>> {
    if args.len() > def.params.len() {
        ck.error(
            codes::E0213,
            span,
            format!(
                "`{name}` takes {} template argument{}, but {} were given",
                def.params.len(),
                if def.params.len() == 1 { "" } else { "s" },
                args.len()
            ),
            "too many template arguments",
            "",
        );
        return None;
    }
    for p in &def.params[args.len()..] {
        let arg = match p {
            ast::TemplateParam::Type {
                default: Some(t), ..
            } => {
                let bound = args.clone();
                let (d, cv) = with_bindings(ck, def, &bound, name, span, |ck| {
                    let snapshot = crate::declare::const_snapshot(ck);
                    let lookup = move |n: &str| snapshot.get(n).copied();
                    let d = crate::types::resolve_type_name(ck, t, &lookup);
                    (d, ck.written_cv(t))
                });
                TArg::Type(d.ty, cv)
            }
            ast::TemplateParam::Value {
                default: Some(e), ..
            } => {
                let bound = args.clone();
                let v = with_bindings(ck, def, &bound, name, span, |ck| {
                    let snapshot = crate::declare::const_snapshot(ck);
                    let lookup = move |n: &str| snapshot.get(n).copied();
                    crate::types::eval(ck, e, &lookup)
                })?;
                TArg::Value(v)
            }
            _ => {
                ck.error(
                    codes::E0213,
                    span,
                    format!("`{name}` needs a template argument for `{}`", p.name().name),
                    "missing template argument",
                    "",
                );
                return None;
            }
        };
        args.push(arg);
    }
    for (p, a) in def.params.iter().zip(&args) {
        let fits = matches!(
            (p, a),
            (ast::TemplateParam::Type { .. }, TArg::Type(..))
                | (ast::TemplateParam::Value { .. }, TArg::Value(_))
                | (ast::TemplateParam::Template { .. }, TArg::Template(_))
        );
        if !fits {
            let what = match p {
                ast::TemplateParam::Type { .. } => "a type",
                ast::TemplateParam::Value { .. } => "a constant",
                ast::TemplateParam::Template { .. } => "a class template",
            };
            ck.error(
                codes::E0213,
                span,
                format!(
                    "template parameter `{}` of `{name}` takes {what}",
                    p.name().name
                ),
                "wrong kind of template argument",
                "",
            );
            return None;
        }
    }
    Some(args)
}

/// `Name<args>` for a class template `Name`: its instance.
pub fn instantiate_class(
    ck: &mut Checker,
    path: &ast::Path,
    args: &[TemplateArg],
    consts: crate::types::ConstLookup<'_>,
) -> Type {
    let name = path.last().to_string();
    let Some(def) = ck.templates.classes.get(&name).cloned() else {
        return Type::Error;
    };
    let Some(args) = resolve_args(ck, args, consts) else {
        return Type::Error;
    };
    let Some(args) = complete_args(ck, &def, args, &name, path.span) else {
        return Type::Error;
    };
    let instance = format!("{name}<{}>", show_args(ck, &args));
    if let Some(&id) = ck.structs.get(&instance) {
        return Type::Struct(id);
    }
    // `L<T>* prev` inside `L<int>`: the instance being defined, which
    // `types::base_type` lets only a pointer name.
    if let Some((_, id)) = ck.defining.iter().rev().find(|(n, _)| *n == instance) {
        return Type::Struct(*id);
    }
    if too_deep(ck, path.span) {
        return Type::Error;
    }
    if ck.templates.unmatchable.contains(&name)
        && !ck
            .templates
            .class_specs
            .contains_key(&(name.clone(), args.clone()))
    {
        ck.error(
            codes::E0211,
            path.span,
            format!("`{name}` has a partial specialisation Tessera cannot match yet, so its instances are not supported"),
            "an instance",
            "specialise for the types you need with `template <>`",
        );
        return Type::Error;
    }
    // An explicit specialisation, else the one partial specialisation the
    // arguments match (bound to its own parameters), else the primary.
    let mut partial = false;
    let (def, bind_args) = match ck.templates.class_specs.get(&(name.clone(), args.clone())) {
        Some(spec) => (spec.clone(), args.clone()),
        None => {
            let mut found = matching_partial_specs(ck, &name, &args, path.span);
            match found.len() {
                0 => (def, args.clone()),
                1 => {
                    partial = true;
                    found.remove(0)
                }
                n => {
                    ck.error(
                        codes::E0211,
                        path.span,
                        format!("{n} partial specialisations of `{name}` match `{instance}`; choosing the most specialised one is not supported yet"),
                        "several match",
                        "add an explicit specialisation `template <> struct ...` for these arguments",
                    );
                    return Type::Error;
                }
            }
        }
    };
    let ast::ItemKind::Struct(s) = &def.item.kind else {
        return Type::Error;
    };
    let mut s = s.clone();
    s.name.name = instance.clone();
    s.specialization = None;
    // Member typedefs (`typedef Iter<T> iterator;`) are aliases of the
    // instance's scope, where its members are declared and defined.
    let mut typedefs = Vec::new();
    let mut k = 0;
    while k < s.fields.len() {
        if s.fields[k].specs.is_typedef {
            typedefs.push(s.fields.remove(k));
            if k < s.field_access.len() {
                s.field_access.remove(k);
            }
        } else {
            k += 1;
        }
    }
    let span = def.item.span;
    let inst = instance.clone();
    let declaring = (def.clone(), bind_args.clone(), instance.clone());
    with_bindings(ck, &def, &bind_args, &instance, path.span, |ck| {
        let consts = ck.const_globals.clone();
        for d in &typedefs {
            crate::types::declare_aliases(ck, &d.specs, &d.declarators, &|n| {
                consts.get(n).copied()
            });
        }
        // The member typedefs, for the bodies checked later.
        let declared = ck.aliases.last().cloned().unwrap_or_default();
        ck.templates.member_aliases.insert(inst.clone(), declared);
        ck.templates.injected = Some((name.clone(), inst));
        let saved = ck.templates.declaring.replace(declaring);
        crate::declare::declare_struct(ck, &s, span);
        ck.templates.declaring = saved;
    });
    let Some(&id) = ck.structs.get(&instance) else {
        return Type::Error;
    };
    ck.templates
        .instance_of
        .insert(id, (name.clone(), args.clone()));
    ck.templates
        .class_instances
        .entry(name.clone())
        .or_default()
        .push((instance.clone(), args.clone()));
    // Members defined outside the class belong to the primary template;
    // a partial specialisation defines its own in the class.
    let members = if partial {
        Vec::new()
    } else {
        ck.templates
            .class_members
            .get(&name)
            .cloned()
            .unwrap_or_default()
    };
    for member in members {
        define_member(ck, &member, &instance, &args, path.span);
    }
    Type::Struct(id)
}

/// The instance of function template `def` (the `index`th of its name) for
/// `args`, declared on first use.
/// The definition (template number `index` of `name`) of a function
/// template declared earlier without a body: instances of the declaration
/// made before now (C++ instantiates at the end of the file, so a later
/// definition counts) get their bodies from it. Only a declaration of the
/// same shape can be the same template: as many template and function
/// parameters.
fn define_declared_instances(
    ck: &mut Checker,
    name: &str,
    index: usize,
    def: &Rc<TemplateDef>,
    span: Span,
) {
    let ast::ItemKind::Function(defined) = &def.item.kind else {
        return;
    };
    let shape = |d: &TemplateDef| match &d.item.kind {
        ast::ItemKind::Function(f) => Some((
            d.params
                .iter()
                .map(|p| matches!(p, ast::TemplateParam::Type { .. }))
                .collect::<Vec<_>>(),
            f.params.len(),
        )),
        _ => None,
    };
    let Some(defs) = ck.templates.functions.get(name).cloned() else {
        return;
    };
    let declared: Vec<usize> = defs
        .iter()
        .enumerate()
        .filter(|(i, d)| {
            *i != index
                && matches!(&d.item.kind, ast::ItemKind::Function(f) if f.body.is_none())
                && shape(d) == shape(def)
        })
        .map(|(i, _)| i)
        .collect();
    if declared.is_empty() {
        return;
    }
    let made: Vec<(usize, Vec<TArg>)> = ck
        .templates
        .function_instances
        .iter()
        .filter(|((n, i, _), id)| n == name && declared.contains(i) && id.is_some())
        .map(|((_, i, args), _)| (*i, args.clone()))
        .collect();
    for (_, args) in made {
        let instance = format!("{name}<{}>", show_args(ck, &args));
        let mut f = defined.clone();
        f.name.name = instance.clone();
        let item_span = def.item.span;
        let key = (name.to_string(), index, args.clone());
        // Declaring the definition under the instance's name completes the
        // body-less instance when the signatures agree (as a definition
        // after a prototype does).
        let id = with_bindings(ck, def, &args, &instance, span, |ck| {
            crate::declare::declare_function_signature_first(ck, &f, item_span, |ck, id| {
                ck.templates
                    .function_instances
                    .insert(key.clone(), Some(id));
            })
        });
        ck.templates.function_instances.insert(key, id);
    }
}

fn instantiate_function(
    ck: &mut Checker,
    name: &str,
    index: usize,
    def: &Rc<TemplateDef>,
    args: Vec<TArg>,
    span: Span,
) -> Option<FuncId> {
    let key = (name.to_string(), index, args.clone());
    if let Some(found) = ck.templates.function_instances.get(&key) {
        return *found;
    }
    if too_deep(ck, span) {
        return None;
    }
    let spec = ck.templates.function_specs.get(&key).cloned();
    let def = spec.as_ref().unwrap_or(def);
    let ast::ItemKind::Function(f) = &def.item.kind else {
        return None;
    };
    let mut instance = format!("{name}<{}>", show_args(ck, &args));
    // Two different templates of one name may give instances with the same
    // arguments (`f(T, int)` and `f(int, T)` as `f<int>`): distinct
    // functions, which must not be taken for a redefinition.
    let same_args_elsewhere = ck
        .templates
        .function_instances
        .keys()
        .any(|(n, i, a)| n == name && *i != index && *a == args);
    if same_args_elsewhere {
        let defs = ck
            .templates
            .functions
            .get(name)
            .cloned()
            .unwrap_or_default();
        let distinct = defs.iter().take(index).all(|other| match &other.item.kind {
            ast::ItemKind::Function(g) => {
                !crate::ordering::equivalent((&def.params, f), (&other.params, g))
            }
            _ => true,
        });
        if distinct {
            instance = format!("{instance}#{}", index + 1);
        }
    }
    let mut f = f.clone();
    f.name.name = instance.clone();
    let item_span = def.item.span;
    // The signature now, for overload resolution; the body when a use
    // needs it (`ensure_body`).
    let mut signature = f.clone();
    signature.body = None;
    let id = with_bindings(ck, def, &args, &instance, span, |ck| {
        crate::declare::declare_function_signature_first(ck, &signature, item_span, |_, _| {})
    });
    if let Some(id) = id
        && f.body.is_some()
    {
        ck.templates.lazy_functions.insert(
            id,
            LazyFunction {
                def: Rc::clone(def),
                args: args.clone(),
                instance,
                function: f,
            },
        );
    }
    ck.templates.function_instances.insert(key, id);
    id
}

/// Checks the bodies of the function-template instances the program uses
/// and that no use checked yet (a use by a path that does not call
/// [`ensure_body`] itself: an address taken, an operator), until no used
/// instance is left without its body. Instances that were only candidates
/// stay declarations: nothing calls them.
pub fn define_used_instances(ck: &mut Checker) {
    loop {
        let mut wanted: Vec<(FuncId, Span)> = Vec::new();
        if ck.templates.lazy_functions.is_empty() {
            return;
        }
        let lazy = &ck.templates.lazy_functions;
        let mut note = |e: &tessera_ir::Expr| {
            let used = match &e.kind {
                tessera_ir::ExprKind::Call { func, .. } => Some(*func),
                tessera_ir::ExprKind::Launch { kernel, .. } => Some(*kernel),
                tessera_ir::ExprKind::FuncAddr(Some(func)) => Some(*func),
                _ => None,
            };
            if let Some(id) = used
                && lazy.contains_key(&id)
                && !wanted.iter().any(|(w, _)| *w == id)
            {
                wanted.push((id, e.span));
            }
        };
        tessera_ir::visit::for_each_program_expr(&ck.program, &mut note);
        if wanted.is_empty() {
            return;
        }
        for (id, span) in wanted {
            ensure_body(ck, id, span);
        }
    }
}

/// What a function parameter `p` deduces its template arguments from, for
/// the argument `arg` (`read_only` when it names a `const` object): the
/// type under the parameter's pointers, with the qualifiers C++ deduces
/// with it. `T*` against an `int*` (or an `int[4]`, which decays) deduces
/// from the pointee, `T*` against a `const int*` makes `T` a `const int`,
/// and so does `T&` against a `const int` object; a parameter `T` taken by
/// value sees the argument without its `const` and an array decayed (`f(T)`
/// called with an `int[4]` makes `T` an `int*`). `None` when the argument
/// has fewer pointers than the parameter.
fn deduction_target(p: &ast::Param, arg: &Expr, read_only: bool) -> Option<(Type, Cv)> {
    let modifiers = &p.declarator.modifiers;
    let mut ty = &arg.ty;
    let mut cv = Cv::default();
    for _ in 0..modifiers.pointers {
        (ty, cv.is_const) = match ty {
            Type::Ptr { elem, is_const } => (elem, *is_const),
            Type::CArray(elem, _) => (elem, read_only),
            _ => return None,
        };
    }
    if modifiers.pointers > 0 {
        return Some((ty.clone(), cv));
    }
    if modifiers.reference > 0 {
        cv.is_const = read_only && arg.place;
        return Some((ty.clone(), cv));
    }
    if let Type::CArray(elem, _) = ty {
        let decayed = Type::Ptr {
            elem: elem.clone(),
            is_const: read_only,
        };
        return Some((decayed, cv));
    }
    Some((ty.clone(), cv))
}

/// Deduces template arguments from a parameter's written type and the
/// argument's type, as C++ does for the forms Tessera has.
fn deduce(
    ck: &Checker,
    def: &TemplateDef,
    pattern: &ast::DeclSpecs,
    arg: &Type,
    arg_cv: Cv,
    bound: &mut HashMap<String, TArg>,
    given: &[String],
) -> bool {
    let is_type_param = |n: &str| {
        def.params
            .iter()
            .any(|p| matches!(p, ast::TemplateParam::Type { name, .. } if name.name == n))
    };
    let is_value_param = |n: &str| {
        def.params
            .iter()
            .any(|p| matches!(p, ast::TemplateParam::Value { name, .. } if name.name == n))
    };
    // A parameter given explicitly is not deduced: the argument converts.
    let bind = |name: &str, value: TArg, bound: &mut HashMap<String, TArg>| match bound.get(name) {
        _ if given.iter().any(|g| g == name) => true,
        Some(prev) => *prev == value,
        None => {
            bound.insert(name.to_string(), value);
            true
        }
    };
    match &pattern.ty {
        BaseType::Named(path) if path.segments.len() == 1 && is_type_param(path.last()) => {
            // `const T` deduced from a `const int` leaves `T = int`; `T`
            // from it (through a reference or pointer) `T = const int`.
            let cv = arg_cv.without(Cv::of_specs(pattern));
            bind(path.last(), TArg::Type(arg.clone(), cv), bound)
        }
        BaseType::Template { path, args }
            if path.segments.len() == 1
                && def.params.iter().any(|p| {
                    matches!(p, ast::TemplateParam::Template { name, .. } if name.name == path.last())
                }) =>
        {
            // `C<T, N>` where `C` is a template template parameter: `C` is
            // the template the argument is an instance of, and its
            // arguments deduce as if it had been written.
            let Some(template) = template_of(ck, arg) else {
                return false;
            };
            if !bind(path.last(), TArg::Template(template.clone()), bound) {
                return false;
            }
            let mut named = path.clone();
            if let Some(last) = named.segments.last_mut()
                && let Some(n) = template.last()
            {
                last.name = n.clone();
            }
            let pattern = ast::DeclSpecs {
                ty: BaseType::Template {
                    path: named,
                    args: args.clone(),
                },
                ..pattern.clone()
            };
            deduce(ck, def, &pattern, arg, arg_cv, bound, given)
        }
        BaseType::Template { path, args } => {
            let value_of = |e: &ast::Expr| match &e.kind {
                ast::ExprKind::Name(p) if p.segments.len() == 1 && is_value_param(p.last()) => {
                    Some(p.last().to_string())
                }
                _ => None,
            };
            let mut pairs: Vec<(&TemplateArg, TArg)> = Vec::new();
            match (path.last(), arg) {
                ("array_view", Type::ArrayView { elem, rank, read_only }) => {
                    // `array_view<T, N>` from an `array_view<const int, 1>`
                    // makes `T` a `const int`.
                    let cv = Cv {
                        is_const: *read_only,
                        is_volatile: false,
                    };
                    if let Some(a) = args.first() {
                        pairs.push((a, TArg::Type((**elem).clone(), cv)));
                    }
                    if let Some(a) = args.get(1) {
                        pairs.push((a, TArg::Value(i64::from(*rank))));
                    }
                }
                ("array", Type::Array(elem, rank)) => {
                    if let Some(a) = args.first() {
                        pairs.push((a, TArg::Type((**elem).clone(), Cv::default())));
                    }
                    if let Some(a) = args.get(1) {
                        pairs.push((a, TArg::Value(i64::from(*rank))));
                    }
                }
                ("vector", Type::Vector(elem)) => {
                    if let Some(a) = args.first() {
                        pairs.push((a, TArg::Type((**elem).clone(), Cv::default())));
                    }
                }
                (name, Type::Container(kind, elem)) if kind.name() == name => {
                    if let Some(a) = args.first() {
                        pairs.push((a, TArg::Type((**elem).clone(), Cv::default())));
                    }
                }
                ("index", Type::Index(r)) | ("extent", Type::Extent(r)) => {
                    if let Some(a) = args.first() {
                        pairs.push((a, TArg::Value(i64::from(*r))));
                    }
                }
                ("tiled_index", Type::TiledIndex(shape))
                | ("tiled_extent", Type::TiledExtent(shape)) => {
                    // `tiled_extent<19>` is `tiled_extent<19, 0, 0>`: the
                    // library's defaults fill the dimensions not written.
                    let dims = shape.dims().iter().map(|d| i64::from(*d));
                    for (a, d) in args.iter().zip(dims.chain(std::iter::repeat(0))) {
                        pairs.push((a, TArg::Value(d)));
                    }
                }
                (name, Type::Struct(id)) => {
                    if let Some((template, targs)) = ck.templates.instance_of.get(id)
                        && template == name
                    {
                        for (a, t) in args.iter().zip(targs) {
                            pairs.push((a, t.clone()));
                        }
                    }
                }
                // `array<T, N>` against a `std::vector<int>`: C++ deduces
                // without conversions, so the template does not fit (a
                // class may still reach a user template through a base).
                (name, _) if DEDUCED_LIBRARY_TEMPLATES.contains(&name) => return false,
                (name, _) if ck.templates.classes.contains_key(name) => return false,
                _ => {}
            }
            for (pat, actual) in pairs {
                let ok = match (pat, &actual) {
                    (TemplateArg::Type(t), TArg::Type(ty, cv)) => {
                        deduce(ck, def, &t.specs, ty, *cv, bound, given)
                    }
                    (TemplateArg::Expr(e), TArg::Value(_)) => match value_of(e) {
                        Some(n) => bind(&n, actual.clone(), bound),
                        None => true,
                    },
                    // A value parameter's name parses as a type argument
                    // when nothing says otherwise.
                    (TemplateArg::Type(t), TArg::Value(_)) => match &t.specs.ty {
                        BaseType::Named(p) if p.segments.len() == 1 && is_value_param(p.last()) => {
                            bind(p.last(), actual.clone(), bound)
                        }
                        _ => true,
                    },
                    _ => true,
                };
                if !ok {
                    return false;
                }
            }
            true
        }
        _ => true,
    }
}

/// The library class templates whose instances `deduce` looks into: an
/// argument of another type does not fit a parameter written with them.
const DEDUCED_LIBRARY_TEMPLATES: &[&str] = &[
    "array",
    "array_view",
    "vector",
    "deque",
    "list",
    "set",
    "multiset",
    "unordered_set",
    "unordered_multiset",
    "index",
    "extent",
    "tiled_index",
    "tiled_extent",
];

/// The class template `ty` is an instance of, as a path, for deducing a
/// template template parameter.
fn template_of(ck: &Checker, ty: &Type) -> Option<Vec<String>> {
    let name = match ty {
        Type::Array(..) => "array".to_string(),
        Type::ArrayView { .. } => "array_view".to_string(),
        Type::Vector(_) => return Some(vec!["std".into(), "vector".into()]),
        Type::Container(kind, _) => return Some(vec!["std".into(), kind.name().to_string()]),
        Type::Struct(id) => ck.templates.instance_of.get(id)?.0.clone(),
        _ => return None,
    };
    Some(vec![name])
}

impl FnCx<'_> {
    /// True when `name` names a function template.
    pub(crate) fn is_function_template(&self, name: &str) -> bool {
        self.ck.templates.functions.contains_key(name)
    }

    /// The value of a template value parameter bound here.
    pub(crate) fn template_value(&self, name: &str, span: Span) -> Option<Expr> {
        let (v, s) = self.ck.templates.values.get(name)?;
        Some(crate::expr::mk(
            tessera_ir::ExprKind::Const(tessera_ir::Const::Int(*v)),
            Type::Scalar(*s),
            false,
            span,
        ))
    }

    /// A call of `name(args)` where `name` has function templates (and maybe
    /// plain functions `plain`): deduces each template's arguments (after
    /// the `explicit` ones), instantiates the templates that fit, and lets
    /// overload resolution choose, a plain function winning a tie.
    pub(crate) fn call_templates(
        &mut self,
        path: &ast::Path,
        plain: &[FuncId],
        explicit: Option<&[TemplateArg]>,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let name = path.last().to_string();
        // Deduction sees a vector's iterator as the pointer it is stored as.
        let args: Vec<Expr> = args
            .into_iter()
            .map(|a| crate::library::materialize_iterator(self, a))
            .collect();
        let explicit = match explicit {
            Some(written) => {
                let visible = self.visible_consts();
                let lookup = move |n: &str| visible.get(n);
                match resolve_args(self.ck, written, &lookup) {
                    Some(a) => a,
                    None => return error_expr(span),
                }
            }
            None => Vec::new(),
        };
        let instances = self.template_instances(&name, &explicit, &args, span);
        self.call_candidates(path, plain, instances, args, span)
    }

    /// Calls the best of `plain` functions and template `instances` (all
    /// named as `path`): a plain function that fits exactly beats every
    /// instance; none at all is an error.
    pub(crate) fn call_candidates(
        &mut self,
        path: &ast::Path,
        plain: &[FuncId],
        instances: Vec<FuncId>,
        args: Vec<Expr>,
        span: Span,
    ) -> Expr {
        let name = path.last().to_string();
        if instances.is_empty() && plain.is_empty() {
            if args.iter().any(|a| a.ty.is_error()) {
                return error_expr(span);
            }
            let shown: Vec<String> = args.iter().map(|a| self.ck.show(&a.ty)).collect();
            self.ck.report(
                Diagnostic::error(
                    codes::E0240,
                    span,
                    format!(
                        "no instance of template `{name}` takes ({})",
                        shown.join(", ")
                    ),
                )
                .with_label("template arguments cannot be deduced from these arguments")
                .with_msvc("C2783")
                .with_help(format!("give the template arguments: `{name}<...>(...)`")),
            );
            return error_expr(span);
        }
        // A plain function that fits exactly beats every template instance.
        let exact_plain: Vec<FuncId> = plain
            .iter()
            .copied()
            .filter(|id| {
                self.ck.program.get_function(*id).is_some_and(|f| {
                    f.params as usize == args.len()
                        && f.locals.iter().zip(&args).all(|(p, a)| p.ty == a.ty)
                })
            })
            .collect();
        let candidates = if exact_plain.is_empty() {
            let mut all = plain.to_vec();
            all.extend(instances);
            all
        } else {
            exact_plain
        };
        self.call_user(path, &candidates, args, span, false)
    }

    /// The instances of the function templates named `name` that a call
    /// with `args` (and `explicit` template arguments) can use, the less
    /// specialised and the redeclared left out.
    pub(crate) fn template_instances(
        &mut self,
        name: &str,
        explicit: &[TArg],
        args: &[Expr],
        span: Span,
    ) -> Vec<FuncId> {
        let name = name.to_string();
        let defs = self
            .ck
            .templates
            .functions
            .get(&name)
            .cloned()
            .unwrap_or_default();
        let mut instances = Vec::new();
        for (index, def) in defs.iter().enumerate() {
            let ast::ItemKind::Function(f) = &def.item.kind else {
                continue;
            };
            if explicit.len() > def.params.len() {
                continue;
            }
            // A template whose function cannot take this many arguments is
            // not a candidate: it is not instantiated (C++'s SFINAE-free
            // arity check comes first).
            let required = f
                .params
                .iter()
                .filter(|p| p.declarator.init.is_none())
                .count();
            if args.len() > f.params.len() || args.len() < required {
                continue;
            }
            let mut bound: HashMap<String, TArg> = HashMap::new();
            let mut given = Vec::new();
            for (p, a) in def.params.iter().zip(explicit) {
                bound.insert(p.name().name.clone(), a.clone());
                given.push(p.name().name.clone());
            }
            let read_only: Vec<bool> = args
                .iter()
                .map(|a| self.read_only_reason(a).is_some())
                .collect();
            let deduced = f
                .params
                .iter()
                .zip(args)
                .zip(&read_only)
                .all(|((p, a), &ro)| {
                    if a.ty.is_error() {
                        return true;
                    }
                    let Some((ty, cv)) = deduction_target(p, a, ro) else {
                        return false;
                    };
                    deduce(self.ck, def, &p.specs, &ty, cv, &mut bound, &given)
                });
            if !deduced {
                continue;
            }
            // Parameters up to the last one deduced or given, then defaults.
            let mut ordered = Vec::new();
            for p in &def.params {
                match bound.get(&p.name().name) {
                    Some(a) => ordered.push(a.clone()),
                    None => break,
                }
            }
            if ordered.len() < def.params.len()
                && def.params[ordered.len()..].iter().any(|p| {
                    matches!(
                        p,
                        ast::TemplateParam::Type { default: None, .. }
                            | ast::TemplateParam::Value { default: None, .. }
                            | ast::TemplateParam::Template { .. }
                    )
                })
            {
                continue;
            }
            let before = self.ck.diags.len();
            let Some(full) = complete_args(self.ck, def, ordered, &name, span) else {
                self.ck.diags.truncate(before);
                continue;
            };
            if let Some(id) = instantiate_function(self.ck, &name, index, def, full, span) {
                instances.push((id, f.body.is_some(), index));
            }
        }
        let instances = self.most_specialised(instances, &defs, args.len());
        self.drop_redeclarations(instances)
    }

    /// Of instances with the same signature, those whose template is less
    /// specialised than another's give way ([temp.func.order]): they would
    /// tie in overload resolution, and C++ breaks the tie this way.
    fn most_specialised(
        &self,
        instances: Vec<(FuncId, bool, usize)>,
        defs: &[std::rc::Rc<TemplateDef>],
        count: usize,
    ) -> Vec<(FuncId, bool)> {
        let signature = |id: FuncId| {
            self.ck.program.get_function(id).map(|f| {
                f.locals
                    .iter()
                    .take(f.params as usize)
                    .map(|l| (l.ty.clone(), l.by_ref, l.is_const))
                    .collect::<Vec<_>>()
            })
        };
        let template = |index: usize| {
            defs.get(index).and_then(|d| match &d.item.kind {
                ast::ItemKind::Function(f) => Some((d.params.as_slice(), f)),
                _ => None,
            })
        };
        instances
            .iter()
            .filter(|&&(id, _, index)| {
                let sig = signature(id);
                !instances.iter().any(|&(other, _, other_index)| {
                    other_index != index
                        && signature(other) == sig
                        && match (template(other_index), template(index)) {
                            (Some(a), Some(b)) => crate::ordering::more_specialised(a, b, count),
                            _ => false,
                        }
                })
            })
            .map(|&(id, body, _)| (id, body))
            .collect()
    }

    /// A template declared first and defined later (`template <class T> T
    /// f(T);` ... `template <class T> T f(T x) {...}`) is one template in
    /// C++: of instances with the same signature, the ones from a
    /// declaration without a body give way to one with a body.
    fn drop_redeclarations(&self, instances: Vec<(FuncId, bool)>) -> Vec<FuncId> {
        let signature = |id: FuncId| {
            self.ck.program.get_function(id).map(|f| {
                let params: Vec<(Type, bool)> = f
                    .locals
                    .iter()
                    .take(f.params as usize)
                    .map(|l| (l.ty.clone(), l.by_ref))
                    .collect();
                (params, f.restriction)
            })
        };
        let mut kept: Vec<FuncId> = Vec::new();
        for &(id, has_body) in &instances {
            let sig = signature(id);
            let defined_twin = instances
                .iter()
                .any(|&(other, body)| other != id && body && signature(other) == sig);
            if (has_body || !defined_twin) && !kept.contains(&id) {
                kept.push(id);
            }
        }
        kept
    }
}
