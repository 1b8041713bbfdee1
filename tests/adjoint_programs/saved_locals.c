/* static locals of called functions (issue 16): a passive counter (tick, called by relax in an
   expression) that relax's derivatives read, an active state s read before it is written at every
   call of a loop of calls, an array of state; relax is called joint from inner (itself
   checkpointed in a loop) and split ($AD NOCHECKPOINT) from the head. Each rerun of a call must
   find the state as that call saw it, and the adjoint of s goes from each call back to the
   previous one. */
#include <math.h>

static int tick(void) {
  static int count = 0;
  count = count + 1;
  return count;
}

static void relax(double x, double *y) {
  static double s = 0.5;
  static double hist[3] = {1.0, 2.0, 3.0};
  int k, j;
  k = tick();
  j = k % 3;
  *y = *y + s * x * k + hist[j] * *y;
  hist[j] = hist[j] * x;
  s = cos(s) * x + s;
}

static void inner(double x, double *y) {
  double t;
  relax(x, y);
  t = *y * 0.5;
  relax(t, y);
}

void run(double *x, double *y, int n) {
  int i;
  *y = 1.0;
  for (i = 0; i < n; i++) {
    inner(x[i], y);
  }
  // $AD NOCHECKPOINT
  relax(x[0], y);
}
