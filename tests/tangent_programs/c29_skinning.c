/* skinning in the style of a small kinematics code: Matrix structs holding double *data,
   an array of them (one 2x2 rotation per bone), helpers that fill and multiply matrices
   through Matrix *, allocation and a resize (free + malloc) in the objective */
#include <stdlib.h>
#include <math.h>
typedef struct {
  int nrows, ncols;
  double *data;
} Matrix;

static void rotation(Matrix *r, double angle, double scale) {
  double c = cos(angle), s = sin(angle);
  r->data[0] = scale * c;
  r->data[1] = -scale * s;
  r->data[2] = scale * s;
  r->data[3] = scale * c;
}

static void mat_mult(const Matrix *a, const Matrix *b, Matrix *c) {
  int i, j, k;
  for (i = 0; i < a->nrows; i++)
    for (j = 0; j < b->ncols; j++) {
      c->data[i * c->ncols + j] = 0.0;
      for (k = 0; k < a->ncols; k++)
        c->data[i * c->ncols + j] += a->data[i * a->ncols + k] * b->data[k * b->ncols + j];
    }
}

#define NBONES 3
#define NVERTS 4
void skin(double *theta, double *target, double *err) {
  Matrix bones[NBONES], verts, moved;
  double weights[NBONES * NVERTS], blended[2 * NVERTS];
  int b, v, d;
  verts.nrows = 2;
  verts.ncols = NVERTS;
  verts.data = (double *)malloc(2 * NVERTS * sizeof(double));
  moved.nrows = moved.ncols = 1;
  moved.data = (double *)malloc(sizeof(double));
  for (v = 0; v < NVERTS; v++) {
    verts.data[v] = 1.0 + v;
    verts.data[NVERTS + v] = 0.5 * v - 1.0 + target[v];
    for (b = 0; b < NBONES; b++) weights[b * NVERTS + v] = (1.0 + b + v) / (6.0 + NBONES * v);
  }
  for (b = 0; b < NBONES; b++) {
    bones[b].nrows = bones[b].ncols = 2;
    bones[b].data = (double *)malloc(4 * sizeof(double));
    rotation(&bones[b], theta[b] * (b + 1), 1.0 + theta[NBONES]);
  }
  /* resize moved to 2 x NVERTS */
  free(moved.data);
  moved.data = (double *)malloc(2 * NVERTS * sizeof(double));
  moved.nrows = 2;
  moved.ncols = NVERTS;
  for (v = 0; v < 2 * NVERTS; v++) blended[v] = 0.0;
  for (b = 0; b < NBONES; b++) {
    mat_mult(&bones[b], &verts, &moved);
    for (v = 0; v < NVERTS; v++)
      for (d = 0; d < 2; d++) blended[d * NVERTS + v] += weights[b * NVERTS + v] * moved.data[d * NVERTS + v];
  }
  *err = 0.0;
  for (v = 0; v < NVERTS; v++)
    for (d = 0; d < 2; d++)
      *err += (blended[d * NVERTS + v] - target[d * NVERTS + v]) * (blended[d * NVERTS + v] - target[d * NVERTS + v]);
  for (b = 0; b < NBONES; b++) free(bones[b].data);
  free(verts.data);
  free(moved.data);
}
