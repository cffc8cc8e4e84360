// Comparing floating-point results within a tolerance.
#pragma once

#include <amp_math.h>
#include <limits>
#include <amptest/restrict.h>

#define DEFAULT_MAX_ABS_DIFF_FLT 0.000005f
#define DEFAULT_MAX_REL_DIFF_FLT 0.0001f
#define DEFAULT_MAX_ABS_DIFF_DBL 0.00000000005
#define DEFAULT_MAX_REL_DIFF_DBL 0.0001

namespace concurrency {
namespace Test {
namespace amptest_math {

inline bool isnan(float v) restrict(cpu, amp) { return v != v; }
inline bool isnan(double v) restrict(cpu, amp) { return v != v; }
inline float fabs(float v) restrict(cpu, amp) { return v < 0.0f ? -v : v; }
inline double fabs(double v) restrict(cpu, amp) { return v < 0.0 ? -v : v; }

// Equal, or within max_abs_diff of each other, or apart by less than
// max_rel_diff times the larger magnitude; never when one is NaN.
inline bool are_almost_equal(float v1, float v2, const float max_abs_diff = DEFAULT_MAX_ABS_DIFF_FLT,
                             const float max_rel_diff = DEFAULT_MAX_REL_DIFF_FLT) restrict(cpu, amp) {
    if (v1 == v2) {
        return true;
    }
    if (isnan(v1) || isnan(v2)) {
        return false;
    }
    if (fabs(v1 - v2) < max_abs_diff) {
        return true;
    }
    float larger = fabs(v1) > fabs(v2) ? fabs(v1) : fabs(v2);
    return fabs(v1 - v2) < max_rel_diff * larger;
}

inline bool are_almost_equal(double v1, double v2, const double max_abs_diff = DEFAULT_MAX_ABS_DIFF_DBL,
                             const double max_rel_diff = DEFAULT_MAX_REL_DIFF_DBL) restrict(cpu, amp) {
    if (v1 == v2) {
        return true;
    }
    if (isnan(v1) || isnan(v2)) {
        return false;
    }
    if (fabs(v1 - v2) < max_abs_diff) {
        return true;
    }
    double larger = fabs(v1) > fabs(v2) ? fabs(v1) : fabs(v2);
    return fabs(v1 - v2) < max_rel_diff * larger;
}

} // namespace amptest_math
} // namespace Test
} // namespace concurrency
