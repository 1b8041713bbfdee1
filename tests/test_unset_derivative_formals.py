"""A callee called both differentiated and plain (found by adspec campaign): its activity
context is the union over all its call sites, so a formal may be varied through a plain call
and useful through a differentiated one, and active inside the callee while no differentiated
call passes it an active actual. Its derivative was then a local nothing sets (`vd` in
`ad(i) = ... + sin(a(i))*vd`): the interpreter zeroes locals and hid it. Now every formal
active at the callee's entry or exit is a derivative formal (analyses/facts.py
_boundary_active_formals), a zero dummy where the call's actual is passive.

Compiled with uninitialised locals poisoned (gfortran -finit-real=snan, gcc
-ftrivial-auto-var-init=pattern) the old tangent is wrong; here it must agree with complex
step, vector mode with the scalar runs, and the checked build (-fcheck=all, sanitizers) run
clean. The adjoint of the same programs passes the dot-product test."""
from __future__ import annotations

import re

import pytest

import adspec
import harness
from adspec.oracle import harness as compiled_harness
from adjoint_check import AdjointCase
from tangent_check import TangentCase, compiled_errors, vector_error

R, I = "real", "int"

# the campaign's program, shrunk: bump is differentiated at the first call (v passive there),
# plain at the second (x is no dependent) where v is varied
ISSUE = """subroutine bump(a, i, v)
   real(8) :: a(4), v
   integer :: i
   a(i) = sin(a(i))*v + cos(v)
end subroutine bump

subroutine head(x, y, s, k)
   real(8) :: x(4), y(4), s, t
   integer :: k, i, j
   real(8) :: z(4)
   do i = 1, 4
      z(i) = 0.5d0*y(i)
   end do
   i = 2
   do j = 4, 1, -3
      call bump(y, i, sin(3.0d0))
      if (-sin(y(mod(i + 4 + 14, 4) + 1)) > 2.0d0 .and. abs(sin(s) - 1.5d0) > 0.5d0) then
         t = 0.5d0
      end if
   end do
   call bump(x, 1, tanh(z(2)))
end subroutine head
"""
ISSUE_ARGS = [("x", R, (4,), None), ("y", R, (4,), None), ("s", R, (), None), ("k", I, (), 3)]

# both calls differentiated: f is varied at the first (where a's result is not useful) and
# a useful at the second (where f is constant): f is active in mix, at neither call; and a
# function called differentiated and plain
CROSS = """subroutine mix(a, b, f)
   real(8) :: a, b, f
   a = a*f + cos(f)
   b = sin(b)
end subroutine mix

real(8) function g(a, v)
   real(8) :: a, v
   g = sin(a)*v + v*v
end function g

subroutine head(x, y)
   real(8) :: x(3), y(4), t, r
   real(8) :: g
   t = 1.0d0
   call mix(t, y(1), x(2))
   r = 2.0d0
   call mix(y(2), x(3), r)
   y(4) = g(y(4), 3.0d0)
   x(1) = g(x(1), y(1))
end subroutine head
"""
CROSS_ARGS = [("x", R, (3,), None), ("y", R, (4,), None)]

C_SHAPE = """#include <math.h>
void bump(double *a, int i, double v) {
  a[i] = sin(a[i]) * v + cos(v);
}
double g(double a, double v) {
  return sin(a) * v + v * v;
}
void head(double *x, double *y) {
  double z[4];
  for (int i = 0; i < 4; i++) z[i] = 0.5 * y[i];
  bump(y, 1, sin(3.0));
  y[2] = g(y[2], 3.0);
  bump(x, 0, tanh(z[1]));
  x[1] = g(x[1], z[2]);
}
"""
C_ARGS = [("x", R, (4,), None), ("y", R, (4,), None)]

CASES = [
    pytest.param(ISSUE, "fortran", ISSUE_ARGS, id="issue"),
    pytest.param(CROSS, "fortran", CROSS_ARGS, id="cross-sites-and-function"),
    pytest.param(C_SHAPE, "c", C_ARGS, id="c"),
]
HEAD = "head(y)/(x y)"
# uninitialised locals poisoned: reading one makes the derivative wrong (NaN, or about -5e303)
POISON = {"fortran": ["-finit-real=snan"], "c": ["-ftrivial-auto-var-init=pattern"]}


def _prototypes(text: str) -> dict:
    return {m.group(1): [a.strip() for a in m.group(2).split(",")]
            for m in re.finditer(r"(?:subroutine|function|void|double)\s+(\w+_d)\s*\(([^)]*)\)", text)}


def test_issue_callee_takes_the_derivative_it_reads():
    """bump_d reads vd: vd is its argument, and the differentiated call passes a zero."""
    text = adspec.differentiate(ISSUE, head=HEAD, lang="fortran", filename="issue.f90").text
    assert _prototypes(text)["bump_d"] == ["a", "ad", "i", "v", "vd"], text
    assert re.search(r"(\w+) = 0\.0d0\n\s*call bump_d\(y, yd, i, sin\(3\.0d0\), \1\)", text), text
    assert "call bump(x, 1, tanh(z(2)))" in text


@pytest.mark.parametrize("source, lang, args", CASES)
def test_every_derivative_read_is_an_argument(source, lang, args):
    """Each formal a differentiated procedure reads the derivative of (its name + d in an
    expression) is in its prototype, in scalar and vector mode."""
    for vector in (False, True):
        result = adspec.differentiate(source, head=HEAD, lang=lang, filename="p." + ("f90" if lang == "fortran" else "c"),
                                      **({"mode": "vector"} if vector else {}))
        for proc in ("mix", "g", "bump"):
            name = result.procedure_names.get(proc)
            if name is None or name not in result.text:
                continue
            body = result.text.split(name + "(", 1)[1]
            formals = body.split(")", 1)[0]
            if proc == "mix":
                assert re.search(r"\bfd\b", formals), result.text
            if proc in ("bump", "g"):
                assert re.search(r"\bvd\b", formals), result.text


@pytest.mark.compile
@pytest.mark.parametrize("source, lang, args", CASES)
def test_compiled_with_poisoned_locals(source, lang, args, tmp_path, monkeypatch):
    """F_D and F_DV built with uninitialised locals poisoned agree with complex step (1e-12)
    and each other (1e-14); the build under -fcheck=all / the sanitizers runs clean."""
    harness.require_compilers(lang)
    run, builds = compiled_harness._run, []

    def poisoned(cmd, cwd, what, *rest, **options):
        if cmd[0] in ("gcc", "gfortran") and "-o" in cmd:
            cmd = [cmd[0], *POISON[lang], *cmd[1:]]
            builds.append(cmd)
        return run(cmd, cwd, what, *rest, **options)
    monkeypatch.setattr(compiled_harness, "_run", poisoned)
    case = TangentCase(source, lang, HEAD, args, filename="p." + ("f90" if lang == "fortran" else "c"))
    runs = case.compiled(tmp_path)
    assert builds, "nothing was compiled"
    errors = compiled_errors(case, runs)
    assert errors["complex step"] <= 1e-12 and errors["interpreter"] <= 1e-14, errors
    assert runs.checks == "", runs.checks
    assert runs.vector is not None and vector_error(runs) <= 1e-14


@pytest.mark.parametrize("source, lang, args", CASES)
def test_adjoint_dot_product(source, lang, args):
    """The adjoint of the same programs: <Ydot, Ybar> = <Xdot, Xbar> to 1e-12, stack empty."""
    check = AdjointCase(source, lang, HEAD, args, filename="p." + ("f90" if lang == "fortran" else "c")).check()
    assert check.error < 1e-12 and check.stack_state == 0, check.report()


@pytest.mark.compile
@pytest.mark.parametrize("source, lang, args", CASES)
def test_adjoint_compiled_checked(source, lang, args, tmp_path):
    """Compiled (-O0 and under -fcheck=all / the sanitizers): the dot-product test to 1e-12,
    the adjoints equal to the interpreter's to 1e-14."""
    harness.require_compilers(lang)
    case = AdjointCase(source, lang, HEAD, args, filename="p." + ("f90" if lang == "fortran" else "c"))
    check = case.compiled_check(tmp_path, flags=("-O0",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error <= 1e-14, check.report()
