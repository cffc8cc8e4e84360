// barrier_xchg.c: bench/programs/barrier_xchg.amp in plain C.
// The benchmark kernel is nat_barrier_xchg of the peers' native.c: per tile
// of WG work-items, K iterations of a copy into the exchange buffer and an
// average with the next work-item's value, each a loop over the work-items
// (the two barriers as loop boundaries). The first and the last tile are
// replayed in private arrays, as the .amp program's second kernel does, and
// compared element by element; the output has the same lines.
// Build: gcc -O2 [-DN=65536] [-DK=256] barrier_xchg.c. Prints
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

static void barrier_xchg(float *restrict out, int global, int wg, int k)
{
    int groups = global / wg;
    for (int g = 0; g < groups; ++g) {
        float v[WG], s[WG];
        for (int l = 0; l < wg; ++l)
            v[l] = (float)(g * wg + l);
        for (int i = 0; i < k; ++i) {
            for (int l = 0; l < wg; ++l)
                s[l] = v[l];
            for (int l = 0; l < wg; ++l)
                v[l] = 0.5f * (v[l] + s[(l + 1) & (wg - 1)]);
        }
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
    const int tiles = N / WG;
    float *outData = vector_alloc(N, sizeof(float));
    float *refData = vector_alloc(2 * WG, sizeof(float));
    if (!outData || !refData)
        return 1;

    double t0 = now_ms();
    barrier_xchg(outData, N, WG, k);
    double t1 = now_ms();

    // Replay of the first and the last tile.
    for (int r = 0; r < 2; r++) {
        int tile = r == 0 ? 0 : tiles - 1;
        float v[WG], s[WG];
        for (int l = 0; l < WG; ++l)
            v[l] = (float)(tile * WG + l);
        for (int i = 0; i < k; ++i) {
            for (int l = 0; l < WG; ++l)
                s[l] = v[l];
            for (int l = 0; l < WG; ++l)
                v[l] = 0.5f * (v[l] + s[(l + 1) & (WG - 1)]);
        }
        for (int l = 0; l < WG; ++l)
            refData[r * WG + l] = v[l];
    }

    int mismatches = 0;
    double checksum = 0.0;
    for (int r = 0; r < 2; r++) {
        int tile = r == 0 ? 0 : tiles - 1;
        for (int l = 0; l < WG; l++) {
            float v = outData[tile * WG + l];
            if (v != refData[r * WG + l])
                mismatches++;
            checksum += (double)v * (double)(l % 7 + 1);
        }
    }

    printf("barrier_xchg N=%d WG=%d K=%d (%d barriers per work-item)\n", N, WG, K, 2 * K);
    printf("v[0] = %.6f  v[1] = %.6f  v[N-1] = %.6f\n", outData[0], outData[1], outData[N - 1]);
    printf("checksum of first and last tile %.6f\n", checksum);
    if (mismatches == 0)
        printf("check: ok (%d work-items of 2 tiles)\n", 2 * WG);
    else
        printf("check: FAILED (%d of %d work-items differ)\n", mismatches, 2 * WG);
    fprintf(stderr, "c-stats kernel_ms=%.3f\n", t1 - t0);
    free(refData);
    free(outData);
    return 0;
}
