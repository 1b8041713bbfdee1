/* A C function called in split mode (-nocheckpoint): g_fwd returns the value, g_bwd takes
   the value's adjoint last. */
#include <math.h>

static double g(double x, double a) {
    double t = sin(x) * a;
    double r = t * t + x;
    r = r * cos(r);
    return r * a;
}

void f(double *x, double *y) {
    int i;
    for (i = 0; i < 3; i++)
        *y = g(x[i], *y) * x[i] + *y;
    *y = *y + g(*y, x[1]) * 2;
}
