/* a struct returned by value from a call nested in an expression, s = s + cnorm(cmul(a, b)),
   a struct partly varied (q.im a constant) passed where another call passes a varied one,
   a passive struct c passed where the callee expects a derivative (a zero one) */
#include <math.h>
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
static double cnorm(cplx a) {
  return sqrt(a.re * a.re + a.im * a.im);
}
void csum(double *x, double *s, int n) {
  cplx p, q, z, c;
  int k;
  p.re = x[0];
  p.im = x[1];
  q.re = x[2];
  q.im = 0.5;
  z = cmul(p, q);
  *s = cnorm(z);
  for (k = 0; k < n; k++) {
    *s = *s + cnorm(cmul(p, z)) * x[k] + 2.0 * cnorm(q);
    z.re = z.re * 0.5;
  }
  c.re = 0.25;
  c.im = -1.5;
  *s = *s + cnorm(cmul(c, p));
}
