// <string>'s `std::string`, written in the Tessera language over a
// `std::vector<char>` that always ends in a zero (so `c_str()` points at
// the text and its terminator), with the operators and members everyday
// programs use and `std::to_string` formatted as libstdc++ formats it
// (`%d`, `%u`, `%ld`, `%lu`, `%f` through `snprintf`). Tessera reads this
// text when a program includes <string>, <iostream> or <sstream> (as the
// standard libraries' <iostream> brings `std::string` in). A position
// past the end throws `std::out_of_range` from `at` (<stdexcept>, read
// with this text); from `substr` it is a run-time error.
#pragma once

namespace std {

// Throws `std::out_of_range` (<stdexcept>, read after this text).
void __throw_string_at(size_t __n, size_t __size);

class string {
public:
    static const size_t npos = 18446744073709551615UL;

    string() : __chars(1, '\0') {}
    string(const char* __s) : __chars(1, '\0') { append(__s); }
    string(const char* __s, size_t __n) : __chars(1, '\0') {
        for (size_t __i = 0; __i < __n; __i++) {
            push_back(__s[__i]);
        }
    }
    string(size_t __n, char __c) : __chars(__n + 1, __c) { __chars[__n] = '\0'; }

    size_t size() const { return __chars.size() - 1; }
    size_t length() const { return __chars.size() - 1; }
    bool empty() const { return __chars.size() == 1; }
    void clear() {
        __chars.resize(1);
        __chars[0] = '\0';
    }
    const char* c_str() const { return &__chars[0]; }
    const char* data() const { return &__chars[0]; }

    char& operator[](size_t __i) { return __chars[__i]; }
    const char& operator[](size_t __i) const { return __chars[__i]; }
    char& at(size_t __i) {
        if (__i >= size()) __throw_string_at(__i, size());
        return __chars[__i];
    }
    char& front() { return __chars[0]; }
    char& back() { return __chars[size() - 1]; }

    void push_back(char __c) {
        __chars[size()] = __c;
        __chars.push_back('\0');
    }
    void pop_back() {
        __chars.resize(size());
        __chars[size()] = '\0';
    }
    void resize(size_t __n) { resize(__n, '\0'); }
    void resize(size_t __n, char __c) {
        size_t __old = size();
        __chars.resize(__n + 1);
        for (size_t __i = __old; __i < __n; __i++) {
            __chars[__i] = __c;
        }
        __chars[__n] = '\0';
    }

    string& append(const char* __s) {
        for (size_t __i = 0; __s[__i] != '\0'; __i++) {
            push_back(__s[__i]);
        }
        return *this;
    }
    string& append(const string& __s) { return append(__s.c_str()); }
    string& operator+=(const string& __s) { return append(__s.c_str()); }
    string& operator+=(const char* __s) { return append(__s); }
    string& operator+=(char __c) {
        push_back(__c);
        return *this;
    }

    string substr(size_t __pos) const { return substr(__pos, npos); }
    string substr(size_t __pos, size_t __n) const {
        size_t __start = __pos <= size() ? __pos : __chars.size() + __pos;
        size_t __count = __n < size() - __start ? __n : size() - __start;
        return string(&__chars.at(__start), __count);
    }

    size_t find(char __c) const { return find(__c, 0); }
    size_t find(char __c, size_t __pos) const {
        for (size_t __i = __pos; __i < size(); __i++) {
            if (__chars[__i] == __c) {
                return __i;
            }
        }
        return npos;
    }
    size_t find(const char* __s) const { return find(string(__s), 0); }
    size_t find(const char* __s, size_t __pos) const { return find(string(__s), __pos); }
    size_t find(const string& __s) const { return find(__s, 0); }
    size_t find(const string& __s, size_t __pos) const {
        size_t __n = __s.size();
        for (size_t __i = __pos; __i + __n <= size(); __i++) {
            size_t __k = 0;
            while (__k < __n && __chars[__i + __k] == __s[__k]) {
                __k++;
            }
            if (__k == __n) {
                return __i;
            }
        }
        return npos;
    }
    size_t rfind(char __c) const {
        for (size_t __i = size(); __i > 0; __i--) {
            if (__chars[__i - 1] == __c) {
                return __i - 1;
            }
        }
        return npos;
    }

    int compare(const string& __s) const {
        size_t __n = size() < __s.size() ? size() : __s.size();
        for (size_t __i = 0; __i < __n; __i++) {
            unsigned char __a = __chars[__i];
            unsigned char __b = __s[__i];
            if (__a != __b) {
                return int(__a) - int(__b);
            }
        }
        // C++ fixes only the sign; these are libstdc++'s values (the first
        // differing bytes' difference, else the sizes' difference).
        long __d = long(size()) - long(__s.size());
        return __d > 2147483647L ? 2147483647 : (__d < -2147483647L - 1 ? -2147483647 - 1 : int(__d));
    }

private:
    vector<char> __chars;
};

inline string operator+(const string& __a, const string& __b) {
    string __r = __a;
    __r += __b;
    return __r;
}
inline string operator+(const string& __a, const char* __b) {
    string __r = __a;
    __r += __b;
    return __r;
}
inline string operator+(const char* __a, const string& __b) {
    string __r = __a;
    __r += __b;
    return __r;
}
inline string operator+(const string& __a, char __b) {
    string __r = __a;
    __r += __b;
    return __r;
}
inline string operator+(char __a, const string& __b) {
    string __r(1, __a);
    __r += __b;
    return __r;
}

inline bool operator==(const string& __a, const string& __b) { return __a.compare(__b) == 0; }
inline bool operator==(const string& __a, const char* __b) { return __a.compare(__b) == 0; }
inline bool operator==(const char* __a, const string& __b) { return __b.compare(__a) == 0; }
inline bool operator!=(const string& __a, const string& __b) { return __a.compare(__b) != 0; }
inline bool operator!=(const string& __a, const char* __b) { return __a.compare(__b) != 0; }
inline bool operator!=(const char* __a, const string& __b) { return __b.compare(__a) != 0; }
inline bool operator<(const string& __a, const string& __b) { return __a.compare(__b) < 0; }
inline bool operator>(const string& __a, const string& __b) { return __a.compare(__b) > 0; }
inline bool operator<=(const string& __a, const string& __b) { return __a.compare(__b) <= 0; }
inline bool operator>=(const string& __a, const string& __b) { return __a.compare(__b) >= 0; }

inline std::ostream& operator<<(std::ostream& __os, const string& __s) { return __os << __s.c_str(); }

inline string to_string(int __v) {
    char __buf[16];
    snprintf(__buf, sizeof(__buf), "%d", __v);
    return string(__buf);
}
inline string to_string(unsigned int __v) {
    char __buf[16];
    snprintf(__buf, sizeof(__buf), "%u", __v);
    return string(__buf);
}
inline string to_string(long __v) {
    char __buf[24];
    snprintf(__buf, sizeof(__buf), "%ld", __v);
    return string(__buf);
}
inline string to_string(unsigned long __v) {
    char __buf[24];
    snprintf(__buf, sizeof(__buf), "%lu", __v);
    return string(__buf);
}
inline string to_string(double __v) {
    int __n = snprintf(nullptr, 0, "%f", __v);
    string __r(__n, '\0');
    snprintf(&__r[0], __n + 1, "%f", __v);
    return __r;
}
inline string to_string(float __v) { return to_string(double(__v)); }

} // namespace std
