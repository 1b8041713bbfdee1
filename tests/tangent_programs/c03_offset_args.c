#include <math.h>
/* array arguments at an offset: &a[k * n], a + k, to differentiated helpers */
static double dot(const double *u, const double *v, int m) {
  double s = 0.0;
  int i;
  for (i = 0; i < m; i++) {
    s += u[i] * v[i];
  }
  return s;
}
static void axpy(double *y, const double *x, double a, int m) {
  int i;
  for (i = 0; i < m; i++) {
    y[i] += a * x[i];
  }
}
void matvec(double *a, double *x, double *y, int n) {
  int k;
  for (k = 0; k < n; k++) {
    y[k] = dot(&a[k * n], x, n);
  }
  axpy(y + 1, x + 1, a[0], n - 1);
  axpy(&y[0], &a[1 * n + 1], x[0], n - 1);
}
