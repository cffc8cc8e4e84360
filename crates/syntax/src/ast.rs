//! The spanned syntax tree.
//!
//! Invariants:
//! - every node carries the [`Span`] of the source it was parsed from (for a
//!   macro expansion, the span of the macro's use);
//! - every [`Expr`] and [`Stmt`] records its `height` (1 for a leaf), and the
//!   parser never builds one higher than [`MAX_HEIGHT`]: later passes may
//!   recurse over the tree without risking the stack.
//!
//! The tree is what was written, not what it means: names are unresolved,
//! `float(x)` is a [`ExprKind::Construct`] whether it is a cast or not, and
//! type specifiers are kept as written in [`DeclSpecs`].

use serde::Serialize;
use tessera_diagnostics::{FileId, Span};

/// The deepest tree the parser builds; deeper input is an error (E0104).
pub const MAX_HEIGHT: u32 = 400;

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ident {
    /// The text.
    pub name: String,
    /// Where.
    pub span: Span,
}

/// A possibly qualified name: `x`, `std::cout`, `concurrency::fast_math::sqrt`, `::f`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Path {
    /// True for a leading `::`.
    pub global: bool,
    /// The segments, outermost first; never empty.
    pub segments: Vec<Ident>,
    /// Where.
    pub span: Span,
}

impl Path {
    /// The last segment's text.
    pub fn last(&self) -> &str {
        self.segments.last().map_or("", |s| s.name.as_str())
    }

    /// The path as written, without spaces: `std::cout`.
    pub fn text(&self) -> String {
        let joined = self
            .segments
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join("::");
        if self.global {
            format!("::{joined}")
        } else {
            joined
        }
    }
}

/// A whole `.amp` file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TranslationUnit {
    /// Top-level declarations in order.
    pub items: Vec<Item>,
    /// The files among the unit's sources that are library headers
    /// written in the Tessera language (`<string>`, `<algorithm>`, ...;
    /// see `crate::headers`). The checker lowers the bodies of their
    /// classes' member functions only when a use needs them: they are
    /// correct, so checking an unused one reports nothing, and a program
    /// uses few of them. Not part of the tree as written (`dump ast`
    /// leaves library items out too).
    #[serde(skip)]
    pub library_files: Vec<FileId>,
    /// The standard headers the unit includes (`iostream`, `amp.h`), as its
    /// `#include`s name them, its own headers' included; `None` for a unit
    /// not read from a file (a REPL session's program), to which every
    /// library name is declared. The checker follows what each header
    /// brings with it.
    #[serde(skip)]
    pub standard_headers: Option<Vec<&'static str>>,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Item {
    /// What it is.
    pub kind: ItemKind,
    /// Where.
    pub span: Span,
}

/// The kinds of top-level declaration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ItemKind {
    /// `using namespace concurrency;`
    UsingNamespace(Path),
    /// `using std::cout;`
    UsingDecl(Path),
    /// `namespace a { ... }`, `namespace a::b { ... }` or, with no name
    /// segments, the anonymous `namespace { ... }`.
    Namespace(Namespace),
    /// `namespace short_name = very::long_name;`
    NamespaceAlias {
        /// The new name.
        name: Ident,
        /// The namespace it stands for.
        target: Path,
    },
    /// A `struct` or `class` definition.
    Struct(StructDef),
    /// A function definition or prototype.
    Function(Function),
    /// Global variables (or constants).
    Global(Decl),
    /// `static_assert(cond, "message");`
    StaticAssert(StaticAssert),
    /// `enum E { ... };` or `enum class E : int { ... };`
    Enum(EnumDef),
    /// `template <typename T, int N> ...`: a class or function template.
    Template(Template),
    /// A stray `;`.
    Empty,
    /// What could not be parsed (already reported).
    Error,
}

/// `template <params> item`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Template {
    /// The parameters.
    pub params: Vec<TemplateParam>,
    /// The templated class (an `ItemKind::Struct`) or function.
    pub item: Box<Item>,
    /// The template arguments written after a function's name in an
    /// explicit specialisation: `<u>` in `template <> bool f<u>(u x)`.
    pub specialised: Option<Vec<TemplateArg>>,
}

/// One template parameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum TemplateParam {
    /// `typename T` / `class T`, with a default type.
    Type {
        /// The name.
        name: Ident,
        /// `= int`
        default: Option<TypeName>,
    },
    /// `int N`, with a default value.
    Value {
        /// The parameter's type.
        specs: DeclSpecs,
        /// The name.
        name: Ident,
        /// `= 4`
        default: Option<Expr>,
    },
    /// `template <typename, int> class C`: a template template parameter,
    /// whose argument is a class template (`array`, `std::vector`).
    Template {
        /// The parameters of the templates it takes (their defaults are
        /// read but not used: the argument's own apply).
        params: Vec<TemplateParam>,
        /// The name.
        name: Ident,
    },
}

/// The name given to a template parameter written without one
/// (`template <typename, int> class C`): no identifier can spell it.
pub const UNNAMED_PARAM: &str = "<unnamed>";

/// The name the parser gives the `...` that ends a C variadic parameter
/// list (its type is [`BaseType::Error`]: no value has it); see
/// [`Param::is_ellipsis`].
pub const ELLIPSIS_PARAM: &str = "...";

impl TemplateParam {
    /// The parameter's name.
    pub fn name(&self) -> &Ident {
        match self {
            TemplateParam::Type { name, .. }
            | TemplateParam::Value { name, .. }
            | TemplateParam::Template { name, .. } => name,
        }
    }
}

/// `namespace a::b { items }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Namespace {
    /// The name segments (`a`, `b` for `namespace a::b`); empty when anonymous.
    pub name: Vec<Ident>,
    /// The declarations inside, in order.
    pub items: Vec<Item>,
    /// How deeply namespaces nest here: 1 when `items` holds none.
    pub depth: u32,
}

/// The keyword a class definition starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ClassKey {
    /// `struct`
    Struct,
    /// `class`
    Class,
    /// `union`
    Union,
}

/// `struct Name { fields };`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StructDef {
    /// `class` rather than `struct`.
    pub is_class: bool,
    /// `union`: the members share their storage.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_union: bool,
    /// The name.
    pub name: Ident,
    /// Members in order (access specifiers are not kept; see `access_spans`).
    pub fields: Vec<Decl>,
    /// Spans of `public:` / `private:` / `protected:` labels.
    pub access_spans: Vec<Span>,
    /// Variables declared after the closing brace: `struct P {...} p;`.
    pub trailing: Vec<Declarator>,
    /// `static_assert`s among the members, in order.
    pub asserts: Vec<StaticAssert>,
    /// Member functions, constructors and destructors defined or declared
    /// in the class, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<Member<Function>>,
    /// Member function templates (`template <int N> void f();` in the
    /// class), each a [`Template`] of an `ItemKind::Function`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub method_templates: Vec<Member<Template>>,
    /// Data members with the access that applies to each, parallel to `fields`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub field_access: Vec<Access>,
    /// Base classes: `struct D : public B`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<Member<BaseType>>,
    /// `struct S final`: no class may derive from it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_final: bool,
    /// The arguments of an explicit specialisation: `<float>` in
    /// `template <> struct Vec<float> { ... };`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specialization: Option<Vec<TemplateArg>>,
    /// The classes declared `friend` (by name; a class template's name
    /// stands for its instances).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub friends: Vec<Ident>,
    /// `class X;`: declared here, defined later (no members).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub forward: bool,
    /// The bit fields among `fields` (`unsigned n : 31;`), by the span of
    /// each field's declaration: read so the checker can refuse them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bit_fields: Vec<Span>,
    /// Classes defined inside this one (`struct Inner { ... };` among the
    /// members), each with the access that applies to its name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<Member<StructDef>>,
}

/// Who may name a class member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Access {
    /// `public`
    Public,
    /// `protected`
    Protected,
    /// `private`
    Private,
}

/// A class member (or base) with the access that applies to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Member<T> {
    /// Who may name it.
    pub access: Access,
    /// The member.
    pub item: T,
}

/// `enum Name : T { A, B = 2 };`, `enum class Name { ... };`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnumDef {
    /// `enum class` or `enum struct`: a scoped enumeration.
    pub scoped: bool,
    /// The name (empty for `enum { A, B };`).
    pub name: Ident,
    /// The underlying type, if given.
    pub underlying: Option<TypeName>,
    /// The enumerators, with their values if given.
    pub enumerators: Vec<(Ident, Option<Expr>)>,
    /// Where.
    pub span: Span,
}

/// `static_assert(cond, "message");` (the message is optional, as in C++17).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StaticAssert {
    /// The constant condition.
    pub cond: Expr,
    /// The message's string literals as written (quotes and escapes kept).
    pub message: Option<Vec<String>>,
    /// Where.
    pub span: Span,
}

/// A function definition (with a body) or declaration (without).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Function {
    /// Return type and specifiers (`static`, `inline`).
    pub ret: DeclSpecs,
    /// `*` / `&` on the return type.
    pub ret_modifiers: Modifiers,
    /// The name.
    pub name: Ident,
    /// The parameters.
    pub params: Vec<Param>,
    /// `restrict(...)`, if written.
    pub restrict: Option<Restrict>,
    /// Where a dynamic exception specification (`throw()`, `throw(int)`)
    /// is written, if one is: C++ AMP forbids them in amp code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception_spec: Option<Span>,
    /// The body, or `None` for a prototype.
    pub body: Option<Block>,
    /// The class qualifier of a member defined outside its class: `Point`
    /// in `float Point::length() const`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<Ident>,
    /// The template arguments of the class qualifier of a member of a class
    /// template defined outside it: `<T>` in `T Matrix<T>::get()`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_args: Option<Vec<TemplateArg>>,
    /// What a member function is, beside its name.
    #[serde(skip_serializing_if = "MethodInfo::is_plain")]
    pub method: MethodInfo,
    /// Where `extern "C"` gave the function C language linkage, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_linkage: Option<Span>,
}

/// The parts of a declaration that only member functions have.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MethodInfo {
    /// `const` after the parameters: `this` is a pointer to const.
    pub is_const: bool,
    /// `volatile` after the parameters: `this` is a pointer to volatile.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_volatile: bool,
    /// `= 0`: a pure virtual function.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_pure: bool,
    /// `const` written after `restrict(...)`, an order C++ AMP rejects.
    pub const_after_restrict: bool,
    /// `virtual`
    pub is_virtual: bool,
    /// `override`
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_override: bool,
    /// `final`
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_final: bool,
    /// `explicit` (constructors)
    pub is_explicit: bool,
    /// `= default`
    pub defaulted: bool,
    /// `= delete`
    pub deleted: bool,
    /// A constructor (with its member initialisers) or a destructor.
    pub special: Special,
}

impl MethodInfo {
    /// True for a free function (nothing of a member written).
    pub fn is_plain(&self) -> bool {
        *self == MethodInfo::default()
    }
}

/// Constructors and destructors.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub enum Special {
    /// An ordinary function.
    #[default]
    None,
    /// A constructor, with its member initialiser list.
    Constructor(Vec<MemberInit>),
    /// A destructor (`~Name`).
    Destructor,
}

/// One entry of a constructor's initialiser list: `x(a)`, `base{1, 2}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberInit {
    /// The member or base class initialised.
    pub name: Ident,
    /// The arguments.
    pub args: Vec<Expr>,
    /// Written with braces.
    pub braces: bool,
    /// Where.
    pub span: Span,
}

/// `restrict(amp, cpu)`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Restrict {
    /// The specifiers as written (`amp`, `cpu`, or anything else, for the checker to judge).
    pub specifiers: Vec<Ident>,
    /// The whole clause.
    pub span: Span,
}

/// A function or lambda parameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Param {
    /// The type specifiers.
    pub specs: DeclSpecs,
    /// The declarator: name (optional), `&`, `*`, array bounds, default value.
    pub declarator: Declarator,
    /// Where.
    pub span: Span,
}

impl Param {
    /// Whether this is the `...` ending a C variadic parameter list.
    pub fn is_ellipsis(&self) -> bool {
        self.specs.ty == BaseType::Error
            && self
                .declarator
                .name
                .as_ref()
                .is_some_and(|n| n.name == ELLIPSIS_PARAM)
    }
}

/// Declaration specifiers: storage class, qualifiers and the base type, in any order as C++ allows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeclSpecs {
    /// `const`
    pub is_const: bool,
    /// `volatile`
    pub is_volatile: bool,
    /// `static`
    pub is_static: bool,
    /// `constexpr`
    pub is_constexpr: bool,
    /// `tile_static`, with its span (the checker points at it).
    pub tile_static: Option<Span>,
    /// `extern`
    pub is_extern: bool,
    /// `inline`
    pub is_inline: bool,
    /// `typedef` (or an alias declaration `using name = T;`): the
    /// declarators name types, not variables.
    pub is_typedef: bool,
    /// The base type.
    pub ty: BaseType,
    /// Where (all the specifiers).
    pub span: Span,
}

impl DeclSpecs {
    /// Specifiers naming the type `ty` and nothing else (no `const`,
    /// `static`, ...).
    pub fn plain(ty: BaseType, span: Span) -> DeclSpecs {
        DeclSpecs {
            is_const: false,
            is_volatile: false,
            is_static: false,
            is_constexpr: false,
            tile_static: None,
            is_extern: false,
            is_inline: false,
            is_typedef: false,
            ty,
            span,
        }
    }

    /// The specifiers of a declaration naming the class `name` and nothing
    /// else: the variables declared after a class definition
    /// (`struct A { ... } x;`).
    pub fn naming_class(name: &Ident) -> DeclSpecs {
        let path = Path {
            global: false,
            segments: vec![name.clone()],
            span: name.span,
        };
        DeclSpecs::plain(BaseType::Named(path), name.span)
    }
}

/// The base type named by declaration specifiers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum BaseType {
    /// A fundamental type.
    Builtin(Builtin),
    /// `auto`
    Auto,
    /// A class name: `Description`, `tile_barrier`, `concurrency::accelerator`.
    Named(Path),
    /// A template instance: `array_view<const float, 2>`, `std::vector<int>`.
    Template {
        /// The template's name.
        path: Path,
        /// The arguments.
        args: Vec<TemplateArg>,
    },
    /// `decltype(expr)`: the type of an expression, which the checker
    /// finds by typing it (unevaluated).
    Decltype {
        /// The operand.
        expr: Box<Expr>,
        /// Written `decltype((expr))`: C++ then reads the operand as an
        /// expression even when it is a name (an lvalue gives `T&`).
        parenthesised: bool,
        /// The whole specifier.
        span: Span,
    },
    /// Specifiers that name no valid type (already reported).
    Error,
}

/// The fundamental types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Builtin {
    /// `void`
    Void,
    /// `bool`
    Bool,
    /// `char`
    Char,
    /// `signed char`
    SignedChar,
    /// `unsigned char`
    UnsignedChar,
    /// `short`
    Short,
    /// `unsigned short`
    UnsignedShort,
    /// `int`
    Int,
    /// `unsigned`, `unsigned int`
    Unsigned,
    /// `long`
    Long,
    /// `unsigned long`
    UnsignedLong,
    /// `long long`
    LongLong,
    /// `unsigned long long`
    UnsignedLongLong,
    /// `float`
    Float,
    /// `double`
    Double,
    /// `long double`
    LongDouble,
}

impl Builtin {
    /// The canonical C++ spelling.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Void => "void",
            Builtin::Bool => "bool",
            Builtin::Char => "char",
            Builtin::SignedChar => "signed char",
            Builtin::UnsignedChar => "unsigned char",
            Builtin::Short => "short",
            Builtin::UnsignedShort => "unsigned short",
            Builtin::Int => "int",
            Builtin::Unsigned => "unsigned int",
            Builtin::Long => "long",
            Builtin::UnsignedLong => "unsigned long",
            Builtin::LongLong => "long long",
            Builtin::UnsignedLongLong => "unsigned long long",
            Builtin::Float => "float",
            Builtin::Double => "double",
            Builtin::LongDouble => "long double",
        }
    }
}

/// A template argument: a type or a constant expression.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum TemplateArg {
    /// `float`, `const int`
    Type(TypeName),
    /// `2`, `SAMPLESIZE * 2`
    Expr(Expr),
}

/// A type as written in a cast, template argument or lambda return type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TypeName {
    /// The specifiers.
    pub specs: DeclSpecs,
    /// `*` and `&` after them.
    pub modifiers: Modifiers,
    /// Where.
    pub span: Span,
}

/// Pointer and reference modifiers of a declarator.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Modifiers {
    /// Number of `*`.
    pub pointers: u32,
    /// `&` (1) or `&&` (2); 0 for none.
    pub reference: u8,
    /// `const` after a `*` (`int* const p`).
    pub const_pointer: bool,
    /// A function declarator, `(*p)(int, float)`: the declared entity is a
    /// pointer to (or reference to) a function. The fields above then
    /// describe the entity: `*` counts the function pointer itself (`(*p)`
    /// has one, `(**pp)` two), `&` is a reference to a function pointer
    /// (`(*&rp)`); a function reference `(&r)` has neither and is held as
    /// a function pointer that cannot change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<Box<FunctionDeclarator>>,
}

/// The part of a declarator that makes a pointer or reference to a
/// function: `(*p)(int) restrict(cpu)`, `(&r)(int)`, `(C::*pm)(int)`, or
/// without a name in a type (`int (*)(int)`). The name and array bounds
/// written inside the parentheses stay on the [`Declarator`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionDeclarator {
    /// The `*`, `const` and `&` inside the parentheses, as written: one
    /// `*` makes a function pointer (more make pointers to it), `&` alone a
    /// function reference, `*&` a reference to a function pointer.
    pub inner: Modifiers,
    /// The `*` and `&` of the function's return type (before the
    /// parentheses).
    pub ret: Modifiers,
    /// `C` in `(C::*pm)`: a pointer to a member function of `C`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<Ident>,
    /// The function's parameters.
    pub params: Vec<Param>,
    /// `restrict(...)` written after the parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restrict: Option<Restrict>,
    /// `const` after the parameters of a pointer to a member function: it
    /// points to a `const` member function (`volatile` there is read and
    /// means nothing more to host code).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub object_const: bool,
    /// Where, from the opening parenthesis to the end.
    pub span: Span,
}

/// A declaration statement: specifiers and one or more declarators.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decl {
    /// The shared specifiers.
    pub specs: DeclSpecs,
    /// `a = 1`, `b[3]`, `c(4, 5)`.
    pub declarators: Vec<Declarator>,
    /// Where.
    pub span: Span,
}

/// One declared name with its modifiers and initialiser.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Declarator {
    /// The name (absent for unnamed parameters).
    pub name: Option<Ident>,
    /// `*`, `&`.
    pub modifiers: Modifiers,
    /// Array bounds, outermost first; `None` for `[]`.
    pub array_dims: Vec<Option<Expr>>,
    /// The initialiser.
    pub init: Option<Init>,
    /// Where.
    pub span: Span,
}

/// How a declared variable is initialised.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Init {
    /// `= expr` (including `= {a, b}`).
    Assign(Expr),
    /// `(a, b)`
    Paren(Vec<Expr>),
    /// `{a, b}`
    Brace(Vec<Expr>),
}

/// A `{ ... }` block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Block {
    /// The statements (none yet when `lazy` is set).
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
    /// For the body of a library function, its tokens set aside unparsed
    /// (see [`crate::lazy`]): the checker parses them with
    /// [`crate::parse_lazy_body`] when it lowers the function. Never set
    /// for the program's own code, nor for a block inside a body.
    #[serde(skip)]
    pub lazy: Option<crate::lazy::LazyBody>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where.
    pub span: Span,
    /// Height of this subtree (see the module invariants).
    pub height: u32,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum StmtKind {
    /// `expr;`
    Expr(Expr),
    /// `static_assert(cond, "message");` in a block.
    StaticAssert(StaticAssert),
    /// `class C { ... };` in a function body: a local class.
    Class(Box<StructDef>),
    /// `int a = 1, b;`
    Decl(Decl),
    /// `int f(int) restrict(amp);` in a block: a function declared there
    /// (no body).
    FnDecl(Box<Function>),
    /// `{ ... }`
    Block(Block),
    /// `if (cond) then else els`
    If {
        /// The condition.
        cond: Expr,
        /// Taken when true.
        then: Box<Stmt>,
        /// Taken when false.
        els: Option<Box<Stmt>>,
    },
    /// `for (init; cond; step) body`
    For {
        /// A declaration or expression statement (or none).
        init: Option<Box<Stmt>>,
        /// The condition (none means forever).
        cond: Option<Expr>,
        /// The step.
        step: Option<Expr>,
        /// The body.
        body: Box<Stmt>,
    },
    /// `for (int x : v) body`
    ForRange {
        /// The loop variable's specifiers.
        specs: DeclSpecs,
        /// The loop variable.
        declarator: Declarator,
        /// What is iterated.
        range: Expr,
        /// The body.
        body: Box<Stmt>,
    },
    /// `while (cond) body`
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Box<Stmt>,
    },
    /// `do body while (cond);`
    DoWhile {
        /// The body.
        body: Box<Stmt>,
        /// The condition.
        cond: Expr,
    },
    /// `switch (cond) body`
    Switch {
        /// The value switched on.
        cond: Expr,
        /// The body (its `case` labels are statements in it).
        body: Box<Stmt>,
    },
    /// `case value: stmt`, `default: stmt`, `name: stmt`.
    Labeled {
        /// The label.
        label: Label,
        /// The labelled statement.
        stmt: Box<Stmt>,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` / `return expr;`
    Return(Option<Expr>),
    /// `goto label;`
    Goto(Ident),
    /// `using namespace ns;` (`namespace` true) or `using ns::f;` in a block.
    Using {
        /// A `using` directive rather than a using-declaration.
        namespace: bool,
        /// What it names.
        path: Path,
    },
    /// `try { } catch (T e) { } catch (...) { }`
    Try {
        /// The guarded block.
        body: Block,
        /// The handlers, in order.
        handlers: Vec<Handler>,
    },
    /// `;`
    Empty,
    /// What could not be parsed (already reported).
    Error,
}

/// `catch (T e) { ... }` or `catch (...) { ... }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Handler {
    /// The caught type and name; `None` for `...`.
    pub param: Option<Param>,
    /// The handler's block.
    pub body: Block,
    /// Where.
    pub span: Span,
}

/// A statement label.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Label {
    /// `case value:`
    Case(Expr),
    /// `default:`
    Default,
    /// `name:` (a `goto` target).
    Named(Ident),
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
    /// Height of this subtree (see the module invariants).
    pub height: u32,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*x`
    Deref,
    /// `&x`
    AddrOf,
    /// `++x`
    PreInc,
    /// `--x`
    PreDec,
    /// `x++`
    PostInc,
    /// `x--`
    PostDec,
}

/// Binary operators (assignment has its own node).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `,` (the comma operator)
    Comma,
    /// `.*`: a pointer to member applied to an object.
    MemberPointer,
    /// `->*`: a pointer to member applied through a pointer to the object.
    MemberPointerArrow,
}

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Comma => ",",
            BinaryOp::MemberPointer => ".*",
            BinaryOp::MemberPointerArrow => "->*",
        }
    }
}

/// The C++ named casts and the C-style cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CastKind {
    /// `(T)x`
    CStyle,
    /// `static_cast<T>(x)`
    Static,
    /// `const_cast<T>(x)`
    Const,
    /// `reinterpret_cast<T>(x)`
    Reinterpret,
    /// `dynamic_cast<T>(x)`
    Dynamic,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ExprKind {
    /// An integer literal, raw text with suffix (`0x1Fu`).
    Int(String),
    /// A floating literal, raw text with suffix (`1.5f`).
    Float(String),
    /// A character literal with quotes (`'a'`).
    Char(String),
    /// A string literal with quotes (and `L` prefix); adjacent literals are kept apart.
    Str(Vec<String>),
    /// `true` / `false`
    Bool(bool),
    /// `nullptr`
    Nullptr,
    /// `this`
    This,
    /// A name: variable, function, enumerator, `std::endl`.
    Name(Path),
    /// A unary operation.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// A binary operation.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `a = b`, or `a op= b` when `op` is set.
    Assign {
        /// The compound operator, if any.
        op: Option<BinaryOp>,
        /// The target.
        lhs: Box<Expr>,
        /// The value.
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Conditional {
        /// The condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        els: Box<Expr>,
    },
    /// A cast with explicit syntax.
    Cast {
        /// Which cast.
        kind: CastKind,
        /// The target type.
        ty: Box<TypeName>,
        /// The value.
        operand: Box<Expr>,
    },
    /// `T(args)` or `T{args}`: a functional cast or a construction (`extent<2>(4, 6)`).
    Construct {
        /// The type.
        ty: Box<TypeName>,
        /// The arguments.
        args: Vec<Expr>,
        /// Written with braces.
        braces: bool,
    },
    /// `f(args)`, `av(i, j)`, `idx.barrier.wait()`.
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `a[i]`
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `a.b`, `a->b`, `e.tile<2, 3>` (the template arguments of a member template).
    Member {
        /// The object.
        base: Box<Expr>,
        /// The member.
        name: Ident,
        /// `->` rather than `.`.
        arrow: bool,
        /// Explicit template arguments.
        template_args: Option<Vec<TemplateArg>>,
    },
    /// A lambda.
    Lambda(Box<Lambda>),
    /// `{a, b}` where an initialiser or argument is expected.
    InitList(Vec<Expr>),
    /// `Traits<int, 3>::size`, `Vec<float>::make()`: a member of a class
    /// named by a template-id; `Vec<float>::make<2>()`, `Util::pick<0>()`: a
    /// member function template of a class, with explicit arguments.
    TypeMember {
        /// The class.
        ty: Box<TypeName>,
        /// The member.
        member: Ident,
        /// The member template's explicit arguments.
        template_args: Option<Vec<TemplateArg>>,
    },
    /// `sizeof(T)` / `sizeof expr`
    SizeofType(Box<TypeName>),
    /// `sizeof expr`
    SizeofExpr(Box<Expr>),
    /// `typeid(T)`
    TypeidType(Box<TypeName>),
    /// `typeid(expr)`
    TypeidExpr(Box<Expr>),
    /// `new T`, `new T(args)`, `new T[count]`.
    New {
        /// The allocated type.
        ty: Box<TypeName>,
        /// `new T(args)`.
        args: Option<Vec<Expr>>,
        /// `new T[count]`.
        count: Option<Box<Expr>>,
    },
    /// `delete x` or `delete[] x`.
    Delete {
        /// The pointer.
        operand: Box<Expr>,
        /// `delete[]`.
        array: bool,
    },
    /// `throw x`, or `throw` to rethrow.
    Throw(Option<Box<Expr>>),
    /// What could not be parsed (already reported).
    Error,
}

/// How a lambda captures by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CaptureDefault {
    /// `[=]`
    ByValue,
    /// `[&]`
    ByRef,
}

/// One explicit capture.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Capture {
    /// `&name` rather than `name`.
    pub by_ref: bool,
    /// The captured name (`this` for `this`).
    pub name: Ident,
    /// Where.
    pub span: Span,
}

/// `[captures](params) restrict(amp) mutable -> T { body }`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lambda {
    /// `=` or `&` first in the list.
    pub default_capture: Option<CaptureDefault>,
    /// The explicit captures.
    pub captures: Vec<Capture>,
    /// Span of the capture list, brackets included.
    pub capture_span: Span,
    /// The parameters.
    pub params: Vec<Param>,
    /// `restrict(...)`
    pub restrict: Option<Restrict>,
    /// Where a dynamic exception specification is written, if one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception_spec: Option<Span>,
    /// `mutable`
    pub is_mutable: bool,
    /// `-> T`
    pub ret: Option<TypeName>,
    /// The body.
    pub body: Block,
}

fn max_height<'a>(exprs: impl IntoIterator<Item = &'a Expr>) -> u32 {
    exprs.into_iter().map(|e| e.height).max().unwrap_or(0)
}

fn block_height(block: &Block) -> u32 {
    block.stmts.iter().map(|s| s.height).max().unwrap_or(0)
}

fn decl_height(decl: &Decl) -> u32 {
    decl.declarators
        .iter()
        .map(declarator_height)
        .max()
        .unwrap_or(0)
}

fn declarator_height(d: &Declarator) -> u32 {
    let dims = max_height(d.array_dims.iter().flatten());
    let init = match &d.init {
        Some(Init::Assign(e)) => e.height,
        Some(Init::Paren(es) | Init::Brace(es)) => max_height(es),
        None => 0,
    };
    dims.max(init)
}

fn type_height(ty: &TypeName) -> u32 {
    match &ty.specs.ty {
        BaseType::Template { args, .. } => args
            .iter()
            .map(|a| match a {
                TemplateArg::Type(t) => type_height(t),
                TemplateArg::Expr(e) => e.height,
            })
            .max()
            .unwrap_or(0),
        BaseType::Decltype { expr, .. } => expr.height,
        _ => 0,
    }
}

impl ExprKind {
    /// Height of the tallest direct child (0 for leaves).
    pub fn child_height(&self) -> u32 {
        match self {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Char(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Nullptr
            | ExprKind::This
            | ExprKind::Name(_)
            | ExprKind::Error => 0,
            ExprKind::Unary { operand, .. } => operand.height,
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } => {
                lhs.height.max(rhs.height)
            }
            ExprKind::Conditional { cond, then, els } => {
                cond.height.max(then.height).max(els.height)
            }
            ExprKind::Cast { ty, operand, .. } => type_height(ty).max(operand.height),
            ExprKind::Construct { ty, args, .. } => type_height(ty).max(max_height(args)),
            ExprKind::Call { callee, args } => callee.height.max(max_height(args)),
            ExprKind::Index { base, index } => base.height.max(index.height),
            ExprKind::Member {
                base,
                template_args,
                ..
            } => {
                let targs = template_args.as_ref().map_or(0, |args| {
                    args.iter()
                        .map(|a| match a {
                            TemplateArg::Type(t) => type_height(t),
                            TemplateArg::Expr(e) => e.height,
                        })
                        .max()
                        .unwrap_or(0)
                });
                base.height.max(targs)
            }
            ExprKind::Lambda(lambda) => block_height(&lambda.body),
            ExprKind::InitList(items) => max_height(items),
            ExprKind::SizeofType(ty)
            | ExprKind::TypeidType(ty)
            | ExprKind::TypeMember { ty, .. } => type_height(ty),
            ExprKind::New { ty, args, count } => type_height(ty)
                .max(args.as_ref().map_or(0, max_height))
                .max(count.as_ref().map_or(0, |c| c.height)),
            ExprKind::SizeofExpr(e)
            | ExprKind::TypeidExpr(e)
            | ExprKind::Delete { operand: e, .. } => e.height,
            ExprKind::Throw(e) => e.as_ref().map_or(0, |e| e.height),
        }
    }
}

impl StmtKind {
    /// Height of the tallest direct child (0 for leaves).
    pub fn child_height(&self) -> u32 {
        match self {
            StmtKind::Expr(e) => e.height,
            StmtKind::StaticAssert(a) => a.cond.height,
            StmtKind::Labeled { label, stmt } => match label {
                Label::Case(e) => e.height.max(stmt.height),
                Label::Default | Label::Named(_) => stmt.height,
            },
            StmtKind::Return(e) => e.as_ref().map_or(0, |e| e.height),
            StmtKind::Decl(d) => decl_height(d),
            // A local class's member functions are checked as functions of
            // their own, but their bodies still nest inside this statement.
            StmtKind::Class(c) => c
                .methods
                .iter()
                .filter_map(|m| m.item.body.as_ref().map(block_height))
                .chain(c.fields.iter().map(decl_height))
                .max()
                .unwrap_or(0),
            StmtKind::Block(b) => block_height(b),
            StmtKind::Try { body, handlers } => handlers
                .iter()
                .map(|h| block_height(&h.body))
                .max()
                .unwrap_or(0)
                .max(block_height(body)),
            StmtKind::If { cond, then, els } => cond
                .height
                .max(then.height)
                .max(els.as_ref().map_or(0, |e| e.height)),
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => init
                .as_ref()
                .map_or(0, |s| s.height)
                .max(cond.as_ref().map_or(0, |e| e.height))
                .max(step.as_ref().map_or(0, |e| e.height))
                .max(body.height),
            StmtKind::ForRange {
                declarator,
                range,
                body,
                ..
            } => declarator_height(declarator)
                .max(range.height)
                .max(body.height),
            StmtKind::While { cond, body }
            | StmtKind::DoWhile { body, cond }
            | StmtKind::Switch { cond, body } => cond.height.max(body.height),
            StmtKind::FnDecl(f) => f
                .params
                .iter()
                .map(|p| declarator_height(&p.declarator))
                .max()
                .unwrap_or(0),
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Goto(_)
            | StmtKind::Using { .. }
            | StmtKind::Empty
            | StmtKind::Error => 0,
        }
    }
}
