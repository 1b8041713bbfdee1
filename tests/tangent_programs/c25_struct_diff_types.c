/* derivative types T_diff: structs with int fields (not in their _diff), a typedef of a tagged
   struct (P -> P_diff), a nested struct, a local struct with a passive initializer (its
   derivative zeroed as a whole, {0}), an array of structs and a malloc'd one (calloc'd as
   P_diff), a struct passed by pointer and by value and returned */
#include <stdlib.h>
#include <math.h>
struct pt {
  double x;
  double y;
  int id;
};
typedef struct pt P;
struct seg {
  P a;
  struct pt b;
  int tag;
  double len;
};
static P mid(P u, const struct pt *v) {
  P m;
  m.x = 0.5 * (u.x + v->x);
  m.y = 0.5 * (u.y + v->y);
  m.id = u.id + v->id;
  return m;
}
static void stretch(struct seg *s, double k) {
  s->len = k * sqrt((s->b.x - s->a.x) * (s->b.x - s->a.x) + (s->b.y - s->a.y) * (s->b.y - s->a.y));
  s->tag = s->tag + 1;
}
void sdiff(double *a, double *r, int n) {
  struct pt v = {1.0, 2.0, 3};
  P arr[3];
  P *w;
  struct seg s;
  int i;
  w = (P *)malloc(n * sizeof(P));
  for (i = 0; i < 3; i++) {
    arr[i].x = a[i];
    arr[i].y = a[i] * a[i + 1];
    arr[i].id = i;
  }
  for (i = 0; i < n; i++) {
    w[i].x = a[i] * v.x;
    w[i].y = sin(a[i]);
    w[i].id = -i;
  }
  v.y = v.y * a[0];
  s.a = mid(arr[0], &w[n - 1]);
  s.b = arr[2];
  s.tag = 0;
  stretch(&s, a[1]);
  *r = v.y + s.len * arr[1].x + w[n - 1].y + s.tag;
  free(w);
}
