/* a 2-D grid stored by rows; each row passed to a helper at its offset */
static void relax_row(double *row, const double *above, const double *below, int m, double k) {
  int j;
  for (j = 1; j < m - 1; j++) {
    row[j] += k * (above[j] + below[j] + row[j - 1] + row[j + 1] - 4.0 * row[j]);
  }
}
void heat(double *u, double k, double *total, int n) {
  int i, step;
  for (step = 0; step < 2; step++) {
    for (i = 1; i < n - 1; i++) {
      relax_row(u + i * n, &u[(i - 1) * n], u + (i + 1) * n, n, k);
    }
  }
  *total = 0.0;
  for (i = 0; i < n * n; i++) {
    *total += u[i] * u[i];
  }
}
