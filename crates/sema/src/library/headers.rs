//! Which library names a unit's `#include`s declare.
//!
//! C++ declares a library name only after an `#include` of a header that
//! declares it, or of one that includes such a header. Tessera knows the
//! library's names without reading headers, so it keeps two tables: where
//! each name is declared ([`DECLARED`]), and what each standard header
//! brings with it ([`BRINGS`]). A program Tessera accepts must compile as
//! C++ AMP, whose library is MSVC's; a standard header brings another only
//! where libstdc++'s includes it too, so that a program of standard C++
//! compiles with both: `<iostream>` brings `<ostream>` and `<ios>`, but
//! not `<string>` (libstdc++'s does, MSVC's does not). `<amp.h>` brings
//! what MSVC's brings: `<vector>`, `<algorithm>` and `<future>`, but not
//! `<iostream>`.
//!
//! The tables cover the names the library resolves; a name in neither is
//! left to the rest of the checker, which reports it if it is unknown.

use super::{Ns, namespace};
use crate::cx::Checker;
use tessera_diagnostics::{Diagnostic, codes};
use tessera_syntax::ast;

/// The standard headers each standard header includes, directly or through
/// the headers it includes, in both MSVC's library (Visual C++ 2015) and
/// libstdc++ 12: found by following the `#include`s of the two libraries'
/// header files, and kept only where both include the header, so that a
/// program Tessera accepts compiles with either. Only the headers
/// [`DECLARED`] names, and those `#include` accepts, are listed. The C++
/// AMP headers (`<amp.h>`, `<amp_math.h>`, `<amp_graphics.h>`,
/// `<amp_short_vectors.h>`, `<ppl.h>`, `<ppltasks.h>`) are MSVC's alone,
/// whose library decides them: C++ AMP is what it declares (the oracle's
/// `amp.h`, an emulation, includes more in places and less in others).
#[rustfmt::skip]
const BRINGS: &[(&str, &[&str])] = &[
    ("amp.h", &[
        "algorithm", "cfloat", "chrono", "climits", "cmath", "cstddef", "cstdint", "cstdio",
        "cstdlib", "cstring", "ctype.h", "exception", "float.h", "functional", "future", "ios",
        "istream", "iterator", "limits", "limits.h", "list", "math.h", "memory", "ostream",
        "ppltasks.h", "set", "stddef.h", "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "string",
        "string.h", "time.h", "tuple", "type_traits", "typeinfo", "unordered_set", "utility",
        "vector",
    ]),
    ("amp_math.h", &[
        "algorithm", "amp.h", "cfloat", "chrono", "climits", "cmath", "cstddef", "cstdint",
        "cstdio", "cstdlib", "cstring", "ctype.h", "exception", "float.h", "functional", "future",
        "ios", "istream", "iterator", "limits", "limits.h", "list", "math.h", "memory", "ostream",
        "ppltasks.h", "set", "stddef.h", "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "string",
        "string.h", "time.h", "tuple", "type_traits", "typeinfo", "unordered_set", "utility",
        "vector",
    ]),
    ("amp_graphics.h", &[
        "algorithm", "amp.h", "amp_short_vectors.h", "array", "cfloat", "chrono", "climits",
        "cmath", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctype.h", "exception",
        "float.h", "functional", "future", "ios", "istream", "iterator", "limits", "limits.h",
        "list", "math.h", "memory", "ostream", "ppltasks.h", "set", "sstream", "stddef.h",
        "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "string", "string.h", "time.h", "tuple",
        "type_traits", "typeinfo", "unordered_set", "utility", "vector",
    ]),
    ("amp_short_vectors.h", &[
        "algorithm", "amp.h", "cfloat", "chrono", "climits", "cmath", "cstddef", "cstdint",
        "cstdio", "cstdlib", "cstring", "ctype.h", "exception", "float.h", "functional", "future",
        "ios", "istream", "iterator", "limits", "limits.h", "list", "math.h", "memory", "ostream",
        "ppltasks.h", "set", "stddef.h", "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "string",
        "string.h", "time.h", "tuple", "type_traits", "typeinfo", "unordered_set", "utility",
        "vector",
    ]),
    ("ppl.h", &[
        "algorithm", "cfloat", "chrono", "climits", "cmath", "cstddef", "cstdint", "cstdio",
        "cstdlib", "cstring", "ctype.h", "exception", "float.h", "functional", "ios", "istream",
        "iterator", "limits", "limits.h", "math.h", "memory", "ostream", "stddef.h", "stdexcept",
        "stdint.h", "stdio.h", "stdlib.h", "string.h", "time.h", "tuple", "type_traits", "typeinfo",
        "utility",
    ]),
    ("ppltasks.h", &[
        "algorithm", "cfloat", "chrono", "climits", "cmath", "cstddef", "cstdint", "cstdio",
        "cstdlib", "cstring", "exception", "float.h", "functional", "limits", "limits.h", "math.h",
        "memory", "stddef.h", "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "string.h", "time.h",
        "tuple", "type_traits", "typeinfo", "utility", "vector",
    ]),
    ("iostream", &[
        "cstdint", "cstdio", "cstdlib", "ctype.h", "exception", "ios", "istream", "ostream",
        "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "type_traits", "typeinfo",
    ]),
    ("iomanip", &[
        "cstdint", "cstdio", "cstdlib", "ctime", "ctype.h", "exception", "ios", "istream",
        "ostream", "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "time.h", "type_traits",
        "typeinfo",
    ]),
    ("vector", &["type_traits"]),
    ("cmath", &["math.h", "stdlib.h"]),
    ("math.h", &[]),
    ("cstdlib", &["stdlib.h"]),
    ("stdlib.h", &[]),
    ("cstdio", &["stdio.h"]),
    ("stdio.h", &[]),
    ("cassert", &["assert.h"]),
    ("assert.h", &[]),
    ("climits", &["limits.h"]),
    ("limits.h", &[]),
    ("cfloat", &[]),
    ("float.h", &[]),
    ("limits", &[]),
    ("cstring", &["string.h"]),
    ("string.h", &[]),
    ("cctype", &["ctype.h"]),
    ("ctype.h", &[]),
    ("ctime", &["time.h"]),
    ("time.h", &[]),
    ("cstdint", &["stdint.h"]),
    ("stdint.h", &[]),
    ("cstddef", &[]),
    ("stddef.h", &[]),
    ("algorithm", &["cstdlib", "stdlib.h", "type_traits"]),
    ("numeric", &["type_traits"]),
    ("random", &[
        "cmath", "cstdint", "cstdio", "cstdlib", "ctype.h", "limits", "math.h", "stdint.h",
        "stdio.h", "stdlib.h", "type_traits", "vector",
    ]),
    ("chrono", &[
        "cstdio", "cstdlib", "limits", "stdint.h", "stdio.h", "stdlib.h", "time.h", "type_traits",
    ]),
    ("string", &[
        "cstdint", "cstdio", "cstdlib", "ctype.h", "stdint.h", "stdio.h", "stdlib.h", "type_traits",
    ]),
    ("sstream", &[
        "cstdint", "cstdio", "cstdlib", "ctype.h", "exception", "ios", "istream", "ostream",
        "stdexcept", "stdint.h", "stdio.h", "stdlib.h", "string", "type_traits", "typeinfo",
    ]),
    ("array", &["type_traits"]),
    ("utility", &["type_traits"]),
    ("functional", &["cstdlib", "stdlib.h", "tuple", "type_traits", "typeinfo"]),
    ("memory", &[
        "climits", "cstdint", "cstdio", "cstdlib", "exception", "limits.h", "stdint.h", "stdio.h",
        "stdlib.h", "type_traits", "typeinfo",
    ]),
    ("iterator", &[
        "cstdint", "cstdio", "cstdlib", "ctype.h", "exception", "stdexcept", "stdint.h", "stdio.h",
        "stdlib.h", "type_traits", "typeinfo",
    ]),
    ("ostream", &[
        "cstdint", "cstdio", "cstdlib", "ctype.h", "exception", "ios", "stdexcept", "stdint.h",
        "stdio.h", "stdlib.h", "type_traits", "typeinfo",
    ]),
    ("tuple", &["type_traits"]),
    ("future", &[
        "climits", "cstdint", "cstdio", "cstdlib", "exception", "limits", "limits.h", "stdexcept",
        "stdint.h", "stdio.h", "stdlib.h", "time.h", "tuple", "type_traits", "typeinfo",
    ]),
    ("type_traits", &[]),
    ("typeinfo", &[]),
    ("exception", &["type_traits"]),
    ("stdexcept", &[
        "cstdint", "cstdio", "cstdlib", "exception", "stdint.h", "stdio.h", "stdlib.h",
        "type_traits",
    ]),
    ("set", &["type_traits"]),
    ("unordered_set", &["type_traits"]),
    ("list", &["type_traits"]),
    ("deque", &["type_traits"]),
    ("queue", &["deque", "type_traits", "vector"]),
    ("ios", &[
        "cstdint", "cstdio", "cstdlib", "ctype.h", "exception", "stdexcept", "stdint.h", "stdio.h",
        "stdlib.h", "type_traits", "typeinfo",
    ]),
    ("istream", &[
        "cstdint", "cstdio", "cstdlib", "ctype.h", "exception", "ios", "ostream", "stdexcept",
        "stdint.h", "stdio.h", "stdlib.h", "type_traits", "typeinfo",
    ]),
];

/// Where the library's names in `std` (and the C library's global ones)
/// are declared: each group's headers, then its names. A name declared in
/// several headers is in several groups. Math functions are found in the
/// math module's table instead (see [`headers_of`]).
#[rustfmt::skip]
const DECLARED: &[(&[&str], &[&str])] = &[
    (&["iostream"], &["cout", "cerr", "clog", "cin", "wcout", "wcerr", "wclog", "wcin"]),
    (&["ostream"], &["endl", "ends", "flush"]),
    (
        &["ios"],
        &[
            "boolalpha", "noboolalpha", "dec", "hex", "oct", "fixed", "scientific", "hexfloat",
            "defaultfloat", "left", "right", "internal", "showbase", "noshowbase", "showpoint",
            "noshowpoint", "showpos", "noshowpos", "uppercase", "nouppercase", "ios", "ios_base",
            "streamsize", "ostream", "istream", "wostream", "wistream",
        ],
    ),
    (&["iomanip"], &["setprecision", "setw", "setfill", "setiosflags", "resetiosflags"]),
    (
        &["cstdio", "stdio.h"],
        &[
            "printf", "fprintf", "sprintf", "snprintf", "puts", "putchar", "putc", "fputc", "fputs",
            "fflush", "getchar", "stdout", "stderr", "scanf",
        ],
    ),
    (
        &["cstdlib", "stdlib.h"],
        &["rand", "srand", "exit", "abort", "abs", "malloc", "free", "atoi", "atof"],
    ),
    (&["ctime", "time.h"], &["clock", "time", "difftime", "clock_t", "time_t"]),
    (&["cstring", "string.h"], &["strlen", "strcmp", "strncmp", "strcpy", "memcpy", "memset"]),
    (
        &["cctype", "ctype.h"],
        &[
            "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint",
            "ispunct", "isspace", "isupper", "isxdigit", "tolower", "toupper",
        ],
    ),
    (
        &["cstdint", "stdint.h"],
        &["int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"],
    ),
    (
        &["cmath", "math.h"],
        &["modf", "modff", "frexp", "frexpf", "isnan", "isinf", "isfinite", "isnormal", "signbit"],
    ),
    (
        &["algorithm"],
        &[
            "sort", "stable_sort", "fill", "fill_n", "count", "count_if", "equal", "find",
            "find_if", "find_if_not", "max_element", "min_element", "reverse", "copy", "all_of",
            "any_of", "none_of", "for_each", "generate", "generate_n", "transform", "replace",
            "replace_if", "random_shuffle", "min", "max", "swap", "copy_if", "copy_n",
            "reverse_copy", "swap_ranges", "remove", "remove_if", "adjacent_find", "unique",
            "partition", "stable_partition", "rotate", "is_sorted", "lower_bound", "upper_bound",
            "binary_search", "equal_range", "merge", "includes", "lexicographical_compare",
            "minmax_element", "next_permutation", "prev_permutation", "partial_sort",
            "nth_element", "make_heap", "push_heap", "pop_heap", "sort_heap", "is_heap",
            "set_union", "set_intersection", "set_difference", "set_symmetric_difference",
        ],
    ),
    (&["numeric"], &["accumulate", "iota", "inner_product", "partial_sum", "adjacent_difference"]),
    (&["utility"], &["move", "swap", "pair", "make_pair"]),
    (
        &["random"],
        &[
            "mt19937", "mt19937_64", "minstd_rand", "minstd_rand0", "default_random_engine",
            "random_device", "uniform_int_distribution", "uniform_real_distribution",
            "normal_distribution", "bernoulli_distribution",
        ],
    ),
    (
        &["sstream"],
        &[
            "stringstream", "istringstream", "ostringstream", "wstringstream", "wistringstream",
            "wostringstream",
        ],
    ),
    (
        &["string"],
        &[
            "getline", "stoi", "stol", "stoll", "stoul", "stoull", "stof", "stod", "to_string",
            "wstring",
        ],
    ),
    (&["limits"], &["numeric_limits"]),
    (&["tuple"], &["tuple", "make_tuple", "get", "tie"]),
    (&["vector"], &["vector"]),
    (&["deque"], &["deque"]),
    (&["list"], &["list"]),
    (&["set"], &["set", "multiset"]),
    (&["unordered_set"], &["unordered_set", "unordered_multiset"]),
    (&["queue"], &["queue", "priority_queue"]),
    (&["future"], &["shared_future"]),
    (&["exception", "stdexcept", "typeinfo"], &["exception"]),
    (&["string", "ios", "stdexcept"], &["string"]),
    // Declared by the headers of both libraries that every header below
    // includes (MSVC's `<utility>`, `<xutility>`, `<limits>`; libstdc++'s
    // `bits/move.h`, `bits/stl_pair.h`, `bits/stl_algobase.h`), though the
    // header named first is where C++ declares them: a program that uses
    // `std::swap` after `#include <vector>` compiles with both.
    (
        &[
            "amp.h", "amp_math.h", "ppl.h", "iostream", "iomanip", "vector", "algorithm", "numeric",
            "random", "chrono", "string", "sstream", "array", "functional", "memory", "iterator",
            "ostream", "tuple", "future", "stdexcept", "set", "unordered_set", "list", "deque",
            "queue", "ios", "istream",
        ],
        &["swap", "move"],
    ),
    (&["exception"], &["move"]),
    (
        &[
            "amp.h", "amp_math.h", "ppl.h", "iostream", "iomanip", "vector", "algorithm", "random",
            "chrono", "string", "sstream", "array", "functional", "memory", "iterator", "ostream",
            "tuple", "future", "stdexcept", "set", "unordered_set", "list", "deque", "queue", "ios",
            "istream",
        ],
        &["pair", "make_pair"],
    ),
    (
        &[
            "amp.h", "amp_math.h", "ppl.h", "iostream", "iomanip", "vector", "algorithm", "random",
            "string", "sstream", "array", "functional", "memory", "iterator", "ostream", "future",
            "stdexcept", "set", "unordered_set", "list", "deque", "queue", "ios", "istream",
        ],
        &["fill", "fill_n", "copy", "equal", "distance", "advance", "next", "prev"],
    ),
    (
        &[
            "amp.h", "ppl.h", "iostream", "iomanip", "algorithm", "sstream", "functional", "memory",
            "iterator", "ostream", "future", "ios", "istream",
        ],
        &["find"],
    ),
    (
        &[
            "amp.h", "amp_math.h", "ppl.h", "iostream", "iomanip", "limits", "algorithm", "random",
            "chrono", "string", "sstream", "memory", "iterator", "ostream", "future", "stdexcept",
            "ios", "istream",
        ],
        &["numeric_limits"],
    ),
];

/// The names of namespace `concurrency` declared by `<ppl.h>` (and
/// `<ppltasks.h>`) rather than `<amp.h>`.
#[rustfmt::skip]
const PPL_NAMES: &[&str] = &[
    "parallel_for", "task", "create_task", "task_group", "when_all", "when_any",
];

/// The names of namespace `concurrency` that `<amp.h>` declares and the
/// library resolves without a namespace (after `using namespace
/// concurrency;`). Any name written `concurrency::...` is `<amp.h>`'s
/// unless it is [`PPL_NAMES`]'s.
#[rustfmt::skip]
const AMP_NAMES: &[&str] = &[
    "array", "array_view", "extent", "index", "tiled_extent", "tiled_index", "tile_barrier",
    "accelerator", "accelerator_view", "completion_future", "copy", "copy_async",
    "parallel_for_each", "access_type", "access_type_none", "access_type_read",
    "access_type_write", "access_type_read_write", "access_type_auto", "queuing_mode",
    "queuing_mode_automatic", "queuing_mode_immediate", "runtime_exception",
    "invalid_compute_domain", "out_of_memory", "unsupported_feature",
    "accelerator_view_removed", "atomic_fetch_add", "atomic_fetch_sub", "atomic_fetch_and",
    "atomic_fetch_or", "atomic_fetch_xor", "atomic_fetch_inc", "atomic_fetch_dec",
    "atomic_fetch_max", "atomic_fetch_min", "atomic_exchange", "atomic_compare_exchange",
    "all_memory_fence", "global_memory_fence", "tile_static_memory_fence",
];

/// `path` with its namespaces as segments again: the namespace pass
/// names what a namespace declares by one segment, its full name
/// (`std::to_string`), which is how the library text's names reach here.
fn as_written(path: &ast::Path) -> std::borrow::Cow<'_, ast::Path> {
    match path.segments.as_slice() {
        [one] if one.name.contains("::") => std::borrow::Cow::Owned(ast::Path {
            global: path.global,
            segments: one
                .name
                .split("::")
                .map(|name| ast::Ident {
                    name: name.to_string(),
                    span: one.span,
                })
                .collect(),
            span: path.span,
        }),
        _ => std::borrow::Cow::Borrowed(path),
    }
}

/// The headers any of which declares `name` as `path` spells it, or none
/// when the name is not one the tables know.
/// `path` is as [`as_written`] gives it; `resolved` says the namespace pass
/// resolved it (one segment before), so that it may have been written
/// without `std::` (`::toupper`, which `<ctype.h>` declares too).
fn headers_of(path: &ast::Path, resolved: bool) -> Vec<&'static str> {
    let name = path.last();
    let ns = namespace(path);
    let mut found = Vec::new();
    let std_like = matches!(ns, Ns::Std | Ns::Global | Ns::Unqualified);
    let amp_like = matches!(ns, Ns::Amp | Ns::Unqualified);
    if std_like {
        for (headers, names) in DECLARED {
            if names.contains(&name) {
                found.extend_from_slice(headers);
            }
        }
        // `size_t` and `ptrdiff_t`: every C++ header of both libraries
        // declares them, and most C headers.
        let without: &[&str] = match name {
            "size_t" => &["assert.h", "limits.h", "float.h", "ctype.h", "stdint.h"],
            "ptrdiff_t" => &[
                "assert.h", "limits.h", "float.h", "ctype.h", "stdint.h", "stdio.h", "string.h",
                "time.h",
            ],
            _ => &[],
        };
        if !without.is_empty() {
            found.extend(
                BRINGS
                    .iter()
                    .map(|(h, _)| *h)
                    .filter(|h| !without.contains(h)),
            );
        }
    }
    let (in_cmath, in_amp_math) = super::math::declared_in(name);
    if std_like && in_cmath {
        found.extend(["cmath", "math.h"]);
    }
    if matches!(ns, Ns::FastMath | Ns::PreciseMath | Ns::Unqualified) && in_amp_math {
        found.push("amp_math.h");
    }
    if ns == Ns::Direct3d || (ns == Ns::Unqualified && super::math::is_direct3d_unqualified(name)) {
        found.push("amp.h");
    }
    if amp_like && PPL_NAMES.contains(&name) {
        found.extend(["ppl.h", "ppltasks.h"]);
    } else if ns == Ns::Amp || (amp_like && AMP_NAMES.contains(&name)) {
        found.push("amp.h");
    }
    if name == "parallel_for_each" && amp_like {
        found.push("ppl.h");
    }
    // `std::sqrt` needs `<cmath>`: MSVC's `<math.h>` declares only the
    // global name.
    if ns == Ns::Std && !resolved {
        found.retain(|h| !h.ends_with(".h"));
    }
    found
}

/// The headers any of which declares library namespace `text` (as a
/// using-directive names it), or none for `std` (every header declares
/// it, and so do the compilers) and names that are not the library's.
fn namespace_headers(text: &str) -> &'static [&'static str] {
    match text.trim_start_matches("::") {
        "concurrency" | "Concurrency" => &["amp.h", "ppl.h", "ppltasks.h"],
        "concurrency::fast_math"
        | "concurrency::precise_math"
        | "Concurrency::fast_math"
        | "Concurrency::precise_math" => &["amp_math.h"],
        "concurrency::graphics" | "Concurrency::graphics" => {
            &["amp_short_vectors.h", "amp_graphics.h"]
        }
        "concurrency::direct3d" | "Concurrency::direct3d" => &["amp.h"],
        "concurrency::graphics::direct3d" | "Concurrency::graphics::direct3d" => {
            &["amp_graphics.h"]
        }
        _ => &[],
    }
}

/// The standard headers whose names a unit sees: those it includes and
/// those they bring. Everything is seen in a unit not read from a file
/// (a REPL session).
#[derive(Debug, Default, Clone)]
pub(crate) struct Included {
    /// `None` when every name is seen.
    seen: Option<Vec<&'static str>>,
    /// The headers as the unit's `#include`s name them, for messages.
    named: Vec<&'static str>,
    /// The namespaces the program itself declares at file scope: a
    /// directive naming one of them needs no header.
    own_namespaces: Vec<String>,
}

impl Included {
    /// What the headers `unit` includes give it (see
    /// `ast::TranslationUnit::standard_headers`).
    pub(crate) fn of(unit: &ast::TranslationUnit) -> Self {
        let Some(named) = unit.standard_headers.as_deref() else {
            return Included::default();
        };
        let own_namespaces = unit
            .items
            .iter()
            .filter(|i| !unit.library_files.contains(&i.span.file))
            .filter_map(|i| match &i.kind {
                ast::ItemKind::Namespace(ns) => ns.name.first().map(|n| n.name.clone()),
                _ => None,
            })
            .collect();
        let mut seen: Vec<&'static str> = named.to_vec();
        for header in named {
            if let Some((_, brings)) = BRINGS.iter().find(|(h, _)| h == header) {
                seen.extend_from_slice(brings);
            }
        }
        seen.sort_unstable();
        seen.dedup();
        Included {
            seen: Some(seen),
            named: named.to_vec(),
            own_namespaces,
        }
    }

    fn sees(&self, header: &str) -> bool {
        self.seen.as_ref().is_none_or(|seen| seen.contains(&header))
    }

    /// The error for `what` (a name, or a namespace), declared in
    /// `headers`, none of which the unit sees.
    fn missing(&self, what: &str, span: tessera_diagnostics::Span, headers: &[&str]) -> Diagnostic {
        let first = headers.first().copied().unwrap_or("amp.h");
        let note = if self.named.is_empty() {
            "this file includes no standard header".to_string()
        } else {
            format!(
                "the headers this file includes ({}) do not declare it, nor include a header that does",
                self.named
                    .iter()
                    .map(|h| format!("`<{h}>`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Diagnostic::error(
            codes::E0200,
            span,
            format!("`{what}` is not declared: `<{first}>` is not included"),
        )
        .with_label(format!("declared in `<{first}>`"))
        .with_note(note)
        .with_help(format!("add `#include <{first}>` at the top of the file"))
    }
}

/// True when `path` is qualified with a namespace only the library
/// declares names in (`std::`, `concurrency::`, `fast_math::`, ...).
pub(crate) fn is_library_namespace(path: &ast::Path) -> bool {
    matches!(
        namespace(&as_written(path)),
        Ns::Std | Ns::Amp | Ns::FastMath | Ns::PreciseMath | Ns::Direct3d
    )
}

/// Reports library name `path` unless a header the unit includes declares
/// it; true when it is declared (or not a name the tables know).
pub(crate) fn declared(ck: &mut Checker, path: &ast::Path) -> bool {
    // The library's own text uses what it needs.
    if ck.headers.seen.is_none() || ck.library_files.contains(&path.span.file) {
        return true;
    }
    let written = as_written(path);
    let headers = headers_of(&written, path.segments.len() == 1);
    if headers.is_empty() || headers.iter().any(|h| ck.headers.sees(h)) {
        return true;
    }
    // A program may declare its own `namespace concurrency` (not its own
    // `std`, where it may only specialise the library's templates).
    if written.segments.len() > 1
        && written
            .segments
            .first()
            .is_some_and(|s| s.name != "std" && ck.headers.own_namespaces.contains(&s.name))
    {
        return true;
    }
    let d = ck.headers.missing(&path.text(), path.span, &headers);
    ck.diags.push(d);
    false
}

/// Reports `using namespace path;` when `path` is a namespace of the
/// library that no header the unit includes declares.
pub(crate) fn directive_declared(ck: &mut Checker, path: &ast::Path) {
    let text = path.text();
    let headers = namespace_headers(&text);
    if ck.headers.seen.is_none()
        || headers.is_empty()
        || ck.library_files.contains(&path.span.file)
        || headers.iter().any(|h| ck.headers.sees(h))
        || path
            .segments
            .first()
            .is_some_and(|s| ck.headers.own_namespaces.contains(&s.name))
    {
        return;
    }
    let d = ck.headers.missing(&text, path.span, headers);
    ck.diags.push(d);
}

#[cfg(test)]
mod tests {
    use super::{BRINGS, DECLARED};
    use tessera_syntax::preprocess::KNOWN_HEADERS;

    fn brings(header: &str) -> Option<&'static [&'static str]> {
        BRINGS.iter().find(|(h, _)| *h == header).map(|(_, b)| *b)
    }

    #[test]
    fn every_header_include_accepts_has_a_row() {
        for header in KNOWN_HEADERS {
            assert!(brings(header).is_some(), "no row for <{header}>");
        }
    }

    #[test]
    fn every_header_named_has_a_row() {
        let named = DECLARED
            .iter()
            .flat_map(|(headers, _)| headers.iter())
            .chain(BRINGS.iter().flat_map(|(_, b)| b.iter()));
        for header in named {
            assert!(brings(header).is_some(), "no row for <{header}>");
        }
    }

    /// A row lists what its header brings through every header it brings,
    /// so one lookup per included header is the whole closure.
    #[test]
    fn rows_are_closed() {
        for (header, row) in BRINGS {
            for brought in *row {
                for further in brings(brought).unwrap_or_default() {
                    assert!(
                        row.contains(further) || further == header,
                        "<{header}> brings <{brought}>, which brings <{further}>"
                    );
                }
            }
        }
    }
}
