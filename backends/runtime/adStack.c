/* adStack.c: the push/pop stack of adjoint code (API in adStack.h, semantics in
 * docs/runtime.md). C99, no dependencies: gcc -std=c99 -c adStack.c
 *
 * Storage is a table of blocks addressed by a byte position, so a value may straddle two
 * blocks and a position anywhere below the top is reached at once (repeat and look read
 * far below the top). Blocks are kept when the stack shrinks: a sweep that pushes again
 * reuses them.
 */
#include "adStack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ADSTACK_BLOCK_BYTES
#define ADSTACK_BLOCK_BYTES 65536
#endif
#define BLOCK ((long long)ADSTACK_BLOCK_BYTES)

/* Where pops (or looks) read. A segment is a run of pushes made above the frozen limit of a
 * repeat (see jump); seg is where the segment holding pos starts, 0 for the first one. Bits
 * holds the booleans and controls not yet gathered into a full word. */
typedef struct {
    long long pos, seg;
    uint32_t bits;
    int nbits;
} Cursor;

typedef struct {
    Cursor at;
    long long frozen;
} Repeat;

static char **blocks;
static long long nblocks, blockSlots;
static Cursor top, lookAt;
static int looking;           /* lookAt is in use: the last call was a look */
static long long frozen;      /* storage below it is read again after a resetRepeat */
static Repeat *repeats;
static long long nrepeats, repeatSlots;
static long long traffic, peak;

static void fail(const char *what) {
    fprintf(stderr, "adStack: %s\n", what);
    abort();
}

static void *grow(void *array, long long *slots, size_t item) {
    long long n = *slots ? 2 * *slots : 16;
    void *p = realloc(array, (size_t)n * item);
    if (!p)
        fail("out of memory");
    *slots = n;
    return p;
}

static void reserve(long long end) {
    while (nblocks * BLOCK < end) {
        if (nblocks == blockSlots)
            blocks = (char **)grow(blocks, &blockSlots, sizeof *blocks);
        blocks[nblocks] = (char *)malloc((size_t)BLOCK);
        if (!blocks[nblocks])
            fail("out of memory");
        nblocks++;
    }
}

/* Copies n bytes between p and the storage at pos, block by block. */
static void copy(long long pos, char *p, long long n, int toStack) {
    while (n > 0) {
        long long off = pos % BLOCK, chunk = BLOCK - off < n ? BLOCK - off : n;
        char *at = blocks[pos / BLOCK] + off;
        if (toStack)
            memcpy(at, p, (size_t)chunk);
        else
            memcpy(p, at, (size_t)chunk);
        pos += chunk;
        p += chunk;
        n -= chunk;
    }
}

#define HEADER ((long long)(2 * sizeof(long long)))

/* A push below the frozen limit would overwrite what a resetRepeat reads again: the pushes
 * go on above the limit, after a header that leads pops back to where they were. */
static void jump(void) {
    long long header[2];
    header[0] = top.pos;
    header[1] = top.seg;
    reserve(frozen + HEADER);
    copy(frozen, (char *)header, HEADER, 1);
    top.pos = top.seg = frozen + HEADER;
}

/* A push that does not fit the common case below: above frozen storage, across blocks. */
static void store(const void *p, long long n) {
    if (top.pos < frozen)
        jump();
    if (top.pos + n > nblocks * BLOCK)
        reserve(top.pos + n);
    copy(top.pos, (char *)p, n, 1);
}

/* Inlined, so that with n known at the call the common case is a move: the value fits in the
 * top block, above any frozen storage. */
static inline void push(const void *p, long long n) {
    long long off = top.pos % BLOCK;
    if (n > 0 && top.pos >= frozen && off + n <= BLOCK && top.pos + n <= nblocks * BLOCK)
        memcpy(blocks[top.pos / BLOCK] + off, p, (size_t)n);
    else
        store(p, n);
    top.pos += n;
    traffic += n;
    if (top.pos > peak)
        peak = top.pos;
    looking = 0;
}

/* At the start of a segment, a pop goes on where the pushes jumped from. */
static void settle(Cursor *c) {
    while (c->pos == c->seg && c->seg > 0) {
        long long header[2];
        copy(c->seg - HEADER, (char *)header, HEADER, 0);
        c->pos = header[0];
        c->seg = header[1];
    }
}

/* Reads the n bytes below c into p and moves c down, across segments and blocks. Storage is
 * never erased: a repeat relies on it. */
static void load(Cursor *c, char *dst, long long n) {
    while (n > 0) {
        long long chunk;
        settle(c);
        if (c->pos == 0)
            fail("pop or look below the bottom of the stack");
        chunk = c->pos - c->seg < n ? c->pos - c->seg : n;
        c->pos -= chunk;
        n -= chunk;
        copy(c->pos, dst + n, chunk, 0);
    }
}

/* The common case inlined, as for push: the value lies in one block of the current segment. */
static inline void take(Cursor *c, void *p, long long n) {
    long long off = c->pos % BLOCK;
    if (n > 0 && c->pos - n >= c->seg && off >= n) {
        c->pos -= n;
        memcpy(p, blocks[c->pos / BLOCK] + off - n, (size_t)n);
    } else {
        load(c, (char *)p, n);
    }
}

static Cursor *lookCursor(void) {
    if (!looking) {
        lookAt = top;
        looking = 1;
    }
    return &lookAt;
}

static void pop(void *p, long long n) {
    take(&top, p, n);
    looking = 0;
}

static void look(void *p, long long n) {
    take(lookCursor(), p, n);
}

static long long arrayBytes(int n, size_t item) {
    if (n < 0)
        fail("push or pop of an array of negative length");
    return (long long)n * (long long)item;
}

/* Bits go into top.bits; a full word goes on the stack at once, so that it lies where the
 * last of its bits was pushed, and a pop that finds no bit left takes the word below.
 * A control value goes in whole when it fits in the word being filled, bit by bit across
 * two words: its lowest bit is the last pushed either way. */
static void pushBits(int cc, int nb) {
    if (cc < 0 || cc >> nb)
        fail("control value out of range for its number of bits");
    if (top.nbits + nb <= 32) {
        top.bits = nb == 32 ? (uint32_t)cc : top.bits << nb | (uint32_t)cc;
        top.nbits += nb;
    } else {
        pushBits(cc >> 1, nb - 1);
        pushBits(cc & 1, 1);
        return;
    }
    if (top.nbits == 32) {
        uint32_t word = top.bits;
        top.bits = 0;
        top.nbits = 0;
        push(&word, sizeof word);
    }
    looking = 0;
}

static int takeBits(Cursor *c, int nb) {
    int cc;
    if (c->nbits == 0) {
        take(c, &c->bits, sizeof c->bits);
        c->nbits = 32;
    }
    if (c->nbits < nb) {
        cc = takeBits(c, 1);
        return takeBits(c, nb - 1) << 1 | cc;
    }
    cc = (int)(c->bits & ((1u << nb) - 1u));
    c->bits = nb == 32 ? 0 : c->bits >> nb;
    c->nbits -= nb;
    return cc;
}

/* The C API (adStack.h) and the Fortran entry points (gfortran's names: lower case and one
 * underscore, every argument by reference; CHARACTER's hidden length is not read). The
 * Fortran names have their prototypes here: C code calls the C names. */
#define FORTRAN_SCALAR(name, T) \
    void push##name##_(T *x); void pop##name##_(T *x); void look##name##_(T *x); \
    void push##name##_(T *x) { push(x, sizeof *x); } \
    void pop##name##_(T *x) { pop(x, sizeof *x); } \
    void look##name##_(T *x) { look(x, sizeof *x); }

#define FORTRAN_ARRAY(name, T) \
    void push##name##array_(T *x, int *n); void pop##name##array_(T *x, int *n); \
    void look##name##array_(T *x, int *n); \
    void push##name##array_(T *x, int *n) { push(x, arrayBytes(*n, sizeof *x)); } \
    void pop##name##array_(T *x, int *n) { pop(x, arrayBytes(*n, sizeof *x)); } \
    void look##name##array_(T *x, int *n) { look(x, arrayBytes(*n, sizeof *x)); }

#define SCALAR(Name, name, T) \
    void push##Name(T x) { push(&x, sizeof x); } \
    void pop##Name(T *x) { pop(x, sizeof *x); } \
    void look##Name(T *x) { look(x, sizeof *x); } \
    FORTRAN_SCALAR(name, T)

#define ARRAY(Name, name, T) \
    void push##Name##Array(T *x, int n) { push(x, arrayBytes(n, sizeof *x)); } \
    void pop##Name##Array(T *x, int n) { pop(x, arrayBytes(n, sizeof *x)); } \
    void look##Name##Array(T *x, int n) { look(x, arrayBytes(n, sizeof *x)); } \
    FORTRAN_ARRAY(name, T)

#define CONTROL(nb) \
    void pushcontrol##nb##b_(int *cc); void popcontrol##nb##b_(int *cc); void lookcontrol##nb##b_(int *cc); \
    void pushControl##nb##b(int cc) { pushBits(cc, nb); } \
    void popControl##nb##b(int *cc) { *cc = takeBits(&top, nb); looking = 0; } \
    void lookControl##nb##b(int *cc) { *cc = takeBits(lookCursor(), nb); } \
    void pushcontrol##nb##b_(int *cc) { pushControl##nb##b(*cc); } \
    void popcontrol##nb##b_(int *cc) { popControl##nb##b(cc); } \
    void lookcontrol##nb##b_(int *cc) { lookControl##nb##b(cc); }

/* The types with an array form; Pointer8 has none. */
#define ARRAY_TYPES(X) \
    X(Real8, real8, double) X(Real4, real4, float) X(Integer4, integer4, int) \
    X(Integer8, integer8, int64_t) X(Character, character, char)

ARRAY_TYPES(SCALAR)
ARRAY_TYPES(ARRAY)
SCALAR(Pointer8, pointer8, void *)

/* Fortran's COMPLEX and COMPLEX*16 (CALL PUSHCOMPLEX16(z)): two reals; Fortran only. */
typedef struct { float re, im; } Complex8;
typedef struct { double re, im; } Complex16;
FORTRAN_SCALAR(complex8, Complex8)
FORTRAN_SCALAR(complex16, Complex16)
FORTRAN_ARRAY(complex8, Complex8)
FORTRAN_ARRAY(complex16, Complex16)
/* A LOGICAL array (a WHERE's mask saved): its 4-byte values as they are, n at a time. */
FORTRAN_ARRAY(boolean, int)
CONTROL(1) CONTROL(2) CONTROL(3) CONTROL(4) CONTROL(5) CONTROL(6) CONTROL(7) CONTROL(8)

/* A boolean is one bit: a Fortran LOGICAL comes back as 1 or 0 (.TRUE. or .FALSE.). */
void pushboolean_(int *x);
void popboolean_(int *x);
void lookboolean_(int *x);
void pushBoolean(int x) { pushBits(x != 0, 1); }
void popBoolean(int *x) { *x = takeBits(&top, 1); looking = 0; }
void lookBoolean(int *x) { *x = takeBits(lookCursor(), 1); }
void pushboolean_(int *x) { pushBoolean(*x); }
void popboolean_(int *x) { popBoolean(x); }
void lookboolean_(int *x) { lookBoolean(x); }

void adStack_resetLook(void) { looking = 0; }

void adStack_startRepeat(void) {
    if (nrepeats == repeatSlots)
        repeats = (Repeat *)grow(repeats, &repeatSlots, sizeof *repeats);
    repeats[nrepeats].at = top;
    repeats[nrepeats].frozen = frozen;
    nrepeats++;
    if (top.pos > frozen)
        frozen = top.pos;
    looking = 0;
}

void adStack_resetRepeat(void) {
    if (nrepeats == 0)
        fail("adStack_resetRepeat without adStack_startRepeat");
    top = repeats[nrepeats - 1].at;
    looking = 0;
}

void adStack_endRepeat(void) {
    if (nrepeats == 0)
        fail("adStack_endRepeat without adStack_startRepeat");
    frozen = repeats[--nrepeats].frozen;
    looking = 0;
}

long long adStack_totalBytes(void) { return traffic; }
long long adStack_currentBytes(void) { return top.pos; }
long long adStack_peakBytes(void) { return peak; }

int adStack_isEmpty(void) {
    Cursor c = top;
    settle(&c);
    return c.pos == 0 && c.nbits == 0;
}

void adStack_showPeakSize(void) {
    printf("adStack: peak size %lld bytes\n", peak);
}

void adStack_showTotalTraffic(void) {
    printf("adStack: total traffic %lld bytes\n", traffic);
}

void adStack_showStackSize(int label) {
    printf("adStack [%d]: %lld bytes in use, %d bits pending\n", label, top.pos, top.nbits);
}

static void showStack(const char *where, int length) {
    printf("adStack at %.*s: %lld bytes in use (segment from %lld), %d bits pending, "
           "%lld blocks of %lld bytes, %lld repeat levels (frozen below %lld); "
           "peak %lld bytes, traffic %lld bytes\n",
           length, where, top.pos, top.seg, top.nbits, nblocks, BLOCK, nrepeats, frozen, peak, traffic);
}

void adStack_showStack(const char *locationName) {
    showStack(locationName, (int)strlen(locationName));
}

void adStack_clear(void) {
    long long i;
    for (i = 0; i < nblocks; i++)
        free(blocks[i]);
    free(blocks);
    free(repeats);
    blocks = NULL;
    repeats = NULL;
    nblocks = blockSlots = nrepeats = repeatSlots = 0;
    memset(&top, 0, sizeof top);
    looking = 0;
    frozen = traffic = peak = 0;
}

/* Fortran: CALL ADSTACK_STARTREPEAT(), PRINT *, ADSTACK_PEAKBYTES() (an INTEGER*8 function),
 * ADSTACK_ISEMPTY() (a LOGICAL function) ... */
void adstack_resetlook_(void);
void adstack_startrepeat_(void);
void adstack_resetrepeat_(void);
void adstack_endrepeat_(void);
long long adstack_totalbytes_(void);
long long adstack_currentbytes_(void);
long long adstack_peakbytes_(void);
int adstack_isempty_(void);
void adstack_showpeaksize_(void);
void adstack_showtotaltraffic_(void);
void adstack_showstacksize_(int *label);
void adstack_showstack_(const char *locationName, size_t length);
void adstack_clear_(void);

void adstack_resetlook_(void) { adStack_resetLook(); }
void adstack_startrepeat_(void) { adStack_startRepeat(); }
void adstack_resetrepeat_(void) { adStack_resetRepeat(); }
void adstack_endrepeat_(void) { adStack_endRepeat(); }
long long adstack_totalbytes_(void) { return traffic; }
long long adstack_currentbytes_(void) { return top.pos; }
long long adstack_peakbytes_(void) { return peak; }
int adstack_isempty_(void) { return adStack_isEmpty(); }
void adstack_showpeaksize_(void) { adStack_showPeakSize(); }
void adstack_showtotaltraffic_(void) { adStack_showTotalTraffic(); }
void adstack_showstacksize_(int *label) { adStack_showStackSize(*label); }
void adstack_showstack_(const char *locationName, size_t length) { showStack(locationName, (int)length); }
void adstack_clear_(void) { adStack_clear(); }
