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

#include <iterator>

// libstdc++'s <string> brings in <cctype> (`toupper` for `std::transform`).
#include <cctype>

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

    // Iterators are pointers to the characters (`end()` points at the
    // terminating zero), so the pointer forms of <algorithm> take them;
    // `std::string::iterator` is `char*` (see `member_types.rs`).
    char* begin() { return &__chars[0]; }
    char* end() { return &__chars[0] + size(); }
    const char* begin() const { return &__chars[0]; }
    const char* end() const { return &__chars[0] + size(); }
    const char* cbegin() const { return &__chars[0]; }
    const char* cend() const { return &__chars[0] + size(); }
    const char& front() const { return __chars[0]; }
    const char& back() const { return __chars[size() - 1]; }

    string& assign(const string& __s) {
        string __copy = __s;
        __chars = __copy.__chars;
        return *this;
    }
    string& assign(const char* __s) { return this->assign(string(__s)); }
    string& assign(size_t __n, char __c) { return this->assign(string(__n, __c)); }
    string& append(size_t __n, char __c) { return this->append(string(__n, __c)); }

    // Insertion, removal and replacement at a position past the end are
    // run-time errors (through `substr`) where C++ throws
    // `std::out_of_range`.
    string& insert(size_t __pos, const string& __s) { return this->replace(__pos, 0, __s); }
    string& insert(size_t __pos, const char* __s) { return this->replace(__pos, 0, string(__s)); }
    string& insert(size_t __pos, size_t __n, char __c) { return this->replace(__pos, 0, string(__n, __c)); }
    string& erase() {
        clear();
        return *this;
    }
    string& erase(size_t __pos) { return this->replace(__pos, npos, string()); }
    string& erase(size_t __pos, size_t __n) { return this->replace(__pos, __n, string()); }
    string& replace(size_t __pos, size_t __n, const char* __s) { return this->replace(__pos, __n, string(__s)); }
    string& replace(size_t __pos, size_t __n, const string& __s) {
        string __tail = substr(__pos);
        string __middle = __s;
        size_t __gone = __n < __tail.size() ? __n : __tail.size();
        resize(__pos);
        this->__append_chars(__middle.c_str(), __middle.size());
        this->__append_chars(__tail.c_str() + __gone, __tail.size() - __gone);
        return *this;
    }
    void swap(string& __other) {
        vector<char> __mine = __chars;
        __chars = __other.__chars;
        __other.__chars = __mine;
    }
    void reserve(size_t __n) {}

    size_t rfind(char __c, size_t __pos) const {
        size_t __i = __pos < size() ? __pos + 1 : size();
        for (; __i > 0; __i--) {
            if (__chars[__i - 1] == __c) {
                return __i - 1;
            }
        }
        return npos;
    }
    size_t rfind(const char* __s) const { return this->rfind(string(__s), npos); }
    size_t rfind(const char* __s, size_t __pos) const { return this->rfind(string(__s), __pos); }
    size_t rfind(const string& __s) const { return this->rfind(__s, npos); }
    size_t rfind(const string& __s, size_t __pos) const {
        size_t __n = __s.size();
        if (__n > size()) {
            return npos;
        }
        size_t __i = size() - __n < __pos ? size() - __n : __pos;
        while (true) {
            size_t __k = 0;
            while (__k < __n && __chars[__i + __k] == __s[__k]) {
                __k++;
            }
            if (__k == __n) {
                return __i;
            }
            if (__i == 0) {
                return npos;
            }
            __i--;
        }
    }

    size_t find_first_of(const string& __set) const { return this->__find_forward(__set, 0, true); }
    size_t find_first_of(const string& __set, size_t __pos) const { return this->__find_forward(__set, __pos, true); }
    size_t find_first_of(const char* __set) const { return this->__find_forward(string(__set), 0, true); }
    size_t find_first_of(const char* __set, size_t __pos) const { return this->__find_forward(string(__set), __pos, true); }
    size_t find_first_of(char __c) const { return this->__find_forward(string(1, __c), 0, true); }
    size_t find_first_of(char __c, size_t __pos) const { return this->__find_forward(string(1, __c), __pos, true); }
    size_t find_first_not_of(const string& __set) const { return this->__find_forward(__set, 0, false); }
    size_t find_first_not_of(const string& __set, size_t __pos) const { return this->__find_forward(__set, __pos, false); }
    size_t find_first_not_of(const char* __set) const { return this->__find_forward(string(__set), 0, false); }
    size_t find_first_not_of(const char* __set, size_t __pos) const { return this->__find_forward(string(__set), __pos, false); }
    size_t find_first_not_of(char __c) const { return this->__find_forward(string(1, __c), 0, false); }
    size_t find_first_not_of(char __c, size_t __pos) const { return this->__find_forward(string(1, __c), __pos, false); }
    size_t find_last_of(const string& __set) const { return this->__find_backward(__set, npos, true); }
    size_t find_last_of(const string& __set, size_t __pos) const { return this->__find_backward(__set, __pos, true); }
    size_t find_last_of(const char* __set) const { return this->__find_backward(string(__set), npos, true); }
    size_t find_last_of(const char* __set, size_t __pos) const { return this->__find_backward(string(__set), __pos, true); }
    size_t find_last_of(char __c) const { return this->__find_backward(string(1, __c), npos, true); }
    size_t find_last_of(char __c, size_t __pos) const { return this->__find_backward(string(1, __c), __pos, true); }
    size_t find_last_not_of(const string& __set) const { return this->__find_backward(__set, npos, false); }
    size_t find_last_not_of(const string& __set, size_t __pos) const { return this->__find_backward(__set, __pos, false); }
    size_t find_last_not_of(const char* __set) const { return this->__find_backward(string(__set), npos, false); }
    size_t find_last_not_of(const char* __set, size_t __pos) const { return this->__find_backward(string(__set), __pos, false); }
    size_t find_last_not_of(char __c) const { return this->__find_backward(string(1, __c), npos, false); }
    size_t find_last_not_of(char __c, size_t __pos) const { return this->__find_backward(string(1, __c), __pos, false); }

private:
    vector<char> __chars;

    void __append_chars(const char* __s, size_t __n) {
        for (size_t __i = 0; __i < __n; __i++) {
            push_back(__s[__i]);
        }
    }
    // The first position from `__pos` whose character is in `__set`
    // (`__in`) or not in it.
    size_t __find_forward(const string& __set, size_t __pos, bool __in) const {
        for (size_t __i = __pos; __i < size(); __i++) {
            if ((__set.find(__chars[__i]) != npos) == __in) {
                return __i;
            }
        }
        return npos;
    }
    // The same, searching backwards from `__pos` (or the last character).
    size_t __find_backward(const string& __set, size_t __pos, bool __in) const {
        size_t __i = __pos < size() ? __pos + 1 : size();
        for (; __i > 0; __i--) {
            if ((__set.find(__chars[__i - 1]) != npos) == __in) {
                return __i - 1;
            }
        }
        return npos;
    }
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
