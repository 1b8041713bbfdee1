/* Sequential reference of cu09_math.cu: C's math.h, with rsqrt(v) written 1.0 / sqrt(v). */
/* adspec-test: run(x:r8[100], y:r8[100], xf:r4[100], yf:r4[100], n:i4=100) */
#include <math.h>

void run(double *x, double *y, float *xf, float *yf, int n)
{
    int i;
    double v;
    float vf;
    for (i = 0; i < n; i++) {
        v = x[i];
        y[i] = fma(sin(v), exp(-v), 1.0 / sqrt(v)) + pow(v, 1.5) - log(v) * cos(v)
               + sqrt(v + 2.0) * fabs(v - 1.0) + tanh(0.5 * v);
    }
    for (i = 0; i < n; i++) {
        vf = xf[i];
        yf[i] = fmaf(sinf(vf), expf(-vf), sqrtf(vf)) + fabsf(vf - 1.0f) * 0.5f;
    }
}
