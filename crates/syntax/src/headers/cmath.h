// The parts of <cmath> that are plain functions over the built-in math:
// the classification functions (isnan, isinf, isfinite, isnormal,
// signbit) and the functions that store a second result through a
// pointer (modf, frexp). Tessera reads this text when a program includes
// <cmath> or <math.h>. The results are exact: modf splits with trunc,
// frexp scales by powers of two (each step exact), as the C library does.
#pragma once

namespace std {

inline bool isnan(double x) { return x != x; }
inline bool isnan(float x) { return x != x; }
inline bool isnan(int x) { return false; }
// Infinite: not NaN, and infinity minus itself is NaN.
inline bool isinf(double x) { return x == x && x - x != x - x; }
inline bool isinf(float x) { return x == x && x - x != x - x; }
inline bool isinf(int x) { return false; }
inline bool isfinite(double x) { return x - x == x - x; }
inline bool isfinite(float x) { return x - x == x - x; }
inline bool isfinite(int x) { return true; }
inline bool isnormal(double x) {
    return x - x == x - x && (x >= 2.2250738585072014e-308 || x <= -2.2250738585072014e-308);
}
inline bool isnormal(float x) {
    return x - x == x - x && (x >= 1.17549435e-38f || x <= -1.17549435e-38f);
}
// The sign bit, also of -0.0 and of NaNs.
inline bool signbit(double x) { return copysign(1.0, x) < 0.0; }
inline bool signbit(float x) { return copysign(1.0f, x) < 0.0f; }

// The integral part to `*ip`, the fractional part returned; both carry
// the sign of `x` (modf(-3.0) is -0.0), and modf(inf) is 0 with *ip = inf.
inline double modf(double x, double* ip) {
    double whole = trunc(x);
    *ip = whole;
    if (whole == x) {
        return copysign(0.0, x);
    }
    return x - whole;
}
inline float modf(float x, float* ip) {
    float whole = trunc(x);
    *ip = whole;
    if (whole == x) {
        return copysign(0.0f, x);
    }
    return x - whole;
}
inline float modff(float x, float* ip) { return modf(x, ip); }

// x = m * 2^e with 0.5 <= |m| < 1; zero, infinities and NaN are returned
// as they are with e = 0.
inline double frexp(double x, int* e) {
    *e = 0;
    if (x == 0.0 || x != x || x - x != x - x) {
        return x;
    }
    double m = fabs(x);
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
    return copysign(m, x);
}
inline float frexp(float x, int* e) {
    *e = 0;
    if (x == 0.0f || x != x || x - x != x - x) {
        return x;
    }
    float m = fabs(x);
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
    return copysign(m, x);
}
inline float frexpf(float x, int* e) { return frexp(x, e); }

} // namespace std

// <math.h> declares the same functions at file scope.
using std::isnan;
using std::isinf;
using std::isfinite;
using std::isnormal;
using std::signbit;
using std::modf;
using std::modff;
using std::frexp;
using std::frexpf;
