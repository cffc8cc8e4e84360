// <stdexcept>'s exception classes, written in the Tessera language over the
// built-in `std::exception` (whose `what()` is virtual): each keeps the
// message it was made with in a `std::string` and returns it from `what()`.
// The library's own checks throw them (`at` past the end throws
// `std::out_of_range` with libstdc++'s message). Tessera reads this text
// after <string>'s, as one header, when a program includes <stdexcept>,
// <string>, <iostream> or <sstream> (libstdc++'s <string> brings these
// classes in).

namespace std {

class logic_error : public std::exception {
public:
    explicit logic_error(const string& __arg) : __message(__arg) {}
    explicit logic_error(const char* __arg) : __message(__arg) {}
    const char* what() const throw() { return __message.c_str(); }

private:
    string __message;
};

class domain_error : public logic_error {
public:
    explicit domain_error(const string& __arg) : logic_error(__arg) {}
    explicit domain_error(const char* __arg) : logic_error(__arg) {}
};

class invalid_argument : public logic_error {
public:
    explicit invalid_argument(const string& __arg) : logic_error(__arg) {}
    explicit invalid_argument(const char* __arg) : logic_error(__arg) {}
};

class length_error : public logic_error {
public:
    explicit length_error(const string& __arg) : logic_error(__arg) {}
    explicit length_error(const char* __arg) : logic_error(__arg) {}
};

class out_of_range : public logic_error {
public:
    explicit out_of_range(const string& __arg) : logic_error(__arg) {}
    explicit out_of_range(const char* __arg) : logic_error(__arg) {}
};

class runtime_error : public std::exception {
public:
    explicit runtime_error(const string& __arg) : __message(__arg) {}
    explicit runtime_error(const char* __arg) : __message(__arg) {}
    const char* what() const throw() { return __message.c_str(); }

private:
    string __message;
};

class range_error : public runtime_error {
public:
    explicit range_error(const string& __arg) : runtime_error(__arg) {}
    explicit range_error(const char* __arg) : runtime_error(__arg) {}
};

class overflow_error : public runtime_error {
public:
    explicit overflow_error(const string& __arg) : runtime_error(__arg) {}
    explicit overflow_error(const char* __arg) : runtime_error(__arg) {}
};

class underflow_error : public runtime_error {
public:
    explicit underflow_error(const string& __arg) : runtime_error(__arg) {}
    explicit underflow_error(const char* __arg) : runtime_error(__arg) {}
};

// `std::string::at` past the end (declared in <string>).
inline void __throw_string_at(size_t __n, size_t __size) {
    throw out_of_range(string("basic_string::at: __n (which is ") + to_string(__n) +
                       ") >= this->size() (which is " + to_string(__size) + ")");
}

}
