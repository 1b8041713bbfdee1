/* Times gmm, gmm_d, gmm_dv (8 directions) and 8 runs of gmm_d; prints "name seconds" lines,
   each the best of 5 repetitions. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>

#define NBDIRS 8 /* NBDirsMax of DIFFSIZES.h */

void gmm(double *x, double *mu, double *logw, double *sigma, double *ll, int n, int d, int k);
void gmm_d(double *x, double *mu, double *mud, double *logw, double *logwd, double *sigma, double *sigmad,
           double *ll, double *lld, int n, int d, int k);
void gmm_dv(double *x, double *mu, double mud[][NBDIRS], double *logw, double logwd[][NBDIRS], double *sigma,
            double sigmad[][NBDIRS], double *ll, double lld[][NBDIRS], int n, int d, int k, int nbdirs);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

enum { N = 20000, D = 8, K = 8, REPS = 5 };

int main(void) {
  static double x[N * D], mu[K * D], mud[K * D], logw[K], logwd[K], sigma[K * D], sigmad[K * D];
  double ll, lld, best, start, check = 0.0;
  int i, r;
  srand(1);
  for (i = 0; i < N * D; i++) x[i] = rand() / (double)RAND_MAX;
  for (i = 0; i < K * D; i++) { mu[i] = rand() / (double)RAND_MAX; sigma[i] = 0.5 + rand() / (double)RAND_MAX; }
  for (i = 0; i < K; i++) logw[i] = -log((double)K);
  for (i = 0; i < K * D; i++) { mud[i] = 1.0; sigmad[i] = 0.5; }
  for (i = 0; i < K; i++) logwd[i] = 1.0;
  best = 1e30;
  for (r = 0; r < REPS; r++) {
    start = now();
    gmm(x, mu, logw, sigma, &ll, N, D, K);
    if (now() - start < best) best = now() - start;
  }
  check += ll;
  printf("primal %.5e\n", best);
  best = 1e30;
  for (r = 0; r < REPS; r++) {
    start = now();
    gmm_d(x, mu, mud, logw, logwd, sigma, sigmad, &ll, &lld, N, D, K);
    if (now() - start < best) best = now() - start;
  }
  check += lld;
  printf("tangent %.5e\n", best);
  {
    static double mudv[K * D][NBDIRS], logwdv[K][NBDIRS], sigmadv[K * D][NBDIRS], lldv[1][NBDIRS];
    int dir;
    best = 1e30;
    for (r = 0; r < REPS; r++) {
      start = now();
      for (dir = 0; dir < NBDIRS; dir++) {
        for (i = 0; i < K * D; i++) { mud[i] = 1.0 / (dir + 1); sigmad[i] = 0.5; }
        gmm_d(x, mu, mud, logw, logwd, sigma, sigmad, &ll, &lld, N, D, K);
      }
      if (now() - start < best) best = now() - start;
    }
    check += lld;
    printf("tangent8 %.5e\n", best);
    for (dir = 0; dir < NBDIRS; dir++) {
      for (i = 0; i < K * D; i++) { mudv[i][dir] = 1.0 / (dir + 1); sigmadv[i][dir] = 0.5; }
      for (i = 0; i < K; i++) logwdv[i][dir] = 1.0;
    }
    best = 1e30;
    for (r = 0; r < REPS; r++) {
      start = now();
      gmm_dv(x, mu, mudv, logw, logwdv, sigma, sigmadv, &ll, lldv, N, D, K, NBDIRS);
      if (now() - start < best) best = now() - start;
    }
    check += lldv[0][NBDIRS - 1];
    printf("vector8 %.5e\n", best);
  }
  printf("check %.5e\n", check);
  return 0;
}
