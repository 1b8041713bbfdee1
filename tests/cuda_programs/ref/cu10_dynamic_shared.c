/* Sequential reference of cu10_dynamic_shared.cu: the same double-buffered steps per block
   (each step reads only the other half of the buffer, so a loop over threads is exact). */
/* adspec-test: run(x:r8[200], y:r8[200], totals:r8[4], n:i4=200) */
void run(double *x, double *y, double *totals, int n)
{
    double buf[2 * 64];
    double offsets[4];
    int blocks = (n + 63) / 64;
    int b, t, i, offset, src, dst;
    for (b = 0; b < blocks; b++) {
        for (t = 0; t < 64; t++) {
            i = b * 64 + t;
            buf[t] = i < n ? x[i] : 0.0;
        }
        src = 0;
        for (offset = 1; offset < 64; offset *= 2) {
            dst = 64 - src;
            for (t = 0; t < 64; t++) {
                if (t >= offset)
                    buf[dst + t] = buf[src + t] + buf[src + t - offset];
                else
                    buf[dst + t] = buf[src + t];
            }
            src = dst;
        }
        for (t = 0; t < 64; t++) {
            i = b * 64 + t;
            if (i < n)
                y[i] = buf[src + t];
        }
        totals[b] = buf[src + 63];
    }
    offsets[0] = 0.0;
    for (b = 1; b < blocks; b++)
        offsets[b] = offsets[b - 1] + totals[b - 1];
    for (i = 0; i < n; i++)
        y[i] = y[i] + offsets[i / 64];
}
