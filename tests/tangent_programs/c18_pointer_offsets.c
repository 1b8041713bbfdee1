#include <stdlib.h>
#include <math.h>
/* pointer locals into a local 2-D array at an offset, into a malloc'd block with a stride,
   and chosen by a condition; one passed to a helper */
static void scale_pair(double *p, double f) {
  p[0] = f * p[0];
  p[1] = f * sin(p[1]);
}
void offsets(double *x, double *y, int n) {
  double m[3][4];
  double *w = malloc(2 * n * sizeof(double));
  double *p;
  double *q;
  int i, j;
  for (i = 0; i < 3; i++) {
    for (j = 0; j < 4; j++) {
      m[i][j] = x[(i + j) % n] * (i + 1);
    }
  }
  p = &m[1][1];
  scale_pair(p, x[0]);
  p = &m[2][1];
  p[1] = p[0] * p[2];
  for (i = 0; i < n; i++) {
    w[2 * i] = x[i];
    w[2 * i + 1] = x[i] * x[i];
  }
  q = w + 1;
  for (i = 0; i < n; i++) {
    y[i] = *q * m[i % 3][(i + 1) % 4];
    q += 2;
  }
  if (x[0] > 0.0) {
    q = &m[0][0];
  } else {
    q = w;
  }
  y[0] += q[3];
  y[1] += m[2][2] * p[-1];
  free(w);
}
