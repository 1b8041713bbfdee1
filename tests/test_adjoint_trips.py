"""Per-trip adjoints (analyses/independent_trips.py, rules/adjoint/trips.py A-trips-fused): a
loop whose trips are independent but for sum reductions that nothing after it reads runs each
trip forward then backward in the backward loop and pushes nothing for the trip's values.
Where the condition fails (a value carried from one trip to the next, a reduction read after
the loop, a private value read after it, an array written, a branch, a formal written, the
accumulator read in the body) the loop keeps the loop rule of 5.4 and its pushes. Every
program passes the dot-product test, interpreted and compiled with the sanitizers."""
import pytest

from adjoint_check import RUNTIME, AdjointCase
from test_adjoint import TOL, integer, real

C_FUSED = """
#include <math.h>
void trips(double *x, double *y, double *f, int n) {
  int k, j;
  double a, b, s;
  *f = 0.0;
  for (k = 0; k < n; k++) {
    j = 2 * k;
    a = x[j] * y[k];
    b = sin(a) + x[j + 1];
    s = a * b / (1.0 + b * b);
    *f = *f + s * s - a;
  }
}
"""

F_FUSED = """
subroutine ftrips(x, w, y, z, n)
  integer n, i
  real(8) x(n), w(3), y, z(2)
  real(8) t, u, v
  y = 0
  z(1) = 0
  do i = n, 1, -2
    t = x(i)*w(1)
    u = exp(t) - w(2)*t
    v = sqrt(1 + u*u)
    y = t*v + y
    z(1) = z(1) + u*w(3) - v
  end do
end subroutine
"""

# each loop breaks one condition; t, u are pushed in each (or a(i))
F_DEPENDENT = """
subroutine fdep(x, w, y, n, s)
  integer n, i
  real(8) x(n), w(3), y, s, a(20)
  real(8) t, u, v, q
  y = 0
  t = 1
  do i = 1, n
    u = t*w(2)
    t = x(i)*w(1)
    y = y + u*t
  end do
  do i = 1, n
    t = x(i)*w(1)
    u = sin(t)
    y = y + u*t
  end do
  y = y*y
  do i = 1, n
    v = x(i)*w(3)
    u = cos(v)
    y = y + u*v
  end do
  y = y + v
  do i = 1, n
    q = x(i)*w(1)
    a(i) = q*q
    y = y + sin(q)
  end do
  do i = 1, n
    q = x(i)*w(2)
    if (q > 0) q = -q
    y = y + sin(q)
  end do
  do i = 1, n
    s = x(i)*w(3)
    y = y + exp(s)
  end do
  do i = 1, n
    q = x(i)*w(1)
    y = y + q*sin(q) + y*w(3)
  end do
  y = y + a(1)
end subroutine
"""

C_DEPENDENT = """
#include <math.h>
void cdep(double *x, double *f, int n) {
  int k;
  double a, b;
  *f = 0.0;
  for (k = 0; k < n; k++) {
    a = x[k] * x[k];
    b = sin(a) * *f;
    *f = *f + b * a;
  }
}
"""

# c is read again by the backward loop's recomputation of q but by no partial, and changed
# after the loop: not fused (every variable the body reads must be unchanged in the procedure)
F_CHANGED = """
subroutine fchg(x, w, y, n)
  integer n, i
  real(8) x(n), w(3), y, c, q
  y = 0
  c = w(3)
  do i = 1, n
    q = x(i)*w(1) + c
    y = y + sin(q)
  end do
  c = 5*w(2)
  y = y + c*c
end subroutine
"""

# inner is split (-nocheckpoint): outer changes n between inner_fwd and inner_bwd, so the
# backward loop of inner cannot take its bounds from n
SPLIT = """
subroutine inner(x, y, n)
  integer n, i
  real(8) x(n), y, q
  do i = 1, n
    q = x(i)*2
    y = y + sin(q)*x(i)
  end do
end subroutine
subroutine outer(x, z, n)
  integer n
  real(8) x(n), z, y
  y = 1
  call inner(x, y, n)
  n = n - 1
  z = y*y
end subroutine
"""

# x is a TARGET: a pointer could change it under another name after the loop
F_TARGET = """
subroutine ftgt(x, w, y, n)
  integer n, i
  real(8), target :: x(n)
  real(8) w, y, q
  y = 0
  do i = 1, n
    q = x(i)*w
    y = y + sin(q)
  end do
end subroutine
"""

N = 5
CASES = {
    "c fused": (C_FUSED, "c", "trips(f)/(x y)", [real("x", (2 * N,)), real("y", (N,)), real("f", (1,)),
                                                    integer("n", N)]),
    "fortran fused": (F_FUSED, "fortran", "ftrips(y z)/(x w)", [real("x", (N,)), real("w", (3,)), real("y"),
                                                                 real("z", (2,)), integer("n", N)]),
    "fortran dependent": (F_DEPENDENT, "fortran", "fdep(y)/(x w)", [real("x", (N,)), real("w", (3,)), real("y"),
                                                                     integer("n", N), real("s")]),
    "c dependent": (C_DEPENDENT, "c", "cdep(f)/(x)", [real("x", (N,)), real("f", (1,)), integer("n", N)]),
    "fortran changed": (F_CHANGED, "fortran", "fchg(y)/(x w)", [real("x", (N,)), real("w", (3,)), real("y"),
                                                                 integer("n", N)]),
    "fortran target": (F_TARGET, "fortran", "ftgt(y)/(x w)", [real("x", (N,)), real("w"), real("y"),
                                                               integer("n", N)]),
    "split": (SPLIT, "fortran", "outer(z)/(x)", [real("x", (N,)), real("z"), integer("n", N)]),
}


def case(name, **options):
    source, lang, head, args = CASES[name]
    return AdjointCase(source, lang, head, args, **options)


def pushes_of(text):
    return [line.strip() for line in text.splitlines() if "push" in line.lower() and "integer4" not in line.lower()]


@pytest.mark.parametrize("name", ["c fused", "fortran fused"])
def test_independent_trips_push_nothing(name):
    """The trip's values are pushed nowhere; the backward loop runs the trip's statements
    (`v = sqrt(1 + u*u)`) before its adjoints, and the partial of v reads v, not sqrt again.
    C runs the trips two by two, then the last (rules/adjoint/trip_pairs.py): the statement
    is in both loops."""
    adjoint = case(name)
    text = adjoint.adjoint.text
    assert pushes_of(text) == [], text
    statement = "b = sin(a) + x[j + 1];" if name == "c fused" else "v = sqrt(1 + u*u)"
    lines = [line.strip() for line in text.splitlines()]
    assert lines.count(statement) == (2 if name == "c fused" else 1), text
    assert lines.index(statement) > min(k for k, line in enumerate(lines) if "ad_to" in line and "::" not in line)
    if name == "fortran fused":
        assert text.count("sqrt(") == 1, text
    check = adjoint.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


def test_dependent_trips_keep_their_pushes():
    text = case("fortran dependent").adjoint.text
    pushed = pushes_of(text)
    for value in ("t", "u", "v", "q", "s"):
        assert f"call pushreal8({value})" in pushed, (value, text)
    assert "b = sin(a)*(*f);" not in text and "pushReal8(a)" in " ".join(pushes_of(case("c dependent").adjoint.text))
    assert "call pushreal8(q)" in case("fortran changed").adjoint.text
    assert "call pushreal8(q)" in case("fortran target").adjoint.text


def test_split_procedures_keep_their_trips_and_bounds():
    """A procedure called split gets neither per-trip adjoints nor bounds from its arguments."""
    text = case("split", nooptim=frozenset({"checkpoint"})).adjoint.text
    backward = text[text.index("subroutine inner_bwd"):]
    backward = backward[:backward.index("end subroutine")]
    assert "call popinteger4(" in backward and "q = x(i)*2" not in backward, text
    check = case("split", nooptim=frozenset({"checkpoint"})).check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


@pytest.mark.parametrize("name", sorted(CASES))
def test_trips_dot_product(name):
    for optim in ((), ("tbr",), ("diffliveness",)):
        check = case(name, nooptim=frozenset(optim)).check()
        assert check.stack_state == 0 and check.error < TOL, (optim, check.report())


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("name", sorted(CASES))
def test_trips_compiled_checked(name, tmp_path):
    check = case(name).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()
