#define BLOCK 128

/* per-block sum in shared memory */
__global__ void block_sum(int n, const double *x, double *partial)
{
    __shared__ double s[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? x[i] : 0.0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride = stride / 2) {
        if (tid < stride) {
            s[tid] = s[tid] + s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = s[0];
    }
}

__global__ void dyn_sum(int n, const double *x, double *partial)
{
    extern __shared__ double buf[];
    int tid = threadIdx.x;
    buf[tid] = tid < n ? x[tid] : 0.0;
    __syncthreads();
    if (tid == 0) {
        double t = 0.0;
        for (int k = 0; k < blockDim.x; k++) {
            t += buf[k];
        }
        partial[blockIdx.x] = t;
    }
}
