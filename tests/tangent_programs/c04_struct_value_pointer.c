#include <math.h>
/* a struct of doubles passed by value and by pointer to helpers */
struct point {
  double x;
  double y;
};
static double norm2(struct point p) {
  return p.x * p.x + p.y * p.y;
}
static void scale_point(struct point *p, double a) {
  p->x = a * p->x;
  p->y *= a;
}
void f(double *u, double *r, int n) {
  struct point p;
  int i;
  *r = 0.0;
  for (i = 0; i + 1 < n; i += 2) {
    p.x = u[i];
    p.y = sin(u[i + 1]);
    scale_point(&p, u[0]);
    *r += norm2(p);
  }
}
