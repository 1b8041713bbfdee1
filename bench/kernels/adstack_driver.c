/* Push/pop throughput of backends/runtime/adStack.c (run by bench/bench_adstack.py).
 * Prints "name push_ns pop_ns" per line: nanoseconds per value, best of 5 sweeps. */
#define _POSIX_C_SOURCE 199309L
#include "adStack.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { N = 10000000, CHUNK = 100, REPEATS = 5 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double sink;
static double plain[N];

/* One sweep: push N values, then pop them; the times of both halves. */
static void sweep(int kind, double *push_s, double *pop_s) {
    double t0, t1, s = 0, a[CHUNK];
    int i, k, cc;
    for (k = 0; k < CHUNK; k++)
        a[k] = k;
    t0 = now();
    switch (kind) {
    case 0: for (i = 0; i < N; i++) pushReal8(i * 0.5); break;
    case 1: for (i = 0; i < N; i += CHUNK) pushReal8Array(a, CHUNK); break;
    case 2: for (i = 0; i < N; i++) pushControl1b(i & 1); break;
    case 3: for (i = 0; i < N; i++) pushControl8b(i & 255); break;
    default: for (i = 0; i < N; i++) plain[i] = i * 0.5; break;
    }
    t1 = now();
    *push_s = t1 - t0;
    switch (kind) {
    case 0: for (i = 0; i < N; i++) { double x; popReal8(&x); s += x; } break;
    case 1: for (i = 0; i < N; i += CHUNK) { popReal8Array(a, CHUNK); s += a[1]; } break;
    case 2: for (i = 0; i < N; i++) { popControl1b(&cc); s += cc; } break;
    case 3: for (i = 0; i < N; i++) { popControl8b(&cc); s += cc; } break;
    default: for (i = N - 1; i >= 0; i--) s += plain[i]; break;
    }
    *pop_s = now() - t1;
    sink += s;
}

int main(void) {
    static const char *names[] = {"pushReal8", "pushReal8Array(100)", "pushControl1b", "pushControl8b",
                                  "plain_array"};
    int kind, r;
    for (kind = 0; kind < 5; kind++) {
        double best_push = 1e30, best_pop = 1e30, first_push = 0, p, q;
        for (r = 0; r < REPEATS; r++) {
            sweep(kind, &p, &q);
            if (r == 0)
                first_push = p;
            if (p < best_push) best_push = p;
            if (q < best_pop) best_pop = q;
        }
        if (!adStack_isEmpty())
            return 1;
        printf("%s %.3f %.3f %.3f\n", names[kind], best_push / N * 1e9, best_pop / N * 1e9, first_push / N * 1e9);
    }
    printf("peak_bytes %lld\n", adStack_peakBytes());
    printf("traffic_bytes %lld\n", adStack_totalBytes());
    return sink == 42.0;
}
