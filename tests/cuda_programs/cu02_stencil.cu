/* 1-D five-point stencil with __shared__ halos: each block loads its 64 elements and two
   halo cells on each side into shared memory (the first two threads load the halos), waits
   at __syncthreads(), then reads its neighbours from shared memory. Cells outside [0, n)
   read as 0. 250 elements on 4 blocks. */
/* adspec-test: run(u:r8[250], v:r8[250], n:i4=250) */
__global__ void stencil(int n, const double *in, double *out)
{
    __shared__ double s[64 + 2 * 2];
    int t = threadIdx.x;
    int nt = blockDim.x;
    int g = blockIdx.x * nt + t;
    int l = t + 2;
    s[l] = g < n ? in[g] : 0.0;
    if (t < 2) {
        int left = g - 2;
        int right = g + nt;
        s[l - 2] = left >= 0 && left < n ? in[left] : 0.0;
        s[l + nt] = right < n ? in[right] : 0.0;
    }
    __syncthreads();
    if (g < n)
        out[g] = 0.1 * s[l - 2] + 0.2 * s[l - 1] + 0.4 * s[l] + 0.2 * s[l + 1] + 0.1 * s[l + 2];
}

void run(double *u, double *v, int n)
{
    double *d_u;
    double *d_v;
    cudaMalloc((void **)&d_u, n * sizeof(double));
    cudaMalloc((void **)&d_v, n * sizeof(double));
    cudaMemcpy(d_u, u, n * sizeof(double), cudaMemcpyHostToDevice);
    stencil<<<(n + 63) / 64, 64>>>(n, d_u, d_v);
    cudaMemcpy(v, d_v, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d_u);
    cudaFree(d_v);
}
