//! The checker's state: the program being built and the tables of names.

use std::collections::HashMap;
use std::rc::Rc;
use tessera_diagnostics::{Code, Diagnostic, Span};
use tessera_ir::{
    Const, Expr, ExprKind, FuncId, Function, GlobalId, Local, LocalId, Program, Restriction, Space,
    StructId, Type,
};
use tessera_syntax::ast;

/// Whole-program state.
#[derive(Default)]
pub struct Checker {
    /// The program being built.
    /// The library header files of the unit (see
    /// `ast::TranslationUnit::library_files`).
    pub library_files: Vec<tessera_diagnostics::FileId>,
    /// The standard headers the unit includes, and what they bring.
    pub(crate) headers: crate::library::headers::Included,
    /// Member functions of library classes declared but not lowered yet:
    /// each is lowered on its first use (see `class::lower_library_member`).
    pub library_lazy: HashMap<FuncId, crate::class::LazyLibraryMember>,
    /// The library class being declared, when the checker owns its tree:
    /// its lazy members keep it instead of a copy of each body.
    pub library_class: Option<Rc<ast::StructDef>>,
    /// The library function being declared, when the checker owns its
    /// tree: its body is lowered on first use (see
    /// `class::LazyLibraryMember`).
    pub library_function: Option<Rc<ast::Function>>,
    /// The namespace pass's state, for the library bodies set aside that
    /// it rewrites when they are parsed (see [`Checker::lazy_body`]).
    pub namespaces: Option<crate::namespaces::Pending>,
    /// The library bodies set aside and parsed so far, by number: each is
    /// parsed once, however often a template's is lowered.
    pub lazy_bodies: HashMap<u32, Rc<ast::Block>>,
    pub program: Program,
    /// Diagnostics so far.
    pub diags: Vec<Diagnostic>,
    /// Struct names.
    pub structs: HashMap<String, StructId>,
    /// Global variables by name.
    pub globals: HashMap<String, GlobalId>,
    /// Values of constant integral globals, for constant expressions.
    pub global_consts: HashMap<GlobalId, i64>,
    /// The same values by name; shared (not copied) by every constant lookup.
    pub const_globals: Rc<HashMap<String, i64>>,
    /// Functions by name (several: overloads).
    pub functions: HashMap<String, Vec<FuncId>>,
    /// Calls naming functions of several namespaces as one overload set,
    /// by the key the namespace pass renamed their callee to.
    pub overload_sets: crate::namespaces::OverloadSets,
    /// Namespaces made visible so far by `using namespace` (as written,
    /// `concurrency::fast_math`), which decide what an unqualified `sqrt` is.
    pub using_namespaces: Vec<String>,
    /// Operator functions made visible by using-declarations in the blocks
    /// being lowered (`using ns::operator<<;`), by their flat names.
    pub used_operators: Vec<String>,
    /// Type aliases (`typedef`, `using name = T;`) by scope: namespace scope
    /// first, then one map per block being lowered, innermost last.
    pub aliases: Vec<HashMap<String, Type>>,
    /// Default arguments by function, one entry per parameter: the value,
    /// lowered where the function is declared and converted to the
    /// parameter's type, and where it was written.
    pub defaults: HashMap<FuncId, Vec<Option<(Expr, Span)>>>,
    /// Enumerations, by `EnumId`.
    pub enums: Vec<crate::enums::EnumInfo>,
    /// Enumerations by name.
    pub enum_names: HashMap<String, crate::enums::EnumId>,
    /// Enumerators of unscoped enumerations by their plain name, with values.
    pub enumerators: HashMap<String, (crate::enums::EnumId, i64)>,
    /// Locals (and parameters) of an enumeration type, by their declaration span.
    pub enum_locals: HashMap<Span, crate::enums::EnumId>,
    /// While a local class is declared: the restriction of the function it
    /// is in, where its members' default arguments are bound.
    pub local_class_context: Option<Restriction>,
    /// Globals of an enumeration type.
    pub enum_globals: HashMap<GlobalId, crate::enums::EnumId>,
    /// Data members of an enumeration type, by class and field position.
    pub enum_fields: HashMap<(tessera_ir::StructId, u32), crate::enums::EnumId>,
    /// Functions with an enumeration in their signature: return, parameters.
    pub enum_sigs: HashMap<FuncId, crate::enums::EnumSig>,
    /// The `std::tuple` types made so far: each element's enumeration, if
    /// it has one (see `library::tuple`).
    pub tuples: HashMap<StructId, Vec<Option<crate::enums::EnumId>>>,
    /// The `<random>` engines and distributions made so far (see
    /// `library::random`).
    pub random: HashMap<StructId, crate::library::random::RandomKind>,
    /// The expressions lowered so far whose type is an enumeration, by span.
    pub enum_spans: HashMap<Span, crate::enums::EnumId>,
    /// What the checker knows of each struct or class beyond its data:
    /// member functions, constructors, access, bases, static members.
    pub classes: HashMap<StructId, crate::class::ClassInfo>,
    /// Class and function templates and their instances.
    pub templates: crate::template::Templates,
    /// Calls in `restrict(amp, cpu)` code that resolve to another function
    /// in amp code: by the call's span and host callee, the amp call (see
    /// `context.rs`).
    pub dual_calls: HashMap<(Span, FuncId), tessera_ir::Expr>,
    /// A class declares a destructor: full expressions are searched for
    /// temporaries to destroy (see `special.rs`).
    pub any_dtor: bool,
    /// The functions declared `extern "C"`, by name: C linkage allows one
    /// function of a name.
    pub c_functions: HashMap<String, (FuncId, Span)>,
    /// The function objects made for functions named as values, and the
    /// function each calls (see `lambda.rs`), which converts to a function
    /// pointer.
    pub function_objects: HashMap<StructId, FuncId>,
    /// Where the `decltype` being resolved is written: the locals and
    /// restriction of the code around it (`None`: namespace scope).
    pub decltype_scope: Option<crate::decltype::DecltypeScope>,
    /// Unevaluated operands (`decltype`) being typed: a call there needs
    /// its callee's declaration only, so no template body is instantiated.
    pub unevaluated: u32,
    /// The parameters declared as rvalue references (`T&&`), by the span
    /// of their declaration (the `Local`'s).
    pub rvalue_refs: std::collections::HashSet<Span>,
    /// Set while a parameter's type is resolved: `T&&` is allowed there.
    pub resolving_param: bool,
    /// Classes declared (`class X;`) and not defined yet, with the id their
    /// definition will fill: a member function declared without a body may
    /// take one by reference (see `prototype_param`), as the short vectors
    /// of `<amp_short_vectors.h>` convert to each other both ways.
    pub declared_only: HashMap<String, StructId>,
    /// Set while a reference parameter of a member function declared
    /// without a body is resolved: the one place a class of
    /// `declared_only` may be named before its definition.
    pub prototype_param: bool,
    /// The classes whose data members are being declared, innermost last,
    /// with the id their definition will fill: a member may point to one
    /// (`struct Node { Node* next; };`), as C++ allows a pointer to an
    /// incomplete class, but not hold one (see `types::base_type`).
    pub defining: Vec<(String, StructId)>,
    /// The member aliases (`typedef float value_type;`, `using size_type =
    /// int;`) each class declares, with their access, named `S::value_type`
    /// outside the class and plainly inside it (see `types::member_type`).
    pub class_aliases: HashMap<StructId, HashMap<String, (Type, ast::Access)>>,
    /// The classes whose scope the code being checked is in (a class's
    /// definition, its member functions' bodies, innermost last): where a
    /// private or protected member alias may be named.
    pub class_scopes: Vec<StructId>,
    /// Set by `types::resolve` for a declarator with a `*` of its own, for
    /// the one `base_type` call that resolves the pointee: only there may a
    /// class of `defining` be named.
    pub pointee_ok: bool,
    /// Set while a member alias is declared: it may name the class being
    /// defined (`using self = Node;`), as C++ allows an alias of an
    /// incomplete class; what uses the alias is checked as usual.
    pub declaring_member_alias: bool,
    /// The structs of PPL's `task<T>` made so far, with their `T`
    /// (`Type::Void` for `task<void>`; see `library::task`).
    pub task_results: HashMap<StructId, Type>,
    /// The spans of the `std::move(x)` calls of an object `x` lowered so
    /// far: an rvalue reference parameter binds `x` itself.
    pub moved: std::collections::HashSet<Span>,
    /// The spans of the `std::move(x)` calls whose value is a copy of `x`
    /// (an element of a view): no rvalue reference parameter binds them.
    pub moved_copies: std::collections::HashSet<Span>,
    /// What each `decltype` resolved last gave beside its type, by span.
    pub decltypes: HashMap<Span, crate::decltype::DecltypeResult>,
}

impl Checker {
    /// The statements of `block` when it is a library body set aside
    /// unparsed (see `tessera_syntax::lazy`): parsed now (once), with the
    /// namespace pass's rewriting, and what the parser reported in it
    /// among the diagnostics. `None` for a block with its statements.
    pub fn lazy_body(&mut self, block: &ast::Block) -> Option<Rc<ast::Block>> {
        let lazy = block.lazy.as_ref()?;
        if let Some(parsed) = self.lazy_bodies.get(&lazy.index) {
            return Some(Rc::clone(parsed));
        }
        let (mut parsed, diags) = tessera_syntax::parse_lazy_body(lazy);
        self.diags.extend(diags);
        if let Some(pending) = &mut self.namespaces {
            crate::namespaces::rewrite_lazy(
                pending,
                lazy.index,
                &mut parsed,
                &mut self.diags,
                &mut self.overload_sets,
            );
        }
        let parsed = Rc::new(parsed);
        self.lazy_bodies.insert(lazy.index, Rc::clone(&parsed));
        Some(parsed)
    }

    /// Whether function `id` has its body: lowered, or a library
    /// function's waiting for its first use (which counts as defined: a
    /// second definition is one).
    pub fn has_body(&self, id: FuncId) -> bool {
        self.library_lazy.contains_key(&id)
            || self
                .program
                .get_function(id)
                .is_some_and(|g| g.body.is_some())
    }

    /// True if `using namespace concurrency::NAME;` (or `Concurrency::`) came before.
    pub fn uses_amp_namespace(&self, name: &str) -> bool {
        self.using_namespaces
            .iter()
            .any(|n| n == &format!("concurrency::{name}") || n == &format!("Concurrency::{name}"))
    }
}

impl Checker {
    /// The `const` and `volatile` of declaration specifiers: those written,
    /// and those of the type argument bound to a template parameter they
    /// name (`T x` with `T = const int` declares a `const int`; `const T`
    /// is then `const` once).
    pub fn specs_cv(&self, specs: &ast::DeclSpecs) -> crate::template::Cv {
        let written = crate::template::Cv::of_specs(specs);
        match &specs.ty {
            ast::BaseType::Named(path) if path.segments.len() == 1 => {
                match self.templates.qualified.get(path.last()) {
                    Some(bound) => written.union(*bound),
                    None => written,
                }
            }
            ast::BaseType::Decltype { span, .. } => {
                written.union(crate::decltype::result_of(self, *span).cv)
            }
            // `std::remove_const<T>::type`: `T`'s qualifiers but the removed.
            ast::BaseType::Template { path, args } => {
                let removed = match path.last() {
                    "__remove_const" => crate::template::Cv {
                        is_const: true,
                        is_volatile: false,
                    },
                    "__remove_volatile" => crate::template::Cv {
                        is_const: false,
                        is_volatile: true,
                    },
                    "__remove_cv" => crate::template::Cv {
                        is_const: true,
                        is_volatile: true,
                    },
                    _ => return written,
                };
                match args.as_slice() {
                    [ast::TemplateArg::Type(t)] => {
                        written.union(self.written_cv(t).without(removed))
                    }
                    _ => written,
                }
            }
            _ => written,
        }
    }

    /// Whether declaration specifiers make their type `const`, written or
    /// through a template parameter bound to a `const` type.
    pub fn specs_const(&self, specs: &ast::DeclSpecs) -> bool {
        self.specs_cv(specs).is_const
    }

    /// The top-level qualifiers of a type written as a template argument:
    /// none when it is a pointer or reference (their `const` is the
    /// pointee's, which the pointer type keeps).
    pub fn written_cv(&self, t: &ast::TypeName) -> crate::template::Cv {
        if t.modifiers.pointers == 0 && t.modifiers.reference == 0 {
            self.specs_cv(&t.specs)
        } else {
            crate::template::Cv::default()
        }
    }

    /// The type an alias visible here names, innermost scope first.
    pub fn alias(&self, name: &str) -> Option<&Type> {
        self.aliases.iter().rev().find_map(|s| s.get(name))
    }

    /// Declares an alias in the innermost scope; false if that scope
    /// already has an alias of this name for another type.
    pub fn declare_alias(&mut self, name: &str, ty: Type) -> bool {
        if self.aliases.is_empty() {
            self.aliases.push(HashMap::new());
        }
        let Some(scope) = self.aliases.last_mut() else {
            return false;
        };
        match scope.get(name) {
            Some(prev) => *prev == ty || ty.is_error() || prev.is_error(),
            None => {
                scope.insert(name.to_string(), ty);
                true
            }
        }
    }

    /// Reports a diagnostic.
    pub fn report(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Reports an error with a label and a help line.
    pub fn error(
        &mut self,
        code: Code,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) {
        let help = help.into();
        let mut d = Diagnostic::error(code, span, message).with_label(label);
        if !help.is_empty() {
            d = d.with_help(help);
        }
        self.diags.push(d);
    }

    /// The fields of a struct (none for an unknown id), as an owned copy so
    /// the caller may go on reporting while it walks them.
    pub fn struct_fields(&self, id: StructId) -> Vec<(String, Type)> {
        self.program
            .get_struct(id)
            .map(|s| s.fields.clone())
            .unwrap_or_default()
    }

    /// True when `ty` is a union type.
    pub fn is_union(&self, ty: &Type) -> bool {
        matches!(ty, Type::Struct(id) if self.program.get_struct(*id).is_some_and(|s| s.is_union))
    }

    /// A type as C++ writes it.
    pub fn show(&self, ty: &Type) -> String {
        tessera_ir::display(ty, &self.program.structs)
    }
}

/// A variable a kernel may capture: a local of the function around the lambda.
#[derive(Clone, Debug)]
pub struct Capturable {
    /// The local in the enclosing function.
    pub local: LocalId,
    /// Its description there.
    pub info: Local,
}

/// How the kernel being lowered captures.
#[derive(Clone, Debug)]
pub struct KernelCx {
    /// Locals of the enclosing function visible at the lambda, innermost last.
    pub outer: Vec<(String, Capturable)>,
    /// `[=]` / `[&]`.
    pub default_capture: Option<tessera_syntax::ast::CaptureDefault>,
    /// The lambda is `mutable`: its by-value copies may be written.
    pub is_mutable: bool,
    /// Named constants visible at the lambda (see `FnCx::visible_consts`).
    pub outer_consts: HashMap<String, Option<i64>>,
    /// Explicit captures: name, by reference, span.
    pub explicit: Vec<(String, bool, Span)>,
    /// Captures made so far: name, outer local, by reference, slot.
    pub made: Vec<(String, LocalId, bool)>,
    /// Span of the capture list.
    pub capture_span: Span,
}

/// State while lowering one function body.
pub struct FnCx<'c> {
    /// The whole-program state.
    pub ck: &'c mut Checker,
    /// The function being built (its `locals` grow as declarations are met).
    pub func: Function,
    /// Scopes, innermost last: name to local.
    pub scopes: Vec<HashMap<String, LocalId>>,
    /// Loops around the current statement.
    pub loops: u32,
    /// Switches around the current statement.
    pub switches: u32,
    /// Set while lowering a kernel lambda.
    pub kernel: Option<KernelCx>,
    /// Values of the `const` integral locals with a constant initialiser.
    pub local_consts: HashMap<LocalId, i64>,
    /// The enumeration the function returns, if it returns one.
    pub ret_enum: Option<crate::enums::EnumId>,
    /// The enumerations of the values of the `switch`es around, innermost last.
    pub switch_enums: Vec<Option<crate::enums::EnumId>>,
    /// Set while lowering a member function or constructor: the object.
    pub this: Option<crate::class::ThisCx>,
    /// The (promoted) types of the values of the `switch`es around,
    /// innermost last: a case label must fit it.
    pub switch_types: Vec<Option<tessera_ir::Scalar>>,
    /// Lowering a lambda without `-> T`: its first `return` gives the
    /// return type.
    pub deducing_return: bool,
    /// The objects in scope whose destructor runs code, in the order they
    /// were made: the scope depth (`scopes.len()`) that declared each, the
    /// local and the destructor call (see `special.rs`).
    pub cleanups: Vec<(usize, LocalId, Expr)>,
    /// Set while the arguments of a constructor chosen for an implicit
    /// conversion are converted: an implicit conversion sequence holds one
    /// user-defined conversion at most (C++ [over.best.ics]), so none of
    /// them converts through a constructor again (which, for a copy
    /// constructor, would never end).
    pub converting: bool,
    /// The loops and `switch`es around the current statement, innermost
    /// last: the scope depth outside the body, and whether it is a loop
    /// (the target of `continue`).
    pub jump_scopes: Vec<(usize, bool)>,
    /// The local every `return` of the function names, which C++ compilers
    /// build in the caller's object: returning it copies and destroys
    /// nothing (named return value optimisation).
    pub nrvo: Option<String>,
    /// The function pointer type the expression being lowered goes to, for
    /// a function named there (see `fnptr.rs`); taken by the next `expr`.
    pub fn_target: Option<Type>,
    /// A constructor is building a base subobject, which may be of an
    /// abstract class (see `Checker::check_not_abstract`).
    pub building_base: bool,
    /// Building the elements of a C array of objects: their constructor is
    /// called implicitly, which MSVC reports as C3931, not C3930, when it
    /// cannot run here.
    pub building_elements: bool,
    /// Lowering the operand of `&`: a constant global is then the object,
    /// not its value (see `global`).
    pub taking_address: bool,
    /// `goto` targets: the labels of the blocks around the current
    /// statement, innermost last (see `goto.rs`).
    pub labels: crate::goto::Labels,
}

impl<'c> FnCx<'c> {
    /// A context for `func`.
    pub fn new(ck: &'c mut Checker, func: Function) -> Self {
        FnCx {
            ck,
            func,
            scopes: vec![HashMap::new()],
            loops: 0,
            switches: 0,
            kernel: None,
            local_consts: HashMap::new(),
            ret_enum: None,
            switch_enums: Vec::new(),
            this: None,
            switch_types: Vec::new(),
            deducing_return: false,
            cleanups: Vec::new(),
            converting: false,
            jump_scopes: Vec::new(),
            nrvo: None,
            fn_target: None,
            building_base: false,
            building_elements: false,
            taking_address: false,
            labels: crate::goto::Labels::default(),
        }
    }

    /// The restriction of the code being lowered.
    pub fn restriction(&self) -> Restriction {
        self.func.restriction
    }

    /// True inside code that may run on the accelerator.
    pub fn in_amp(&self) -> bool {
        self.func.restriction.amp
    }

    /// The space new locals live in.
    pub fn local_space(&self) -> Space {
        if self.in_amp() {
            Space::Private
        } else {
            Space::Host
        }
    }

    /// Declares a local in the innermost scope; reports a redeclaration there.
    pub fn declare(&mut self, local: Local) -> LocalId {
        let id = LocalId(self.func.locals.len() as u32);
        let name = local.name.clone();
        let span = local.span;
        self.func.locals.push(local);
        // Unnamed locals (parameters without a name, the hidden variables of a
        // range-for) cannot be referred to, so they enter no scope.
        if name.is_empty() {
            return id;
        }
        let previous = self
            .scopes
            .last_mut()
            .and_then(|scope| scope.insert(name.clone(), id));
        if let Some(prev) = previous {
            let prev_span = self.func.get_local(prev).map(|l| l.span);
            let mut d = Diagnostic::error(
                tessera_diagnostics::codes::E0202,
                span,
                format!("`{name}` is declared twice in the same scope"),
            )
            .with_label("second declaration")
            .with_help("rename one of them, or drop the type to assign to the first");
            if let Some(p) = prev_span {
                d = d.with_secondary(p, "first declared here");
            }
            self.ck.report(d);
        }
        id
    }

    /// Finds a local by name, innermost scope first.
    pub fn lookup_local(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Runs `f` in a new scope.
    pub fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.scopes.push(HashMap::new());
        if self.ck.aliases.is_empty() {
            self.ck.aliases.push(HashMap::new());
        }
        self.ck.aliases.push(HashMap::new());
        let usings = self.ck.using_namespaces.len();
        let operators = self.ck.used_operators.len();
        let out = f(self);
        self.leave_scope();
        self.ck.using_namespaces.truncate(usings);
        self.ck.used_operators.truncate(operators);
        self.ck.aliases.pop();
        self.scopes.pop();
        out
    }

    /// The description of a local.
    pub fn local(&self, id: LocalId) -> Option<&Local> {
        self.func.get_local(id)
    }
}

/// An expression standing for something that failed to check (already reported).
pub fn error_expr(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Const(Const::Int(0)),
        ty: Type::Error,
        place: false,
        span,
    }
}

/// The named constants visible at a point: locals (a local that is not a
/// constant hides a constant of the same name further out) and globals.
#[derive(Clone, Debug, Default)]
pub struct Consts {
    /// Locals that are constants (`Some`) or hide one (`None`).
    pub locals: HashMap<String, Option<i64>>,
    /// The constant globals.
    pub globals: Rc<HashMap<String, i64>>,
}

impl Consts {
    /// The value of `name`, if it is a constant here.
    pub fn get(&self, name: &str) -> Option<i64> {
        match self.locals.get(name) {
            Some(v) => *v,
            None => self.globals.get(name).copied(),
        }
    }
}
