// The entry point of a conformance test: main runs the test's test_main
// and exits with its verdict (0 pass, 1 fail, 2 skip).
#pragma once

#include <amptest/platform.h>
#include <amptest/runall.h>

runall_result test_main();

// The library's main takes argc and argv to read its settings; none of
// them exists here, and the language has no pointers.
int main() {
    return test_main().get_exit_code();
}
