// <amp.h>: the headers MSVC's <amp.h> includes whose part of the library
// is written in the Tessera language and that C++ AMP programs use with no
// more than <amp.h> included: `std::vector`'s comparisons, `std::string`,
// `std::sort` with a comparison. Tessera reads their text when a program
// includes <amp.h>, and its checker declares their names (see
// `crates/sema/src/library/headers.rs`). <cmath>'s and <cstring>'s texts
// (`std::isnan`, `std::strlen`), which MSVC's <amp.h> brings too, are left
// to their own `#include`: reading them cost every program with <amp.h>
// 0.3 to 0.6 ms of its front end, whose whole is about 4 ms.
#pragma once

#include <algorithm>
#include <vector>
#include <string>
