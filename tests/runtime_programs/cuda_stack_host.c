/* The per-thread stacks of adStack_cuda.cuh, run on the host (no GPU here): three emulated
 * threads push and pop interleaved, each must get its own values back and its own figures.
 * Argument "overflow": a thread pushes past its share, which must stop the program. */
#include "adStack_cuda.cuh"

#include <stdlib.h>
#include <string.h>

enum { THREADS = 3, PER_THREAD = 1000 };

static int failures;
#define CHECK(cond) do { if (!(cond)) { printf("FAILED line %d: %s\n", __LINE__, #cond); failures++; } } while (0)

int main(int argc, char **argv) {
    int i, t, cc;
    double x;
    int64_t l;
    char *buffer = adStack_cudaAlloc(THREADS, PER_THREAD);
    if (argc > 1 && !strcmp(argv[1], "overflow")) {
        adStack_cudaThread = 1;
        for (i = 0; i < PER_THREAD / 8 + 10; i++)
            pushReal8(i);
        return 0;
    }
    for (i = 0; i < 40; i++) {
        for (t = 0; t < THREADS; t++) {
            adStack_cudaThread = t;
            pushReal8(100.0 * t + i);
            pushControl3b((i + t) & 7);
            pushInteger8((int64_t)t << 40 | i);
            pushBoolean(i % 2);
        }
    }
    for (t = 0; t < THREADS; t++) {
        adStack_cudaThread = t;
        /* 40 * (8 + 8) bytes and 40 * 4 = 160 bits: 5 words */
        CHECK(adStack_totalBytes() == 40 * 16 + 5 * 4);
        CHECK(adStack_peakBytes() == adStack_totalBytes());
    }
    CHECK(adStack_cudaPeakBytes(THREADS) == 40 * 16 + 5 * 4);
    for (i = 39; i >= 0; i--) {
        for (t = THREADS - 1; t >= 0; t--) {
            int b;
            adStack_cudaThread = t;
            popBoolean(&b); CHECK(b == i % 2);
            popInteger8(&l); CHECK(l == ((int64_t)t << 40 | i));
            popControl3b(&cc); CHECK(cc == ((i + t) & 7));
            popReal8(&x); CHECK(x == 100.0 * t + i);
        }
    }
    for (t = 0; t < THREADS; t++) {
        adStack_cudaThread = t;
        CHECK(adStack_isEmpty() && adStack_currentBytes() == 0);
    }
    free(buffer);
    if (!failures)
        printf("ok cuda host\n");
    return failures != 0;
}
