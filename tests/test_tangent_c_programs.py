"""C tangent mode on the C that real codes use: the programs of tests/c_tangent_cases.py
(loops, branches, helpers, arrays at offsets, structs by value and by pointer, functions
called in expressions, while/do-while/break/continue, malloc'd work arrays, active initial
values, compound assignments, ternaries, math.h, float), checked by numbers in the
interpreter and compiled with gcc -Wall -Werror; then one minimal regression test per
failure these programs found."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from c_tangent_cases import C_CASES, SINGLE_PRECISION, source
from harness import require_compilers
from tangent_check import STEP, check_tangent

CASE_IDS = [name.removesuffix(".c") for name, _, _ in C_CASES]


@pytest.mark.parametrize("name, head, args", C_CASES, ids=CASE_IDS)
def test_c_program_tangent_matches_divided_differences(name, head, args):
    step, tolerance = SINGLE_PRECISION.get(name, (STEP, 1e-7))
    check = check_tangent(source(name), "c", head, args, filename=name, step=step)
    assert check.max_error < tolerance, check.report()


@pytest.mark.compile
@pytest.mark.parametrize("name, head, args", C_CASES, ids=CASE_IDS)
def test_c_program_tangent_compiles_with_gcc_wall_werror(name, head, args, tmp_path):
    require_compilers("c")
    result = adspec.differentiate(source(name), head=head, lang="c", filename=name)
    out = tmp_path / name.replace(".c", "_d.c")
    out.write_text(result.text)
    built = subprocess.run(["gcc", "-Wall", "-Werror", "-c", out.name], cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr + result.text


def tangent_text(src: str, head: str) -> str:
    return adspec.differentiate(src, head=head, lang="c", filename="t.c").text


def assert_numbers(src: str, head: str, args):
    check = check_tangent(src, "c", head, args)
    assert check.max_error < 1e-7, check.report()


X3 = [("x", "real", (3,), None), ("y", "real", (2,), None), ("n", "int", (), 3)]


# --- regression tests, one per failure found -------------------------------------------------
def test_struct_definitions_are_in_the_differentiated_file():
    src = """struct p { double a; double b; };
static void h(struct p *q, double t) { q->a = q->b * t; }
void f(double *x, double *y, int n) { struct p v; v.b = x[0]; h(&v, x[1]); y[0] = v.a; y[1] = x[2]; }
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "struct p {" in text and "struct p_diff {\n    double a;\n    double b;\n};" in text
    assert "static void h_d(struct p *q, struct p_diff *qd, double t, double td)" in text
    assert_numbers(src, "f(y)/(x)", X3)


def test_conditional_expression_with_active_arms():
    src = """void f(double *x, double *y, int n) {
  y[0] = x[0] > x[1] ? x[0] * x[2] : 2.0;
  y[1] = x[1] < 0.0 ? 1.0 : x[1] * x[1];
}
"""
    assert "yd[0] = x[0] > x[1] ? x[2] * xd[0] + x[0] * xd[2] : 0.0;" in tangent_text(src, "f(y)/(x)")
    assert_numbers(src, "f(y)/(x)", X3)


def test_active_initial_values_keep_declaration_order_and_split_calls():
    src = """static double sq(double v) { return v * v; }
void f(double *x, double *y, int n) {
  double a = x[0] * x[1], b = a * sq(x[2]);
  int k = 2;
  double c = 3.0;
  y[0] = a + b * c;
  y[1] = k * b;
}
"""
    text = tangent_text(src, "f(y)/(x)")
    order = ["double a = ", "double ad = ", "result1d = sq_d(x[2], xd[2], &result1);", "double b = a * result1;",
             "double bd = ", "double c = 3.0;"]
    positions = [text.index(s) for s in order]
    assert positions == sorted(positions), text
    assert "double cd" not in text
    assert_numbers(src, "f(y)/(x)", X3)


def test_nested_c_blocks_keep_their_scope():
    src = """void f(double *x, double *y, int n) {
  { double t = x[0] * x[1]; y[0] = t; }
  { double t = x[2] * 3.0; y[1] = t * t; }
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert text.count("{") == text.count("}") and text.count("    {\n") == 2, text
    assert_numbers(src, "f(y)/(x)", X3)


def test_casts_between_real_types():
    src = """void f(double *x, double *y, int n) {
  float s = (float)x[0];
  y[0] = (double)(s * s) + (int)x[1];
  y[1] = (double)x[2];
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "float sd = (float)xd[0];" in text and "yd[1] = (double)xd[2];" in text
    check = check_tangent(src, "c", "f(y)/(x)", X3, step=1e-2)
    assert check.max_error < 1e-5, check.report()


def test_malloc_work_array_gets_a_zeroed_derivative_freed_with_it():
    src = """#include <stdlib.h>
void f(double *x, double *y, int n) {
  double *w = malloc(n * sizeof(double));
  int i;
  for (i = 0; i < n; i++) w[i] = x[i] * x[i];
  y[0] = w[0] + w[n - 1];
  y[1] = w[1];
  free(w);
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "wd = (double*)calloc(n, sizeof(double));" in text and "free(wd);" in text
    assert_numbers(src, "f(y)/(x)", X3)


def test_pointer_sums_are_element_addresses():
    src = """static void sc(double *v, int m, double a) { int i; for (i = 0; i < m; i++) v[i] = a * v[i]; }
void f(double *u, double x, int n) {
  sc(u + 1, n - 1, x);
  sc((u + 1) + 1, n - 2, x);
  sc(1 + u, 1, u[0]);
}
"""
    text = tangent_text(src, "f(u)/(u x)")
    assert "sc_d(u + 1, ud + 1, n - 1, x, xd);" in text and "sc_d(u + (1 + 1), ud + (1 + 1)" in text
    assert_numbers(src, "f(u)/(u x)", [("u", "real", (4,), None), ("x", "real", (), None), ("n", "int", (), 4)])


def test_pointer_sum_prints_back_as_written():
    from adspec.backends import unparse
    src = "void f(double *u, double *v, int n) {\n    g(u + n, v);\n}\n"
    assert "g(u + n, v);" in unparse(adspec.parse(src, lang="c", filename="t.c"), "c")


def test_unrecognised_pointer_argument_is_refused_not_given_a_dummy():
    """A pointer actual that is no access path (here a conditional) used to get a scalar zero
    dummy derivative: wrong code. It is refused."""
    src = """static void sc(double *v, int m, double a) { int i; for (i = 0; i < m; i++) v[i] = a * v[i]; }
void f(double *u, double x, int n) {
  sc(u, n, x);
  sc(n > 2 ? u : u + 1, 2, x);
}
"""
    with pytest.raises(UnsupportedError, match=r"t\.c:4: a pointer argument \(1 of sc\).*is not supported yet"):
        tangent_text(src, "f(u)/(u x)")


def test_float_checks_need_the_single_precision_tolerance():
    """The float program's error with the double-precision step is float rounding, not a wrong
    derivative: the larger step brings it under the float tolerance."""
    name, head, args = next(c for c in C_CASES if c[0] in SINGLE_PRECISION)
    step, tolerance = SINGLE_PRECISION[name]
    assert check_tangent(source(name), "c", head, args, step=step).max_error < tolerance
    assert np.isfinite(check_tangent(source(name), "c", head, args).max_error)


def test_zero_derivative_of_a_double_field_is_a_double_zero():
    src = """struct c { double a; float b; };
void f(double *x, double *y, int n) {
  struct c v;
  v.a = 2.0;
  v.b = 1.0f;
  if (n > 2) { v.a = x[0]; v.b = (float)x[1]; }
  y[0] = v.a * v.b;
  y[1] = x[2];
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "vd.a = 0.0;" in text and "vd.b = 0.0f;" in text, text


def test_float_partials_stay_in_float():
    src = """#include <math.h>
void f(double *x, double *y, int n) {
  y[0] = x[0] * expf((float)x[1]);
  y[1] = x[2];
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "float temp;" in text and "temp = expf((float)x[1]);" in text, text
    assert "temp * (float)xd[1]" in text


def test_c_math_call_shared_by_derivative_and_value():
    """C's exp may set errno, so the compiler calls it twice when the derivative and the value
    both name it: the tangent calls it once, into a temporary, before both."""
    src = """#include <math.h>
void f(double *x, double *y) {
  *y = *y + exp(x[0]) + fabs(x[1]);
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert text.count("exp(") == 1 and "temp = exp(x[0]);" in text, text
    assert "*y = *y + temp + fabs(x[1]);" in text and "temp * xd[0]" in text


def test_struct_result_temporaries_have_the_struct_type_and_its_diff():
    text = tangent_text(source("c15_struct_return.c"), "cpoly(y)/(x)")
    assert "    cplx result1;\n    cplx_diff result1d;\n" in text and "float result1" not in text


def test_struct_formal_reset_at_entry_field_by_field():
    """`bd = 0.0f` on a whole struct was invalid C and zeroed active fields too."""
    src = """typedef struct { double re; double im; } cplx;
static double dot(cplx a, cplx b) { return a.re * b.re + a.im * b.im; }
void f(double *x, double *y, int n) {
  cplx a, b;
  a.re = x[0]; a.im = x[1]; b.re = x[2]; b.im = 1.0;
  y[0] = dot(a, b); y[1] = x[2];
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "bd.im = 0.0;" in text and "bd = " not in text, text
    assert_numbers(src, "f(y)/(x)", X3)


def test_function_value_dropped_still_passes_a_result_pointer():
    text = tangent_text(source("c16_passive_and_dropped_calls.c"), "branches(y)/(x)")
    assert "logged_d(&y[1], &yd[1], arg10, arg10d, &result10);" in text, text


def test_passively_called_static_function_is_copied_and_its_unused_derivative_left_out():
    text = tangent_text(source("c16_passive_and_dropped_calls.c"), "branches(y)/(x)")
    assert "static double sq(double v) {" in text and "sq_d" not in text
    src = "double sq(double v) { return v * v; }\nvoid f(double *x, double *y, int n) {\n" \
          "  if (sq(x[0]) > 1.0) y[0] = x[1]; else y[0] = x[2];\n  y[1] = x[0];\n}\n"
    assert "double sq(double v);" in tangent_text(src, "f(y)/(x)")


def test_pointer_field_of_a_struct_argument_is_refused_not_ignored():
    """The callee's reads through `v.data` were not matched with what the caller's `v.data`
    points to: the derivative was silently zero. The analyses now see them; the derivative
    of such a structure is refused."""
    src = """struct vec { double *data; int n; };
static double total(struct vec v) { double s = 0.0; int i; for (i = 0; i < v.n; i++) s += v.data[i] * v.data[i]; return s; }
void f(double *x, double *y, int n) {
  struct vec v;
  v.data = x; v.n = n;
  y[0] = total(v); y[1] = x[0];
}
"""
    with pytest.raises(UnsupportedError, match=r"t\.c:\d+: the derivative of v .*is not supported yet"):
        tangent_text(src, "f(y)/(x)")


def test_local_pointer_walking_an_array_moves_its_derivative_pointer():
    """`double *p = x; ... p++` was refused; p now has pd, moved with it (4.2)."""
    src = """void f(double *x, double *y, int n) {
  double *p = x;
  double s = 0.0;
  double *ps = &s;
  int i;
  for (i = 0; i < n; i++) { *ps += *p * *p; p++; }
  y[0] = s; y[1] = x[0];
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "double *pd = xd;" in text and "double *psd = &sd;" in text and "pd = pd + 1;" in text, text
    assert_numbers(src, "f(y)/(x)", X3)


def test_end_pointer_only_compared_gets_no_derivative():
    text = tangent_text(source("c17_pointer_walk.c"), "walk(y)/(a x)")
    assert "const double *xe = x + m;" in text and "xed" not in text


def test_pointer_value_with_no_matching_derivative_pointer_is_refused():
    src = """void f(double *x, double *y, int n) {
  double *p;
  p = n > 1 ? x : x + 1;
  y[0] = *p * *p; y[1] = x[0];
}
"""
    with pytest.raises(UnsupportedError, match=r"t\.c:3: this value of a pointer to active memory is not supported yet"):
        tangent_text(src, "f(y)/(x)")


def test_null_pointer_initial_value_has_a_null_derivative_pointer():
    src = """#include <stddef.h>
void f(double *x, double *y, int n) {
  double *p = NULL;
  if (n > 2) p = x + 1; else p = x;
  y[0] = *p * p[1]; y[1] = x[0];
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "double *pd = 0;" in text and "pd = xd + 1;" in text, text
    assert_numbers(src, "f(y)/(x)", X3)


def test_more_math_h_functions():
    """exp2, log2, asinh, acosh, atanh, copysign, round and trunc were read as external calls
    (refused) or had no derivative."""
    src = """#include <math.h>
void f(double *x, double *y, int n) {
  y[0] = exp2(x[0]) + log2(x[1]) + asinh(x[2]) + acosh(1.0 + x[0]) + atanh(0.5 * x[1]);
  y[1] = copysign(x[1], -1.0) + round(x[2]) * x[0] + trunc(2.5 * x[1]) + log2f((float)x[2]) * 1e-9;
}
"""
    assert_numbers(src, "f(y)/(x)", X3)


# --- issue 17: pointers stored in struct fields --------------------------------------------------
MATRIX = "#include <stdlib.h>\ntypedef struct { int nrows, ncols; double *data; } Matrix;\n"


def test_matrix_derivative_holds_the_data_pointer_allocated_next_to_the_primal():
    """Tapenade's model: Matrix_diff { double *data; }, its data calloc'd where the primal's is
    malloc'd and freed with it; vector mode points it to rows of directions."""
    text = tangent_text(source("c28_struct_pointer_field.c"), "fieldptr(y)/(x)")
    assert "typedef struct {\n    double *data;\n} Matrix_diff;" in text
    assert "Matrix_diff ad, rowsd[2];" in text
    assert "a.data = (double*)malloc(n * sizeof(double));\n    ad.data = (double*)calloc(n, sizeof(double));" in text
    assert "free(rows[k].data);\n        free(rowsd[k].data);" in text   # a loop of frees only, differentiated
    vector = adspec.differentiate(source("c28_struct_pointer_field.c"), head="fieldptr(y)/(x)", mode="vector",
                                  lang="c", filename="c28.c").text
    assert "typedef struct {\n    double (*data)[NBDirsMax];\n} Matrix_diff;" in vector
    assert "ad.data = (double (*)[NBDirsMax])calloc(n, sizeof(double[NBDirsMax]));" in vector


@pytest.mark.parametrize("body, line, what", [
    # a helper returns the data it allocates: nothing allocates the derivative's
    ("static double *alloc(int n) { double *p = (double *)malloc(n * sizeof(double)); return p; }\n"
     "void f(double *x, double *y, int n) {\n  Matrix a;\n  a.data = alloc(2);\n  a.data[0] = x[0] * x[0];\n"
     "  y[0] = a.data[0];\n  free(a.data);\n}\n", 4, "the derivative of a"),
    # a helper returns a Matrix it allocates: no derivative comes back with it
    ("static Matrix *fresh(int n) { Matrix *m = (Matrix *)malloc(sizeof(Matrix));\n"
     "  m->data = (double *)malloc(n * sizeof(double)); return m; }\n"
     "void f(double *x, double *y, int n) {\n  Matrix *a = fresh(2);\n  a->data[0] = x[0] * x[0];\n"
     "  y[0] = a->data[0];\n  free(a->data);\n  free(a);\n}\n", 5,
     "the derivative of a, pointing to a structure that fresh returns"),
    # the data of a struct points to an argument's memory: not yet
    ("void f(double *x, double *y, int n) {\n  Matrix a;\n  a.data = x;\n  y[0] = a.data[0] * a.data[1];\n}\n",
     3, "the derivative of a"),
], ids=["data-returned-by-a-callee", "matrix-returned-by-a-callee", "pointing-to-an-argument"])
def test_matrix_whose_data_the_tangent_cannot_give_a_derivative_is_refused_with_its_line(body, line, what):
    """Before: silently zero derivatives (the callee's allocation not seen). Now a refusal at
    the line, never wrong numbers."""
    with pytest.raises(UnsupportedError) as e:
        tangent_text(MATRIX + body, "f(y)/(x)")
    assert e.value.line == line and what in e.value.message and "not supported yet" in e.value.message, str(e.value)


def test_matrix_data_a_helper_allocates_gets_its_derivative_allocated_by_the_helper_derivative():
    """alloc(&a, 2) sets a.data: alloc_d(&a, &ad, 2) calloc's ad.data too (before: the
    callee's allocation was not seen, and the derivative was silently zero)."""
    src = MATRIX + """static void alloc(Matrix *m, int n) { m->data = (double *)malloc(n * sizeof(double)); }
static void release(Matrix *m) { free(m->data); }
void f(double *x, double *y, int n) {
  Matrix a;
  alloc(&a, 2);
  a.data[0] = x[0] * x[1];
  a.data[1] = x[2] * a.data[0];
  y[0] = a.data[0] + a.data[1];
  y[1] = x[1];
  release(&a);
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "m->data = (double*)malloc(n * sizeof(double));\n    md->data = (double*)calloc(n, sizeof(double));" in text
    assert "alloc_d(&a, &ad, 2);" in text and "release_d(&a, &ad);" in text and "free(md->data);" in text
    assert_numbers(src, "f(y)/(x)", X3)


def test_struct_copied_from_a_passive_struct_is_zeroed_component_by_component(tmp_path):
    """acc = one with `one` passive: accd's components are zeroed one by one (it was `accd =
    0.0f`, which C does not compile), and the tangent is right."""
    src = """typedef struct { double re, im; } cplx;
typedef struct { cplx z; double w; } pair;
void f(double *x, double *y) {
    cplx one, acc;
    pair p, q;
    one.re = 1.0; one.im = 0.0;
    acc = one;
    acc.re = acc.re * x[0];
    acc.im = acc.im + x[1] * acc.re;
    q.z = one; q.w = 2.0;
    p = q;
    p.w = p.w * x[1];
    y[0] = acc.re + acc.im + p.w;
}
"""
    text = tangent_text(src, "f(y)/(x)")
    assert "accd.re = 0.0;" in text and "accd.im = 0.0;" in text and "pd.z.re = 0.0;" in text, text
    assert_numbers(src, "f(y)/(x)", [("x", "real", (2,), None), ("y", "real", (1,), None)])
    require_compilers("c")
    (tmp_path / "t_d.c").write_text(text)
    built = subprocess.run(["gcc", "-Wall", "-Werror", "-c", "t_d.c"], cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr + text
