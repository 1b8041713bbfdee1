__device__ int bin_of(double v, int nbins)
{
    int b = (int)(v * nbins);
    return b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
}

__global__ void histogram(int n, const double *v, int nbins, int *counts, double *total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&counts[bin_of(v[i], nbins)], 1);
        double old = atomicAdd(total, v[i]);
        total[1] = old;
    }
}
