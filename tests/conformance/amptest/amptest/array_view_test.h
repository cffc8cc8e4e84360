// ArrayViewTest<T, N>: an array_view under test together with the values
// the test expects in it. A test writes through view() and records what
// it wrote with set_known_value; pass() then checks every recorded value
// against the data, and sections share the data and the record with the
// view they were made from.
#pragma once

#include <amp.h>
#include <cstdlib>
#include <iostream>
#include <vector>
#include <type_traits>
#include <algorithm>
#include <assert.h>
#include <functional>
#include <memory>
#include <amptest/restrict.h>
#include <amptest/runall.h>
#include <amptest/logging.h>
#include <amptest/compare.h>
#include <amptest/coordinates.h>
#include <amptest.h>

namespace concurrency {
namespace Test {
namespace details {

// A random index inside the extent `ex` placed at `origin`.
template <int rank>
index<rank> random_index(index<rank> origin, extent<rank> ex) {
    index<rank> idx;
    for (int d = 0; d < rank; d++) {
        idx[d] = origin[d] + rand() % ex[d];
    }
    return idx;
}

// Reading and writing one element from a kernel.
template <typename value_type, int rank>
value_type gpu_read(array_view<value_type, rank> src, index<rank> idx) {
    std::vector<value_type> out(1);
    array_view<value_type, 1> result(1, out);
    parallel_for_each(extent<1>(1), [=](index<1>) restrict(amp) { result[0] = src[idx]; });
    result.synchronize();
    return out[0];
}

template <typename value_type, int rank>
void gpu_write(array_view<value_type, rank> dest, index<rank> idx, value_type value) {
    parallel_for_each(extent<1>(1), [=](index<1>) restrict(amp) { dest[idx] = value; });
}

// Checks the recorded values of a whole data set (`known` is 1 where
// `expected` holds a recorded value) against `data`; reports each wrong
// element and returns whether there was none.
template <typename value_type, int data_rank>
bool check_known_values(array_view<value_type, data_rank> data,
                        array_view<value_type, data_rank> expected,
                        array_view<int, data_rank> known) {
    int size = (int)data.get_extent().size();
    std::vector<value_type> actual_values(size);
    std::vector<value_type> expected_values(size);
    std::vector<int> known_flags(size);
    copy(data, actual_values.begin());
    copy(expected, expected_values.begin());
    copy(known, known_flags.begin());
    int failed = 0;
    for (int i = 0; i < size; i++) {
        if (known_flags[i] != 0 && actual_values[i] != expected_values[i]) {
            failed++;
            if (failed <= 20) {
                std::cout << "Known value at linear position " << i << " is "
                          << actual_values[i] << ", expected " << expected_values[i] << std::endl;
            }
        }
    }
    if (failed != 0) {
        std::cout << failed << " known values differ" << std::endl;
    }
    return failed == 0;
}

} // namespace details
} // namespace Test
} // namespace concurrency

// The library declares the templates below in Concurrency::Test; the
// language finds class templates and templates called with explicit
// arguments only at file scope yet, so they are declared there.

// An array_view of `ex` holding zeros.
template <typename value_type, int rank>
array_view<value_type, rank> amptest_zeroed_view(extent<rank> ex) {
    array_view<value_type, rank> v(ex);
    std::vector<value_type> zeros(ex.size(), 0);
    copy(zeros.begin(), zeros.end(), v);
    return v;
}

// The view under test may be read-only (`ArrayViewTest<const int, 3>`):
// the test then writes its data through a writable view of the same
// elements (`_data`), as the library does through the data's pointer.
template <typename _value_type, int _rank = 1, int _data_rank = _rank>
class ArrayViewTest {
public:
    // The element type without `const`: that of the data and the record.
    typedef typename std::remove_const<_value_type>::type data_type;

    // A view of `ex` zeros.
    ArrayViewTest(extent<_rank> ex)
        : _data(amptest_zeroed_view<data_type, _rank>(ex)),
          _view(_data),
          _expected(amptest_zeroed_view<data_type, _rank>(ex)),
          _known(amptest_zeroed_view<int, _rank>(ex)),
          _all_data(_data),
          _all_expected(_expected),
          _all_known(_known) {}

    // A view of a copy of `data`.
    ArrayViewTest(extent<_rank> ex, const std::vector<data_type>& data)
        : _data(amptest_zeroed_view<data_type, _rank>(ex)),
          _view(_data),
          _expected(amptest_zeroed_view<data_type, _rank>(ex)),
          _known(amptest_zeroed_view<int, _rank>(ex)),
          _all_data(_data),
          _all_expected(_expected),
          _all_known(_known) {
        copy(data.begin(), data.end(), _data);
    }

    // A part of another test's data: `view` (whose elements `data` writes)
    // with the matching parts of the record, and the whole data set and
    // record.
    ArrayViewTest(array_view<_value_type, _rank> view, array_view<data_type, _rank> data,
                  array_view<data_type, _rank> expected, array_view<int, _rank> known,
                  array_view<data_type, _data_rank> all_data,
                  array_view<data_type, _data_rank> all_expected,
                  array_view<int, _data_rank> all_known)
        : _data(data),
          _view(view),
          _expected(expected),
          _known(known),
          _all_data(all_data),
          _all_expected(all_expected),
          _all_known(all_known) {}

    // A test of `ex` holding `start`, `start + 1`, ... in row-major order.
    template <int start>
    static ArrayViewTest<_value_type, _rank, _data_rank> sequential(extent<_rank> ex) {
        std::vector<data_type> values(ex.size());
        for (int k = 0; k < (int)values.size(); k++) {
            values[k] = static_cast<data_type>(start + k);
        }
        ArrayViewTest<_value_type, _rank, _data_rank> t(ex, values);
        return t;
    }

    array_view<_value_type, _rank>& view() { return _view; }

    // The whole data set on the host, from its first element (rank-1 data).
    data_type* data() { return _all_data.data(); }

    ArrayViewTest<_value_type, _rank, _data_rank> section(index<_rank> origin) {
        return section(_view.section(origin), origin);
    }

    ArrayViewTest<_value_type, _rank, _data_rank> section(extent<_rank> ex) {
        return section(_view.section(ex), index<_rank>());
    }

    ArrayViewTest<_value_type, _rank, _data_rank> section(index<_rank> origin, extent<_rank> ex) {
        return section(_view.section(origin, ex), origin);
    }

    // `other` is the section of view() at `origin`.
    ArrayViewTest<_value_type, _rank, _data_rank> section(array_view<_value_type, _rank> other,
                                                          index<_rank> origin) {
        extent<_rank> ex = other.get_extent();
        return ArrayViewTest<_value_type, _rank, _data_rank>(
            other, _data.section(origin, ex), _expected.section(origin, ex),
            _known.section(origin, ex), _all_data, _all_expected, _all_known);
    }

    // The row `i` of this view (rank `_rank - 1`), sharing the data and the
    // record. A member template, so that it exists only where it is used
    // (a rank-1 test has no projection).
    template <int _r = _rank>
    ArrayViewTest<_value_type, _r - 1, _data_rank> projection(int i) {
        return ArrayViewTest<_value_type, _r - 1, _data_rank>(
            _view[i], _data[i], _expected[i], _known[i], _all_data, _all_expected, _all_known);
    }

    // `other` is row `i` of view().
    template <int _r = _rank>
    ArrayViewTest<_value_type, _r - 1, _data_rank> projection(array_view<_value_type, _r - 1> other,
                                                               int i) {
        return ArrayViewTest<_value_type, _r - 1, _data_rank>(
            other, _data[i], _expected[i], _known[i], _all_data, _all_expected, _all_known);
    }

    // The same elements seen with extent `ex` (row-major).
    template <int new_rank>
    ArrayViewTest<_value_type, new_rank, _data_rank> view_as(extent<new_rank> ex) {
        return ArrayViewTest<_value_type, new_rank, _data_rank>(
            _view.view_as(ex), _data.view_as(ex), _expected.view_as(ex), _known.view_as(ex),
            _all_data, _all_expected, _all_known);
    }

    // Writes `value` at `i` and records it.
    void set_value(index<_rank> i, data_type value) {
        set_known_value(i, value);
        concurrency::Test::details::gpu_write(_data, i, value);
    }

    // Records that the data holds `value` at `i` (of this view).
    void set_known_value(index<_rank> i, data_type value) {
        _expected[i] = value;
        _known[i] = 1;
    }

    // Whether every recorded value is in the data: runall_pass or
    // runall_fail.
    int pass() {
        if (!concurrency::Test::details::check_known_values(_all_data, _all_expected, _all_known)) {
            return fail();
        }
        std::cout << "Pass" << std::endl;
        return runall_pass;
    }

    int fail() {
        std::cout << "Fail" << std::endl;
        return runall_fail;
    }

    // The record of this view's elements: the values a test expects, and
    // 1 where a value is known.
    array_view<data_type, _rank>& expected_values() { return _expected; }
    array_view<int, _rank>& known_flags() { return _known; }

private:
    array_view<data_type, _rank> _data;
    array_view<_value_type, _rank> _view;
    array_view<data_type, _rank> _expected;
    array_view<int, _rank> _known;
    array_view<data_type, _data_rank> _all_data;
    array_view<data_type, _data_rank> _all_expected;
    array_view<int, _data_rank> _all_known;
};

// Checks that `section` (made from `original` at `origin`) and `original`
// see each other's writes, on the host and in kernels.
template <typename value_type, int rank>
bool TestSection(ArrayViewTest<value_type, rank>& original, ArrayViewTest<value_type, rank>& section,
                 index<rank> origin) {
    type_comparer<value_type> comparer;
    extent<rank> ex = section.view().get_extent();
    index<rank> original_on_gpu = concurrency::Test::details::random_index(origin, ex);
    index<rank> original_on_cpu = concurrency::Test::details::random_index(origin, ex);
    index<rank> section_on_gpu = concurrency::Test::details::random_index(origin, ex) - origin;

    value_type expected = static_cast<value_type>(rand());
    original.view()[original_on_cpu] = expected;
    original.set_known_value(original_on_cpu, expected);
    value_type actual = section.view()[original_on_cpu - origin];
    if (!comparer.are_equal(actual, expected)) {
        std::cout << "Reading the section on the host: " << actual << ", expected " << expected
                  << std::endl;
        return false;
    }

    expected = static_cast<value_type>(rand());
    concurrency::Test::details::gpu_write(section.view(), section_on_gpu, expected);
    section.set_known_value(section_on_gpu, expected);
    actual = original.view()[section_on_gpu + origin];
    if (!comparer.are_equal(actual, expected)) {
        std::cout << "Reading the original on the host: " << actual << ", expected " << expected
                  << std::endl;
        return false;
    }

    expected = static_cast<value_type>(rand());
    concurrency::Test::details::gpu_write(original.view(), original_on_gpu, expected);
    original.set_known_value(original_on_gpu, expected);
    actual = concurrency::Test::details::gpu_read(section.view(), original_on_gpu - origin);
    if (!comparer.are_equal(actual, expected)) {
        std::cout << "Reading the section in a kernel: " << actual << ", expected " << expected
                  << std::endl;
        return false;
    }

    expected = static_cast<value_type>(rand());
    section.view()[section_on_gpu] = expected;
    section.set_known_value(section_on_gpu, expected);
    actual = concurrency::Test::details::gpu_read(original.view(), section_on_gpu + origin);
    if (!comparer.are_equal(actual, expected)) {
        std::cout << "Reading the original in a kernel: " << actual << ", expected " << expected
                  << std::endl;
        return false;
    }
    return true;
}

template <typename value_type, int rank>
bool TestSection(ArrayViewTest<value_type, rank>& original, index<rank> origin) {
    ArrayViewTest<value_type, rank> section = original.section(origin);
    return TestSection(original, section, origin);
}

template <typename value_type, int rank>
bool TestSection(ArrayViewTest<value_type, rank>& original, index<rank> origin, extent<rank> ex) {
    ArrayViewTest<value_type, rank> section = original.section(origin, ex);
    return TestSection(original, section, origin);
}

template <typename value_type, int rank>
bool TestSection(ArrayViewTest<value_type, rank>& original, array_view<value_type, rank>& section_view,
                 index<rank> origin) {
    ArrayViewTest<value_type, rank> section = original.section(section_view, origin);
    return TestSection(original, section, origin);
}


// The index of the element at row-major position `linear` of `ex`.
template <int rank>
index<rank> amptest_index_at(int linear, extent<rank> ex) restrict(cpu, amp) {
    index<rank> idx;
    for (int d = rank - 1; d >= 0; d--) {
        idx[d] = linear % ex[d];
        linear = linear / ex[d];
    }
    return idx;
}

// OverlapTest<T, N>: whether two sections of one array_view see each
// other's data. Both tests fill the whole data set with one value on the
// host, write random values to the "remote" section in a kernel (recorded
// as known values), read the "local" section on the host and look at what
// changed there: a positive test expects the overlapping elements (the
// known ones) to hold the remote values and the others the filled value,
// a negative test expects nothing to have changed.
//
// The members taking two sections are member templates, so that the
// sections may have other ranks than the data (a projection, a view_as).
template <typename value_type, int rank>
class OverlapTest {
public:
    OverlapTest(ArrayViewTest<value_type, rank> original) : _original(original) {}

    OverlapTest(extent<rank> original_extent) : _original(original_extent) {}

    ArrayViewTest<value_type, rank>& original() { return _original; }

    bool positive_test(index<rank> local_origin, extent<rank> local_extent, index<rank> remote_origin,
                       extent<rank> remote_extent) {
        ArrayViewTest<value_type, rank> local = _original.section(local_origin, local_extent);
        ArrayViewTest<value_type, rank> remote = _original.section(remote_origin, remote_extent);
        return positive_test(local, remote);
    }

    // True when the sections are seen to overlap: some element of `local`
    // holds a value written to `remote`, and every other one is unchanged.
    template <int local_rank, int remote_rank>
    bool positive_test(ArrayViewTest<value_type, local_rank, rank>& local,
                       ArrayViewTest<value_type, remote_rank, rank>& remote) {
        value_type local_value = static_cast<value_type>(rand());
        write_local(local_value);
        write_remote(remote);

        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Performing implicit synchronize on the local section" << std::endl;
        local.view()[index<local_rank>()];

        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Looking for changes in the local section" << std::endl;
        array_view<value_type, local_rank> data = local.view();
        array_view<value_type, local_rank> expected = local.expected_values();
        array_view<int, local_rank> known = local.known_flags();
        extent<local_rank> ex = data.get_extent();
        int size = (int)ex.size();
        int unexpected_changes = 0;
        int known_values_checked = 0;
        for (int k = 0; k < size; k++) {
            index<local_rank> i = amptest_index_at(k, ex);
            value_type actual_value = data[i];
            if (known[i] == 0) {
                if (actual_value != local_value) {
                    concurrency::Test::Log(concurrency::Test::LogType::Error, true) << "Mismatch at local position " << k << ": expected "
                                              << local_value << ", actual " << actual_value << std::endl;
                    unexpected_changes++;
                }
            } else {
                known_values_checked++;
                if (actual_value != expected[i]) {
                    concurrency::Test::Log(concurrency::Test::LogType::Error, true) << "Mismatch at local position " << k << ": expected "
                                              << expected[i] << ", actual " << actual_value << std::endl;
                    unexpected_changes++;
                }
            }
        }
        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << unexpected_changes << " unexpected changes found" << std::endl;
        if (known_values_checked == 0) {
            concurrency::Test::Log(concurrency::Test::LogType::Error, true) << "No known value in the local section: the sections do not overlap"
                                      << std::endl;
        } else {
            concurrency::Test::Log(concurrency::Test::LogType::Info, true) << known_values_checked << " overlapping elements found" << std::endl;
        }

        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Performing implicit synchronize on the remote section" << std::endl;
        remote.view()[index<remote_rank>()];
        return unexpected_changes == 0 && known_values_checked > 0;
    }

    bool negative_test(index<rank> local_origin, extent<rank> local_extent, index<rank> remote_origin,
                       extent<rank> remote_extent) {
        ArrayViewTest<value_type, rank> local = _original.section(local_origin, local_extent);
        ArrayViewTest<value_type, rank> remote = _original.section(remote_origin, remote_extent);
        return negative_test(local, remote);
    }

    // True when the sections are seen not to overlap: writing `remote`
    // changed no element of `local`.
    template <int local_rank, int remote_rank>
    bool negative_test(ArrayViewTest<value_type, local_rank, rank>& local,
                       ArrayViewTest<value_type, remote_rank, rank>& remote) {
        value_type local_value = static_cast<value_type>(rand());
        write_local(local_value);
        write_remote(remote);

        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Performing implicit synchronize on the local section" << std::endl;
        local.view()[index<local_rank>()];

        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Looking for changes in the local section" << std::endl;
        array_view<value_type, local_rank> data = local.view();
        extent<local_rank> ex = data.get_extent();
        int size = (int)ex.size();
        int changes = 0;
        for (int k = 0; k < size; k++) {
            value_type actual_value = data[amptest_index_at(k, ex)];
            if (actual_value != local_value) {
                concurrency::Test::Log(concurrency::Test::LogType::Error, true) << "Mismatch at local position " << k << ": expected " << local_value
                                          << ", actual " << actual_value << std::endl;
                changes++;
            }
        }
        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << changes << " changes found" << std::endl;

        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Performing implicit synchronize on the remote section" << std::endl;
        remote.view()[index<remote_rank>()];
        return changes == 0;
    }

    int pass() { return _original.pass(); }

    int fail() { return _original.fail(); }

private:
    // Every element of the data set holds `value`, written on the host and
    // not recorded.
    void write_local(value_type value) {
        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Writing " << value << " to every element on the host" << std::endl;
        array_view<value_type, rank> data = _original.view();
        std::vector<value_type> values(data.get_extent().size(), value);
        copy(values.begin(), values.end(), data);
    }

    // Random values written to `remote` in a kernel, and recorded.
    template <int remote_rank>
    void write_remote(ArrayViewTest<value_type, remote_rank, rank>& remote) {
        array_view<value_type, remote_rank> remote_av = remote.view();
        extent<remote_rank> ex = remote_av.get_extent();
        std::vector<value_type> random_data(ex.size());
        Fill(random_data);
        array_view<value_type, remote_rank> random_av(ex, random_data);

        concurrency::Test::Log(concurrency::Test::LogType::Info, true) << "Writing random data to the remote section in a kernel" << std::endl;
        parallel_for_each(ex, [=](index<remote_rank> i) restrict(amp) { remote_av[i] = random_av[i]; });

        int size = (int)ex.size();
        for (int k = 0; k < size; k++) {
            index<remote_rank> i = amptest_index_at(k, ex);
            remote.set_known_value(i, random_av[i]);
        }
    }

    ArrayViewTest<value_type, rank> _original;
};
