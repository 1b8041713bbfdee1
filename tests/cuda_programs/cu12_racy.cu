/* Deliberately racy: threads 2k and 2k+1 both write y[k] with a plain store (no atomic,
   no barrier between them), so the result depends on the order of the threads. The
   interpreter must report a data race at the line marked RACE. No reference: a racy
   kernel has no defined result. */
/* adspec-test: run(x:r8[128], y:r8[64], n:i4=128) */
__global__ void pair_store(int n, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i / 2] = x[i]; /* RACE */
}

void run(double *x, double *y, int n)
{
    double *d_x;
    double *d_y;
    cudaMalloc((void **)&d_x, n * sizeof(double));
    cudaMalloc((void **)&d_y, (n / 2) * sizeof(double));
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);
    pair_store<<<(n + 63) / 64, 64>>>(n, d_x, d_y);
    cudaMemcpy(y, d_y, (n / 2) * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_y);
}
