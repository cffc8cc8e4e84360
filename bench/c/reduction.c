// reduction.c: bench/programs/reduction.amp in plain C.
// The input is filled by a loop; the benchmark kernel gives one partial sum
// per tile of 256 values, added in order in float (the plain summing loop
// of nat_sum in the peers' native.c, once per tile: the program needs the
// partial sums, and the input values make every partial sum exact, so the
// order of the additions does not change them); the host adds the partial
// sums in double, checks the total against the closed form and recomputes
// a sample of partial sums, as the .amp program does, with the same output.
// Build: gcc -O2 [-DN=16777216] reduction.c. Prints `c-stats kernel_ms=X`
// (the partial sums alone) to stderr.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#ifndef N
#define N 16777216
#endif
#define TS 256
#define SAMPLES 8

static float inValue(int i)
{
    return (float)((i * 37 + 11) % 101) * 0.125f;
}

int main(void)
{
    const int tiles = N / TS;
    float *input = malloc(sizeof(float) * (size_t)N);
    float *partialData = vector_alloc(tiles, sizeof(float));
    if (!input || !partialData)
        return 1;

    for (int i = 0; i < N; i++)
        input[i] = inValue(i);

    double t0 = now_ms();
    for (int t = 0; t < tiles; ++t) {
        const float *in = input + (size_t)t * TS;
        float s = 0.0f;
        for (int l = 0; l < TS; ++l)
            s += in[l];
        partialData[t] = s;
    }
    double t1 = now_ms();

    double total = 0.0;
    for (int t = 0; t < tiles; t++)
        total += partialData[t];

    // Closed form: any 101 consecutive values are a permutation of one period.
    double period = 0.0;
    for (int i = 0; i < 101; i++)
        period += inValue(i);
    int fullPeriods = N / 101;
    double expectedTotal = period * (double)fullPeriods;
    for (int i = fullPeriods * 101; i < N; i++)
        expectedTotal += inValue(i);

    int mismatches = 0;
    for (int s = 0; s < SAMPLES; s++) {
        int t = (97 * s + 1) % tiles;
        if (s == SAMPLES - 1)
            t = tiles - 1;
        float sum = 0.0f;
        for (int l = 0; l < TS; l++)
            sum += inValue(t * TS + l);
        if (partialData[t] != sum)
            mismatches++;
    }
    if (total != expectedTotal)
        mismatches++;

    printf("reduction N=%d tiles of %d\n", N, TS);
    printf("partial[0] = %.3f  partial[1] = %.3f  partial[last] = %.3f\n",
           partialData[0], partialData[1], partialData[tiles - 1]);
    printf("total %.3f  expected %.3f\n", total, expectedTotal);
    if (mismatches == 0)
        printf("check: ok (total and %d sampled partial sums)\n", SAMPLES);
    else
        printf("check: FAILED (%d of %d checks differ)\n", mismatches, SAMPLES + 1);
    fprintf(stderr, "c-stats kernel_ms=%.3f\n", t1 - t0);
    free(partialData);
    free(input);
    return 0;
}
