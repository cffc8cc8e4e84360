// event: a flag one piece of code sets and another waits for (a
// continuation signals the test that it ran). Tessera runs every operation
// to completion before the next starts, so by the time a test waits the
// event is set or never will be: waiting for an unset event ends the test
// as failed instead of waiting for ever.
#pragma once

#include <cstdlib>
#include <iostream>
#include <amptest/runall.h>

namespace concurrency {
namespace Test {

class event {
public:
    event() : flag(false) {}

    void set() { flag = true; }

    void wait() {
        if (!flag) {
            std::cout << "event::wait: the event is not set and nothing is left to set it" << std::endl;
            exit(runall_fail);
        }
    }

private:
    bool flag;
};

} // namespace Test
} // namespace concurrency
