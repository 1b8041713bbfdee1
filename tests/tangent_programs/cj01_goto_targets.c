/* gotos in C: forward to an active statement, backward with a counter, out of a loop, and to
   the move of a pointer whose derivative pointer nothing reads (it is dropped, the label kept),
   to a compound statement */
void jumps(double *x, double *y, int n) {
  const double *p = x, *pe;
  double s = x[0];
  int k = 0;
  if (n > 2) goto first;
  s = s * x[1];
first:
  s = s * x[1] + sin(s);
again:
  s = 0.5 * s * s + x[2];
  k++;
  if (k < 3) goto again;
  if (n > 0) goto walk;
  s = -s;
walk:
  pe = p + n;
  while (p < pe) {
    if (*p > 1.4) goto out;
    s += *p * s;
    p++;
  }
out:
  if (n > 3) goto block;
  s = s + 1.0;
block: {
    double t = s * x[3];
    s = t + s;
  }
  *y = s * x[n - 1];
}
