/* Sequential reference of cu08_two_kernels.cu: the first kernel's loop completes before
   the second's starts. */
/* adspec-test: run(x:r8[128], w:r8[128], y:r8[128], n:i4=128) */
void run(double *x, double *w, double *y, int n)
{
    int i, left, right;
    for (i = 0; i < n; i++) {
        w[i] = x[i] * x[i] + 1.0;
        y[i] = -1.0;
    }
    for (i = 0; i < n; i++) {
        left = i > 0 ? i - 1 : i;
        right = i < n - 1 ? i + 1 : i;
        y[i] = (w[left] + w[i] + w[right]) / 3.0 + y[i];
    }
}
