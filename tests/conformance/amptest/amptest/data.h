// Filling std::vectors with random test data.
#pragma once

#include <cstdlib>
#include <vector>
#include <random>

// The library declares Fill in Concurrency::Test; the language finds
// templates called with explicit arguments (`Fill<int>(v)`) only at file
// scope yet, so they are declared there.

// The range Fill uses when none is given, and a random value in a range:
// any integer from min to max for integral types, a uniformly spread value
// for floating-point ones.
template <typename T>
struct amptest_fill_range {
    static T default_min() { return static_cast<T>(-(1 << 15)); }
    static T default_max() { return static_cast<T>(1 << 15); }
    static T random_value(T min, T max) {
        unsigned int span = (unsigned int)(max - min) + 1u;
        return static_cast<T>(min + static_cast<T>((unsigned int)rand() % span));
    }
};

template <>
struct amptest_fill_range<unsigned int> {
    static unsigned int default_min() { return 0u; }
    static unsigned int default_max() { return 1u << 15; }
    static unsigned int random_value(unsigned int min, unsigned int max) {
        return min + (unsigned int)rand() % (max - min + 1u);
    }
};

template <>
struct amptest_fill_range<unsigned long> {
    static unsigned long default_min() { return 0ul; }
    static unsigned long default_max() { return 1ul << 15; }
    static unsigned long random_value(unsigned long min, unsigned long max) {
        return min + (unsigned long)rand() % (max - min + 1ul);
    }
};

template <>
struct amptest_fill_range<float> {
    static float default_min() { return -32768.0f; }
    static float default_max() { return 32768.0f; }
    static float random_value(float min, float max) {
        double r = (double)rand() / (double)RAND_MAX;
        return static_cast<float>(min + (max - min) * r);
    }
};

template <>
struct amptest_fill_range<double> {
    static double default_min() { return -32768.0; }
    static double default_max() { return 32768.0; }
    static double random_value(double min, double max) {
        double r = (double)rand() / (double)RAND_MAX;
        return min + (max - min) * r;
    }
};

template <typename T>
void Fill(std::vector<T>& arr, T min, T max) {
    for (int i = 0; i < (int)arr.size(); i++) {
        arr[i] = amptest_fill_range<T>::random_value(min, max);
    }
}

template <typename T>
void Fill(std::vector<T>& arr) {
    Fill<T>(arr, amptest_fill_range<T>::default_min(), amptest_fill_range<T>::default_max());
}

// C arrays and what pointers point to: `size` elements from `arr`.
template <typename T>
void Fill(T* arr, size_t size, T min, T max) {
    for (size_t i = 0; i < size; i++) {
        arr[i] = amptest_fill_range<T>::random_value(min, max);
    }
}

template <typename T>
void Fill(T* arr, size_t size) {
    Fill<T>(arr, size, amptest_fill_range<T>::default_min(), amptest_fill_range<T>::default_max());
}

// Tests also name it by its namespace (`Test::Fill(v)`).
namespace concurrency {
namespace Test {
using ::Fill;
} // namespace Test
} // namespace concurrency
