#include <math.h>
/* while, do-while, for with a complex condition, break and continue */
void iterate(double *x, double a, double *y, int n) {
  double s = 0.0;
  int i = 0;
  int it;
  while (i < n && x[i] > -10.0) {
    if (x[i] > 1.2) {
      i++;
      continue;
    }
    s = s + a * x[i];
    i++;
  }
  it = 0;
  do {
    s = s * 0.5 + x[0];
    it++;
  } while (it < 4);
  for (i = 0; i < n && s < 100.0; i++) {
    if (i == 3) {
      break;
    }
    s += x[i] * x[i];
  }
  *y = s;
}
