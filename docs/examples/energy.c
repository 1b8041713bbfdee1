/* A sum over independent trips: each trip has its own a and s, and adds to *f. */
#include <math.h>

void energy(int n, const double *x, const double *y, double *f) {
  int i;
  double a, s;
  *f = 0.0;
  for (i = 0; i < n; i++) {
    a = x[i] * y[i];
    s = sin(a) + a;
    *f = *f + s * s;
  }
}
