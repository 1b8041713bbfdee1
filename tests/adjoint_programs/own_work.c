#include <math.h>
#include <stdlib.h>
/* a helper that walks its array with a pointer (no region is found for it) called on the
   caller's own malloc'd work array: the snapshot is the whole allocation, w[0..n-1] */
static void walkfill(double *p, int m, double a) {
  for (int k = 0; k < m; k++) {
    *p = a * sin(*p) + *p * *p;
    p++;
  }
}
void own(double *x, double *y, int n) {
  double *w = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) w[i] = x[i] * x[1];
  walkfill(w, n, x[0]);
  *y = 0.0;
  for (int i = 0; i < n; i++) *y += w[i] * w[i];
  free(w);
}
