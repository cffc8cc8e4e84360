// Running a test function both on the host and in a kernel: GPU_INVOKE,
// EVALUATE_TEST_ON_CPU_AND_GPU, INVOKE_TEST_FUNC_ON_CPU_AND_GPU and
// EVALUATE_IS_TRUE_ON_CPU_AND_GPU.
//
// The library's macros build a lambda capturing by reference and name the
// tested expression in their reports (`#expr`). Here the call is wrapped in a
// lambda capturing by value (what a kernel captures anyway) and handed to a
// function template that launches it; the reports name the macro, since
// the language has no stringizing.
#pragma once

#include <amp.h>
#include <iostream>
#include <vector>
#include <amptest/restrict.h>
#include <amptest/runall.h>
#include <amptest/logging.h>

namespace concurrency {
namespace Test {
namespace details {

// The macros that run a test on both sides, by number: a string literal
// does not pass to a `const char*` parameter of a function template yet.
inline void log_run_test_macro(int macro) {
    if (macro == 0) {
        std::cout << "EVALUATE_TEST_ON_CPU_AND_GPU";
    } else if (macro == 1) {
        std::cout << "INVOKE_TEST_FUNC_ON_CPU_AND_GPU";
    } else {
        std::cout << "EVALUATE_IS_TRUE_ON_CPU_AND_GPU";
    }
}

inline void log_run_test_result(int macro, const char* on, const runall_result& result) {
    log_run_test_macro(macro);
    std::cout << " on " << on << ": ";
    print_runall_result_name(result.get_exit_code());
    std::cout << "." << std::endl;
}

} // namespace details
} // namespace Test
} // namespace concurrency

// The library's helpers live in Concurrency::Test; templates called with
// explicit arguments are found only at file scope yet, so these are there.

// Runs `func` once in a kernel on `av` and returns its result as a
// `Tresult`.
template <typename Tresult, typename Func>
Tresult amptest_gpu_invoke(const accelerator_view& av, const Func& func) {
    std::vector<Tresult> results(1);
    array_view<Tresult, 1> resultv(1, results);
    resultv.discard_data();
    parallel_for_each(av, resultv.get_extent(), [=](index<1> idx) restrict(amp) { resultv[idx] = func(); });
    return resultv[0];
}

// Runs `func` (returning a verdict, an int or a bool) on the host and in a
// kernel on `av`, reports both verdicts and returns them combined.
template <typename Func>
runall_result amptest_run_test_on_cpu_and_gpu(const accelerator_view& av, int macro, const Func& func) {
    runall_result cpu_result = runall_result(func());

    std::vector<int> codes(1);
    array_view<int, 1> codev(1, codes);
    codev.discard_data();
    parallel_for_each(av, codev.get_extent(), [=](index<1> idx) restrict(amp) {
        codev[idx] = runall_result(func()).get_exit_code();
    });
    runall_result gpu_result = runall_result(codev[0]);

    Concurrency::Test::details::log_run_test_result(macro, "CPU", cpu_result);
    Concurrency::Test::details::log_run_test_result(macro, "GPU", gpu_result);
    return cpu_result & gpu_result;
}

// The value of `gpui_func(args...)` computed in a kernel on `gpui_acclv`,
// as a `gpui_func_Tresult`.
#define GPU_INVOKE(gpui_acclv, gpui_func_Tresult, gpui_func, ...)                                   \
    amptest_gpu_invoke<gpui_func_Tresult>(gpui_acclv, [=]() restrict(amp) {                          \
        return (gpui_func)(__VA_ARGS__);                                                             \
    })

// The verdict of `_expr` (a runall_result, int or bool) on the host and in
// a kernel.
#define EVALUATE_TEST_ON_CPU_AND_GPU(_av, _expr)                                                    \
    amptest_run_test_on_cpu_and_gpu(_av, 0, [=]() restrict(cpu, amp) { \
        return _expr;                                                                                \
    })

// The verdict of `_func(args...)` on the host and in a kernel.
#define INVOKE_TEST_FUNC_ON_CPU_AND_GPU(_av, _func, ...)                                                \
    amptest_run_test_on_cpu_and_gpu(_av, 1, [=]() restrict(cpu, amp) { \
        return _func(__VA_ARGS__);                                                                       \
    })

// Whether `_expression` holds on the host and in a kernel.
#define EVALUATE_IS_TRUE_ON_CPU_AND_GPU(_av, _expression)                                           \
    amptest_run_test_on_cpu_and_gpu(_av, 2,                        \
                                    [=]() restrict(cpu, amp) { return (bool)(_expression); })
