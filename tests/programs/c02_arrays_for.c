/* Arrays passed by pointer, local arrays with initializers, C for loops. */
/* adspec-test: stencil(a:r8[8], b:r8[8], n:i4=8, s:r8*) */
void stencil(double *a, double b[], int n, double *s)
{
    double w[3] = {0.25, 0.5, 0.25};
    double c[8];
    int i, k;
    for (i = 0; i < n; i++)
        c[i] = 2.0 * a[i] + b[i];
    for (i = 1; i < n - 1; i++) {
        b[i] = 0.0;
        for (k = -1; k <= 1; k++)
            b[i] += w[k + 1] * c[i + k];
    }
    *s = 0.0;
    for (i = n - 1; i >= 0; i -= 2)
        *s += a[i] * b[i];
    a[0] = s[0] / n;
}
