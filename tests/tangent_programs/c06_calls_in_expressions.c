#include <math.h>
/* static helpers returning values, called inside expressions */
static double sq(double v) {
  return v * v;
}
static double h(double a, double b) {
  double t;
  t = a * exp(-b);
  return t + sq(b);
}
void k(double *x, double *y, int n) {
  int i;
  for (i = 0; i < n; i++) {
    y[i] = 2.0 * sq(x[i]) + h(x[i], y[i]);
  }
  y[0] = sq(h(x[0], x[n - 1])) - y[1] / sq(x[1]);
}
