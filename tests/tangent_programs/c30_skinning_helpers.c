/* the acceptance program of issue 17: a small skinning objective written with Matrix helpers
   that allocate, resize (free + malloc), fill and multiply matrices held in Matrix structs
   (double *data), an array of Matrix (one 2x2 transform per bone, built from the active
   angles), the vertices transformed by each bone and blended by weights; the objective is the
   sum of squared distances to the targets. The derivative of each helper allocates, resizes
   and frees the Matrix_diff's data next to the primal's (Tapenade's diff mem management). */
#include <stdlib.h>
#include <math.h>
typedef struct {
  int nrows, ncols;
  double *data;
} Matrix;

static void mat_alloc(Matrix *m, int nrows, int ncols) {
  m->nrows = nrows;
  m->ncols = ncols;
  m->data = (double *)malloc(nrows * ncols * sizeof(double));
}

static void mat_free(Matrix *m) {
  free(m->data);
}

static void mat_resize(Matrix *m, int nrows, int ncols) {
  if (m->nrows * m->ncols != nrows * ncols) {
    free(m->data);
    m->data = (double *)malloc(nrows * ncols * sizeof(double));
  }
  m->nrows = nrows;
  m->ncols = ncols;
}

static void mat_fill(Matrix *m, const double *values) {
  int i;
  for (i = 0; i < m->nrows * m->ncols; i++) m->data[i] = values[i];
}

static void bone_transform(Matrix *r, double angle, double scale) {
  double c = cos(angle), s = sin(angle);
  mat_resize(r, 2, 2);
  r->data[0] = scale * c;
  r->data[1] = -scale * s;
  r->data[2] = scale * s;
  r->data[3] = scale * c;
}

/* c = a * b, c resized to fit */
static void mat_mult(const Matrix *a, const Matrix *b, Matrix *c) {
  int i, j, k;
  mat_resize(c, a->nrows, b->ncols);
  for (i = 0; i < a->nrows; i++)
    for (j = 0; j < b->ncols; j++) {
      c->data[i * c->ncols + j] = 0.0;
      for (k = 0; k < a->ncols; k++)
        c->data[i * c->ncols + j] += a->data[i * a->ncols + k] * b->data[k * b->ncols + j];
    }
}

#define NBONES 3
#define NVERTS 4
void skin(double *theta, double *rest, double *target, double *err) {
  Matrix bones[NBONES], verts, moved;
  double weights[NBONES * NVERTS], blended[2 * NVERTS];
  int b, v, d;
  mat_alloc(&verts, 2, NVERTS);
  mat_fill(&verts, rest);
  mat_alloc(&moved, 1, 1);
  for (v = 0; v < NVERTS; v++)
    for (b = 0; b < NBONES; b++) weights[b * NVERTS + v] = (1.0 + b + v) / (6.0 + NBONES * v);
  for (b = 0; b < NBONES; b++) {
    mat_alloc(&bones[b], 1, 1);
    bone_transform(&bones[b], theta[b] * (b + 1), 1.0 + theta[NBONES] * b);
  }
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
  for (b = 0; b < NBONES; b++) mat_free(&bones[b]);
  mat_free(&verts);
  mat_free(&moved);
}
