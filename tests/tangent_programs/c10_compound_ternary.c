#include <math.h>
/* compound assignments, ++, *p op= a, ternaries with active arms */
static void mulby(double *p, double a) {
  *p *= a;
  *p += 1.0;
}
void ops(double *x, double a, double *y, int n) {
  int i;
  double s = 1.0;
  for (i = 0; i < n; ++i) {
    s += x[i] * a;
    s -= 0.5 * x[i];
    s *= 1.0 + 0.1 * x[i];
    s /= 1.0 + x[i] * x[i];
  }
  y[0] = s > 0.0 ? s * a : -s;
  y[1] = x[0] < x[1] ? x[1] : 2.0;
  mulby(&y[1], x[2]);
  y[1] += (a > 0.0) ? a * x[0] : 1.0;
}
