/* A host function launching two kernels in sequence on different configurations: the
   first (2 blocks of 64) writes w and y; the second (4 blocks of 32) reads the neighbours
   of each w, written by other threads and blocks of the first launch, and overwrites y
   (each element written once per launch: no race). */
/* adspec-test: run(x:r8[128], w:r8[128], y:r8[128], n:i4=128) */
__global__ void square_plus_one(int n, const double *x, double *w, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        w[i] = x[i] * x[i] + 1.0;
        y[i] = -1.0;
    }
}

__global__ void smooth(int n, const double *w, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int left = i > 0 ? i - 1 : i;
        int right = i < n - 1 ? i + 1 : i;
        y[i] = (w[left] + w[i] + w[right]) / 3.0 + y[i];
    }
}

void run(double *x, double *w, double *y, int n)
{
    double *d_x;
    double *d_w;
    double *d_y;
    cudaMalloc((void **)&d_x, n * sizeof(double));
    cudaMalloc((void **)&d_w, n * sizeof(double));
    cudaMalloc((void **)&d_y, n * sizeof(double));
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);
    square_plus_one<<<(n + 63) / 64, 64>>>(n, d_x, d_w, d_y);
    cudaDeviceSynchronize();
    smooth<<<(n + 31) / 32, 32>>>(n, d_w, d_y);
    cudaDeviceSynchronize();
    cudaMemcpy(w, d_w, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_w);
    cudaFree(d_y);
}
