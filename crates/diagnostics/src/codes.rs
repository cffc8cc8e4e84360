//! The registry of diagnostic codes.
//!
//! Codes are stable: once released, a code keeps its meaning forever and is
//! never reused. They are grouped by the phase that reports them:
//!
//! | range | phase |
//! | --- | --- |
//! | `E0001`-`E0049` | lexing (characters, literals, comments) |
//! | `E0050`-`E0099` | preprocessing (`#include`, `#define`, `#if`) |
//! | `E0100`-`E0199` | parsing |
//! | `E0200`-`E0299` | names and types |
//! | `E0300`-`E0399` | what `restrict(amp)` code may contain and capture |
//! | `E0400`-`E0499` | tiles, `tile_static` and barriers |
//! | `R0001`-`R0099` | run-time errors (a run stops) |
//! | `R0100`-`R0199` | `tessera run --check` findings (the run goes on) |
//!
//! Every code has a page `docs/errors/CODE.md`, embedded here so that
//! `tessera explain CODE` works from an installed binary. Warnings use `W`
//! with the same ranges. A code of a C++ AMP rule names the MSVC error it
//! stands for, so that Microsoft's conformance suite, whose compile-fail
//! tests expect MSVC codes, can be scored mechanically.

use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// A stable diagnostic code such as `E0101`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Code(&'static str);

impl Code {
    /// The code as text, e.g. `"E0101"`.
    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// The registry entry of this code.
    pub fn info(self) -> Option<&'static CodeInfo> {
        REGISTRY.iter().find(|info| info.code == self)
    }
}

/// A code is read back (from a record of a checked program kept between
/// runs) as the registered code of that text: an unknown one is an error,
/// so a record from another build of the registry is not taken.
impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        REGISTRY
            .iter()
            .map(|info| info.code)
            .find(|code| code.0 == text)
            .ok_or_else(|| {
                serde::de::Error::custom(format_args!("unknown diagnostic code `{text}`"))
            })
    }
}

/// The MSVC code `text` read back (see [`Code`]'s reading): the
/// registry's text when it has it, else `text` kept for the rest of the
/// process, as the checker's own literal would be.
pub(crate) fn static_msvc(text: String) -> &'static str {
    REGISTRY
        .iter()
        .filter_map(|info| info.msvc)
        .find(|msvc| *msvc == text)
        .unwrap_or_else(|| text.leak())
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The compiler phase a code belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Turning bytes into tokens.
    Lex,
    /// Directives and macro expansion.
    Preprocess,
    /// Turning tokens into a syntax tree.
    Parse,
    /// Names, types and the rules of C++ AMP.
    Check,
    /// Running a program: run-time errors and `--check` findings.
    Run,
}

/// What the registry knows of a code.
#[derive(Debug)]
pub struct CodeInfo {
    /// The code.
    pub code: Code,
    /// The phase that reports it.
    pub phase: Phase,
    /// A short title.
    pub title: &'static str,
    /// The Markdown page that `tessera explain` prints.
    pub explanation: &'static str,
    /// The MSVC error this code usually stands for (a diagnostic may name
    /// another, see [`crate::Diagnostic::msvc`]); `None` where MSVC has no
    /// single counterpart.
    pub msvc: Option<&'static str>,
}

/// Looks a code up by its text, case-insensitively (`e0101` finds `E0101`).
pub fn lookup(text: &str) -> Option<&'static CodeInfo> {
    REGISTRY
        .iter()
        .find(|info| info.code.0.eq_ignore_ascii_case(text.trim()))
}

macro_rules! registry {
    (@msvc) => { None };
    (@msvc $msvc:literal) => { Some($msvc) };
    ($($name:ident, $phase:ident, $title:literal $(, $msvc:literal)?;)*) => {
        $(
            #[doc = $title]
            pub const $name: Code = Code(stringify!($name));
        )*
        /// Every code, in order.
        pub static REGISTRY: &[CodeInfo] = &[
            $(CodeInfo {
                code: $name,
                phase: Phase::$phase,
                title: $title,
                explanation: include_str!(concat!("../../../docs/errors/", stringify!($name), ".md")),
                msvc: registry!(@msvc $($msvc)?),
            },)*
        ];
    };
}

registry! {
    E0001, Lex, "invalid character in source";
    E0002, Lex, "source is not valid UTF-8";
    E0003, Lex, "unterminated block comment";
    E0004, Lex, "unterminated string or character literal";
    E0005, Lex, "malformed number literal";
    E0006, Lex, "invalid escape sequence";
    E0007, Lex, "source file too large";
    W0050, Preprocess, "unknown header";
    E0051, Preprocess, "malformed preprocessor directive";
    E0052, Preprocess, "unterminated conditional block";
    E0053, Preprocess, "conditional directive without `#if`";
    E0054, Preprocess, "wrong number of macro arguments";
    E0055, Preprocess, "macro expansion too large";
    E0056, Preprocess, "invalid `#if` expression";
    E0057, Preprocess, "`#error` directive";
    W0058, Preprocess, "macro redefined with a different body";
    E0059, Preprocess, "header file not found";
    W0060, Preprocess, "header name differs in case from the file";
    E0061, Preprocess, "`#include` nested too deeply";
    E0100, Parse, "unexpected token";
    E0101, Parse, "expected `;`";
    E0102, Parse, "unclosed delimiter";
    E0103, Parse, "unexpected end of file";
    E0104, Parse, "nesting too deep";
    E0105, Parse, "invalid type specifiers";
    E0106, Parse, "unsupported C++ construct";
    E0107, Parse, "mismatched closing delimiter";
    W0108, Parse, "`register` storage class", "C5033";
    E0200, Check, "unknown name", "C2065";
    E0201, Check, "unknown type";
    E0202, Check, "name declared twice", "C2086";
    E0203, Check, "mismatched types", "C2440";
    E0204, Check, "not assignable", "C2106";
    E0205, Check, "write through a const view or to a const variable", "C3892";
    E0206, Check, "wrong number of arguments", "C2660";
    E0207, Check, "no such member", "C2039";
    E0208, Check, "not a function", "C2064";
    E0209, Check, "not a constant expression", "C2057";
    E0210, Check, "invalid operands";
    E0211, Check, "construct outside the Tessera language";
    E0212, Check, "wrong return", "C2561";
    E0213, Check, "invalid template arguments", "C2338";
    E0214, Check, "`break` or `continue` outside a loop", "C2043";
    E0215, Check, "integer constant out of range", "C3595";
    E0216, Check, "function declared but never defined";
    W0217, Check, "`void main()`";
    E0218, Check, "variable needs an initialiser";
    E0219, Check, "`static_assert` failed", "C2338";
    E0220, Check, "default argument given twice", "C2572";
    E0221, Check, "missing default argument", "C2548";
    E0222, Check, "invalid use of an enumeration";
    E0223, Check, "floating-point constant out of range", "C2177";
    E0224, Check, "`extern \"C\"` function overloaded", "C2733";
    E0225, Check, "`goto` skips an initialisation", "C2362";
    E0230, Check, "program without `main`";
    E0240, Check, "no overload accepts the arguments", "C2665";
    E0241, Check, "ambiguous call", "C2668";
    E0242, Check, "ambiguous name", "C2872";
    E0243, Check, "no such member in the namespace", "C2039";
    E0244, Check, "not a namespace", "C2653";
    E0250, Check, "member not accessible", "C2248";
    E0251, Check, "no default constructor", "C2512";
    E0252, Check, "non-const member function called on a const object", "C2662";
    E0253, Check, "member function not declared in its class", "C2511";
    E0254, Check, "union with a base class or used as one", "C2570";
    E0255, Check, "object of an abstract class", "C2259";
    E0256, Check, "override of a `final` function", "C3248";
    E0257, Check, "base class declared `final`", "C3246";
    E0258, Check, "`override` on a function that overrides nothing", "C3668";
    E0260, Check, "`printf` format does not match its arguments", "C4477";
    W0261, Check, "`printf` argument not used by the format", "C4474";
    E0300, Check, "host-only function called from amp code", "C3930";
    E0301, Check, "amp-only function called from host code", "C3930";
    E0302, Check, "type not allowed in amp code", "C3581";
    E0303, Check, "recursion in amp code", "C3559";
    E0304, Check, "statement not allowed in amp code";
    E0305, Check, "global or static variable used in amp code", "C3586";
    E0306, Check, "pointer not allowed", "C3581";
    E0307, Check, "capture by reference in a kernel", "C3590";
    E0308, Check, "`concurrency::array` captured by value", "C3597";
    E0309, Check, "captured variable of a type kernels cannot use", "C3596";
    E0310, Check, "`parallel_for_each` called from amp code", "C3930";
    E0311, Check, "invalid `restrict` specifier", "C3936";
    E0312, Check, "kernel signature does not fit `parallel_for_each`";
    E0313, Check, "`extern \"C\"` function with more than one restriction", "C3938";
    E0314, Check, "pointer or reference to an amp function", "C3939";
    W0315, Check, "kernel whose call operator is not `const`", "C4882";
    E0400, Check, "kernel index does not match the compute domain", "C3577";
    E0401, Check, "illegal tile extents", "C3574";
    E0402, Check, "`tile_static` outside an amp-only function", "C3584";
    E0403, Check, "`tile_static` variable with an initialiser", "C3584";
    E0404, Check, "`tile_static` variable of a type that cannot be shared", "C3584";
    E0405, Check, "too much `tile_static` memory", "C3565";
    E0406, Check, "`tile_static` used by a non-tiled kernel", "C3600";
    E0407, Check, "barrier outside a tiled kernel", "C2039";
    E0408, Check, "barrier in divergent control flow", "C3561";
    E0409, Check, "early exit before a barrier", "C3561";
    E0410, Check, "atomic operation on an invalid location";
    W0411, Check, "every work-item of a tile writes the same `tile_static` location";
    W0412, Check, "`tile_static` read before any write";
    W0413, Check, "`tile_static` data shared without a barrier";
    R0001, Run, "index out of bounds";
    R0002, Run, "integer division by zero";
    R0003, Run, "signed integer overflow";
    R0004, Run, "shift count out of range";
    R0005, Run, "floating-point value out of range of an integer type";
    R0006, Run, "invalid compute domain";
    R0007, Run, "invalid argument to a library operation";
    R0008, Run, "barrier divergence";
    R0009, Run, "time limit exceeded";
    R0010, Run, "memory limit exceeded";
    R0011, Run, "call stack too deep";
    R0012, Run, "interrupted";
    R0013, Run, "null pointer dereferenced";
    R0014, Run, "dangling pointer";
    R0015, Run, "invalid `delete`";
    R0016, Run, "read of a union member that is not the active one";
    R0020, Run, "assertion failed";
    R0021, Run, "`abort` called";
    R0022, Run, "exception not caught";
    R0023, Run, "`throw;` with no exception being handled";
    R0024, Run, "memory read as a type its bytes do not make";
    R0025, Run, "pure virtual function called";
    R0026, Run, "downcast of an object that is not of the derived class";
    R0027, Run, "function ended without returning a value";
    R0100, Run, "data race";
    R0101, Run, "read of uninitialised `tile_static` memory";
    R0102, Run, "host access to data a kernel changed without `synchronize()`";
    R0103, Run, "read of data dropped by `discard_data()`";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_starts_with_its_code_and_title() {
        for info in REGISTRY {
            let first = info.explanation.lines().next().unwrap_or("");
            let expected = format!("# {}: {}", info.code, info.title);
            assert_eq!(first, expected, "docs/errors/{}.md", info.code);
            for section in ["\n## Example\n", "\n## Fix\n", "```amp\n"] {
                assert!(
                    info.explanation.contains(section),
                    "docs/errors/{}.md lacks {section:?}",
                    info.code
                );
            }
        }
    }

    #[test]
    fn lookup_ignores_case() {
        assert_eq!(lookup("e0101").map(|info| info.code), Some(E0101));
        assert!(lookup("E9999").is_none());
    }
}
