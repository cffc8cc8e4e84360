// A test's verdict, returned by test_main and turned into the exit status
// the suite's runner reads: 0 pass, 1 fail, 2 skip.
#pragma once

#include <amp.h>
#include <iostream>
#include <string>
#include <amptest/platform.h>

using namespace concurrency;

static const int runall_pass = 0;
static const int runall_fail = 1;
static const int runall_skip = 2;
static const int runall_cascade_fail = 3;
static const int runall_no_value = 4;

inline bool is_runall_exit_code(int val) restrict(cpu, amp) {
    return val == runall_pass || val == runall_fail || val == runall_skip ||
           val == runall_cascade_fail || val == runall_no_value;
}

struct runall_result {
private:
    // Combining two verdicts keeps the more serious one: a cascade failure,
    // then a failure, then a skip, then "no value"; pass only if both pass.
    static int aggregate_exit_codes(int lhs, int rhs) restrict(cpu, amp) {
        if (lhs == rhs) {
            return lhs;
        }
        if (lhs == runall_cascade_fail || rhs == runall_cascade_fail) {
            return runall_cascade_fail;
        }
        if (lhs == runall_fail || rhs == runall_fail) {
            return runall_fail;
        }
        if (lhs == runall_skip || rhs == runall_skip) {
            return runall_skip;
        }
        if (lhs == runall_no_value || rhs == runall_no_value) {
            return runall_no_value;
        }
        return runall_pass;
    }

    int _exit_code;

public:
    runall_result() restrict(cpu, amp) : _exit_code(runall_pass) {}

    // A value that is not a verdict counts as a failure. (The library
    // throws on the CPU instead; the language has no exceptions, and an
    // uncaught throw would also end the test as failed.)
    runall_result(int result) restrict(cpu, amp)
        : _exit_code(is_runall_exit_code(result) ? result : runall_fail) {}

    runall_result(bool passed) restrict(cpu, amp)
        : _exit_code(passed ? runall_pass : runall_fail) {}

    runall_result operator&(const runall_result& other) const restrict(cpu, amp) {
        return runall_result(aggregate_exit_codes(_exit_code, other._exit_code));
    }

    runall_result& operator&=(const runall_result& other) restrict(cpu, amp) {
        _exit_code = aggregate_exit_codes(_exit_code, other._exit_code);
        return *this;
    }

    // `result &= passed` and `result &= runall_skip` convert the right side
    // to a verdict as the constructors do; these overloads say so directly.
    runall_result& operator&=(bool passed) restrict(cpu, amp) {
        return *this &= runall_result(passed);
    }

    runall_result& operator&=(int result) restrict(cpu, amp) {
        return *this &= runall_result(result);
    }

    // `result != runall_pass`: the library compares with the verdict the
    // int (or bool) converts to; the checker does not yet convert an
    // operator's argument through a constructor, so these say it directly.
    bool operator==(int other) const restrict(cpu, amp) { return *this == runall_result(other); }
    bool operator!=(int other) const restrict(cpu, amp) { return *this != runall_result(other); }
    bool operator==(bool other) const restrict(cpu, amp) { return *this == runall_result(other); }
    bool operator!=(bool other) const restrict(cpu, amp) { return *this != runall_result(other); }

    bool operator==(const runall_result& other) const restrict(cpu, amp) {
        return _exit_code == other._exit_code;
    }

    bool operator!=(const runall_result& other) const restrict(cpu, amp) {
        return _exit_code != other._exit_code;
    }

    int get_exit_code() const restrict(cpu, amp) { return _exit_code; }
    bool get_is_pass() const restrict(cpu, amp) { return _exit_code == runall_pass; }
    bool get_is_failure() const restrict(cpu, amp) { return _exit_code == runall_fail; }
    bool get_is_cascade_failure() const restrict(cpu, amp) {
        return _exit_code == runall_cascade_fail;
    }
    bool get_is_skip() const restrict(cpu, amp) { return _exit_code == runall_skip; }
    bool get_is_no_value() const restrict(cpu, amp) { return _exit_code == runall_no_value; }

    // The verdict's name ("pass", "fail", ...); the library returns a
    // std::string, which the language does not have.
    const char* get_name() const {
        if (_exit_code == runall_pass) {
            return "pass";
        } else if (_exit_code == runall_fail) {
            return "fail";
        } else if (_exit_code == runall_skip) {
            return "skip";
        } else if (_exit_code == runall_cascade_fail) {
            return "cascade fail";
        }
        return "no value";
    }

    runall_result treat_skip_as_pass() const restrict(cpu, amp) {
        return get_is_skip() ? runall_result(runall_pass) : *this;
    }
};

inline bool operator==(int lhs, const runall_result& rhs) restrict(cpu, amp) {
    return rhs == runall_result(lhs);
}

inline bool operator!=(int lhs, const runall_result& rhs) restrict(cpu, amp) {
    return rhs != runall_result(lhs);
}

inline runall_result operator&(int lhs, const runall_result& rhs) restrict(cpu, amp) {
    return rhs & runall_result(lhs);
}

// Writes the verdict's name, as the library's stream operator does.
inline void print_runall_result_name(int code) {
    if (code == runall_pass) {
        std::cout << "pass";
    } else if (code == runall_fail) {
        std::cout << "fail";
    } else if (code == runall_skip) {
        std::cout << "skip";
    } else if (code == runall_cascade_fail) {
        std::cout << "cascade fail";
    } else {
        std::cout << "no value";
    }
}

// The verdict's name; the library returns a std::string.
inline const char* runall_result_name(int result) {
    return runall_result(result).get_name();
}

inline const char* runall_result_name(bool passed) {
    return passed ? "pass" : "fail";
}

inline std::ostream& operator<<(std::ostream& os, const runall_result& result) {
    os << result.get_name();
    return os;
}
