// Comparing results with expected values: AreEqual, AreAlmostEqual and
// Verify of two std::vectors element by element.
#pragma once

#include <iostream>
#include <vector>
#include <deque>
#include <list>
#include <type_traits>
#include <amp.h>
#include <sstream>
#include <amptest/math.h>
#include <amptest/compare.h>
#include <amptest/runall.h>

namespace concurrency {
namespace Test {

inline bool AreAlmostEqual(float v1, float v2, const float maxAbsoluteDiff = DEFAULT_MAX_ABS_DIFF_FLT,
                           const float maxRelativeDiff = DEFAULT_MAX_REL_DIFF_FLT) restrict(cpu, amp) {
    return amptest_math::are_almost_equal(v1, v2, maxAbsoluteDiff, maxRelativeDiff);
}

inline bool AreAlmostEqual(double v1, double v2, const double maxAbsoluteDiff = DEFAULT_MAX_ABS_DIFF_DBL,
                           const double maxRelativeDiff = DEFAULT_MAX_REL_DIFF_DBL) restrict(cpu, amp) {
    return amptest_math::are_almost_equal(v1, v2, maxAbsoluteDiff, maxRelativeDiff);
}

namespace details {

// Equal when neither is less than the other, so T needs only `<`. (The
// library keeps this older form beside AreEqual; tests call it by its
// qualified name.)
template <typename T>
bool AreEqual(const T& v1, const T& v2) restrict(cpu, amp) {
    return !(v1 < v2) && !(v2 < v1);
}

// Reports one wrong element (the first 20) and returns the new count of
// wrong elements.
template <typename T>
int count_failure(int failed, int i, const T& expected, const T& actual) {
    failed = failed + 1;
    if (failed == 1) {
        std::cout << "Verify found elements with incorrect values:" << std::endl;
    }
    if (failed <= 20) {
        std::cout << "   [" << i << "] = " << actual << ", expected " << expected << std::endl;
    } else if (failed == 21) {
        std::cout << "      and more..." << std::endl;
    }
    return failed;
}

inline bool finish_verify(int failed, int size) {
    if (failed != 0) {
        std::cout << "      " << failed << " out of " << size << " elements failed." << std::endl;
    }
    return failed == 0;
}

} // namespace details
} // namespace Test
} // namespace concurrency

// The library declares the templates below in Concurrency::Test; the
// language finds templates called with explicit arguments (`Verify<int>`)
// only at file scope yet, so they are declared there.

// Equal when neither is less than the other, so T needs only `<`.
template <typename T>
bool AreEqual(const T& v1, const T& v2) restrict(cpu, amp) {
    return !(v1 < v2) && !(v2 < v1);
}

// Whether `c` (actual) holds the values of `refc` (expected), each pair
// compared with `comparer`.
template <typename T>
bool Verify(const std::vector<T>& c, const std::vector<T>& refc,
            type_comparer<T> comparer = type_comparer<T>()) {
    if (c.size() != refc.size()) {
        std::cout << "Verify: the vectors differ in size: " << c.size() << " and " << refc.size()
                  << std::endl;
        return false;
    }
    int failed = 0;
    int size = (int)refc.size();
    for (int i = 0; i < size; i++) {
        if (!comparer.are_equal(c[i], refc[i])) {
            failed = Concurrency::Test::details::count_failure(failed, i, refc[i], c[i]);
        }
    }
    return Concurrency::Test::details::finish_verify(failed, size);
}

// Whether the `size` elements from `c` (actual) hold those from `refc`
// (expected): C arrays, or what pointers point to.
template <typename T>
bool Verify(const T* c, const T* refc, size_t size, type_comparer<T> comparer) {
    int failed = 0;
    int count = (int)size;
    for (int i = 0; i < count; i++) {
        if (!comparer.are_equal(c[i], refc[i])) {
            failed = Concurrency::Test::details::count_failure(failed, i, refc[i], c[i]);
        }
    }
    return Concurrency::Test::details::finish_verify(failed, count);
}

// The library gives the comparer a default; a separate overload here,
// since the checker does not yet pick a template that needs a default
// argument, called with explicit template arguments (`Verify<int>(a, b,
// n)`), beside one that takes that many arguments (the std::vector form).
template <typename T>
bool Verify(const T* c, const T* refc, size_t size) {
    return Verify(c, refc, size, type_comparer<typename std::remove_const<T>::type>());
}

// The comparer with the given tolerances: float and double have them;
// other types compare exactly.
template <typename T>
struct amptest_tolerance {
    static type_comparer<T> comparer(double, double) { return type_comparer<T>(); }
};

template <>
struct amptest_tolerance<float> {
    static type_comparer<float> comparer(double abs_diff, double rel_diff) {
        return type_comparer<float>((float)abs_diff, (float)rel_diff);
    }
};

template <>
struct amptest_tolerance<double> {
    static type_comparer<double> comparer(double abs_diff, double rel_diff) {
        return type_comparer<double>(abs_diff, rel_diff);
    }
};

// The same with the tolerances given (for float and double).
template <typename T>
bool Verify(const std::vector<T>& c, const std::vector<T>& refc, double maxAbsoluteDiff,
            double maxRelativeDiff) {
    return Verify(c, refc, amptest_tolerance<T>::comparer(maxAbsoluteDiff, maxRelativeDiff));
}

template <typename T>
bool Verify(const T* c, const T* refc, size_t size, double maxAbsoluteDiff, double maxRelativeDiff) {
    return Verify(c, refc, size, amptest_tolerance<T>::comparer(maxAbsoluteDiff, maxRelativeDiff));
}

// The elements of an array or array_view, copied to the host in row order.
template <typename T, int N>
std::vector<T> amptest_host_values(const array<T, N>& src) {
    std::vector<T> values(src.get_extent().size());
    copy(src, values.begin());
    return values;
}

template <typename T, int N>
std::vector<T> amptest_host_values(const array_view<T, N>& src) {
    std::vector<T> values(src.get_extent().size());
    copy(src, values.begin());
    return values;
}

template <typename T, int N>
std::vector<T> amptest_host_values(const array_view<const T, N>& src) {
    std::vector<T> values(src.get_extent().size());
    copy(src, values.begin());
    return values;
}

// Whether each expected value minus the actual one is `diff`; reports the
// first element where it is not.
template <typename T>
bool amptest_differ_by(const std::vector<T>& actual, const std::vector<T>& expected, T diff) {
    if (actual.size() != expected.size()) {
        std::cout << "Size of actual (" << actual.size() << ") and expected (" << expected.size()
                  << ") do not match." << std::endl;
        return false;
    }
    for (int i = 0; i < (int)actual.size(); i++) {
        if (!(expected[i] - actual[i] == diff)) {
            std::cout << "First mismatch at element " << i << ": actual " << actual[i]
                      << ", expected " << expected[i] << std::endl;
            return false;
        }
    }
    return true;
}

// Whether the data of `actual` and `expected` (arrays, array_views or
// std::vectors) differ by `diff` in every element, compared on the host.
template <typename T, int N>
bool VerifyDataOnCpu(const array<T, N>& actual, const array<T, N>& expected, T diff = 0) {
    return actual.get_extent() == expected.get_extent() &&
           amptest_differ_by(amptest_host_values(actual), amptest_host_values(expected), diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array<T, N>& actual, const array_view<T, N>& expected, T diff = 0) {
    return actual.get_extent() == expected.get_extent() &&
           amptest_differ_by(amptest_host_values(actual), amptest_host_values(expected), diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<T, N>& actual, const array<T, N>& expected, T diff = 0) {
    return actual.get_extent() == expected.get_extent() &&
           amptest_differ_by(amptest_host_values(actual), amptest_host_values(expected), diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<T, N>& actual, const array_view<T, N>& expected, T diff = 0) {
    return actual.get_extent() == expected.get_extent() &&
           amptest_differ_by(amptest_host_values(actual), amptest_host_values(expected), diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array<T, N>& actual, const std::vector<T>& expected, T diff = 0) {
    return amptest_differ_by(amptest_host_values(actual), expected, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<T, N>& actual, const std::vector<T>& expected, T diff = 0) {
    return amptest_differ_by(amptest_host_values(actual), expected, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const std::vector<T>& actual, const array<T, N>& expected, T diff = 0) {
    return amptest_differ_by(actual, amptest_host_values(expected), diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const std::vector<T>& actual, const array_view<T, N>& expected, T diff = 0) {
    return amptest_differ_by(actual, amptest_host_values(expected), diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<const T, N>& actual, const std::vector<T>& expected, T diff = 0) {
    return amptest_differ_by(amptest_host_values(actual), expected, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<const T, N>& actual, const array<T, N>& expected, T diff = 0) {
    return amptest_differ_by(amptest_host_values(actual), amptest_host_values(expected), diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<const T, N>& actual, const array_view<T, N>& expected, T diff = 0) {
    return amptest_differ_by(amptest_host_values(actual), amptest_host_values(expected), diff);
}

// The library takes any standard container as the expected data; here
// std::deque and std::list, whose elements are copied to a std::vector.
template <typename T, int N>
bool VerifyDataOnCpu(const array<T, N>& actual, const std::deque<T>& expected, T diff = 0) {
    std::vector<T> values(expected.begin(), expected.end());
    return amptest_differ_by(amptest_host_values(actual), values, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<T, N>& actual, const std::deque<T>& expected, T diff = 0) {
    std::vector<T> values(expected.begin(), expected.end());
    return amptest_differ_by(amptest_host_values(actual), values, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<const T, N>& actual, const std::deque<T>& expected, T diff = 0) {
    std::vector<T> values(expected.begin(), expected.end());
    return amptest_differ_by(amptest_host_values(actual), values, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array<T, N>& actual, const std::list<T>& expected, T diff = 0) {
    std::vector<T> values(expected.begin(), expected.end());
    return amptest_differ_by(amptest_host_values(actual), values, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<T, N>& actual, const std::list<T>& expected, T diff = 0) {
    std::vector<T> values(expected.begin(), expected.end());
    return amptest_differ_by(amptest_host_values(actual), values, diff);
}

template <typename T, int N>
bool VerifyDataOnCpu(const array_view<const T, N>& actual, const std::list<T>& expected, T diff = 0) {
    std::vector<T> values(expected.begin(), expected.end());
    return amptest_differ_by(amptest_host_values(actual), values, diff);
}

// -1 when every element equals `value` (by type_comparer<T>), otherwise
// the position of the first that does not; reports the wrong elements.
template <typename T>
int VerifyAllSameValue(const std::vector<T>& input, const T& value) {
    type_comparer<T> comparer;
    int first = -1;
    int failed = 0;
    for (int i = 0; i < (int)input.size(); i++) {
        if (!comparer.are_equal(input[i], value)) {
            if (first == -1) {
                first = i;
            }
            failed = concurrency::Test::details::count_failure(failed, i, value, input[i]);
        }
    }
    concurrency::Test::details::finish_verify(failed, (int)input.size());
    return first;
}

template <typename T, int N>
int VerifyAllSameValue(const array<T, N>& input, const T& value) {
    return VerifyAllSameValue(amptest_host_values(input), value);
}

template <typename T, int N>
int VerifyAllSameValue(const array_view<T, N>& input, const T& value) {
    return VerifyAllSameValue(amptest_host_values(input), value);
}

namespace concurrency {
namespace Test {

// A predicate: whether the expected value minus the actual one is `diff`.
template <typename T>
class Difference {
public:
    Difference(T d) : diff(d) {}

    bool operator()(T actualValue, T expectedValue) const {
        return expectedValue - actualValue == diff;
    }

private:
    T diff;
};

// Whether `pred(actual, expected)` holds for each pair of elements of the
// two ranges; the first pair where it does not is logged.
template <typename It1, typename It2, typename Pred>
bool Equal(It1 begin_actual, It1 end_actual, It2 begin_expected, Pred pred) {
    std::pair<It1, It2> result = std::mismatch(begin_actual, end_actual, begin_expected, pred);
    if (result.first == end_actual) {
        return true;
    }
    std::cout << "Result mismatch between two iterators" << std::endl;
    std::cout << "First mismatch at element number: " << (result.first - begin_actual) << std::endl;
    return false;
}

// Tests also name these by their namespace (`Test::Verify(c, refc)`).
using ::Verify;

} // namespace Test
} // namespace concurrency
