// <chrono> (with <ratio>'s ratios), written in the Tessera language: the
// durations, time points and the three clocks, as libstdc++ defines them.
// A duration holds a count of ticks of `_Period` seconds; converting
// between periods multiplies or divides by the reduced ratio of the two,
// in the common type of the two counts (so a count of nanoseconds made a
// `duration<double, std::milli>` keeps its fraction, and one made
// `milliseconds` by `duration_cast` is truncated). `now()` reads the clock
// through `__tessera_clock_ns`, a built-in. Tessera reads this text when a
// program includes <chrono> or <ratio>.
#pragma once
#include <type_traits>

namespace std {

template <long _Num, long _Den = 1>
struct ratio {
    static const long num = _Num;
    static const long den = _Den;
};

typedef ratio<1, 1000000000> nano;
typedef ratio<1, 1000000> micro;
typedef ratio<1, 1000> milli;
typedef ratio<1, 100> centi;
typedef ratio<1, 10> deci;
typedef ratio<10, 1> deca;
typedef ratio<100, 1> hecto;
typedef ratio<1000, 1> kilo;

namespace chrono {

inline long __gcd_ticks(long __a, long __b) {
    while (__b != 0) {
        long __t = __a % __b;
        __a = __b;
        __b = __t;
    }
    return __a < 0 ? -__a : __a;
}

// A count scaled by num/den (already reduced), as libstdc++'s
// `duration_cast` does: only a division when num is 1, only a product when
// den is 1, both otherwise.
inline long __scale_ticks(long __c, long __num, long __den) {
    if (__num == 1 && __den == 1) return __c;
    if (__num == 1) return __c / __den;
    if (__den == 1) return __c * __num;
    return __c * __num / __den;
}
inline double __scale_ticks(double __c, long __num, long __den) {
    if (__num == 1 && __den == 1) return __c;
    if (__num == 1) return __c / (double)__den;
    if (__den == 1) return __c * (double)__num;
    return __c * (double)__num / (double)__den;
}
inline float __scale_ticks(float __c, long __num, long __den) {
    if (__num == 1 && __den == 1) return __c;
    if (__num == 1) return __c / (float)__den;
    if (__den == 1) return __c * (float)__num;
    return __c * (float)__num / (float)__den;
}

// Marks the converting constructor `duration_cast` uses.
struct __cast_tag {};

template <typename _Rep, typename _Period = std::ratio<1, 1> >
class duration {
public:
    typedef _Rep rep;
    typedef _Period period;

    duration() : __r(0) {}
    explicit duration(_Rep __count) : __r(__count) {}
    // Implicit only where nothing is lost, as C++ allows it: to a floating
    // count, or to a period that divides the source's, from an integer
    // count. Otherwise `duration_cast` says so.
    template <typename _Rep2, typename _Period2>
    duration(const duration<_Rep2, _Period2>& __d) {
        static_assert(std::is_same<_Rep, double>::value || std::is_same<_Rep, float>::value ||
                          ((_Period2::num * _Period::den) % (_Period2::den * _Period::num) == 0 &&
                           !std::is_same<_Rep2, double>::value && !std::is_same<_Rep2, float>::value),
                      "this conversion of a duration loses precision: use duration_cast");
        __r = __ticks_from(__d.count(), _Period2::num, _Period2::den);
    }
    // `duration_cast`'s conversion, which may truncate.
    template <typename _Rep2, typename _Period2>
    duration(const duration<_Rep2, _Period2>& __d, __cast_tag) {
        __r = __ticks_from(__d.count(), _Period2::num, _Period2::den);
    }

    _Rep count() const { return __r; }

    duration& operator+=(const duration& __d) {
        __r += __d.count();
        return *this;
    }
    duration& operator-=(const duration& __d) {
        __r -= __d.count();
        return *this;
    }
    duration& operator*=(const _Rep& __k) {
        __r *= __k;
        return *this;
    }
    duration& operator/=(const _Rep& __k) {
        __r /= __k;
        return *this;
    }
    duration& operator++() {
        ++__r;
        return *this;
    }
    duration& operator--() {
        --__r;
        return *this;
    }

    static duration zero() { return duration(0); }

private:
    _Rep __r;

    // A count of ticks of `__num/__den` seconds in this duration's
    // ticks, computed in the common type of the two counts (the sum with
    // a zero of this duration's type has it) by the reduced ratio.
    template <typename _Count>
    static _Rep __ticks_from(_Count __c, long __num, long __den) {
        long __n = __num * _Period::den;
        long __d = __den * _Period::num;
        long __g = __gcd_ticks(__n, __d);
        return (_Rep)__scale_ticks(__c + (_Rep)0, __n / __g, __d / __g);
    }
};

typedef duration<long, nano> nanoseconds;
typedef duration<long, micro> microseconds;
typedef duration<long, milli> milliseconds;
typedef duration<long> seconds;
typedef duration<long, ratio<60> > minutes;
typedef duration<long, ratio<3600> > hours;

template <typename _To, typename _Rep, typename _Period>
_To duration_cast(const duration<_Rep, _Period>& __d) {
    return _To(__d, __cast_tag());
}

template <typename _Rep, typename _Period>
duration<_Rep, _Period> operator+(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return duration<_Rep, _Period>(__a.count() + __b.count());
}
template <typename _Rep, typename _Period>
duration<_Rep, _Period> operator-(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return duration<_Rep, _Period>(__a.count() - __b.count());
}
template <typename _Rep, typename _Period>
duration<_Rep, _Period> operator*(const duration<_Rep, _Period>& __a, const _Rep& __k) {
    return duration<_Rep, _Period>(__a.count() * __k);
}
template <typename _Rep, typename _Period>
duration<_Rep, _Period> operator/(const duration<_Rep, _Period>& __a, const _Rep& __k) {
    return duration<_Rep, _Period>(__a.count() / __k);
}
template <typename _Rep, typename _Period>
_Rep operator/(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return __a.count() / __b.count();
}
template <typename _Rep, typename _Period>
bool operator==(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return __a.count() == __b.count();
}
template <typename _Rep, typename _Period>
bool operator!=(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return __a.count() != __b.count();
}
template <typename _Rep, typename _Period>
bool operator<(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return __a.count() < __b.count();
}
template <typename _Rep, typename _Period>
bool operator>(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return __a.count() > __b.count();
}
template <typename _Rep, typename _Period>
bool operator<=(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return __a.count() <= __b.count();
}
template <typename _Rep, typename _Period>
bool operator>=(const duration<_Rep, _Period>& __a, const duration<_Rep, _Period>& __b) {
    return __a.count() >= __b.count();
}

// A point on a clock: the nanoseconds since the clock's epoch (the
// clocks here all count nanoseconds, as libstdc++'s do).
template <typename _Clock>
class time_point {
public:
    typedef nanoseconds duration;

    time_point() : __d() {}
    explicit time_point(const nanoseconds& __since) : __d(__since) {}

    nanoseconds time_since_epoch() const { return __d; }
    time_point& operator+=(const nanoseconds& __x) {
        __d += __x;
        return *this;
    }
    time_point& operator-=(const nanoseconds& __x) {
        __d -= __x;
        return *this;
    }

private:
    nanoseconds __d;
};

template <typename _Clock>
nanoseconds operator-(const time_point<_Clock>& __a, const time_point<_Clock>& __b) {
    return __a.time_since_epoch() - __b.time_since_epoch();
}
template <typename _Clock>
time_point<_Clock> operator+(const time_point<_Clock>& __a, const nanoseconds& __x) {
    return time_point<_Clock>(__a.time_since_epoch() + __x);
}
template <typename _Clock>
time_point<_Clock> operator-(const time_point<_Clock>& __a, const nanoseconds& __x) {
    return time_point<_Clock>(__a.time_since_epoch() - __x);
}
template <typename _Clock>
bool operator==(const time_point<_Clock>& __a, const time_point<_Clock>& __b) {
    return __a.time_since_epoch() == __b.time_since_epoch();
}
template <typename _Clock>
bool operator!=(const time_point<_Clock>& __a, const time_point<_Clock>& __b) {
    return __a.time_since_epoch() != __b.time_since_epoch();
}
template <typename _Clock>
bool operator<(const time_point<_Clock>& __a, const time_point<_Clock>& __b) {
    return __a.time_since_epoch() < __b.time_since_epoch();
}
template <typename _Clock>
bool operator<=(const time_point<_Clock>& __a, const time_point<_Clock>& __b) {
    return __a.time_since_epoch() <= __b.time_since_epoch();
}
template <typename _Clock>
bool operator>(const time_point<_Clock>& __a, const time_point<_Clock>& __b) {
    return __a.time_since_epoch() > __b.time_since_epoch();
}
template <typename _Clock>
bool operator>=(const time_point<_Clock>& __a, const time_point<_Clock>& __b) {
    return __a.time_since_epoch() >= __b.time_since_epoch();
}

struct system_clock {
    static const bool is_steady = false;
    static time_point<system_clock> now() {
        return time_point<system_clock>(nanoseconds(__tessera_clock_ns(0)));
    }
};

struct steady_clock {
    static const bool is_steady = true;
    static time_point<steady_clock> now() {
        return time_point<steady_clock>(nanoseconds(__tessera_clock_ns(1)));
    }
};

// libstdc++ makes the high-resolution clock the system clock.
typedef system_clock high_resolution_clock;

}
}
