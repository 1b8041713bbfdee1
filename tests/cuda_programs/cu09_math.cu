/* CUDA math functions in double precision (sin, cos, exp, log, sqrt, rsqrt, fma, pow,
   fabs, tanh) and in single precision (sinf, expf, sqrtf, fmaf, fabsf) in two kernels
   launched one after the other. */
/* adspec-test: run(x:r8[100], y:r8[100], xf:r4[100], yf:r4[100], n:i4=100) */
__global__ void wave(int n, const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = fma(sin(v), exp(-v), rsqrt(v)) + pow(v, 1.5) - log(v) * cos(v)
               + sqrt(v + 2.0) * fabs(v - 1.0) + tanh(0.5 * v);
    }
}

__global__ void wavef(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = fmaf(sinf(v), expf(-v), sqrtf(v)) + fabsf(v - 1.0f) * 0.5f;
    }
}

void run(double *x, double *y, float *xf, float *yf, int n)
{
    double *d_x;
    double *d_y;
    float *d_xf;
    float *d_yf;
    cudaMalloc((void **)&d_x, n * sizeof(double));
    cudaMalloc((void **)&d_y, n * sizeof(double));
    cudaMalloc((void **)&d_xf, n * sizeof(float));
    cudaMalloc((void **)&d_yf, n * sizeof(float));
    cudaMemcpy(d_x, x, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_xf, xf, n * sizeof(float), cudaMemcpyHostToDevice);
    wave<<<(n + 63) / 64, 64>>>(n, d_x, d_y);
    wavef<<<(n + 63) / 64, 64>>>(n, d_xf, d_yf);
    cudaMemcpy(y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(yf, d_yf, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_xf);
    cudaFree(d_yf);
}
