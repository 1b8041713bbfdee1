/* C linkage, so that C and Fortran callers find the functions by their plain names, and
   several dim3 declarators in one declaration. */
extern "C" __global__ void fill(double *x, double v)
{
    x[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

extern "C" {
/* a helper of the block form */
__host__ __device__ double twice(double v)
{
    return 2.0 * v;
}

void run(double *x, int n);
}

extern "C" void run(double *x, int n)
{
    dim3 grid(n / 4), block(4), unit;
    fill<<<grid, block>>>(x, twice(1.5));
    fill<<<unit, unit>>>(x, 0.5);
}
