/* extern __shared__ with the size given at the launch (<<<grid, block, shmem>>>): an
   inclusive prefix sum per block (Hillis-Steele, double-buffered in 2 * 64 doubles of
   dynamic shared memory, a barrier after each step); the host scans the block totals and
   a second kernel adds each block's offset. 200 elements on 4 blocks. */
/* adspec-test: run(x:r8[200], y:r8[200], totals:r8[4], n:i4=200) */
__global__ void block_scan(int n, const double *x, double *y, double *totals)
{
    extern __shared__ double buf[];
    int t = threadIdx.x;
    int nt = blockDim.x;
    int i = blockIdx.x * nt + t;
    int src = 0;
    buf[t] = i < n ? x[i] : 0.0;
    __syncthreads();
    for (int offset = 1; offset < nt; offset *= 2) {
        int dst = nt - src;
        if (t >= offset)
            buf[dst + t] = buf[src + t] + buf[src + t - offset];
        else
            buf[dst + t] = buf[src + t];
        src = dst;
        __syncthreads();
    }
    if (i < n)
        y[i] = buf[src + t];
    if (t == nt - 1)
        totals[blockIdx.x] = buf[src + t];
}

__global__ void add_offsets(int n, const double *offsets, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = y[i] + offsets[blockIdx.x];
}

void run(double *x, double *y, double *totals, int n)
{
    double offsets[4];
    double *d_x;
    double *d_y;
    double *d_totals;
    double *d_offsets;
    int threads = 64;
    int blocks = (n + threads - 1) / threads;
    int b;
    cudaMalloc((void **)&d_x, n * sizeof(double));
    cudaMalloc((void **)&d_y, n * sizeof(double));
    cudaMalloc((void **)&d_totals, blocks * sizeof(double));
    cudaMalloc((void **)&d_offsets, blocks * sizeof(double));
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);
    block_scan<<<blocks, threads, 2 * threads * sizeof(double)>>>(n, d_x, d_y, d_totals);
    cudaMemcpy(totals, d_totals, blocks * sizeof(double), cudaMemcpyDeviceToHost);
    offsets[0] = 0.0;
    for (b = 1; b < blocks; b++)
        offsets[b] = offsets[b - 1] + totals[b - 1];
    cudaMemcpy(d_offsets, offsets, blocks * sizeof(double), cudaMemcpyHostToDevice);
    add_offsets<<<blocks, threads>>>(n, d_offsets, d_y);
    cudaMemcpy(y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_totals);
    cudaFree(d_offsets);
}
