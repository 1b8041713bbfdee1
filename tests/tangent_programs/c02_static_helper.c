#include <math.h>
static void scale(double *v, int n, double a) {
  int i;
  for (i = 0; i < n; i++) {
    v[i] = a * v[i];
  }
}
void g(double x, double *u, double *r, int n) {
  double s = 0.0;
  int k = 0;
  scale(u, n, x);
  while (k < n) {
    s = s + exp(-u[k]) * x;
    k = k + 1;
  }
  *r = s / n;
}
