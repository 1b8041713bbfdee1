/* Sequential reference of cu05_matvec.cu. */
/* adspec-test: run(a:r8[960], x:r8[24], y:r8[40], m:i4=40, n:i4=24) */
void run(double *a, double *x, double *y, int m, int n)
{
    int row, j;
    double acc;
    for (row = 0; row < m; row++) {
        acc = 0.0;
        for (j = 0; j < n; j++)
            acc += a[row * n + j] * x[j];
        y[row] = acc;
    }
}
