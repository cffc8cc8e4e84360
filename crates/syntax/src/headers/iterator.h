// <iterator>'s operations on iterators, written in the Tessera language:
// `std::distance`, `std::advance`, `std::next` and `std::prev`. Both
// libraries declare them on the way in every container's header and the
// stream headers, so Tessera reads this text for those too (the checker
// says which headers declare the names: crates/sema/src/library/headers.rs).
// Each steps one element at a time, which gives every iterator category
// the answer C++ gives (a random-access iterator's in one step there);
// the difference is a `long`, libstdc++'s `ptrdiff_t`.
#pragma once

namespace std {

template <typename _It>
long distance(_It __first, _It __last) {
    long __n = 0;
    while (__first != __last) {
        ++__first;
        ++__n;
    }
    return __n;
}

template <typename _It>
void advance(_It& __it, long __n) {
    while (__n > 0) {
        ++__it;
        --__n;
    }
    while (__n < 0) {
        --__it;
        ++__n;
    }
}

template <typename _It>
_It next(_It __it, long __n = 1) {
    std::advance(__it, __n);
    return __it;
}

template <typename _It>
_It prev(_It __it, long __n = 1) {
    std::advance(__it, -__n);
    return __it;
}

}
