/* Static helpers called inside expressions, by-value arguments only read (their adjoint is
   the caller's *xb) and assigned (a local xb, added to *xb0 at the end), a function called
   as a statement with its value dropped, and a passive actual where the helper expects an
   adjoint. */
#include <math.h>

static double sqr(double x) { return x * x; }

static double cube(double x) {
    x = x * x * x;
    return x;
}

static double scale(double *v, double s) {
    v[0] = v[0] * s;
    v[1] = v[1] * s + sqr(v[0]);
    return v[0] + v[1];
}

double f(double a, double b, double v[2]) {
    double t = sqr(a) + b;
    double u = sqr(t) * cube(b) + sqr(sqr(a));
    scale(v, u);
    u = u + scale(v, 2.0) * t;
    return u * t + cube(2.0 * a + v[1]);
}
