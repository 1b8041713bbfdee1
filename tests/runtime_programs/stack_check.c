/* Checks of the adspec runtime (backends/runtime/adStack.c), one scenario per run:
 *   stack_check SCENARIO        prints "ok SCENARIO" or the failed checks, exit 1
 *   stack_check ops < FILE      runs a sequence of operations (see run_ops) for the model test
 * Compiled by tests/test_runtime.py with several block sizes and under sanitizers. */
#include "adStack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond) do { if (!(cond)) { printf("FAILED line %d: %s\n", __LINE__, #cond); failures++; } } while (0)

enum { ARR = 5 };

/* One iteration pushes every type once; the figures below follow from it. */
static const long long BYTES_PER_ITER = 8 + 4 + 4 + 8 + 1 + (long long)sizeof(void *)
                                        + ARR * (8 + 4 + 4 + 8 + 1);
static const long long BITS_PER_ITER = 1 + (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8);

static void push_iter(int i) {
    double d[ARR];
    float f[ARR];
    int n[ARR];
    int64_t l[ARR];
    char c[ARR];
    int k;
    for (k = 0; k < ARR; k++) {
        d[k] = i + 0.25 * k;
        f[k] = (float)(i - k);
        n[k] = i * 7 + k;
        l[k] = (int64_t)i << 33 | k;
        c[k] = (char)('a' + (i + k) % 26);
    }
    pushReal8(i * 1.5);
    pushControl1b(i & 1);
    pushReal4((float)i / 4);
    pushControl2b(i & 3);
    pushInteger4(-i);
    pushControl3b(i & 7);
    pushInteger8((int64_t)i * 1000000007LL);
    pushControl4b(i & 15);
    pushCharacter((char)(i % 128));
    pushControl5b(i & 31);
    pushPointer8((void *)&d[i % ARR]);
    pushControl6b(i & 63);
    pushReal8Array(d, ARR);
    pushControl7b(i & 127);
    pushReal4Array(f, ARR);
    pushBoolean(i % 3 == 0);
    pushInteger4Array(n, ARR);
    pushControl8b(i & 255);
    pushInteger8Array(l, ARR);
    pushCharacterArray(c, ARR);
}

static void pop_iter(int i) {
    double d[ARR], x;
    float f[ARR], y;
    int n[ARR], m, cc, b;
    int64_t l[ARR], j;
    char c[ARR], ch;
    void *p;
    int k;
    popCharacterArray(c, ARR);
    popInteger8Array(l, ARR);
    popControl8b(&cc); CHECK(cc == (i & 255));
    popInteger4Array(n, ARR);
    popBoolean(&b); CHECK(b == (i % 3 == 0));
    popReal4Array(f, ARR);
    popControl7b(&cc); CHECK(cc == (i & 127));
    popReal8Array(d, ARR);
    for (k = 0; k < ARR; k++) {
        CHECK(d[k] == i + 0.25 * k);
        CHECK(f[k] == (float)(i - k));
        CHECK(n[k] == i * 7 + k);
        CHECK(l[k] == ((int64_t)i << 33 | k));
        CHECK(c[k] == (char)('a' + (i + k) % 26));
    }
    popControl6b(&cc); CHECK(cc == (i & 63));
    popPointer8(&p); CHECK(p == (void *)&d[i % ARR]);
    popControl5b(&cc); CHECK(cc == (i & 31));
    popCharacter(&ch); CHECK(ch == (char)(i % 128));
    popControl4b(&cc); CHECK(cc == (i & 15));
    popInteger8(&j); CHECK(j == (int64_t)i * 1000000007LL);
    popControl3b(&cc); CHECK(cc == (i & 7));
    popInteger4(&m); CHECK(m == -i);
    popControl2b(&cc); CHECK(cc == (i & 3));
    popReal4(&y); CHECK(y == (float)i / 4);
    popControl1b(&cc); CHECK(cc == (i & 1));
    popReal8(&x); CHECK(x == i * 1.5);
}

/* The figures of `iters` iterations pushed with nothing popped: full 32-bit words of bits. */
static long long expected_bytes(long long iters) {
    return iters * BYTES_PER_ITER + (iters * BITS_PER_ITER / 32) * 4;
}

static void roundtrip(void) {
    const int iters = 3000;   /* about 330 kB: several blocks of 64 kB */
    int i;
    double none[1] = {7};
    CHECK(adStack_isEmpty());
    /* empty arrays, before any storage exists and at a block's end */
    pushReal8Array(none, 0);
    popReal8Array(none, 0);
    lookReal8Array(none, 0);
    CHECK(adStack_isEmpty() && adStack_totalBytes() == 0 && none[0] == 7);
    for (i = 0; i < iters; i++)
        push_iter(i);
    CHECK(adStack_totalBytes() == expected_bytes(iters));
    CHECK(adStack_currentBytes() == expected_bytes(iters));
    CHECK(adStack_peakBytes() == expected_bytes(iters));
    CHECK(!adStack_isEmpty());
    pushReal8Array(none, 0);
    popReal8Array(none, 0);
    for (i = iters - 1; i >= 0; i--)
        pop_iter(i);
    CHECK(adStack_isEmpty());
    CHECK(adStack_currentBytes() == 0);
    CHECK(adStack_totalBytes() == expected_bytes(iters));
    CHECK(adStack_peakBytes() == expected_bytes(iters));
    /* a second, smaller sweep reuses the blocks: traffic adds up, the peak stays */
    for (i = 0; i < 10; i++)
        push_iter(i);
    for (i = 9; i >= 0; i--)
        pop_iter(i);
    CHECK(adStack_totalBytes() == expected_bytes(iters) + expected_bytes(10));
    CHECK(adStack_peakBytes() == expected_bytes(iters));
    CHECK(adStack_isEmpty());
}

/* Every value of every control width, and bits interleaved with values. */
static void controls(void) {
    int nb, v, cc;
    for (nb = 1; nb <= 8; nb++) {
        for (v = 0; v < 1 << nb; v++) {
            switch (nb) {
            case 1: pushControl1b(v); break;
            case 2: pushControl2b(v); break;
            case 3: pushControl3b(v); break;
            case 4: pushControl4b(v); break;
            case 5: pushControl5b(v); break;
            case 6: pushControl6b(v); break;
            case 7: pushControl7b(v); break;
            default: pushControl8b(v); break;
            }
            pushInteger4(v);
        }
    }
    /* 2+8+24+64+160+384+896+2048 = 3586 bits: 112 full words; 510 ints */
    CHECK(adStack_totalBytes() == 112 * 4 + 510 * 4);
    for (nb = 8; nb >= 1; nb--) {
        for (v = (1 << nb) - 1; v >= 0; v--) {
            int w;
            popInteger4(&w);
            CHECK(w == v);
            switch (nb) {
            case 1: popControl1b(&cc); break;
            case 2: popControl2b(&cc); break;
            case 3: popControl3b(&cc); break;
            case 4: popControl4b(&cc); break;
            case 5: popControl5b(&cc); break;
            case 6: popControl6b(&cc); break;
            case 7: popControl7b(&cc); break;
            default: popControl8b(&cc); break;
            }
            CHECK(cc == v);
        }
    }
    CHECK(adStack_isEmpty());
    /* 31 bits stay in the word being filled: nothing is on the stack, yet it is not empty */
    for (v = 0; v < 31; v++)
        pushControl1b(v & 1);
    CHECK(adStack_currentBytes() == 0 && !adStack_isEmpty());
    pushControl1b(1);
    CHECK(adStack_currentBytes() == 4);
    for (v = 31; v >= 0; v--) {
        popControl1b(&cc);
        CHECK(cc == (v == 31 ? 1 : (v & 1)));
    }
    CHECK(adStack_isEmpty());
}

/* Looks read downward from the top without popping; a pop starts them again from the top. */
static void looks(void) {
    double x;
    int cc;
    double a[3] = {1, 2, 3}, b[3];
    pushReal8(10);
    pushReal8Array(a, 3);
    pushControl2b(2);
    pushReal8(20);
    pushReal8(30);
    lookReal8(&x); CHECK(x == 30);
    lookReal8(&x); CHECK(x == 20);
    lookControl2b(&cc); CHECK(cc == 2);
    lookReal8Array(b, 3); CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3);
    lookReal8(&x); CHECK(x == 10);
    adStack_resetLook();
    lookReal8(&x); CHECK(x == 30);
    popReal8(&x); CHECK(x == 30);
    lookReal8(&x); CHECK(x == 20);
    lookControl2b(&cc); CHECK(cc == 2);
    adStack_resetLook();
    popReal8(&x); CHECK(x == 20);
    popControl2b(&cc); CHECK(cc == 2);
    popReal8Array(b, 3); CHECK(b[2] == 3);
    popReal8(&x); CHECK(x == 10);
    CHECK(adStack_isEmpty());
    CHECK(adStack_totalBytes() == 8 + 24 + 8 + 8);
}

/* Repeat: the values below the top at startRepeat are read again after resetRepeat, however
 * much is pushed in between; endRepeat keeps the current state. */
static void repeats(void) {
    double x;
    int i, cc;
    for (i = 0; i < 100; i++) {
        pushReal8(i);
        pushControl1b(i & 1);
    }
    adStack_startRepeat();
    for (int round = 0; round < 3; round++) {
        for (i = 99; i >= 50; i--) {
            popControl1b(&cc); CHECK(cc == (i & 1));
            popReal8(&x); CHECK(x == i);
            /* a recomputation pushes and pops on top of the values being read */
            if (i % 10 == 0) {
                int k;
                for (k = 0; k < 2000; k++) {
                    pushReal8(-k);
                    pushControl1b(k & 1);
                }
                for (k = 1999; k >= 0; k--) {
                    popControl1b(&cc); CHECK(cc == (k & 1));
                    popReal8(&x); CHECK(x == -k);
                }
            }
        }
        adStack_resetRepeat();
    }
    /* Tapenade's look by repeat: read the snapshot, go back, forget the level */
    adStack_endRepeat();
    adStack_startRepeat();
    popControl1b(&cc);
    popReal8(&x); CHECK(x == 99);
    adStack_resetRepeat();
    adStack_endRepeat();
    /* nested levels */
    adStack_startRepeat();
    for (i = 99; i >= 80; i--) {
        popControl1b(&cc);
        popReal8(&x); CHECK(x == i);
    }
    pushReal8(1000);
    adStack_startRepeat();
    popReal8(&x); CHECK(x == 1000);
    popControl1b(&cc); CHECK(cc == 1);
    popReal8(&x); CHECK(x == 79);
    pushReal8(2000);
    popReal8(&x); CHECK(x == 2000);
    adStack_resetRepeat();
    popReal8(&x); CHECK(x == 1000);
    adStack_endRepeat();
    popControl1b(&cc); CHECK(cc == 1);
    popReal8(&x); CHECK(x == 79);
    adStack_resetRepeat();
    adStack_endRepeat();
    for (i = 99; i >= 0; i--) {
        popControl1b(&cc); CHECK(cc == (i & 1));
        popReal8(&x); CHECK(x == i);
    }
    CHECK(adStack_isEmpty());
}

/* Operations read from stdin, one a line, for the comparison with the model in
 * tests/test_runtime.py: rV push real8 V, R pop real8, L look real8, cN V push control Nb,
 * CN pop control Nb, aK V push K real8s V..V+K-1, AK pop K real8s, s/t/e start/reset/end
 * repeat, E print emptiness, X clear. Pops and looks print what they read. */
static void run_ops(void) {
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        double x, a[64];
        int nb, k, cc;
        switch (line[0]) {
        case 'r': pushReal8(atof(line + 1)); break;
        case 'R': popReal8(&x); printf("%.17g\n", x); break;
        case 'L': lookReal8(&x); printf("%.17g\n", x); break;
        case 'c':
            sscanf(line + 1, "%d %d", &nb, &cc);
            if (nb == 1) pushControl1b(cc); else if (nb == 3) pushControl3b(cc); else pushControl8b(cc);
            break;
        case 'C':
            nb = atoi(line + 1);
            if (nb == 1) popControl1b(&cc); else if (nb == 3) popControl3b(&cc); else popControl8b(&cc);
            printf("%d\n", cc);
            break;
        case 'a':
            sscanf(line + 1, "%d %lf", &k, &x);
            for (nb = 0; nb < k; nb++)
                a[nb] = x + nb;
            pushReal8Array(a, k);
            break;
        case 'A':
            k = atoi(line + 1);
            popReal8Array(a, k);
            for (nb = 0; nb < k; nb++)
                printf("%.17g%c", a[nb], nb == k - 1 ? '\n' : ' ');
            break;
        case 's': adStack_startRepeat(); break;
        case 't': adStack_resetRepeat(); break;
        case 'e': adStack_endRepeat(); break;
        case 'E': printf("empty %d\n", adStack_isEmpty()); break;
        case 'X': adStack_clear(); break;
        default: break;
        }
    }
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "roundtrip")) roundtrip();
    else if (!strcmp(what, "controls")) controls();
    else if (!strcmp(what, "looks")) looks();
    else if (!strcmp(what, "repeats")) repeats();
    else if (!strcmp(what, "ops")) { run_ops(); return 0; }
    else if (!strcmp(what, "underflow")) { double x; pushReal4(1); popReal8(&x); }
    else if (!strcmp(what, "badcontrol")) pushControl2b(4);
    else if (!strcmp(what, "show")) {
        pushReal8(1);
        pushControl1b(1);
        adStack_showStackSize(7);
        adStack_showStack("here");
        adStack_showPeakSize();
        adStack_showTotalTraffic();
        return 0;
    }
    else { printf("unknown scenario %s\n", what); return 2; }
    if (!failures)
        printf("ok %s\n", what);
    return failures != 0;
}
