// y = a*x + y, one thread per element
#include <cuda_runtime.h>

__global__ void saxpy(int n, double a, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
