/* a passive function called in an expression overwrites an active global whose derivative
   is read later (after the merge of the branches): its derivative must be reset there, as
   after a call statement */
double g;

static double reset_count(int k) {
  g = 1.5 * k;
  return 2.0 * k;
}

void f(double *x, double *y, int n) {
  double t = 1.0;
  g = x[0] * x[0];
  if (n > 2) {
    t = reset_count(n) + 1.0;
  }
  *y = g * x[0] * t;
}
