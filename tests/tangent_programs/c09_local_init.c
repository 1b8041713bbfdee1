#include <math.h>
/* local declarations with active initial values, in the body and in nested blocks */
void energy(double *x, double *e, int n) {
  double s = x[0] * x[0];
  int i;
  double c = 2.0;
  for (i = 1; i < n; i++) {
    double d = x[i] - x[i - 1];
    double d2 = d * d, w = c * sin(d);
    s = s + d2 + w;
  }
  {
    double t = sqrt(s);
    *e = t * c;
  }
}
