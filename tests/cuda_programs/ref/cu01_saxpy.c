/* Sequential reference of cu01_saxpy.cu. */
/* adspec-test: run(a:r4, x:r4[200], y:r4[200], n:i4=200) */
void run(float a, float *x, float *y, int n)
{
    int i;
    for (i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
