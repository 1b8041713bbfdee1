/* Histogram with atomicAdd: each thread puts its element into one of 8 bins, counting it
   (int atomicAdd) and adding its weight (double atomicAdd). The bins start at zero on the
   host and are copied to the device. */
/* adspec-test: run(keys:i4[200], w:r8[200], n:i4=200, count:i4[8], weight:r8[8]) */
__global__ void histogram(int n, const int *keys, const double *w, int *count, double *weight)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int bin = (keys[i] * 3 + i) % 8;
        atomicAdd(&count[bin], 1);
        atomicAdd(&weight[bin], w[i]);
    }
}

void run(int *keys, double *w, int n, int *count, double *weight)
{
    int *d_keys;
    double *d_w;
    int *d_count;
    double *d_weight;
    int b;
    for (b = 0; b < 8; b++) {
        count[b] = 0;
        weight[b] = 0.0;
    }
    cudaMalloc((void **)&d_keys, n * sizeof(int));
    cudaMalloc((void **)&d_w, n * sizeof(double));
    cudaMalloc((void **)&d_count, 8 * sizeof(int));
    cudaMalloc((void **)&d_weight, 8 * sizeof(double));
    cudaMemcpy(d_keys, keys, n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, w, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_count, count, 8 * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_weight, weight, 8 * sizeof(double), cudaMemcpyHostToDevice);
    histogram<<<(n + 63) / 64, 64>>>(n, d_keys, d_w, d_count, d_weight);
    cudaMemcpy(count, d_count, 8 * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(weight, d_weight, 8 * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d_keys);
    cudaFree(d_w);
    cudaFree(d_count);
    cudaFree(d_weight);
}
