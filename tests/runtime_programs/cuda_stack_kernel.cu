// A kernel using every device function of adStack_cuda.cuh: compiled with nvcc -c only.
#include "adStack_cuda.cuh"

__global__ void roundtrip(double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double a[3] = {1.0, 2.0, 3.0}, x;
    float f = 1.0f;
    int k = i, cc, b;
    int64_t l = i;
    char c = 'a';
    void *p = out;
    if (i >= n) return;
    pushReal8(out[i]); pushReal4(f); pushInteger4(k); pushInteger8(l); pushCharacter(c);
    pushPointer8(p); pushBoolean(i & 1); pushReal8Array(a, 3);
    pushControl1b(1); pushControl2b(3); pushControl3b(7); pushControl4b(15);
    pushControl5b(31); pushControl6b(63); pushControl7b(127); pushControl8b(255);
    popControl8b(&cc); popControl7b(&cc); popControl6b(&cc); popControl5b(&cc);
    popControl4b(&cc); popControl3b(&cc); popControl2b(&cc); popControl1b(&cc);
    popReal8Array(a, 3); popBoolean(&b); popPointer8(&p); popCharacter(&c);
    popInteger8(&l); popInteger4(&k); popReal4(&f); popReal8(&x);
    out[i] = x + adStack_peakBytes() + adStack_totalBytes() + adStack_currentBytes() + adStack_isEmpty();
}

void launch(double *out, int n) {
    char *buffer = adStack_cudaAlloc(n, 256);
    roundtrip<<<(n + 127) / 128, 128>>>(out, n);
    (void)adStack_cudaPeakBytes(n);
    cudaFree(buffer);
}
