// Building indices and extents of rank 4 and 5 from their components, and
// the row-major position of an index in an extent.
#pragma once

#include <amp.h>
#include <cstddef>
#include <iterator>
#include <memory>
#include <amptest/restrict.h>

namespace concurrency {
namespace Test {

inline index<4> make_index(int i0, int i1, int i2, int i3) restrict(cpu, amp) {
    index<4> idx;
    idx[0] = i0;
    idx[1] = i1;
    idx[2] = i2;
    idx[3] = i3;
    return idx;
}

inline index<5> make_index(int i0, int i1, int i2, int i3, int i4) restrict(cpu, amp) {
    index<5> idx;
    idx[0] = i0;
    idx[1] = i1;
    idx[2] = i2;
    idx[3] = i3;
    idx[4] = i4;
    return idx;
}

inline extent<4> make_extent(int e0, int e1, int e2, int e3) restrict(cpu, amp) {
    extent<4> ext;
    ext[0] = e0;
    ext[1] = e1;
    ext[2] = e2;
    ext[3] = e3;
    return ext;
}

inline extent<5> make_extent(int e0, int e1, int e2, int e3, int e4) restrict(cpu, amp) {
    extent<5> ext;
    ext[0] = e0;
    ext[1] = e1;
    ext[2] = e2;
    ext[3] = e3;
    ext[4] = e4;
    return ext;
}

// The position of `idx` when the elements of `ext` are laid out row by
// row (the last component varies fastest).
template <int rank>
unsigned int flatten(index<rank> idx, extent<rank> ext) restrict(cpu, amp) {
    int result = idx[0];
    for (int i = 1; i < rank; i++) {
        result = result * ext[i] + idx[i];
    }
    return (unsigned int)result;
}

} // namespace Test
} // namespace concurrency

// The library declares the class below in Concurrency::Test; the language
// finds class templates only at file scope yet, so it is declared there.

// The coordinates of an extent's elements: an index is its own absolute
// index, and its linear position is its row-major offset in the extent.
// (The library derives it from a coordinate_nest base with virtual
// members; the language has no virtual functions on the host yet, and the
// tests use this class alone.)
template <int rank>
class extent_coordinate_nest {
public:
    extent_coordinate_nest(extent<rank> ex) : data_extent(ex) {}

    index<rank> get_absolute(index<rank> i) const { return i; }

    unsigned int get_linear(index<rank> i) const {
        index<rank> absolute_index = get_absolute(i);
        unsigned int stride = 1;
        unsigned int linear = 0;
        for (int d = rank - 1; d >= 0; d--) {
            linear += (unsigned int)absolute_index[d] * stride;
            stride *= (unsigned int)data_extent[d];
        }
        return linear;
    }

private:
    extent<rank> data_extent;
};

// Walks the indices of an extent in row-major order: `begin()` and `end()`
// give the first and one-past-the-last position, `*it` the index at the
// position. (The library's declares the standard iterator typedefs too;
// the language has no `std::input_iterator_tag`, and the tests do not use
// them. It keeps the extent's strides; this one divides by the extent's
// dimensions instead, which gives the same index and keeps the iterator
// small: tests copy it at every step, `it != all.end()`.)
template <int rank>
class index_iterator {
public:
    index_iterator(concurrency::extent<rank> ext) : _position(0), _extent(ext) {}

    index_iterator& operator++() {
        _position++;
        return *this;
    }

    // As the library's: the postfix form also returns the iterator itself.
    index_iterator& operator++(int) {
        _position++;
        return *this;
    }

    concurrency::index<rank> operator*() const {
        int linear = _position;
        concurrency::index<rank> idx;
        for (int i = rank - 1; i >= 0; i--) {
            idx[i] = linear % _extent[i];
            linear /= _extent[i];
        }
        return idx;
    }

    bool operator==(const index_iterator<rank>& other) const {
        return _position == other._position && _extent == other._extent;
    }

    bool operator!=(const index_iterator<rank>& other) const {
        return _position != other._position || _extent != other._extent;
    }

    index_iterator<rank> begin() const {
        index_iterator<rank> other = *this;
        other._position = 0;
        return other;
    }

    index_iterator<rank> end() const {
        index_iterator<rank> other = *this;
        other._position = _extent.size();
        return other;
    }

private:
    int _position;
    concurrency::extent<rank> _extent;
};
