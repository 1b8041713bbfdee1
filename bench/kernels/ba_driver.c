/* Times ba and ba_b (the adjoint) on M observations of NP points by NC cameras; prints
   "primal s", "adjoint s" (each the best of 5) and "peak bytes" (the most the push/pop stack
   held). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "adStack.h"

void ba(double *cams, double *pts, double *obs, int *cam_of, int *pt_of, double *f, int m);
void ba_b(double *cams, double *camsb, double *pts, double *ptsb, double *obs, int *cam_of, int *pt_of,
          double *f, double *fb, int m);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double uniform(double lo, double hi) { return lo + (hi - lo) * (rand() / (double)RAND_MAX); }

enum { NC = 20, NP = 5000, M = 100000, REPS = 5 };

int main(void) {
  static double cams[11 * NC], camsb[11 * NC], pts[3 * NP], ptsb[3 * NP], obs[2 * M];
  static int cam_of[M], pt_of[M];
  double f, fb, best, start, t;
  int i, r;
  srand(1);
  for (i = 0; i < NC; i++) {
    cams[11 * i] = uniform(0.1, 0.3); cams[11 * i + 1] = uniform(-0.3, 0.3); cams[11 * i + 2] = uniform(-0.3, 0.3);
    cams[11 * i + 3] = uniform(-1, 1); cams[11 * i + 4] = uniform(-1, 1); cams[11 * i + 5] = uniform(-12, -8);
    cams[11 * i + 6] = uniform(400, 600); cams[11 * i + 7] = uniform(-5, 5); cams[11 * i + 8] = uniform(-5, 5);
    cams[11 * i + 9] = uniform(-1e-3, 1e-3); cams[11 * i + 10] = uniform(-1e-5, 1e-5);
  }
  for (i = 0; i < 3 * NP; i++) pts[i] = uniform(-1, 1);
  for (i = 0; i < M; i++) { cam_of[i] = rand() % NC; pt_of[i] = rand() % NP; }
  for (i = 0; i < 2 * M; i++) obs[i] = uniform(-50, 50);
  best = 1e30;
  for (r = 0; r < REPS; r++) {
    start = now();
    ba(cams, pts, obs, cam_of, pt_of, &f, M);
    t = now() - start;
    if (t < best) best = t;
  }
  printf("primal %.5e\n", best);
  best = 1e30;
  for (r = 0; r < REPS; r++) {
    memset(camsb, 0, sizeof camsb); memset(ptsb, 0, sizeof ptsb);
    fb = 1.0;
    start = now();
    ba_b(cams, camsb, pts, ptsb, obs, cam_of, pt_of, &f, &fb, M);
    t = now() - start;
    if (t < best) best = t;
  }
  printf("adjoint %.5e\n", best);
  printf("peak %lld\n", adStack_peakBytes());
  printf("check %.5e\n", f + camsb[0] + ptsb[0]);
  return 0;
}
