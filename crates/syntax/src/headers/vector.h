// The comparison operators of <vector>, written in the Tessera language:
// two vectors are equal when they have the same size and equal elements,
// and order lexicographically by their elements' `<` (as C++ defines them
// through `std::equal` and `std::lexicographical_compare`). Tessera reads
// this text when a program includes <vector>; the vector itself is built in.
#pragma once

#include <iterator>

namespace std {

template <typename _Tp>
bool operator==(const vector<_Tp>& __x, const vector<_Tp>& __y) {
    if (__x.size() != __y.size()) {
        return false;
    }
    for (size_t __i = 0; __i < __x.size(); __i++) {
        if (!(__x[__i] == __y[__i])) {
            return false;
        }
    }
    return true;
}

template <typename _Tp>
bool operator<(const vector<_Tp>& __x, const vector<_Tp>& __y) {
    size_t __n = __x.size() < __y.size() ? __x.size() : __y.size();
    for (size_t __i = 0; __i < __n; __i++) {
        if (__x[__i] < __y[__i]) {
            return true;
        }
        if (__y[__i] < __x[__i]) {
            return false;
        }
    }
    return __x.size() < __y.size();
}

template <typename _Tp>
bool operator!=(const vector<_Tp>& __x, const vector<_Tp>& __y) {
    return !(__x == __y);
}

template <typename _Tp>
bool operator>(const vector<_Tp>& __x, const vector<_Tp>& __y) {
    return __y < __x;
}

template <typename _Tp>
bool operator<=(const vector<_Tp>& __x, const vector<_Tp>& __y) {
    return !(__y < __x);
}

template <typename _Tp>
bool operator>=(const vector<_Tp>& __x, const vector<_Tp>& __y) {
    return !(__x < __y);
}

} // namespace std
