// get_type_name<T>(): a readable name of a type for test logs. The test
// library asks the runtime's type information; here each element type the
// tests use names itself through an overload on a null pointer of it.
#pragma once

namespace concurrency {
namespace Test {
namespace details {

inline const char* type_name_of(int*) { return "int"; }
inline const char* type_name_of(unsigned int*) { return "unsigned int"; }
inline const char* type_name_of(long*) { return "long"; }
inline const char* type_name_of(unsigned long*) { return "unsigned long"; }
inline const char* type_name_of(float*) { return "float"; }
inline const char* type_name_of(double*) { return "double"; }
inline const char* type_name_of(bool*) { return "bool"; }
inline const char* type_name_of(char*) { return "char"; }

// Any other type (a test's own struct): a generic name.
template <typename T>
const char* type_name_of(T*) { return "a class type"; }

} // namespace details

template <typename T>
const char* get_type_name() {
    T* none = nullptr;
    return details::type_name_of(none);
}

template <typename T>
const char* get_type_name(const T&) {
    return get_type_name<T>();
}

} // namespace Test
} // namespace concurrency
