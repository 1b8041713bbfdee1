/* Sequential reference of cu03_reduce.cu: the same halving-stride tree per block, so the
   sums are added in the same order. */
/* adspec-test: run(x:r8[240], n:i4=240, partial:r8[4], total:r8*) */
void run(double *x, int n, double *partial, double *total)
{
    double s[64];
    int nblocks = (n + 63) / 64;
    int b, t, i, stride;
    for (b = 0; b < nblocks; b++) {
        for (t = 0; t < 64; t++) {
            i = b * 64 + t;
            s[t] = i < n ? x[i] * x[i] : 0.0;
        }
        for (stride = 32; stride > 0; stride >>= 1)
            for (t = 0; t < stride; t++)
                s[t] += s[t + stride];
        partial[b] = s[0];
    }
    *total = 0.0;
    for (b = 0; b < nblocks; b++)
        *total += partial[b];
}
