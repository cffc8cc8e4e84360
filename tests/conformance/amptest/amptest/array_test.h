// ArrayTest<T, N>: an array under test together with the values the test
// expects in it, as ArrayViewTest does for an array_view. Sections of it
// are ArrayViewTests that share the array and the record of known values.
#pragma once

#include <amp.h>
#include <iostream>
#include <vector>
#include <algorithm>
#include <assert.h>
#include <functional>
#include <memory>
#include <type_traits>
#include <amptest/array_view_test.h>
#include <amptest.h>

namespace concurrency {
namespace Test {

// Reads one element of an array in a kernel.
template <typename value_type, int rank>
value_type gpu_read(array<value_type, rank>& src, index<rank> idx) {
    array_view<value_type, rank> view(src);
    return details::gpu_read(view, idx);
}

// Writes one element of an array in a kernel.
template <typename value_type, int rank>
void gpu_write(array<value_type, rank>& dest, index<rank> idx, value_type value) {
    array_view<value_type, rank> view(dest);
    details::gpu_write(view, idx, value);
    view.synchronize();
}

} // namespace Test
} // namespace concurrency

// Declared at file scope for the reason given in array_view_test.h.
template <typename _value_type, int _rank = 1>
class ArrayTest {
public:
    // An array of `ex` zeros.
    ArrayTest(extent<_rank> ex)
        : _arr(ex),
          _expected(amptest_zeroed_view<_value_type, _rank>(ex)),
          _known(amptest_zeroed_view<int, _rank>(ex)) {
        std::vector<_value_type> zeros(ex.size(), 0);
        copy(zeros.begin(), zeros.end(), _arr);
    }

    // An array holding a copy of `data`.
    ArrayTest(extent<_rank> ex, const std::vector<_value_type>& data)
        : _arr(ex, data.begin()),
          _expected(amptest_zeroed_view<_value_type, _rank>(ex)),
          _known(amptest_zeroed_view<int, _rank>(ex)) {}

    array<_value_type, _rank>& arr() { return _arr; }

    ArrayViewTest<_value_type, _rank, _rank> section(index<_rank> origin) {
        array_view<_value_type, _rank> whole(_arr);
        return section(whole.section(origin), origin);
    }

    ArrayViewTest<_value_type, _rank, _rank> section(extent<_rank> ex) {
        array_view<_value_type, _rank> whole(_arr);
        return section(whole.section(ex), index<_rank>());
    }

    ArrayViewTest<_value_type, _rank, _rank> section(index<_rank> origin, extent<_rank> ex) {
        array_view<_value_type, _rank> whole(_arr);
        return section(whole.section(origin, ex), origin);
    }

    // `other` is the section of arr() at `origin`.
    ArrayViewTest<_value_type, _rank, _rank> section(array_view<_value_type, _rank> other,
                                                     index<_rank> origin) {
        extent<_rank> ex = other.get_extent();
        array_view<_value_type, _rank> whole(_arr);
        return ArrayViewTest<_value_type, _rank, _rank>(other, other, _expected.section(origin, ex),
                                                        _known.section(origin, ex), whole,
                                                        _expected, _known);
    }

    // Writes `value` at `i` (in a kernel) and records it.
    void set_value(index<_rank> i, _value_type value) {
        set_known_value(i, value);
        array_view<_value_type, _rank> whole(_arr);
        concurrency::Test::details::gpu_write(whole, i, value);
    }

    // Records that the array holds `value` at `i`.
    void set_known_value(index<_rank> i, _value_type value) {
        _expected[i] = value;
        _known[i] = 1;
    }

    // Whether every recorded value is in the array: runall_pass or
    // runall_fail.
    int pass() {
        array_view<_value_type, _rank> whole(_arr);
        if (!concurrency::Test::details::check_known_values(whole, _expected, _known)) {
            return fail();
        }
        std::cout << "Pass" << std::endl;
        return runall_pass;
    }

    int fail() {
        std::cout << "Fail" << std::endl;
        return runall_fail;
    }

private:
    array<_value_type, _rank> _arr;
    array_view<_value_type, _rank> _expected;
    array_view<int, _rank> _known;
};

// Checks that `section` (made from `original` at `origin`) and the array
// see each other's writes, on the host and in kernels.
template <typename value_type, int rank>
bool TestSection(ArrayTest<value_type, rank>& original, ArrayViewTest<value_type, rank>& section,
                 index<rank> origin) {
    ArrayViewTest<value_type, rank> whole = original.section(index<rank>());
    return TestSection(whole, section, origin);
}

template <typename value_type, int rank>
bool TestSection(ArrayTest<value_type, rank>& original, index<rank> origin) {
    ArrayViewTest<value_type, rank> section = original.section(origin);
    return TestSection(original, section, origin);
}

template <typename value_type, int rank>
bool TestSection(ArrayTest<value_type, rank>& original, index<rank> origin, extent<rank> ex) {
    ArrayViewTest<value_type, rank> section = original.section(origin, ex);
    return TestSection(original, section, origin);
}

template <typename value_type, int rank>
bool TestSection(ArrayTest<value_type, rank>& original, array_view<value_type, rank>& section_view,
                 index<rank> origin) {
    ArrayViewTest<value_type, rank> section = original.section(section_view, origin);
    return TestSection(original, section, origin);
}
