// Reporting verdicts. The library's Log() returns a std::ostream& and its
// report functions take the tested expression's text as a std::string;
// the language has neither type yet, so the reports name the verdict only.
#pragma once

#include <iostream>
#include <amptest/platform.h>
#include <amptest/runall.h>

namespace Concurrency {
namespace Test {

enum class LogType { Silent = 0, Error = 1, Warning = 2, Info = 3 };

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

} // namespace Test
} // namespace Concurrency

// The library's form also passes the expression's text (#_testExp).
#define REPORT_RESULT(_testExp) Concurrency::Test::report_result((_testExp))
