/* A 2-D grid of 2-D blocks (dim3): the five-point Laplacian of a 16 x 12 field (row-major,
   x fastest) on 2 x 2 blocks of 8 x 8 threads, the second row of blocks half idle; border
   cells are copied. Each cell also records the linear index of the block that computed it
   (gridDim.x). */
/* adspec-test: run(u:r8[192], lap:r8[192], owner:i4[192], nx:i4=16, ny:i4=12) */
__global__ void laplace(int nx, int ny, const double *u, double *lap, int *owner)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;
    int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix < nx && iy < ny) {
        int k = iy * nx + ix;
        if (ix == 0 || iy == 0 || ix == nx - 1 || iy == ny - 1)
            lap[k] = u[k];
        else
            lap[k] = u[k - 1] + u[k + 1] + u[k - nx] + u[k + nx] - 4.0 * u[k];
        owner[k] = blockIdx.y * gridDim.x + blockIdx.x;
    }
}

void run(double *u, double *lap, int *owner, int nx, int ny)
{
    double *d_u;
    double *d_lap;
    int *d_owner;
    dim3 block(8, 8);
    dim3 grid = dim3((nx + 7) / 8, (ny + 7) / 8);
    cudaMalloc((void **)&d_u, nx * ny * sizeof(double));
    cudaMalloc((void **)&d_lap, nx * ny * sizeof(double));
    cudaMalloc((void **)&d_owner, nx * ny * sizeof(int));
    cudaMemcpy(d_u, u, nx * ny * sizeof(double), cudaMemcpyHostToDevice);
    laplace<<<grid, block>>>(nx, ny, d_u, d_lap, d_owner);
    cudaMemcpy(lap, d_lap, nx * ny * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(owner, d_owner, nx * ny * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d_u);
    cudaFree(d_lap);
    cudaFree(d_owner);
}
