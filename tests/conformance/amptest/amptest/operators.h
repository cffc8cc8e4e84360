// Writing indices and extents to a stream, as the library's operators.h
// does: `extent<2>(3, 4)`. The library declares them in
// Concurrency::Test; they are function templates, which the language finds
// for an operator only at file scope yet, so they are declared there.
#pragma once

#include <iostream>
#include <amp.h>

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
