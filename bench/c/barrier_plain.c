// barrier_plain.c: bench/programs/barrier_plain.amp in plain C.
// The benchmark kernel is nat_barrier_plain of the peers' native.c: per
// tile of WG work-items, K iterations of v = v * 0.5f + 1.0f, each a loop
// over the work-items (the barrier as a loop boundary). The sampled
// work-items are recomputed one by one, as the .amp program's second kernel
// does, and compared; the output has the same lines.
// Build: gcc -O2 [-DN=65536] [-DK=256] barrier_plain.c. Prints
// `c-stats kernel_ms=X` (the benchmark kernel alone) to stderr.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#ifndef N
#define N 65536
#endif
#define WG 256
#ifndef K
#define K 256
#endif
#define SAMPLES 256

static void barrier_plain(float *restrict out, int global, int wg, int k)
{
    int groups = global / wg;
    for (int g = 0; g < groups; ++g) {
        float v[WG];
        for (int l = 0; l < wg; ++l)
            v[l] = (float)(g * wg + l);
        for (int i = 0; i < k; ++i)
            for (int l = 0; l < wg; ++l)
                v[l] = v[l] * 0.5f + 1.0f;
        for (int l = 0; l < wg; ++l)
            out[(size_t)g * wg + l] = v[l];
    }
}

int main(void)
{
    // k is a run-time value, as the kernel argument of the peers and the
    // captured variable of the .amp program.
    volatile int kv = K;
    int k = kv;
    const int stride = N / SAMPLES;
    float *outData = vector_alloc(N, sizeof(float));
    float *refData = vector_alloc(SAMPLES, sizeof(float));
    if (!outData || !refData)
        return 1;

    double t0 = now_ms();
    barrier_plain(outData, N, WG, k);
    double t1 = now_ms();

    // Reference values of a sample of work-items, one per stride.
    for (int s = 0; s < SAMPLES; s++) {
        int g = s * stride + (s * 37) % stride;
        float v = (float)g;
        for (int i = 0; i < k; ++i)
            v = v * 0.5f + 1.0f;
        refData[s] = v;
    }

    int mismatches = 0;
    double checksum = 0.0;
    for (int s = 0; s < SAMPLES; s++) {
        int g = s * stride + (s * 37) % stride;
        if (outData[g] != refData[s])
            mismatches++;
        checksum += (double)outData[g];
    }

    printf("barrier_plain N=%d WG=%d K=%d (%d barriers per work-item)\n", N, WG, K, K);
    printf("v[0] = %.6f  v[1] = %.6f  v[N-1] = %.6f\n", outData[0], outData[1], outData[N - 1]);
    printf("sampled checksum %.6f\n", checksum);
    if (mismatches == 0)
        printf("check: ok (%d sampled work-items)\n", SAMPLES);
    else
        printf("check: FAILED (%d of %d sampled work-items differ)\n", mismatches, SAMPLES);
    fprintf(stderr, "c-stats kernel_ms=%.3f\n", t1 - t0);
    free(refData);
    free(outData);
    return 0;
}
