/* adStack_cuda.cuh: the push/pop stack of adjoint CUDA kernels, one stack per thread, with
 * the names of adStack.h as __device__ functions. Include it in the .cu file that holds the
 * adjoint kernels and launches them (its symbols are private to that file):
 *
 *     char *buf = adStack_cudaAlloc(nthreads, bytesPerThread);   // before the launch
 *     kernel_b<<<grid, block>>>(...);                            // pushReal8(x); popReal8(&x);
 *     long long peak = adStack_cudaPeakBytes(nthreads);          // the largest peak of a thread
 *     cudaFree(buf);
 *
 * Each thread owns bytesPerThread bytes of the caller's buffer: a small header (its top and
 * figures), then its values. Booleans and controls are packed 32 bits to a word, as in
 * adStack.c. The buffer cannot grow inside a kernel: a push that does not fit prints the
 * thread and stops the kernel (__trap), never overwrites a neighbour. There is no look or
 * repeat here. Without nvcc (__CUDACC__ undefined) the file compiles as plain C or C++ with
 * the thread given by adStack_cudaThread, so that its logic is tested on the host.
 */
#ifndef ADSTACK_CUDA_CUH
#define ADSTACK_CUDA_CUH

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __CUDACC__
#define ADSTACK_DEVICE static __device__ inline
#define ADSTACK_STOP() __trap()
#else
#include <stdlib.h>
#define __device__
#define ADSTACK_DEVICE static inline
#define ADSTACK_STOP() (fflush(stdout), abort())
static long long adStack_cudaThread;   /* the emulated thread on the host */
#endif

typedef struct {
    long long pos, peak, traffic;
    uint32_t bits;
    int nbits;
} adStack_cudaHeader;

#define ADSTACK_CUDA_HEADER ((long long)((sizeof(adStack_cudaHeader) + 15) / 16 * 16))

static __device__ char *adStack_cudaBuffer;
static __device__ long long adStack_cudaStride;

ADSTACK_DEVICE long long adStack_cudaThreadIndex(void) {
#ifdef __CUDACC__
    long long blockId = ((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    long long inBlock = ((long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    return blockId * ((long long)blockDim.x * blockDim.y * blockDim.z) + inBlock;
#else
    return adStack_cudaThread;
#endif
}

/* The calling thread's header; its values follow it. */
ADSTACK_DEVICE adStack_cudaHeader *adStack_cudaMine(void) {
    return (adStack_cudaHeader *)(adStack_cudaBuffer + adStack_cudaThreadIndex() * adStack_cudaStride);
}

ADSTACK_DEVICE void adStack_cudaPush(const void *p, long long n) {
    adStack_cudaHeader *h = adStack_cudaMine();
    if (h->pos + n > adStack_cudaStride - ADSTACK_CUDA_HEADER) {
        printf("adStack: thread %lld needs more than %lld bytes of stack\n", adStack_cudaThreadIndex(),
               adStack_cudaStride - ADSTACK_CUDA_HEADER);
        ADSTACK_STOP();
    }
    memcpy((char *)h + ADSTACK_CUDA_HEADER + h->pos, p, (size_t)n);
    h->pos += n;
    h->traffic += n;
    if (h->pos > h->peak)
        h->peak = h->pos;
}

ADSTACK_DEVICE void adStack_cudaPop(void *p, long long n) {
    adStack_cudaHeader *h = adStack_cudaMine();
    if (h->pos < n) {
        printf("adStack: thread %lld pops below the bottom of its stack\n", adStack_cudaThreadIndex());
        ADSTACK_STOP();
    }
    h->pos -= n;
    memcpy(p, (char *)h + ADSTACK_CUDA_HEADER + h->pos, (size_t)n);
}

ADSTACK_DEVICE void adStack_cudaPushBits(int cc, int nb) {
    adStack_cudaHeader *h = adStack_cudaMine();
    int i;
    if (cc < 0 || cc >> nb) {
        printf("adStack: thread %lld pushes control %d, out of range for %d bits\n", adStack_cudaThreadIndex(), cc, nb);
        ADSTACK_STOP();
    }
    for (i = 0; i < nb; i++) {
        h->bits = h->bits << 1 | (uint32_t)(cc >> i & 1);
        if (++h->nbits == 32) {
            uint32_t word = h->bits;
            h->bits = 0;
            h->nbits = 0;
            adStack_cudaPush(&word, sizeof word);
        }
    }
}

ADSTACK_DEVICE int adStack_cudaPopBits(int nb) {
    adStack_cudaHeader *h = adStack_cudaMine();
    int i, cc = 0;
    for (i = nb - 1; i >= 0; i--) {
        if (h->nbits == 0) {
            adStack_cudaPop(&h->bits, sizeof h->bits);
            h->nbits = 32;
        }
        cc |= (int)(h->bits & 1u) << i;
        h->bits >>= 1;
        h->nbits--;
    }
    return cc;
}

#define ADSTACK_CUDA_VALUE(Name, T) \
    ADSTACK_DEVICE void push##Name(T x) { adStack_cudaPush(&x, sizeof x); } \
    ADSTACK_DEVICE void pop##Name(T *x) { adStack_cudaPop(x, sizeof *x); } \
    ADSTACK_DEVICE void push##Name##Array(T *x, int n) { adStack_cudaPush(x, (long long)n * sizeof *x); } \
    ADSTACK_DEVICE void pop##Name##Array(T *x, int n) { adStack_cudaPop(x, (long long)n * sizeof *x); }

#define ADSTACK_CUDA_CONTROL(nb) \
    ADSTACK_DEVICE void pushControl##nb##b(int cc) { adStack_cudaPushBits(cc, nb); } \
    ADSTACK_DEVICE void popControl##nb##b(int *cc) { *cc = adStack_cudaPopBits(nb); }

ADSTACK_CUDA_VALUE(Real8, double)
ADSTACK_CUDA_VALUE(Real4, float)
ADSTACK_CUDA_VALUE(Integer4, int)
ADSTACK_CUDA_VALUE(Integer8, int64_t)
ADSTACK_CUDA_VALUE(Character, char)
ADSTACK_CUDA_CONTROL(1) ADSTACK_CUDA_CONTROL(2) ADSTACK_CUDA_CONTROL(3) ADSTACK_CUDA_CONTROL(4)
ADSTACK_CUDA_CONTROL(5) ADSTACK_CUDA_CONTROL(6) ADSTACK_CUDA_CONTROL(7) ADSTACK_CUDA_CONTROL(8)

ADSTACK_DEVICE void pushPointer8(void *x) { adStack_cudaPush(&x, sizeof x); }
ADSTACK_DEVICE void popPointer8(void **x) { adStack_cudaPop(x, sizeof *x); }
ADSTACK_DEVICE void pushBoolean(int x) { adStack_cudaPushBits(x != 0, 1); }
ADSTACK_DEVICE void popBoolean(int *x) { *x = adStack_cudaPopBits(1); }

/* The calling thread's figures, as in adStack.h. */
ADSTACK_DEVICE long long adStack_totalBytes(void) { return adStack_cudaMine()->traffic; }
ADSTACK_DEVICE long long adStack_currentBytes(void) { return adStack_cudaMine()->pos; }
ADSTACK_DEVICE long long adStack_peakBytes(void) { return adStack_cudaMine()->peak; }
ADSTACK_DEVICE int adStack_isEmpty(void) {
    adStack_cudaHeader *h = adStack_cudaMine();
    return h->pos == 0 && h->nbits == 0;
}

/* Host side: the stride rounds bytesPerThread up so that every header is aligned. */
static inline long long adStack_cudaStrideFor(long long bytesPerThread) {
    return (ADSTACK_CUDA_HEADER + bytesPerThread + 15) / 16 * 16;
}

#ifdef __CUDACC__
/* A zeroed buffer of nthreads stacks, made the current one; NULL if cudaMalloc fails. */
static inline char *adStack_cudaAlloc(long long nthreads, long long bytesPerThread) {
    char *buffer = NULL;
    long long stride = adStack_cudaStrideFor(bytesPerThread);
    if (cudaMalloc((void **)&buffer, (size_t)(nthreads * stride)) != cudaSuccess)
        return NULL;
    cudaMemset(buffer, 0, (size_t)(nthreads * stride));
    cudaMemcpyToSymbol(adStack_cudaBuffer, &buffer, sizeof buffer);
    cudaMemcpyToSymbol(adStack_cudaStride, &stride, sizeof stride);
    return buffer;
}

/* The largest peak over the first nthreads stacks of the current buffer. */
static inline long long adStack_cudaPeakBytes(long long nthreads) {
    char *buffer;
    long long stride, t, most = 0;
    cudaMemcpyFromSymbol(&buffer, adStack_cudaBuffer, sizeof buffer);
    cudaMemcpyFromSymbol(&stride, adStack_cudaStride, sizeof stride);
    for (t = 0; t < nthreads; t++) {
        adStack_cudaHeader h;
        cudaMemcpy(&h, buffer + t * stride, sizeof h, cudaMemcpyDeviceToHost);
        if (h.peak > most)
            most = h.peak;
    }
    return most;
}
#else
static inline char *adStack_cudaAlloc(long long nthreads, long long bytesPerThread) {
    adStack_cudaStride = adStack_cudaStrideFor(bytesPerThread);
    adStack_cudaBuffer = (char *)calloc((size_t)nthreads, (size_t)adStack_cudaStride);
    return adStack_cudaBuffer;
}

static inline long long adStack_cudaPeakBytes(long long nthreads) {
    long long t, most = 0;
    for (t = 0; t < nthreads; t++) {
        adStack_cudaHeader *h = (adStack_cudaHeader *)(adStack_cudaBuffer + t * adStack_cudaStride);
        if (h->peak > most)
            most = h->peak;
    }
    return most;
}
#endif

#endif
