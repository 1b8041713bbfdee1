/* local pointers walking arrays: a row pointer at an offset, p++, a pointer to a local */
static void axpy_row(double *row, const double *x, double a, int m) {
  const double *xe = x + m;
  while (x < xe) {
    *row += a * *x;
    row++;
    x++;
  }
}
void walk(double *a, double *x, double *y, int n) {
  double *row;
  double *p = x;
  double s = 0.0;
  double *ps = &s;
  int i;
  for (i = 0; i < n; i++) {
    row = &a[i * n];
    axpy_row(row, x, x[i], n);
    *ps += *p * *p;
    p++;
  }
  for (i = 0; i < n; i++) {
    y[i] = a[i * n + i] * s;
  }
}
