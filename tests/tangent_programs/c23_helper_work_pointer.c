/* a helper whose work array holds active values inside it only: the caller's work arrays are
   passive at the calls, so smooth_d takes the derivative of work as an argument ("Plus diff
   mem management of") and the caller gives the derivative of its own array, zeroed */
static void smooth(double *u, double *work, int n, double k) {
  for (int i = 0; i < n; i++) work[i] = k * u[i];
  for (int i = 1; i < n - 1; i++) u[i] += 0.5 * (work[i - 1] - 2.0 * work[i] + work[i + 1]);
}
void diffuse(double *u, double *k, double *y, int n) {
  double first[8], second[6];
  smooth(u, first, n, k[0]);
  smooth(u, second, n, k[1]);
  *y = 0.0;
  for (int i = 0; i < n; i++) *y += u[i] * u[i];
}
