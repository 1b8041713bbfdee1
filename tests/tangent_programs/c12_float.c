#include <math.h>
/* float variables and float math mixed with double */
static float poly(float t) {
  return 1.0f + t * (0.5f + t * 0.25f);
}
void mixed(double *x, double *y, int n) {
  float acc = 0.0f;
  int i;
  for (i = 0; i < n; i++) {
    float xi = (float)x[i];
    acc += poly(xi) * sinf(xi);
  }
  *y = (double)acc + x[0] * expf((float)x[1]);
}
