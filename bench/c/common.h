// Helpers every C program of bench/c/ shares.
#ifndef BENCH_C_COMMON_H
#define BENCH_C_COMMON_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

// Milliseconds on the monotonic clock.
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// The storage of a std::vector: allocated and zeroed by the host, so its
// pages are touched here, as the .amp program's vector does, and not first
// in the kernel. (The empty asm keeps the compiler from turning malloc +
// memset into calloc, whose fresh pages would stay untouched.)
static void *vector_alloc(size_t count, size_t size)
{
    void *p = malloc(count * size);
    if (p) {
        __asm__ volatile("" : : "r"(p) : "memory");
        memset(p, 0, count * size);
    }
    return p;
}

#endif
