// Logging and reporting verdicts. The library's report functions take the
// tested expression's text as a std::string; the language has no strings
// yet, so the reports name the verdict only.
#pragma once

#include <cstdlib>
#include <iostream>
#include <string>
#include <iomanip>
#include <amptest/platform.h>
#include <amptest/runall.h>

namespace concurrency {
namespace Test {

enum class LogType { Silent = 0, Error = 1, Warning = 2, Info = 3 };

// The library's log is a narrow stream that also takes wide strings (an
// accelerator's description); here the text goes to the wide stream, which
// writes to the same standard output.
inline std::ostream& operator<<(std::ostream& os, const std::wstring& text) {
    std::wcout << text;
    return os;
}

// The stream a test logs to: `Log(LogType::Info, true) << ...`. The
// library's filters messages by their type; here every message goes to
// standard output.
inline std::ostream& Log(LogType type, bool flag) {
    return std::cout;
}

// A line in the log. The library's take `printf` arguments after the
// message; these take the message alone.
inline void Log_writeline() {
    std::cout << std::endl;
}

inline void Log_writeline(LogType type) {
    std::cout << std::endl;
}

inline void Log_writeline(LogType type, const char* message) {
    std::cout << message << std::endl;
}

inline void Log_writeline(const char* message) {
    std::cout << message << std::endl;
}

inline bool report_result(bool passed) {
    std::cout << "REPORT_RESULT: ";
    print_runall_result_name(passed ? runall_pass : runall_fail);
    std::cout << std::endl;
    return passed;
}

inline runall_result report_result(const runall_result& result) {
    std::cout << "REPORT_RESULT: ";
    print_runall_result_name(result.get_exit_code());
    std::cout << std::endl;
    return result;
}

inline runall_result report_result(int result) {
    return report_result(runall_result(result));
}

// Ends the test as skipped when `condition` holds.
inline void skip_if(bool condition) {
    if (condition) {
        std::cout << "SKIP_IF: the condition holds; skipping the test." << std::endl;
        exit(runall_skip);
    }
}

} // namespace Test
} // namespace concurrency

// The stream of the library's LogStream().
#define LogStream() std::cout
// The wide stream, for wide strings such as an accelerator's description.
#define WLog(type, flag) std::wcout

// The library's form also passes the expression's text (#_testExp).
#define REPORT_RESULT(_testExp) Concurrency::Test::report_result((_testExp))
#define SKIP_IF(_testExp) Concurrency::Test::skip_if((_testExp))
