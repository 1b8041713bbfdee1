/* pointers stored in struct fields: a Matrix holding double *data, malloc'd where it is used,
   an array of Matrix, a resize (free + malloc); the derivative Matrix_diff { double *data; }
   is allocated next to the primal */
#include <stdlib.h>
#include <math.h>
typedef struct {
  int nrows, ncols;
  double *data;
} Matrix;
void fieldptr(double *x, double *y, int n) {
  Matrix a, rows[2];
  int i, k;
  a.nrows = 1;
  a.ncols = n;
  a.data = (double *)malloc(n * sizeof(double));
  for (i = 0; i < n; i++) a.data[i] = x[i] * x[i];
  for (k = 0; k < 2; k++) {
    rows[k].nrows = 1;
    rows[k].ncols = n;
    rows[k].data = (double *)malloc(n * sizeof(double));
    for (i = 0; i < n; i++) rows[k].data[i] = sin(a.data[i] * (k + 1));
  }
  free(a.data);
  a.ncols = 2 * n;
  a.data = (double *)malloc(2 * n * sizeof(double));
  for (i = 0; i < n; i++) {
    a.data[i] = rows[0].data[i] * rows[1].data[n - 1 - i];
    a.data[n + i] = a.data[i] * x[i];
  }
  *y = 0.0;
  for (i = 0; i < 2 * n; i++) *y += a.data[i] * x[i % n];
  for (k = 0; k < 2; k++) free(rows[k].data);
  free(a.data);
}
