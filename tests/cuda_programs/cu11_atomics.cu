/* The other atomics, on ints, used so that the result does not depend on the order of the
   threads: atomicMax, atomicMin, atomicSub on one counter each, atomicCAS and atomicExch
   setting flags (every writer writes the same value), atomicAdd as a statement. */
/* adspec-test: run(v:i4[180], n:i4=180, stats:i4[4], seen:i4[16]) */
__global__ void scan_stats(int n, const int *v, int *stats, int *seen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int k = (v[i] * 7 + i * 3) % 50;
        atomicMax(&stats[0], k);
        atomicMin(&stats[1], k);
        atomicSub(&stats[2], k);
        atomicAdd(&stats[3], k % 3);
        atomicCAS(&seen[k % 8], 0, 1);
        atomicExch(&seen[8 + k % 8], k % 8 + 1);
    }
}

void run(int *v, int n, int *stats, int *seen)
{
    int *d_v;
    int *d_stats;
    int *d_seen;
    int j;
    stats[0] = -1;
    stats[1] = 1000;
    stats[2] = 5000;
    stats[3] = 0;
    for (j = 0; j < 16; j++)
        seen[j] = 0;
    cudaMalloc((void **)&d_v, n * sizeof(int));
    cudaMalloc((void **)&d_stats, 4 * sizeof(int));
    cudaMalloc((void **)&d_seen, 16 * sizeof(int));
    cudaMemcpy(d_v, v, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_stats, stats, 4 * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_seen, seen, 16 * sizeof(int), cudaMemcpyHostToDevice);
    scan_stats<<<3, 64>>>(n, d_v, d_stats, d_seen);
    cudaMemcpy(stats, d_stats, 4 * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(seen, d_seen, 16 * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_v);
    cudaFree(d_stats);
    cudaFree(d_seen);
}
