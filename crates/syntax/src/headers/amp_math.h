// The parts of <amp_math.h>'s precise_math and fast_math that are plain
// functions over the built-in math: classification, and the functions that
// store a second result through a pointer (modf, frexp, sincos), as
// <cmath>'s are written (see cmath.h). Tessera reads this text when a
// program includes <amp_math.h>.
#pragma once

namespace concurrency {

// In amp code: the same functions, returning `int` for the tests as
// <amp_math.h> does, over the accelerator's math.
namespace precise_math {

inline int isnan(float x) restrict(amp) { return x != x; }
inline int isnan(double x) restrict(amp) { return x != x; }
inline int isinf(float x) restrict(amp) { return x == x && x - x != x - x; }
inline int isinf(double x) restrict(amp) { return x == x && x - x != x - x; }
inline int isfinite(float x) restrict(amp) { return x - x == x - x; }
inline int isfinite(double x) restrict(amp) { return x - x == x - x; }
inline int isnormal(float x) restrict(amp) {
    return x - x == x - x && (x >= 1.17549435e-38f || x <= -1.17549435e-38f);
}
inline int isnormal(double x) restrict(amp) {
    return x - x == x - x && (x >= 2.2250738585072014e-308 || x <= -2.2250738585072014e-308);
}
inline int signbit(float x) restrict(amp) { return concurrency::precise_math::copysign(1.0f, x) < 0.0f; }
inline int signbit(double x) restrict(amp) { return concurrency::precise_math::copysign(1.0, x) < 0.0; }

inline float modf(float x, float* ip) restrict(amp) {
    float whole = concurrency::precise_math::trunc(x);
    *ip = whole;
    if (whole == x) {
        return concurrency::precise_math::copysign(0.0f, x);
    }
    return x - whole;
}
inline double modf(double x, double* ip) restrict(amp) {
    double whole = concurrency::precise_math::trunc(x);
    *ip = whole;
    if (whole == x) {
        return concurrency::precise_math::copysign(0.0, x);
    }
    return x - whole;
}
inline float modff(float x, float* ip) restrict(amp) { return modf(x, ip); }

inline float frexp(float x, int* e) restrict(amp) {
    *e = 0;
    if (x == 0.0f || x != x || x - x != x - x) {
        return x;
    }
    float m = concurrency::precise_math::fabs(x);
    int k = 0;
    while (m >= 1.0f) {
        m = m * 0.5f;
        k++;
    }
    while (m < 0.5f) {
        m = m * 2.0f;
        k--;
    }
    *e = k;
    return concurrency::precise_math::copysign(m, x);
}
inline double frexp(double x, int* e) restrict(amp) {
    *e = 0;
    if (x == 0.0 || x != x || x - x != x - x) {
        return x;
    }
    double m = concurrency::precise_math::fabs(x);
    int k = 0;
    while (m >= 1.0) {
        m = m * 0.5;
        k++;
    }
    while (m < 0.5) {
        m = m * 2.0;
        k--;
    }
    *e = k;
    return concurrency::precise_math::copysign(m, x);
}
inline float frexpf(float x, int* e) restrict(amp) { return frexp(x, e); }

inline void sincos(float x, float* s, float* c) restrict(amp) {
    *s = concurrency::precise_math::sin(x);
    *c = concurrency::precise_math::cos(x);
}
inline void sincos(double x, double* s, double* c) restrict(amp) {
    *s = concurrency::precise_math::sin(x);
    *c = concurrency::precise_math::cos(x);
}
inline void sincosf(float x, float* s, float* c) restrict(amp) { sincos(x, s, c); }

} // namespace precise_math

namespace fast_math {

inline int isnan(float x) restrict(amp) { return x != x; }
inline int isinf(float x) restrict(amp) { return x == x && x - x != x - x; }
inline int isfinite(float x) restrict(amp) { return x - x == x - x; }
inline int signbit(float x) restrict(amp) { return x < 0.0f || (x == 0.0f && 1.0f / x < 0.0f); }

inline float modf(float x, float* ip) restrict(amp) {
    float whole = concurrency::fast_math::trunc(x);
    *ip = whole;
    return x - whole;
}
inline float modff(float x, float* ip) restrict(amp) { return modf(x, ip); }

inline float frexp(float x, int* e) restrict(amp) {
    *e = 0;
    if (x == 0.0f || x != x || x - x != x - x) {
        return x;
    }
    float m = concurrency::fast_math::fabs(x);
    int k = 0;
    while (m >= 1.0f) {
        m = m * 0.5f;
        k++;
    }
    while (m < 0.5f) {
        m = m * 2.0f;
        k--;
    }
    *e = k;
    return x < 0.0f ? -m : m;
}
inline float frexpf(float x, int* e) restrict(amp) { return frexp(x, e); }

inline void sincos(float x, float* s, float* c) restrict(amp) {
    *s = concurrency::fast_math::sin(x);
    *c = concurrency::fast_math::cos(x);
}
inline void sincosf(float x, float* s, float* c) restrict(amp) { sincos(x, s, c); }

} // namespace fast_math
} // namespace concurrency
