"""Adjoint mode on forms of C the corpus once refused (issue 16, C side): declarations inside
nested blocks (hoisted to the procedure, A-decl-nested), conditional expressions
(A-expr-choice), for loops whose test is no plain `i < n`, functions returning a struct
(A-return-struct; the caller's temporary of type T and its adjoint of type T_diff), frees of
a helper's passive memory (A-free-deferred: under ASan, the backward sweep reads no freed
block), pointer components of local structures set by the function's own mallocs (their
adjoint components calloc'd alongside, c28). Each program passes the
dot-product test <Ẋ, X̄> = <Ẏ, Ȳ> against the tangent in the interpreter with the stack empty
at the end, and compiled with gcc -O2 then once more under ASan/UBSan."""
from __future__ import annotations

import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adjoint_check import RUNTIME, AdjointCase
from c_tangent_cases import C_CASES, SINGLE_PRECISION, integer, real, source

CORPUS = {name: (head, args) for name, head, args in C_CASES}
TAKEN = ["c04_struct_value_pointer.c", "c09_local_init.c", "c12_float.c", "cj01_goto_targets.c",
         "c20_struct_function_nested.c", "c25_struct_diff_types.c", "c27_typed_pointer_targets.c",
         "c28_struct_pointer_field.c"]

CHOICES = """
#include <math.h>
/* conditional expressions with active arms: assigned, on the lhs's own variable, inside an
   operation, in a declaration, an arm passive, nested, a function's value */
double tern(double *x, double a, double *y, int n) {
  int i;
  double s = 1.0;
  for (i = 0; i < n; ++i) {
    s += x[i] * a;
    s = s > 0.2 ? s * a : -s + x[i];
  }
  y[0] = s > 0.0 ? s * a : -s;
  y[1] = x[0] < x[1] ? x[1] : 2.0;
  y[1] += (a > 0.0) ? a * x[0] : 1.0;
  double t = 2.0 * (x[2] > 0.0 ? sin(x[2]) : x[2] * x[1]) + (a < 0.0 ? 1.0 : (x[0] > 0.0 ? x[0] : a));
  return t * y[1];
}
"""
CHOICES_ARGS = [real("x", 3), real("a"), real("y", 2), integer("n", 3)]

BLOCKS = """
#include <math.h>
/* nested blocks: two sibling blocks declare the same t, a block declares an array and a
   const, values overwritten at each iteration and read by the backward sweep */
void blocks(double *x, double *y, int n) {
  int i;
  double s = 1.0;
  for (i = 0; i < n; i++) {
    if (x[i] > 0.0) {
      double t = x[i] * s;
      s = s + t * t;
    } else {
      double t = sin(x[i]), u;
      u = t * s;
      s = s * t + u * u;
    }
    {
      double v[2];
      const double c = 0.5 * s;
      v[0] = c * x[i];
      v[1] = v[0] * c;
      s = v[1] + s;
    }
  }
  *y = s;
}
"""
BLOCKS_ARGS = [real("x", 4), real("y", 1), integer("n", 4)]

SHADOW = """
void shadow(double *x, double *y) {
  double t = x[0];
  {
    double t = x[1] * x[1];
    *y = t;
  }
  *y = *y + t * t;
}
"""

STRIDE_TEST = """
/* the test reads i + 1, the stride is 2, the trip count n / 2 rounded down */
void pairs(double *u, double *r, int n) {
  int i;
  *r = 0.0;
  for (i = 0; i + 1 < n; i += 2)
    *r += u[i] * u[i + 1] * u[i];
  for (i = n - 1; 2 * i >= n && *r > -1e30; i -= 3)
    *r = *r * u[i];
}
"""


def _tolerance(name: str) -> float:
    return SINGLE_PRECISION[name][1] if name in SINGLE_PRECISION else 1e-12  # float's round-off


def _interpreted(case: AdjointCase, tolerance: float = 1e-12):
    check = case.check()
    assert check.stack_state == 0 and check.error < tolerance, check.report()
    return check


def _compiled(case: AdjointCase, tmp_path, tolerance: float = 1e-12):
    if not RUNTIME.is_dir():
        pytest.skip("no runtime")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < tolerance, check.report()
    assert check.interpreter_error < max(tolerance, 1e-13), check.report()


@pytest.mark.parametrize("name", TAKEN)
def test_corpus_program_compiled(name, tmp_path):
    head, args = CORPUS[name]
    case = AdjointCase(source(name), "c", head, args, filename=name)
    _interpreted(case, _tolerance(name))
    _compiled(case, tmp_path, _tolerance(name))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_conditional_expressions(seed):
    _interpreted(AdjointCase(CHOICES, "c", "tern(tern y)/(x a)", CHOICES_ARGS, seed=seed, filename="tern.c"))


def test_conditional_expressions_compiled(tmp_path):
    _compiled(AdjointCase(CHOICES, "c", "tern(tern y)/(x a)", CHOICES_ARGS, filename="tern.c"), tmp_path)


def test_the_backward_sweep_takes_the_arm_the_value_took():
    """The adjoint evaluates the condition again: `if (s > 0.0)` routes yb[0] to s*a's
    leaves, else to -s; an adjoint that ignored the condition would add both."""
    text = adspec.differentiate(CHOICES, head="tern(tern y)/(x a)", mode="adjoint", lang="c").text
    backward = text.split("double tb = 0.0;")[1]   # the last statement of the forward sweep
    assert "if (s > 0.0) {" in backward and "sb = sb - yb[0];" in backward and " ? " not in backward


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_nested_declarations(seed, tmp_path):
    case = AdjointCase(BLOCKS, "c", "blocks(y)/(x)", BLOCKS_ARGS, seed=seed, filename="blocks.c")
    _interpreted(case)
    if seed == 1:
        _compiled(case, tmp_path)


def test_a_nested_declaration_pushes_what_the_next_iteration_overwrites():
    """t of one iteration is read by the backward sweep of that iteration: pushed before the
    next iteration's declaration overwrites it."""
    text = adspec.differentiate(BLOCKS, head="blocks(y)/(x)", mode="adjoint", lang="c").text
    assert "pushReal8(t);" in text and "popReal8(&t);" in text
    assert "double tb = 0.0;" in text and text.count("double t;") == 1   # the siblings' t is one variable


def test_a_nested_declaration_that_shadows_is_refused():
    with pytest.raises(UnsupportedError) as e:
        adspec.differentiate(SHADOW, head="shadow(y)/(x)", mode="adjoint", lang="c", filename="shadow.c")
    assert str(e.value) == ("shadow.c:5: adjoint mode does not support a declaration of t inside a nested block "
                            "where the function knows another t yet")


@pytest.mark.parametrize("n", [4, 5, 6, 1])
def test_for_loops_with_other_tests(n, tmp_path):
    """`i + 1 < n` with stride 2 (odd and even n) and a test on two conditions counting down
    by 3: the backward loops run the forward loops' iterations."""
    case = AdjointCase(STRIDE_TEST, "c", "pairs(r)/(u)", [real("u", 6), real("r", 1), integer("n", n)],
                       filename="pairs.c")
    _interpreted(case)
    if n == 5:
        _compiled(case, tmp_path)


COUNTED_FOR = """
#include <math.h>
/* for loops whose indices the backward loop cannot replay, their trips counted (A-for-counted):
   two indices meeting in the middle (the callee's writes through v bounded by them, so the
   caller saves v[0..n-1] around the call), a stride read from the data, a body that moves
   its index */
static void fold(double *v, int n) {
  int i, j;
  double t;
  for (i = 0, j = n - 1; i < j; i++, j--) {
    t = v[i] * v[j], v[i] = sin(v[j]) + t, v[j] = t;
  }
}
void counted(double *x, double *y, int n) {
  int i, k, lo, hi;
  double s = 0.0;
  for (lo = 0, hi = n - 1; lo <= hi; ++lo, --hi)
    s += x[lo] * cos(x[hi] * s);
  fold(x, n);
  k = 1 + (x[0] > 1.0);
  for (i = 0; i < n; i += k)
    s = s * x[i] + sin(s);
  for (i = 0; i < n; i++) {
    s = s + x[i] * x[i];
    if (s > 3.0)
      i = i + 1;
  }
  *y = s * x[1];
}
"""


@pytest.mark.parametrize("n", [5, 6, 1])
def test_for_loops_counted(n, tmp_path):
    """Each backward loop runs the forward loop's trips from the count it pushed, popping
    the indices the step overwrote. Replaying from the last index value (A-for) would take
    the wrong trips of the loop that moves its index, and give lo and hi nothing."""
    case = AdjointCase(COUNTED_FOR, "c", "counted(y x)/(x)", [real("x", 6), real("y", 1), integer("n", n)],
                       filename="counted.c")
    _interpreted(case)
    text = case.adjoint.text
    assert text.count("pushInteger4(ad_count") >= 4 and "pushReal8Array(x, n);" in text, text
    if n == 5:
        _compiled(case, tmp_path)


COUNTED_FORMS = """
#include <math.h>
/* counted loops declaring their two indices (hoisted, in an outer loop), without an init,
   halving their index */
void forms(double *x, double *y, int n) {
  int i = 1, k;
  double s = 1.0;
  for (k = 0; k < 2; k++) {
    for (int a = 0, b = n - 1; a < b; a++, b--)
      s = s * cos(x[a] * s) + x[b];
  }
  for (; i < n; i++)
    s = s + sin(s * x[i]);
  for (i = n - 1; i > 0; i = i / 2)
    s = s * x[i];
  *y = s;
}
"""


def test_for_loops_counted_other_forms(tmp_path):
    case = AdjointCase(COUNTED_FORMS, "c", "forms(y)/(x)", [real("x", 7), real("y", 1), integer("n", 7)],
                       filename="forms.c")
    _interpreted(case)
    _compiled(case, tmp_path)


STRUCT_RESULT = """
#include <math.h>
/* a struct returned, assigned, passed on by value to another call, in a loop (its
   temporary saved), a passive struct where an adjoint is expected */
typedef struct { double re; double im; int tag; } cplx;
static cplx cmul(cplx a, cplx b) {
  cplx r;
  r.re = a.re * b.re - a.im * b.im;
  r.im = a.re * b.im + a.im * b.re;
  r.tag = a.tag;
  return r;
}
static double cabs2(cplx a) {
  return a.re * a.re + a.im * a.im;
}
void cpow(double *x, double *y, int n) {
  cplx z, acc, one;
  int k;
  z.re = x[0];
  z.im = x[1];
  z.tag = 1;
  one.re = 1.0;
  one.im = 0.0;
  acc.re = 1.0;
  acc.im = 0.0;
  for (k = 0; k < n; k++) {
    acc = cmul(acc, cmul(z, z));
    z.re = z.re * x[2];
  }
  *y = cabs2(acc) + cabs2(cmul(one, z));
}
"""


def test_struct_results(tmp_path):
    case = AdjointCase(STRUCT_RESULT, "c", "cpow(y)/(x)", [real("x", 3), real("y", 1), integer("n", 3)],
                       filename="cpow.c")
    _interpreted(case)
    _compiled(case, tmp_path)


STRUCT_INITS = """
#include <math.h>
/* structs declared with active initial values (a struct-valued call, a copy, a component
   of an array of structs) between statements, and a by-value struct formal that its
   function writes while the caller still reads the actual (its adjoint a local copy) */
typedef struct { double x, y; int tag; } vec2;
static vec2 make(double x, double y) {
  vec2 v;
  v.x = x * y;
  v.y = sin(y);
  v.tag = 0;
  return v;
}
static vec2 scaled(vec2 a, double k) {
  a.x = a.x * k;
  a.y = a.y * a.x;
  return a;
}
double inits(double *p, double *q) {
  double s = p[0] * p[1];
  vec2 u = make(p[0], s), w = make(p[2], p[1]);
  q[0] = u.x;
  vec2 v = u, arr[2];
  arr[0] = w;
  arr[1] = scaled(w, p[3]);
  vec2 z = arr[1];
  v.y = v.y * z.x;
  q[1] = v.y + arr[0].x * w.y;
  return u.x * v.y + z.y * w.x;
}
"""
STRUCT_INITS_ARGS = [real("p", 4), real("q", 2)]


@pytest.mark.parametrize("seed", [1, 2])
def test_structs_declared_with_active_initial_values(seed, tmp_path):
    """A-decl-struct-init: each declaration becomes its declaration and the assignments of
    its initial values (struct copies component by component). scaled's a is written while
    inits still reads w: a_b adds into a local adjoint, given to the caller's at the end
    (adding into the caller's directly counted wb's earlier increments twice)."""
    case = AdjointCase(STRUCT_INITS, "c", "inits(inits q)/(p)", STRUCT_INITS_ARGS, seed=seed, filename="inits.c")
    _interpreted(case)
    text = case.adjoint.text
    assert "vec2_diff ab = {0};" in text and "ab0->x = ab0->x + ab.x;" in text, text
    assert "    vec2 v, arr[2];" in text, text
    if seed == 1:
        _compiled(case, tmp_path)


def test_a_struct_declared_with_an_active_brace_list_is_refused():
    source_text = ("typedef struct { double x, y; } v2;\n"
                   "double f(double *p) {\n  v2 u = {p[0], p[1]};\n  return u.x * u.y;\n}\n")
    with pytest.raises(UnsupportedError, match=r"f\.c:3: adjoint mode does not support a structure declared with an "
                                               r"active initial value in braces yet"):
        adspec.differentiate(source_text, head="f(f)/(p)", mode="adjoint", lang="c", filename="f.c")


def test_a_struct_result_adjoint_is_of_the_diff_type():
    """cmul_b gets the adjoint of its value last, by value, of type cplx_diff (no tag), and
    passes it into r component by component; the caller's temporaries are typed alike."""
    text = adspec.differentiate(STRUCT_RESULT, head="cpow(y)/(x)", mode="adjoint", lang="c").text
    assert "static void cmul_b(cplx a, cplx_diff *ab, cplx b, cplx_diff *bb, cplx_diff cmulb) {" in text
    assert "rb.re = rb.re + cmulb.re;" in text and "rb.im = rb.im + cmulb.im;" in text
    assert "cplx_diff cmul_resultb;" in text and "cmulb.tag" not in text


FREES = """
#include <stdlib.h>
/* a helper's blocks freed here: the backward sweep still reads the indices in them */
typedef struct { int n; int *idx; } Index;
static Index *new_index(int n) {
  Index *m = (Index *)malloc(sizeof(Index));
  m->n = n;
  m->idx = (int *)malloc(n * sizeof(int));
  return m;
}
void perm(double *x, double *y, int n) {
  Index *order;
  int i;
  order = new_index(n);
  for (i = 0; i < n; i++) order->idx[i] = (i + 2) % n;
  *y = 0.0;
  for (i = 0; i < n; i++) *y += x[order->idx[i]] * x[i] * x[order->idx[i]];
  free(order->idx);
  free(order);
}
"""


def test_frees_of_a_helpers_memory_wait_for_the_end_of_the_backward_sweep(tmp_path):
    case = AdjointCase(FREES, "c", "perm(y)/(x)", [real("x", 4), real("y", 1), integer("n", 4)], filename="perm.c")
    _interpreted(case)
    _compiled(case, tmp_path)   # ASan: a free in the forward sweep would be a use after free
    body = case.adjoint.text.split("perm_b")[1]
    assert body.rstrip().endswith("free(ad_free);\n    free(ad_free0);\n}") and "free(order" not in body


COMPONENT_ALIAS = """
typedef struct { int n; double *data; } Vec;
void alias(double *x, double *y) {
  Vec a;
  a.n = 2;
  a.data = x;
  *y = a.data[0] * a.data[1];
}
"""


def test_a_pointer_component_the_function_does_not_allocate_is_refused():
    """a.data = x: the adjoint component ab.data would have to point into xb, which no
    calloc sets; refused at its line, never differentiated through a null adjoint."""
    with pytest.raises(UnsupportedError) as e:
        adspec.differentiate(COMPONENT_ALIAS, head="alias(y)/(x)", mode="adjoint", lang="c", filename="alias.c")
    assert str(e.value) == ("alias.c:7: adjoint mode does not support the adjoint of the pointer component data "
                            "of a structure yet")


NESTED_BRACES = """
struct pt { double x; double y; int id; };
struct seg { struct pt a; struct pt b; double len; };
void f(double *out) {
  struct seg s = {0};
  struct seg t = {1.0, 2.0, 3, 4.0};
  out[0] = s.a.x + s.b.y + s.len + s.a.id;
  out[1] = t.a.x + 10.0 * t.a.y + 100.0 * t.a.id + 1000.0 * t.b.x + 10000.0 * t.len;
}
"""


def test_the_interpreter_fills_nested_structs_from_flat_braces():
    """`{0}` zeroes a struct of structs (the adjoints' initial value, A-decl); C fills the
    components in memory order where the braces are left out."""
    import numpy as np
    from adspec.engine.interp import Interpreter
    out = np.zeros(2)
    Interpreter(adspec.parse(NESTED_BRACES, lang="c", filename="b.c")).call("f", [out])
    assert list(out) == [0.0, 1.0 + 20.0 + 300.0 + 4000.0]
