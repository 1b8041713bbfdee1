/* A callee overwrites file-scope globals that the caller's backward sweep reads before the
   call (t = c*c); a function called in an expression updates one. */
#include <math.h>
double c;
double d;

static void g(double x) {
    d = c * x;
    c = x * 3.0 + d;
    c = sin(c) * x;
}

static double h(double x) {
    c = c * x;
    return c + x;
}

void f(double *x, double *y) {
    double t;
    c = x[0] * x[0];
    t = c * c;
    g(x[0]);
    t = t * d + h(t);
    g(t);
    *y = t + c * x[0];
}
