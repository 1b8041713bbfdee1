/* an Index * returned by helpers (one into an array the caller passes, one malloc'd by the
   helper), next to pointers to structs of another type (Triangle): the points-to analysis
   keeps the targets of the call's type, or memory of the call's own, so positions->idx never
   meets a Triangle (it stopped with "'tris' has no field 'idx'") */
#include <stdlib.h>
typedef struct {
  int n;
  int *idx;
} Index;
typedef struct {
  int verts[3];
} Triangle;
static Index *get_index(Index *pool, int k) {
  return &pool[k];
}
static Index *new_index(int n) {
  Index *m = (Index *)malloc(sizeof(Index));
  m->n = n;
  m->idx = (int *)malloc(n * sizeof(int));
  return m;
}
void typed(double *x, double *y, int n) {
  Index pool[2], *positions, *order;
  Triangle tris[2], *triangles;
  int store[8];
  int i, k;
  for (i = 0; i < 8; i++) store[i] = (3 * i + 1) % 4;
  for (k = 0; k < 2; k++) {
    pool[k].n = 4;
    pool[k].idx = &store[4 * k];
    for (i = 0; i < 3; i++) tris[k].verts[i] = (i + k) % 3;
  }
  triangles = &tris[1];
  positions = get_index(pool, 1);
  order = new_index(n);
  for (i = 0; i < n; i++) order->idx[i] = n - 1 - i;
  *y = 0.0;
  for (i = 0; i < 3; i++)
    *y += x[positions->idx[triangles->verts[i]]] * x[order->idx[i]] + x[i] * x[order->idx[i + 1]];
  free(order->idx);
  free(order);
}
