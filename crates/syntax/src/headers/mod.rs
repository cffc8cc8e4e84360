//! The parts of the standard headers written in the Tessera language.
//!
//! Most of the library is built in: the checker knows each name and lowers
//! its uses to intrinsics that both engines run. Algorithms that call a
//! function the program gives (`std::generate(b, e, gen)`, `std::sort(b, e,
//! comp)`) are plain C++ templates over iterators and function objects, so
//! they are written as such and read like a local header: the program's
//! `#include <algorithm>` splices this text in, and each template is
//! checked when a call needs an instance, as the program's own are. The
//! engines know nothing of them, and a mistake in a call is reported in the
//! template with the call beside it.

/// The text for a standard header, if part of it is written here: the name
/// shown in diagnostics (`<algorithm>`, `<cmath>`) and the source. `<numeric>`
/// and `<utility>` bring the same text (which guards itself with `#pragma
/// once`); `<amp.h>`'s includes the texts of the headers MSVC's includes.
pub fn source_of(header: &str) -> Option<(&'static str, &'static str)> {
    match header {
        "algorithm" | "numeric" | "utility" => Some(("<algorithm>", ALGORITHM)),
        "amp.h" => Some(("<amp.h>", AMP)),
        "cmath" | "math.h" => Some(("<cmath>", CMATH)),
        "amp_math.h" => Some(("<amp_math.h>", AMP_MATH)),
        "cstring" | "string.h" => Some(("<cstring>", CSTRING)),
        "cctype" | "ctype.h" => Some(("<cctype>", CCTYPE)),
        "vector" => Some(("<vector>", VECTOR)),
        "iterator" | "list" | "set" | "unordered_set" | "deque" | "queue" => {
            Some(("<iterator>", ITERATOR))
        }
        "array" => Some(("<array>", STD_ARRAY)),
        "chrono" | "ratio" => Some(("<chrono>", CHRONO)),
        "string" | "iostream" | "sstream" | "stdexcept" => Some(("<string>", STRING)),
        "amp_short_vectors.h" | "amp_graphics.h" => Some(("<amp_short_vectors.h>", SHORT_VECTORS)),
        "ppl.h" | "ppltasks.h" => Some(("<ppl.h>", PPL)),
        "typeinfo" | "exception" => Some(("<typeinfo>", TYPEINFO)),
        _ => None,
    }
}

/// The text of the library file shown as `name` (`<algorithm>`), as
/// [`source_of`] gives it: text that lives as long as the program, which
/// the bodies of library functions set aside keep (see [`crate::lazy`]).
pub fn text_of_name(name: &str) -> Option<&'static str> {
    LIBRARY_TEXTS
        .iter()
        .find(|(shown, _)| *shown == name)
        .map(|(_, text)| *text)
}

/// True when `text` is the whole text of one of the library's files.
pub fn is_library_text(text: &str) -> bool {
    LIBRARY_TEXTS
        .iter()
        .any(|(_, library)| library.len() == text.len() && *library == text)
}

/// Each library file: the name it is shown under, and its text.
const LIBRARY_TEXTS: &[(&str, &str)] = &[
    ("<amp.h>", AMP),
    ("<algorithm>", ALGORITHM),
    ("<cmath>", CMATH),
    ("<amp_math.h>", AMP_MATH),
    ("<cstring>", CSTRING),
    ("<cctype>", CCTYPE),
    ("<vector>", VECTOR),
    ("<iterator>", ITERATOR),
    ("<array>", STD_ARRAY),
    ("<chrono>", CHRONO),
    ("<string>", STRING),
    ("<amp_short_vectors.h>", SHORT_VECTORS),
    ("<ppl.h>", PPL),
    ("<typeinfo>", TYPEINFO),
];

/// The names through which a program reaches the library file shown as
/// `shown`, for the files a program may do without (see
/// [`crate::include::read_headers_pruned`]): every name the file (and
/// what it includes) declares at namespace scope or defines as a macro,
/// and the built-in library's names that reach it without naming it
/// ([`REACHING_WITHOUT_NAMING`]). `None` for a file every program that
/// includes it reads.
///
/// The lists are written out so that no program pays for finding them;
/// the test `reaching_names_are_current` finds them again from the
/// texts and fails when they differ.
pub fn names_reaching(shown: &str) -> Option<&'static [&'static str]> {
    match shown {
        "<algorithm>" => Some(names::ALGORITHM),
        "<string>" => Some(names::STRING),
        _ => None,
    }
}

/// For each file of [`names_reaching`], the names of the built-in library
/// that reach its text although the file does not declare them.
///
/// - `<string>`: a string stream's `str()` and `std::getline` make a
///   `std::string`, and `std::stoi` and its family take one; a handler
///   for `std::exception` catches the `std::out_of_range` (declared
///   there) that `at` throws.
///
/// A use that needs a file left out and is not listed here is reported
/// (`dynamic_cast` to a reference needs `std::bad_cast`, E0211), and a
/// program with any diagnostic is read again with the whole library (see
/// `tessera_driver::compile`). A handler catching what the library throws
/// is not reported, so its names must be listed.
pub const REACHING_WITHOUT_NAMING: &[(&str, &[&str])] = &[
    ("<algorithm>", &[]),
    (
        "<string>",
        &[
            "exception",
            "getline",
            "istringstream",
            "ostringstream",
            "stod",
            "stof",
            "stoi",
            "stol",
            "stoll",
            "stoul",
            "stoull",
            "stringstream",
        ],
    ),
];

mod names;

/// True for the name a file of library source is shown under (`<algorithm>`).
pub fn is_library_source(name: &str) -> bool {
    name.starts_with('<') && name.ends_with('>')
}

/// `<amp.h>`: the texts of the headers MSVC's `<amp.h>` includes.
const AMP: &str = include_str!("amp.h");

/// `<algorithm>` and `<numeric>`: the algorithms that take a function.
const ALGORITHM: &str = include_str!("algorithm.h");

/// `<cmath>` and `<math.h>`: classification, and the functions that answer
/// through a pointer.
const CMATH: &str = include_str!("cmath.h");

/// `<cstring>` and `<string.h>`: the C string functions.
const CSTRING: &str = include_str!("cstring.h");

/// `<cctype>` and `<ctype.h>`: character classes and case conversions.
const CCTYPE: &str = include_str!("cctype.h");

/// `<string>` (also for `<iostream>`, `<sstream>` and `<stdexcept>`):
/// `std::string` and `std::to_string`, then `<stdexcept>`'s
/// `std::logic_error`, `std::runtime_error` and the classes derived from
/// them (which hold a `std::string`, and which `std::string::at` throws),
/// and `<typeinfo>`'s `std::bad_cast`.
const STRING: &str = concat!(
    include_str!("string.h"),
    include_str!("stdexcept.h"),
    include_str!("typeinfo.h")
);

/// `<typeinfo>` (also for `<exception>`): `std::bad_cast`.
const TYPEINFO: &str = include_str!("typeinfo.h");

/// `<iterator>` (also for the containers' headers, and read by the texts
/// of `<vector>`, `<string>`, `<algorithm>` and `<array>`): `distance`,
/// `advance`, `next`, `prev`.
const ITERATOR: &str = include_str!("iterator.h");

/// `<vector>`: the comparison operators of two vectors.
const VECTOR: &str = include_str!("vector.h");

/// `<array>`: `std::array`, its members and comparisons.
const STD_ARRAY: &str = include_str!("array.h");

/// `<chrono>` (and `<ratio>`): ratios, durations, time points, clocks.
const CHRONO: &str = include_str!("chrono.h");

/// `<amp_math.h>`: the same in `precise_math` and `fast_math`.
const AMP_MATH: &str = include_str!("amp_math.h");

/// `<amp_short_vectors.h>` (and `<amp_graphics.h>`): `norm`, `unorm` and
/// the short vectors `int_2` ... `unorm_4`, generated by `short_vectors.py`.
const SHORT_VECTORS: &str = include_str!("short_vectors.h");

/// `<ppl.h>` (and `<ppltasks.h>`): `parallel_for` and `parallel_for_each`
/// over iterators.
const PPL: &str = include_str!("ppl.h");
