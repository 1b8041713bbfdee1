/* adStack.h: the push/pop stack of adjoint code, with Tapenade's API, written for adspec.
 *
 * Generated adjoints link with this runtime (adStack.c) or with Tapenade's own: the names and
 * the argument types are Tapenade's. Fortran callers reach the same stack through the entry
 * points of adStack.c named in lower case with one underscore (CALL PUSHREAL8(x) calls
 * pushreal8_). docs/runtime.md describes the API, the counters and the look/repeat semantics.
 *
 * The stack is one per process, not thread-safe, and grows without limit: storage is taken
 * in blocks of ADSTACK_BLOCK_BYTES as needed, and kept for reuse.
 */
#ifndef ADSTACK_H
#define ADSTACK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One value: push copies it onto the stack, pop takes the last one pushed, look reads
 * without popping (see lookReal8 below). */
void pushReal8(double x);
void popReal8(double *x);
void lookReal8(double *x);
void pushReal4(float x);
void popReal4(float *x);
void lookReal4(float *x);
void pushInteger4(int x);
void popInteger4(int *x);
void lookInteger4(int *x);
void pushInteger8(int64_t x);
void popInteger8(int64_t *x);
void lookInteger8(int64_t *x);
void pushCharacter(char x);
void popCharacter(char *x);
void lookCharacter(char *x);
void pushPointer8(void *x);
void popPointer8(void **x);
void lookPointer8(void **x);

/* n consecutive values; pop fills x[0..n-1] with what push read from x[0..n-1]. */
void pushReal8Array(double *x, int n);
void popReal8Array(double *x, int n);
void lookReal8Array(double *x, int n);
void pushReal4Array(float *x, int n);
void popReal4Array(float *x, int n);
void lookReal4Array(float *x, int n);
void pushInteger4Array(int *x, int n);
void popInteger4Array(int *x, int n);
void lookInteger4Array(int *x, int n);
void pushInteger8Array(int64_t *x, int n);
void popInteger8Array(int64_t *x, int n);
void lookInteger8Array(int64_t *x, int n);
void pushCharacterArray(char *x, int n);
void popCharacterArray(char *x, int n);
void lookCharacterArray(char *x, int n);

/* Booleans and control values (the branch taken: 0 .. 2^nb - 1 for pushControl<nb>b) are
 * packed as bits, 32 to a 4-byte word. */
void pushBoolean(int x);
void popBoolean(int *x);
void lookBoolean(int *x);
void pushControl1b(int cc);
void popControl1b(int *cc);
void lookControl1b(int *cc);
void pushControl2b(int cc);
void popControl2b(int *cc);
void lookControl2b(int *cc);
void pushControl3b(int cc);
void popControl3b(int *cc);
void lookControl3b(int *cc);
void pushControl4b(int cc);
void popControl4b(int *cc);
void lookControl4b(int *cc);
void pushControl5b(int cc);
void popControl5b(int *cc);
void lookControl5b(int *cc);
void pushControl6b(int cc);
void popControl6b(int *cc);
void lookControl6b(int *cc);
void pushControl7b(int cc);
void popControl7b(int *cc);
void lookControl7b(int *cc);
void pushControl8b(int cc);
void popControl8b(int *cc);
void lookControl8b(int *cc);

/* Look: each look reads the value below the previous one, starting from the top; a push,
 * a pop, a repeat call or adStack_resetLook starts again from the top. */
void adStack_resetLook(void);

/* Repeat, for a checkpoint restored several times: after startRepeat, the values below the
 * current top are kept (pops read them, later pushes go above them); resetRepeat goes back
 * to the state of startRepeat; endRepeat forgets it and keeps the current state. Levels nest. */
void adStack_startRepeat(void);
void adStack_resetRepeat(void);
void adStack_endRepeat(void);

/* Figures, in bytes of stack storage: values pushed in total (traffic), in use now, and the
 * most ever in use (peak). adStack_isEmpty is 1 when nothing is left to pop (bits included). */
long long adStack_totalBytes(void);
long long adStack_currentBytes(void);
long long adStack_peakBytes(void);
int adStack_isEmpty(void);
void adStack_showPeakSize(void);
void adStack_showTotalTraffic(void);
void adStack_showStackSize(int label);
void adStack_showStack(const char *locationName);
/* Frees the storage and zeroes the figures (for benchmarks and tests). */
void adStack_clear(void);

#ifdef __cplusplus
}
#endif

#endif
