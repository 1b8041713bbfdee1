__global__ void k(int n, double *x, bool flip)
{
    bool on = true;
    if (flip) {
        on = false;
    }
    if (on && threadIdx.x < n) {
        x[threadIdx.x] = 1.0;
    }
}
