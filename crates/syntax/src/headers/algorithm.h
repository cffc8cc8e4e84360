// The algorithms of <algorithm> and <numeric> that take a function (a
// lambda, a function object), and <utility>'s pair, written in the
// Tessera language. Tessera
// reads this text when a program includes <algorithm>, <numeric> or
// <amp.h>, and checks each template as it checks the program's own when
// a call needs an instance. The algorithms without a function are the
// built-in library's.
//
// Where C++ leaves the order of work open, these do what libstdc++ does,
// so that programs print what they print under g++: `sort` is libstdc++'s
// introsort step for step (the order of elements that compare equal
// depends on it), `random_shuffle` draws from `rand()` as libstdc++ does.
#pragma once

namespace std {

// <utility>'s pair, which `mismatch` returns.
template <typename T1, typename T2>
struct pair {
    T1 first;
    T2 second;
    pair() : first(), second() {}
    pair(const T1& a, const T2& b) : first(a), second(b) {}
};

template <typename T1, typename T2>
pair<T1, T2> make_pair(T1 a, T2 b) {
    return pair<T1, T2>(a, b);
}

template <typename T1, typename T2>
bool operator==(const pair<T1, T2>& x, const pair<T1, T2>& y) {
    return x.first == y.first && x.second == y.second;
}

template <typename T1, typename T2>
bool operator!=(const pair<T1, T2>& x, const pair<T1, T2>& y) {
    return !(x == y);
}

template <typename T1, typename T2>
bool operator<(const pair<T1, T2>& x, const pair<T1, T2>& y) {
    return x.first < y.first || (!(y.first < x.first) && x.second < y.second);
}

template <typename T1, typename T2>
bool operator>(const pair<T1, T2>& x, const pair<T1, T2>& y) {
    return y < x;
}

template <typename T1, typename T2>
bool operator<=(const pair<T1, T2>& x, const pair<T1, T2>& y) {
    return !(y < x);
}

template <typename T1, typename T2>
bool operator>=(const pair<T1, T2>& x, const pair<T1, T2>& y) {
    return !(x < y);
}

template <typename It, typename Gen>
void generate(It first, It last, Gen gen) {
    for (; first != last; ++first) {
        *first = gen();
    }
}

template <typename It, typename Size, typename Gen>
It generate_n(It first, Size n, Gen gen) {
    for (Size left = n; left > 0; --left) {
        *first = gen();
        ++first;
    }
    return first;
}

template <typename It, typename Fn>
Fn for_each(It first, It last, Fn fn) {
    for (; first != last; ++first) {
        fn(*first);
    }
    return fn;
}

template <typename In, typename Out, typename Op>
Out transform(In first, In last, Out out, Op op) {
    for (; first != last; ++first) {
        *out = op(*first);
        ++out;
    }
    return out;
}

template <typename In1, typename In2, typename Out, typename Op>
Out transform(In1 first1, In1 last1, In2 first2, Out out, Op op) {
    for (; first1 != last1; ++first1) {
        *out = op(*first1, *first2);
        ++first2;
        ++out;
    }
    return out;
}

template <typename It, typename T>
It find(It first, It last, const T& value) {
    for (; first != last; ++first) {
        if (*first == value) {
            return first;
        }
    }
    return last;
}

template <typename It, typename Pred>
It find_if(It first, It last, Pred pred) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            return first;
        }
    }
    return last;
}

template <typename It, typename Pred>
It find_if_not(It first, It last, Pred pred) {
    for (; first != last; ++first) {
        if (!pred(*first)) {
            return first;
        }
    }
    return last;
}

template <typename It, typename Pred>
long count_if(It first, It last, Pred pred) {
    long n = 0;
    for (; first != last; ++first) {
        if (pred(*first)) {
            ++n;
        }
    }
    return n;
}

template <typename It, typename Pred>
bool all_of(It first, It last, Pred pred) {
    for (; first != last; ++first) {
        if (!pred(*first)) {
            return false;
        }
    }
    return true;
}

template <typename It, typename Pred>
bool any_of(It first, It last, Pred pred) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            return true;
        }
    }
    return false;
}

template <typename It, typename Pred>
bool none_of(It first, It last, Pred pred) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            return false;
        }
    }
    return true;
}

template <typename It, typename T>
void replace(It first, It last, const T& old_value, const T& new_value) {
    for (; first != last; ++first) {
        if (*first == old_value) {
            *first = new_value;
        }
    }
}

template <typename It, typename Pred, typename T>
void replace_if(It first, It last, Pred pred, const T& new_value) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            *first = new_value;
        }
    }
}

template <typename It, typename Size, typename T>
It fill_n(It first, Size n, const T& value) {
    for (Size left = n; left > 0; --left) {
        *first = value;
        ++first;
    }
    return first;
}

template <typename In1, typename In2, typename Pred>
bool equal(In1 first1, In1 last1, In2 first2, Pred pred) {
    for (; first1 != last1; ++first1) {
        if (!pred(*first1, *first2)) {
            return false;
        }
        ++first2;
    }
    return true;
}

template <typename In1, typename In2>
pair<In1, In2> mismatch(In1 first1, In1 last1, In2 first2) {
    while (first1 != last1 && *first1 == *first2) {
        ++first1;
        ++first2;
    }
    return pair<In1, In2>(first1, first2);
}

template <typename In1, typename In2, typename Pred>
pair<In1, In2> mismatch(In1 first1, In1 last1, In2 first2, Pred pred) {
    while (first1 != last1 && pred(*first1, *first2)) {
        ++first1;
        ++first2;
    }
    return pair<In1, In2>(first1, first2);
}

template <typename It, typename Compare>
It min_element(It first, It last, Compare comp) {
    if (first == last) {
        return first;
    }
    It best = first;
    while (++first != last) {
        if (comp(*first, *best)) {
            best = first;
        }
    }
    return best;
}

template <typename It, typename Compare>
It max_element(It first, It last, Compare comp) {
    if (first == last) {
        return first;
    }
    It best = first;
    while (++first != last) {
        if (comp(*best, *first)) {
            best = first;
        }
    }
    return best;
}

template <typename It, typename T, typename Op>
T accumulate(It first, It last, T init, Op op) {
    for (; first != last; ++first) {
        init = op(init, *first);
    }
    return init;
}

template <typename In1, typename In2, typename T>
T inner_product(In1 first1, In1 last1, In2 first2, T init) {
    for (; first1 != last1; ++first1) {
        init = init + (*first1) * (*first2);
        ++first2;
    }
    return init;
}

template <typename In1, typename In2, typename T, typename Sum, typename Product>
T inner_product(In1 first1, In1 last1, In2 first2, T init, Sum sum, Product product) {
    for (; first1 != last1; ++first1) {
        init = sum(init, product(*first1, *first2));
        ++first2;
    }
    return init;
}

template <typename In, typename Out>
Out partial_sum(In first, In last, Out out) {
    if (first == last) {
        return out;
    }
    auto total = *first;
    *out = total;
    while (++first != last) {
        total = total + *first;
        ++out;
        *out = total;
    }
    ++out;
    return out;
}

template <typename In, typename Out, typename Op>
Out partial_sum(In first, In last, Out out, Op op) {
    if (first == last) {
        return out;
    }
    auto total = *first;
    *out = total;
    while (++first != last) {
        total = op(total, *first);
        ++out;
        *out = total;
    }
    ++out;
    return out;
}

template <typename In, typename Out>
Out adjacent_difference(In first, In last, Out out) {
    if (first == last) {
        return out;
    }
    auto previous = *first;
    *out = previous;
    while (++first != last) {
        auto current = *first;
        ++out;
        *out = current - previous;
        previous = current;
    }
    ++out;
    return out;
}

// `rand() % (i + 1)` for each position after the first, as libstdc++.
template <typename It>
void random_shuffle(It first, It last) {
    if (first == last) {
        return;
    }
    for (It i = first + 1; i != last; ++i) {
        It j = first + rand() % ((i - first) + 1);
        if (i != j) {
            std::swap(*i, *j);
        }
    }
}

// Every comparison of the sorts goes through here, so that a comparison
// that cannot be called is reported once, not at each use.
template <typename Compare, typename A, typename B>
bool __compare(Compare& comp, const A& a, const B& b) {
    return comp(a, b);
}

// libstdc++'s introsort: quicksort with the median of three moved to the
// front, heapsort below a depth of twice the range's binary logarithm,
// and insertion sort over runs of at most 16 at the end.

template <typename It, typename Compare>
void __move_median_to_first(It result, It a, It b, It c, Compare& comp) {
    if (std::__compare(comp, *a, *b)) {
        if (std::__compare(comp, *b, *c)) {
            std::swap(*result, *b);
        } else if (std::__compare(comp, *a, *c)) {
            std::swap(*result, *c);
        } else {
            std::swap(*result, *a);
        }
    } else if (std::__compare(comp, *a, *c)) {
        std::swap(*result, *a);
    } else if (std::__compare(comp, *b, *c)) {
        std::swap(*result, *c);
    } else {
        std::swap(*result, *b);
    }
}

template <typename It, typename Compare>
It __unguarded_partition(It first, It last, It pivot, Compare& comp) {
    while (true) {
        while (std::__compare(comp, *first, *pivot)) {
            ++first;
        }
        --last;
        while (std::__compare(comp, *pivot, *last)) {
            --last;
        }
        if (!(first < last)) {
            return first;
        }
        std::swap(*first, *last);
        ++first;
    }
}

template <typename It, typename T, typename Compare>
void __push_heap(It first, long hole, long top, T value, Compare& comp) {
    long parent = (hole - 1) / 2;
    while (hole > top && std::__compare(comp, *(first + parent), value)) {
        *(first + hole) = *(first + parent);
        hole = parent;
        parent = (hole - 1) / 2;
    }
    *(first + hole) = value;
}

template <typename It, typename T, typename Compare>
void __adjust_heap(It first, long hole, long len, T value, Compare& comp) {
    long top = hole;
    long child = hole;
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (std::__compare(comp, *(first + child), *(first + (child - 1)))) {
            child--;
        }
        *(first + hole) = *(first + child);
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        *(first + hole) = *(first + (child - 1));
        hole = child - 1;
    }
    std::__push_heap(first, hole, top, value, comp);
}

template <typename It, typename Compare>
void __make_heap(It first, It last, Compare& comp) {
    long len = last - first;
    if (len < 2) {
        return;
    }
    long parent = (len - 2) / 2;
    while (true) {
        auto value = *(first + parent);
        std::__adjust_heap(first, parent, len, value, comp);
        if (parent == 0) {
            return;
        }
        parent--;
    }
}

template <typename It, typename Compare>
void __pop_heap(It first, It last, It result, Compare& comp) {
    auto value = *result;
    *result = *first;
    std::__adjust_heap(first, 0L, (long)(last - first), value, comp);
}

template <typename It, typename Compare>
void __heap_sort(It first, It last, Compare& comp) {
    std::__make_heap(first, last, comp);
    while (last - first > 1) {
        --last;
        std::__pop_heap(first, last, last, comp);
    }
}

template <typename It, typename Compare>
void __introsort_loop(It first, It last, long depth_limit, Compare& comp) {
    while (last - first > 16) {
        if (depth_limit == 0) {
            std::__heap_sort(first, last, comp);
            return;
        }
        --depth_limit;
        It mid = first + (last - first) / 2;
        std::__move_median_to_first(first, first + 1, mid, last - 1, comp);
        It cut = std::__unguarded_partition(first + 1, last, first, comp);
        std::__introsort_loop(cut, last, depth_limit, comp);
        last = cut;
    }
}

template <typename It, typename Compare>
void __unguarded_linear_insert(It last, Compare& comp) {
    auto value = *last;
    It next = last;
    --next;
    while (std::__compare(comp, value, *next)) {
        *last = *next;
        last = next;
        --next;
    }
    *last = value;
}

template <typename It, typename Compare>
void __insertion_sort(It first, It last, Compare& comp) {
    if (first == last) {
        return;
    }
    for (It i = first + 1; i != last; ++i) {
        if (std::__compare(comp, *i, *first)) {
            auto value = *i;
            for (It k = i; k != first; --k) {
                *k = *(k - 1);
            }
            *first = value;
        } else {
            std::__unguarded_linear_insert(i, comp);
        }
    }
}

template <typename It, typename Compare>
void sort(It first, It last, Compare comp) {
    if (first == last) {
        return;
    }
    long n = last - first;
    long lg = 0;
    while (n > 1) {
        n = n / 2;
        lg++;
    }
    std::__introsort_loop(first, last, lg * 2, comp);
    if (last - first > 16) {
        std::__insertion_sort(first, first + 16, comp);
        for (It i = first + 16; i != last; ++i) {
            std::__unguarded_linear_insert(i, comp);
        }
    } else {
        std::__insertion_sort(first, last, comp);
    }
}

// A stable sort has one answer, whichever way it is computed: a merge
// sort through a copy of the range.
template <typename T, typename Compare>
void __merge_sort(T* first, T* last, T* buffer, Compare& comp) {
    long n = last - first;
    if (n < 2) {
        return;
    }
    T* mid = first + n / 2;
    std::__merge_sort(first, mid, buffer, comp);
    std::__merge_sort(mid, last, buffer, comp);
    T* a = first;
    T* b = mid;
    T* out = buffer;
    while (a != mid && b != last) {
        if (std::__compare(comp, *b, *a)) {
            *out = *b;
            ++b;
        } else {
            *out = *a;
            ++a;
        }
        ++out;
    }
    for (; a != mid; ++a, ++out) {
        *out = *a;
    }
    for (; b != last; ++b, ++out) {
        *out = *b;
    }
    for (long i = 0; i < n; i++) {
        first[i] = buffer[i];
    }
}

template <typename T, typename Compare>
void stable_sort(T* first, T* last, Compare comp) {
    std::vector<T> buffer(first, last);
    if (first != last) {
        std::__merge_sort(first, last, &buffer[0], comp);
    }
}

// Without a comparison: `<`, as C++ orders by default (the built-in
// library sorts ranges of numbers itself).
template <typename T>
void stable_sort(T* first, T* last) {
    std::stable_sort(first, last, [](const T& a, const T& b) { return a < b; });
}

template <typename T>
void sort(T* first, T* last) {
    std::sort(first, last, [](const T& a, const T& b) { return a < b; });
}

} // namespace std
