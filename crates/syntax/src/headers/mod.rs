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
/// shown in diagnostics (`<algorithm>`, `<cmath>`) and the source. `<numeric>`,
/// `<utility>` and `<amp.h>` bring the same text (`<amp.h>` includes `<algorithm>` in the
/// implementations C++ AMP programs are compiled with, and the text guards
/// itself with `#pragma once`).
pub fn source_of(header: &str) -> Option<(&'static str, &'static str)> {
    match header {
        "algorithm" | "numeric" | "utility" | "amp.h" => Some(("<algorithm>", ALGORITHM)),
        "cmath" | "math.h" => Some(("<cmath>", CMATH)),
        "amp_math.h" => Some(("<amp_math.h>", AMP_MATH)),
        _ => None,
    }
}

/// True for the name a file of library source is shown under (`<algorithm>`).
pub fn is_library_source(name: &str) -> bool {
    name.starts_with('<') && name.ends_with('>')
}

/// `<algorithm>` and `<numeric>`: the algorithms that take a function.
const ALGORITHM: &str = include_str!("algorithm.h");

/// `<cmath>` and `<math.h>`: classification, and the functions that answer
/// through a pointer.
const CMATH: &str = include_str!("cmath.h");

/// `<amp_math.h>`: the same in `precise_math` and `fast_math`.
const AMP_MATH: &str = include_str!("amp_math.h");
