"""Adjoint mode, first slice (issue 16): straight-line code, arrays, IF, DO and C for loops,
in Fortran and C, proven by the dot-product test <Ẋ, X̄> = <Ẏ, Ȳ> against adspec's tangent
in the interpreter (tests/adjoint_check.py), with the stack empty at the end of every run;
what the slice does not cover is refused with file:line."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adjoint_check import AdjointCase

TOL = 1e-12


def dot_product(source, lang, head, args, seed=1, **options):
    case = AdjointCase(source, lang, head, args, seed=seed, **options)
    check = case.check()
    assert check.stack_state == 0, check.report()
    assert check.error < TOL, check.report()
    return case


def real(name, shape=()):
    return (name, "real", shape, None)


def integer(name, value):
    return (name, "int", (), value)


STRAIGHT = """
subroutine f(x, z, y)
  real(8) x, z, y, t, u
  t = x*z + sin(x)
  u = t/z - exp(t*x)
  y = u*u + sqrt(z)*t
end subroutine
"""


def test_straight_line_scalars():
    case = dot_product(STRAIGHT, "fortran", "f(y)/(x z)", [real("x"), real("z"), real("y")])
    assert case.adjoint.statuses == {"x": "out", "z": "out", "y": "in-zero"}
    assert "subroutine f_b(x, xb, z, zb, y, yb)" in case.adjoint.text
    assert "RW status of diff variables: x:out z:out y:in-zero" in case.adjoint.text


ARRAYS = """
subroutine g(a, b, n, s)
  integer n, i
  real(8) a(n), b(n), s
  s = 0
  do i = 1, n
    b(i) = a(i)*a(i) + s
    s = s + b(i)*a(i)
  end do
end subroutine
"""


def test_arrays_and_accumulation():
    dot_product(ARRAYS, "fortran", "g(b s)/(a)", [real("a", (5,)), real("b", (5,)), integer("n", 5), real("s")])


ITERATIVE = """
subroutine h(x, y)
  real(8) x, y
  x = x*x + y
  x = x*y - x
  y = y*x
end subroutine
"""


def test_iterative_assignment():
    case = dot_product(ITERATIVE, "fortran", "h(x y)/(x y)", [real("x"), real("y")],
                       nooptim=frozenset({"splitdiff"}))   # x*xb twice: fig. 11's split would take it
    # the lhs is on the rhs only as itself: no temporary; the other leaves read xb first (fig. 7)
    assert "tempb" not in case.adjoint.text
    lines = [line.strip() for line in case.adjoint.text.splitlines()]
    assert lines.index("yb = yb + xb") + 1 == lines.index("xb = x*xb + x*xb")
    assert case.adjoint.statuses == {"x": "in-out", "y": "in-out"}


ALIAS = """
subroutine al(a, i, j)
  integer i, j
  real(8) a(3)
  a(i) = a(j)*2 + a(i)*a(j)
end subroutine
"""


@pytest.mark.parametrize("i,j", [(1, 2), (2, 2), (3, 1)])
def test_aliasing_element_assignment(i, j):
    case = dot_product(ALIAS, "fortran", "al(a)/(a)", [real("a", (3,)), integer("i", i), integer("j", j)])
    assert "tempb = ab(i)" in case.adjoint.text   # a(j) may be a(i): the paper's temporary V


BRANCHES = """
subroutine br(x, y, a, n)
  integer n, i
  real(8) x, y, a(n)
  do i = 1, n
    if (a(i) > 1.0) then
      y = y*a(i)
    else if (a(i) > 0.8) then
      y = y + x*a(i)
      x = x*y
    else
      a(i) = y*y
    end if
  end do
  if (x > 100.0) y = 0
end subroutine
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_if_branches_in_a_loop(seed):
    case = dot_product(BRANCHES, "fortran", "br(y a)/(x y a)",
                       [real("x"), real("y"), real("a", (6,)), integer("n", 6)], seed=seed)
    assert "call pushcontrol1b(0)" in case.adjoint.text and "call popcontrol1b(branch)" in case.adjoint.text


LOOPS = """
subroutine lp(a, b, m, n, lo, hi, st)
  integer m, n, lo, hi, st, i, j
  real(8) a(m, n), b(n)
  do j = hi, lo, -st
    do i = 1, m, 3
      a(i, j) = a(i, j)*b(j) + a(m - i + 1, j)
    end do
    b(j) = b(j)*a(m, j)
    do i = m, 1, -1
      b(j) = b(j) + sin(a(i, j))
    end do
  end do
  do j = lo, hi, st
    b(j) = b(j)*b(j)
  end do
end subroutine
"""


@pytest.mark.parametrize("m,lo,hi,st", [(7, 1, 5, 3), (5, 2, 5, 1), (4, 1, 5, 2), (8, 3, 2, 3)])
def test_nested_do_loops_any_stride_and_trip_count(m, lo, hi, st):
    """Strides ±1, ±3, trip counts not multiples of the stride, and a loop that does not run
    (lo > hi): the backward loops replay exactly the forward iterations."""
    dot_product(LOOPS, "fortran", "lp(a b)/(a b)", [real("a", (m, 5)), real("b", (5,)), integer("m", m),
                                                    integer("n", 5), integer("lo", lo), integer("hi", hi),
                                                    integer("st", st)])


C_FUNCTION = """
double f(double x, double z, double *y, int n) {
  double t;
  int i;
  t = x*z;
  for (i = 0; i < n; i += 3) { y[i] = y[i]*t + sin(x); }
  for (i = n - 1; i >= 0; i--) { t = t + y[i]*y[i]; }
  for (i = n; i > 1; i -= 2) { y[i - 1] = y[i - 2]*z; }
  if (x > 0) t = t*x; else t = 1;
  return t*x + z;
}
"""


@pytest.mark.parametrize("n", [0, 1, 7, 8])
def test_c_function_with_by_value_inputs(n):
    case = dot_product(C_FUNCTION, "c", "f(f y)/(x z y)", [real("x"), real("z"), real("y", (max(n, 1),)),
                                                          integer("n", n)])
    text = case.adjoint.text
    assert "void f_b(double x, double *xb, double z, double *zb, double *y, double *yb, int n, double fb)" in text
    assert "#include <adStack.h>" in text and "pushReal8(" in text and "popReal8(&" in text
    # y is a pointer of unknown size: incremented, the caller zeroes it... but it is a dependent: read
    assert case.adjoint.statuses["x"] == "out" and case.adjoint.statuses["y"] == "in-out"


C_POINTER_INPUT = """
void p(double *x, double *y) {
  y[0] = x[0]*x[1];
  y[1] = x[1]/x[0];
}
"""


def test_c_pointer_independent_is_incremented():
    """An independent whose size only the caller knows cannot be zeroed whole: P_b
    increments its adjoint (`x:incr`) and the caller passes it zeroed."""
    case = dot_product(C_POINTER_INPUT, "c", "p(y)/(x)", [real("x", (2,)), real("y", (2,))])
    assert case.adjoint.statuses["x"] == "incr"
    assert "*xb = 0" not in case.adjoint.text and "xb[0] = 0" not in case.adjoint.text


def test_the_dot_product_test_catches_a_missing_restore(monkeypatch):
    """Without the push/pop of RVARS, the partials read the values from after the
    assignment: the dot-product test must see it (it can fail)."""
    from adspec.analyses.facts import Facts
    monkeypatch.setattr(Facts, "is_restored", lambda self, stmt: False)
    case = AdjointCase(ITERATIVE, "fortran", "h(x y)/(x y)", [real("x"), real("y")])
    assert "push" not in case.adjoint.text
    assert case.check().error > 1e-3


# --- the paper's figures, structurally ---------------------------------------------------------
FIG7 = """
subroutine fig7(a, b, c, n, m)
  integer n, m, i
  real(8) a, b(1000), c
  do i = 3*n*m, 1000
    a = a - 2*b(i)
    if (a > 0) then
      c = c*a
    end if
  end do
end subroutine
"""


def test_fig7_structure_and_numbers():
    """Fig. 7: the forward sweep pushes a before a = a - 2*B(i), c before c = c*a, the branch
    at the end of each branch and the bounds after the loop; the backward loop runs from
    the last index down, pops the branch, c and a in that order, and increments bb(i)."""
    case = dot_product(FIG7, "fortran", "fig7(c)/(a b c)", [real("a"), real("b", (1000,)), real("c"),
                                                            integer("n", 30), integer("m", 11)])
    text = case.adjoint.text
    order = ["call pushreal8(a)", "a = a - 2*b(i)", "call pushreal8(c)", "c = c*a", "call pushcontrol1b(0)",
             "call pushcontrol1b(1)", "end do", "call popcontrol1b(branch)", "call popreal8(c)", "ab = ab + c*cb",
             "cb = a*cb", "call popreal8(a)", "bb(i) = bb(i) - 2*ab"]
    positions = [text.index(s) for s in order]
    assert positions == sorted(positions), text
    assert re.search(r"do i = ad_to, ad_from, -ad_stride", text)


FIG12 = """
subroutine fig12(a, b, x, z, c, ind1, ind2, i)
  integer ind1(10), ind2(10), i, n
  real(8) a(10), b(10), x, z(10), c
  n = ind1(i)
  b(n) = sin(a(n)) - b(n)
  a(n) = a(n) + x
  c = a(n)*b(n)
  a(n) = a(n)*a(n+1)
  n = ind2(i+2)
  z(n) = z(n) + c
end subroutine
"""


def test_fig12_diff_liveness_and_tbr_column():
    """Fig. 12, TBR column: the forward sweep is n = ind1(i); b(n) = ...; PUSH(a(n));
    a(n) = a(n) + x; PUSH(n); n = ind2(i+2): c = a(n)*b(n), a(n) = a(n)*a(n+1) and
    z(n) = z(n) + c are not diff-live (slicing), b(n) and the first n are not recorded (TBR).
    The adjoint cb of the formal c, which has no adjoint argument, starts at 0: its first
    increment is an assignment."""
    args = [real("a", (10,)), real("b", (10,)), real("x"), real("z", (10,)), real("c"),
            ("ind1", "int", (10,), list(range(1, 11))), ("ind2", "int", (10,), [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]),
            integer("i", 2)]
    case = dot_product(FIG12, "fortran", "fig12(a b z)/(a b x)", args)
    text = case.adjoint.text
    forward = text[:text.index("cb = zb(n)")]
    assert "z(n) = z(n) + c" not in forward           # not diff-live
    assert "call pushreal8(b(n))" not in forward      # b(n) is used linearly only
    body = forward[forward.index("n = ind1(i)"):].split("\n")
    assert [line.strip() for line in body if line.strip()] == [
        "n = ind1(i)", "b(n) = sin(a(n)) - b(n)", "call pushreal8(a(n))", "a(n) = a(n) + x", "call pushinteger4(n)",
        "n = ind2(i + 2)"]
    backward = text[text.index("n = ind2(i + 2)"):]
    assert "cb = zb(n)" in backward and "cb = 0" not in backward   # cb's reset folded (4.8), as the figure has it
    # a(n) and a(n+1) are decidedly apart: no temporary V, and the figure's two statements
    assert "ab(n + 1) = ab(n + 1) + a(n)*ab(n)" in backward and "tempb" not in text


# --- refusals ----------------------------------------------------------------------------------
@pytest.mark.parametrize("body,what", [
    ("call g(x)\n  y = x", "an active call of g, which has no source"),
    ("y = sum(pack([(x, i = 1, int(x) + 1)], [.true., .false.]))", "the adjoint of an array constructor of other than"),
])
def test_refused_with_file_and_line(body, what):
    source = f"subroutine f(x, y)\n  real(8) x, y\n  {body}\nend subroutine\n"
    with pytest.raises(UnsupportedError, match=rf"t\.f90:\d+: adjoint mode does not support {what}"):
        adspec.differentiate(source, head="f(y)/(x)", mode="adjoint", lang="fortran", filename="t.f90")


def test_command_line_writes_the_adjoint_and_its_messages(tmp_path):
    src = tmp_path / "s.f90"
    src.write_text(STRAIGHT)
    done = subprocess.run([sys.executable, "-m", "adspec", "-b", "-head", "f(y)/(x z)", str(src), "-O", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "subroutine f_b(" in (tmp_path / "s_b.f90").read_text()
    assert (tmp_path / "s_b.msg").exists()


FUNCTION = """
real(8) function fn(x, a, n)
  integer n, i
  real(8) x, a(n)
  i = 2
  fn = x*a(i)
  do i = 1, n
    a(i) = a(i)*x
  end do
  fn = fn + a(1)*a(n)
end function
"""


def test_fortran_function_and_a_restored_loop_index():
    """A function's result gets its adjoint as a last argument (fig. 8); the DO index i is
    read by the adjoint of fn = x*a(i) before the loop overwrites it: pushed and popped
    around the loop (A-save-index)."""
    case = dot_product(FUNCTION, "fortran", "fn(fn a)/(x a)", [real("x"), real("a", (4,)), integer("n", 4)])
    text = case.adjoint.text
    assert "subroutine fn_b(x, xb, a, ab, n, fnb)" in text
    assert text.index("call pushinteger4(i)") < text.index("do i = ad_from")
    assert case.adjoint.statuses["fn"] == "in-zero" and "fnb = 0.0d0" in text


@pytest.mark.parametrize("source", [
    "subroutine f(x, y)\n  real(8) x, y, g\n  common /c/ g\n  g = x*x\n  y = g*x\nend subroutine\n",
    "module m\n  real(8) g\nend module\nsubroutine f(x, y)\n  use m\n  real(8) x, y\n  g = x*x\n  y = g*x\n"
    "end subroutine\n",
])
def test_active_fortran_globals(source):
    """COMMON and module variables (rules/adjoint/globals.py; refused before)."""
    dot_product(source, "fortran", "f(y)/(x)", [real("x"), real("y")])


KERNEL = """
subroutine relax(u, f, n, sweeps)
  integer n, sweeps, k, i
  real(8) u(n), f(n), r
  do k = 1, sweeps
    do i = 2, n - 1
      r = f(i) - (2*u(i) - u(i-1) - u(i+1))
      u(i) = u(i) + 0.4d0*r + 0.1d0*r*r
    end do
  end do
end subroutine
"""


@pytest.mark.parametrize("name", ["fig12", "relax", "gmm"])
def test_tbr_pays(name):
    """The bytes pushed with TBR are strictly fewer than under -nooptim tbr (every value
    overwritten saved), and both adjoints pass the dot-product test: on fig. 12, a kernel of
    this file, and a kernel of the adjoint bench (bench/kernels/gmm.c)."""
    if name == "gmm":
        import test_adjoint_kernels as kernels
        pushed = {}
        for optim in ((), ("tbr",)):
            check = kernels.case(name, nooptim=frozenset(optim)).check()
            assert check.error < TOL and check.stack_state == 0, check.report()
            pushed[optim] = check.pushed_bytes
        print(f"{name}: pushed bytes with TBR {pushed[()]}, with -nooptim tbr {pushed[('tbr',)]}")
        assert 0 < pushed[()] < pushed[("tbr",)]
        return
    if name == "fig12":
        source, head, args = FIG12, "fig12(a b z)/(a b x)", [
            real("a", (10,)), real("b", (10,)), real("x"), real("z", (10,)), real("c"),
            ("ind1", "int", (10,), list(range(1, 11))), ("ind2", "int", (10,), [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]),
            integer("i", 2)]
    else:
        source, head, args = KERNEL, "relax(u)/(u f)", [real("u", (8,)), real("f", (8,)), integer("n", 8),
                                                       integer("sweeps", 3)]
    pushed = {}
    for optim in ((), ("tbr",)):
        check = AdjointCase(source, "fortran", head, args, nooptim=frozenset(optim)).check()
        assert check.error < TOL and check.stack_state == 0, check.report()
        pushed[optim] = check.pushed_bytes
    print(f"{name}: pushed bytes with TBR {pushed[()]}, with -nooptim tbr {pushed[('tbr',)]}")
    assert 0 < pushed[()] < pushed[("tbr",)]


SELECT = """
subroutine sel(x, y, ks, n)
  integer n, i, ks(n)
  real(8) x, y
  do i = 1, n
    select case (ks(i))
    case (1)
      y = y*x
    case (2:3, 5)
      y = sin(y) + x
    case (6)
      x = x*y
    end select
    y = y*y
  end do
end subroutine
"""


def test_select_case_without_default():
    """SELECT CASE with four ways (three cases and none): PUSHCONTROL2B, a CASE DEFAULT that
    only pushes, and the backward chain of IFs on the popped way."""
    case = dot_product(SELECT, "fortran", "sel(x y)/(x y)", [real("x"), real("y"),
                                                            ("ks", "int", (7,), [1, 4, 2, 6, 5, 3, 1]), integer("n", 7)])
    text = case.adjoint.text
    assert "call pushcontrol2b(3)" in text and "case default" in text and "call popcontrol2b(branch)" in text


def test_explain_shows_why_a_value_is_pushed(tmp_path):
    src = tmp_path / "b.f90"
    src.write_text(BRANCHES)
    done = subprocess.run([sys.executable, "-m", "adspec", "explain", str(src), "-head", "br(y a)/(x y a)",
                           "--line", "7", "-b"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "A-record at line 7" in done.stdout and "✓ is_restored(y = y*a(i))" in done.stdout


C_DECLARATIONS = """
void d(double x, double *y, int n) {
  double t = x*x, c = 2.0;
  double u = sin(t)*c + y[0];
  int i = 0;
  y[i] = u*t;
}
"""


def test_c_declarations_with_active_initial_values():
    """An initial value is an assignment: its adjoint propagates the variable's adjoint, with
    nothing pushed (the variable held no value); the adjoints are declared zero."""
    case = dot_product(C_DECLARATIONS, "c", "d(y)/(x y)", [real("x"), real("y", (2,)), integer("n", 2)])
    assert "double tb = 0.0" in case.adjoint.text and "double ub = 0.0" in case.adjoint.text


C_LOOP_DECLARATIONS = """
void w(double *x, double *y, int n) {
  for (int i = 0; i < n; i += 2) y[i] = y[i]*x[i];
  for (int i = n - 1; i > 0; i--) { y[i] = y[i] + sin(y[i - 1]); }
}
"""


@pytest.mark.parametrize("n", [1, 4, 5])
def test_c_for_loops_declaring_their_index(n):
    case = dot_product(C_LOOP_DECLARATIONS, "c", "w(y)/(x y)", [real("x", (n,)), real("y", (n,)), integer("n", n)])
    assert case.adjoint.text.count("int i;") == 1


@pytest.mark.parametrize("rhs", ["maxval(a)*x", "sum(a(1:2))*x", "x*dot_product(a, a)"])
def test_operations_on_arrays(rhs):
    """Found by the corpus test: an array reduction in a scalar assignment, refused until the
    array adjoints of fig. 14 (rules/adjoint/arrays.py); now right by the dot-product test."""
    source = f"subroutine f(x, a, y)\n  real(8) x, a(3), y\n  y = {rhs}\nend subroutine\n"
    dot_product(source, "fortran", "f(y)/(x a)", [real("x"), real("a", (3,)), real("y")])
