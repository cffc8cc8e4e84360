// transpose.c: bench/programs/transpose_2048.amp in plain C.
// The input is filled by a loop with in(r, c) = r * N + c; the benchmark
// kernel is the transpose blocked by 16x16 tiles of nat_transpose_blocked in
// the peers' native.c; the sampled check and the output lines are those of
// the .amp program.
// Build: gcc -O2 [-DN=2048] transpose.c. Prints `c-stats kernel_ms=X` (the
// transpose alone) to stderr.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#ifndef N
#define N 2048
#endif
#define TS 16
#define SAMPLES 1024

static void transpose_blocked(const float *restrict in, float *restrict out,
                              int n, int t)
{
    for (int bi = 0; bi < n; bi += t)
        for (int bj = 0; bj < n; bj += t)
            for (int i = bi; i < bi + t; ++i)
                for (int j = bj; j < bj + t; ++j)
                    out[(size_t)j * n + i] = in[(size_t)i * n + j];
}

int main(void)
{
    float *input = malloc(sizeof(float) * (size_t)N * N);
    float *outData = vector_alloc((size_t)N * N, sizeof(float));
    if (!input || !outData)
        return 1;

    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            input[(size_t)r * N + c] = (float)(r * N + c);

    double t0 = now_ms();
    transpose_blocked(input, outData, N, TS);
    double t1 = now_ms();

    // out(r, c) must be in(c, r) = c * N + r.
    int mismatches = 0;
    double checksum = 0.0;
    int seed = 12345;
    for (int s = 0; s < SAMPLES; s++) {
        seed = (seed * 1103 + 12345) % 65536;
        int r = (seed * 7 + s) % N;
        int c = (seed / 3 + 5 * s) % N;
        float v = outData[r * N + c];
        if (v != (float)(c * N + r))
            mismatches++;
        checksum += (double)v * (double)(s % 7 + 1);
    }
    int cells[] = {0, 1, TS - 1, TS, N - 1};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            int r = cells[i];
            int c = cells[j];
            if (outData[r * N + c] != (float)(c * N + r))
                mismatches++;
        }

    printf("transpose N=%d tiles %dx%d\n", N, TS, TS);
    printf("out(0,1) = %.1f  out(1,0) = %.1f  out(%d,%d) = %.1f  out(N-1,0) = %.1f\n",
           outData[1], outData[N], TS, TS - 1, outData[TS * N + TS - 1],
           outData[(size_t)(N - 1) * N]);
    printf("sampled checksum %.1f\n", checksum);
    if (mismatches == 0)
        printf("check: ok (%d sampled elements)\n", SAMPLES + 25);
    else
        printf("check: FAILED (%d of %d sampled elements differ)\n", mismatches, SAMPLES + 25);
    fprintf(stderr, "c-stats kernel_ms=%.3f\n", t1 - t0);
    free(outData);
    free(input);
    return 0;
}
