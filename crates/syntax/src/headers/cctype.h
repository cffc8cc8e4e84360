// The character classes and case conversions of <cctype>, written in the
// Tessera language for the "C" locale (the one a program starts in), over
// the `int` value of a character as C defines them. Tessera reads this
// text when a program includes <cctype> or <ctype.h>, and with <string>
// (libstdc++'s <string> brings <cctype> in, so programs call `toupper`
// without including it).
#pragma once

namespace std {

inline int isdigit(int c) { return c >= '0' && c <= '9' ? 1 : 0; }
inline int isupper(int c) { return c >= 'A' && c <= 'Z' ? 1 : 0; }
inline int islower(int c) { return c >= 'a' && c <= 'z' ? 1 : 0; }
inline int isalpha(int c) { return isupper(c) || islower(c) ? 1 : 0; }
inline int isalnum(int c) { return isalpha(c) || isdigit(c) ? 1 : 0; }
inline int isxdigit(int c) {
    return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ? 1 : 0;
}
// Space, and the controls tab, newline, vertical tab, form feed, return.
inline int isspace(int c) { return c == ' ' || (c >= 9 && c <= 13) ? 1 : 0; }
inline int isblank(int c) { return c == ' ' || c == 9 ? 1 : 0; }
inline int iscntrl(int c) { return (c >= 0 && c < 32) || c == 127 ? 1 : 0; }
inline int isprint(int c) { return c >= 32 && c < 127 ? 1 : 0; }
inline int isgraph(int c) { return c > 32 && c < 127 ? 1 : 0; }
inline int ispunct(int c) { return isgraph(c) && !isalnum(c) ? 1 : 0; }
inline int toupper(int c) { return islower(c) ? c - 'a' + 'A' : c; }
inline int tolower(int c) { return isupper(c) ? c - 'A' + 'a' : c; }

} // namespace std

// <ctype.h> declares the same functions at file scope.
using std::isdigit;
using std::isupper;
using std::islower;
using std::isalpha;
using std::isalnum;
using std::isxdigit;
using std::isspace;
using std::isblank;
using std::iscntrl;
using std::isprint;
using std::isgraph;
using std::ispunct;
using std::toupper;
using std::tolower;
