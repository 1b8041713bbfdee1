#include <math.h>
void f(double *x, double *y, int n) {
  double t;
  int i;
  *y = 0.0;
  for (i = 0; i < n; i++) {
    t = sin(x[i]) * x[i];
    if (t > 0.0) {
      *y = *y + t * t;
    } else {
      *y = *y - 2.0 * t / x[i];
    }
  }
}
