#include <math.h>
/* an in-place state, updated in a time loop by a helper: state and hist hold active values
   but are no independent nor dependent, so evolve_d takes their derivatives as arguments
   ("Plus diff mem management of"): the caller zeroes that of the pointer state, evolve_d
   zeroes that of hist, whose size it knows */
static void step(double *state, int n, double a, double b) {
  for (int i = 0; i < n; i++) state[i] = state[i] * a + sin(b * state[i]);
}
void evolve(double *x, double *state, double hist[4], int n, double *y) {
  for (int t = 0; t < 5; t++) {
    step(state, n, x[0], x[1]);
    for (int i = 0; i < n; i++) hist[i] += 0.5 * state[i];
  }
  *y = 0.0;
  for (int i = 0; i < n; i++) *y += state[i] * hist[i];
}
