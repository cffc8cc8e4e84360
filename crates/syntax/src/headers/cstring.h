// The string functions of <cstring> over `char` pointers, written in the
// Tessera language: each reads and writes through checked pointers, so a
// string without its terminating zero is a run-time error where C would
// read past the end. Tessera reads this text when a program includes
// <cstring> or <string.h>.
#pragma once

namespace std {

inline size_t strlen(const char* s) {
    size_t n = 0;
    while (s[n] != 0) {
        n++;
    }
    return n;
}

// The difference of the first differing characters, compared as
// `unsigned char` (0 when the strings are equal).
inline int strcmp(const char* a, const char* b) {
    size_t i = 0;
    while (a[i] != 0 && a[i] == b[i]) {
        i++;
    }
    return (int)(unsigned char)a[i] - (int)(unsigned char)b[i];
}

inline int strncmp(const char* a, const char* b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i] || a[i] == 0) {
            return (int)(unsigned char)a[i] - (int)(unsigned char)b[i];
        }
    }
    return 0;
}

// The first `c` in `s` (its terminating zero counts), or a null pointer.
inline const char* strchr(const char* s, int c) {
    size_t i = 0;
    while (true) {
        if (s[i] == (char)c) {
            return s + i;
        }
        if (s[i] == 0) {
            return nullptr;
        }
        i++;
    }
}

// The first place `needle` occurs in `hay`, or a null pointer; an empty
// needle is found at the start.
inline const char* strstr(const char* hay, const char* needle) {
    for (size_t i = 0;; i++) {
        size_t k = 0;
        while (needle[k] != 0 && hay[i + k] == needle[k]) {
            k++;
        }
        if (needle[k] == 0) {
            return hay + i;
        }
        if (hay[i] == 0) {
            return nullptr;
        }
    }
}

inline char* strcpy(char* dst, const char* src) {
    size_t i = 0;
    while (true) {
        dst[i] = src[i];
        if (src[i] == 0) {
            return dst;
        }
        i++;
    }
}

inline char* strcat(char* dst, const char* src) {
    strcpy(dst + strlen(dst), src);
    return dst;
}

} // namespace std

// <string.h> declares the same functions at file scope.
using std::strlen;
using std::strcmp;
using std::strncmp;
using std::strchr;
using std::strstr;
using std::strcpy;
using std::strcat;
