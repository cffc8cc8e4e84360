//! The typed program.
//!
//! The semantic checker lowers the syntax tree into this form; the interpreter
//! and the JIT read nothing else. Everything an engine needs is explicit here:
//!
//! - every expression carries its [`Type`]; operands of arithmetic already have
//!   the operator's type (the usual arithmetic conversions are [`ExprKind::Convert`]
//!   nodes), so an engine never infers or promotes;
//! - every name is resolved to a [`LocalId`], [`GlobalId`], capture slot or
//!   [`FuncId`], and every library call to an [`Intrinsic`];
//! - every variable has a [`Space`]: host, private (a work-item's own),
//!   `tile_static` (shared by a tile); `array`/`array_view` elements are global
//!   memory, reached only through views and arrays;
//! - kernels are functions of their own ([`Function::kind`]) whose captures are
//!   listed with how they are captured.
//!
//! Invariant: a `Program` handed to an engine came from a check that reported
//! no errors; it contains no `Type::Error` and no `ExprKind::Error`.
//!
//! Besides the data, this crate answers the questions about a program that
//! several passes ask, so each has one answer: [`visit`] walks bodies,
//! [`facts`] has the call graph and which functions and statements reach a
//! barrier, [`layout`] is C++'s object layout, [`Scalar::int_range`] and
//! [`Scalar::float_to_int_bounds`] are the limits of the arithmetic types.
//!
//! # Looking things up by id
//!
//! Every id in a `Program` the checker built names an entry of that program
//! (the checker makes ids only by pushing the entry). So there are two forms
//! of each lookup, as with slices:
//!
//! - [`Program::function`], [`Program::struct_def`], [`Program::global`],
//!   [`Function::local`] index, and panic on an id from elsewhere: the
//!   engines use them, since they run only programs checked without errors;
//! - [`Program::get_function`], [`Program::get_struct`],
//!   [`Program::get_global`], [`Function::get_local`] return `None` instead:
//!   the checker's analyses use them, since they also run on programs with
//!   errors and on hand-built malformed programs, where they must not panic.
//!
//! Tables kept beside the program (one entry per function, per local, per
//! statement) are indexed with [`FuncId::index`] and friends.

mod access;
pub mod facts;
pub mod layout;
mod limits;
mod types;
pub mod visit;

pub use types::{
    Container, FnParam, FnSig, IterType, Rank, Scalar, StringStreamKind, StructDef, StructId,
    TileShape, Type, display,
};

use tessera_diagnostics::Span;

/// The name of the field of a struct that holds its base class `class`: a
/// derived class's bases are its first fields, one subobject each, as C++
/// lays them out.
pub fn base_field_name(class: &str) -> String {
    format!("<base {class}>")
}

/// True for the name of a field that holds a base-class subobject.
pub fn is_base_field(name: &str) -> bool {
    name.starts_with("<base ")
}

/// A local variable or parameter of one function (index into [`Function::locals`]).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct LocalId(pub u32);

/// A global variable (index into [`Program::globals`]).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct GlobalId(pub u32);

/// A function (index into [`Program::functions`]).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct FuncId(pub u32);

/// A statement of one function: unique within its function's body, numbered
/// from 0 in program order (each statement before the statements inside it)
/// when the checker finishes the program. A function's first statements
/// keep their numbers when statements are added after them, which is what
/// lets the REPL check its growing `main` again and find the new ones.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct StmtId(pub u32);

impl StmtId {
    /// The id of a statement not yet numbered ([`Function::number_statements`]).
    pub const UNNUMBERED: StmtId = StmtId(u32::MAX);
}

/// A whole checked program.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub struct Program {
    /// Struct types, indexed by [`StructId`].
    pub structs: Vec<StructDef>,
    /// Global variables and constants, indexed by [`GlobalId`], initialised in order.
    pub globals: Vec<Global>,
    /// Functions and kernels, indexed by [`FuncId`].
    pub functions: Vec<Function>,
    /// `main`.
    pub main: Option<FuncId>,
    /// The polymorphic classes (those with virtual functions): how their
    /// objects know their dynamic class and which function a virtual call
    /// runs in each.
    pub dynamic: std::collections::HashMap<StructId, DynamicClass>,
}

/// A polymorphic class. Its objects hold their dynamic class in a hidden
/// `long` field (C++'s virtual table pointer, at the same place and of the
/// same size), the [`StructId`] of the class whose constructor or destructor
/// runs, or of the complete object once it is built.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub struct DynamicClass {
    /// The polymorphic base and the index of the field holding it; `None`
    /// for the class that holds the hidden field itself.
    pub base: Option<(StructId, u32)>,
    /// For a class without a polymorphic base: the index of its hidden field.
    pub tag_field: u32,
    /// The final overrider in this class of each virtual function it has
    /// (its own and its bases'): a virtual call of the key on an object
    /// whose dynamic class is this one runs the value. A pure virtual
    /// function without an overrider maps to itself.
    pub overriders: std::collections::HashMap<FuncId, FuncId>,
}

/// The name of the hidden field that holds an object's dynamic class.
pub const DYNAMIC_CLASS_FIELD: &str = "<dynamic class>";

impl Program {
    /// The path of fields from an object of polymorphic class `class` to
    /// the hidden field holding its dynamic class; `None` for a class that
    /// is not polymorphic.
    pub fn dynamic_class_path(&self, class: StructId) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = class;
        for _ in 0..=self.structs.len() {
            let d = self.dynamic.get(&at)?;
            match d.base {
                Some((base, field)) => {
                    path.push(field);
                    at = base;
                }
                None => {
                    path.push(d.tag_field);
                    return Some(path);
                }
            }
        }
        None
    }

    /// The base fields from an object of class `from` to its subobject of
    /// class `to` through polymorphic bases; `None` when `to` is not one of
    /// `from`'s polymorphic bases (or `from` itself).
    pub fn dynamic_base_path(&self, from: StructId, to: StructId) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = from;
        for _ in 0..=self.structs.len() {
            if at == to {
                return Some(path);
            }
            let (base, field) = self.dynamic.get(&at)?.base?;
            path.push(field);
            at = base;
        }
        None
    }

    /// The function a virtual call of `func` runs on an object whose
    /// dynamic class is `class`.
    pub fn final_overrider(&self, class: StructId, func: FuncId) -> FuncId {
        self.dynamic
            .get(&class)
            .and_then(|d| d.overriders.get(&func))
            .copied()
            .unwrap_or(func)
    }

    /// Every function a virtual call of `func` may run (itself included).
    pub fn overriders_of(&self, func: FuncId) -> Vec<FuncId> {
        let mut out = vec![func];
        for d in self.dynamic.values() {
            if let Some(&o) = d.overriders.get(&func)
                && !out.contains(&o)
            {
                out.push(o);
            }
        }
        out.sort();
        out
    }
}

/// Where a variable lives.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Host memory: globals and the locals of host functions.
    Host,
    /// A work-item's own memory: locals of kernel code.
    Private,
    /// One instance per tile, shared by its work-items.
    TileStatic,
}

/// A global variable.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Global {
    /// Its name as written.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `const`/`constexpr`: readable from kernels when integral.
    pub is_const: bool,
    /// The value it starts with (computed at startup, in declaration order).
    pub init: Option<Init>,
    /// Where it was declared.
    pub span: Span,
}

/// Which contexts a function may run in (`restrict(...)`).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default,
)]
pub struct Restriction {
    /// Callable from host code.
    pub cpu: bool,
    /// Callable from kernels.
    pub amp: bool,
}

/// What a function is.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub enum FunctionKind {
    /// A function declared at namespace scope.
    Plain,
    /// The lambda passed to a `parallel_for_each`: its one parameter is the
    /// index (`index<N>` or `tiled_index<...>`), it returns `void`.
    Kernel {
        /// Set for a tiled launch.
        tile: Option<TileShape>,
        /// What the kernel captures, in slot order.
        captures: Vec<Capture>,
    },
}

/// One captured variable of a kernel.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct Capture {
    /// The name as written.
    pub name: String,
    /// Its type (the referent's type for a by-reference capture).
    pub ty: Type,
    /// By reference (only `concurrency::array` is captured so).
    pub by_ref: bool,
}

/// A function, kernel included.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Function {
    /// Its name (`<kernel>` for kernels).
    pub name: String,
    /// Plain function or kernel.
    pub kind: FunctionKind,
    /// Where it may run.
    pub restriction: Restriction,
    /// Parameters: the first `params` entries of `locals`.
    pub params: u32,
    /// Every local, parameters first.
    pub locals: Vec<Local>,
    /// The return type.
    pub ret: Type,
    /// True when the return value is a reference.
    pub ret_by_ref: bool,
    /// The body (`None` for a prototype never defined; calling one is an error
    /// reported by the checker).
    pub body: Option<Block>,
    /// How many statements the body has, nested ones included: their
    /// [`StmtId`]s are `0..stmt_count` (see [`Function::number_statements`]).
    pub stmt_count: u32,
    /// Where it was declared.
    pub span: Span,
}

/// A local variable or parameter.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Local {
    /// The name as written.
    pub name: String,
    /// Its type (the referent's type for a reference).
    pub ty: Type,
    /// A reference (`T&`): the local holds the address of a place.
    pub by_ref: bool,
    /// Declared `const`.
    pub is_const: bool,
    /// Where it lives.
    pub space: Space,
    /// Where it was declared.
    pub span: Span,
}

/// A `{ ... }` block.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
}

/// How a variable is initialised.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub enum Init {
    /// From one value, already converted to the variable's type.
    Expr(Expr),
    /// An aggregate (struct or C array) element by element; missing trailing
    /// elements are zero.
    List(Vec<Init>),
    /// Zero (or default-constructed for library types).
    Zero,
    /// Binds a reference to a place.
    Ref(Expr),
}

/// A statement.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Stmt {
    /// Which statement of its function it is.
    pub id: StmtId,
    /// What it does.
    pub kind: StmtKind,
    /// Where.
    pub span: Span,
}

impl Stmt {
    /// A statement not yet numbered: the checker numbers a function's
    /// statements once its body is complete.
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt {
            id: StmtId::UNNUMBERED,
            kind,
            span,
        }
    }
}

/// The kinds of statement.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub enum StmtKind {
    /// Evaluates an expression for its effects.
    Expr(Expr),
    /// A local comes into scope; `None` leaves it uninitialised (`tile_static`,
    /// or a scalar declared without a value).
    Let {
        /// Which local.
        local: LocalId,
        /// Its initial value.
        init: Option<Init>,
    },
    /// A nested block (its locals go out of scope at its end).
    Block(Block),
    /// `if`.
    If {
        /// A `bool` condition.
        cond: Expr,
        /// Taken when true.
        then: Block,
        /// Taken when false.
        els: Option<Block>,
    },
    /// Every loop: `while` (`cond` first), `do`-`while` (`body` first), `for`.
    Loop {
        /// The `bool` condition (`None`: forever).
        cond: Option<Expr>,
        /// Checked before the first iteration (`while`, `for`) or after (`do`).
        test_first: bool,
        /// The body.
        body: Block,
        /// Run after the body and on `continue` (the `for` step).
        step: Option<Expr>,
    },
    /// `switch`: jumps to the first arm whose value matches, else `default`,
    /// then falls through the following arms until `break`.
    Switch {
        /// The value switched on (integral).
        value: Expr,
        /// The arms in source order.
        arms: Vec<SwitchArm>,
    },
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return`
    Return(Option<Expr>),
    /// `goto`: host code only. Execution goes on after the `Label` of this
    /// number, which is a statement of this block or of a block around it
    /// (the checker refuses jumps into a block).
    Goto(u32),
    /// A `goto` target (`name:`), numbered within its function; does
    /// nothing when reached in order.
    Label(u32),
    /// A barrier: every work-item of the tile waits here for the others.
    Barrier(Fence),
    /// `try { body } catch ...`: host code only.
    Try {
        /// The guarded block.
        body: Block,
        /// The handlers, tried in order.
        handlers: Vec<Handler>,
    },
}

/// One `catch` of a `try` statement.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Handler {
    /// What it catches: the type, and the local that receives a copy of the
    /// exception (`None` for an unnamed parameter); `None` for `catch (...)`.
    pub catches: Option<(Type, Option<LocalId>)>,
    /// The handler's block.
    pub body: Block,
}

/// One `case` or `default` arm and the statements up to the next arm.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct SwitchArm {
    /// The case value, or `None` for `default`.
    pub value: Option<i64>,
    /// The statements.
    pub body: Block,
}

/// Which memory a barrier or fence orders.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// `wait()`, `wait_with_all_memory_fence()`.
    All,
    /// `wait_with_global_memory_fence()`.
    Global,
    /// `wait_with_tile_static_memory_fence()`.
    TileStatic,
}

/// A compile-time constant.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum Const {
    /// `bool`
    Bool(bool),
    /// Any integer type, sign- or zero-extended from its width.
    Int(i64),
    /// `float`
    Float(f32),
    /// `double`
    Double(f64),
}

/// A typed expression.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its type (after any conversion it needs).
    pub ty: Type,
    /// True for an lvalue: it names a place that can be read, written, or bound to a reference.
    pub place: bool,
    /// Where.
    pub span: Span,
}

impl Expr {
    /// Whether a reference bound to this expression binds to a place (and
    /// not to a temporary holding its value), as the engines bind it: an
    /// lvalue, or a variable, element or field named through a cast to a
    /// reference (`static_cast<const int&>(x)` is `x`, which the checker
    /// marks as no place so that it is not assigned).
    pub fn binds_place(&self) -> bool {
        self.place
            || match &self.kind {
                ExprKind::Local(_) | ExprKind::Global(_) | ExprKind::Element { .. } => true,
                ExprKind::Field { base, .. } => base.place,
                _ => false,
            }
    }
}

/// Arithmetic and comparison operators; operands have the same type.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (integer division by zero and `INT_MIN / -1` are run-time errors)
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// Unary operators.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `~x`
    BitNot,
    /// `!x` (on `bool`)
    Not,
}

/// The kinds of expression.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub enum ExprKind {
    /// A constant.
    Const(Const),
    /// A local of the current function.
    Local(LocalId),
    /// A global.
    Global(GlobalId),
    /// A kernel's captured variable, by slot.
    Capture(u32),
    /// An arithmetic, bitwise or comparison operation.
    Binary {
        /// The operator.
        op: BinOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand (same type as `lhs`, except the shift count).
        rhs: Box<Expr>,
    },
    /// A unary operation.
    Unary {
        /// The operator.
        op: UnOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `&&` (`and: true`) or `||`, short-circuiting.
    Logical {
        /// `&&` rather than `||`.
        and: bool,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `c ? a : b`.
    Conditional {
        /// The condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        els: Box<Expr>,
    },
    /// Converts to `Expr::ty`: between scalars (C++'s rules: float to int
    /// truncates), a view to a view of `const` elements, a tiled extent to its
    /// extent.
    Convert(Box<Expr>),
    /// Stores `value` into the place `target`; the result is the place.
    Assign {
        /// The place.
        target: Box<Expr>,
        /// The value, of the place's type.
        value: Box<Expr>,
    },
    /// `target op= value`: computes in `value.ty`, converts back to the place's type.
    CompoundAssign {
        /// The operator.
        op: BinOp,
        /// The place.
        target: Box<Expr>,
        /// The right operand, already in the operation's type.
        value: Box<Expr>,
    },
    /// `++`/`--`, prefix (the place) or postfix (the old value).
    IncDec {
        /// `++` rather than `--`.
        increment: bool,
        /// Prefix rather than postfix.
        prefix: bool,
        /// The place.
        target: Box<Expr>,
    },
    /// A struct's field, by position.
    Field {
        /// The struct value or place.
        base: Box<Expr>,
        /// The field's position.
        field: u32,
    },
    /// An element of a fixed C array (bounds-checked).
    Element {
        /// The array place.
        base: Box<Expr>,
        /// An `int` index.
        index: Box<Expr>,
    },
    /// A call of a user function.
    Call {
        /// The callee.
        func: FuncId,
        /// Arguments: values for by-value parameters, places for references.
        args: Vec<Expr>,
    },
    /// A call of a virtual member function through an object (host code
    /// only): the first argument is the object, a place of the class that
    /// declares `func`; the call runs the final overrider of `func` in the
    /// object's dynamic class ([`Program::final_overrider`]), on the
    /// subobject of the overrider's class.
    VirtualCall {
        /// The function named, as overload resolution chose it.
        func: FuncId,
        /// Arguments, as for [`ExprKind::Call`].
        args: Vec<Expr>,
    },
    /// A library operation.
    Intrinsic {
        /// Which.
        op: Intrinsic,
        /// Its operands.
        args: Vec<Expr>,
    },
    /// `parallel_for_each(domain, kernel)`.
    Launch {
        /// An `extent<N>` or `tiled_extent<...>`.
        domain: Box<Expr>,
        /// The kernel function.
        kernel: FuncId,
        /// Values (or places, for by-reference captures) for the kernel's capture slots.
        captures: Vec<Expr>,
    },
    /// A struct or C array built element by element (aggregate initialisation).
    Aggregate(Vec<Expr>),
    /// A string literal's bytes, escapes decoded (type `Type::Str`; only
    /// printed). Bytes, not text: `"\xe9"` is one byte, as in C++.
    Str(Vec<u8>),
    /// `throw value` (or `throw` to rethrow the exception being handled):
    /// host code only; of type `void`.
    Throw(Option<Box<Expr>>),
    /// `nullptr`, or a null pointer of `Expr::ty`.
    Null,
    /// A function pointer (`Type::FnPtr`): the address of a function, or
    /// the null function pointer for `None`.
    FuncAddr(Option<FuncId>),
    /// A call through a function pointer: the callee is evaluated first,
    /// then the arguments (values for by-value parameters, places for
    /// references); calling a null pointer is a run-time error.
    CallPtr {
        /// The function pointer (`Type::FnPtr`).
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `&place`: a pointer to the place (an element of a C array, a vector
    /// or an array points into its array, for arithmetic).
    AddrOf(Box<Expr>),
    /// `*ptr`: the place a pointer points to (checked: not null, not
    /// dangling, not past the end); a place.
    Deref(Box<Expr>),
    /// `ptr + offset` (`offset` a `long`, negative for `-`): checked to stay
    /// within its allocation or one past its end.
    PtrAdd {
        /// The pointer.
        ptr: Box<Expr>,
        /// The element offset, a `long`.
        offset: Box<Expr>,
    },
    /// `a - b` for two pointers into the same allocation: a `long`.
    PtrDiff {
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand (same pointer type).
        rhs: Box<Expr>,
    },
    /// `new T`, `new T(v)`, `new T[n]` (host only): a pointer to fresh
    /// storage of `Expr::ty`'s pointee.
    New {
        /// `new T[count]`: the element count, a `long`.
        count: Option<Box<Expr>>,
        /// `new T(value)`: the initial value.
        value: Option<Box<Expr>>,
    },
    /// `delete p` / `delete[] p` (host only).
    Delete {
        /// The pointer.
        ptr: Box<Expr>,
        /// `delete[]`.
        array: bool,
    },
    /// `a, b`: evaluates `a`, then yields `b`.
    Comma {
        /// Evaluated for its effects.
        first: Box<Expr>,
        /// The result.
        second: Box<Expr>,
    },
}

/// Library operations, resolved by the checker. The operand types are fixed by
/// the variant and the expression's type.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub enum Intrinsic {
    /// A math function (`sqrt`, `fast_math::sinf`, ...) in `Expr::ty`'s precision.
    Math(MathFn),
    /// An atomic read-modify-write on an `int`/`unsigned` place.
    Atomic(AtomicOp),
    /// Builds an `index<N>` or `extent<N>` from `N` ints.
    MakeShape,
    /// Component `i` of an index or extent (bounds-checked).
    ShapeComponent,
    /// Index/extent arithmetic, componentwise (or with a scalar right operand).
    ShapeArith(BinOp),
    /// `extent.size()`.
    ExtentSize,
    /// `extent.contains(index)`.
    ExtentContains,
    /// `extent.tile<...>()`: same extent, tiled with the result type's shape.
    Tile,
    /// A member of a `tiled_index`.
    TiledIndexPart(TiledIndexPart),
    /// Creates a `concurrency::array`: args `[extent, source?, access?]`,
    /// the optional source a vector or view, the optional CPU
    /// `access_type` an `int` (absent: `access_type_auto`).
    NewArray,
    /// `array<T, N> a(e, first, last)`: [`Intrinsic::NewArray`] whose
    /// source is a whole iterator range, which C++ AMP copies with
    /// `copy(first, last, a)` and so checks: a longer range, or at rank 2
    /// or more one of another length, throws; a shorter one fills the
    /// first elements.
    NewArrayOfRange,
    /// Creates an `array_view` (extent, optional data source).
    NewView,
    /// Element of an array or view at an `index<N>` (bounds-checked); a place.
    ViewElement,
    /// Projection `view[i]` of a rank-`N` view to rank `N - 1`.
    ViewProject,
    /// `view.extent` / `get_extent()`.
    ViewExtent,
    /// `view.section(origin, extent)`, or `(origin)` alone: the rest of the
    /// view from the origin.
    ViewSection,
    /// `a.view_as(extent)`: the same contiguous elements with another
    /// extent (row-major), which must not hold more of them.
    ViewAs,
    /// `a.reinterpret_as<U>()`: a rank-1 `array_view` whose elements are
    /// the bytes of the array's or rank-1 view's elements read as `U` (the
    /// result type's element type).
    ReinterpretAs,
    /// `reinterpret_cast<U*>(p)` (or `(U*)p`) between pointer types: a
    /// pointer to the same bytes read as the result's pointee type.
    PtrReinterpret,
    /// A pointer to a class converted to a pointer to the class `to`
    /// derived from it: the `to` object whose base subobject the argument
    /// points to, or null for null. `static_cast<D*>(b)` (`dynamic:
    /// false`) requires the pointee to be such a subobject, reached from
    /// the `to` object through the base fields `strip` (a run-time error
    /// otherwise, where C++ leaves the result undefined);
    /// `dynamic_cast<D*>(b)` (`dynamic: true`, a polymorphic class) asks
    /// the object's dynamic class and gives null when it is not a `to`.
    Downcast {
        /// The derived class.
        to: StructId,
        /// The base fields from a `to` object to the argument's pointee.
        strip: Vec<u32>,
        /// Whether the object's dynamic class decides (`dynamic_cast`).
        dynamic: bool,
    },
    /// `view.synchronize()`.
    ViewSynchronize,
    /// `view.discard_data()`.
    ViewDiscard,
    /// `view.refresh()`.
    ViewRefresh,
    /// `concurrency::copy`: `[src, dst]` (arrays, views, a vector and the
    /// elements from its start, a pointer and the elements from it);
    /// `[first pointer, dst, last pointer]`; `[elements, dst, 1]`, the
    /// elements of a whole iterator range (`copy(first, last, dst)`),
    /// whose count C++ AMP checks against `dst`'s size.
    Copy,
    /// Converts an array to a `std::vector` (`std::vector<T> v = arr;`).
    ArrayToVector,
    /// `std::vector<T>(n)` / `(n, value)`.
    NewVector,
    /// `std::vector<T>(n)` of a class whose default construction does more
    /// than build the object (see the checker's `library::elements`): args
    /// `[n, construction]`, the construction evaluated once per element.
    NewVectorConstructed,
    /// `std::vector<T>{a, b, c}` (an initializer list): args are the
    /// elements, already of type `T`.
    VectorOf,
    /// `v.push_back(x)`.
    VectorPush,
    /// `c.insert(x)` on a `std::set` or another associative container:
    /// args `[container (a place), value]`; the value goes where the
    /// container's order puts it (and nowhere when a set has it already).
    ContainerInsert(Container),
    /// `c.find(x)`, `c.count(x)` and `c.erase(x)` on a set (and
    /// `c.erase(it)` on a set or a list, see `LookupOp::EraseAt`): args
    /// `[container (a place), value]`; the position of the first element
    /// equal to the value in iteration order (the size when none is), how
    /// many are equal, or how many were equal and are removed (each a
    /// `long`).
    ContainerLookup {
        /// The container's kind (how it orders its elements).
        kind: Container,
        /// What is asked.
        op: LookupOp,
    },
    /// `c.push_front(x)` on a `std::deque` or `std::list`: args
    /// `[container (a place), value]`.
    ContainerPushFront,
    /// `c.clear()`: args `[container (a place)]`.
    ContainerClear,
    /// `c.pop_back()` on a `std::vector`, `std::deque` or `std::list`, or
    /// `c.pop_front()` (`front`) on the last two: args `[container (a
    /// place)]`; the last or first element goes (an empty container is a
    /// run-time error, where C++ leaves it undefined).
    ContainerPop {
        /// `pop_front`.
        front: bool,
    },
    /// `v.reserve(n)`: args `[vector (a place), n (an unsigned long)]`;
    /// Tessera keeps no capacity, so it only throws `std::length_error`
    /// where C++ does (`n` past `max_size()`).
    VectorReserve,
    /// `v.assign(...)`: args `[vector (a place), source vector]`; the
    /// vector's elements become the source's, in the vector's own storage
    /// (views over it see them).
    VectorAssign,
    /// `v.resize(n)` / `v.resize(n, value)`: args `[vector (a place), n (a
    /// long), value]`; the first `n` elements are kept, new ones are the
    /// value.
    VectorResize,
    /// A container of the expression's type holding the elements of a
    /// vector value (`args[0]`), inserted one by one in order: what
    /// construction from an iterator range makes.
    ContainerFrom,
    /// `std::vector<T>(first, last)` from two pointers into one allocation:
    /// args `[first, last]`; each element is read through a checked pointer.
    VectorFromPointers,
    /// An iterator value (`Type::Iter`) from the pointer `args[0]`: the
    /// same value, typed as the iterator.
    AsIter,
    /// The pointer an iterator value (`args[0]`, a `Type::Iter`) holds:
    /// the same value, typed as a pointer.
    IterBase,
    /// The elements an iterator range visits, in its order, as a vector:
    /// args `[first, last]` (the pointers of two iterator values), or
    /// `[first]` for every element from `first` to the end. A reverse
    /// range visits the elements before its bases, backwards.
    IterElements {
        /// The iterators are reverse iterators.
        reverse: bool,
    },
    /// `concurrency::copy` reading through an iterator of the program's
    /// own class: args `[store first, store last, cond, count, read,
    /// step]`. The stores (assignments to hidden locals) run once; then,
    /// while fewer than `count` elements were read (`count` < 0: no bound)
    /// and `cond` (a `bool`) holds, `read` gives the next element and
    /// `step` advances. The result is the vector of the elements read.
    GatherIter,
    /// `concurrency::copy` writing through an iterator of the program's own
    /// class: args `[source vector, store out, element, write, step]`: for
    /// each element of the source, the hidden local `element` (a place)
    /// takes it, then `write` and `step` run.
    ScatterIter,
    /// `v.size()`.
    VectorSize,
    /// `v.data()`: a pointer to the first element.
    VectorData,
    /// `v[i]` (bounds-checked); a place.
    VectorElement,
    /// `v.at(i)`: `v[i]`, but an index out of range throws
    /// `std::out_of_range` (host code); a place.
    VectorAt,
    /// `std::cout`: the standard output stream (a place of type `Ostream`).
    Stdout,
    /// `std::cerr` / `std::wcerr`: the standard error stream (a place of
    /// type `Ostream`).
    Stderr,
    /// `std::cin` / `std::wcin`: the standard input stream, a reading
    /// stream of type `StringStream(Cin)` whose text is read from the
    /// program's input as the reads need it.
    Stdin,
    /// `in.get()`: args `[stream]`; the next byte (0 to 255), or -1 (EOF)
    /// with failbit and eofbit set when there is none.
    StreamGet,
    /// `in.get(c)`: args `[stream, char place]`; the next byte into `c`
    /// (white space too), or failbit and eofbit at the end. The result is
    /// the stream.
    StreamGetChar,
    /// `in.getline(buf, n, delim)`: args `[stream, buffer (a `char*`),
    /// count (a long), delimiter (a char)]`; up to `n - 1` bytes before the
    /// delimiter (taken, not stored) and a zero, as libstdc++ reads them
    /// (failbit when nothing was taken, or the buffer filled before the
    /// delimiter). The result is the stream.
    StreamGetlineBuf,
    /// `in.peek()`: args `[stream]`; the next byte without taking it, or
    /// -1 (EOF) with eofbit set.
    StreamPeek,
    /// `in.ignore(n, delim)`: args `[stream, count (a long), delimiter (an
    /// int, -1 for none)]`; skips `count` bytes, or up to and past the
    /// delimiter, or to the end (eofbit).
    StreamIgnore,
    /// `getchar()`: args none; the next byte of standard input (0 to 255),
    /// or -1 (EOF) at its end.
    Getchar,
    /// Writes a value to a stream with the stream's current format; args
    /// `[stream, value]`, the result is the stream. The stream is standard
    /// error when the innermost first operand of the chain is `Stderr`
    /// (see `print_target`), standard output otherwise.
    Print,
    /// An `accelerator` or `accelerator_view` value (of the expression's
    /// type): the default accelerator (at first Tessera's CPU engine, which
    /// runs every kernel), or its default view; args none.
    Device,
    /// `accelerator(path)`: args `[path string]`. The accelerator with
    /// that path (the default one for `accelerator::default_accelerator`),
    /// or a run-time error when none has it.
    DeviceOpen,
    /// `accelerator::set_default(path)`: args `[path string]`; makes the
    /// accelerator with that path the default and answers `true`, or
    /// answers `false` when none has it or an operation already used the
    /// default (an array or a launch made without a view).
    DeviceSetDefault,
    /// `accelerator::get_all()`: args none; a vector of the accelerators,
    /// the default one first.
    DeviceAll,
    /// `acc.default_view`: args `[accelerator]`; the accelerator's default
    /// view (the same view every time).
    DeviceDefaultView,
    /// `acc.create_view(mode)`: args `[accelerator, queuing mode (an
    /// int)]`; a new view of the accelerator, unequal to every other.
    DeviceCreateView,
    /// `view.get_accelerator()`: args `[view]`; the accelerator it is on.
    DeviceViewAccelerator,
    /// `view.queuing_mode`: args `[view]`; the mode it was made with (an
    /// `int`).
    DeviceQueuingMode,
    /// What an accelerator says of itself that depends on which it is:
    /// args `[accelerator]`.
    DeviceText(DeviceText),
    /// `a == b` on two accelerators (their device paths compared) or two
    /// views (the same view, or copies of it): args `[a, b]`.
    DeviceEq,
    /// `parallel_for_each(view, ...)`: args `[view]`, evaluated before the
    /// launch; a `runtime_exception` when the view's accelerator cannot
    /// run kernels (the CPU accelerator).
    DeviceLaunchOn,
    /// `a.get_accelerator_view()` (`associated: false`) or
    /// `a.get_associated_accelerator_view()` (`true`) of an `array`: args
    /// `[array]`; the view it was made on.
    ArrayDeviceView {
        /// The associated view (a staging array's device view).
        associated: bool,
    },
    /// `v.get_source_accelerator_view()` of an `array_view`: args `[view]`;
    /// where its data source is: the view an `array` was made on, or the
    /// CPU accelerator's view for host memory.
    ViewSourceView,
    /// `a == b` for two wide strings (`std::wstring`, `L"..."`): args
    /// `[a, b]`; `true` when they hold the same characters.
    WideStrEq,
    /// A wide string's characters (`ws.c_str()`): args `[wide string]`; a
    /// `const wchar_t*` to a new array of its code points and a zero.
    WideStrChars,
    /// A wide string's length in characters (`ws.size()`): args `[wide
    /// string]`, an `unsigned long`.
    WideStrLen,
    /// The wide string a `const wchar_t*` points to (up to its zero, each
    /// element read through the checked pointer): args `[pointer]`.
    WideStrFromPtr,
    /// A new string stream (of the expression's type): args none (empty)
    /// or `[text]`, a `std::vector<char>` ending in a zero (a
    /// `std::string`'s characters), which it starts with.
    StringStreamNew,
    /// A string stream seen as the `std::ostream` it derives from (for a
    /// `std::ostream&`), or as the `std::istream` (the expression's type,
    /// `StringStream(Cin)`, for a `std::istream&`): args `[stream]`; the
    /// same stream, a place.
    StreamAsOstream,
    /// `stream >> x`: args `[stream, target]`; skips white space and reads
    /// the target's type as libstdc++ reads it (a number, a `char`, or a
    /// word into a `std::vector<char>` place ending in a zero: a
    /// `std::string`'s characters). A failure sets the stream's failbit
    /// (a number then reads as 0, or as its type's limit when out of
    /// range); a failed stream reads nothing. The result is the stream.
    StreamRead,
    /// `std::getline(stream, s, delim)`: args `[stream, characters place,
    /// delimiter (a char)]`, the place a `std::vector<char>` ending in a
    /// zero; reads up to the delimiter, which is dropped. The result is
    /// the stream.
    StreamGetline,
    /// `ss.str()`: args `[stream]`; its text as a `std::vector<char>`
    /// ending in a zero.
    StreamText,
    /// `ss.str(s)`: args `[stream, text]` (as for `StringStreamNew`);
    /// replaces the text and reads from its start again (the state flags
    /// stay as they are, as in C++).
    StreamSetText,
    /// A question about a stream's state: args `[stream]`, a `bool`.
    StreamQuery(StreamQuery),
    /// `ss.clear()`: args `[stream]`; clears the state flags.
    StreamClear,
    /// A member function of a stream's format (`std::cout.precision(3)`):
    /// args `[stream, new values...]`; answers the value before the call
    /// (`void` for `unsetf`). The stream is `std::cout`, `std::cerr`, a
    /// wide one or a string stream, whose format `<<` uses.
    StreamFormat(StreamMember),
    /// `std::stoi` and its family: args `[characters (a `std::string`'s:
    /// a `std::vector<char>` ending in a zero), position out (a `size_t*`,
    /// may be null), base (an `int`)]`; parses the text as `strtol`
    /// (`strtoul`, `strtod`, ...) does for the expression's type. No number
    /// throws `std::invalid_argument`, one out of range `std::out_of_range`,
    /// as in C++; `name` is the function's, their `what()`.
    StringToNumber {
        /// `stoi`, `stol`, ...: what the error names.
        name: LiteralName,
    },
    /// `accelerator_view::wait()` / `flush()`: every operation has finished
    /// before the next one starts, so there is nothing to do.
    DeviceWait,
    /// `accelerator::get_default_cpu_access_type()`: args none; the
    /// device's default CPU `access_type` (an `int`), `access_type_auto`
    /// until a program sets one.
    DeviceCpuAccess,
    /// `accelerator::set_default_cpu_access_type(t)`: args `[access_type]`;
    /// `true` when the default was set, `false` when it was set before or
    /// the runtime's default was already used for an array (C++ AMP's rule).
    DeviceSetCpuAccess,
    /// `array::get_cpu_access_type()`: args `[array]`; the `access_type` the
    /// array was made with, `access_type_auto` resolved when it was made.
    ArrayCpuAccess,
    /// An iterator into a vector at a position: args `[vector, position]`
    /// (a `long`); its value is the position. Made for `v.begin() + k` and
    /// the iterators algorithms return; the vector is a pure expression.
    IterAt,
    /// An `<algorithm>`/`<numeric>` function over `[lo, hi)` of a vector:
    /// args `[vector (a place), lo, hi, ...]`, positions as `long`s
    /// checked against the vector's size when it runs.
    Algorithm(Algo),
    /// `std::swap(a, b)`: args `[a, b]`, two places of one type.
    Swap,
    /// `v.begin()` (`end: false`) or `v.end()`; args `[vector]`. Only an
    /// argument of `array` constructors and `copy`. `cbegin()`/`cend()` are
    /// the same; `rbegin()`/`rend()` (and `crbegin()`/`crend()`) have
    /// `reverse`, and the consumer reads the vector through
    /// [`Intrinsic::VectorReversed`].
    VectorIterator {
        /// `end()` rather than `begin()`.
        end: bool,
        /// A reverse iterator (`rbegin()`, `rend()`).
        reverse: bool,
        /// A const iterator (`cbegin()`, `crend()`, ...): nothing may be
        /// written through it.
        read_only: bool,
    },
    /// A new vector with the elements of `args[0]` (a vector) in reverse
    /// order: what a range of reverse iterators reads.
    VectorReversed,
    /// A stream manipulator (`std::endl`, `std::setw(n)`, ...).
    Manipulator(Manipulator),
    /// `tiled_index::barrier.wait*()`; only as a statement, lowered to `StmtKind::Barrier`.
    Barrier(Fence),
    /// `all_memory_fence(barrier)` and friends: orders memory, does not wait.
    MemoryFence(Fence),
    /// `printf`/`fprintf`: args `[format, values...]`, the format a `Str`
    /// checked against the values, which are already promoted as C's
    /// variadic calls promote them (`float` to `double`, `char` and `bool`
    /// to `int`). The result is the number of bytes written, an `int`.
    Printf(OutStream),
    /// `sprintf(buffer, format, ...)` (`bounded: false`) or
    /// `snprintf(buffer, size, format, ...)`: args `[buffer, size (bounded
    /// only), format, values...]`, formatted as `Printf` formats them; the
    /// text and its terminating zero are written through the `char*`
    /// buffer, each byte checked (`snprintf` writes at most `size - 1`
    /// bytes and the zero). The result is the length of the whole text, an
    /// `int`.
    Sprintf {
        /// `snprintf`, with its size argument.
        bounded: bool,
    },
    /// `puts(s)` (`newline: true`, then `int`) or `fputs(s, f)`; args `[string]`.
    Puts {
        /// The stream written.
        stream: OutStream,
        /// `puts` adds a newline.
        newline: bool,
    },
    /// `putchar(c)` / `fputc(c, f)`: args `[int]`, returns the byte written.
    Putchar(OutStream),
    /// `fflush(f)`: args none; returns 0.
    Fflush(OutStream),
    /// `rand()`: glibc's generator, an `int` in `0..=RAND_MAX`.
    Rand,
    /// `clock()`: the time the run has taken so far, in microseconds
    /// (glibc's `CLOCKS_PER_SEC` is 1,000,000); a `long`.
    Clock,
    /// `time(...)`: the seconds since 1970-01-01 UTC; a `long`.
    Time,
    /// `<chrono>`'s clocks: nanoseconds on the monotonic clock (`steady`,
    /// from a start fixed for the process) or the system clock (since
    /// 1970); a `long`.
    ClockNanos {
        /// `std::chrono::steady_clock` rather than `system_clock`.
        steady: bool,
    },
    /// `std::random_device()`: args none; an `unsigned int` from the
    /// operating system's random source, different at each run.
    RandomDevice,
    /// A `<random>` engine seeded with `args[0]` (an `unsigned long`): its
    /// struct, to initialise or assign an engine with.
    RandomSeed(RandomEngine),
    /// The engine's next number: args `[engine (a place)]`; an
    /// `unsigned long`.
    RandomNext(RandomEngine),
    /// Advances the engine: args `[engine (a place), count]`, the count an
    /// `unsigned long`.
    RandomDiscard(RandomEngine),
    /// A number of a distribution from an engine: args `[distribution (a
    /// place), engine (a place)]`; of the distribution's result type.
    RandomDraw(Distribution, RandomEngine),
    /// `srand(seed)`: args `[unsigned int]`.
    Srand,
    /// `exit(status)`: args `[int]`; flushes the output and ends the run.
    Exit,
    /// `abort()`: ends the run with a run-time error.
    Abort,
    /// `assert(cond)`: args `[bool]`; a false condition ends the run with a
    /// run-time error naming the function (`int main()`).
    Assert(String),
}

/// The engines of `<random>`, as libstdc++ defines them. An engine is a
/// struct of two fields: `words`, its state as `unsigned long`s (one for
/// the linear congruential engines), and `pos`, a `long` (the Mersenne
/// twisters' next word).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RandomEngine {
    /// `std::mt19937`
    Mt19937,
    /// `std::mt19937_64`
    Mt19937_64,
    /// `std::minstd_rand0`, which is libstdc++'s `default_random_engine`.
    MinstdRand0,
    /// `std::minstd_rand`
    MinstdRand,
}

impl RandomEngine {
    /// The name in `std`.
    pub fn name(self) -> &'static str {
        match self {
            RandomEngine::Mt19937 => "mt19937",
            RandomEngine::Mt19937_64 => "mt19937_64",
            RandomEngine::MinstdRand0 => "minstd_rand0",
            RandomEngine::MinstdRand => "minstd_rand",
        }
    }

    /// How many words of state it has.
    pub fn state_words(self) -> u32 {
        match self {
            RandomEngine::Mt19937 => 624,
            RandomEngine::Mt19937_64 => 312,
            RandomEngine::MinstdRand0 | RandomEngine::MinstdRand => 1,
        }
    }

    /// `min()`
    pub fn min(self) -> u64 {
        match self {
            RandomEngine::Mt19937 | RandomEngine::Mt19937_64 => 0,
            RandomEngine::MinstdRand0 | RandomEngine::MinstdRand => 1,
        }
    }

    /// `max()`
    pub fn max(self) -> u64 {
        match self {
            RandomEngine::Mt19937 => u64::from(u32::MAX),
            RandomEngine::Mt19937_64 => u64::MAX,
            RandomEngine::MinstdRand0 | RandomEngine::MinstdRand => 2_147_483_646,
        }
    }

    /// The seed of a default-constructed engine.
    pub fn default_seed(self) -> u64 {
        match self {
            RandomEngine::Mt19937 | RandomEngine::Mt19937_64 => 5489,
            RandomEngine::MinstdRand0 | RandomEngine::MinstdRand => 1,
        }
    }
}

/// The distributions of `<random>`. A distribution is a struct of its
/// parameters (`a`, `b`; `mean`, `stddev`; `p`) and, for the normal
/// distribution, the second number of the last pair it made (`saved`) and
/// whether that is still to be returned (`has_saved`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// `uniform_int_distribution<T>`: its integer type.
    UniformInt(Scalar),
    /// `uniform_real_distribution<T>`: `float` or `double`.
    UniformReal(Scalar),
    /// `normal_distribution<T>`: `float` or `double`.
    Normal(Scalar),
    /// `bernoulli_distribution`: a `bool`.
    Bernoulli,
}

/// The algorithms of `Intrinsic::Algorithm`; the arguments after the range.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algo {
    /// `std::fill`: `[value]` of the element type.
    Fill,
    /// `std::iota`: `[start]` of its own type, incremented in that type and
    /// converted to the element type for each element.
    Iota,
    /// `std::accumulate`: `[init]`; each step is `acc = acc + x` in `common`
    /// (the usual arithmetic conversions of the two types), converted back
    /// to the type of `init`, which is the result's.
    Accumulate(Scalar),
    /// `std::sort`, ascending, or descending with `std::greater<T>()`.
    Sort {
        /// Descending.
        greater: bool,
    },
    /// `std::reverse`.
    Reverse,
    /// `std::min_element` / `std::max_element`: the position of the first
    /// least (greatest) element, `hi` for an empty range.
    MinMaxElement {
        /// `max_element`.
        max: bool,
    },
    /// `std::count`: `[value]` of the element type; a `long`.
    Count,
    /// `std::equal`: `[vector2, lo2]`; a `bool`.
    Equal,
    /// `std::copy`: `[destination vector, lo2]`; no value.
    Copy,
    /// `std::find_if` (`count: false`; the position of the first element
    /// the predicate accepts, `hi` if none) and `std::count_if` (`count:
    /// true`; how many it accepts, a `long`): `[store, element, test]`,
    /// where `store` is evaluated once (it stores the predicate in a hidden
    /// local), `element` is the place of a hidden local that holds each
    /// element in turn, and `test` the `bool` call of the predicate on it.
    Predicate {
        /// `count_if` rather than `find_if`.
        count: bool,
    },
}

/// The C streams `printf` and friends write to.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutStream {
    /// `stdout`, the stream `std::cout` writes to too: one order.
    Stdout,
    /// `stderr`.
    Stderr,
}

/// Parts of a `tiled_index`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TiledIndexPart {
    /// `global`
    Global,
    /// `local`
    Local,
    /// `tile`
    Tile,
    /// `tile_origin`
    TileOrigin,
    /// `tile_extent`
    TileExtent,
    /// `barrier`: the tile's `tile_barrier`.
    Barrier,
}

/// Math functions.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `sqrt`
    Sqrt,
    /// `rsqrt`
    Rsqrt,
    /// `fabs` / `abs` on floats
    Fabs,
    /// `abs` on ints
    Abs,
    /// `floor`
    Floor,
    /// `ceil`
    Ceil,
    /// `round`
    Round,
    /// `trunc`
    Trunc,
    /// `exp`
    Exp,
    /// `exp2`
    Exp2,
    /// `log`
    Log,
    /// `log2`
    Log2,
    /// `log10`
    Log10,
    /// `pow`
    Pow,
    /// `sin`
    Sin,
    /// `cos`
    Cos,
    /// `tan`
    Tan,
    /// `asin`
    Asin,
    /// `acos`
    Acos,
    /// `atan`
    Atan,
    /// `atan2`
    Atan2,
    /// `sinh`
    Sinh,
    /// `cosh`
    Cosh,
    /// `tanh`
    Tanh,
    /// `fmin`
    Fmin,
    /// `fmax`
    Fmax,
    /// `fmod`
    Fmod,
    /// `cbrt`
    Cbrt,
    /// `log1p`
    Log1p,
    /// `expm1`
    Expm1,
    /// `hypot`
    Hypot,
    /// `erf`
    Erf,
    /// `erfc`
    Erfc,
    /// `tgamma`
    Tgamma,
    /// `lgamma`
    Lgamma,
    /// `asinh`
    Asinh,
    /// `acosh`
    Acosh,
    /// `atanh`
    Atanh,
    /// `copysign`
    Copysign,
    /// `fdim`
    Fdim,
    /// `fma`
    Fma,
    /// `remainder`
    Remainder,
    /// `exp10`
    Exp10,
    /// `min` on ints (`concurrency::direct3d::imin`, `std::min`)
    Min,
    /// `max` on ints
    Max,
}

/// Atomic operations.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `atomic_fetch_add`
    Add,
    /// `atomic_fetch_sub`
    Sub,
    /// `atomic_fetch_and`
    And,
    /// `atomic_fetch_or`
    Or,
    /// `atomic_fetch_xor`
    Xor,
    /// `atomic_fetch_max`
    Max,
    /// `atomic_fetch_min`
    Min,
    /// `atomic_fetch_inc`
    Inc,
    /// `atomic_fetch_dec`
    Dec,
    /// `atomic_exchange`
    Exchange,
    /// `atomic_compare_exchange`
    CompareExchange,
}

/// What `Intrinsic::StreamQuery` asks of a stream.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamQuery {
    /// `good()`: no flag set.
    Good,
    /// `fail()`, `!stream`: failbit or badbit set.
    Fail,
    /// `eof()`: the end of the text was reached.
    Eof,
    /// `bad()`: badbit set (never, for a string stream).
    Bad,
    /// `if (stream)`: neither failbit nor badbit set.
    Ok,
}

/// The member functions of a stream's format state
/// (`Intrinsic::StreamFormat`), each with or without its new value.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamMember {
    /// `precision()` and `precision(n)`: a `std::streamsize` (`long`).
    Precision,
    /// `width()` and `width(n)`: a `std::streamsize`.
    Width,
    /// `fill()` and `fill(c)`: the padding character.
    Fill,
    /// `flags()` and `flags(f)`: the whole `fmtflags` (an `int`, with
    /// libstdc++'s values: [`fmtflags`]).
    Flags,
    /// `setf(f)`: sets the bits of `f`; answers the flags before.
    Setf,
    /// `setf(f, mask)`: clears the bits of `mask`, then sets those of
    /// `f & mask`; answers the flags before.
    SetfMasked,
    /// `unsetf(mask)`: clears the bits of `mask`.
    Unsetf,
}

/// `std::ios_base::fmtflags`: the format flags of a stream, with the values
/// libstdc++ gives them (a program may print them, as g++ shows them).
pub mod fmtflags {
    /// `boolalpha`.
    pub const BOOLALPHA: i32 = 1 << 0;
    /// `dec`.
    pub const DEC: i32 = 1 << 1;
    /// `fixed`.
    pub const FIXED: i32 = 1 << 2;
    /// `hex`.
    pub const HEX: i32 = 1 << 3;
    /// `internal`.
    pub const INTERNAL: i32 = 1 << 4;
    /// `left`.
    pub const LEFT: i32 = 1 << 5;
    /// `oct`.
    pub const OCT: i32 = 1 << 6;
    /// `right`.
    pub const RIGHT: i32 = 1 << 7;
    /// `scientific`.
    pub const SCIENTIFIC: i32 = 1 << 8;
    /// `showbase`.
    pub const SHOWBASE: i32 = 1 << 9;
    /// `showpoint`.
    pub const SHOWPOINT: i32 = 1 << 10;
    /// `showpos`.
    pub const SHOWPOS: i32 = 1 << 11;
    /// `skipws`.
    pub const SKIPWS: i32 = 1 << 12;
    /// `unitbuf`.
    pub const UNITBUF: i32 = 1 << 13;
    /// `uppercase`.
    pub const UPPERCASE: i32 = 1 << 14;
    /// `adjustfield`: `left | right | internal`.
    pub const ADJUSTFIELD: i32 = LEFT | RIGHT | INTERNAL;
    /// `basefield`: `dec | oct | hex`.
    pub const BASEFIELD: i32 = DEC | OCT | HEX;
    /// `floatfield`: `scientific | fixed`.
    pub const FLOATFIELD: i32 = SCIENTIFIC | FIXED;

    /// The flag `std::ios_base::name` (also `std::ios::name`), if it is one.
    pub fn named(name: &str) -> Option<i32> {
        Some(match name {
            "boolalpha" => BOOLALPHA,
            "dec" => DEC,
            "fixed" => FIXED,
            "hex" => HEX,
            "internal" => INTERNAL,
            "left" => LEFT,
            "oct" => OCT,
            "right" => RIGHT,
            "scientific" => SCIENTIFIC,
            "showbase" => SHOWBASE,
            "showpoint" => SHOWPOINT,
            "showpos" => SHOWPOS,
            "skipws" => SKIPWS,
            "unitbuf" => UNITBUF,
            "uppercase" => UPPERCASE,
            "adjustfield" => ADJUSTFIELD,
            "basefield" => BASEFIELD,
            "floatfield" => FLOATFIELD,
            _ => return None,
        })
    }
}

/// What `Intrinsic::ContainerLookup` asks of a set.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LookupOp {
    /// `find`: the position of the first equal element.
    Find,
    /// `count`: how many are equal.
    Count,
    /// `erase(x)`: removes the equal ones, and says how many there were.
    Erase,
    /// `erase(it)` (of a set or a list): the value is the pointer the
    /// iterator holds; removes that element, and is a pointer to the
    /// element after it (of the expression's pointer type).
    EraseAt,
}

/// Stream manipulators.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Manipulator {
    /// `std::endl`: newline and flush.
    Endl,
    /// `std::setw(n)`: width of the next field.
    Setw,
    /// `std::setprecision(n)`.
    Setprecision,
    /// `std::fixed`.
    Fixed,
    /// `std::scientific`.
    Scientific,
    /// `std::defaultfloat`.
    DefaultFloat,
    /// `std::left`.
    Left,
    /// `std::right`.
    Right,
    /// `std::hex`.
    Hex,
    /// `std::dec`.
    Dec,
    /// `std::boolalpha`.
    Boolalpha,
    /// `std::setfill(c)`.
    Setfill,
    /// `std::oct`.
    Oct,
    /// `std::noboolalpha`.
    Noboolalpha,
    /// `std::showpos`: a `+` before non-negative signed numbers.
    Showpos,
    /// `std::noshowpos`.
    Noshowpos,
    /// `std::showpoint`: floating-point values always show their point.
    Showpoint,
    /// `std::noshowpoint`.
    Noshowpoint,
    /// `std::uppercase`: `X`, `E` and hex digits in capitals.
    Uppercase,
    /// `std::nouppercase`.
    Nouppercase,
    /// `std::showbase`: `0x` before hex and `0` before octal numbers.
    Showbase,
    /// `std::noshowbase`.
    Noshowbase,
    /// `std::internal`: padding between the sign (or `0x`) and the digits.
    Internal,
    /// `std::hexfloat`: floating-point values as `%a` writes them.
    Hexfloat,
    /// `std::flush`.
    Flush,
    /// `std::ends`: a null character.
    Ends,
    /// `std::setiosflags(f)`: sets the flags of `f` (an `int`).
    Setiosflags,
    /// `std::resetiosflags(f)`: clears the flags of `f`.
    Resetiosflags,
    /// `stream.put(c)`: the byte `c`, unformatted (no padding; a pending
    /// width stays for the next value).
    Put,
}

/// The stream a `Print` chain writes to: follows the first operands of
/// nested `Print`s down to the stream itself.
pub fn print_target(stream: &Expr) -> OutStream {
    let mut e = stream;
    loop {
        match &e.kind {
            ExprKind::Intrinsic {
                op: Intrinsic::Print,
                args,
            } if !args.is_empty() => e = &args[0],
            ExprKind::Intrinsic {
                op: Intrinsic::Stderr,
                ..
            } => return OutStream::Stderr,
            _ => return OutStream::Stdout,
        }
    }
}

/// The wide-string properties of an accelerator (`Intrinsic::DeviceText`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceText {
    /// `description`.
    Description,
    /// `device_path`.
    Path,
}

/// What `concurrency::accelerator` answers about Tessera's accelerators:
/// the default one, the CPU engine that runs every kernel, and C++ AMP's
/// CPU accelerator, which holds data but runs no kernel.
pub mod device {
    /// The default accelerator's `device_path`.
    pub const PATH: &str = "tessera";
    /// The default accelerator's `description`.
    pub const DESCRIPTION: &str = "Tessera CPU";
    /// The CPU accelerator's `device_path` (`accelerator::cpu_accelerator`).
    pub const CPU_PATH: &str = "cpu";
    /// The CPU accelerator's `description`, as C++ AMP's.
    pub const CPU_DESCRIPTION: &str = "CPU accelerator";
    /// The path `accelerator::default_accelerator` stands for.
    pub const DEFAULT: &str = "default";
    /// `queuing_mode_immediate`.
    pub const QUEUING_IMMEDIATE: i64 = 0;
    /// `queuing_mode_automatic`, the mode of the default views and of
    /// `create_view()`.
    pub const QUEUING_AUTOMATIC: i64 = 1;
    /// What `parallel_for_each` throws (a `runtime_exception`) on a view of
    /// the CPU accelerator, as C++ AMP words it.
    pub const CPU_LAUNCH: &str = "concurrency::parallel_for_each is not supported on the selected accelerator \"CPU accelerator\".";
    /// The device-path constants of `accelerator`, as C++ AMP defines them.
    pub const CONSTANTS: &[(&str, &str)] = &[
        ("default_accelerator", "default"),
        ("cpu_accelerator", "cpu"),
        ("direct3d_warp", "direct3d\\warp"),
        ("direct3d_ref", "direct3d\\ref"),
    ];
    /// `version`: 1.0 as C++ AMP encodes it (major in the high 16 bits).
    pub const VERSION: i64 = 0x10000;
    /// `concurrency::access_type`'s enumerators and their values.
    pub const ACCESS_TYPES: [(&str, i64); 5] = [
        ("access_type_none", 0),
        ("access_type_read", 1),
        ("access_type_write", 2),
        ("access_type_read_write", 3),
        ("access_type_auto", 4),
    ];
    /// `access_type_none`: the CPU may not touch the data (`data()` is null).
    pub const ACCESS_NONE: i64 = 0;
    /// `access_type_read_write`: what `access_type_auto` resolves to here,
    /// since the device's memory is the host's own, as fast for either.
    pub const ACCESS_READ_WRITE: i64 = 3;
    /// `access_type_auto`: the default's value until a program sets one.
    pub const ACCESS_AUTO: i64 = 4;
}

/// A name the checker gives as a string literal (`stoi`, ...), written
/// and read back with the program (a record of a checked program kept
/// between runs): one read back is kept for the rest of the process, as
/// the literal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct LiteralName(pub &'static str);

impl<'de> serde::Deserialize<'de> for LiteralName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(deserializer)?;
        Ok(LiteralName(text.leak()))
    }
}
