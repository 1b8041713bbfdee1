#include <stdlib.h>
#include <math.h>
/* a work array malloc'd and freed inside the differentiated code */
void smooth(double *u, double *r, int n) {
  double *w = malloc(n * sizeof(double));
  int i;
  for (i = 0; i < n; i++) {
    w[i] = u[i] * u[i];
  }
  for (i = 1; i < n - 1; i++) {
    u[i] = 0.25 * w[i - 1] + 0.5 * w[i] + 0.25 * w[i + 1];
  }
  *r = 0.0;
  for (i = 0; i < n; i++) {
    *r += w[i] * u[i];
  }
  free(w);
}
