#include <math.h>
/* math.h functions */
void mathf(double *x, double *y, int n) {
  y[0] = sin(x[0]) + cos(x[1]) * tan(x[2]);
  y[1] = exp(x[0]) * log(x[1]) + sqrt(x[2]);
  y[2] = pow(x[0], x[1]) + pow(x[2], 3.0) + pow(2.0, x[0]);
  y[3] = fabs(x[0] - x[1]) + fmax(x[1], x[2]) + fmin(x[0], x[2]);
  y[4] = hypot(x[0], x[1]) + atan2(x[1], x[2]) + tanh(x[0]) + atan(x[2]);
  y[5] = sinh(x[1]) + cosh(x[2]) + log10(x[0]) + asin(0.5 * x[1]) + acos(0.5 * x[2]);
  if (n > 6) {
    y[6] = exp(-x[0] * x[1]) / (1.0 + fabs(x[2]));
  }
}
