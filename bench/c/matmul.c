// matmul.c: bench/programs/matmul_512.amp and matmul_1024.amp in plain C
// (N set with -DN, default 1024).
// The inputs are filled by a loop from the same formulas; the benchmark
// kernel C = A * B is the i-k-j loop nest of nat_matmul in the peers'
// native.c (the same k order for every element as the tiled kernel; the
// values are small integers, so every sum is exact); the weighted row sums,
// the checksum and the sampled elements recomputed from the input formulas
// are those of the .amp program, and the output has the same lines.
// Build: gcc -O2 -DN=1024 matmul.c. Prints `c-stats kernel_ms=X` (the
// benchmark kernel alone) to stderr.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#ifndef N
#define N 1024
#endif
#define TS 16
#define SAMPLES 16

static float aValue(int i, int k)
{
    return (float)((5 * i + 3 * k) % 11 - 5);
}

static float bValue(int k, int j)
{
    return (float)((7 * k + 2 * j + k / 5) % 9 - 4);
}

static void matmul(const float *restrict a, const float *restrict b,
                   float *restrict c, int n)
{
    for (int i = 0; i < n; ++i) {
        float *restrict ci = c + (size_t)i * n;
        for (int j = 0; j < n; ++j)
            ci[j] = 0.0f;
        for (int k = 0; k < n; ++k) {
            float aik = a[(size_t)i * n + k];
            const float *restrict bk = b + (size_t)k * n;
            for (int j = 0; j < n; ++j)
                ci[j] += aik * bk[j];
        }
    }
}

int main(void)
{
    float *a = malloc(sizeof(float) * (size_t)N * N);
    float *b = malloc(sizeof(float) * (size_t)N * N);
    float *cData = vector_alloc((size_t)N * N, sizeof(float));
    if (!a || !b || !cData)
        return 1;

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[(size_t)i * N + j] = aValue(i, j);
            b[(size_t)i * N + j] = bValue(i, j);
        }

    double t0 = now_ms();
    matmul(a, b, cData, N);
    double t1 = now_ms();

    // Weighted row sums, each row added left to right.
    double *rowData = vector_alloc(N, sizeof(double));
    if (!rowData)
        return 1;
    for (int i = 0; i < N; ++i) {
        double s = 0.0;
        for (int j = 0; j < N; ++j)
            s += (double)cData[(size_t)i * N + j] * (double)(j % 7 + 1);
        rowData[i] = s;
    }

    double checksum = 0.0;
    for (int i = 0; i < N; i++)
        checksum += rowData[i] * (double)(i % 5 + 1);

    int mismatches = 0;
    for (int s = 0; s < SAMPLES; s++) {
        int i = (37 * s + 5) % N;
        int j = (101 * s + 11) % N;
        if (s == SAMPLES - 1) {
            i = N - 1;
            j = N - 1;
        }
        float expected = 0.0f;
        for (int k = 0; k < N; k++)
            expected += aValue(i, k) * bValue(k, j);
        if (cData[i * N + j] != expected)
            mismatches++;
    }

    // std::cout's default float format is printf's %g (6 significant digits).
    printf("matmul N=%d tiles %dx%d\n", N, TS, TS);
    printf("C(0,0) = %g  C(1,2) = %g  C(N-1,N-1) = %g\n",
           cData[0], cData[1 * N + 2], cData[(size_t)N * N - 1]);
    printf("weighted checksum %.1f\n", checksum);
    if (mismatches == 0)
        printf("check: ok (%d sampled elements)\n", SAMPLES);
    else
        printf("check: FAILED (%d of %d sampled elements differ)\n", mismatches, SAMPLES);
    fprintf(stderr, "c-stats kernel_ms=%.3f\n", t1 - t0);
    free(rowData);
    free(cData);
    free(b);
    free(a);
    return 0;
}
