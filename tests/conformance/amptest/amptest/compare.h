// type_comparer<T>: how the tests decide that a computed value equals the
// expected one. Exact equality by default; within a tolerance for float
// and double.
#pragma once

#include <iostream>
#include <amp.h>
#include <amptest/restrict.h>
#include <amptest/math.h>

// The library declares these in Concurrency::Test; the language finds
// class templates only at file scope yet, so they are declared there and
// the tests' `using namespace Concurrency::Test;` is not needed to name
// them.
template <typename T>
struct type_comparer {
    type_comparer() restrict(cpu, amp) {}

    bool are_equal(const T& actual, const T& expected) const restrict(cpu, amp) {
        return expected == actual;
    }

    bool isnan(const T&) const restrict(cpu, amp) { return false; }
};

template <>
struct type_comparer<float> {
    float max_abs_diff;
    float max_rel_diff;

    type_comparer(float abs_diff = DEFAULT_MAX_ABS_DIFF_FLT,
                  float rel_diff = DEFAULT_MAX_REL_DIFF_FLT) restrict(cpu, amp)
        : max_abs_diff(abs_diff), max_rel_diff(rel_diff) {}

    bool are_equal(const float& actual, const float& expected) const restrict(cpu, amp) {
        return Concurrency::Test::amptest_math::are_almost_equal(actual, expected, max_abs_diff, max_rel_diff);
    }

    bool isnan(float v) const restrict(cpu, amp) { return Concurrency::Test::amptest_math::isnan(v); }
};

template <>
struct type_comparer<double> {
    double max_abs_diff;
    double max_rel_diff;

    type_comparer(double abs_diff = DEFAULT_MAX_ABS_DIFF_DBL,
                  double rel_diff = DEFAULT_MAX_REL_DIFF_DBL) restrict(cpu, amp)
        : max_abs_diff(abs_diff), max_rel_diff(rel_diff) {}

    bool are_equal(const double& actual, const double& expected) const restrict(cpu, amp) {
        return Concurrency::Test::amptest_math::are_almost_equal(actual, expected, max_abs_diff, max_rel_diff);
    }

    bool isnan(double v) const restrict(cpu, amp) { return Concurrency::Test::amptest_math::isnan(v); }
};


// compose_incorrect_element_message(idx, expected, actual): the message
// for one wrong element, written to a stream: `Log(...) << message`. The
// library builds a std::string; the language has no strings, so the
// message is an object that writes itself. It holds the values as
// `double` (the checker does not yet find an `operator<<` template for a
// class template), which is exact for the integer and float values the
// tests report.
struct amptest_element_message {
    int rank; // 0 for a plain position
    int coordinates[8];
    double expected;
    double actual;
};

inline std::ostream& operator<<(std::ostream& os, const amptest_element_message& message) {
    os << "Element at index ";
    if (message.rank == 0) {
        os << message.coordinates[0];
    } else {
        os << "{";
        for (int d = 0; d < message.rank; d++) {
            if (d > 0) {
                os << ",";
            }
            os << message.coordinates[d];
        }
        os << "}";
    }
    os << " is incorrect. Expected: " << message.expected << " Actual: " << message.actual;
    return os;
}

inline void amptest_set_position(amptest_element_message& message, int idx) {
    message.rank = 0;
    message.coordinates[0] = idx;
}

template <int rank>
void amptest_set_position(amptest_element_message& message, const index<rank>& idx) {
    message.rank = rank < 8 ? rank : 8;
    for (int d = 0; d < message.rank; d++) {
        message.coordinates[d] = idx[d];
    }
}

template <typename Tidx, typename Texpected, typename Tactual>
amptest_element_message compose_incorrect_element_message(Tidx idx, Texpected expected, Tactual actual) {
    amptest_element_message message;
    amptest_set_position(message, idx);
    message.expected = (double)expected;
    message.actual = (double)actual;
    return message;
}
