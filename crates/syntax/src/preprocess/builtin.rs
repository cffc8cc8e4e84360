//! The macros the C headers define: `<climits>`'s `INT_MAX`, `<cfloat>`'s
//! `FLT_EPSILON`, `<cstdlib>`'s `RAND_MAX` and `EXIT_FAILURE`. C defines
//! them as macros, so they are macros here too: usable in `#if`, in amp
//! code and in constant expressions, and visible only after their header is
//! included. Values are those of g++ and glibc on x86-64 Linux (LP64).

use super::{BodyTok, Macro, MacroTable};
use crate::token::Tok;
use logos::Logos;
use std::sync::Arc;
use tessera_diagnostics::Span;

/// `<climits>` / `<limits.h>`.
const LIMITS: &[(&str, &str)] = &[
    ("CHAR_BIT", "8"),
    ("SCHAR_MIN", "(-128)"),
    ("SCHAR_MAX", "127"),
    ("UCHAR_MAX", "255"),
    ("CHAR_MIN", "(-128)"),
    ("CHAR_MAX", "127"),
    ("SHRT_MIN", "(-32768)"),
    ("SHRT_MAX", "32767"),
    ("USHRT_MAX", "65535"),
    ("INT_MIN", "(-2147483647 - 1)"),
    ("INT_MAX", "2147483647"),
    ("UINT_MAX", "4294967295U"),
    ("LONG_MIN", "(-9223372036854775807L - 1L)"),
    ("LONG_MAX", "9223372036854775807L"),
    ("ULONG_MAX", "18446744073709551615UL"),
    ("LLONG_MIN", "(-9223372036854775807LL - 1LL)"),
    ("LLONG_MAX", "9223372036854775807LL"),
    ("ULLONG_MAX", "18446744073709551615ULL"),
];

/// `<cfloat>` / `<float.h>`.
const FLOATS: &[(&str, &str)] = &[
    ("FLT_RADIX", "2"),
    ("FLT_MANT_DIG", "24"),
    ("DBL_MANT_DIG", "53"),
    ("FLT_DIG", "6"),
    ("DBL_DIG", "15"),
    ("FLT_MIN_EXP", "(-125)"),
    ("DBL_MIN_EXP", "(-1021)"),
    ("FLT_MIN_10_EXP", "(-37)"),
    ("DBL_MIN_10_EXP", "(-307)"),
    ("FLT_MAX_EXP", "128"),
    ("DBL_MAX_EXP", "1024"),
    ("FLT_MAX_10_EXP", "38"),
    ("DBL_MAX_10_EXP", "308"),
    ("FLT_MAX", "3.40282346638528859811704183484516925e+38F"),
    ("DBL_MAX", "1.79769313486231570814527423731704357e+308"),
    ("FLT_MIN", "1.17549435082228750796873653722224568e-38F"),
    ("DBL_MIN", "2.22507385850720138309023271733240406e-308"),
    ("FLT_EPSILON", "1.19209289550781250000000000000000000e-7F"),
    ("DBL_EPSILON", "2.22044604925031308084726333618164062e-16"),
    ("FLT_TRUE_MIN", "1.40129846432481707092372958328991613e-45F"),
    ("DBL_TRUE_MIN", "4.94065645841246544176568792868221372e-324"),
    ("FLT_DECIMAL_DIG", "9"),
    ("DBL_DECIMAL_DIG", "17"),
];

/// `<cstdlib>` / `<stdlib.h>`.
const STDLIB: &[(&str, &str)] = &[
    ("RAND_MAX", "2147483647"),
    ("EXIT_SUCCESS", "0"),
    ("EXIT_FAILURE", "1"),
    ("NULL", "0"),
];

/// `<ctime>` / `<time.h>`: glibc's `CLOCKS_PER_SEC`, a `clock_t` (`long`),
/// and `NULL` for `time(NULL)`.
const TIME: &[(&str, &str)] = &[("CLOCKS_PER_SEC", "((long)1000000)"), ("NULL", "0")];

/// `NULL`, which `<cstddef>`, `<cstdio>` and `<cstring>` define too: a null
/// pointer constant (`0`, as MSVC defines it).
const NULL_ONLY: &[(&str, &str)] = &[("NULL", "0")];

/// The macros `header` defines.
fn of(header: &str) -> &'static [(&'static str, &'static str)] {
    match header {
        "climits" | "limits.h" => LIMITS,
        "cfloat" | "float.h" => FLOATS,
        "cstdlib" | "stdlib.h" => STDLIB,
        "ctime" | "time.h" => TIME,
        "cstddef" | "stddef.h" | "cstdio" | "stdio.h" | "cstring" | "string.h" => NULL_ONLY,
        _ => &[],
    }
}

/// Every name a C header defines as a macro, with the header (for "include
/// `<climits>`" hints).
pub fn header_of(name: &str) -> Option<&'static str> {
    [
        ("climits", LIMITS),
        ("cfloat", FLOATS),
        ("cstdlib", STDLIB),
        ("ctime", TIME),
    ]
    .into_iter()
    .find(|(_, table)| table.iter().any(|(n, _)| *n == name))
    .map(|(h, _)| h)
}

/// Defines the macros of `header`, included at `span`. A program's own
/// definition of one of the names is kept (it came first; C would report a
/// redefinition).
pub(super) fn define(macros: &mut MacroTable<'_>, header: &str, span: Span) {
    // With `NDEBUG` defined before the include, `assert(e)` is `((void)0)`,
    // as `<assert.h>` makes it; without, it is the library's function.
    if matches!(header, "cassert" | "assert.h") && macros.is_defined("NDEBUG") {
        let body = Tok::lexer("((void)0)")
            .filter_map(Result::ok)
            .map(BodyTok::Tok)
            .collect();
        macros.defs.insert(
            "assert",
            Arc::new(Macro {
                params: Some(vec!["e"]),
                variadic: false,
                used: vec![false],
                raw_used: vec![false],
                body,
                def: span,
            }),
        );
    }
    for &(name, body) in of(header) {
        if macros.defs.contains_key(name) {
            continue;
        }
        let body: Vec<BodyTok<'_>> = Tok::lexer(body)
            .filter_map(Result::ok)
            .map(BodyTok::Tok)
            .collect();
        macros.defs.insert(
            name,
            Arc::new(Macro {
                params: None,
                variadic: false,
                used: Vec::new(),
                raw_used: Vec::new(),
                body,
                def: span,
            }),
        );
    }
}
