#include <math.h>
/* a static local carries a value, and its derivative, from one call to the next */
static void acc(double x, double *y) {
  static double s = 1.0;
  *y = s * x;
  s = s * sin(x) + x;
}

void twice(double *x, double *y) {
  double y1;
  acc(x[0], &y1);
  acc(x[1], y);
  *y = *y + y1;
}
