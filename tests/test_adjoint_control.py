"""Adjoint mode on control flow (issue 16): WHILE loops with a trip count that depends on
active data, EXIT/CYCLE, break/continue, early RETURN, GOTO (into and out of loops, backward),
computed GOTO, arithmetic IF and C's switch with fall-through, by the rules of
rules/adjoint/loops.py and the flow-graph method of rules/adjoint/jumps.py. Each program
passes the dot-product test against the tangent in the interpreter (1e-12, stack empty at
the end); the key ones are also compiled (-O2, then sanitizers / -fcheck=all)."""
from __future__ import annotations

import re

import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adjoint_check import RUNTIME, AdjointCase
from c_tangent_cases import source as c_source
import test_tangent_programs as T

TOL = 1e-12


def real(name, shape=()):
    return (name, "real", shape, None)


def integer(name, value):
    return (name, "int", (), value)


def dot_product(source, lang, head, args, seed=1):
    case = AdjointCase(source, lang, head, args, seed=seed)
    check = case.check()
    assert check.stack_state == 0, check.report()
    assert check.error < TOL, check.report()
    return case


NEWTON = """
subroutine newton(a, x, eps)
  real(8) a, x, eps
  integer it
  x = a
  it = 0
  do while (abs(x*x - a) > eps .and. it < 50)
    x = 0.5d0*(x + a/x)
    it = it + 1
  end do
  do while (x > 0.3d0)
    x = x*0.5d0 + 0.002d0*a
  end do
end subroutine
"""

C_WHILE = """
#include <math.h>
void halve(double *x, double a, double *y) {
  double s = *x;
  int n = 0;
  while (s > 1.0e-3) {
    s = s*0.5 + 1.0e-4*a;
    n++;
  }
  do {
    s = s*s + a*0.01;
    n--;
  } while (n > 0 && s < 0.5);
  *y = s*a;
}
"""


@pytest.mark.parametrize("a", [2.0, 17.0, 0.2])
def test_while_trip_count_depends_on_active_data(a):
    """Newton's iteration, then halving: the trip counts change with a (a pushed count per
    loop, the backward loop runs that many trips)."""
    case = dot_product(NEWTON, "fortran", "newton(x)/(a)", [("a", "real", (), a), real("x"),
                                                            ("eps", "real", (), 1e-10)])
    assert "call pushinteger4(ad_count)" in case.adjoint.text and "do while (ad_count > 0)" in case.adjoint.text


@pytest.mark.parametrize("x", [3.0, 40.0, 1e-4])
def test_c_while_and_do_while(x):
    case = dot_product(C_WHILE, "c", "halve(y)/(x a)", [("x", "real", (1,), x), real("a"), real("y", (1,))])
    assert "pushInteger4(ad_count)" in case.adjoint.text


EXIT_CYCLE = """
subroutine ec(x, y, n, m)
  integer n, m, i, j
  real(8) x(n), y
  y = 1.0d0
  do i = 1, n
    if (x(i) < -0.5d0) cycle
    y = y*x(i) + sin(y)
    do j = 1, i
      if (j > m) exit
      if (x(j) > 0.9d0) cycle
      y = y + x(j)*y
    end do
    if (y > 20.0d0) exit
    y = y - 0.1d0*x(i)**2
  end do
  y = y*i
end subroutine
"""

INFINITE_DO = """
subroutine inf(x, y, n)
  integer n, k
  real(8) x(n), y
  y = x(1)
  k = 0
  do
    k = k + 1
    y = cos(y)*x(mod(k, n) + 1)
    if (k >= 3*n .or. abs(y) < 0.05d0) exit
  end do
end subroutine
"""


@pytest.mark.parametrize("m", [0, 2, 9])
def test_exit_and_cycle(m):
    """EXIT and CYCLE in nested DO loops, the index read after the loop: the backward
    sweep replays each partial trip."""
    dot_product(EXIT_CYCLE, "fortran", "ec(y)/(x)", [real("x", (6,)), real("y"), integer("n", 6), integer("m", m)])


def test_do_without_control_ends_by_exit():
    dot_product(INFINITE_DO, "fortran", "inf(y)/(x)", [real("x", (4,)), real("y"), integer("n", 4)])


EARLY_RETURN = """
subroutine er(x, y, k)
  integer k
  real(8) x, y
  y = x*x
  if (k > 1) return
  y = sin(y)*x
  if (k > 0) then
    y = y + 1.0d0
    return
  end if
  y = y*y
end subroutine
"""

C_RETURN = """
#include <math.h>
double cr(double x, double *a, int n) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) {
    if (a[i] > 1.0) return s*x + a[i];
    s = s + sin(a[i]*x);
  }
  if (s < 0.0) return -s*x;
  return s*s;
}
"""


@pytest.mark.parametrize("k", [0, 1, 2])
def test_early_return(k):
    dot_product(EARLY_RETURN, "fortran", "er(y)/(x)", [real("x"), real("y"), integer("k", k)])


@pytest.mark.parametrize("a0", [0.3, 1.7])
def test_c_early_return_from_a_loop(a0):
    dot_product(C_RETURN, "c", "cr(cr)/(x a)", [real("x"), ("a", "real", (4,), [a0, -0.4, 1.4, 0.2]),
                                                  integer("n", 4)])


C_SWITCH = """
void sw(double *x, double *y, int n) {
  int i;
  double s = 1.0;
  for (i = 0; i < n; i++) {
    switch (i % 4) {
    case 0:
      s = s*x[i];
    case 1:
      s = s + x[i]*x[i];
      break;
    case 2:
      if (s > 3.0) continue;
      s = s*0.5;
    default:
      s = s - x[i];
    }
    s = s*1.1;
  }
  *y = s;
}
"""


def test_c_switch_fall_through_break_continue():
    case = dot_product(C_SWITCH, "c", "sw(y)/(x)", [real("x", (7,)), real("y", (1,)), integer("n", 7)])
    assert "popControl" in case.adjoint.text


C_GOTO = """
#include <math.h>
void gj(double *x, double *y, int n) {
  double s = x[0];
  int k = 0;
  int i = 0;
  if (n > 3) goto skip;
again:
  s = 0.5*s*s + x[1];
  k++;
  if (k < 3) goto again;
skip:
  while (i < n) {
    s = s + x[i];
    s = sin(s)*x[i];
    if (s > 0.8) goto out;
    i++;
  }
out:
  *y = s*x[n - 1];
}
"""


@pytest.mark.parametrize("n", [2, 4])
def test_c_goto_forward_backward_and_out_of_a_loop(n):
    """(A goto into a loop's body: the interpreter, which runs the tangent, has no such jump.)"""
    dot_product(C_GOTO, "c", "gj(y)/(x)", [real("x", (4,)), real("y", (1,)), integer("n", n)])


C_GOTO_INTO = """
#include <math.h>
void gi(double *x, double *y, int n) {
  double s = x[0];
  int i = 0;
  if (n > 3) goto inside;
  while (i < n) {
    s = s + x[i];
inside:
    s = sin(s)*x[i];
    if (s > 0.8) goto out;
    i++;
  }
out:
  *y = s*x[n - 1];
}
"""


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("n", [2, 4])
def test_c_goto_into_a_loop_compiled(n, tmp_path):
    """A goto into a while loop's body: the interpreter cannot run the tangent (a jump into
    a block that does not enclose it), so the tangent is compiled; the adjoint, whose jumps
    all go to labels of its own blocks, also runs in the interpreter and agrees."""
    case = AdjointCase(C_GOTO_INTO, "c", "gi(y)/(x)", [real("x", (4,)), real("y", (1,)), integer("n", n)])
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL, check.report()
    assert check.interpreter_error < 1e-13, check.report()


SELECT_EXIT = """
subroutine se(x, y, ks, n)
  integer n, i, ks(n)
  real(8) x, y
  y = x
  do i = 1, n
    select case (ks(i))
    case (1)
      y = y*x
    case (2)
      exit
    case default
      y = sin(y) + x
    end select
  end do
  y = y*i
end subroutine
"""


def test_select_case_with_exit():
    dot_product(SELECT_EXIT, "fortran", "se(y)/(x)", [real("x"), real("y"), ("ks", "int", (5,), [1, 3, 1, 2, 1]),
                                                      integer("n", 5)])


FIXED_GOTO = """\
C     A backward GOTO loop around a DO with a jump out of it, fixed form
      SUBROUTINE FG(X, Y, N)
      INTEGER N, I, K
      DOUBLE PRECISION X(N), Y
      Y = X(1)
      K = 0
   10 K = K + 1
      DO 20 I = 1, N
         IF (Y .GT. 5.0D0) GO TO 30
         Y = Y + X(I)*Y
   20 CONTINUE
   30 Y = SQRT(Y*Y + 1.0D0)
      IF (K .LT. 3) GO TO 10
      END
"""


def test_fixed_form_goto_loop_around_a_do():
    case = AdjointCase(FIXED_GOTO, "fortran", "fg(y)/(x)", [real("x", (3,)), real("y"), integer("n", 3)],
                       filename="fg.f", form="fixed")
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


JUMP_PROGRAMS = [(p.values[0], p.values[1], p.values[2]) for p in T.PROGRAMS
                 if p.values[0].startswith(("j0", "p09", "p20", "p25", "p37"))]


@pytest.mark.parametrize("name, head, args", JUMP_PROGRAMS, ids=[c[0] for c in JUMP_PROGRAMS])
def test_tangent_jump_programs_in_adjoint_mode(name, head, args):
    """The tangent's programs of jumps (j01-j08) and loops with EXIT/CYCLE/WHILE."""
    path = T.program_path(name)
    case = AdjointCase(path.read_text(), "fortran", head, args, filename=path.name)
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


def test_c_break_continue_program():
    case = AdjointCase(c_source("c07_loops_break_continue.c"), "c", "iterate(y)/(x a)",
                       [real("x", (5,)), real("a"), real("y", (1,)), integer("n", 5)], filename="c07.c")
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


def test_a_declaration_after_a_label_is_refused():
    """A declaration at the top of the body after a jump target (cj01's, in a nested block,
    is hoisted: tests/test_adjoint_c_forms.py)."""
    src = ("void f(double *x, double *y, int n) {\n  double s = x[0];\n  if (n > 2) goto l;\n  s = s * x[1];\n"
           "l:\n  s = s * s;\n  double t = s * x[1];\n  *y = t;\n}\n")
    with pytest.raises(UnsupportedError, match=r"l\.c:7: adjoint mode does not support a declaration after a jump "
                                               r"target"):
        adspec.differentiate(src, head="f(y)/(x)", mode="adjoint", lang="c", filename="l.c")


DECLARED_AFTER_JUMPS = """
#include <math.h>
/* declarations with active initial values in a loop body after jump targets (a continue, a
   switch's cases, a break out of it): hoisted to the function, their values pushed at each
   trip for the backward sweep (sin and cos read them) */
void g(double *x, double *y, int n) {
  double s = 1.0;
  int i;
  for (i = 0; i < n; i++) {
    if (x[i] > 1.2)
      continue;
    double t = sin(x[i] * s), u = t * t;
    switch (i % 3) {
    case 0:
      s = s * t;
      break;
    case 1:
      if (u > 0.5)
        break;
      s = s + u * x[i];
    default:
      s = s * cos(u);
    }
  }
  *y = s;
}
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_nested_declarations_after_jump_targets(seed, tmp_path):
    """c18's form: the loop is lowered to a flow graph (5.5) and the declaration of t and u,
    in a block after jump targets, is hoisted (A-decl-nested) rather than refused."""
    case = AdjointCase(DECLARED_AFTER_JUMPS, "c", "g(y)/(x)", [real("x", (7,)), real("y", (1,)), integer("n", 7)],
                       seed=seed, filename="g.c")
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()
    assert "pushReal8(t);" in case.adjoint.text and "pushReal8(u);" in case.adjoint.text, case.adjoint.text
    if seed == 1 and RUNTIME.is_dir():
        compiled = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
        assert compiled.error < TOL and compiled.interpreter_error < 1e-13, compiled.report()


def test_stop_stays_in_the_forward_sweep():
    """STOP ends the run in the forward sweep, as in the original (rules/adjoint/statements.py);
    on a path that does not stop, the adjoint is the usual one."""
    src = "subroutine f(x, y)\n  real(8) x, y\n  do while (x < 2)\n    x = x*2\n    if (x > 1.5) stop\n" \
          "  end do\n  y = x*x\nend subroutine\n"
    case = AdjointCase(src, "fortran", "f(y)/(x)", [("x", "real", (), 3.0), real("y")])
    assert re.search(r"if \(x > 1.5\) then\n\s*stop\n", case.adjoint.text), case.adjoint.text
    check = case.check()
    assert check.stack_state == 0 and check.error < 1e-12, check.report()


# --- compiled -------------------------------------------------------------------------------------
COMPILED = {
    "newton": (NEWTON, "fortran", "newton(x)/(a)", [("a", "real", (), 5.0), real("x"), ("eps", "real", (), 1e-10)]),
    "exit cycle": (EXIT_CYCLE, "fortran", "ec(y)/(x)", [real("x", (6,)), real("y"), integer("n", 6), integer("m", 2)]),
    "early return": (EARLY_RETURN, "fortran", "er(y)/(x)", [real("x"), real("y"), integer("k", 1)]),
    "C while": (C_WHILE, "c", "halve(y)/(x a)", [("x", "real", (1,), 3.0), real("a"), real("y", (1,))]),
    "C switch": (C_SWITCH, "c", "sw(y)/(x)", [real("x", (7,)), real("y", (1,)), integer("n", 7)]),
    "C goto": (C_GOTO, "c", "gj(y)/(x)", [real("x", (4,)), real("y", (1,)), integer("n", 4)]),
    "C return": (C_RETURN, "c", "cr(cr)/(x a)", [real("x"), ("a", "real", (4,), [0.3, -0.4, 1.4, 0.2]),
                                                 integer("n", 4)]),
}


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("name", sorted(COMPILED))
def test_compiled(name, tmp_path):
    source, lang, head, args = COMPILED[name]
    check = AdjointCase(source, lang, head, args).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL, check.report()
    assert check.interpreter_error < 1e-13, check.report()


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("name", ["j03_jump_out_of_loop", "j05_computed_goto.f", "j07_arithmetic_if.f"])
def test_compiled_tangent_jump_programs(name, tmp_path):
    head, args = next((h, a) for n, h, a in JUMP_PROGRAMS if n == name)
    path = T.program_path(name)
    case = AdjointCase(path.read_text(), "fortran", head, args, filename=path.name,
                       form="fixed" if path.suffix == ".f" else None)
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL, check.report()
    assert check.interpreter_error < 1e-13, check.report()


# --- found by the random programs -----------------------------------------------------------------
RESET_ONLY_WHILE = """
subroutine head(x, y, s, k)
  real(8) :: x(4), y(4), s, t
  integer :: k, w
  w = 0
  do while (w < 3)
    if (0.5d0 < 0.5d0) then
      go to 10
    end if
10  x(1) = sin(0.5d0)
    w = w + 1
  end do
  if (0.5d0 < 0.5d0) then
    go to 20
  end if
20 x(1) = sin(0.5d0)
end subroutine head
"""


def test_while_live_only_for_a_derivative_reset():
    """The loop is live (x(1)'s adjoint is reset under it): the forward sweep must not run
    `while (w < 3)` on a w that is never set (it looped forever). Since the resets make the
    controls around them diff-live (analyses/diffliveness.py, `resets`), w is computed and
    the loop's trips are counted."""
    from test_adjoint_random import ARGS
    case = AdjointCase(RESET_ONLY_WHILE, "fortran", "head", ARGS["fortran"], filename="random.f90")
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()
    text = case.adjoint.text
    assert "do while" not in text or text.index("w = 0") < text.index("do while"), text
