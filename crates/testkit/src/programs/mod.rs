//! Random, complete and well-defined `.amp` programs, for differential
//! testing of `tessera run` against the C++ oracle.
//!
//! [`program`] builds program number `index` of a run with `seed`; the same
//! pair always gives the same text. A program has object-like and
//! function-like macros, global constants and constant arrays, structs
//! (nested, with array members), helper functions (`restrict(amp, cpu)`,
//! amp-only and host-only, with value, `const &` and `&` parameters, and
//! selectors returning a reference), and a `main` that mixes host code with
//! kernels. In statements and expressions: every arithmetic type with its
//! conversions and casts (three cast syntaxes), all the operators, the
//! comma operator, conditional lvalues, side effects in short-circuit
//! operands and in indices, compound assignments, `++`/`--`, loops with
//! `break`/`continue`, `switch` with fall-through, `#if` blocks, names that
//! hide outer ones, C arrays, `std::vector`, `std::min`/`std::max` and the
//! exactly rounded functions of `<cmath>` on the host; `fast_math`,
//! `precise_math` and `direct3d` in kernels. Kernels run over `extent<1>`
//! to `extent<3>` and tiled extents (also padded and truncated), read
//! `array_view`s, `array`s, their sections and projections, the arithmetic
//! of `index` and `extent`, `tile_static` arrays (written by their own
//! work-item, then read anywhere after a barrier, or reduced in a tree),
//! update accumulators with atomics, read and write their own output
//! element (through references too), sometimes in repeated launches; the
//! results come back by `synchronize`, `copy`, a host-side read through the
//! view, or the view's destruction, and are printed with `<iomanip>`
//! manipulators.
//!
//! Every program is valid C++ AMP and free of undefined behaviour by
//! construction, so whatever the oracle prints is the truth:
//!
//! - every expression carries a conservative range of the values it can
//!   take. An operation whose range would overflow a signed type is
//!   computed in the unsigned type instead, or on reduced operands
//!   (`x % 1000`); divisors are guarded against zero and against
//!   `INT_MIN / -1`; shift counts are masked into range, and a signed value
//!   is shifted left only while it is non-negative and stays in range;
//!   floating-point values stay far from overflow and are converted to an
//!   integer type only when they fit;
//! - every variable of a signed type keeps an invariant range (`int` within
//!   ±30000, `long` within ±2e9, `float` within ±1e6, `double` within
//!   ±1e9): every write is reduced, clamped or scaled into it, so loops
//!   cannot grow values without bound;
//! - side effects inside expressions touch only dedicated counters, each at
//!   most once per full expression and never read in the same one, so no
//!   evaluation order matters; functions with reference parameters and
//!   functions that print are called only as statements;
//! - array indices are reduced into bounds, loops have constant trip counts
//!   (`continue` never skips an increment), every variable is initialised,
//!   no name is hidden by a declaration whose initialiser reads it, no
//!   reference outlives what it refers to;
//! - a kernel writes only its own output element and reads its inputs;
//!   `tile_static` data is read only after a barrier that follows the
//!   writes, and written again only after another barrier; each
//!   accumulator gets one commutative atomic operation, whose old values
//!   are never used; discarded data is never read;
//! - floating-point arithmetic is `+ - * /` and exactly rounded functions,
//!   so printing any number of digits is portable; the other functions of
//!   `<cmath>` are printed with at most five significant digits;
//! - g++'s own slip, folding `0 - (float)i` to `-(float)i` (-0.0 instead
//!   of +0.0), is avoided: a floating-point `+` or `-` with an operand
//!   known to be zero is not generated.

use crate::mutate::Rng;
use std::fmt::Write as _;

mod expr;
mod program;
mod state;
mod stmt;

/// The range of an index component, from the kernel's dimension.
type ComponentRange = Box<dyn Fn(i128) -> (i128, i128)>;

/// What the generator may use beyond what Tessera is known to accept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Also generate what Tessera has been found to reject or get wrong:
    /// valid C++ AMP that `tessera check` rejects (`std::noboolalpha`, a
    /// `const T&`, local or parameter, bound to a value of another type,
    /// `L`/`UL` literals in amp code), and `char`s outside ASCII written to
    /// `std::cout` (fixed since). (Functions overloaded on their parameter
    /// types, once called by the first declaration, are generated always
    /// since overload resolution follows C++.) Off by default,
    /// so that a run looks for new problems; on, it checks old ones.
    pub known_gaps: bool,
}

/// Program number `index` of a run with `seed` (each program has its own
/// random stream, [`Rng::for_mutant`]), with the default [`Options`].
pub fn program(seed: u64, index: usize) -> String {
    program_with(seed, index, Options::default())
}

/// Program number `index` of a run with `seed`, with `options`.
pub fn program_with(seed: u64, index: usize, options: Options) -> String {
    generate(&mut Rng::for_mutant(seed, index), options)
}

/// A program from the random stream `rng`.
pub fn generate(rng: &mut Rng, options: Options) -> String {
    let mut g = Gen::new(rng, options);
    g.program();
    g.out
}

/// Invariant of `int` variables: within ±this.
const INT_INV: i128 = 30_000;
/// Invariant of `long` variables (below 2^31, so that reducing into it
/// needs only an `int` constant, which amp code accepts).
const LONG_INV: i128 = 2_000_000_000;
/// Bound of the counters that side effects in expressions update.
const COUNTER_INV: i128 = 1_000_000;
/// Invariant of `float` variables.
const FLOAT_INV: f64 = 1e6;
/// Invariant of `double` variables.
const DOUBLE_INV: f64 = 1e9;
/// No floating-point expression gets further from zero than this.
const FLOAT_LIMIT: f64 = 1e30;

// Precedence levels of C++ operators, tightest first.
const P_PRIMARY: u8 = 0;
const P_UNARY: u8 = 1;
const P_MUL: u8 = 3;
const P_ADD: u8 = 4;
const P_SHIFT: u8 = 5;
const P_REL: u8 = 6;
const P_EQ: u8 = 7;
const P_BAND: u8 = 8;
const P_BXOR: u8 = 9;
const P_BOR: u8 = 10;
const P_LAND: u8 = 11;
const P_LOR: u8 = 12;
const P_COND: u8 = 13;

/// The arithmetic types of the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sc {
    Bool,
    Char,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
}

impl Sc {
    fn name(self) -> &'static str {
        match self {
            Sc::Bool => "bool",
            Sc::Char => "char",
            Sc::Int => "int",
            Sc::UInt => "unsigned int",
            Sc::Long => "long",
            Sc::ULong => "unsigned long",
            Sc::Float => "float",
            Sc::Double => "double",
        }
    }

    /// A one-word spelling, usable in a functional cast `T(x)`.
    fn word(self) -> Option<&'static str> {
        match self {
            Sc::ULong => None,
            Sc::UInt => Some("unsigned"),
            other => Some(other.name()),
        }
    }

    fn float(self) -> bool {
        matches!(self, Sc::Float | Sc::Double)
    }

    fn integral(self) -> bool {
        !self.float()
    }

    fn signed(self) -> bool {
        matches!(self, Sc::Char | Sc::Int | Sc::Long | Sc::Float | Sc::Double)
    }

    fn bits(self) -> u32 {
        match self {
            Sc::Bool => 1,
            Sc::Char => 8,
            Sc::Int | Sc::UInt | Sc::Float => 32,
            Sc::Long | Sc::ULong | Sc::Double => 64,
        }
    }

    fn min(self) -> i128 {
        match self {
            Sc::Bool | Sc::UInt | Sc::ULong => 0,
            Sc::Char => -128,
            Sc::Int => -(1 << 31),
            _ => -(1 << 63),
        }
    }

    fn max(self) -> i128 {
        match self {
            Sc::Bool => 1,
            Sc::Char => 127,
            Sc::Int => (1 << 31) - 1,
            Sc::UInt => (1 << 32) - 1,
            Sc::ULong => (1 << 64) - 1,
            _ => (1 << 63) - 1,
        }
    }

    /// The type after the integral promotions.
    fn promote(self) -> Sc {
        match self {
            Sc::Bool | Sc::Char => Sc::Int,
            other => other,
        }
    }

    fn unsigned(self) -> Sc {
        match self {
            Sc::Int => Sc::UInt,
            Sc::Long => Sc::ULong,
            other => other,
        }
    }

    /// The suffix of an integer literal of this (promoted) type.
    fn suffix(self) -> &'static str {
        match self {
            Sc::UInt => "u",
            Sc::Long => "L",
            Sc::ULong => "UL",
            _ => "",
        }
    }
}

/// The type of `a op b` after the usual arithmetic conversions.
fn common(a: Sc, b: Sc) -> Sc {
    if a == Sc::Double || b == Sc::Double {
        return Sc::Double;
    }
    if a == Sc::Float || b == Sc::Float {
        return Sc::Float;
    }
    let (a, b) = (a.promote(), b.promote());
    if a == b {
        return a;
    }
    let rank = |s: Sc| {
        if matches!(s, Sc::Long | Sc::ULong) {
            2
        } else {
            1
        }
    };
    if a.signed() == b.signed() {
        return if rank(a) >= rank(b) { a } else { b };
    }
    let (s, u) = if a.signed() { (a, b) } else { (b, a) };
    if rank(u) >= rank(s) { u } else { s }
}

/// A conservative range of values: exact integers, or floating point.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rg {
    I(i128, i128),
    F(f64, f64),
}

impl Rg {
    fn i(self) -> (i128, i128) {
        match self {
            Rg::I(a, b) => (a, b),
            Rg::F(a, b) => (a.floor() as i128, b.ceil() as i128),
        }
    }

    fn f(self) -> (f64, f64) {
        match self {
            Rg::I(a, b) => (a as f64, b as f64),
            Rg::F(a, b) => (a, b),
        }
    }

    fn abs_max(self) -> f64 {
        let (a, b) = self.f();
        a.abs().max(b.abs())
    }
}

/// The invariant range of variables of type `t`.
fn inv(t: Sc) -> Rg {
    match t {
        Sc::Int => Rg::I(-INT_INV, INT_INV),
        Sc::Long => Rg::I(-LONG_INV, LONG_INV),
        Sc::Float => Rg::F(-FLOAT_INV, FLOAT_INV),
        Sc::Double => Rg::F(-DOUBLE_INV, DOUBLE_INV),
        other => Rg::I(other.min(), other.max()),
    }
}

fn full(t: Sc) -> Rg {
    if t.float() {
        Rg::F(-FLOAT_LIMIT, FLOAT_LIMIT)
    } else {
        Rg::I(t.min(), t.max())
    }
}

fn within(r: Rg, outer: Rg) -> bool {
    match (r, outer) {
        (Rg::I(a, b), Rg::I(c, d)) => a >= c && b <= d,
        _ => {
            let ((a, b), (c, d)) = (r.f(), outer.f());
            a >= c && b <= d
        }
    }
}

/// A floating-point range of type `t`, widened for rounding.
fn widen(lo: f64, hi: f64, t: Sc) -> Rg {
    let eps = if t == Sc::Float { 1e-6 } else { 1e-14 };
    Rg::F(lo - lo.abs() * eps - 1e-30, hi + hi.abs() * eps + 1e-30)
}

/// The range of a value of range `r` and type `from` converted to `to`
/// (a floating-point value must fit `to`, see [`float_fits`]).
fn conv_rg(r: Rg, from: Sc, to: Sc) -> Rg {
    if to == Sc::Bool {
        let (lo, hi) = r.f();
        return if lo == 0.0 && hi == 0.0 {
            Rg::I(0, 0)
        } else if lo > 0.0 || hi < 0.0 {
            Rg::I(1, 1)
        } else {
            Rg::I(0, 1)
        };
    }
    if to.integral() {
        if from.integral() {
            let (lo, hi) = r.i();
            if lo >= to.min() && hi <= to.max() {
                Rg::I(lo, hi)
            } else {
                full(to)
            }
        } else {
            let (lo, hi) = r.f();
            Rg::I(
                (lo.trunc() as i128).max(to.min()),
                (hi.trunc() as i128).min(to.max()),
            )
        }
    } else {
        let (lo, hi) = r.f();
        widen(lo, hi, to)
    }
}

/// Whether a floating-point value of range `r` converts to `to` without
/// undefined behaviour (with a wide margin).
fn float_fits(r: Rg, to: Sc) -> bool {
    let (lo, hi) = r.f();
    let (a, b) = match to {
        Sc::Int => (-2.0e9, 2.0e9),
        Sc::Long => (-9.0e18, 9.0e18),
        Sc::UInt => (0.0, 4.0e9),
        Sc::ULong => (0.0, 1.8e19),
        Sc::Char => (-120.0, 120.0),
        _ => return true,
    };
    lo >= a && hi <= b
}

/// The range of `a op b` in type `c` for `+ - * & | ^`, from the ranges of
/// the operands already converted to `c`; `None` when a signed `c` could
/// overflow.
fn op_range(op: &str, ar: Rg, br: Rg, c: Sc) -> Option<Rg> {
    if c.float() {
        let ((al, ah), (bl, bh)) = (ar.f(), br.f());
        let (lo, hi) = match op {
            "+" => (al + bl, ah + bh),
            "-" => (al - bh, ah - bl),
            _ => minmax(&[al * bl, al * bh, ah * bl, ah * bh]),
        };
        return (lo >= -FLOAT_LIMIT && hi <= FLOAT_LIMIT).then(|| widen(lo, hi, c));
    }
    let ((al, ah), (bl, bh)) = (ar.i(), br.i());
    let exact = match op {
        "+" => Some((al + bl, ah + bh)),
        "-" => Some((al - bh, ah - bl)),
        "*" => {
            let products = [
                al.checked_mul(bl),
                al.checked_mul(bh),
                ah.checked_mul(bl),
                ah.checked_mul(bh),
            ];
            if products.iter().all(Option::is_some) {
                let values: Vec<i128> = products.iter().flatten().copied().collect();
                Some((
                    values.iter().copied().min().unwrap_or(0),
                    values.iter().copied().max().unwrap_or(0),
                ))
            } else {
                None
            }
        }
        _ => {
            // Bitwise: tight only for non-negative operands.
            return Some(if al >= 0 && bl >= 0 {
                match op {
                    "&" => Rg::I(0, ah.min(bh)),
                    _ => Rg::I(0, all_ones(ah.max(bh))),
                }
            } else {
                full(c)
            });
        }
    };
    match exact {
        Some((lo, hi)) if lo >= c.min() && hi <= c.max() => Some(Rg::I(lo, hi)),
        _ if !c.signed() => Some(full(c)),
        _ => None,
    }
}

/// The selector function for type `t` (see [`Gen::selectors`]).
fn selector_name(t: Sc) -> String {
    format!("sel_{}", t.name().replace(' ', "_"))
}

/// Whether `text` mentions the identifier `name` (as a whole word).
fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

fn exactly_zero(r: Rg) -> bool {
    r.f() == (0.0, 0.0)
}

/// The smallest `2^k - 1` at least `x` (for `x >= 0`).
fn all_ones(x: i128) -> i128 {
    let mut m: i128 = 0;
    while m < x {
        m = m * 2 + 1;
    }
    m
}

fn minmax(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// The range of an integral `a / d` or `a % d` in type `c` (ranges already
/// converted to `c`; `d` is never zero, and never -1 when `a` can be the
/// minimum of a signed `c`).
fn div_range(op: &str, ar: Rg, dr: Rg, c: Sc) -> Rg {
    let ((al, ah), (dl, dh)) = (ar.i(), dr.i());
    let m = al.abs().max(ah.abs());
    let dm = dl.abs().max(dh.abs()).max(1);
    if op == "/" {
        if !c.signed() || (al >= 0 && dl >= 1) {
            Rg::I(0, ah.max(0))
        } else {
            Rg::I((-m).max(c.min()), m.min(c.max()))
        }
    } else {
        let x = m.min(dm - 1);
        if !c.signed() {
            Rg::I(0, x)
        } else {
            Rg::I(if al < 0 { -x } else { 0 }, if ah > 0 { x } else { 0 })
        }
    }
}

/// An expression: its text, type, range, precedence level of its top
/// operator, and whether it is free of side effects.
#[derive(Clone, Debug)]
struct Ex {
    t: String,
    ty: Sc,
    rg: Rg,
    prec: u8,
    pure: bool,
}

impl Ex {
    fn atom(t: String, ty: Sc, rg: Rg) -> Ex {
        Ex {
            t,
            ty,
            rg,
            prec: P_PRIMARY,
            pure: true,
        }
    }

    /// `self`, impure unless `pure` (arguments built from the current full
    /// expression may have had side effects).
    fn with_purity(mut self, pure: bool) -> Ex {
        self.pure &= pure;
        self
    }
}

/// One step of a path from a variable to a scalar inside it.
#[derive(Clone, Debug)]
enum Step {
    Field(String),
    Index(usize),
}

/// What a variable is.
#[derive(Clone, Debug)]
enum Kind {
    Sc(Sc),
    /// A C array with these dimensions.
    Arr(Sc, Vec<usize>),
    St(usize),
    /// A `std::vector` of this length (host code).
    Vector(Sc, usize),
    /// A `std::vector` of structs of this length (host code).
    StVector(usize, usize),
    /// An `array_view<const T, N>` or `array<T, N>` with these dimensions,
    /// read by a kernel.
    View(Sc, Vec<usize>),
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    kind: Kind,
    /// Not assignable here.
    ro: bool,
    /// A counter that side effects in expressions update.
    counter: bool,
    /// A tighter range than the invariant of its type.
    rg: Option<Rg>,
}

impl Var {
    fn new(name: String, kind: Kind) -> Var {
        Var {
            name,
            kind,
            ro: false,
            counter: false,
            rg: None,
        }
    }

    fn fixed(name: String, t: Sc, rg: Rg) -> Var {
        Var {
            name,
            kind: Kind::Sc(t),
            ro: true,
            counter: false,
            rg: Some(rg),
        }
    }
}

#[derive(Clone, Debug)]
enum FKind {
    Sc(Sc),
    Arr(Sc, usize),
    St(usize),
}

#[derive(Clone, Debug)]
struct StructDef {
    name: String,
    fields: Vec<(String, FKind)>,
    /// Usable in amp code (no `char`, no `bool`).
    amp: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum PTy {
    Sc(Sc),
    St(usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Val,
    CRef,
    Ref,
}

#[derive(Clone, Debug)]
struct Func {
    name: String,
    ret: Option<Sc>,
    params: Vec<(String, PTy, Mode)>,
    amp: bool,
    cpu: bool,
    restrict: &'static str,
    /// Another function has this name (an overload on parameter types):
    /// its calls pass arguments of exactly the parameter types, so that
    /// C++ picks it without doubt.
    overloaded: bool,
}

/// An assignable location.
#[derive(Clone, Debug)]
struct Place {
    t: String,
    ty: Sc,
    root: String,
}

/// The accumulator of the kernel being generated: its view, length, element
/// type and its one family of atomic operations.
#[derive(Clone, Debug)]
struct Acc {
    view: String,
    len: usize,
    op: AccOp,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum AccOp {
    /// add, sub, inc, dec and a compare-exchange loop that adds, on `int`.
    Additive,
    /// add and sub on `unsigned int` (wrapping).
    UAdditive,
    Max,
    Min,
    /// max and min on `unsigned int`.
    UMax,
    UMin,
    Or,
    And,
    Xor,
}

const FLOAT_LITERALS: &[&str] = &[
    "0.5f", "1.25f", "0.1f", "3.0f", "2.5e2f", "1e-3f", "7.f", "0.3f", "100.0f", "1.0e3f", "0.0f",
    "1.5F", ".75f", "65504.0f", "3.14159f",
];
const DOUBLE_LITERALS: &[&str] = &[
    "0.1",
    "2.5",
    "1e3",
    "3.0",
    "0.125",
    "1.5e-2",
    ".5",
    "1234.5678",
    "1e-7",
    "100.0",
    "0.2",
    "6.02e5",
    "2.",
    "0.0",
    "1E2",
];
const CHAR_LITERALS: &[(&str, i128)] = &[
    ("'a'", 97),
    ("'Z'", 90),
    ("'0'", 48),
    ("' '", 32),
    ("'~'", 126),
    ("'#'", 35),
    ("'\\n'", 10),
    ("'q'", 113),
];

/// The helpers that bring any value into the invariant of a type, defined
/// by every program (see [`Gen::clamp`]).
const CLAMPS: &[&str] = &[
    "int clamp_i(double x) restrict(amp, cpu) {",
    "    if (x > 30000.0) return 30000;",
    "    if (x < -30000.0) return -30000;",
    "    return (int)x;",
    "}",
    "long clamp_l(double x) restrict(amp, cpu) {",
    "    return x > 2000000000.0 ? (long)2000000000 : x < -2000000000.0 ? (long)-2000000000 : (long)x;",
    "}",
    "float clamp_f(double x) restrict(amp, cpu) {",
    "    if (x >= 1000000.0) {",
    "        return 1000000.0f;",
    "    } else if (x <= -1000000.0) {",
    "        return -1000000.0f;",
    "    }",
    "    return (float)x;",
    "}",
    "double clamp_d(double x) restrict(amp, cpu) {",
    "    return x > 1e9 ? 1e9 : (x < -1e9 ? -1e9 : x);",
    "}",
    "",
];

/// Types of the elements of kernel inputs and outputs.
const VIEW_TYPES: &[Sc] = &[Sc::Int, Sc::Int, Sc::UInt, Sc::Float, Sc::Float, Sc::Double];

struct Gen<'r> {
    rng: &'r mut Rng,
    options: Options,
    out: String,
    ind: usize,
    next: usize,
    macros: Vec<(String, usize)>,
    structs: Vec<StructDef>,
    funcs: Vec<Func>,
    /// `scopes[0]` holds the globals visible here.
    scopes: Vec<Vec<Var>>,
    /// Generating amp code.
    amp: bool,
    /// Generating `restrict(amp, cpu)` code: neither `<cmath>` nor the amp
    /// math libraries.
    both: bool,
    /// Generating `main` (kernels and their outputs allowed).
    in_main: bool,
    /// In a function that returns this (`Some(None)`: void).
    ret: Option<Option<Sc>>,
    /// The function being generated may print (a void host function).
    may_print: bool,
    /// Functions that code here may call.
    callable: Vec<usize>,
    /// Counters read and written in the current full expression.
    fx_reads: Vec<String>,
    fx_writes: Vec<String>,
    /// Side effects allowed in the expression being generated.
    effects: bool,
    /// Enclosing loops (true) and switches (false), innermost last.
    breakable: Vec<bool>,
    /// How the kernel being generated names its index (`idx`, `t.global`).
    kidx: Vec<String>,
    /// Dimensions of the kernel being generated.
    kdims: Vec<usize>,
    acc: Option<Acc>,
    /// Scalars declared in each open host block of `main`, for printing at
    /// the end of the block.
    declared: Vec<Vec<String>>,
    /// Print with `cout` after `using std::cout;`.
    short_cout: bool,
    /// Statements left for the current function.
    budget: usize,
    /// Indices being generated inside indices.
    nest: usize,
    /// A kernel statement may `return;` (non-tiled, output not discarded).
    kernel_return: bool,
    /// Views of the kernel being generated: name, element type, dimensions,
    /// for sections.
    kviews: Vec<(String, Sc, Vec<usize>)>,
    /// Types with a selector function `T& sel_T(T& a, T& b, bool first)`.
    selectors: Vec<Sc>,
    /// Function-like macros `NAME(a, b) ((a) OP (b))`: name and operator.
    fmacros: Vec<(String, &'static str)>,
    /// The next place rendered may have a side effect in one index
    /// (`a[c++ % 3]`): for statements that evaluate the place once.
    place_effect: bool,
}
