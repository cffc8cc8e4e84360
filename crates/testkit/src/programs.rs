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

/// The range of an index component, from the kernel's dimension.
type ComponentRange = Box<dyn Fn(i128) -> (i128, i128)>;

/// What the generator may use beyond what Tessera is known to accept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Also generate what Tessera has been found to reject or get wrong:
    /// valid C++ AMP that `tessera check` rejects (`std::noboolalpha`, a
    /// `const T&`, local or parameter, bound to a value of another type,
    /// `L`/`UL` literals in amp code), functions overloaded on their
    /// parameter types (calls go to the first declaration), and `char`s
    /// outside ASCII written to `std::cout` (fixed since). Off by default,
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

impl<'r> Gen<'r> {
    fn new(rng: &'r mut Rng, options: Options) -> Self {
        Gen {
            rng,
            options,
            out: String::new(),
            ind: 0,
            next: 0,
            macros: Vec::new(),
            structs: Vec::new(),
            funcs: Vec::new(),
            scopes: vec![Vec::new()],
            amp: false,
            both: false,
            in_main: false,
            ret: None,
            may_print: false,
            callable: Vec::new(),
            fx_reads: Vec::new(),
            fx_writes: Vec::new(),
            effects: true,
            breakable: Vec::new(),
            kidx: Vec::new(),
            kdims: Vec::new(),
            acc: None,
            declared: Vec::new(),
            short_cout: false,
            budget: 0,
            nest: 0,
            kernel_return: false,
            kviews: Vec::new(),
            selectors: Vec::new(),
            fmacros: Vec::new(),
            place_effect: false,
        }
    }

    // ---------------------------------------------------------------
    // Small helpers.

    fn chance(&mut self, n: usize) -> bool {
        self.rng.below(n) == 0
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.rng.below(hi - lo + 1)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.ind {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn cout(&self) -> &'static str {
        if self.short_cout { "cout" } else { "std::cout" }
    }

    /// A size, sometimes spelled with a macro of that value.
    fn size(&mut self, n: usize) -> String {
        let names: Vec<String> = self
            .macros
            .iter()
            .filter(|(_, v)| *v == n)
            .map(|(name, _)| name.clone())
            .collect();
        if !names.is_empty() && self.chance(2) {
            self.rng.pick(&names).clone()
        } else {
            n.to_string()
        }
    }

    fn begin(&mut self) {
        self.fx_reads.clear();
        self.fx_writes.clear();
    }

    fn push_var(&mut self, v: Var) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(v);
        }
    }

    fn pick_ty(&mut self) -> Sc {
        let table: &[Sc] = if self.amp {
            &[
                Sc::Int,
                Sc::Int,
                Sc::Int,
                Sc::UInt,
                Sc::Long,
                Sc::ULong,
                Sc::Float,
                Sc::Float,
                Sc::Double,
                Sc::Bool,
            ]
        } else {
            &[
                Sc::Int,
                Sc::Int,
                Sc::Int,
                Sc::UInt,
                Sc::Long,
                Sc::ULong,
                Sc::Float,
                Sc::Float,
                Sc::Double,
                Sc::Bool,
                Sc::Char,
            ]
        };
        *self.rng.pick(table)
    }

    /// `e`'s text, parenthesised when its operator binds more loosely than
    /// `max` allows (and now and then when it does not).
    fn wrap(&mut self, e: &Ex, max: u8) -> String {
        if e.prec > max || (e.prec > P_PRIMARY && self.chance(8)) {
            format!("({})", e.t)
        } else {
            e.t.clone()
        }
    }

    /// The operand of a prefix operator.
    fn wrap_unary(&mut self, e: &Ex) -> String {
        if e.t.starts_with('-') || e.t.starts_with('+') {
            format!("({})", e.t)
        } else {
            self.wrap(e, P_UNARY)
        }
    }

    fn bin(&mut self, op: &str, prec: u8, a: &Ex, b: &Ex, ty: Sc, rg: Rg) -> Ex {
        let l = self.wrap(a, prec);
        let r = self.wrap(b, prec - 1);
        Ex {
            t: format!("{l} {op} {r}"),
            ty,
            rg,
            prec,
            pure: a.pure && b.pure,
        }
    }

    // ---------------------------------------------------------------
    // Literals.

    fn literal(&mut self, t: Sc) -> Ex {
        if self.amp && matches!(t, Sc::Long | Sc::ULong) && !self.options.known_gaps {
            // Amp code takes no 64-bit literal: convert a 32-bit one.
            let small = if t == Sc::Long && self.chance(2) {
                Sc::Int
            } else {
                Sc::UInt
            };
            let e = self.literal(small);
            return self.cast_ex(e, t);
        }
        let lit = |t: String, ty: Sc, v: i128| Ex::atom(t, ty, Rg::I(v, v));
        match t {
            Sc::Bool => {
                if self.chance(2) {
                    lit("true".into(), t, 1)
                } else {
                    lit("false".into(), t, 0)
                }
            }
            Sc::Char => {
                let (text, v) = *self.rng.pick(CHAR_LITERALS);
                lit(text.into(), t, v)
            }
            Sc::Int => match self.rng.below(7) {
                0..=2 => {
                    let v = self.rng.below(21) as i128;
                    lit(v.to_string(), t, v)
                }
                3 => {
                    let v = 100 + self.rng.below(40_000) as i128;
                    lit(v.to_string(), t, v)
                }
                4 => {
                    let v = self.rng.below(0x1_0000) as i128;
                    lit(format!("0x{v:X}"), t, v)
                }
                5 => {
                    let v = (1 + self.rng.below(50)) as i128;
                    Ex {
                        t: format!("-{v}"),
                        ty: t,
                        rg: Rg::I(-v, -v),
                        prec: P_UNARY,
                        pure: true,
                    }
                }
                _ => {
                    let v = 0x7000_0000 + self.rng.below(0x0FFF_FFFF) as i128;
                    lit(v.to_string(), t, v)
                }
            },
            Sc::UInt => match self.rng.below(4) {
                0 | 1 => {
                    let v = self.rng.below(41) as i128;
                    lit(format!("{v}u"), t, v)
                }
                2 => {
                    let v = 2_000_000_000 + (self.rng.next_u64() % 2_294_967_296) as i128;
                    lit(format!("{v}u"), t, v)
                }
                _ => {
                    // A hexadecimal literal above INT_MAX is unsigned int.
                    let v = 0x8000_0000 + (self.rng.next_u64() % 0x8000_0000) as i128;
                    lit(format!("0x{v:X}"), t, v)
                }
            },
            Sc::Long => match self.rng.below(4) {
                0 | 1 => {
                    let v = self.rng.below(101) as i128;
                    lit(format!("{v}L"), t, v)
                }
                2 => {
                    // A decimal literal above INT_MAX is long.
                    let v = 2_147_483_648 + (self.rng.next_u64() % 3_000_000_000) as i128;
                    lit(v.to_string(), t, v)
                }
                _ => {
                    let v = (1 + self.rng.below(1000)) as i128;
                    Ex {
                        t: format!("-{v}L"),
                        ty: t,
                        rg: Rg::I(-v, -v),
                        prec: P_UNARY,
                        pure: true,
                    }
                }
            },
            Sc::ULong => match self.rng.below(3) {
                0 => {
                    let v = self.rng.below(101) as i128;
                    lit(format!("{v}UL"), t, v)
                }
                1 => {
                    let v = i128::from(self.rng.next_u64());
                    lit(format!("{v}UL"), t, v)
                }
                _ => {
                    // A hexadecimal literal above LONG_MAX is unsigned long.
                    let v = i128::from(self.rng.next_u64() | (1 << 63));
                    lit(format!("0x{v:X}"), t, v)
                }
            },
            Sc::Float | Sc::Double => {
                let text = if t == Sc::Float {
                    *self.rng.pick(FLOAT_LITERALS)
                } else {
                    *self.rng.pick(DOUBLE_LITERALS)
                };
                let digits = text.trim_end_matches(['f', 'F']);
                let v = if t == Sc::Float {
                    f64::from(digits.parse::<f32>().unwrap_or(0.0))
                } else {
                    digits.parse::<f64>().unwrap_or(0.0)
                };
                Ex::atom(text.into(), t, Rg::F(v, v))
            }
        }
    }

    // ---------------------------------------------------------------
    // Reading variables.

    /// Every path from a variable of kind `kind` to a scalar, with its type.
    fn paths(&self, kind: &Kind) -> Vec<(Vec<Step>, Sc)> {
        match kind {
            Kind::Sc(t) => vec![(Vec::new(), *t)],
            Kind::Arr(t, dims) => vec![(dims.iter().map(|&n| Step::Index(n)).collect(), *t)],
            Kind::Vector(t, n) => vec![(vec![Step::Index(*n)], *t)],
            Kind::StVector(id, n) => self
                .struct_paths(*id)
                .into_iter()
                .map(|(mut steps, t)| {
                    steps.insert(0, Step::Index(*n));
                    (steps, t)
                })
                .collect(),
            Kind::View(..) => Vec::new(),
            Kind::St(id) => self.struct_paths(*id),
        }
    }

    fn struct_paths(&self, id: usize) -> Vec<(Vec<Step>, Sc)> {
        let mut all = Vec::new();
        for (name, f) in &self.structs[id].fields {
            let field = Step::Field(name.clone());
            match f {
                FKind::Sc(t) => all.push((vec![field], *t)),
                FKind::Arr(t, n) => all.push((vec![field, Step::Index(*n)], *t)),
                FKind::St(j) => {
                    for (mut rest, t) in self.struct_paths(*j) {
                        rest.insert(0, field.clone());
                        all.push((rest, t));
                    }
                }
            }
        }
        all
    }

    fn render(&mut self, base: &str, steps: &[Step]) -> String {
        let mut s = base.to_string();
        for step in steps {
            match step {
                Step::Field(f) => {
                    s.push('.');
                    s.push_str(f);
                }
                Step::Index(n) => {
                    let effect = if self.place_effect && self.effects {
                        self.effect()
                    } else {
                        None
                    };
                    let i = match effect {
                        Some(e) => {
                            self.place_effect = false;
                            self.index_of(e, *n)
                        }
                        None => self.index(*n),
                    };
                    let _ = write!(s, "[{i}]");
                }
            }
        }
        s
    }

    /// A side-effect-free index in `0..n`.
    fn index(&mut self, n: usize) -> String {
        let saved = self.effects;
        self.effects = false;
        let text = if self.nest >= 2 || self.chance(3) {
            self.rng.below(n).to_string()
        } else {
            self.nest += 1;
            let depth = 1 + self.rng.below(2) as u32;
            let e = self.ex(depth);
            self.nest -= 1;
            self.index_of(e, n)
        };
        self.effects = saved;
        text
    }

    fn index_of(&mut self, e: Ex, n: usize) -> String {
        let e = if e.ty.float() {
            self.fit(e, Sc::Int)
        } else {
            e
        };
        let (lo, hi) = e.rg.i();
        if lo >= 0 && hi < n as i128 {
            return e.t;
        }
        if n.is_power_of_two() && self.chance(2) {
            let l = self.wrap(&e, P_BAND);
            format!("{l} & {}", n - 1)
        } else {
            format!("(unsigned int)({}) % {}u", e.t, n)
        }
    }

    /// The variables that names resolve to here: the innermost declaration
    /// of each name, innermost first.
    fn visible(&self) -> Vec<Var> {
        self.visible_from(0)
    }

    /// Like [`Gen::visible`], for the scopes from `start` on.
    fn visible_from(&self, start: usize) -> Vec<Var> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for scope in self.scopes.iter().skip(start).rev() {
            for v in scope.iter().rev() {
                if !seen.contains(&v.name.as_str()) {
                    seen.push(&v.name);
                    out.push(v.clone());
                }
            }
        }
        out
    }

    /// Variables readable here, counters written in the current full
    /// expression left out.
    fn readable(&self) -> Vec<Var> {
        self.visible()
            .into_iter()
            .filter(|v| !(v.counter && self.fx_writes.contains(&v.name)))
            .collect()
    }

    fn read(&mut self, v: &Var) -> Ex {
        if let Kind::View(t, dims) = &v.kind {
            return self.read_view(&v.name, *t, &dims.clone());
        }
        if v.counter {
            self.fx_reads.push(v.name.clone());
        }
        let paths = self.paths(&v.kind);
        let (steps, t) = self.rng.pick(&paths).clone();
        let text = self.render(&v.name, &steps);
        let rg = match (&v.kind, v.rg) {
            (Kind::Sc(_) | Kind::Arr(..), Some(rg)) => rg,
            _ => inv(t),
        };
        Ex::atom(text, t, rg)
    }

    fn read_view(&mut self, name: &str, t: Sc, dims: &[usize]) -> Ex {
        let same = dims == self.kdims.as_slice() && !self.kidx.is_empty();
        let text = if same && self.chance(3) {
            let k = self.rng.pick(&self.kidx).clone();
            format!("{name}[{k}]")
        } else if dims.len() == 1 {
            let i = self.index(dims[0]);
            if self.chance(4) {
                format!("{name}({i})")
            } else {
                format!("{name}[{i}]")
            }
        } else if dims.len() == 2 {
            let i = self.index(dims[0]);
            let j = self.index(dims[1]);
            match self.rng.below(3) {
                0 => format!("{name}({i}, {j})"),
                1 => format!("{name}[{i}][{j}]"),
                _ => format!("{name}[index<2>({i}, {j})]"),
            }
        } else {
            let is: Vec<String> = dims.iter().map(|&n| self.index(n)).collect();
            match self.rng.below(3) {
                0 => format!("{name}({})", is.join(", ")),
                1 => format!("{name}[{}]", is.join("][")),
                _ => format!("{name}[index<3>({})]", is.join(", ")),
            }
        };
        Ex::atom(text, t, inv(t))
    }

    /// An assignable location, of type `want` when given.
    fn place(&mut self, want: Option<Sc>) -> Option<Place> {
        let mut cands = Vec::new();
        for v in self.visible() {
            if v.ro || v.counter {
                continue;
            }
            for (steps, t) in self.paths(&v.kind) {
                if want.is_none_or(|w| w == t) {
                    cands.push((v.name.clone(), steps, t));
                }
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (root, steps, ty) = self.rng.pick(&cands).clone();
        let t = self.render(&root, &steps);
        if self.nest == 0 && self.chance(8) {
            // One of two places: `(c ? p : q)` or a selector returning a
            // reference.
            let others: Vec<(String, Vec<Step>, Sc)> = cands
                .iter()
                .filter(|c| c.2 == ty && c.0 != root)
                .cloned()
                .collect();
            if !others.is_empty() {
                let (root2, steps2, _) = self.rng.pick(&others).clone();
                let t2 = self.render(&root2, &steps2);
                let saved = self.effects;
                self.effects = false;
                self.nest += 1;
                let c = self.ex(1);
                self.nest -= 1;
                self.effects = saved;
                let text = if self.selectors.contains(&ty) && self.chance(2) {
                    let c = self.fit(c, Sc::Bool);
                    format!("{}({t}, {t2}, {})", selector_name(ty), c.t)
                } else {
                    let ct = self.wrap(&c, P_LOR);
                    format!("({ct} ? {t} : {t2})")
                };
                return Some(Place { t: text, ty, root });
            }
        }
        Some(Place { t, ty, root })
    }

    fn struct_vars(&self, id: usize, writable: bool) -> Vec<String> {
        self.visible()
            .into_iter()
            .filter(|v| matches!(v.kind, Kind::St(i) if i == id) && (!writable || !v.ro))
            .map(|v| v.name.clone())
            .collect()
    }

    // ---------------------------------------------------------------
    // Expressions.

    fn ex(&mut self, depth: u32) -> Ex {
        if depth == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(27) {
            0..=2 => self.leaf(),
            3..=8 => {
                let op = *self.rng.pick(&["+", "-", "*"]);
                let a = self.ex(d);
                let b = self.ex(d);
                self.arith(op, a, b)
            }
            9..=10 => {
                let op = if self.chance(3) { "%" } else { "/" };
                let a = self.ex(d);
                let b = self.ex(d);
                self.divide(op, a, b)
            }
            11..=12 => {
                let op = *self.rng.pick(&["&", "|", "^"]);
                let a = self.ex(d);
                let b = self.ex(d);
                self.bitwise(op, a, b)
            }
            13 => {
                let op = if self.chance(2) { "<<" } else { ">>" };
                let a = self.ex(d);
                self.shift(op, a)
            }
            14..=15 => {
                let (op, prec) = *self.rng.pick(&[
                    ("<", P_REL),
                    ("<=", P_REL),
                    (">", P_REL),
                    (">=", P_REL),
                    ("==", P_EQ),
                    ("!=", P_EQ),
                ]);
                let a = self.ex(d);
                let b = self.ex(d);
                self.bin(op, prec, &a, &b, Sc::Bool, Rg::I(0, 1))
            }
            16 if self.chance(2) => {
                let (op, prec) = if self.chance(2) {
                    ("&&", P_LAND)
                } else {
                    ("||", P_LOR)
                };
                let a = self.ex(d);
                let b = self.ex(d);
                self.bin(op, prec, &a, &b, Sc::Bool, Rg::I(0, 1))
            }
            17..=19 => {
                let a = self.ex(d);
                self.unary(a)
            }
            20 => {
                let c = self.ex(d);
                let a = self.ex(d);
                let b = self.ex(d);
                self.ternary(&c, a, b)
            }
            21 => {
                let a = self.ex(d);
                let to = self.pick_ty();
                self.cast_any(a, to)
            }
            22..=23 => self.call(d).unwrap_or_else(|| self.leaf()),
            24 => self.effect().unwrap_or_else(|| self.leaf()),
            25 if !self.fmacros.is_empty() && self.chance(3) => {
                let a = self.ex(d);
                let b = self.ex(d);
                self.macro_call(a, b)
            }
            25 if self.chance(3) => {
                // The comma operator: the left operand for its side effect.
                let a = self.effect().unwrap_or_else(|| self.leaf());
                let b = self.ex(d);
                Ex {
                    t: format!("({}, {})", a.t, b.t),
                    ty: b.ty,
                    rg: b.rg,
                    prec: P_PRIMARY,
                    pure: a.pure && b.pure,
                }
            }
            25 => self.math(d).unwrap_or_else(|| self.leaf()),
            _ => self.section_read().unwrap_or_else(|| self.leaf()),
        }
    }

    /// A floating-point operand of type `t` for a math function.
    fn float_arg(&mut self, depth: u32, t: Sc) -> Ex {
        let e = self.ex(depth);
        if e.ty == t && e.rg.abs_max() <= 1e15 {
            return e;
        }
        let e = self.fit(e, t);
        self.cast_if(e, t)
    }

    /// A call of an exactly rounded math function: `<cmath>` on the host,
    /// `fast_math`, `precise_math` and `direct3d` in amp code.
    fn math(&mut self, depth: u32) -> Option<Ex> {
        let depth = depth.min(2);
        if self.both {
            return None;
        }
        if self.amp && self.chance(3) {
            return Some(self.direct3d(depth));
        }
        if !self.amp && self.chance(4) {
            // std::min / std::max: both arguments of one type.
            let t = self.pick_ty();
            let a = self.ex(depth);
            let a = self.fit(a, t);
            let b = self.ex(depth);
            let b = self.fit(b, t);
            let rg = match (a.rg, b.rg) {
                (Rg::I(a1, a2), Rg::I(b1, b2)) => Rg::I(a1.min(b1), a2.max(b2)),
                (ar, br) => {
                    let ((a1, a2), (b1, b2)) = (ar.f(), br.f());
                    Rg::F(a1.min(b1), a2.max(b2))
                }
            };
            let f = if self.chance(2) { "min" } else { "max" };
            return Some(Ex {
                t: format!("std::{f}({}, {})", a.t, b.t),
                ty: t,
                rg,
                prec: P_PRIMARY,
                pure: a.pure && b.pure,
            });
        }
        let (prefix, t) = if self.amp {
            match self.rng.below(4) {
                0 => ("concurrency::fast_math::", Sc::Float),
                1 => ("fast_math::", Sc::Float),
                2 => ("precise_math::", Sc::Double),
                _ => ("concurrency::precise_math::", Sc::Float),
            }
        } else if self.chance(2) {
            ("std::", Sc::Double)
        } else {
            ("std::", Sc::Float)
        };
        let a = self.float_arg(depth, t);
        let (lo, hi) = a.rg.f();
        let m = a.rg.abs_max();
        let host = !self.amp;
        let (text, rg) = match self.rng.below(if host { 12 } else { 10 }) {
            0 => (format!("{prefix}fabs({})", a.t), (0.0, m)),
            1 => (format!("{prefix}floor({})", a.t), (lo - 1.0, hi + 1.0)),
            2 => (format!("{prefix}ceil({})", a.t), (lo - 1.0, hi + 1.0)),
            3 => (format!("{prefix}round({})", a.t), (lo - 1.0, hi + 1.0)),
            4 => (format!("{prefix}trunc({})", a.t), (lo - 1.0, hi + 1.0)),
            5 => (
                format!("{prefix}sqrt({prefix}fabs({}))", a.t),
                (0.0, m.sqrt() + 1.0),
            ),
            6 | 7 => {
                let b = self.float_arg(depth, t);
                let (bl, bh) = b.rg.f();
                let f = if self.chance(2) { "fmin" } else { "fmax" };
                (
                    format!("{prefix}{f}({}, {})", a.t, b.t),
                    (lo.min(bl), hi.max(bh)),
                )
            }
            8 | 9 => {
                let b = self.ex(depth);
                let b = self.float_divisor(b, t);
                let b = self.cast_if(b, t);
                (format!("{prefix}fmod({}, {})", a.t, b.t), (-m, m))
            }
            10 => {
                let b = self.float_arg(depth, t);
                (format!("{prefix}copysign({}, {})", a.t, b.t), (-m, m))
            }
            _ => {
                let b = self.float_arg(depth, t);
                let (bl, bh) = b.rg.f();
                let c = self.float_arg(depth, t);
                let (cl, ch) = c.rg.f();
                let (pl, ph) = minmax(&[lo * bl, lo * bh, hi * bl, hi * bh]);
                if ph + ch > FLOAT_LIMIT || pl + cl < -FLOAT_LIMIT {
                    return None;
                }
                (
                    format!("{prefix}fma({}, {}, {})", a.t, b.t, c.t),
                    (pl + cl, ph + ch),
                )
            }
        };
        Some(
            Ex {
                t: text,
                ty: t,
                rg: widen(rg.0, rg.1, t),
                prec: P_PRIMARY,
                pure: true,
            }
            .with_purity(self.fx_writes.is_empty()),
        )
    }

    /// A `concurrency::direct3d` intrinsic (amp code).
    fn direct3d(&mut self, depth: u32) -> Ex {
        let ns = if self.chance(2) {
            "direct3d::"
        } else {
            "concurrency::direct3d::"
        };
        let int_arg = |g: &mut Self| {
            let e = g.ex(depth);
            g.fit(e, Sc::Int)
        };
        let (text, ty, rg) = match self.rng.below(7) {
            0 | 1 => {
                let (a, b) = (int_arg(self), int_arg(self));
                let f = if self.chance(2) { "imax" } else { "imin" };
                (format!("{ns}{f}({}, {})", a.t, b.t), Sc::Int, inv(Sc::Int))
            }
            2 => {
                let a = self.ex(depth);
                let a = self.fit(a, Sc::UInt);
                let b = self.ex(depth);
                let b = self.fit(b, Sc::UInt);
                let f = if self.chance(2) { "umax" } else { "umin" };
                (
                    format!("{ns}{f}({}, {})", a.t, b.t),
                    Sc::UInt,
                    inv(Sc::UInt),
                )
            }
            3 => {
                let a = int_arg(self);
                (format!("{ns}abs({})", a.t), Sc::Int, Rg::I(0, INT_INV))
            }
            4 => {
                let lo = self.rng.below(200) as i128 - 100;
                let hi = lo + self.rng.below(300) as i128;
                if self.chance(2) {
                    let a = int_arg(self);
                    (
                        format!("{ns}clamp({}, {lo}, {hi})", a.t),
                        Sc::Int,
                        Rg::I(lo, hi),
                    )
                } else {
                    let a = self.float_arg(depth, Sc::Float);
                    (
                        format!("{ns}clamp({}, {lo}.5f, {hi}.5f)", a.t),
                        Sc::Float,
                        widen(lo as f64 - 0.5, hi as f64 + 0.5, Sc::Float),
                    )
                }
            }
            5 => {
                let t = if self.chance(2) { Sc::Float } else { Sc::Int };
                let a = self.ex(depth);
                let a = self.fit(a, t);
                let b = self.ex(depth);
                let b = self.fit(b, t);
                let c = self.ex(depth);
                let c = self.fit(c, t);
                let (al, ah) = a.rg.f();
                let (bl, bh) = b.rg.f();
                let (cl, ch) = c.rg.f();
                let (pl, ph) = minmax(&[al * bl, al * bh, ah * bl, ah * bh]);
                let rg = if t == Sc::Int {
                    Rg::I(pl as i128 + cl as i128, ph as i128 + ch as i128)
                } else {
                    widen(pl + cl, ph + ch, t)
                };
                (format!("{ns}mad({}, {}, {})", a.t, b.t, c.t), t, rg)
            }
            _ => {
                let a = self.float_arg(depth, Sc::Float);
                if self.chance(2) {
                    (format!("{ns}saturate({})", a.t), Sc::Float, Rg::F(0.0, 1.0))
                } else {
                    let d = self.float_divisor(a, Sc::Float);
                    let d = self.cast_if(d, Sc::Float);
                    (format!("{ns}rcp({})", d.t), Sc::Float, Rg::F(-1.0, 1.0))
                }
            }
        };
        Ex {
            t: text,
            ty,
            rg,
            prec: P_PRIMARY,
            pure: true,
        }
        .with_purity(self.fx_writes.is_empty())
    }

    /// A read through a section or a projection of a view of the kernel,
    /// or an index or extent computed with the library's arithmetic.
    fn section_read(&mut self) -> Option<Ex> {
        if self.kviews.is_empty() {
            return None;
        }
        let (name, t, dims) = self.rng.pick(&self.kviews).clone();
        if self.chance(3) || dims.len() > 2 {
            return Some(self.extent_expr(&name, &dims));
        }
        let text = if dims.len() == 1 {
            let n = dims[0];
            let at = self.rng.below(n);
            let len = 1 + self.rng.below(n - at);
            let i = self.index(len);
            match self.rng.below(4) {
                0 => format!("{name}.section({at}, {len})[{i}]"),
                1 => format!("{name}.section(index<1>({at}))[{i}]"),
                2 => format!("{name}.section(extent<1>({len}))({i})"),
                _ => format!("{name}.section(index<1>({at}), extent<1>({len}))[{i}]"),
            }
        } else {
            let (r, c) = (dims[0], dims[1]);
            let (ar, ac) = (self.rng.below(r), self.rng.below(c));
            let (lr, lc) = (1 + self.rng.below(r - ar), 1 + self.rng.below(c - ac));
            let i = self.index(lr);
            let j = self.index(lc);
            match self.rng.below(4) {
                0 => format!("{name}.section({ar}, {ac}, {lr}, {lc})({i}, {j})"),
                1 => format!("{name}.section(index<2>({ar}, {ac}))[{i}][{j}]"),
                2 => {
                    let row = self.index(r);
                    format!("{name}[{row}].section({ac}, {lc})[{j}]")
                }
                _ => format!(
                    "{name}.section(index<2>({ar}, {ac}), extent<2>({lr}, {lc}))[index<2>({i}, {j})]"
                ),
            }
        };
        Some(Ex::atom(text, t, inv(t)))
    }

    /// An `int` computed from the extent of view `name` or from the kernel's
    /// index with the arithmetic of `index` and `extent`.
    fn extent_expr(&mut self, name: &str, dims: &[usize]) -> Ex {
        let d = self.rng.below(dims.len());
        let n = dims[d] as i128;
        let rank = dims.len();
        let ext = if self.chance(2) {
            format!("{name}.extent")
        } else {
            format!("{name}.get_extent()")
        };
        let k = self.range(1, 3) as i128;
        let ones: Vec<String> = (0..rank).map(|_| k.to_string()).collect();
        let ones = ones.join(", ");
        let same = dims == self.kdims.as_slice();
        let idx = self.kidx.first().cloned();
        match (self.rng.below(7), idx) {
            (0, _) => Ex::atom(format!("{ext}[{d}]"), Sc::Int, Rg::I(n, n)),
            (1, _) => {
                let size: i128 = dims.iter().map(|&x| x as i128).product();
                Ex::atom(format!("{ext}.size()"), Sc::UInt, Rg::I(size, size))
            }
            (2, _) => Ex::atom(
                format!("({ext} + extent<{rank}>({ones}))[{d}]"),
                Sc::Int,
                Rg::I(n + k, n + k),
            ),
            (3, _) => Ex::atom(format!("({ext} * {k})[{d}]"), Sc::Int, Rg::I(n * k, n * k)),
            (4, Some(i)) if same => {
                let ix = if i == "t" { "t.global".to_string() } else { i };
                Ex {
                    t: format!("{ext}.contains({ix} + index<{rank}>({ones}))"),
                    ty: Sc::Bool,
                    rg: Rg::I(0, 1),
                    prec: P_PRIMARY,
                    pure: true,
                }
            }
            (5, Some(i)) if same => {
                let ix = if i == "t" { "t.global".to_string() } else { i };
                Ex::atom(
                    format!("({ix} + index<{rank}>({ones}))[{d}]"),
                    Sc::Int,
                    Rg::I(k, n - 1 + k),
                )
            }
            (6, Some(i)) if same => {
                let ix = if i == "t" { "t.global".to_string() } else { i };
                match self.rng.below(3) {
                    0 => Ex::atom(format!("({ix} * {k})[{d}]"), Sc::Int, Rg::I(0, (n - 1) * k)),
                    1 => Ex::atom(format!("({ix} - {k})[{d}]"), Sc::Int, Rg::I(-k, n - 1 - k)),
                    _ => Ex::atom(format!("({ix} % {})[{d}]", k + 1), Sc::Int, Rg::I(0, k)),
                }
            }
            _ => Ex::atom(format!("{ext}[{d}]"), Sc::Int, Rg::I(n, n)),
        }
    }

    /// `MAC(a, b)`, a function-like macro that expands to `((a) OP (b))`.
    fn macro_call(&mut self, a: Ex, b: Ex) -> Ex {
        let (name, op) = self.rng.pick(&self.fmacros).clone();
        let bitwise = matches!(op, "^" | "&" | "|");
        let (mut a, mut b) = if bitwise {
            let a = if a.ty.float() {
                self.fit(a, Sc::Int)
            } else {
                a
            };
            let b = if b.ty.float() {
                self.fit(b, Sc::Int)
            } else {
                b
            };
            (a, b)
        } else {
            (a, b)
        };
        let mut c = common(a.ty, b.ty);
        if c.float() && (exactly_zero(a.rg) || exactly_zero(b.rg)) {
            return a;
        }
        let mut rg = op_range(op, conv_rg(a.rg, a.ty, c), conv_rg(b.rg, b.ty, c), c);
        if rg.is_none() && !c.float() {
            a = self.reduce(a, 1000);
            b = self.reduce(b, 1000);
            c = common(a.ty, b.ty);
            rg = op_range(op, conv_rg(a.rg, a.ty, c), conv_rg(b.rg, b.ty, c), c);
        }
        let Some(rg) = rg else {
            return a;
        };
        Ex {
            t: format!("{name}({}, {})", a.t, b.t),
            ty: c,
            rg,
            prec: P_PRIMARY,
            pure: a.pure && b.pure,
        }
    }

    fn leaf(&mut self) -> Ex {
        let vars = self.readable();
        if vars.is_empty() || self.chance(3) {
            let t = self.pick_ty();
            return self.literal(t);
        }
        let v = self.rng.pick(&vars).clone();
        self.read(&v)
    }

    fn arith(&mut self, op: &'static str, a: Ex, b: Ex) -> Ex {
        let c = common(a.ty, b.ty);
        let prec = if op == "*" { P_MUL } else { P_ADD };
        let ar = conv_rg(a.rg, a.ty, c);
        let br = conv_rg(b.rg, b.ty, c);
        if c.float() && op != "*" && (exactly_zero(a.rg) || exactly_zero(b.rg)) {
            // g++ folds `0 - (float)i` to `-(float)i` (and `0 + -(float)i`
            // to `-(float)i`), which gives -0.0 where IEEE arithmetic gives
            // +0.0; stay clear of it.
            return if exactly_zero(a.rg) { b } else { a };
        }
        if let Some(rg) = op_range(op, ar, br, c) {
            return self.bin(op, prec, &a, &b, c, rg);
        }
        if c.float() {
            return a;
        }
        if self.chance(2) {
            // Compute in the unsigned type, convert back.
            let u = c.unsigned();
            let a2 = self.cast_ex(a, u);
            let b2 = self.cast_ex(b, u);
            let inner = self.bin(op, prec, &a2, &b2, u, full(u));
            self.cast_ex(inner, c)
        } else {
            let a2 = self.reduce(a, 1000);
            let b2 = self.reduce(b, 1000);
            self.arith(op, a2, b2)
        }
    }

    /// `e % m`, in `e`'s promoted type (integral `e`).
    fn reduce(&mut self, e: Ex, m: i128) -> Ex {
        let p = e.ty.promote();
        let (lo, hi) = conv_rg(e.rg, e.ty, p).i();
        if lo > -m && hi < m {
            return e;
        }
        let l = self.wrap(&e, P_MUL);
        let rg = if !p.signed() || lo >= 0 {
            Rg::I(0, m - 1)
        } else {
            Rg::I(-(m - 1), m - 1)
        };
        Ex {
            t: format!("{l} % {m}"),
            ty: p,
            rg,
            prec: P_MUL,
            pure: e.pure,
        }
    }

    /// A divisor for an integral division whose dividend, converted to the
    /// common type, has range `ar_min`-inclusive when `risk`: never zero,
    /// and never -1 when `risk`.
    fn int_divisor(&mut self, b: Ex, risk: bool) -> Ex {
        let b = if b.ty.float() {
            self.fit(b, Sc::Int)
        } else {
            b
        };
        let pb = b.ty.promote();
        let (bl, bh) = conv_rg(b.rg, b.ty, pb).i();
        match self.rng.below(5) {
            0 => {
                let v = self.range(1, 40) as i128;
                let v = if self.chance(3) { -v - 1 } else { v };
                let t = if self.amp {
                    *self.rng.pick(&[Sc::Int, Sc::Int, Sc::UInt])
                } else {
                    *self.rng.pick(&[Sc::Int, Sc::Int, Sc::UInt, Sc::Long])
                };
                if v < 0 && t == Sc::UInt {
                    return Ex::atom(format!("{}u", -v), t, Rg::I(-v, -v));
                }
                if v < 0 {
                    return Ex {
                        t: format!("-{}{}", -v, t.suffix()),
                        ty: t,
                        rg: Rg::I(v, v),
                        prec: P_UNARY,
                        pure: true,
                    };
                }
                Ex::atom(format!("{v}{}", t.suffix()), t, Rg::I(v, v))
            }
            1 | 2 if b.pure => {
                let w = self.wrap(&b, P_EQ);
                let w2 = self.wrap(&b, P_COND);
                let m1 = (-1i128).max(pb.min());
                let risky = risk && bl <= -1 && bh >= -1 && pb.signed() && m1 == -1;
                let (t, g) = if risky {
                    (format!("{w} != 0 && {w} != -1 ? {w2} : 3"), 3)
                } else {
                    (format!("{w} != 0 ? {w2} : 1"), 1)
                };
                let rg = if bl == 0 && bh == 0 {
                    Rg::I(g, g)
                } else {
                    Rg::I(bl.min(g), bh.max(g))
                };
                Ex {
                    t,
                    ty: pb,
                    rg,
                    prec: P_COND,
                    pure: true,
                }
            }
            _ => {
                let w = self.wrap(&b, P_BAND);
                Ex {
                    t: format!("({w} & 15) + 1"),
                    ty: pb,
                    rg: Rg::I(1, 16),
                    prec: P_ADD,
                    pure: b.pure,
                }
            }
        }
    }

    /// A floating-point divisor at least 1 away from zero.
    fn float_divisor(&mut self, b: Ex, c: Sc) -> Ex {
        if b.pure && self.chance(2) {
            let bb = self.cast_if(b, c);
            let w = self.wrap(&bb, P_REL);
            let w2 = self.wrap(&bb, P_ADD);
            let (lo, hi) = bb.rg.f();
            return Ex {
                t: format!("{w} >= 0 ? {w2} + 1 : {w2} - 1"),
                ty: c,
                rg: widen(lo - 1.0, hi + 1.0, c),
                prec: P_COND,
                pure: true,
            };
        }
        let text = *self.rng.pick(&[
            "2.0f", "4.0", "3.0f", "-8.0", "10.0f", "1.5", "-2.5f", "7.0", "1.0f", "16.0",
        ]);
        let ty = if text.ends_with('f') {
            Sc::Float
        } else {
            Sc::Double
        };
        let v = text.trim_end_matches('f').parse::<f64>().unwrap_or(1.0);
        Ex {
            t: text.to_string(),
            ty,
            rg: Rg::F(v, v),
            prec: if v < 0.0 { P_UNARY } else { P_PRIMARY },
            pure: true,
        }
    }

    fn divide(&mut self, op: &'static str, a: Ex, b: Ex) -> Ex {
        if a.ty.float() || b.ty.float() {
            let c = common(a.ty, b.ty);
            let d = self.float_divisor(b, c);
            let c = common(a.ty, d.ty);
            let m = conv_rg(a.rg, a.ty, c).abs_max();
            let rg = widen(-m, m, c);
            return self.bin("/", P_MUL, &a, &d, c, rg);
        }
        let c0 = common(a.ty, b.ty.promote());
        let (al, _) = conv_rg(a.rg, a.ty, c0).i();
        let risk = c0.signed() && al <= c0.min();
        let d = self.int_divisor(b, risk);
        let c = common(a.ty, d.ty);
        let ar = conv_rg(a.rg, a.ty, c);
        let dr = conv_rg(d.rg, d.ty, c);
        let (al, _) = ar.i();
        let (dl, dh) = dr.i();
        if c.signed() && al <= c.min() && dl <= -1 && dh >= -1 {
            // The literal or guard did not rule out -1 after all.
            let safe = Ex::atom("7".into(), Sc::Int, Rg::I(7, 7));
            let rg = div_range(op, ar, Rg::I(7, 7), c);
            return self.bin(op, P_MUL, &a, &safe, c, rg);
        }
        let rg = div_range(op, ar, dr, c);
        self.bin(op, P_MUL, &a, &d, c, rg)
    }

    fn bitwise(&mut self, op: &'static str, a: Ex, b: Ex) -> Ex {
        let a = if a.ty.float() {
            self.fit(a, Sc::Int)
        } else {
            a
        };
        let b = if b.ty.float() {
            self.fit(b, Sc::UInt)
        } else {
            b
        };
        let c = common(a.ty, b.ty);
        let rg = op_range(op, conv_rg(a.rg, a.ty, c), conv_rg(b.rg, b.ty, c), c).unwrap_or(full(c));
        let prec = match op {
            "&" => P_BAND,
            "^" => P_BXOR,
            _ => P_BOR,
        };
        self.bin(op, prec, &a, &b, c, rg)
    }

    /// A shift count for a left operand of `bits` bits: text, largest value.
    fn shift_count(&mut self, bits: u32) -> Ex {
        let mask = *self.rng.pick(&[1u32, 3, 7, 15, bits - 1]);
        if self.chance(2) {
            let k = self.rng.below(mask as usize + 1) as i128;
            return Ex::atom(k.to_string(), Sc::Int, Rg::I(k, k));
        }
        let e = self.ex(1);
        let e = if e.ty.float() {
            self.fit(e, Sc::Int)
        } else {
            e
        };
        let (lo, hi) = e.rg.i();
        if lo >= 0 && hi <= i128::from(mask) {
            return e;
        }
        let w = self.wrap(&e, P_BAND);
        Ex {
            t: format!("{w} & {mask}"),
            ty: e.ty.promote(),
            rg: Rg::I(0, i128::from(mask)),
            prec: P_BAND,
            pure: e.pure,
        }
    }

    fn shift(&mut self, op: &'static str, a: Ex) -> Ex {
        let a = if a.ty.float() {
            self.fit(a, Sc::Int)
        } else {
            a
        };
        let p = a.ty.promote();
        let count = self.shift_count(p.bits());
        let (_, kmax) = count.rg.i();
        let (al, ah) = conv_rg(a.rg, a.ty, p).i();
        if op == ">>" {
            let rg = if p.signed() {
                Rg::I(al.min(0), ah.max(0))
            } else {
                Rg::I(0, ah)
            };
            return self.bin(op, P_SHIFT, &a, &count, p, rg);
        }
        if p.signed() && al >= 0 && (ah << kmax) <= p.max() {
            return self.bin(op, P_SHIFT, &a, &count, p, Rg::I(al, ah << kmax));
        }
        let (a, p) = if p.signed() {
            let u = p.unsigned();
            (self.cast_ex(a, u), u)
        } else {
            (a, p)
        };
        let (al, ah) = conv_rg(a.rg, a.ty, p).i();
        let rg = if al >= 0 && (ah << kmax) <= p.max() {
            Rg::I(al, ah << kmax)
        } else {
            full(p)
        };
        self.bin(op, P_SHIFT, &a, &count, p, rg)
    }

    fn unary(&mut self, a: Ex) -> Ex {
        let p = a.ty.promote();
        let r = conv_rg(a.rg, a.ty, p);
        let operand = self.wrap_unary(&a);
        let (op, ty, rg) = match self.rng.below(5) {
            0 | 1 => {
                let rg = match r {
                    Rg::F(lo, hi) => Rg::F(-hi, -lo),
                    Rg::I(lo, hi) if p.signed() => {
                        if lo <= p.min() {
                            return a;
                        }
                        Rg::I(-hi, -lo)
                    }
                    Rg::I(0, 0) => Rg::I(0, 0),
                    Rg::I(lo, hi) if lo >= 1 => Rg::I(p.max() + 1 - hi, p.max() + 1 - lo),
                    Rg::I(..) => full(p),
                };
                ("-", p, rg)
            }
            2 if p.integral() => {
                let (lo, hi) = r.i();
                let rg = if p.signed() {
                    Rg::I(-hi - 1, -lo - 1)
                } else {
                    Rg::I(p.max() - hi, p.max() - lo)
                };
                ("~", p, rg)
            }
            3 => ("+", p, r),
            _ => {
                let rg = match conv_rg(a.rg, a.ty, Sc::Bool) {
                    Rg::I(0, 0) => Rg::I(1, 1),
                    Rg::I(1, 1) => Rg::I(0, 0),
                    _ => Rg::I(0, 1),
                };
                ("!", Sc::Bool, rg)
            }
        };
        Ex {
            t: format!("{op}{operand}"),
            ty,
            rg,
            prec: P_UNARY,
            pure: a.pure,
        }
    }

    fn ternary(&mut self, c: &Ex, a: Ex, b: Ex) -> Ex {
        let ty = if a.ty == b.ty {
            a.ty
        } else {
            common(a.ty, b.ty)
        };
        let ar = conv_rg(a.rg, a.ty, ty);
        let br = conv_rg(b.rg, b.ty, ty);
        let rg = match (ar, br) {
            (Rg::I(a1, a2), Rg::I(b1, b2)) => Rg::I(a1.min(b1), a2.max(b2)),
            _ => {
                let ((a1, a2), (b1, b2)) = (ar.f(), br.f());
                Rg::F(a1.min(b1), a2.max(b2))
            }
        };
        let ct = self.wrap(c, P_LOR);
        let at = self.wrap(&a, P_COND);
        let bt = self.wrap(&b, P_LOR);
        Ex {
            t: format!("{ct} ? {at} : {bt}"),
            ty,
            rg,
            prec: P_COND,
            pure: c.pure && a.pure && b.pure,
        }
    }

    /// An explicit conversion of `a` to `to`, in one of the cast syntaxes.
    /// A floating-point `a` must fit `to` ([`float_fits`]).
    fn cast_ex(&mut self, a: Ex, to: Sc) -> Ex {
        let rg = conv_rg(a.rg, a.ty, to);
        let pure = a.pure;
        match self.rng.below(4) {
            0 if to.word().is_some() => Ex {
                t: format!("{}({})", to.word().unwrap_or("int"), a.t),
                ty: to,
                rg,
                prec: P_PRIMARY,
                pure,
            },
            1 => Ex {
                t: format!("static_cast<{}>({})", to.name(), a.t),
                ty: to,
                rg,
                prec: P_PRIMARY,
                pure,
            },
            _ => {
                let operand = self.wrap(&a, P_UNARY);
                Ex {
                    t: format!("({}){operand}", to.name()),
                    ty: to,
                    rg,
                    prec: P_UNARY,
                    pure,
                }
            }
        }
    }

    fn cast_if(&mut self, a: Ex, to: Sc) -> Ex {
        if a.ty == to { a } else { self.cast_ex(a, to) }
    }

    /// A cast to `to`, made valid first when `a` is a floating-point value
    /// that does not fit.
    fn cast_any(&mut self, a: Ex, to: Sc) -> Ex {
        if a.ty.float() && to.integral() && !float_fits(a.rg, to) {
            return self.fit(a, to);
        }
        self.cast_ex(a, to)
    }

    /// `e` divided by a power of ten so that it lies within ±`bound`
    /// (floating-point `e`).
    fn scale(&mut self, e: Ex, bound: f64) -> Ex {
        let m = e.rg.abs_max();
        if m <= bound {
            return e;
        }
        let mut k = 1;
        while m / 10f64.powi(k) > bound * 0.5 {
            k += 1;
        }
        let suffix = if e.ty == Sc::Float { "f" } else { "" };
        let l = self.wrap(&e, P_MUL);
        let (lo, hi) = e.rg.f();
        let d = 10f64.powi(k);
        Ex {
            t: format!("{l} / 1e{k}{suffix}"),
            ty: e.ty,
            rg: widen(lo / d, hi / d, e.ty),
            prec: P_MUL,
            pure: e.pure,
        }
    }

    /// `clamp_T(e)`: one of the clamping helpers every program defines
    /// ([`CLAMPS`]), which returns a value of type `t` in its invariant.
    fn clamp(&mut self, e: Ex, t: Sc) -> Ex {
        let name = match t {
            Sc::Int => "clamp_i",
            Sc::Long => "clamp_l",
            Sc::Float => "clamp_f",
            _ => "clamp_d",
        };
        Ex {
            t: format!("{name}({})", e.t),
            ty: t,
            rg: inv(t),
            prec: P_PRIMARY,
            pure: e.pure,
        }
    }

    /// `e` converted to exactly type `t`, with a value in the invariant of
    /// `t` (reduced, clamped or scaled into it when needed).
    fn fit(&mut self, e: Ex, t: Sc) -> Ex {
        if t == Sc::Bool {
            return self.cast_if(e, t);
        }
        if t.integral() {
            if e.ty.float() {
                return match t {
                    Sc::Int | Sc::Long => {
                        if float_fits(e.rg, t) && within(conv_rg(e.rg, e.ty, t), inv(t)) {
                            return self.cast_ex(e, t);
                        }
                        if !self.chance(4) {
                            return self.clamp(e, t);
                        }
                        let bound = if t == Sc::Int {
                            INT_INV as f64
                        } else {
                            LONG_INV as f64
                        };
                        let e2 = self.scale(e, bound);
                        self.cast_ex(e2, t)
                    }
                    _ => {
                        let via = if t == Sc::ULong { Sc::Long } else { Sc::Int };
                        let mid = self.fit(e, via);
                        self.cast_ex(mid, t)
                    }
                };
            }
            if within(conv_rg(e.rg, e.ty, t), inv(t)) {
                return self.cast_if(e, t);
            }
            let (_, m) = inv(t).i();
            let reduced = self.reduce(e, m + 1);
            return self.cast_if(reduced, t);
        }
        if within(conv_rg(e.rg, e.ty, t), inv(t)) {
            return self.cast_if(e, t);
        }
        if !self.chance(4) {
            return self.clamp(e, t);
        }
        let as_t = self.cast_if(e, t);
        let bound = inv(t).abs_max();
        self.scale(as_t, bound)
    }

    /// Like [`Gen::fit`], but leaves the conversion implicit (for an
    /// initialiser, an assignment, an argument or a return) when no
    /// reduction is needed.
    fn fit_loose(&mut self, e: Ex, t: Sc) -> Ex {
        if e.ty != t && self.chance(2) {
            let ok = !(e.ty.float() && t.integral() && t != Sc::Bool) || float_fits(e.rg, t);
            if ok && within(conv_rg(e.rg, e.ty, t), inv(t)) {
                return e;
            }
        }
        self.fit(e, t)
    }

    /// A side effect on a counter, if one is free.
    fn effect(&mut self) -> Option<Ex> {
        if !self.effects {
            return None;
        }
        let free: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|v| {
                v.counter && !self.fx_reads.contains(&v.name) && !self.fx_writes.contains(&v.name)
            })
            .map(|v| v.name.clone())
            .collect();
        if free.is_empty() {
            return None;
        }
        let h = self.rng.pick(&free).clone();
        self.fx_writes.push(h.clone());
        let k = self.range(1, 3);
        let (t, prec) = match self.rng.below(6) {
            0 => (format!("++{h}"), P_UNARY),
            1 => (format!("--{h}"), P_UNARY),
            2 => (format!("{h}++"), P_PRIMARY),
            3 => (format!("{h}--"), P_PRIMARY),
            4 => (format!("{h} += {k}"), P_COND),
            _ => (format!("{h} -= {k}"), P_COND),
        };
        Some(Ex {
            t,
            ty: Sc::Int,
            rg: Rg::I(-COUNTER_INV, COUNTER_INV),
            prec,
            pure: false,
        })
    }

    /// Arguments for `f` (the struct arguments from variables in scope);
    /// `None` when a struct or a reference argument is missing.
    fn args(&mut self, f: &Func, depth: u32) -> Option<(String, bool, Vec<String>)> {
        let mut texts = Vec::new();
        let mut pure = true;
        let mut roots = Vec::new();
        for (_, ty, mode) in &f.params {
            match (ty, mode) {
                (PTy::Sc(t), Mode::Ref) => {
                    let p = self.place(Some(*t))?;
                    roots.push(p.root);
                    texts.push(p.t);
                }
                (PTy::Sc(t), mode) => {
                    let e = self.ex(depth);
                    let e = if f.overloaded || (*mode == Mode::CRef && !self.options.known_gaps) {
                        self.fit(e, *t)
                    } else {
                        self.fit_loose(e, *t)
                    };
                    pure &= e.pure;
                    texts.push(e.t);
                }
                (PTy::St(id), mode) => {
                    let vars = self.struct_vars(*id, *mode == Mode::Ref);
                    if vars.is_empty() {
                        return None;
                    }
                    let v = self.rng.pick(&vars).clone();
                    roots.push(v.clone());
                    texts.push(v);
                }
            }
        }
        Some((texts.join(", "), pure, roots))
    }

    /// A call of a value-returning function without reference parameters.
    fn call(&mut self, depth: u32) -> Option<Ex> {
        let cands: Vec<usize> = self
            .callable
            .clone()
            .into_iter()
            .filter(|&i| {
                self.funcs[i].ret.is_some() && self.funcs[i].params.iter().all(|p| p.2 != Mode::Ref)
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let f = self.funcs[*self.rng.pick(&cands)].clone();
        let (args, pure, _) = self.args(&f, depth)?;
        let ret = f.ret?;
        Some(Ex {
            t: format!("{}({args})", f.name),
            ty: ret,
            rg: inv(ret),
            prec: P_PRIMARY,
            pure,
        })
    }

    /// A combination of a few variables in scope (the innermost first),
    /// converted to `t`: what a function returns or a kernel writes.
    fn digest(&mut self, t: Sc) -> Ex {
        let mut vars: Vec<Var> = Vec::new();
        let mut kernel_inputs: Vec<Var> = Vec::new();
        {
            for v in self.visible() {
                if matches!(v.kind, Kind::View(..))
                    || v.name.starts_with("idx[")
                    || v.name.starts_with("t.")
                {
                    kernel_inputs.push(v.clone());
                } else if !(v.counter && self.fx_writes.contains(&v.name)) {
                    vars.push(v.clone());
                }
            }
        }
        vars.truncate(12);
        let mut acc = if !kernel_inputs.is_empty() && !self.chance(5) {
            // A kernel writes something that depends on its index.
            let v = self.rng.pick(&kernel_inputs).clone();
            self.read(&v)
        } else if vars.is_empty() {
            self.ex(2)
        } else {
            let v = self.rng.pick(&vars).clone();
            self.read(&v)
        };
        let extra = self.range(1, 4);
        for _ in 0..extra {
            let b = if vars.is_empty() || self.chance(4) {
                self.ex(1)
            } else {
                let v = self.rng.pick(&vars).clone();
                self.read(&v)
            };
            let b = if b.ty.float() && acc.ty.integral() && self.chance(2) {
                self.fit(b, Sc::Int)
            } else {
                b
            };
            acc = match self.rng.below(5) {
                0 => self.bitwise("^", acc, b),
                1 => self.arith("-", acc, b),
                2 => self.arith("*", acc, b),
                _ => self.arith("+", acc, b),
            };
        }
        self.fit_loose(acc, t)
    }

    // ---------------------------------------------------------------
    // Statements.

    fn stmts(&mut self, n: usize, depth: u32) {
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            self.stmt(depth);
        }
    }

    fn stmt(&mut self, depth: u32) {
        for _ in 0..50 {
            let host = !self.amp;
            let done = match self.rng.below(100) {
                0..=15 => self.s_decl(),
                16..=19 => self.s_decl_array(),
                20..=22 => self.s_decl_struct(),
                23..=25 => self.s_decl_ref(),
                26..=37 => self.s_assign(),
                38..=45 => self.s_compound(),
                46..=49 => self.s_incdec(),
                50..=56 if depth > 0 => self.s_if(depth),
                57..=62 if depth > 0 => self.s_for(depth),
                63..=65 if depth > 0 => self.s_while(depth),
                66..=68 if depth > 0 => self.s_switch(depth),
                69..=73 => self.s_call(),
                74..=81 if host && (self.in_main || self.may_print) => self.s_print(),
                82..=84 if !self.breakable.is_empty() => self.s_jump(),
                85..=86 if self.ret.is_some() => self.s_return(),
                87..=88 if depth > 0 => self.s_block(depth),
                89..=95 if self.acc.is_some() => self.s_atomic(),
                96 if !self.kidx.is_empty() && self.chance(2) => self.s_index_local(),
                96 if self.kernel_return => {
                    self.begin();
                    let c = self.ex(2);
                    self.line(&format!("if ({}) return;", c.t));
                    true
                }
                97..=98 if host && (self.in_main || self.may_print) => self.s_print_math(),
                99 if host && self.chance(2) => self.s_vector(),
                99 if depth > 0 => self.s_pp_if(depth),
                _ => false,
            };
            if done {
                return;
            }
        }
        self.line(";");
    }

    fn open(&mut self, header: &str, vars: Vec<Var>) {
        if header.is_empty() {
            self.line("{");
        } else {
            self.line(&format!("{header} {{"));
        }
        self.ind += 1;
        self.scopes.push(vars);
        if self.in_main && !self.amp {
            self.declared.push(Vec::new());
        }
    }

    fn close(&mut self, tail: &str) {
        if self.in_main && !self.amp {
            let names = self.declared.pop().unwrap_or_default();
            if !names.is_empty() && self.chance(2) {
                let name = self.rng.pick(&names).clone();
                self.print_names(&[name]);
            }
        }
        self.scopes.pop();
        self.ind -= 1;
        self.line(&format!("}}{tail}"));
    }

    fn body(&mut self, header: &str, vars: Vec<Var>, depth: u32, tail: &str) {
        self.open(header, vars);
        let n = self.range(1, 4);
        self.stmts(n, depth - 1);
        self.close(tail);
    }

    fn note_declared(&mut self, name: &str) {
        if self.in_main
            && !self.amp
            && let Some(names) = self.declared.last_mut()
        {
            names.push(name.to_string());
        }
    }

    fn starts_with_type(text: &str) -> bool {
        ["int", "unsigned", "long", "float", "double", "char", "bool"]
            .iter()
            .any(|w| text.starts_with(w))
    }

    /// A name for a new variable: fresh, or now and then the name of a
    /// variable of an enclosing block, which the new one hides.
    fn decl_name(&mut self, prefix: &str) -> String {
        if self.chance(6) {
            let inner: Vec<String> = self
                .scopes
                .last()
                .map(|s| s.iter().map(|v| v.name.clone()).collect())
                .unwrap_or_default();
            let outer: Vec<String> = self
                .visible()
                .into_iter()
                .filter(|v| {
                    !inner.contains(&v.name)
                        && v.name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && !v.name.starts_with("SIZE")
                        && !matches!(
                            v.kind,
                            Kind::View(..) | Kind::Vector(..) | Kind::StVector(..)
                        )
                })
                .map(|v| v.name)
                .collect();
            if !outer.is_empty() {
                return self.rng.pick(&outer).clone();
            }
        }
        self.fresh(prefix)
    }

    /// [`Gen::decl_name`] for a variable whose initialiser is `init`: a
    /// name is in scope in its own initialiser, so hiding a variable that
    /// the initialiser reads would read the new, uninitialised one.
    fn name_for(&mut self, prefix: &str, init: &str) -> String {
        let name = self.decl_name(prefix);
        if mentions(init, &name) {
            self.fresh(prefix)
        } else {
            name
        }
    }

    fn s_decl(&mut self) -> bool {
        let t = self.pick_ty();
        self.begin();
        let depth = 1 + self.rng.below(4) as u32;
        let e = self.ex(depth);
        // The longest initialiser below is a fit of `e`, which mentions
        // what `e` mentions.
        let name = self.name_for("v", &e.t);
        let mut var = Var::new(name.clone(), Kind::Sc(t));
        match self.rng.below(7) {
            0 => {
                let e = self.fit(e, t);
                self.line(&format!("{} {name}{{{}}};", t.name(), e.t));
            }
            1 => {
                let e = self.fit_loose(e, t);
                if Self::starts_with_type(&e.t) {
                    // `int x(int(y));` would declare a function.
                    self.line(&format!("{} {name}(({}));", t.name(), e.t));
                } else {
                    self.line(&format!("{} {name}({});", t.name(), e.t));
                }
            }
            2 => {
                let e = self.fit_loose(e, t);
                let rg = conv_rg(e.rg, e.ty, t);
                self.line(&format!("const {} {name} = {};", t.name(), e.t));
                var.ro = true;
                var.rg = Some(rg);
            }
            3 => {
                let ty = e.ty;
                let e = self.fit(e, ty);
                self.line(&format!("auto {name} = {};", e.t));
                var.kind = Kind::Sc(ty);
            }
            _ => {
                let e = self.fit_loose(e, t);
                self.line(&format!("{} {name} = {};", t.name(), e.t));
            }
        }
        self.note_declared(&name);
        self.push_var(var);
        true
    }

    /// `{a, b, ...}` of exactly typed expressions, for `n` elements of type
    /// `t` (`k` of them given).
    fn init_list(&mut self, t: Sc, k: usize) -> String {
        let mut items = Vec::new();
        for _ in 0..k {
            let e = self.ex(2);
            let e = self.fit(e, t);
            items.push(e.t);
        }
        format!("{{{}}}", items.join(", "))
    }

    fn s_decl_array(&mut self) -> bool {
        let mut t = self.pick_ty();
        if self.amp && t == Sc::Bool {
            t = Sc::Int;
        }
        self.begin();
        if self.chance(4) {
            let (r, c) = (self.range(2, 3), self.range(2, 4));
            let mut rows = Vec::new();
            let given = self.range(0, r);
            for _ in 0..given {
                let k = self.range(1, c);
                rows.push(self.init_list(t, k));
            }
            let name = self.name_for("a", &rows.join(" "));
            let (rs, cs) = (self.size(r), self.size(c));
            self.line(&format!(
                "{} {name}[{rs}][{cs}] = {{{}}};",
                t.name(),
                rows.join(", ")
            ));
            self.push_var(Var::new(name, Kind::Arr(t, vec![r, c])));
            return true;
        }
        let n = self.range(2, 6);
        let ns = self.size(n);
        let name = match self.rng.below(4) {
            0 => {
                let name = self.fresh("a");
                self.line(&format!("{} {name}[{ns}];", t.name()));
                let i = self.fresh("i");
                let header = format!("for (int {i} = 0; {i} < {ns}; {i}++)");
                self.open(
                    &header,
                    vec![Var::fixed(i.clone(), Sc::Int, Rg::I(0, n as i128 - 1))],
                );
                self.begin();
                let e = self.ex(2);
                let e = self.fit_loose(e, t);
                self.line(&format!("{name}[{i}] = {};", e.t));
                self.close("");
                name
            }
            1 => {
                let name = self.decl_name("a");
                self.line(&format!("{} {name}[{ns}] = {{}};", t.name()));
                name
            }
            _ => {
                let k = self.range(1, n);
                let list = self.init_list(t, k);
                let name = self.name_for("a", &list);
                self.line(&format!("{} {name}[{ns}] = {list};", t.name()));
                name
            }
        };
        self.push_var(Var::new(name, Kind::Arr(t, vec![n])));
        true
    }

    /// An aggregate initialiser for struct `id`, with the first `k` fields
    /// given (all when `k` is `None`).
    fn struct_init(&mut self, id: usize, k: Option<usize>) -> String {
        let fields = self.structs[id].fields.clone();
        let k = k.unwrap_or(fields.len()).min(fields.len());
        let mut items = Vec::new();
        for (_, f) in fields.iter().take(k) {
            items.push(match f {
                FKind::Sc(t) => {
                    let e = self.ex(2);
                    self.fit(e, *t).t
                }
                FKind::Arr(t, n) => {
                    let given = self.range(1, *n);
                    self.init_list(*t, given)
                }
                FKind::St(j) => self.struct_init(*j, None),
            });
        }
        format!("{{{}}}", items.join(", "))
    }

    fn usable_structs(&self) -> Vec<usize> {
        (0..self.structs.len())
            .filter(|&i| !self.amp || self.structs[i].amp)
            .collect()
    }

    fn s_decl_struct(&mut self) -> bool {
        let ids = self.usable_structs();
        if ids.is_empty() {
            return false;
        }
        let id = *self.rng.pick(&ids);
        let sname = self.structs[id].name.clone();
        self.begin();
        let others = self.struct_vars(id, false);
        let init = if !others.is_empty() && self.chance(3) {
            self.rng.pick(&others).clone()
        } else if self.chance(6) {
            "{}".to_string()
        } else {
            let n = self.structs[id].fields.len();
            let k = if self.chance(3) {
                Some(self.range(1, n))
            } else {
                None
            };
            self.struct_init(id, k)
        };
        let name = self.name_for("s", &init);
        self.line(&format!("{sname} {name} = {init};"));
        self.push_var(Var::new(name, Kind::St(id)));
        true
    }

    fn s_decl_ref(&mut self) -> bool {
        self.begin();
        let name = self.fresh("r");
        if self.chance(2) {
            let Some(p) = self.place(None) else {
                return false;
            };
            self.line(&format!("{}& {name} = {};", p.ty.name(), p.t));
            self.push_var(Var::new(name, Kind::Sc(p.ty)));
        } else {
            let t = self.pick_ty();
            let e = self.ex(2);
            let mut e = if self.options.known_gaps {
                self.fit_loose(e, t)
            } else {
                self.fit(e, t)
            };
            if e.t.contains("std::min") || e.t.contains("std::max") {
                // They return a reference to an argument, maybe a temporary
                // that dies at the end of the declaration: bind a copy.
                e = self.cast_ex(e, t);
            }
            let rg = conv_rg(e.rg, e.ty, t);
            self.line(&format!("const {}& {name} = {};", t.name(), e.t));
            let mut v = Var::new(name.clone(), Kind::Sc(t));
            v.ro = true;
            v.rg = Some(rg);
            self.push_var(v);
            self.note_declared(&name);
        }
        true
    }

    fn s_assign(&mut self) -> bool {
        self.begin();
        if self.chance(8) {
            // A struct copy.
            let ids = self.usable_structs();
            if let Some(&id) = ids.first() {
                let id = ids.get(self.rng.below(ids.len())).copied().unwrap_or(id);
                let targets = self.struct_vars(id, true);
                let sources = self.struct_vars(id, false);
                if !targets.is_empty() && !sources.is_empty() {
                    let a = self.rng.pick(&targets).clone();
                    let b = self.rng.pick(&sources).clone();
                    self.line(&format!("{a} = {b};"));
                    return true;
                }
            }
        }
        self.place_effect = self.chance(4);
        let p = self.place(None);
        self.place_effect = false;
        let Some(p) = p else {
            return false;
        };
        let e = self.ex(3);
        if self.chance(6)
            && let Some(q) = self.place(Some(p.ty))
            && q.root != p.root
        {
            let e = self.fit(e, p.ty);
            self.line(&format!("{} = {} = {};", p.t, q.t, e.t));
            return true;
        }
        let e = self.fit_loose(e, p.ty);
        self.line(&format!("{} = {};", p.t, e.t));
        true
    }

    /// Restores the invariant of `p` after a write that left it with range
    /// `r`.
    fn restore(&mut self, p: &Place, r: Rg) {
        if within(r, inv(p.ty)) {
            return;
        }
        match p.ty {
            Sc::Int | Sc::Long => {
                let (_, m) = inv(p.ty).i();
                self.line(&format!("{} %= {};", p.t, m + 1));
            }
            Sc::Float | Sc::Double => {
                let bound = inv(p.ty).abs_max();
                let m = r.abs_max();
                let mut k = 1;
                while m / 10f64.powi(k) > bound * 0.5 {
                    k += 1;
                }
                let suffix = if p.ty == Sc::Float { "f" } else { "" };
                self.line(&format!("{} /= 1e{k}{suffix};", p.t));
            }
            _ => {}
        }
    }

    /// A place for a statement that evaluates it once; now and then one
    /// of a type that needs no restoring afterwards, with a side effect in
    /// an index.
    fn place_once(&mut self, types: &[Sc]) -> Option<Place> {
        if self.chance(4) {
            let t = *self.rng.pick(types);
            self.place_effect = true;
            let p = self.place(Some(t));
            self.place_effect = false;
            if p.is_some() {
                return p;
            }
        }
        self.place(None)
    }

    fn s_compound(&mut self) -> bool {
        self.begin();
        let Some(p) = self.place_once(&[Sc::UInt, Sc::ULong, Sc::Char, Sc::Bool]) else {
            return false;
        };
        let cur = inv(p.ty);
        let e = self.ex(2);
        if p.ty == Sc::Bool {
            if self.chance(3) {
                // bool += int: computed in int, converted back to bool.
                let op = *self.rng.pick(&["+=", "-=", "*="]);
                let e = self.fit(e, Sc::Int);
                self.line(&format!("{} {op} {};", p.t, e.t));
                return true;
            }
            let op = *self.rng.pick(&["&=", "|=", "^="]);
            let e = self.fit(e, Sc::Bool);
            self.line(&format!("{} {op} {};", p.t, e.t));
            return true;
        }
        if p.ty.float() {
            let op = *self.rng.pick(&["+=", "-=", "*=", "/="]);
            if op == "/=" {
                let d = self.float_divisor(e, p.ty);
                self.line(&format!("{} /= {};", p.t, d.t));
                return true;
            }
            let e = self.fit_loose(e, p.ty);
            let c = common(p.ty, e.ty);
            let er = conv_rg(e.rg, e.ty, c);
            let r = op_range(&op[..1], conv_rg(cur, p.ty, c), er, c).unwrap_or(full(c));
            self.line(&format!("{} {op} {};", p.t, e.t));
            self.restore(&p, conv_rg(r, c, p.ty));
            return true;
        }
        let mut ops = vec!["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ">>="];
        if !p.ty.signed() {
            ops.push("<<=");
        }
        let op = *self.rng.pick(&ops);
        let r = match op {
            "+=" | "-=" | "*=" => {
                let float_ok = matches!(p.ty, Sc::Int | Sc::Long) && op != "*=";
                let mut e = if e.ty.float() && !float_ok {
                    self.fit(e, Sc::Int)
                } else if e.ty.float() {
                    let ty = e.ty;
                    self.fit(e, ty)
                } else {
                    e
                };
                let opc = &op[..1];
                let mut c = common(p.ty, e.ty);
                let mut r = op_range(opc, conv_rg(cur, p.ty, c), conv_rg(e.rg, e.ty, c), c);
                if r.is_none() && !c.float() {
                    e = self.reduce(e, 100);
                    c = common(p.ty, e.ty);
                    r = op_range(opc, conv_rg(cur, p.ty, c), conv_rg(e.rg, e.ty, c), c);
                }
                let Some(r) = r else {
                    return false;
                };
                if c.float() && !float_fits(r, p.ty) {
                    return false;
                }
                self.line(&format!("{} {op} {};", p.t, e.t));
                conv_rg(r, c, p.ty)
            }
            "/=" | "%=" => {
                let c0 = common(p.ty, e.ty.promote());
                let risk = c0.signed() && conv_rg(cur, p.ty, c0).i().0 <= c0.min();
                let d = self.int_divisor(e, risk);
                let c = common(p.ty, d.ty);
                let r = div_range(&op[..1], conv_rg(cur, p.ty, c), conv_rg(d.rg, d.ty, c), c);
                self.line(&format!("{} {op} {};", p.t, d.t));
                conv_rg(r, c, p.ty)
            }
            "&=" | "|=" | "^=" => {
                let e = if e.ty.float() {
                    self.fit(e, Sc::Int)
                } else {
                    e
                };
                let c = common(p.ty, e.ty);
                let r = op_range(&op[..1], conv_rg(cur, p.ty, c), conv_rg(e.rg, e.ty, c), c)
                    .unwrap_or(full(c));
                self.line(&format!("{} {op} {};", p.t, e.t));
                conv_rg(r, c, p.ty)
            }
            _ => {
                let pp = p.ty.promote();
                let count = self.shift_count(pp.bits());
                self.line(&format!("{} {op} {};", p.t, count.t));
                if op == ">>=" { cur } else { full(p.ty) }
            }
        };
        self.restore(&p, r);
        true
    }

    fn s_incdec(&mut self) -> bool {
        self.begin();
        let Some(p) = self.place_once(&[Sc::UInt, Sc::ULong, Sc::Char]) else {
            return false;
        };
        if p.ty == Sc::Bool {
            return false;
        }
        let up = self.chance(2);
        let (op, sign) = if up { ("++", ">") } else { ("--", "<") };
        if self.chance(2) {
            self.line(&format!("{}{op};", p.t));
        } else {
            self.line(&format!("{op}{};", p.t));
        }
        let limit = match p.ty {
            Sc::Int => "30000".to_string(),
            Sc::Long => "2000000000".to_string(),
            Sc::Float => "1000000.0f".to_string(),
            Sc::Double => "1000000000.0".to_string(),
            _ => return true,
        };
        let neg = if up { "" } else { "-" };
        let back = if up { "-" } else { "+" };
        if p.ty.integral() && self.chance(2) {
            let (lo, hi) = inv(p.ty).i();
            let r = if up {
                Rg::I(lo, hi + 1)
            } else {
                Rg::I(lo - 1, hi)
            };
            self.restore(&p, r);
        } else {
            self.line(&format!(
                "if ({} {sign} {neg}{limit}) {} {back}= 1;",
                p.t, p.t
            ));
        }
        true
    }

    fn s_if(&mut self, depth: u32) -> bool {
        self.begin();
        let c = self.ex(3);
        self.body(&format!("if ({})", c.t), Vec::new(), depth, "");
        if self.chance(3) {
            self.begin();
            let c2 = self.ex(2);
            self.body(&format!("else if ({})", c2.t), Vec::new(), depth, "");
        }
        if self.chance(2) {
            self.body("else", Vec::new(), depth, "");
        }
        true
    }

    fn loop_body(
        &mut self,
        header: &str,
        vars: Vec<Var>,
        depth: u32,
        pre: Option<String>,
        tail: &str,
    ) {
        self.breakable.push(true);
        self.open(header, vars);
        if let Some(pre) = pre {
            self.line(&pre);
        }
        let n = self.range(1, 4);
        self.stmts(n, depth - 1);
        self.close(tail);
        self.breakable.pop();
    }

    fn s_for(&mut self, depth: u32) -> bool {
        let n = self.range(1, 6);
        let ns = self.size(n);
        let i = self.fresh("i");
        let ni = n as i128;
        if !self.amp && self.chance(5) {
            // A range for over a vector or a C array.
            let seqs: Vec<(String, Sc)> = self
                .visible()
                .into_iter()
                .filter_map(|v| match &v.kind {
                    Kind::Vector(t, _) => Some((v.name.clone(), *t)),
                    Kind::Arr(t, dims) if dims.len() == 1 => Some((v.name.clone(), *t)),
                    _ => None,
                })
                .collect();
            if !seqs.is_empty() {
                let (seq, t) = self.rng.pick(&seqs).clone();
                let var = Var::fixed(i.clone(), t, inv(t));
                let spelled = if self.chance(3) { "auto" } else { t.name() };
                let header = if self.chance(3) {
                    format!("for (const {spelled}& {i} : {seq})")
                } else {
                    format!("for ({spelled} {i} : {seq})")
                };
                self.loop_body(&header, vec![var], depth, None, "");
                return true;
            }
        }
        let (header, rg, t) = match self.rng.below(5) {
            0 => (
                format!("for (int {i} = {ns} - 1; {i} >= 0; --{i})"),
                Rg::I(0, ni - 1),
                Sc::Int,
            ),
            1 => {
                let step = self.range(2, 3);
                let start = self.range(0, 2);
                (
                    format!("for (int {i} = {start}; {i} < {ns} + {start}; {i} += {step})"),
                    Rg::I(start as i128, ni - 1 + start as i128),
                    Sc::Int,
                )
            }
            2 => (
                format!("for (unsigned int {i} = 0u; {i} < {n}u; ++{i})"),
                Rg::I(0, ni - 1),
                Sc::UInt,
            ),
            3 => (
                format!("for (long {i} = 0; {i} != {n}; {i}++)"),
                Rg::I(0, ni - 1),
                Sc::Long,
            ),
            _ => (
                format!("for (int {i} = 0; {i} < {ns}; {i}++)"),
                Rg::I(0, ni - 1),
                Sc::Int,
            ),
        };
        self.loop_body(&header, vec![Var::fixed(i, t, rg)], depth, None, "");
        true
    }

    fn s_while(&mut self, depth: u32) -> bool {
        let n = self.range(1, 5);
        let w = self.fresh("w");
        self.line(&format!("int {w} = 0;"));
        self.push_var(Var::fixed(w.clone(), Sc::Int, Rg::I(0, n as i128)));
        let inc = match self.rng.below(3) {
            0 => format!("{w}++;"),
            1 => format!("++{w};"),
            _ => format!("{w} += 1;"),
        };
        if self.chance(2) {
            self.loop_body(
                &format!("while ({w} < {n})"),
                Vec::new(),
                depth,
                Some(inc),
                "",
            );
        } else {
            self.loop_body(
                "do",
                Vec::new(),
                depth,
                Some(inc),
                &format!(" while ({w} < {n});"),
            );
        }
        true
    }

    fn s_switch(&mut self, depth: u32) -> bool {
        self.begin();
        let e = self.ex(2);
        let e = if e.ty.float() {
            self.fit(e, Sc::Int)
        } else {
            e
        };
        let (ctrl, ty, lo, hi) = match self.rng.below(3) {
            0 => {
                let w = self.wrap(&e, P_BAND);
                (format!("{w} & 7"), e.ty.promote(), 0, 7)
            }
            1 => {
                let e = self.fit(e, Sc::Int);
                let w = self.wrap(&e, P_MUL);
                (format!("{w} % 5"), Sc::Int, -4, 4)
            }
            _ => {
                let (lo, hi) = e.rg.i();
                (e.t.clone(), e.ty.promote(), lo.max(-3), hi.min(6))
            }
        };
        let lo = if ty.signed() { lo } else { lo.max(0) };
        if lo > hi {
            return false;
        }
        let mut labels: Vec<i128> = (lo..=hi).collect();
        let k = self.range(1, 4).min(labels.len());
        let mut chosen = Vec::new();
        for _ in 0..k {
            let at = self.rng.below(labels.len());
            chosen.push(labels.remove(at));
        }
        let with_default = self.chance(2);
        let default_at = self.rng.below(chosen.len() + 1);
        self.line(&format!("switch ({ctrl}) {{"));
        self.breakable.push(false);
        for slot in 0..=chosen.len() {
            let label = if slot == default_at && with_default {
                Some("default:".to_string())
            } else {
                None
            };
            let labels_here: Vec<String> = label
                .into_iter()
                .chain(chosen.get(slot).map(|v| format!("case {v}:")))
                .collect();
            if labels_here.is_empty() {
                continue;
            }
            self.line(&labels_here.join(" "));
            self.ind += 1;
            self.open("", Vec::new());
            let n = self.range(1, 3);
            self.stmts(n, depth - 1);
            if self.chance(4) {
                self.line("break;");
            }
            self.close("");
            if self.chance(2) {
                self.line("break;");
            }
            self.ind -= 1;
        }
        self.breakable.pop();
        self.line("}");
        true
    }

    fn s_call(&mut self) -> bool {
        let cands = self.callable.clone();
        if cands.is_empty() {
            return false;
        }
        let f = self.funcs[*self.rng.pick(&cands)].clone();
        self.begin();
        let Some((args, _, roots)) = self.args(&f, 2) else {
            return false;
        };
        if let Some(ret) = f.ret
            && self.chance(2)
            && let Some(p) = self.place(None)
            && !roots.contains(&p.root)
        {
            let call = Ex::atom(format!("{}({args})", f.name), ret, inv(ret));
            let e = self.fit_loose(call, p.ty);
            self.line(&format!("{} = {};", p.t, e.t));
            return true;
        }
        self.line(&format!("{}({args});", f.name));
        true
    }

    /// `<< x` items that print `e`, with manipulators.
    fn print_item(&mut self, e: Ex) -> String {
        let mut s = String::new();
        let body = if e.prec == P_PRIMARY {
            e.t.clone()
        } else {
            format!("({})", e.t)
        };
        match e.ty {
            Sc::Char => {
                let (lo, hi) = e.rg.i();
                if (lo >= 32 && hi <= 126) || (self.options.known_gaps && self.chance(2)) {
                    let _ = write!(s, " << {body}");
                } else if self.chance(2) {
                    let _ = write!(s, " << (int){body}");
                } else {
                    let _ = write!(s, " << +{body}");
                }
            }
            Sc::Bool => {
                if self.chance(3) && self.options.known_gaps {
                    let _ = write!(s, " << std::boolalpha << {body} << std::noboolalpha");
                } else if self.chance(6) {
                    // It stays on: the later bools print as words too.
                    let _ = write!(s, " << std::boolalpha << {body}");
                } else {
                    let _ = write!(s, " << {body}");
                }
            }
            Sc::Float | Sc::Double => {
                match self.rng.below(5) {
                    0 => {
                        let p = self.range(1, 17);
                        let _ = write!(s, " << std::setprecision({p})");
                    }
                    1 => {
                        let p = self.range(0, 9);
                        let _ = write!(s, " << std::fixed << std::setprecision({p})");
                    }
                    2 => {
                        let p = self.range(0, 9);
                        let _ = write!(s, " << std::scientific << std::setprecision({p})");
                    }
                    _ => {}
                }
                if self.chance(4) {
                    let w = self.range(1, 16);
                    let _ = write!(s, " << std::setw({w})");
                }
                let _ = write!(s, " << {body}");
                if self.chance(2) {
                    s.push_str(" << std::defaultfloat << std::setprecision(6)");
                }
            }
            _ => match self.rng.below(6) {
                0 => {
                    let w = self.range(1, 12);
                    let _ = write!(s, " << std::setw({w}) << {body}");
                }
                1 => {
                    let w = self.range(1, 12);
                    let fill = *self.rng.pick(&["'*'", "'0'", "'.'", "' '"]);
                    let side = *self.rng.pick(&["std::left", "std::right"]);
                    let _ = write!(
                        s,
                        " << {side} << std::setfill({fill}) << std::setw({w}) << {body} << std::setfill(' ') << std::right"
                    );
                }
                2 => {
                    let _ = write!(s, " << std::hex << {body} << std::dec");
                }
                _ => {
                    let _ = write!(s, " << {body}");
                }
            },
        }
        s
    }

    fn s_print(&mut self) -> bool {
        self.begin();
        let label = self.fresh("p");
        let mut line = format!("{} << \"{label}:\"", self.cout());
        let k = self.range(1, 3);
        for _ in 0..k {
            let d = self.rng.below(4) as u32;
            let e = self.ex(d);
            line.push_str(" << ' '");
            let item = self.print_item(e);
            line.push_str(&item);
        }
        line.push_str(if self.chance(3) {
            " << std::endl;"
        } else {
            " << \"\\n\";"
        });
        self.line(&line);
        true
    }

    /// Prints library functions that are not exactly rounded (exp, sin,
    /// ...) with at most five significant digits, on moderate arguments:
    /// the C library and Tessera may differ in the last bits, not in five
    /// digits.
    fn s_print_math(&mut self) -> bool {
        self.begin();
        let t = if self.chance(3) {
            Sc::Float
        } else {
            Sc::Double
        };
        let x = self.ex(2);
        let x = self.fit(x, t);
        let (suffix, div) = if t == Sc::Float {
            ("f", "1e5f")
        } else {
            ("", "1e8")
        };
        let xw = self.wrap(&x, P_MUL);
        let arg = format!("{xw} / {div}");
        let y = self.ex(1);
        let y = self.fit(y, t);
        let yw = self.wrap(&y, P_MUL);
        let arg2 = format!("{yw} / {div}");
        let one = format!("1.0{suffix}");
        let call = match self.rng.below(16) {
            0 => format!("std::exp({arg})"),
            1 => format!("std::sin({arg})"),
            2 => format!("std::cos({arg})"),
            3 => format!("std::atan({arg})"),
            4 => format!("std::tanh({arg})"),
            5 => format!("std::sinh({arg})"),
            6 => format!("std::exp2({arg})"),
            7 => format!("std::cbrt({arg})"),
            8 => format!("std::log(std::fabs({arg}) + {one})"),
            9 => format!("std::log2(std::fabs({arg}) + {one})"),
            10 => format!("std::log10(std::fabs({arg}) + {one})"),
            11 => format!("std::pow(std::fabs({arg}) + {one}, {arg2})"),
            12 => format!("std::atan2({arg}, {arg2})"),
            13 => format!("std::hypot({arg}, {arg2})"),
            14 => format!("std::erf({arg})"),
            _ => format!("std::cosh({arg})"),
        };
        let p = self.range(1, 5);
        let label = self.fresh("m");
        let cout = self.cout();
        let form = if self.chance(3) {
            "std::scientific << "
        } else {
            ""
        };
        self.line(&format!(
            "{cout} << \"{label}: \" << {form}std::setprecision({p}) << {call} << std::defaultfloat << \"\\n\";"
        ));
        true
    }

    /// Prints the named scalar variables.
    fn print_names(&mut self, names: &[String]) {
        let vars: Vec<Var> = self
            .visible()
            .into_iter()
            .filter(|v| names.contains(&v.name))
            .collect();
        for v in vars {
            self.begin();
            let e = self.read(&v);
            let item = self.print_item(e);
            let line = format!("{} << \"{}=\"{item} << \"\\n\";", self.cout(), v.name);
            self.line(&line);
        }
    }

    fn s_jump(&mut self) -> bool {
        let can_continue = self.breakable.contains(&true);
        let word = if can_continue && self.chance(2) {
            "continue"
        } else {
            "break"
        };
        self.begin();
        let c = self.ex(2);
        self.line(&format!("if ({}) {word};", c.t));
        true
    }

    fn s_return(&mut self) -> bool {
        let Some(ret) = self.ret else {
            return false;
        };
        self.begin();
        let c = self.ex(2);
        match ret {
            None => self.line(&format!("if ({}) return;", c.t)),
            Some(t) => {
                let e = self.ex(2);
                let e = self.fit_loose(e, t);
                self.line(&format!("if ({}) return {};", c.t, e.t));
            }
        }
        true
    }

    /// An `index<N>` or `extent<N>` local in a kernel, computed from the
    /// kernel's index or a view's extent; its components become readable.
    fn s_index_local(&mut self) -> bool {
        let dims = self.kdims.clone();
        let rank = dims.len();
        let Some(ix) = self.kidx.first().cloned() else {
            return false;
        };
        let name = self.fresh("p");
        let k = self.range(1, 3) as i128;
        let ks: Vec<String> = (0..rank).map(|_| k.to_string()).collect();
        let ks = ks.join(", ");
        // Each component's range from the kernel's dimension `n`.
        let (decl, extra, comp): (String, Option<String>, ComponentRange) = match self.rng.below(6)
        {
            0 => (
                format!("index<{rank}> {name} = {ix};"),
                None,
                Box::new(|n| (0, n - 1)),
            ),
            1 => (
                format!("index<{rank}> {name}({ix});"),
                Some(format!("{name} += index<{rank}>({ks});")),
                Box::new(move |n| (k, n - 1 + k)),
            ),
            2 => (
                format!("index<{rank}> {name} = {ix} * {k};"),
                Some(format!("{name} -= {k};")),
                Box::new(move |n| (-k, (n - 1) * k - k)),
            ),
            3 => (
                format!("index<{rank}> {name} = {ix};"),
                Some(format!("{name}++;")),
                Box::new(|n| (1, n)),
            ),
            4 => (
                format!("extent<{rank}> {name}({ks});"),
                Some(format!("{name} *= 2;")),
                Box::new(move |_| (2 * k, 2 * k)),
            ),
            _ => (
                format!("index<{rank}> {name} = {ix} % {};", k + 1),
                None,
                Box::new(move |_| (0, k)),
            ),
        };
        self.line(&decl);
        if let Some(extra) = extra {
            self.line(&extra);
        }
        for (d, &n) in dims.iter().enumerate() {
            let (lo, hi) = comp(n as i128);
            self.push_var(Var::fixed(format!("{name}[{d}]"), Sc::Int, Rg::I(lo, hi)));
        }
        true
    }

    /// A `std::vector` built on the host: by size, by size and value,
    /// element by element with `push_back`, or as a copy of another.
    fn s_vector(&mut self) -> bool {
        let t = *self
            .rng
            .pick(&[Sc::Int, Sc::UInt, Sc::Float, Sc::Double, Sc::Long, Sc::Char]);
        self.begin();
        let name = self.fresh("vec");
        let copies: Vec<(String, usize)> = self
            .visible()
            .into_iter()
            .filter_map(|v| match v.kind {
                Kind::Vector(u, n) if u == t => Some((v.name, n)),
                _ => None,
            })
            .collect();
        let tn = t.name();
        let len = match self.rng.below(4) {
            0 if !copies.is_empty() => {
                let (other, n) = self.rng.pick(&copies).clone();
                self.line(&format!("std::vector<{tn}> {name} = {other};"));
                n
            }
            1 => {
                let n = self.range(1, 6);
                self.line(&format!("std::vector<{tn}> {name}({n});"));
                n
            }
            2 => {
                let n = self.range(1, 6);
                let e = self.ex(2);
                let e = self.fit(e, t);
                self.line(&format!("std::vector<{tn}> {name}({n}, {});", e.t));
                n
            }
            _ => {
                let n = self.range(1, 5);
                self.line(&format!("std::vector<{tn}> {name};"));
                for _ in 0..n {
                    self.begin();
                    let e = self.ex(2);
                    let e = self.fit_loose(e, t);
                    self.line(&format!("{name}.push_back({});", e.t));
                }
                n
            }
        };
        self.push_var(Var::new(name.clone(), Kind::Vector(t, len)));
        let size = Var::fixed(
            format!("{name}.size()"),
            Sc::ULong,
            Rg::I(len as i128, len as i128),
        );
        self.push_var(size);
        true
    }

    /// Statements under `#if`/`#ifdef`/`#ifndef`, with an `#else` branch:
    /// each branch is a block, so neither leaks declarations.
    fn s_pp_if(&mut self, depth: u32) -> bool {
        let cond = match (self.macros.is_empty(), self.rng.below(5)) {
            (false, 0) => {
                let (name, v) = self.rng.pick(&self.macros).clone();
                let k = self.rng.below(10);
                let op = *self.rng.pick(&[">", "<", "==", "!=", ">="]);
                let _ = v;
                format!("#if {name} {op} {k}")
            }
            (false, 1) => {
                let (name, _) = self.rng.pick(&self.macros).clone();
                format!("#ifdef {name}")
            }
            (false, 2) => {
                let (name, v) = self.rng.pick(&self.macros).clone();
                format!("#if defined({name}) && {name} * 2 == {}", v * 2)
            }
            (_, 3) => "#ifndef TESSERA_NOT_DEFINED".to_string(),
            (_, 4) => "#ifdef TESSERA_NOT_DEFINED".to_string(),
            _ => format!("#if {}", self.rng.below(2)),
        };
        self.line(&cond);
        self.body("", Vec::new(), depth, "");
        if self.chance(3) {
            self.line("#elif 1");
            self.body("", Vec::new(), depth, "");
        }
        if self.chance(2) {
            self.line("#else");
            self.body("", Vec::new(), depth, "");
        }
        self.line("#endif");
        true
    }

    fn s_block(&mut self, depth: u32) -> bool {
        self.body("", Vec::new(), depth, "");
        true
    }

    fn s_atomic(&mut self) -> bool {
        let Some(acc) = self.acc.clone() else {
            return false;
        };
        self.begin();
        let i = self.index(acc.len);
        let loc = format!("&{}[{i}]", acc.view);
        let e = self.ex(2);
        let call = match acc.op {
            AccOp::Additive => {
                let v = self.fit_loose(e, Sc::Int);
                match self.rng.below(6) {
                    0 => format!("atomic_fetch_inc({loc});"),
                    1 => format!("atomic_fetch_dec({loc});"),
                    2 => format!("atomic_fetch_sub({loc}, {});", v.t),
                    3 => {
                        let ex = self.fresh("x");
                        let v = self.fit(v, Sc::Int);
                        let w = self.wrap(&v, P_ADD - 1);
                        self.line("{");
                        self.ind += 1;
                        self.line(&format!("int {ex} = atomic_fetch_add({loc}, 0);"));
                        self.line(&format!(
                            "while (!atomic_compare_exchange({loc}, &{ex}, {ex} + {w})) {{"
                        ));
                        self.line("}");
                        self.ind -= 1;
                        self.line("}");
                        return true;
                    }
                    _ => format!("atomic_fetch_add({loc}, {});", v.t),
                }
            }
            AccOp::UAdditive => {
                let v = self.fit_loose(e, Sc::UInt);
                let f = if self.chance(2) { "add" } else { "sub" };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
            AccOp::Max | AccOp::Min => {
                let v = self.fit_loose(e, Sc::Int);
                let f = if acc.op == AccOp::Max { "max" } else { "min" };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
            AccOp::UMax | AccOp::UMin => {
                let v = self.fit_loose(e, Sc::UInt);
                let f = if acc.op == AccOp::UMax { "max" } else { "min" };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
            AccOp::Or | AccOp::And | AccOp::Xor => {
                let v = self.fit_loose(e, Sc::UInt);
                let f = match acc.op {
                    AccOp::Or => "or",
                    AccOp::And => "and",
                    _ => "xor",
                };
                format!("atomic_fetch_{f}({loc}, {});", v.t)
            }
        };
        self.line(&call);
        true
    }

    // ---------------------------------------------------------------
    // Program structure.

    fn program(&mut self) {
        self.line("// Generated by tessera-testkit (programs.rs): a random, well-defined program.");
        let mut includes = vec![
            "<iostream>",
            "<iomanip>",
            "<vector>",
            "<cmath>",
            "<algorithm>",
            "<amp.h>",
            "<amp_math.h>",
        ];
        if self.chance(2) {
            includes.swap(0, 5);
        }
        for inc in includes {
            self.line(&format!("#include {inc}"));
        }
        self.line("using namespace concurrency;");
        if self.chance(3) {
            self.short_cout = true;
            self.line("using std::cout;");
        }
        self.line("");
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("SIZE");
            let v = *self.rng.pick(&[2usize, 3, 4, 6, 8, 16]);
            self.line(&format!("#define {name} {v}"));
            self.scopes[0].push(Var::fixed(
                name.clone(),
                Sc::Int,
                Rg::I(v as i128, v as i128),
            ));
            self.macros.push((name, v));
        }
        for _ in 0..self.rng.below(3) {
            let name = self.fresh("MAC");
            let op = *self.rng.pick(&["+", "-", "*", "^", "&", "|"]);
            if self.chance(2) {
                self.line(&format!("#define {name}(a, b) ((a) {op} (b))"));
            } else {
                self.line(&format!("#define {name}(x, y) ((x){op}(y))"));
            }
            self.fmacros.push((name, op));
        }
        self.globals();
        for _ in 0..self.rng.below(4) {
            self.structure();
        }
        self.line("");
        for line in CLAMPS {
            self.line(line);
        }
        for t in [Sc::Int, Sc::UInt, Sc::Float, Sc::Double, Sc::Long] {
            if self.chance(3) {
                let name = selector_name(t);
                let tn = t.name();
                self.line(&format!(
                    "{tn}& {name}({tn}& a, {tn}& b, bool first) restrict(amp, cpu) {{"
                ));
                if self.chance(2) {
                    self.line("    return first ? a : b;");
                } else {
                    self.line("    if (first) {");
                    self.line("        return a;");
                    self.line("    }");
                    self.line("    return b;");
                }
                self.line("}");
                self.selectors.push(t);
            }
        }
        let nf = self.range(1, 5);
        let prototypes = self.chance(3);
        let mut defs = Vec::new();
        let mut protos = Vec::new();
        for _ in 0..nf {
            // Under `known_gaps`, sometimes an overload of the previous
            // function; not with prototypes, which would show it to calls
            // generated before it existed.
            let overload = (self.options.known_gaps
                && !prototypes
                && !self.funcs.is_empty()
                && self.chance(3))
            .then(|| self.funcs.len() - 1);
            let saved = std::mem::take(&mut self.out);
            let proto = self.function(overload);
            let text = std::mem::replace(&mut self.out, saved);
            if prototypes {
                protos.push(proto);
                defs.push(text);
            } else {
                self.out.push_str(&text);
                self.out.push('\n');
            }
        }
        for p in protos {
            self.line(&p);
        }
        if prototypes {
            self.line("");
        }
        self.main();
        for d in defs {
            self.out.push('\n');
            self.out.push_str(&d);
        }
    }

    fn globals(&mut self) {
        for _ in 0..self.rng.below(4) {
            let name = self.fresh("G");
            match self.rng.below(6) {
                5 => {
                    let n = self.range(2, 5);
                    let values: Vec<i128> =
                        (0..n).map(|_| self.rng.below(200) as i128 - 100).collect();
                    let texts: Vec<String> = values.iter().map(i128::to_string).collect();
                    let lo = values.iter().copied().min().unwrap_or(0);
                    let hi = values.iter().copied().max().unwrap_or(0);
                    let spelled = if self.chance(2) {
                        "static const int"
                    } else {
                        "const int"
                    };
                    let size = if self.chance(2) {
                        n.to_string()
                    } else {
                        String::new()
                    };
                    self.line(&format!(
                        "{spelled} {name}[{size}] = {{{}}};",
                        texts.join(", ")
                    ));
                    let mut v = Var::new(name, Kind::Arr(Sc::Int, vec![n]));
                    v.ro = true;
                    v.rg = Some(Rg::I(lo, hi));
                    self.scopes[0].push(v);
                }
                0..=2 => {
                    let v = self.rng.below(50) as i128 - 10;
                    let spelled = *self.rng.pick(&[
                        "const int",
                        "static const int",
                        "constexpr int",
                        "const int static",
                    ]);
                    self.line(&format!("{spelled} {name} = {v};"));
                    self.scopes[0].push(Var::fixed(name, Sc::Int, Rg::I(v, v)));
                }
                3 => {
                    // Host only: amp code reads only `const int` globals.
                    let t = *self.rng.pick(&[Sc::UInt, Sc::Long, Sc::Double, Sc::Float]);
                    let e = self.literal(t);
                    self.line(&format!("const {} {name} = {};", t.name(), e.t));
                    self.scopes[0].push(Var::fixed(name, t, e.rg));
                }
                _ => {
                    let t = *self.rng.pick(&[Sc::Int, Sc::Double, Sc::UInt]);
                    let e = self.literal(t);
                    let e = self.fit(e, t);
                    self.line(&format!("{} {name} = {};", t.name(), e.t));
                    self.scopes[0].push(Var::new(name, Kind::Sc(t)));
                }
            }
        }
    }

    /// The globals amp code may read: `const int` with a known value.
    fn amp_globals(&self) -> Vec<Var> {
        self.scopes[0]
            .iter()
            .filter(|v| v.ro && matches!(v.kind, Kind::Sc(Sc::Int)))
            .cloned()
            .collect()
    }

    /// The globals a host helper may read (all of them, read-only).
    fn host_globals(&self) -> Vec<Var> {
        self.scopes[0]
            .iter()
            .map(|v| {
                let mut v = v.clone();
                v.ro = true;
                v
            })
            .collect()
    }

    fn structure(&mut self) {
        let id = self.structs.len();
        let name = format!("S{id}");
        let amp = self.chance(4) || !self.chance(3);
        let n = self.range(1, 4);
        let mut fields = Vec::new();
        let amp_types = [Sc::Int, Sc::UInt, Sc::Float, Sc::Double, Sc::Long];
        let host_types = [
            Sc::Int,
            Sc::Char,
            Sc::Bool,
            Sc::Float,
            Sc::Double,
            Sc::ULong,
        ];
        for k in 0..n {
            let t = if amp {
                *self.rng.pick(&amp_types)
            } else {
                *self.rng.pick(&host_types)
            };
            let fname = format!("m{k}");
            let nested: Vec<usize> = (0..id).filter(|&j| !amp || self.structs[j].amp).collect();
            let kind = match self.rng.below(5) {
                0 => FKind::Arr(t, self.range(2, 4)),
                1 if !nested.is_empty() => FKind::St(*self.rng.pick(&nested)),
                _ => FKind::Sc(t),
            };
            fields.push((fname, kind));
        }
        let keyword = if self.chance(4) { "class" } else { "struct" };
        self.line(&format!("{keyword} {name} {{"));
        if keyword == "class" {
            self.line("public:");
        }
        for (fname, kind) in &fields {
            let text = match kind {
                FKind::Sc(t) => format!("    {} {fname};", t.name()),
                FKind::Arr(t, n) => format!("    {} {fname}[{n}];", t.name()),
                FKind::St(j) => format!("    {} {fname};", self.structs[*j].name),
            };
            self.line(&text);
        }
        self.line("};");
        self.structs.push(StructDef { name, fields, amp });
    }

    fn counter(&mut self) {
        let h = self.fresh("c");
        self.line(&format!("int {h} = 0;"));
        let mut v = Var::fixed(h, Sc::Int, Rg::I(-COUNTER_INV, COUNTER_INV));
        v.counter = true;
        self.push_var(v);
    }

    /// Writes one helper function and returns its prototype.
    fn function(&mut self, overload: Option<usize>) -> String {
        let (amp, cpu, restrict) = match overload {
            Some(i) => (self.funcs[i].amp, self.funcs[i].cpu, self.funcs[i].restrict),
            None => match self.rng.below(8) {
                0..=3 => (true, true, "restrict(amp, cpu)"),
                4 => (true, true, "restrict(cpu, amp)"),
                5 => (true, false, "restrict(amp)"),
                6 => (false, true, "restrict(cpu)"),
                _ => (false, true, ""),
            },
        };
        self.amp = amp;
        self.both = amp && cpu;
        let name = match overload {
            Some(i) => self.funcs[i].name.clone(),
            None => self.fresh("f"),
        };
        let mut params = Vec::new();
        if let Some(i) = overload {
            // Calls of the first one from the body below must already pick
            // it by exact types: the new one is visible in its own body.
            for g in &mut self.funcs {
                if g.name == name {
                    g.overloaded = true;
                }
            }
            // The same name, other parameter types than every function of
            // that name (not only other modes, which would make calls
            // ambiguous), and the same number of them.
            let taken: Vec<Vec<PTy>> = self
                .funcs
                .iter()
                .filter(|g| g.name == name)
                .map(|g| g.params.iter().map(|p| p.1).collect())
                .collect();
            let arity = self.funcs[i].params.len().max(1);
            for _ in 0..20 {
                params.clear();
                for _ in 0..arity {
                    let pname = self.fresh("q");
                    let t = self.pick_ty();
                    params.push((pname, PTy::Sc(t), Mode::Val));
                }
                let ours: Vec<PTy> = params.iter().map(|p| p.1).collect();
                if !taken.contains(&ours) {
                    break;
                }
            }
            let ours: Vec<PTy> = params.iter().map(|p| p.1).collect();
            if taken.contains(&ours) {
                // Give up on an overload: an extra parameter makes it one.
                for k in 0..8 {
                    let pname = self.fresh("q");
                    params.push((pname, PTy::Sc(Sc::Int), Mode::Val));
                    let ours: Vec<PTy> = params.iter().map(|p| p.1).collect();
                    if !taken.contains(&ours) || k == 7 {
                        break;
                    }
                }
            }
        }
        let more = if overload.is_some() {
            0
        } else {
            self.rng.below(4)
        };
        for _ in 0..more {
            let pname = self.fresh("q");
            let structs = self.usable_structs();
            let ty = if !structs.is_empty() && self.chance(5) {
                PTy::St(*self.rng.pick(&structs))
            } else {
                PTy::Sc(self.pick_ty())
            };
            let mode = match self.rng.below(6) {
                0 => Mode::Ref,
                1 => Mode::CRef,
                _ => Mode::Val,
            };
            params.push((pname, ty, mode));
        }
        let has_ref = params.iter().any(|p| p.2 == Mode::Ref);
        let ret = if has_ref && self.chance(2) || (!amp && self.chance(3)) {
            None
        } else {
            Some(self.pick_ty())
        };
        let mut plist = Vec::new();
        let mut vars = Vec::new();
        for (pname, ty, mode) in &params {
            let tname = match ty {
                PTy::Sc(t) => t.name().to_string(),
                PTy::St(id) => self.structs[*id].name.clone(),
            };
            let kind = match ty {
                PTy::Sc(t) => Kind::Sc(*t),
                PTy::St(id) => Kind::St(*id),
            };
            let mut v = Var::new(pname.clone(), kind);
            plist.push(match mode {
                Mode::Val => format!("{tname} {pname}"),
                Mode::CRef => {
                    v.ro = true;
                    format!("const {tname}& {pname}")
                }
                Mode::Ref => format!("{tname}& {pname}"),
            });
            vars.push(v);
        }
        let rname = ret.map_or("void", Sc::name);
        let space = if restrict.is_empty() { "" } else { " " };
        let signature = format!("{rname} {name}({}){space}{restrict}", plist.join(", "));
        let callable: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| {
                let g = &self.funcs[i];
                (!amp || g.amp) && (!cpu || g.cpu)
            })
            .collect();
        let globals = if amp {
            self.amp_globals()
        } else {
            self.host_globals()
        };
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![globals, vars]);
        self.callable = callable;
        self.ret = Some(ret);
        self.may_print = !amp && ret.is_none();
        self.budget = self.range(3, 10);
        self.line(&format!("{signature} {{"));
        self.ind += 1;
        if self.chance(2) {
            self.counter();
        }
        let n = self.range(1, 5);
        self.stmts(n, 2);
        if let Some(t) = ret {
            self.begin();
            let e = self.digest(t);
            self.line(&format!("return {};", e.t));
        }
        self.ind -= 1;
        self.line("}");
        self.scopes = saved_scopes;
        self.ret = None;
        self.may_print = false;
        self.amp = false;
        self.both = false;
        self.funcs.push(Func {
            name,
            ret,
            params,
            amp,
            cpu,
            restrict,
            overloaded: overload.is_some(),
        });
        format!("{signature};")
    }

    fn main(&mut self) {
        self.in_main = true;
        self.amp = false;
        self.callable = (0..self.funcs.len())
            .filter(|&i| self.funcs[i].cpu)
            .collect();
        let globals = self.scopes[0].clone();
        self.scopes = vec![globals];
        self.line("int main() {");
        self.ind += 1;
        self.scopes.push(Vec::new());
        self.declared.push(Vec::new());
        self.counter();
        let kernels = self.range(1, 4);
        for _ in 0..kernels {
            self.budget = self.range(3, 12);
            let n = self.range(1, 5);
            self.stmts(n, 3);
            self.kernel();
        }
        self.budget = 6;
        let n = self.range(0, 3);
        self.stmts(n, 2);
        // Print the scalars of main's own scope, and its counters.
        let names: Vec<String> = self
            .scopes
            .last()
            .map(|s| {
                s.iter()
                    .filter(|v| matches!(v.kind, Kind::Sc(_)))
                    .map(|v| v.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        let show: Vec<String> = names
            .into_iter()
            .filter(|_| self.rng.below(3) != 0)
            .collect();
        self.print_names(&show);
        self.begin();
        if self.chance(4) {
            let e = self.digest(Sc::Int);
            let e = self.fit(e, Sc::Int);
            let w = self.wrap(&e, P_BAND);
            let mask = if self.chance(2) { 63 } else { 1023 };
            self.line(&format!("return {w} & {mask};"));
        } else {
            self.line("return 0;");
        }
        self.ind -= 1;
        self.line("}");
        self.in_main = false;
    }

    /// A kernel section of `main`: an output vector, input views, maybe an
    /// accumulator, the `parallel_for_each`, `synchronize` and the output.
    fn kernel(&mut self) {
        let tiled = self.chance(3);
        let rank2 = self.chance(3);
        let rank3 = !rank2 && self.chance(6);
        // Padded or truncated tilings of an extent the tile does not divide.
        let mut tiling = "";
        let (dims, tile): (Vec<usize>, Vec<usize>) = if rank3 {
            let d: Vec<usize> = (0..3).map(|_| *self.rng.pick(&[1usize, 2, 3, 4])).collect();
            let t: Vec<usize> = d
                .iter()
                .map(|&n| {
                    if n.is_multiple_of(2) && self.chance(2) {
                        2
                    } else {
                        1
                    }
                })
                .collect();
            (d, t)
        } else if rank2 {
            let r = *self.rng.pick(&[2usize, 4, 6, 8]);
            let c = *self.rng.pick(&[2usize, 3, 4, 8]);
            let tr = *self.rng.pick(&[1usize, 2]);
            let tc = if c.is_multiple_of(4) && self.chance(2) {
                4
            } else {
                1 + usize::from(c.is_multiple_of(2))
            };
            (vec![r, c], vec![tr, tc])
        } else if tiled && self.chance(3) {
            let n = *self.rng.pick(&[5usize, 10, 14, 19, 27]);
            let t = if n < 8 {
                4
            } else {
                *self.rng.pick(&[4usize, 8])
            };
            tiling = if self.chance(2) { "pad" } else { "truncate" };
            (vec![n], vec![t])
        } else {
            let n = *self.rng.pick(&[4usize, 8, 12, 16, 24, 32]);
            let divisors: Vec<usize> = [2usize, 4, 8, 16]
                .into_iter()
                .filter(|t| n.is_multiple_of(*t))
                .collect();
            let t = *self.rng.pick(&divisors);
            (vec![n], vec![t])
        };
        let len: usize = dims.iter().product();
        let rank = dims.len();
        // The output: scalars, or structs (amp-compatible ones).
        let amp_structs: Vec<usize> = (0..self.structs.len())
            .filter(|&i| self.structs[i].amp)
            .collect();
        let out_struct = if !amp_structs.is_empty() && self.chance(5) {
            Some(*self.rng.pick(&amp_structs))
        } else {
            None
        };
        let elem = *self.rng.pick(VIEW_TYPES);
        let elem_name = match out_struct {
            Some(id) => self.structs[id].name.clone(),
            None => elem.name().to_string(),
        };
        let k = self.fresh("k");
        let outv = format!("out{k}");
        let lens = self.size(len);
        if out_struct.is_some() {
            self.line(&format!("std::vector<{elem_name}> {outv}({lens});"));
        } else {
            let fill = self.literal(elem);
            let fill = self.fit(fill, elem);
            self.line(&format!(
                "std::vector<{elem_name}> {outv}({lens}, {});",
                fill.t
            ));
        }

        // Inputs: existing vectors of the right length, or a new one.
        let mut inputs: Vec<(String, Sc)> = self
            .visible()
            .into_iter()
            .filter_map(|v| match v.kind {
                Kind::Vector(t, n) if n == len && t != Sc::Char => Some((v.name.clone(), t)),
                _ => None,
            })
            .collect();
        while inputs.len() > 2 {
            let at = self.rng.below(inputs.len());
            inputs.remove(at);
        }
        if inputs.is_empty() || self.chance(3) {
            let t = *self.rng.pick(VIEW_TYPES);
            let name = format!("in{k}");
            self.line(&format!("std::vector<{}> {name}({lens});", t.name()));
            let i = self.fresh("i");
            self.breakable.push(true);
            self.open(
                &format!("for (int {i} = 0; {i} < {lens}; {i}++)"),
                vec![Var::fixed(i.clone(), Sc::Int, Rg::I(0, len as i128 - 1))],
            );
            self.begin();
            let e = self.ex(3);
            let e = self.fit_loose(e, t);
            self.line(&format!("{name}[{i}] = {};", e.t));
            self.close("");
            self.breakable.pop();
            self.push_var(Var::new(name.clone(), Kind::Vector(t, len)));
            inputs.push((name, t));
        }

        // The accumulator.
        let acc = if self.chance(3) {
            let op = *self.rng.pick(&[
                AccOp::Additive,
                AccOp::Additive,
                AccOp::UAdditive,
                AccOp::Max,
                AccOp::Min,
                AccOp::UMax,
                AccOp::UMin,
                AccOp::Or,
                AccOp::And,
                AccOp::Xor,
            ]);
            let alen = *self.rng.pick(&[1usize, 2, 4]);
            let (t, init) = match op {
                AccOp::Additive => ("int", "5"),
                AccOp::Max => ("int", "-1000000"),
                AccOp::Min => ("int", "1000000"),
                AccOp::UMin => ("unsigned int", "0xFFFFFFFFu"),
                AccOp::UMax => ("unsigned int", "0x7FFFFFFFu"),
                AccOp::And => ("unsigned int", "0xFFFFFFFFu"),
                _ => ("unsigned int", "3u"),
            };
            let accv = format!("acc{k}");
            self.line(&format!("std::vector<{t}> {accv}({alen}, {init});"));
            Some((accv, t, alen, op))
        } else {
            None
        };

        let dims_text = |g: &mut Self| -> Vec<String> { dims.iter().map(|&d| g.size(d)).collect() };
        self.line("{");
        self.ind += 1;
        let mut kvars = Vec::new();
        let mut by_ref = Vec::new();
        let mut kviews = Vec::new();
        for (j, (vec, t)) in inputs.iter().enumerate() {
            let name = format!("in{k}_{j}");
            let ds = dims_text(self).join(", ");
            if self.chance(5) {
                self.line(&format!(
                    "array<{}, {rank}> {name}({ds}, {vec}.begin(), {vec}.end());",
                    t.name()
                ));
                by_ref.push(name.clone());
            } else {
                let cst = if self.chance(4) { "" } else { "const " };
                self.line(&format!(
                    "array_view<{cst}{}, {rank}> {name}({ds}, {vec});",
                    t.name()
                ));
                kviews.push((name.clone(), *t, dims.clone()));
            }
            kvars.push(Var {
                name,
                kind: Kind::View(*t, dims.clone()),
                ro: true,
                counter: false,
                rg: None,
            });
        }
        let ds = dims_text(self).join(", ");
        // A kernel may leave elements unwritten (a condition, an early
        // return, a truncated tiling): then the view keeps its data.
        let conditional = tiling == "truncate" || self.chance(4);
        let repeat = if !tiled && out_struct.is_none() && self.chance(5) {
            self.range(2, 3)
        } else {
            1
        };
        // The kernel writes an array_view over the vector, or a
        // concurrency::array made from it and copied back afterwards.
        let array_out = out_struct.is_none() && self.chance(5);
        let view = if array_out {
            let arr = format!("ar{k}");
            self.line(&format!(
                "array<{elem_name}, {rank}> {arr}({ds}, {outv}.begin(), {outv}.end());"
            ));
            by_ref.push(arr.clone());
            arr
        } else {
            let view = format!("av{k}");
            self.line(&format!(
                "array_view<{elem_name}, {rank}> {view}({ds}, {outv});"
            ));
            view
        };
        let discard =
            !array_out && !conditional && repeat == 1 && out_struct.is_none() && self.chance(3);
        if discard {
            self.line(&format!("{view}.discard_data();"));
        }
        if let Some((accv, t, alen, op)) = &acc {
            self.line(&format!("array_view<{t}, 1> {accv}_v({alen}, {accv});"));
            self.acc = Some(Acc {
                view: format!("{accv}_v"),
                len: *alen,
                op: *op,
            });
        }

        // The domain and the index.
        let extent = if self.chance(2) {
            format!("{view}.extent")
        } else if self.chance(2) {
            format!("{view}.get_extent()")
        } else {
            format!("extent<{rank}>({ds})")
        };
        let tile_args: Vec<String> = tile.iter().map(|&t| self.size(t)).collect();
        let tile_args = tile_args.join(", ");
        let capture = if by_ref.is_empty() {
            "[=]".to_string()
        } else {
            let refs: Vec<String> = by_ref.iter().map(|n| format!("&{n}")).collect();
            format!("[=, {}]", refs.join(", "))
        };
        let (domain, param) = if tiled {
            let tail = if tiling.is_empty() {
                String::new()
            } else {
                format!(".{tiling}()")
            };
            (
                format!("{extent}.tile<{tile_args}>(){tail}"),
                format!("tiled_index<{tile_args}> t"),
            )
        } else {
            (extent, format!("index<{rank}> idx"))
        };
        let rep_var = if repeat > 1 {
            let rep = self.fresh("rep");
            self.line(&format!(
                "for (int {rep} = 0; {rep} < {repeat}; {rep}++) {{"
            ));
            self.ind += 1;
            Some(Var::fixed(rep, Sc::Int, Rg::I(0, repeat as i128 - 1)))
        } else {
            None
        };
        self.line(&format!(
            "parallel_for_each({domain}, {capture}({param}) restrict(amp) {{"
        ));
        self.ind += 1;

        // The kernel's scope: captured host variables, read-only.
        let mut captured = Vec::new();
        for v in self.visible_from(1).iter().chain(rep_var.iter()) {
            let ok = match &v.kind {
                Kind::Sc(_) if v.name.contains('.') => false,
                Kind::Sc(t) => *t != Sc::Char,
                Kind::St(id) => self.structs[*id].amp,
                Kind::Arr(t, _) => *t != Sc::Char && *t != Sc::Bool,
                _ => false,
            };
            if ok {
                let mut c = v.clone();
                c.ro = true;
                c.counter = false;
                captured.push(c);
            }
        }
        let padded = tiling == "pad";
        let mut ivars = kvars;
        if tiled {
            for (d, (&n, &t)) in dims.iter().zip(&tile).enumerate() {
                // The range the tiling runs over: padded up, or truncated down.
                let n = match tiling {
                    "pad" => n.div_ceil(t) * t,
                    "truncate" => n / t * t,
                    _ => n,
                };
                let ni = n as i128;
                let ti = t as i128;
                ivars.push(Var::fixed(
                    format!("t.global[{d}]"),
                    Sc::Int,
                    Rg::I(0, ni - 1),
                ));
                ivars.push(Var::fixed(
                    format!("t.local[{d}]"),
                    Sc::Int,
                    Rg::I(0, ti - 1),
                ));
                ivars.push(Var::fixed(
                    format!("t.tile[{d}]"),
                    Sc::Int,
                    Rg::I(0, ni / ti - 1),
                ));
                ivars.push(Var::fixed(
                    format!("t.tile_origin[{d}]"),
                    Sc::Int,
                    Rg::I(0, ni - ti),
                ));
                ivars.push(Var::fixed(
                    format!("t.tile_extent[{d}]"),
                    Sc::Int,
                    Rg::I(ti, ti),
                ));
            }
            self.kidx = if padded {
                Vec::new()
            } else {
                vec!["t.global".into(), "t".into()]
            };
        } else {
            for (d, &n) in dims.iter().enumerate() {
                ivars.push(Var::fixed(
                    format!("idx[{d}]"),
                    Sc::Int,
                    Rg::I(0, n as i128 - 1),
                ));
            }
            self.kidx = vec!["idx".into()];
        }
        let target = if tiled {
            if padded || self.chance(2) {
                format!("{view}[t.global]")
            } else {
                format!("{view}[t]")
            }
        } else if rank >= 2 && self.chance(3) {
            let parts: Vec<String> = (0..rank).map(|d| format!("idx[{d}]")).collect();
            if self.chance(2) {
                format!("{view}({})", parts.join(", "))
            } else {
                format!("{view}[{}]", parts.join("]["))
            }
        } else {
            format!("{view}[idx]")
        };
        if !discard && !padded && out_struct.is_none() {
            // The work-item's own output element: read, written, passed by
            // reference, before the final write.
            ivars.push(Var::new(target.clone(), Kind::Sc(elem)));
        }
        self.kdims = dims.clone();
        self.kviews = kviews;
        self.kernel_return = !tiled && !discard;
        // A host variable hides a global of its name, captured or not.
        let host_names: Vec<String> = self.visible_from(1).into_iter().map(|v| v.name).collect();
        let globals: Vec<Var> = self
            .amp_globals()
            .into_iter()
            .filter(|g| !host_names.contains(&g.name))
            .collect();
        let kscopes = vec![globals, captured, ivars];
        let saved_scopes = std::mem::replace(&mut self.scopes, kscopes);
        let saved_callable = std::mem::replace(
            &mut self.callable,
            (0..self.funcs.len())
                .filter(|&i| self.funcs[i].amp)
                .collect(),
        );
        self.amp = true;
        let saved_declared = std::mem::take(&mut self.declared);
        self.budget = self.range(3, 10);
        if self.chance(2) {
            self.counter();
        }
        let n = self.range(1, 4);
        self.stmts(n, 2);
        if tiled {
            self.tile_phases(&tile);
        }
        // The output write.
        self.begin();
        let mut writes = Vec::new();
        match out_struct {
            Some(id) => {
                let whole = self.struct_vars(id, false);
                if !whole.is_empty() && self.chance(2) {
                    let v = self.rng.pick(&whole).clone();
                    writes.push(format!("{target} = {v};"));
                }
                let paths = self.struct_paths(id);
                let k = self.range(1, 3);
                for _ in 0..k {
                    let (steps, t) = self.rng.pick(&paths).clone();
                    let place = self.render(&target, &steps);
                    self.begin();
                    let e = self.digest(t);
                    writes.push(format!("{place} = {};", e.t));
                }
            }
            None => {
                let e = self.digest(elem);
                writes.push(format!("{target} = {};", e.t));
            }
        }
        if padded {
            let ix = "t.global";
            self.line(&format!("if ({view}.extent.contains({ix})) {{"));
            for w in &writes {
                self.line(&format!("    {w}"));
            }
            self.line("}");
        } else if conditional {
            let c = self.ex(2);
            self.line(&format!("if ({}) {{", c.t));
            for w in &writes {
                self.line(&format!("    {w}"));
            }
            self.line("}");
        } else {
            for w in &writes {
                self.line(w);
            }
        }
        if self.kernel_return && self.chance(4) {
            // Statements after an early return.
            self.begin();
            let c = self.ex(2);
            self.line(&format!("if ({}) return;", c.t));
            self.budget = 2;
            self.stmts(1, 1);
        }
        self.ind -= 1;
        self.line("});");
        if rep_var.is_some() {
            self.ind -= 1;
            self.line("}");
        }
        self.scopes = saved_scopes;
        self.callable = saved_callable;
        self.declared = saved_declared;
        self.amp = false;
        self.acc = None;
        self.kidx.clear();
        self.kdims.clear();
        self.kviews.clear();
        self.kernel_return = false;

        // Back to the host: synchronize, copy out, read through the view, or
        // let the view's destruction write the data back.
        let how = if out_struct.is_some() {
            0
        } else if array_out {
            10 + self.rng.below(2)
        } else {
            self.rng.below(6)
        };
        match how {
            10 => self.line(&format!("copy({view}, {outv}.begin());")),
            11 => self.line(&format!("{outv} = {view};")),
            1 => {
                self.line(&format!("copy({view}, {outv}.begin());"));
            }
            2 => {
                let cout = self.cout();
                self.line(&format!("{cout} << \"{view}:\";"));
                let i = self.fresh("i");
                self.line(&format!("for (int {i} = 0; {i} < {len}; {i}++) {{"));
                let read = match rank {
                    1 => format!("{view}[{i}]"),
                    2 => format!("{view}({i} / {c}, {i} % {c})", c = dims[1]),
                    _ => format!(
                        "{view}({i} / {cd}, {i} / {d} % {c}, {i} % {d})",
                        cd = dims[1] * dims[2],
                        c = dims[1],
                        d = dims[2]
                    ),
                };
                self.line(&format!("    {cout} << \" \" << {read};"));
                self.line("}");
                self.line(&format!("{cout} << \"\\n\";"));
            }
            3 => {}
            _ => self.line(&format!("{view}.synchronize();")),
        }
        if let Some((accv, ..)) = &acc {
            self.line(&format!("{accv}_v.synchronize();"));
        }
        self.ind -= 1;
        self.line("}");

        // Print the results.
        match out_struct {
            Some(id) => {
                self.print_struct_vector(&outv, id, len);
                self.push_var(Var::new(outv, Kind::StVector(id, len)));
            }
            None => {
                self.print_vector(&outv, elem, len);
                self.push_var(Var::new(outv, Kind::Vector(elem, len)));
            }
        }
        if let Some((accv, t, alen, _)) = &acc {
            let et = if *t == "int" { Sc::Int } else { Sc::UInt };
            self.print_vector(accv, et, *alen);
        }
    }

    /// Every scalar inside a struct of type `id`, as suffixes of a value of
    /// it (`.m0`, `.m1[2]`, `.m2.m0`).
    fn struct_leaves(&self, id: usize) -> Vec<(String, Sc)> {
        let mut all = Vec::new();
        for (name, f) in &self.structs[id].fields {
            match f {
                FKind::Sc(t) => all.push((format!(".{name}"), *t)),
                FKind::Arr(t, n) => {
                    for i in 0..*n {
                        all.push((format!(".{name}[{i}]"), *t));
                    }
                }
                FKind::St(j) => {
                    for (rest, t) in self.struct_leaves(*j) {
                        all.push((format!(".{name}{rest}"), t));
                    }
                }
            }
        }
        all
    }

    fn print_struct_vector(&mut self, name: &str, id: usize, len: usize) {
        let cout = self.cout();
        let leaves = self.struct_leaves(id);
        self.line(&format!("{cout} << \"{name}:\";"));
        let i = self.fresh("i");
        self.line(&format!("for (int {i} = 0; {i} < {len}; {i}++) {{"));
        let mut parts = Vec::new();
        for (suffix, _) in &leaves {
            parts.push(format!("{name}[{i}]{suffix}"));
        }
        self.line(&format!(
            "    {cout} << \" {{\" << {} << \"}}\";",
            parts.join(" << ',' << ")
        ));
        self.line("}");
        self.line(&format!("{cout} << \"\\n\";"));
    }

    fn print_vector(&mut self, name: &str, t: Sc, len: usize) {
        let cout = self.cout();
        if t.float() {
            match self.rng.below(4) {
                0 => {
                    let p = self.range(1, 9);
                    self.line(&format!("{cout} << std::setprecision({p});"));
                }
                1 => {
                    let p = self.range(0, 6);
                    self.line(&format!("{cout} << std::fixed << std::setprecision({p});"));
                }
                _ => {}
            }
        }
        self.line(&format!("{cout} << \"{name}:\";"));
        if self.chance(2) {
            let x = self.fresh("x");
            let spelled = if self.chance(2) { "auto" } else { t.name() };
            self.line(&format!("for ({spelled} {x} : {name}) {{"));
            self.line(&format!("    {cout} << ' ' << {x};"));
        } else {
            let i = self.fresh("i");
            let lens = self.size(len);
            self.line(&format!("for (int {i} = 0; {i} < {lens}; {i}++) {{"));
            self.line(&format!("    {cout} << \" \" << {name}[{i}];"));
        }
        self.line("}");
        self.line(&format!(
            "{cout} << std::defaultfloat << std::setprecision(6) << \"\\n\";"
        ));
    }

    /// The `tile_static` phases of a tiled kernel: each work-item writes its
    /// own element, a barrier, then anyone's elements are read.
    /// A tree reduction over the `tile_static` array `name` of `n`
    /// elements (a power of two): in each step the lower half adds the
    /// upper half onto itself, then a barrier, inside a loop every
    /// work-item of the tile runs the same number of times. No element is
    /// written by one work-item and touched by another in the same step.
    fn tree_reduction(&mut self, name: &str, t: Sc, n: usize) {
        let st = self.fresh("st");
        let header = match self.rng.below(3) {
            0 => format!("for (int {st} = {} / 2; {st} > 0; {st} /= 2)", n),
            1 => format!("for (int {st} = {}; {st} >= 1; {st} >>= 1)", n / 2),
            _ => format!(
                "for (unsigned int {st} = {}u; {st} != 0u; {st} = {st} / 2u)",
                n / 2
            ),
        };
        self.line(&format!("{header} {{"));
        let own = format!("{name}[t.local[0]]");
        let other = format!("{name}[t.local[0] + {st}]");
        let sum = Ex {
            t: format!("{own} + {other}"),
            ty: t.promote(),
            rg: match inv(t) {
                Rg::I(lo, hi) if t == Sc::UInt => Rg::I(0, 2 * hi.max(lo)),
                Rg::I(lo, hi) => Rg::I(2 * lo, 2 * hi),
                Rg::F(lo, hi) => widen(2.0 * lo, 2.0 * hi, t),
            },
            prec: P_ADD,
            pure: true,
        };
        // `unsigned int` sums wrap; the others are brought back into range.
        let sum = if t == Sc::UInt {
            Ex {
                ty: Sc::UInt,
                rg: full(Sc::UInt),
                ..sum
            }
        } else {
            self.fit(sum, t)
        };
        self.line(&format!("    if (t.local[0] < {st}) {{"));
        self.line(&format!("        {own} = {};", sum.t));
        self.line("    }");
        self.line("    t.barrier.wait();");
        self.line("}");
    }

    fn tile_phases(&mut self, tile: &[usize]) {
        let t = *self.rng.pick(&[Sc::Int, Sc::Float, Sc::UInt, Sc::Double]);
        let name = self.fresh("sh");
        let dims: String = tile.iter().map(|n| format!("[{n}]")).collect();
        let own: String = (0..tile.len()).map(|d| format!("[t.local[{d}]]")).collect();
        self.line(&format!("tile_static {} {name}{dims};", t.name()));
        let phases = self.range(1, 2);
        for phase in 0..phases {
            if phase > 0 {
                self.line("t.barrier.wait();");
            }
            self.begin();
            let e = self.ex(3);
            let e = self.fit_loose(e, t);
            self.line(&format!("{name}{own} = {};", e.t));
            let wait = *self.rng.pick(&[
                "t.barrier.wait();",
                "t.barrier.wait();",
                "t.barrier.wait_with_tile_static_memory_fence();",
                "t.barrier.wait_with_all_memory_fence();",
            ]);
            self.line(wait);
            if tile.len() == 1 && tile[0].is_power_of_two() && tile[0] > 1 && self.chance(3) {
                self.tree_reduction(&name, t, tile[0]);
            }
            // Readable after the barrier (the phase's declarations share
            // the kernel's block), until another phase rewrites it.
            self.push_var(Var {
                name: name.clone(),
                kind: Kind::Arr(t, tile.to_vec()),
                ro: true,
                counter: false,
                rg: None,
            });
            self.budget += 3;
            let n = self.range(1, 3);
            self.stmts(n, 2);
            if phase + 1 < phases
                && let Some(last) = self.scopes.last_mut()
            {
                last.retain(|v| v.name != name);
            }
        }
    }
}
