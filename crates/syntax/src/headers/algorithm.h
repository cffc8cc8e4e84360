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

#include <iterator>
//
// Template parameters are named as implementations name them (`_It`,
// `_T1`): the classifier takes a template parameter's name for a type from
// there on, and these names are reserved, so a program's own `T` or `A`
// stays what it declares.

namespace std {

// <utility>'s pair, which `mismatch` returns.
template <typename _T1, typename _T2>
struct pair {
    _T1 first;
    _T2 second;
    pair() : first(), second() {}
    pair(const _T1& a, const _T2& b) : first(a), second(b) {}
};

template <typename _T1, typename _T2>
pair<_T1, _T2> make_pair(_T1 a, _T2 b) {
    return pair<_T1, _T2>(a, b);
}

template <typename _T1, typename _T2>
bool operator==(const pair<_T1, _T2>& x, const pair<_T1, _T2>& y) {
    return x.first == y.first && x.second == y.second;
}

template <typename _T1, typename _T2>
bool operator!=(const pair<_T1, _T2>& x, const pair<_T1, _T2>& y) {
    return !(x == y);
}

template <typename _T1, typename _T2>
bool operator<(const pair<_T1, _T2>& x, const pair<_T1, _T2>& y) {
    return x.first < y.first || (!(y.first < x.first) && x.second < y.second);
}

template <typename _T1, typename _T2>
bool operator>(const pair<_T1, _T2>& x, const pair<_T1, _T2>& y) {
    return y < x;
}

template <typename _T1, typename _T2>
bool operator<=(const pair<_T1, _T2>& x, const pair<_T1, _T2>& y) {
    return !(y < x);
}

template <typename _T1, typename _T2>
bool operator>=(const pair<_T1, _T2>& x, const pair<_T1, _T2>& y) {
    return !(x < y);
}

template <typename _It, typename _Gen>
void generate(_It first, _It last, _Gen gen) {
    for (; first != last; ++first) {
        *first = gen();
    }
}

template <typename _It, typename _Size, typename _Gen>
_It generate_n(_It first, _Size n, _Gen gen) {
    for (_Size left = n; left > 0; --left) {
        *first = gen();
        ++first;
    }
    return first;
}

template <typename _It, typename _Fn>
_Fn for_each(_It first, _It last, _Fn fn) {
    for (; first != last; ++first) {
        fn(*first);
    }
    return fn;
}

template <typename _In, typename _Out, typename _Op>
_Out transform(_In first, _In last, _Out out, _Op op) {
    for (; first != last; ++first) {
        *out = op(*first);
        ++out;
    }
    return out;
}

template <typename _In1, typename _In2, typename _Out, typename _Op>
_Out transform(_In1 first1, _In1 last1, _In2 first2, _Out out, _Op op) {
    for (; first1 != last1; ++first1) {
        *out = op(*first1, *first2);
        ++first2;
        ++out;
    }
    return out;
}

template <typename _It, typename _T>
_It find(_It first, _It last, const _T& value) {
    for (; first != last; ++first) {
        if (*first == value) {
            return first;
        }
    }
    return last;
}

template <typename _It, typename _Pred>
_It find_if(_It first, _It last, _Pred pred) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            return first;
        }
    }
    return last;
}

template <typename _It, typename _Pred>
_It find_if_not(_It first, _It last, _Pred pred) {
    for (; first != last; ++first) {
        if (!pred(*first)) {
            return first;
        }
    }
    return last;
}

template <typename _It, typename _Pred>
long count_if(_It first, _It last, _Pred pred) {
    long n = 0;
    for (; first != last; ++first) {
        if (pred(*first)) {
            ++n;
        }
    }
    return n;
}

template <typename _It, typename _Pred>
bool all_of(_It first, _It last, _Pred pred) {
    for (; first != last; ++first) {
        if (!pred(*first)) {
            return false;
        }
    }
    return true;
}

template <typename _It, typename _Pred>
bool any_of(_It first, _It last, _Pred pred) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            return true;
        }
    }
    return false;
}

template <typename _It, typename _Pred>
bool none_of(_It first, _It last, _Pred pred) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            return false;
        }
    }
    return true;
}

template <typename _It, typename _T>
void replace(_It first, _It last, const _T& old_value, const _T& new_value) {
    for (; first != last; ++first) {
        if (*first == old_value) {
            *first = new_value;
        }
    }
}

template <typename _It, typename _Pred, typename _T>
void replace_if(_It first, _It last, _Pred pred, const _T& new_value) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            *first = new_value;
        }
    }
}

template <typename _It, typename _Size, typename _T>
_It fill_n(_It first, _Size n, const _T& value) {
    for (_Size left = n; left > 0; --left) {
        *first = value;
        ++first;
    }
    return first;
}

template <typename _In1, typename _In2, typename _Pred>
bool equal(_In1 first1, _In1 last1, _In2 first2, _Pred pred) {
    for (; first1 != last1; ++first1) {
        if (!pred(*first1, *first2)) {
            return false;
        }
        ++first2;
    }
    return true;
}

template <typename _In1, typename _In2>
pair<_In1, _In2> mismatch(_In1 first1, _In1 last1, _In2 first2) {
    while (first1 != last1 && *first1 == *first2) {
        ++first1;
        ++first2;
    }
    return pair<_In1, _In2>(first1, first2);
}

template <typename _In1, typename _In2, typename _Pred>
pair<_In1, _In2> mismatch(_In1 first1, _In1 last1, _In2 first2, _Pred pred) {
    while (first1 != last1 && pred(*first1, *first2)) {
        ++first1;
        ++first2;
    }
    return pair<_In1, _In2>(first1, first2);
}

// Copies, removals and exchanges. Where C++ leaves the elements after a
// removal's new end unspecified, they are what libstdc++ leaves there: a
// kept element is assigned to the next free place, the rest stay.

template <typename _In, typename _Out, typename _Pred>
_Out copy_if(_In first, _In last, _Out out, _Pred pred) {
    for (; first != last; ++first) {
        if (pred(*first)) {
            *out = *first;
            ++out;
        }
    }
    return out;
}

template <typename _In, typename _Size, typename _Out>
_Out copy_n(_In first, _Size n, _Out out) {
    for (_Size left = n; left > 0; --left) {
        *out = *first;
        ++first;
        ++out;
    }
    return out;
}

template <typename _In, typename _Out>
_Out reverse_copy(_In first, _In last, _Out out) {
    while (last != first) {
        --last;
        *out = *last;
        ++out;
    }
    return out;
}

template <typename _It1, typename _It2>
_It2 swap_ranges(_It1 first1, _It1 last1, _It2 first2) {
    for (; first1 != last1; ++first1) {
        std::swap(*first1, *first2);
        ++first2;
    }
    return first2;
}

template <typename _It, typename _Pred>
_It remove_if(_It first, _It last, _Pred pred) {
    first = std::find_if(first, last, pred);
    if (first == last) {
        return first;
    }
    _It kept = first;
    for (++first; first != last; ++first) {
        if (!pred(*first)) {
            *kept = *first;
            ++kept;
        }
    }
    return kept;
}

template <typename _It, typename _T>
_It remove(_It first, _It last, const _T& value) {
    first = std::find(first, last, value);
    if (first == last) {
        return first;
    }
    _It kept = first;
    for (++first; first != last; ++first) {
        if (!(*first == value)) {
            *kept = *first;
            ++kept;
        }
    }
    return kept;
}

template <typename _It>
_It adjacent_find(_It first, _It last) {
    if (first == last) {
        return last;
    }
    _It next = first;
    for (++next; next != last; ++next) {
        if (*first == *next) {
            return first;
        }
        first = next;
    }
    return last;
}

template <typename _It, typename _Pred>
_It adjacent_find(_It first, _It last, _Pred pred) {
    if (first == last) {
        return last;
    }
    _It next = first;
    for (++next; next != last; ++next) {
        if (pred(*first, *next)) {
            return first;
        }
        first = next;
    }
    return last;
}

// The first of each run of equal elements moves to the next free place;
// the comparison is with the last element kept.
template <typename _It>
_It unique(_It first, _It last) {
    first = std::adjacent_find(first, last);
    if (first == last) {
        return last;
    }
    _It kept = first;
    ++first;
    for (++first; first != last; ++first) {
        if (!(*kept == *first)) {
            ++kept;
            *kept = *first;
        }
    }
    ++kept;
    return kept;
}

template <typename _It, typename _Pred>
_It unique(_It first, _It last, _Pred pred) {
    first = std::adjacent_find(first, last, pred);
    if (first == last) {
        return last;
    }
    _It kept = first;
    ++first;
    for (++first; first != last; ++first) {
        if (!pred(*kept, *first)) {
            ++kept;
            *kept = *first;
        }
    }
    ++kept;
    return kept;
}

// libstdc++'s partition of a range it can walk both ways: from the front
// to the first element failing the predicate, from the back to the last
// passing it, and an exchange of the two; the order within each side is
// that exchange order.
template <typename _It, typename _Pred>
_It partition(_It first, _It last, _Pred pred) {
    while (true) {
        while (true) {
            if (first == last) {
                return first;
            }
            if (!pred(*first)) {
                break;
            }
            ++first;
        }
        --last;
        while (true) {
            if (first == last) {
                return first;
            }
            if (pred(*last)) {
                break;
            }
            --last;
        }
        std::swap(*first, *last);
        ++first;
    }
}

// A stable partition has one answer: the passing elements in order, then
// the others in order, through a copy of the range.
template <typename _T, typename _Pred>
_T* stable_partition(_T* first, _T* last, _Pred pred) {
    std::vector<_T> copy(first, last);
    _T* out = first;
    for (long i = 0; i < (long)copy.size(); i++) {
        if (pred(copy[i])) {
            *out = copy[i];
            ++out;
        }
    }
    _T* split = out;
    for (long i = 0; i < (long)copy.size(); i++) {
        if (!pred(copy[i])) {
            *out = copy[i];
            ++out;
        }
    }
    return split;
}

// `middle` becomes the first element; the range's arrangement after a
// rotation is fixed by C++, whichever way it is reached.
template <typename _It>
_It rotate(_It first, _It middle, _It last) {
    if (first == middle) {
        return last;
    }
    if (middle == last) {
        return first;
    }
    std::reverse(first, middle);
    std::reverse(middle, last);
    std::reverse(first, last);
    return first + (last - middle);
}

// Sorted ranges.

template <typename _It>
bool is_sorted(_It first, _It last) {
    if (first == last) {
        return true;
    }
    _It next = first;
    for (++next; next != last; ++next) {
        if (*next < *first) {
            return false;
        }
        first = next;
    }
    return true;
}

template <typename _It, typename _Compare>
bool is_sorted(_It first, _It last, _Compare comp) {
    if (first == last) {
        return true;
    }
    _It next = first;
    for (++next; next != last; ++next) {
        if (comp(*next, *first)) {
            return false;
        }
        first = next;
    }
    return true;
}

// libstdc++'s halving search, which also fixes the answer for a range
// that is not sorted.
template <typename _It, typename _T>
_It lower_bound(_It first, _It last, const _T& value) {
    long len = last - first;
    while (len > 0) {
        long half = len >> 1;
        _It middle = first + half;
        if (*middle < value) {
            first = middle + 1;
            len = len - half - 1;
        } else {
            len = half;
        }
    }
    return first;
}

template <typename _It, typename _T, typename _Compare>
_It lower_bound(_It first, _It last, const _T& value, _Compare comp) {
    long len = last - first;
    while (len > 0) {
        long half = len >> 1;
        _It middle = first + half;
        if (comp(*middle, value)) {
            first = middle + 1;
            len = len - half - 1;
        } else {
            len = half;
        }
    }
    return first;
}

template <typename _It, typename _T>
_It upper_bound(_It first, _It last, const _T& value) {
    long len = last - first;
    while (len > 0) {
        long half = len >> 1;
        _It middle = first + half;
        if (value < *middle) {
            len = half;
        } else {
            first = middle + 1;
            len = len - half - 1;
        }
    }
    return first;
}

template <typename _It, typename _T, typename _Compare>
_It upper_bound(_It first, _It last, const _T& value, _Compare comp) {
    long len = last - first;
    while (len > 0) {
        long half = len >> 1;
        _It middle = first + half;
        if (comp(value, *middle)) {
            len = half;
        } else {
            first = middle + 1;
            len = len - half - 1;
        }
    }
    return first;
}

template <typename _It, typename _T>
bool binary_search(_It first, _It last, const _T& value) {
    _It at = std::lower_bound(first, last, value);
    return at != last && !(value < *at);
}

template <typename _It, typename _T, typename _Compare>
bool binary_search(_It first, _It last, const _T& value, _Compare comp) {
    _It at = std::lower_bound(first, last, value, comp);
    return at != last && !comp(value, *at);
}

template <typename _It, typename _T>
pair<_It, _It> equal_range(_It first, _It last, const _T& value) {
    return pair<_It, _It>(std::lower_bound(first, last, value), std::upper_bound(first, last, value));
}

template <typename _In1, typename _In2, typename _Out>
_Out merge(_In1 first1, _In1 last1, _In2 first2, _In2 last2, _Out out) {
    while (first1 != last1 && first2 != last2) {
        if (*first2 < *first1) {
            *out = *first2;
            ++first2;
        } else {
            *out = *first1;
            ++first1;
        }
        ++out;
    }
    for (; first1 != last1; ++first1) {
        *out = *first1;
        ++out;
    }
    for (; first2 != last2; ++first2) {
        *out = *first2;
        ++out;
    }
    return out;
}

// The set operations of sorted ranges, each taking elements in C++'s
// order (from the first range where both have an equal one).
template <typename _In1, typename _In2, typename _Out>
_Out set_union(_In1 first1, _In1 last1, _In2 first2, _In2 last2, _Out out) {
    while (first1 != last1 && first2 != last2) {
        if (*first1 < *first2) {
            *out = *first1;
            ++first1;
        } else if (*first2 < *first1) {
            *out = *first2;
            ++first2;
        } else {
            *out = *first1;
            ++first1;
            ++first2;
        }
        ++out;
    }
    for (; first1 != last1; ++first1) {
        *out = *first1;
        ++out;
    }
    for (; first2 != last2; ++first2) {
        *out = *first2;
        ++out;
    }
    return out;
}

template <typename _In1, typename _In2, typename _Out>
_Out set_intersection(_In1 first1, _In1 last1, _In2 first2, _In2 last2, _Out out) {
    while (first1 != last1 && first2 != last2) {
        if (*first1 < *first2) {
            ++first1;
        } else if (*first2 < *first1) {
            ++first2;
        } else {
            *out = *first1;
            ++first1;
            ++first2;
            ++out;
        }
    }
    return out;
}

template <typename _In1, typename _In2, typename _Out>
_Out set_difference(_In1 first1, _In1 last1, _In2 first2, _In2 last2, _Out out) {
    while (first1 != last1 && first2 != last2) {
        if (*first1 < *first2) {
            *out = *first1;
            ++first1;
            ++out;
        } else if (*first2 < *first1) {
            ++first2;
        } else {
            ++first1;
            ++first2;
        }
    }
    for (; first1 != last1; ++first1) {
        *out = *first1;
        ++out;
    }
    return out;
}

template <typename _In1, typename _In2, typename _Out>
_Out set_symmetric_difference(_In1 first1, _In1 last1, _In2 first2, _In2 last2, _Out out) {
    while (first1 != last1 && first2 != last2) {
        if (*first1 < *first2) {
            *out = *first1;
            ++first1;
            ++out;
        } else if (*first2 < *first1) {
            *out = *first2;
            ++first2;
            ++out;
        } else {
            ++first1;
            ++first2;
        }
    }
    for (; first1 != last1; ++first1) {
        *out = *first1;
        ++out;
    }
    for (; first2 != last2; ++first2) {
        *out = *first2;
        ++out;
    }
    return out;
}

template <typename _In1, typename _In2>
bool includes(_In1 first1, _In1 last1, _In2 first2, _In2 last2) {
    while (first1 != last1 && first2 != last2) {
        if (*first2 < *first1) {
            return false;
        }
        if (!(*first1 < *first2)) {
            ++first2;
        }
        ++first1;
    }
    return first2 == last2;
}

template <typename _In1, typename _In2>
bool lexicographical_compare(_In1 first1, _In1 last1, _In2 first2, _In2 last2) {
    for (; first1 != last1 && first2 != last2; ++first1) {
        if (*first1 < *first2) {
            return true;
        }
        if (*first2 < *first1) {
            return false;
        }
        ++first2;
    }
    return first1 == last1 && first2 != last2;
}

// The smallest element (the first of equal ones) and the largest (the
// last of equal ones).
template <typename _It>
pair<_It, _It> minmax_element(_It first, _It last) {
    _It smallest = first;
    _It largest = first;
    for (; first != last; ++first) {
        if (*first < *smallest) {
            smallest = first;
        }
        if (!(*first < *largest)) {
            largest = first;
        }
    }
    return pair<_It, _It>(smallest, largest);
}

// The next arrangement in lexicographical order; after the last one, the
// first (sorted) and `false`.
template <typename _It>
bool next_permutation(_It first, _It last) {
    if (first == last) {
        return false;
    }
    _It i = last;
    --i;
    if (i == first) {
        return false;
    }
    while (true) {
        _It after = i;
        --i;
        if (*i < *after) {
            _It j = last;
            --j;
            while (!(*i < *j)) {
                --j;
            }
            std::swap(*i, *j);
            std::reverse(after, last);
            return true;
        }
        if (i == first) {
            std::reverse(first, last);
            return false;
        }
    }
}

template <typename _It>
bool prev_permutation(_It first, _It last) {
    if (first == last) {
        return false;
    }
    _It i = last;
    --i;
    if (i == first) {
        return false;
    }
    while (true) {
        _It after = i;
        --i;
        if (*after < *i) {
            _It j = last;
            --j;
            while (!(*j < *i)) {
                --j;
            }
            std::swap(*i, *j);
            std::reverse(after, last);
            return true;
        }
        if (i == first) {
            std::reverse(first, last);
            return false;
        }
    }
}

template <typename _It, typename _Compare>
_It min_element(_It first, _It last, _Compare comp) {
    if (first == last) {
        return first;
    }
    _It best = first;
    while (++first != last) {
        if (comp(*first, *best)) {
            best = first;
        }
    }
    return best;
}

template <typename _It, typename _Compare>
_It max_element(_It first, _It last, _Compare comp) {
    if (first == last) {
        return first;
    }
    _It best = first;
    while (++first != last) {
        if (comp(*best, *first)) {
            best = first;
        }
    }
    return best;
}

template <typename _It, typename _T, typename _Op>
_T accumulate(_It first, _It last, _T init, _Op op) {
    for (; first != last; ++first) {
        init = op(init, *first);
    }
    return init;
}

template <typename _In1, typename _In2, typename _T>
_T inner_product(_In1 first1, _In1 last1, _In2 first2, _T init) {
    for (; first1 != last1; ++first1) {
        init = init + (*first1) * (*first2);
        ++first2;
    }
    return init;
}

template <typename _In1, typename _In2, typename _T, typename _Sum, typename _Product>
_T inner_product(_In1 first1, _In1 last1, _In2 first2, _T init, _Sum sum, _Product product) {
    for (; first1 != last1; ++first1) {
        init = sum(init, product(*first1, *first2));
        ++first2;
    }
    return init;
}

template <typename _In, typename _Out>
_Out partial_sum(_In first, _In last, _Out out) {
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

template <typename _In, typename _Out, typename _Op>
_Out partial_sum(_In first, _In last, _Out out, _Op op) {
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

template <typename _In, typename _Out>
_Out adjacent_difference(_In first, _In last, _Out out) {
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
template <typename _It>
void random_shuffle(_It first, _It last) {
    if (first == last) {
        return;
    }
    for (_It i = first + 1; i != last; ++i) {
        _It j = first + rand() % ((i - first) + 1);
        if (i != j) {
            std::swap(*i, *j);
        }
    }
}

// Every comparison of the sorts goes through here, so that a comparison
// that cannot be called is reported once, not at each use.
template <typename _Compare, typename _A, typename _B>
bool __compare(_Compare& comp, const _A& a, const _B& b) {
    return comp(a, b);
}

// libstdc++'s introsort: quicksort with the median of three moved to the
// front, heapsort below a depth of twice the range's binary logarithm,
// and insertion sort over runs of at most 16 at the end.

template <typename _It, typename _Compare>
void __move_median_to_first(_It result, _It a, _It b, _It c, _Compare& comp) {
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

// Where the partition of [first, last) around *pivot ends, counted from
// the pivot (an offset rather than an iterator, so that compiled host
// code, whose calls give numbers back, can run the whole sort).
template <typename _It, typename _Compare>
long __unguarded_partition_at(_It first, _It last, _It pivot, _Compare& comp) {
    while (true) {
        while (std::__compare(comp, *first, *pivot)) {
            ++first;
        }
        --last;
        while (std::__compare(comp, *pivot, *last)) {
            --last;
        }
        if (!(first < last)) {
            return first - pivot;
        }
        std::swap(*first, *last);
        ++first;
    }
}

template <typename _It, typename _T, typename _Compare>
void __push_heap(_It first, long hole, long top, _T value, _Compare& comp) {
    long parent = (hole - 1) / 2;
    while (hole > top && std::__compare(comp, *(first + parent), value)) {
        *(first + hole) = *(first + parent);
        hole = parent;
        parent = (hole - 1) / 2;
    }
    *(first + hole) = value;
}

template <typename _It, typename _T, typename _Compare>
void __adjust_heap(_It first, long hole, long len, _T value, _Compare& comp) {
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

template <typename _It, typename _Compare>
void __make_heap(_It first, _It last, _Compare& comp) {
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

template <typename _It, typename _Compare>
void __pop_heap(_It first, _It last, _It result, _Compare& comp) {
    auto value = *result;
    *result = *first;
    std::__adjust_heap(first, 0L, (long)(last - first), value, comp);
}

template <typename _It, typename _Compare>
void __heap_sort(_It first, _It last, _Compare& comp) {
    std::__make_heap(first, last, comp);
    while (last - first > 1) {
        --last;
        std::__pop_heap(first, last, last, comp);
    }
}

// libstdc++ recurses on the part after the cut and goes on with the part
// before it; here the parts still to do wait in arrays (their bounds as
// offsets from `base`, and their depth limits), taken in the same order,
// so that every comparison and exchange is libstdc++'s, in its order. A
// depth limit of at most 126 bounds the parts waiting.
template <typename _It, typename _Compare>
void __introsort_loop(_It first, _It last, long depth_limit, _Compare& comp) {
    // Nothing to partition: the loop below, compiled, would cost more
    // than the insertion sort that follows.
    if (last - first <= 16) {
        return;
    }
    _It base = first;
    long waiting_first[128];
    long waiting_last[128];
    long waiting_depth[128];
    long waiting = 0;
    while (true) {
        while (last - first > 16) {
            if (depth_limit == 0) {
                std::__heap_sort(first, last, comp);
                break;
            }
            --depth_limit;
            _It mid = first + (last - first) / 2;
            std::__move_median_to_first(first, first + 1, mid, last - 1, comp);
            _It cut = first + std::__unguarded_partition_at(first + 1, last, first, comp);
            // The part before the cut waits; the part after it goes first.
            waiting_first[waiting] = first - base;
            waiting_last[waiting] = cut - base;
            waiting_depth[waiting] = depth_limit;
            waiting++;
            first = cut;
        }
        if (waiting == 0) {
            return;
        }
        waiting--;
        first = base + waiting_first[waiting];
        last = base + waiting_last[waiting];
        depth_limit = waiting_depth[waiting];
    }
}

template <typename _It, typename _Compare>
void __unguarded_linear_insert(_It last, _Compare& comp) {
    auto value = *last;
    _It next = last;
    --next;
    while (std::__compare(comp, value, *next)) {
        *last = *next;
        last = next;
        --next;
    }
    *last = value;
}

template <typename _It, typename _Compare>
void __insertion_sort(_It first, _It last, _Compare& comp) {
    if (first == last) {
        return;
    }
    for (_It i = first + 1; i != last; ++i) {
        if (std::__compare(comp, *i, *first)) {
            auto value = *i;
            for (_It k = i; k != first; --k) {
                *k = *(k - 1);
            }
            *first = value;
        } else {
            std::__unguarded_linear_insert(i, comp);
        }
    }
}

template <typename _It, typename _Compare>
void sort(_It first, _It last, _Compare comp) {
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
        for (_It i = first + 16; i != last; ++i) {
            std::__unguarded_linear_insert(i, comp);
        }
    } else {
        std::__insertion_sort(first, last, comp);
    }
}

// A stable sort has one answer, whichever way it is computed: a merge
// sort through a copy of the range.
template <typename _T, typename _Compare>
void __merge_sort(_T* first, _T* last, _T* buffer, _Compare& comp) {
    long n = last - first;
    if (n < 2) {
        return;
    }
    _T* mid = first + n / 2;
    std::__merge_sort(first, mid, buffer, comp);
    std::__merge_sort(mid, last, buffer, comp);
    _T* a = first;
    _T* b = mid;
    _T* out = buffer;
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

template <typename _T, typename _Compare>
void stable_sort(_T* first, _T* last, _Compare comp) {
    std::vector<_T> buffer(first, last);
    if (first != last) {
        std::__merge_sort(first, last, &buffer[0], comp);
    }
}

// Without a comparison: `<`, as C++ orders by default (the built-in
// library sorts ranges of numbers itself).
template <typename _T>
void stable_sort(_T* first, _T* last) {
    std::stable_sort(first, last, [](const _T& a, const _T& b) { return a < b; });
}

template <typename _T>
void sort(_T* first, _T* last) {
    std::sort(first, last, [](const _T& a, const _T& b) { return a < b; });
}

// The heap functions over libstdc++'s own steps, so that a heap's
// arrangement is g++'s.
template <typename _It, typename _Compare>
void make_heap(_It first, _It last, _Compare comp) {
    std::__make_heap(first, last, comp);
}

template <typename _T>
void make_heap(_T* first, _T* last) {
    std::make_heap(first, last, [](const _T& a, const _T& b) { return a < b; });
}

template <typename _It, typename _Compare>
void push_heap(_It first, _It last, _Compare comp) {
    auto value = *(last - 1);
    std::__push_heap(first, (long)((last - first) - 1), 0L, value, comp);
}

template <typename _T>
void push_heap(_T* first, _T* last) {
    std::push_heap(first, last, [](const _T& a, const _T& b) { return a < b; });
}

template <typename _It, typename _Compare>
void pop_heap(_It first, _It last, _Compare comp) {
    if (last - first > 1) {
        --last;
        std::__pop_heap(first, last, last, comp);
    }
}

template <typename _T>
void pop_heap(_T* first, _T* last) {
    std::pop_heap(first, last, [](const _T& a, const _T& b) { return a < b; });
}

template <typename _It, typename _Compare>
void sort_heap(_It first, _It last, _Compare comp) {
    while (last - first > 1) {
        --last;
        std::__pop_heap(first, last, last, comp);
    }
}

template <typename _T>
void sort_heap(_T* first, _T* last) {
    std::sort_heap(first, last, [](const _T& a, const _T& b) { return a < b; });
}

template <typename _It, typename _Compare>
bool is_heap(_It first, _It last, _Compare comp) {
    long n = last - first;
    for (long child = 1; child < n; child++) {
        if (std::__compare(comp, *(first + (child - 1) / 2), *(first + child))) {
            return false;
        }
    }
    return true;
}

template <typename _T>
bool is_heap(_T* first, _T* last) {
    return std::is_heap(first, last, [](const _T& a, const _T& b) { return a < b; });
}

// libstdc++'s partial sort: the smallest elements gathered in a heap at
// the front (each later element smaller than the heap's top takes its
// place), then the heap sorted; the rest is left in the order that gives.
template <typename _It, typename _Compare>
void __heap_select(_It first, _It middle, _It last, _Compare& comp) {
    std::__make_heap(first, middle, comp);
    for (_It i = middle; i < last; ++i) {
        if (std::__compare(comp, *i, *first)) {
            std::__pop_heap(first, middle, i, comp);
        }
    }
}

template <typename _It, typename _Compare>
void partial_sort(_It first, _It middle, _It last, _Compare comp) {
    std::__heap_select(first, middle, last, comp);
    while (middle - first > 1) {
        --middle;
        std::__pop_heap(first, middle, middle, comp);
    }
}

template <typename _T>
void partial_sort(_T* first, _T* middle, _T* last) {
    std::partial_sort(first, middle, last, [](const _T& a, const _T& b) { return a < b; });
}

// libstdc++'s introselect: the introsort's partitions, keeping only the
// part holding `nth`, a heap selection below the depth limit, and an
// insertion sort of the last few.
template <typename _It, typename _Compare>
void nth_element(_It first, _It nth, _It last, _Compare comp) {
    if (first == last || nth == last) {
        return;
    }
    long n = last - first;
    long depth_limit = 0;
    while (n > 1) {
        n = n / 2;
        depth_limit++;
    }
    depth_limit = depth_limit * 2;
    while (last - first > 3) {
        if (depth_limit == 0) {
            std::__heap_select(first, nth + 1, last, comp);
            std::swap(*first, *nth);
            return;
        }
        --depth_limit;
        _It mid = first + (last - first) / 2;
        std::__move_median_to_first(first, first + 1, mid, last - 1, comp);
        _It cut = first + std::__unguarded_partition_at(first + 1, last, first, comp);
        if (cut <= nth) {
            first = cut;
        } else {
            last = cut;
        }
    }
    std::__insertion_sort(first, last, comp);
}

template <typename _T>
void nth_element(_T* first, _T* nth, _T* last) {
    std::nth_element(first, nth, last, [](const _T& a, const _T& b) { return a < b; });
}

} // namespace std
