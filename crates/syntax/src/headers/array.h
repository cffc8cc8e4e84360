// <array>: `std::array<T, N>`, written in the Tessera language as the
// aggregate C++ defines: one public C array member, so a braced list
// initialises it (`std::array<int, 3> a = {3, 1, 2};`, the inner braces
// elided), copies copy the elements, and `begin()`/`end()` are pointers
// into them, which the algorithms and range `for` take. `at` past the end
// throws `std::out_of_range` with libstdc++'s message (<stdexcept>, read
// first). Tessera reads this text when a program includes <array>.
#pragma once

#include <iterator>
#include <stdexcept>

namespace std {

// `at` past the end.
inline void __throw_array_at(size_t __n, size_t __size) {
    throw out_of_range(string("array::at: __n (which is ") + to_string(__n) +
                       ") >= _Nm (which is " + to_string(__size) + ")");
}

template <typename _Tp, size_t _Nm>
struct array {
    typedef _Tp value_type;
    typedef size_t size_type;
    typedef ptrdiff_t difference_type;
    typedef _Tp* iterator;

    _Tp _M_elems[_Nm];

    void fill(const _Tp& __value) {
        for (size_t __i = 0; __i < _Nm; ++__i) {
            _M_elems[__i] = __value;
        }
    }
    void swap(array& __other) {
        for (size_t __i = 0; __i < _Nm; ++__i) {
            _Tp __held = _M_elems[__i];
            _M_elems[__i] = __other._M_elems[__i];
            __other._M_elems[__i] = __held;
        }
    }

    _Tp* begin() { return _M_elems; }
    const _Tp* begin() const { return _M_elems; }
    _Tp* end() { return _M_elems + _Nm; }
    const _Tp* end() const { return _M_elems + _Nm; }
    const _Tp* cbegin() const { return _M_elems; }
    const _Tp* cend() const { return _M_elems + _Nm; }

    size_t size() const { return _Nm; }
    size_t max_size() const { return _Nm; }
    bool empty() const { return _Nm == 0; }

    _Tp& operator[](size_t __n) { return _M_elems[__n]; }
    const _Tp& operator[](size_t __n) const { return _M_elems[__n]; }
    _Tp& at(size_t __n) {
        if (__n >= _Nm) __throw_array_at(__n, _Nm);
        return _M_elems[__n];
    }
    const _Tp& at(size_t __n) const {
        if (__n >= _Nm) __throw_array_at(__n, _Nm);
        return _M_elems[__n];
    }
    _Tp& front() { return _M_elems[0]; }
    const _Tp& front() const { return _M_elems[0]; }
    _Tp& back() { return _M_elems[_Nm - 1]; }
    const _Tp& back() const { return _M_elems[_Nm - 1]; }
    _Tp* data() { return _M_elems; }
    const _Tp* data() const { return _M_elems; }
};

// Equal when every element is; ordered lexicographically by the
// elements' `<`, as C++ defines it through `std::lexicographical_compare`.
template <typename _Tp, size_t _Nm>
bool operator==(const array<_Tp, _Nm>& __x, const array<_Tp, _Nm>& __y) {
    for (size_t __i = 0; __i < _Nm; ++__i) {
        if (!(__x[__i] == __y[__i])) return false;
    }
    return true;
}
template <typename _Tp, size_t _Nm>
bool operator!=(const array<_Tp, _Nm>& __x, const array<_Tp, _Nm>& __y) {
    return !(__x == __y);
}
template <typename _Tp, size_t _Nm>
bool operator<(const array<_Tp, _Nm>& __x, const array<_Tp, _Nm>& __y) {
    for (size_t __i = 0; __i < _Nm; ++__i) {
        if (__x[__i] < __y[__i]) return true;
        if (__y[__i] < __x[__i]) return false;
    }
    return false;
}
template <typename _Tp, size_t _Nm>
bool operator>(const array<_Tp, _Nm>& __x, const array<_Tp, _Nm>& __y) {
    return __y < __x;
}
template <typename _Tp, size_t _Nm>
bool operator<=(const array<_Tp, _Nm>& __x, const array<_Tp, _Nm>& __y) {
    return !(__y < __x);
}
template <typename _Tp, size_t _Nm>
bool operator>=(const array<_Tp, _Nm>& __x, const array<_Tp, _Nm>& __y) {
    return !(__x < __y);
}

}
