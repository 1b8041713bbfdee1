/* saxpy in single precision: y = a*x + y, one thread per element; 200 elements on 4 blocks
   of 64 threads, so the bounds check leaves the last threads idle. */
/* adspec-test: run(a:r4, x:r4[200], y:r4[200], n:i4=200) */
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

void run(float a, float *x, float *y, int n)
{
    float *d_x;
    float *d_y;
    cudaMalloc((void **)&d_x, n * sizeof(float));
    cudaMalloc((void **)&d_y, n * sizeof(float));
    cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y, n * sizeof(float), cudaMemcpyHostToDevice);
    saxpy<<<(n + 63) / 64, 64>>>(n, a, d_x, d_y);
    cudaMemcpy(y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_y);
}
