/* chained assignments `t1 = t2 = e` to different objects: the fields of one struct, elements of
   one array at different constant indices, an element of another array at a variable index,
   through a pointer, and an inner assignment that reads its own target (C defines them all) */
#include <math.h>
struct pt {
  double x;
  double y;
};
void chain(double *a, double *r, int n) {
  struct pt p, *q;
  double b[3], c[4];
  int i;
  p.x = p.y = a[0] * a[1];
  b[0] = b[1] = b[2] = p.x * a[2];
  for (i = 0; i < n; i++) c[i] = b[0x1] = sin(a[i]) + b[1];
  q = &p;
  q->x = p.y = p.y * a[3];
  r[0] = r[1] = p.x + p.y * b[1] + b[0] * b[2] + c[n - 1] * c[0];
}
