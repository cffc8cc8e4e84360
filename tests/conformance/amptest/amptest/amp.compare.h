// Comparing results with expected values. The library writes these as
// templates over the element type; the language has no templates yet, so
// each element type the tests use has its own overload.
#pragma once

#include <iostream>
#include <vector>
#include <amptest/math.h>
#include <amptest/runall.h>

namespace Concurrency {
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

// Reports one wrong element (the first 20, as the library does) and
// returns the new count of wrong elements.
inline int count_failure(int failed, int i) {
    failed = failed + 1;
    if (failed == 1) {
        std::cout << "Verify found elements with incorrect values:" << std::endl;
    }
    if (failed <= 20) {
        std::cout << "   at [" << i << "]" << std::endl;
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

// Whether `c` (actual) holds the values of `refc` (expected): exactly for
// integers, within the default tolerances for floating-point types.
inline bool Verify(const std::vector<int>& c, const std::vector<int>& refc) {
    if (c.size() != refc.size()) {
        return false;
    }
    int failed = 0;
    for (int i = 0; i < (int)refc.size(); i++) {
        if (!(refc[i] == c[i])) {
            failed = details::count_failure(failed, i);
        }
    }
    return details::finish_verify(failed, (int)refc.size());
}

inline bool Verify(const std::vector<unsigned int>& c, const std::vector<unsigned int>& refc) {
    if (c.size() != refc.size()) {
        return false;
    }
    int failed = 0;
    for (int i = 0; i < (int)refc.size(); i++) {
        if (!(refc[i] == c[i])) {
            failed = details::count_failure(failed, i);
        }
    }
    return details::finish_verify(failed, (int)refc.size());
}

inline bool Verify(const std::vector<long>& c, const std::vector<long>& refc) {
    if (c.size() != refc.size()) {
        return false;
    }
    int failed = 0;
    for (int i = 0; i < (int)refc.size(); i++) {
        if (!(refc[i] == c[i])) {
            failed = details::count_failure(failed, i);
        }
    }
    return details::finish_verify(failed, (int)refc.size());
}

inline bool Verify(const std::vector<float>& c, const std::vector<float>& refc) {
    if (c.size() != refc.size()) {
        return false;
    }
    int failed = 0;
    for (int i = 0; i < (int)refc.size(); i++) {
        if (!amptest_math::are_almost_equal(refc[i], c[i])) {
            failed = details::count_failure(failed, i);
        }
    }
    return details::finish_verify(failed, (int)refc.size());
}

inline bool Verify(const std::vector<double>& c, const std::vector<double>& refc) {
    if (c.size() != refc.size()) {
        return false;
    }
    int failed = 0;
    for (int i = 0; i < (int)refc.size(); i++) {
        if (!amptest_math::are_almost_equal(refc[i], c[i])) {
            failed = details::count_failure(failed, i);
        }
    }
    return details::finish_verify(failed, (int)refc.size());
}

} // namespace Test
} // namespace Concurrency
