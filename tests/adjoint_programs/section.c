#include <math.h>
/* a helper that overwrites only a section w[k..k+m-1] of a bigger array, which the caller
   reads afterwards: the snapshot is that section (u + 2, 3 elements; then u + 1 + 0, 2),
   not the whole of u (whose size the caller does not know) nor its first element */
static void bend(double *w, int k, int m, double a) {
  for (int i = k; i < k + m; i++) {
    w[i] = a * sin(w[i]) + w[i] * w[i];
  }
}
void band(double *u, double *x, double *y, int n) {
  double s = 0.0;
  bend(u, 2, 3, x[1]);
  bend(u + 1, 0, 2, x[0]);
  for (int j = 0; j < n; j++) {
    s = s + u[j] * u[j] * x[1];
  }
  *y = s;
}
