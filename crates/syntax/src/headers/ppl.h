// PPL's parallel loops (<ppl.h>, also brought by <ppltasks.h>), written in
// the Tessera language: `concurrency::parallel_for(first, last, f)` and
// `(first, last, step, f)`, and `parallel_for_each(first, last, f)` over
// iterators (the checker sends such a call to `__ppl_parallel_for_each`,
// as the name is also C++ AMP's launch). PPL may run the iterations on several threads
// in any order; Tessera runs them one after the other, in order, which is
// one of the orders PPL may choose, so a program whose iterations do not
// race (as it must not) prints what it prints under PPL. A step below 1,
// for which PPL throws `std::invalid_argument`, stops the run (`abort`).
// The tasks of <ppltasks.h> (`task<T>`, `create_task`) are built in.
#pragma once

namespace concurrency {

template <typename _Index_type, typename _Function>
void parallel_for(_Index_type __first, _Index_type __last, _Index_type __step, const _Function& __func) {
    if (__step < 1) {
        abort();
    }
    for (_Index_type __i = __first; __i < __last; __i += __step) {
        __func(__i);
    }
}

template <typename _Index_type, typename _Function>
void parallel_for(_Index_type __first, _Index_type __last, const _Function& __func) {
    for (_Index_type __i = __first; __i < __last; ++__i) {
        __func(__i);
    }
}

template <typename _Iterator, typename _Function>
void __ppl_parallel_for_each(_Iterator __first, _Iterator __last, const _Function& __func) {
    for (; __first != __last; ++__first) {
        __func(*__first);
    }
}

} // namespace concurrency
