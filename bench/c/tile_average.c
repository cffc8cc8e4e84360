// tile_average.c: bench/programs/tile_average.amp in plain C.
// The input is filled by a loop; the benchmark kernel (one average per
// 16x16 tile, each tile summed row by row) is the loop nest of nat_tile_avg
// in the peers' native.c; the weighted row sums, the checksum and the
// sampled tiles recomputed from the input formula are those of the .amp
// program, and the output has the same lines.
// Build: gcc -O2 [-DN=4096] tile_average.c. Prints `c-stats kernel_ms=X`
// (the benchmark kernel alone) to stderr.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#ifndef N
#define N 4096
#endif
#define TS 16
#define SAMPLES 16

static float inValue(int y, int x)
{
    return (float)((3 * y + 5 * x + (x / 7) * y) % 16) * 0.25f;
}

int main(void)
{
    const int tiles = N / TS;
    float *input = malloc(sizeof(float) * (size_t)N * N);
    float *avgData = vector_alloc((size_t)tiles * tiles, sizeof(float));
    if (!input || !avgData)
        return 1;

    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            input[(size_t)y * N + x] = inValue(y, x);

    double t0 = now_ms();
    for (int ty = 0; ty < tiles; ++ty)
        for (int tx = 0; tx < tiles; ++tx) {
            float acc = 0.0f;
            for (int y = 0; y < TS; ++y) {
                const float *row = input + (size_t)(ty * TS + y) * N + tx * TS;
                for (int x = 0; x < TS; ++x)
                    acc += row[x];
            }
            avgData[(size_t)ty * tiles + tx] = acc / (float)(TS * TS);
        }
    double t1 = now_ms();

    // Weighted row sums of the averages, each row added left to right.
    double *rowData = vector_alloc(tiles, sizeof(double));
    if (!rowData)
        return 1;
    for (int i = 0; i < tiles; ++i) {
        double s = 0.0;
        for (int j = 0; j < tiles; ++j)
            s += (double)avgData[(size_t)i * tiles + j] * (double)(j % 7 + 1);
        rowData[i] = s;
    }

    double checksum = 0.0;
    for (int i = 0; i < tiles; i++)
        checksum += rowData[i] * (double)(i % 5 + 1);

    int mismatches = 0;
    for (int s = 0; s < SAMPLES; s++) {
        int ty = (37 * s + 3) % tiles;
        int tx = (101 * s + 7) % tiles;
        if (s == SAMPLES - 1) {
            ty = tiles - 1;
            tx = tiles - 1;
        }
        float sum = 0.0f;
        for (int y = 0; y < TS; y++)
            for (int x = 0; x < TS; x++)
                sum += inValue(ty * TS + y, tx * TS + x);
        if (avgData[ty * tiles + tx] != sum / (float)(TS * TS))
            mismatches++;
    }

    printf("tile average N=%d tiles %dx%d\n", N, TS, TS);
    printf("avg(0,0) = %.6f  avg(0,1) = %.6f  avg(1,0) = %.6f  avg(last) = %.6f\n",
           avgData[0], avgData[1], avgData[tiles], avgData[tiles * tiles - 1]);
    printf("weighted checksum %.6f\n", checksum);
    if (mismatches == 0)
        printf("check: ok (%d sampled tiles)\n", SAMPLES);
    else
        printf("check: FAILED (%d of %d sampled tiles differ)\n", mismatches, SAMPLES);
    fprintf(stderr, "c-stats kernel_ms=%.3f\n", t1 - t0);
    free(rowData);
    free(avgData);
    free(input);
    return 0;
}
