// Writing indices and extents to a narrow stream, as `index<2>(1, 2)` and
// `extent<2>(4, 6)`. The library declares these as templates over the rank;
// here they are written out for ranks 1 to 4, since a program's operator
// template is not found for a library type's operand. Tests bring them in
// with `using Concurrency::Test::operator<<;`.
#pragma once

#include <iostream>
#include <amp.h>

namespace concurrency {
namespace Test {

inline std::ostream& operator<<(std::ostream& os, const concurrency::index<1>& v) {
    os << "index<1>(" << v[0] << ")";
    return os;
}

inline std::ostream& operator<<(std::ostream& os, const concurrency::index<2>& v) {
    os << "index<2>(" << v[0] << ", " << v[1] << ")";
    return os;
}

inline std::ostream& operator<<(std::ostream& os, const concurrency::index<3>& v) {
    os << "index<3>(" << v[0] << ", " << v[1] << ", " << v[2] << ")";
    return os;
}

inline std::ostream& operator<<(std::ostream& os, const concurrency::index<4>& v) {
    os << "index<4>(" << v[0] << ", " << v[1] << ", " << v[2] << ", " << v[3] << ")";
    return os;
}

inline std::ostream& operator<<(std::ostream& os, const concurrency::extent<1>& v) {
    os << "extent<1>(" << v[0] << ")";
    return os;
}

inline std::ostream& operator<<(std::ostream& os, const concurrency::extent<2>& v) {
    os << "extent<2>(" << v[0] << ", " << v[1] << ")";
    return os;
}

inline std::ostream& operator<<(std::ostream& os, const concurrency::extent<3>& v) {
    os << "extent<3>(" << v[0] << ", " << v[1] << ", " << v[2] << ")";
    return os;
}

inline std::ostream& operator<<(std::ostream& os, const concurrency::extent<4>& v) {
    os << "extent<4>(" << v[0] << ", " << v[1] << ", " << v[2] << ", " << v[3] << ")";
    return os;
}

} // namespace Test
} // namespace concurrency

// The same for any rank, as function templates at file scope, for the
// library's own helpers (`amp.data.h`) that print extents outside the
// tests' `using` of the namespace.
template <int rank>
std::ostream& operator<<(std::ostream& os, const concurrency::index<rank>& idx) {
    os << "index<" << rank << ">(";
    for (int i = 0; i < rank; i++) {
        os << idx[i];
        if (i != rank - 1) {
            os << ", ";
        }
    }
    os << ")";
    return os;
}

template <int rank>
std::ostream& operator<<(std::ostream& os, const concurrency::extent<rank>& ext) {
    os << "extent<" << rank << ">(";
    for (int i = 0; i < rank; i++) {
        os << ext[i];
        if (i != rank - 1) {
            os << ", ";
        }
    }
    os << ")";
    return os;
}
