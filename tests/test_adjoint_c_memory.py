"""Adjoint mode on C structures whose pointer components helpers allocate, fill and free
through `T *` formals (issue 16, C memory; the skinning programs c29 and c30 of the corpus).

- A pointer component of a structure a formal points to (`r->data`) has the adjoint
  component of the caller's adjoint structure (`rb->data`, Tapenade's diff mem management).
- free() of a block that may come from elsewhere (A-free-kept): the forward sweep keeps the
  block and its adjoint, pushing both pointers; the backward sweep pops them back at the
  point of the free; the backward point of the block's allocation frees both.
- A call that allocates or frees through what it passes is split (P_fwd allocates the
  adjoint block with the primal one, so it takes the adjoint memory too), even in joint mode;
  a helper with a structure of its own is still checkpointed, and its P_b reruns the
  allocations and frees of its forward sweep.
- The snapshot of a checkpointed call saves the block a local structure's pointer component
  points to (the last allocation into it before the call), whole.

Each program passes the dot-product test against the tangent in the interpreter, with the
stack empty, and compiled with gcc -O2 and under ASan/UBSan (LeakSanitizer included: each
block is freed once, none leaks)."""
from __future__ import annotations

import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adjoint_check import RUNTIME, AdjointCase
from c_tangent_cases import C_CASES, integer, real, source

CORPUS = {name: (head, args) for name, head, args in C_CASES}
SPLIT = frozenset({"checkpoint"})   # -nocheckpoint

VECTORS = """
#include <stdlib.h>
#include <math.h>
typedef struct { int n; double *data; } Vec;
static void vec_alloc(Vec *v, int n) { v->n = n; v->data = (double *)malloc(n * sizeof(double)); }
static void vec_free(Vec *v) { free(v->data); }
static void vec_grow(Vec *v, int n) {
  if (v->n != n) {
    free(v->data);
    v->data = (double *)malloc(n * sizeof(double));
    v->n = n;
  }
}
static void vec_square(const Vec *a, Vec *b) {
  int i;
  vec_grow(b, a->n);
  for (i = 0; i < a->n; i++) b->data[i] = a->data[i] * a->data[i];
}
/* a Vec of its own, allocated and freed by the helpers: smooth is checkpointed */
static void smooth(double *x, int n) {
  Vec t;
  int i;
  vec_alloc(&t, n);
  for (i = 0; i < n; i++) t.data[i] = sin(x[i]);
  for (i = 1; i < n; i++) x[i] = x[i] + t.data[i - 1] * x[i];
  vec_free(&t);
}
void vsum(double *x, double *y, int n) {
  Vec a, b;
  int i;
  vec_alloc(&a, n);
  vec_alloc(&b, 1);
  smooth(x, n);
  for (i = 0; i < n; i++) a.data[i] = x[i] * (i + 1);
  vec_square(&a, &b);
  *y = 0.0;
  for (i = 0; i < n; i++) *y += b.data[i] * a.data[i];
  vec_free(&a);
  vec_free(&b);
}
"""
VECTORS_ARGS = [real("x", 4), real("y", 1), integer("n", 4)]

LOOPS = """
#include <stdlib.h>
#include <math.h>
typedef struct { int n; double *data; } Vec;
static void vec_alloc(Vec *v, int n) { v->n = n; v->data = (double *)malloc(n * sizeof(double)); }
static void vec_free(Vec *v) { free(v->data); }
static double vdot(const Vec *a, const Vec *b) {
  int i;
  double s = 0.0;
  for (i = 0; i < a->n; i++) s += a->data[i] * b->data[i];
  return s;
}
/* a block allocated and freed at each iteration, another one replaced halfway */
void loops(double *x, double *y, int n) {
  Vec t, u;
  int i, k;
  *y = 0.0;
  vec_alloc(&u, n);
  for (i = 0; i < n; i++) u.data[i] = cos(x[i]);
  for (k = 0; k < 3; k++) {
    vec_alloc(&t, n);
    for (i = 0; i < n; i++) t.data[i] = x[i] * (k + 1) + u.data[i];
    *y += vdot(&t, &u) * x[k];
    vec_free(&t);
    if (k == 1) {
      vec_free(&u);
      vec_alloc(&u, n);
      for (i = 0; i < n; i++) u.data[i] = sin(x[i]) * *y;
    }
  }
  vec_free(&u);
}
"""


def _interpreted(case: AdjointCase):
    check = case.check()
    assert check.stack_state == 0 and check.error < 1e-12, check.report()


def _compiled(case: AdjointCase, tmp_path):
    if not RUNTIME.is_dir():
        pytest.skip("no runtime")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)   # ASan, UBSan, LeakSanitizer
    assert check.error < 1e-12, check.report()
    assert check.interpreter_error < 1e-13, check.report()


@pytest.mark.parametrize("split", [False, True], ids=["joint", "nocheckpoint"])
def test_helpers_that_allocate_resize_and_free_through_formals(split, tmp_path):
    options = {"nooptim": SPLIT} if split else {}
    case = AdjointCase(VECTORS, "c", "vsum(y)/(x)", VECTORS_ARGS, filename="vsum.c", **options)
    _interpreted(case)
    _compiled(case, tmp_path)


@pytest.mark.parametrize("split", [False, True], ids=["joint", "nocheckpoint"])
def test_blocks_allocated_and_freed_in_loops(split, tmp_path):
    """Each iteration's block is freed by the backward point of its own allocation: the
    free of the iteration after it has put its pointers back. vec_alloc_fwd leaves none of
    its block on the stack: a block it only allocates has no value at its exit."""
    options = {"nooptim": SPLIT} if split else {}
    case = AdjointCase(LOOPS, "c", "loops(y)/(x)", VECTORS_ARGS, filename="loops.c", **options)
    _interpreted(case)
    _compiled(case, tmp_path)
    fwd = case.adjoint.text.split("static void vec_alloc_fwd(Vec *v, Vec_diff *vb, int n) {")[1].split("}")[0]
    assert "Real8Array" not in fwd


def test_a_free_keeps_the_block_and_its_adjoint_for_the_backward_sweep():
    """vec_free(Vec *v) { free(v->data); }: no free in P_fwd, the pointers pushed and popped
    back; the backward point of the malloc frees both blocks."""
    text = adspec.differentiate(VECTORS, head="vsum(y)/(x)", mode="adjoint", lang="c", filename="vsum.c").text
    fwd = text.split("static void vec_free_fwd(Vec *v, Vec_diff *vb) {")[1].split("}")[0]
    bwd = text.split("static void vec_free_bwd(Vec *v, Vec_diff *vb) {")[1].split("}")[0]
    assert "free(" not in fwd and "pushPointer8(v->data);\n    pushPointer8(vb->data);" in fwd
    assert "popPointer8((void**)&vb->data);\n    popPointer8((void**)&v->data);" in bwd and "free(" not in bwd
    alloc_bwd = text.split("static void vec_alloc_bwd(Vec *v, Vec_diff *vb, int n) {")[1].split("}")[0]
    assert "free(vb->data);\n    free(v->data);" in alloc_bwd


def test_calls_that_allocate_are_split_and_the_others_checkpointed():
    """vec_alloc_fwd takes the adjoint structure (it callocs vb->data); smooth, whose Vec is
    its own, is checkpointed: its P_b runs the split helpers' two sweeps."""
    text = adspec.differentiate(VECTORS, head="vsum(y)/(x)", mode="adjoint", lang="c", filename="vsum.c").text
    body = text.split("void vsum_b(")[1]
    assert "vec_alloc_fwd(&a, &ab, n);" in body and "vec_square_fwd(&a, &b, &bb);" in body
    assert "smooth(x, n);" in body and "smooth_b(x, xb, n);" in body
    smooth_b = text.split("static void smooth_b(")[1].split("\n}")[0]
    assert "vec_alloc_fwd(&t, &tb, n);" in smooth_b and "vec_free_bwd(&t, &tb);" in smooth_b


def test_a_formals_pointer_component_has_the_callers_adjoint_component():
    """c29's rotation(Matrix *r, ...) writes r->data[k]: its adjoint reads rb->data[k]."""
    head, _ = CORPUS["c29_skinning.c"]
    text = adspec.differentiate(source("c29_skinning.c"), head=head, mode="adjoint", lang="c",
                                filename="c29_skinning.c").text
    assert "static void rotation_b(Matrix *r, Matrix_diff *rb, double angle, double *angleb, double scale, " \
           "double *scaleb) {" in text
    assert "rb->data[3] = 0.0;" in text and "cb->data[i * c->ncols + j] = 0.0;" in text


def test_the_snapshot_saves_the_block_a_local_component_points_to():
    """mat_mult(&bones[b], &verts, &moved) reads moved.data's block (it writes then
    increments it): the snapshot pushes the block allocated last into moved.data, whole."""
    head, _ = CORPUS["c29_skinning.c"]
    text = adspec.differentiate(source("c29_skinning.c"), head=head, mode="adjoint", lang="c",
                                filename="c29_skinning.c").text
    assert "pushReal8Array(moved.data, 8);" in text and "popReal8Array(moved.data, 8);" in text


@pytest.mark.parametrize("name", ["c29_skinning.c", "c30_skinning_helpers.c"])
@pytest.mark.parametrize("split", [False, True], ids=["joint", "nocheckpoint"])
def test_the_skinning_programs(name, split, tmp_path):
    head, args = CORPUS[name]
    options = {"nooptim": SPLIT} if split else {}
    case = AdjointCase(source(name), "c", head, args, filename=name, **options)
    _interpreted(case)
    _compiled(case, tmp_path)


# --- refusals ------------------------------------------------------------------------------------------
HEAD_FREES = """#include <stdlib.h>
typedef struct { int n; double *data; } Vec;
void drop(Vec *v, double *y) {
  *y = v->data[0] * v->data[1];
  free(v->data);
}
"""
HEAD_ALLOCATES = """#include <stdlib.h>
typedef struct { int n; double *data; } Vec;
void make(Vec *v, double *x, double *y) {
  v->data = (double *)malloc(2 * sizeof(double));
  v->data[0] = *x * *x;
  *y = v->data[0];
}
"""


@pytest.mark.parametrize("text, head, what", [
    (HEAD_FREES, "drop(y)/(v)", "t.c:5: adjoint mode does not support freeing memory that the function does not "
                                "allocate itself yet"),
    (HEAD_ALLOCATES, "make(y)/(x)", "t.c:4: adjoint mode does not support allocating memory for the caller in a "
                                    "procedure that is a head or whose call is checkpointed yet"),
])
def test_a_head_that_frees_or_allocates_its_callers_memory_is_refused(text, head, what):
    """The block's other end (its allocation, its free) is in the caller, which the adjoint
    code does not hold."""
    with pytest.raises(UnsupportedError) as e:
        adspec.differentiate(text, head=head, mode="adjoint", lang="c", filename="t.c")
    assert str(e.value) == what
