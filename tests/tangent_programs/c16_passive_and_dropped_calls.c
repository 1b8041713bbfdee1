#include <math.h>
/* a static function called passively (in a condition) and one whose value is dropped */
static double sq(double v) {
  return v * v;
}
static double sg(double v) {
  if (v > 0.0) {
    return v * v;
  }
  return -v;
}
static double logged(double *acc, double v) {
  *acc += v;
  return *acc;
}
void branches(double *x, double *y, int n) {
  double t[4];
  int i;
  y[1] = 0.0;
  for (i = 0; i < n; i++) {
    t[i] = sg(x[i] - 0.7);
  }
  if (sq(x[0]) > 0.5) {
    y[0] = t[0] + t[1];
  } else {
    y[0] = t[2];
  }
  logged(&y[1], x[1] * x[2]);
  y[1] += fmin(t[2], x[0]) + fabs(t[1]);
}
