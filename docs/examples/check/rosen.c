/* Rosenbrock-style objective with a weighted smooth penalty on each coordinate. */
#include <math.h>

void penalty(double a, double *p) {
    *p = log(1.0 + a * a);
}

void rosen(int n, double *x, double *w, double *f) {
    double d, e, p;
    *f = 0.0;
    for (int i = 0; i < n - 1; i++) {
        d = x[i + 1] - x[i] * x[i];
        e = 1.0 - x[i];
        penalty(x[i], &p);
        *f = *f + 100.0 * d * d + e * e + *w * p;
    }
}
