"""Arrays of unknown size around calls in adjoint mode (issue 16: "whatever a callee
overwrites and the backward sweep needs is pushed whole, or as the exact section that was
overwritten"). A C pointer (or a Fortran assumed-size array) is saved as the sections the
callee may write through it, from the callee's array-region summary (analyses/regions.py)
translated to the actuals; a passive array passed where the callee takes an adjoint gets a
zeroed temporary adjoint array. Each program is proven by the dot-product test in the
interpreter and compiled (gcc -O2, then ASan/UBSan; gfortran -fcheck=all), which is what
shows the pushed sizes right."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import adspec
from adspec.analyses.regions import Affine, Regions
from adspec.engine.errors import UnsupportedError
from adspec.engine.il import Node
from adjoint_check import RUNTIME, AdjointCase
from c_tangent_cases import C_CASES, source
import test_tangent_programs as T

HERE = Path(__file__).resolve().parent / "adjoint_programs"
TOL = 1e-12
SPLIT = frozenset({"checkpoint"})
CORPUS = {name: (head, args) for name, head, args in C_CASES}
CORPUS.update({T.program_path(p.values[0]).name: (p.values[1], p.values[2]) for p in T.PROGRAMS})
# the tangent-corpus programs this slice takes (refused before it)
TAKEN = ["c02_static_helper.c", "c13_rows_stencil.c", "c16_passive_and_dropped_calls.c", "c17_pointer_walk.c",
         "c21_state_time_loop.c",
         "c22_struct_state.c", "c23_helper_work_pointer.c", "p42_helper_work_assumed_size.f90",
         "l06_sequence_association.f", "l05_assumed_shape_interface.f90"]


def band_args(lang: str) -> list:
    """u(7), x(2), y (C: a pointer to one double) and n = 7."""
    y = (1,) if lang == "c" else ()
    return [("u", "real", (7,), None), ("x", "real", (2,), None), ("y", "real", y, None), ("n", "int", (), 7)]


def corpus_case(name: str, **options) -> AdjointCase:
    head, args = CORPUS[name]
    lang = "c" if name.endswith(".c") else "fortran"
    text = source(name) if lang == "c" else (T.HERE / name).read_text()
    return AdjointCase(text, lang, head, args, filename=name, **options)


def band_case(name: str, **options) -> AdjointCase:
    lang = "c" if name.endswith(".c") else "fortran"
    return AdjointCase((HERE / name).read_text(), lang, "band(y)/(u x)", band_args(lang), filename=name, **options)


def checked(case: AdjointCase):
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()
    return check


def compiled(case: AdjointCase, tmp_path):
    if not RUNTIME.is_dir():
        pytest.skip("no runtime")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL, check.report()
    assert check.interpreter_error < 1e-13, check.report()


@pytest.mark.parametrize("name", TAKEN)
def test_taken_program_compiled(name, tmp_path):
    """Interpreted and compiled, sanitizers on: the sections pushed are inside the arrays."""
    case = corpus_case(name)
    checked(case)
    compiled(case, tmp_path)


# under -nocheckpoint, still refused: a C function called split that returns before its last
# statement; an assumed-shape y saved by P_fwd at its exit; the walked formal x of axpy_row,
# whose sections P_fwd would save at its exit after the walk
SPLIT_REFUSED = {"c16_passive_and_dropped_calls.c": "a C function called in split mode",
                 "l05_assumed_shape_interface.f90": "saving the array y around a call",
                 "c17_pointer_walk.c": "saving the array x around a call"}


@pytest.mark.parametrize("name", TAKEN)
def test_taken_program_nocheckpoint(name):
    """-nocheckpoint: differentiated and right, or refused with file:line where listed."""
    if name in SPLIT_REFUSED:
        with pytest.raises(UnsupportedError, match=rf"{re.escape(name)}:\d+: adjoint mode does not support "
                                                   rf"{SPLIT_REFUSED[name]}"):
            corpus_case(name, nooptim=SPLIT)
        return
    checked(corpus_case(name, nooptim=SPLIT))


# --- the exact section --------------------------------------------------------------------------
def _sections_shrunk(node):
    """Each pushReal8Array/popReal8Array of length k made of length k - 1."""
    if isinstance(node, tuple):
        return tuple(_sections_shrunk(k) for k in node)
    if not isinstance(node, Node):
        return node
    if node.op == "call" and node.kids[0] in ("pushReal8Array", "popReal8Array"):
        start, count = node.kids[1]
        node = Node("call", (node.kids[0], (start, Node("sub", (count, Node("intCst", (1, None)))))), node.ann)
    return Node(node.op, tuple(_sections_shrunk(k) for k in node.kids), node.ann)


def test_section_written_by_the_callee_is_pushed_exactly(tmp_path):
    """bend(u, 2, 3, a) overwrites u[2..4] and bend(u + 1, 0, 2, a) u[1..2] of the caller's
    u, whose size band does not know; band reads u afterwards. The snapshots are exactly
    those sections. One element fewer and the gradient is wrong: the test can fail."""
    case = band_case("section.c")
    text = case.adjoint.text
    assert "pushReal8Array(u + 2, 3);\n    bend(u, 2, 3, x[1]);" in text, text
    assert "pushReal8Array(u + 1, 2);\n    bend(u + 1, 0, 2, x[0]);" in text, text
    assert "popReal8Array(u + 1, 2);\n    bend_b(u + 1, &ub[1], 0, 2, x[0], &xb[0]);" in text, text
    checked(case)
    compiled(case, tmp_path)
    case.adjoint_file = _sections_shrunk(case.adjoint_file)
    assert case.check().error > 1e-6


def test_own_allocation_pushed_whole(tmp_path):
    """walkfill walks its array with a pointer (no region), on the caller's own malloc'd w:
    the snapshot of that memory (heap@13) is the whole allocation, w[0..n-1]."""
    case = AdjointCase((HERE / "own_work.c").read_text(), "c", "own(y)/(x)",
                       [("x", "real", (4,), None), ("y", "real", (1,), None), ("n", "int", (), 4)],
                       filename="own_work.c")
    assert "pushReal8Array(w, n);\n    }\n    walkfill(w, n, x[0]);" in case.adjoint.text, case.adjoint.text
    checked(case)
    compiled(case, tmp_path)
    case.adjoint_file = _sections_shrunk(case.adjoint_file)
    assert case.check().error > 1e-6


@pytest.mark.parametrize("name", ["section.c", "section.f90"])
def test_section_under_nocheckpoint(name, tmp_path):
    """Split mode: P_fwd saves at its exit what of its own array formal it reads or writes,
    the section w(k:k+m-1) of the assumed-size w, its length m known to P_bwd."""
    case = band_case(name, nooptim=SPLIT)
    if name.endswith(".f90"):
        assert re.search(r"call pushreal8array\(w\(k:k \+ m - 1\), m\)", case.adjoint.text), case.adjoint.text
    checked(case)
    compiled(case, tmp_path)


def test_bounds_read_from_changed_variables_are_pushed():
    """relax_row(u + i * n, ...) in a loop over i: the section u + (i*n + 1), n - 2 is popped
    after i (saved with the snapshot) is restored, so its bounds are the forward sweep's."""
    text = corpus_case("c13_rows_stencil.c").adjoint.text
    push = text.index("pushReal8Array(u + (i * n + 1), n - 2)")
    assert push < text.index("pushInteger4(i);", push), text
    pop = text.index("popReal8Array(u + (i * n + 1), n - 2)")
    assert text.index("popInteger4(&i);") < pop, text


# --- the region summaries ----------------------------------------------------------------------
def _regions(text: str, lang: str = "c"):
    from adspec.frontends import parse_source
    from adspec.engine.program import build_program
    return Regions(build_program([parse_source(text, "r.c" if lang == "c" else "r.f90")]))


def _show(intervals):
    return [(lo.node(), hi.node()) for lo, hi in intervals]


def test_region_of_a_counted_loop_and_of_a_nested_call():
    regions = _regions("""
static void fill(double *w, int k, int m, double a) {
  for (int i = k; i < k + m; i++) w[i] = a * w[i - 1];
}
void outer(double *v, int n) {
  int j;
  for (j = n - 1; j >= 1; j--) v[j] = v[j] + 1.0;
  fill(v + 2, 1, n, 0.5);
}
""")
    k, m, n = (Node("ident", (v,)) for v in "kmn")
    fill = regions.of("fill")["w"]
    assert fill.written == ((Affine.of(0, "k"), Affine.of(-1, "k").plus(Affine.of(0, "m"))),)
    assert _show(fill.accessed()) == [(Node("sub", (k, Node("intCst", (1, None)))),
                                       Node("sub", (Node("add", (k, m)), Node("intCst", (1, None)))))]
    outer = regions.of("outer")["v"]   # v[1..n-1] by the loop, v + 2 + [1..n] by fill: v[3..n+2], one hull
    assert _show(outer.written) == [(Node("intCst", (1, None)), Node("add", (n, Node("intCst", (2, None)))))]
    other = _regions("void g(double *v, int n, int k) { v[k] = 1.0; v[n] = 2.0; }").of("g")["v"]
    assert _show(other.written) == [(k, k), (n, n)]   # no constant distance: two sections


def test_unbounded_accesses_have_no_region():
    """An index read from memory, a pointer given to a function with no source, an alias of
    an element (an end pointer used otherwise than by the loop's test among them): not bounded, so the caller keeps refusing."""
    regions = _regions("""
void ext(double *p);
static void gather(double *w, int *idx, int m) {
  for (int i = 0; i < m; i++) w[idx[i]] = 1.0;
}
static void pass(double *w) { ext(w); }
static void alias(double *w) { double *q = &w[1]; q[2] = 1.0; }
static void walk_alias(double *w, int m) {
  double *e = w + m;
  while (w < e) { *e = 1.0; w++; }
}
""")
    assert regions.of("gather")["w"].written is None
    assert regions.of("gather")["idx"].read is not None
    assert regions.of("pass")["w"].written is None
    assert regions.of("alias")["w"].written is None
    assert regions.of("walk_alias")["w"].written is None   # the end pointer is written through


def test_region_of_a_pointer_walk():
    """while (p < e) {...; p++; q++;} with e = p + m set before: m trips, *q reaches q[0..m-1]
    (c17's axpy_row). The same walk inside another loop (the pointers do not start again),
    or a walker read after the loop, is not bounded."""
    walk = """
static void walk(double *row, const double *x, int m) {
  const double *xe = x + m;
  BEFORE
  while (x < xe) {
    *row = *row + 2.0 * x[0];
    row++;
    x++;
  }
  AFTER
}
"""
    m1 = [(Node("intCst", (0, None)), Node("sub", (Node("ident", ("m",)), Node("intCst", (1, None)))))]
    found = _regions(walk.replace("BEFORE", "").replace("AFTER", "")).of("walk")
    assert _show(found["row"].written) == m1 and _show(found["x"].read) == m1 and found["x"].written == ()
    nested = walk.replace("BEFORE", "for (int k = 0; k < 2; k++) {").replace("AFTER", "}")
    assert _regions(nested).of("walk")["row"].written is None
    after = walk.replace("BEFORE", "").replace("AFTER", "*row = 0.0;")
    assert _regions(after).of("walk")["row"].written is None


def test_passive_array_gets_a_zeroed_adjoint_array():
    """smooth(u, work, n, k) with work passive in diffuse: smooth_b gets a zeroed temporary
    adjoint of work's size (8), not a scalar written past its end."""
    text = corpus_case("p42_helper_work_assumed_size.f90").adjoint.text
    assert re.search(r"real\(8\) :: dummyb\(8\)", text), text
    assert re.search(r"dummyb = 0\.0d0\n\s*call smooth_b\(u, ub, work, dummyb, n, k, kb\)", text), text
    text = corpus_case("c23_helper_work_pointer.c").adjoint.text
    assert "double dummyb[8];" in text and "dummyb[ii] = 0.0;" in text, text
    assert "smooth_b(u, ub, first, dummyb, n, k[0], &kb[0]);" in text, text


ELEMENT_ACTUAL = """
subroutine dbl(v)
  real(8) v(2)
  v(1) = v(1)*v(2)
  v(2) = v(2)*v(1)
end subroutine

subroutine f(x, y)
  real(8) x(*), y
  call dbl(ACTUAL)
  y = x(2)*x(3)
end subroutine
"""


def test_fortran_element_actual_of_an_assumed_size_array(tmp_path):
    """call dbl(x(2)) with x(*): dbl's v(1:2) is x(2:3), pushed as that section; passed as
    the section x(2:3), a form the translation does not read, it stays refused."""
    case = AdjointCase(ELEMENT_ACTUAL.replace("ACTUAL", "x(2)"), "fortran", "f(y)/(x)",
                       [("x", "real", (4,), None), ("y", "real", (), None)], filename="t.f90")
    assert "call pushreal8array(x(2:3), 2)\n   call dbl(x(2))" in case.adjoint.text, case.adjoint.text
    checked(case)
    compiled(case, tmp_path)
    with pytest.raises(UnsupportedError, match=r"t\.f90:10: adjoint mode does not support saving the array x"):
        adspec.differentiate(ELEMENT_ACTUAL.replace("ACTUAL", "x(2:3)"), head="f(y)/(x)", mode="adjoint",
                             lang="fortran", filename="t.f90")


def test_elements_read_by_expression_actuals_saved():
    """sg(x[i] - 0.7) with x in the snapshot: sg reaches none of x's memory, but P_b takes
    the actual again, so the element it reads, x[i], is saved (not all of x, of unknown size)."""
    case = corpus_case("c16_passive_and_dropped_calls.c")
    text = case.adjoint.text
    assert "pushReal8Array(x + i, 1);" in text and "popReal8Array(x + i, 1);" in text, text
    assert "pushReal8Array(x + 1, 2);" in text, text   # logged(&y[1], x[1] * x[2]): x[1..2]
    checked(case)


@pytest.mark.parametrize("optim", ["tbr", "diffliveness", "activity", "spareinit", "mergediff", "splitdiff"])
@pytest.mark.parametrize("name", ["section.c", "c13_rows_stencil.c"])
def test_sections_under_nooptim(name, optim):
    """Every -nooptim variant agrees with the default (-nooptim tbr saves all of out(C))."""
    options = {"nooptim": frozenset({optim})}
    case = band_case(name, **options) if name == "section.c" else corpus_case(name, **options)
    checked(case)
