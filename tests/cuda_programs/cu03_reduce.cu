/* Block reduction: each block sums the squares of its 64 elements in shared memory by
   halving strides, with __syncthreads() inside the loop; thread 0 writes the block's
   partial sum and the host adds the partial sums. */
/* adspec-test: run(x:r8[240], n:i4=240, partial:r8[4], total:r8*) */
__global__ void block_sum(int n, const double *x, double *partial)
{
    __shared__ double s[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] * x[i] : 0.0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

void run(double *x, int n, double *partial, double *total)
{
    double *d_x;
    double *d_partial;
    int nblocks = (n + 63) / 64;
    int b;
    cudaMalloc((void **)&d_x, n * sizeof(double));
    cudaMalloc((void **)&d_partial, nblocks * sizeof(double));
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);
    block_sum<<<nblocks, 64>>>(n, d_x, d_partial);
    cudaMemcpy(partial, d_partial, nblocks * sizeof(double), cudaMemcpyDeviceToHost);
    *total = 0.0;
    for (b = 0; b < nblocks; b++)
        *total += partial[b];
    cudaFree(d_x);
    cudaFree(d_partial);
}
