// <typeinfo>'s `std::bad_cast`, which a failed `dynamic_cast` to a
// reference throws, written in the Tessera language over the built-in
// `std::exception`. Its `what()` is libstdc++'s text. Tessera reads this
// text for <typeinfo> and <exception>, and after <stdexcept>'s classes
// (libstdc++'s <iostream> and <string> bring it in too); the guard keeps
// one definition when several of them are included.

#ifndef __TESSERA_BAD_CAST
#define __TESSERA_BAD_CAST

namespace std {

class bad_cast : public std::exception {
public:
    bad_cast() {}
    const char* what() const throw() { return "std::bad_cast"; }
};

}

#endif
