#include <cuda_runtime.h>
#include <stdlib.h>

__device__ __host__ double square(double v)
{
    return v * v;
}

__global__ void squares(int n, double *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = square(x[i]) + __expf(0.0f) + fma(x[i], 2.0, 1.0);
    }
}

void host_squares(int n, double *x)
{
    double *d_x;
    size_t bytes = n * sizeof(double);
    cudaMalloc((void **)&d_x, bytes);
    cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    int threads = 64;
    squares<<<(n + threads - 1) / threads, threads>>>(n, d_x);
    squares<<<(n + threads - 1) / threads, threads, 0>>>(n, d_x);
    cudaDeviceSynchronize();
    cudaMemcpy(x, d_x, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_x);
}
