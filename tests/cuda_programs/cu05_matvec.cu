/* Matrix-vector product y = A x, A row-major m x n; one thread per row, each looping over
   the columns; 40 rows on 2 blocks of 32 threads. */
/* adspec-test: run(a:r8[960], x:r8[24], y:r8[40], m:i4=40, n:i4=24) */
__global__ void matvec(int m, int n, const double *a, const double *x, double *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m) {
        double acc = 0.0;
        for (int j = 0; j < n; j++)
            acc += a[row * n + j] * x[j];
        y[row] = acc;
    }
}

void run(double *a, double *x, double *y, int m, int n)
{
    double *d_a;
    double *d_x;
    double *d_y;
    cudaMalloc((void **)&d_a, m * n * sizeof(double));
    cudaMalloc((void **)&d_x, n * sizeof(double));
    cudaMalloc((void **)&d_y, m * sizeof(double));
    cudaMemcpy(d_a, a, m * n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);
    matvec<<<(m + 31) / 32, 32>>>(m, n, d_a, d_x, d_y);
    cudaMemcpy(y, d_y, m * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d_a);
    cudaFree(d_x);
    cudaFree(d_y);
}
