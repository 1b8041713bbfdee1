/* Times gmm and gmm_b (the adjoint); prints "primal s", "adjoint s" (each the best of 5) and
   "peak bytes" (the most the push/pop stack held). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "adStack.h"

void gmm(double *x, double *mu, double *logw, double *sigma, double *ll, int n, int d, int k);
void gmm_b(double *x, double *mu, double *mub, double *logw, double *logwb, double *sigma, double *sigmab,
           double *ll, double *llb, int n, int d, int k);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

enum { N = 20000, D = 8, K = 8, REPS = 5 };

int main(void) {
  static double x[N * D], mu[K * D], mub[K * D], logw[K], logwb[K], sigma[K * D], sigmab[K * D];
  double ll, llb, best, start, t;
  int i, r;
  srand(1);
  for (i = 0; i < N * D; i++) x[i] = rand() / (double)RAND_MAX;
  for (i = 0; i < K * D; i++) { mu[i] = rand() / (double)RAND_MAX; sigma[i] = 0.5 + rand() / (double)RAND_MAX; }
  for (i = 0; i < K; i++) logw[i] = -log((double)K);
  best = 1e30;
  for (r = 0; r < REPS; r++) {
    start = now();
    gmm(x, mu, logw, sigma, &ll, N, D, K);
    t = now() - start;
    if (t < best) best = t;
  }
  printf("primal %.5e\n", best);
  best = 1e30;
  for (r = 0; r < REPS; r++) {
    memset(mub, 0, sizeof mub); memset(logwb, 0, sizeof logwb); memset(sigmab, 0, sizeof sigmab);
    llb = 1.0;
    start = now();
    gmm_b(x, mu, mub, logw, logwb, sigma, sigmab, &ll, &llb, N, D, K);
    t = now() - start;
    if (t < best) best = t;
  }
  printf("adjoint %.5e\n", best);
  printf("peak %lld\n", adStack_peakBytes());
  printf("check %.5e\n", ll + mub[0] + sigmab[K * D - 1] + logwb[0]);
  return 0;
}
