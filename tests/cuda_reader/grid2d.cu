__constant__ double scale = 2.0;

__global__ void scale2d(int nx, int ny, double *a)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < nx && iy < ny) {
        a[iy * nx + ix] = scale * sqrt(a[iy * nx + ix]) + rsqrt(1.0 + a[iy * nx + ix]);
    }
}

void run2d(int nx, int ny, double *a)
{
    dim3 block(16, 16);
    dim3 grid = dim3((nx + 15) / 16, (ny + 15) / 16);
    scale2d<<<grid, block>>>(nx, ny, a);
}
