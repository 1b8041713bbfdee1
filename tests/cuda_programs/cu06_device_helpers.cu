/* A kernel calling __device__ helpers: a helper calling another helper, a helper writing
   through a pointer, and a __host__ __device__ helper that the host code calls too. */
/* adspec-test: run(u:r8[150], v:r8[150], out:r8[150], n:i4=150, mid:r8*) */
__device__ double clamp01(double t)
{
    return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

__device__ double smoothstep(double e0, double e1, double x)
{
    double t = clamp01((x - e0) / (e1 - e0));
    return t * t * (3.0 - 2.0 * t);
}

__host__ __device__ double lerp(double a, double b, double t)
{
    return a + t * (b - a);
}

__device__ void blend(double *dst, double a, double b, double t)
{
    *dst = lerp(a, b, t);
}

__global__ void shade(int n, const double *u, const double *v, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double t = smoothstep(0.7, 1.3, u[i]);
        blend(&out[i], u[i], v[i], t);
    }
}

void run(double *u, double *v, double *out, int n, double *mid)
{
    double *d_u;
    double *d_v;
    double *d_out;
    cudaMalloc((void **)&d_u, n * sizeof(double));
    cudaMalloc((void **)&d_v, n * sizeof(double));
    cudaMalloc((void **)&d_out, n * sizeof(double));
    cudaMemcpy(d_u, u, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(d_v, v, n * sizeof(double), cudaMemcpyHostToDevice);
    shade<<<(n + 63) / 64, 64>>>(n, d_u, d_v, d_out);
    cudaDeviceSynchronize();
    cudaMemcpy(out, d_out, n * sizeof(double), cudaMemcpyDeviceToHost);
    *mid = lerp(out[0], out[n - 1], 0.5);
    cudaFree(d_u);
    cudaFree(d_v);
    cudaFree(d_out);
}
