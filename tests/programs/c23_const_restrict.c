/* const and restrict: axpy and stencil kernels on restrict pointers, const tables. */
/* adspec-test: kernels(x:r8[6], y:r8[6], z:r8[6], n:i4=6) -> r8 */
static const int NCOEF = 3;
static const double coef[3] = {0.25, 0.5, 0.25};

static void axpy(int n, const double a, const double *restrict x, double *restrict y)
{
    int i;
    for (i = 0; i < n; i++)
        y[i] += a * x[i];
}

static double smooth(int n, const double *const in, double *restrict out)
{
    int i, k;
    double total = 0.0;
    for (i = 1; i < n - 1; i++) {
        double acc = 0.0;
        for (k = 0; k < NCOEF; k++)
            acc += coef[k] * in[i + k - 1];
        out[i] = acc;
        total += acc;
    }
    return total;
}

double kernels(double *x, double *y, double *z, int n)
{
    double *const first = x;
    const double *restrict src = y;
    volatile int calls = 0;
    axpy(n, 2.0, first, y);
    calls++;
    z[0] = src[0];
    z[n - 1] = src[n - 1];
    return smooth(n, src, z) + calls;
}
