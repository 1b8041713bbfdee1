/* a typedef'd struct returned by value, passed by value and by pointer */
typedef struct {
  double re;
  double im;
} cplx;
static cplx cmul(cplx a, cplx b) {
  cplx r;
  r.re = a.re * b.re - a.im * b.im;
  r.im = a.re * b.im + a.im * b.re;
  return r;
}
static void cscale(cplx *a, double s) {
  a->re *= s;
  a->im *= s;
}
void cpoly(double *x, double *y, int n) {
  cplx z, acc;
  int k;
  z.re = x[0];
  z.im = x[1];
  acc.re = 1.0;
  acc.im = 0.0;
  for (k = 0; k < n; k++) {
    acc = cmul(acc, z);
    cscale(&acc, 0.5 + 0.1 * x[2]);
  }
  y[0] = acc.re;
  y[1] = acc.im;
}
