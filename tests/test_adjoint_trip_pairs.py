"""Trips in pairs (rules/adjoint/trip_pairs.py, J-pair) and the fold of the adjoints reset at
the end of each trip (rules/adjoint/merge.py, M-fold-trip), in C: the backward loop of
independent trips runs two trips side by side, each with its own private variables, then
the last one alone; where a premise fails (a private value read after the loop, a sum read
by the trip) it runs them one by one. The adjoint passes the dot-product test for an even,
an odd and a zero trip count, either stride, in the interpreter and compiled at -O2 with
the sanitizers, and is -nooptim trippairs's up to the order of the additions."""
import numpy as np
import pytest

from adjoint_check import RUNTIME, AdjointCase
from test_adjoint import TOL, integer, real

PAIRED = """
#include <math.h>
void pairs(double *x, double *y, double *z, double *f, int n) {
  int k;
  double a, b, c, d, s;
  *f = 0.0;
  for (k = n - 1; k >= 0; k--) {
    a = x[k] * y[k];
    b = sin(a) + x[k + 1];
    c = a * b - y[k + 1];
    d = exp(-c * c) + b;
    s = c * d / (1.0 + b * b);
    z[1] = z[1] + a * s;
    *f = *f + s * s - a * d;
  }
}
"""
# the private a is read after the loop: the trips go one by one
UNPAIRED = """
#include <math.h>
void single(double *x, double *y, double *f, int n) {
  int k;
  double a, b, c, d, s;
  a = 0.0;
  *f = 0.0;
  for (k = 0; k < n; k++) {
    a = x[k] * y[k];
    b = sin(a) + x[k + 1];
    c = a * b - y[k + 1];
    d = exp(-c * c) + b;
    s = c * d / (1.0 + b * b);
    *f = *f + s * s - a * d;
  }
  *f = *f * a;
}
"""


def pairs(n: int, **options) -> AdjointCase:
    args = [real("x", (n + 1,)), real("y", (n + 1,)), real("z", (3,)), real("f", (1,)), integer("n", n)]
    return AdjointCase(PAIRED, "c", "pairs(f z)/(x y)", args, **options)


def single(n: int, **options) -> AdjointCase:
    args = [real("x", (n + 1,)), real("y", (n + 1,)), real("f", (1,)), integer("n", n)]
    return AdjointCase(UNPAIRED, "c", "single(f)/(x y)", args, **options)


def lines_of(case: AdjointCase) -> list:
    return [line.strip() for line in case.adjoint.text.splitlines()]


def test_independent_trips_run_two_by_two():
    """The loop of pairs goes up (the primal loop went down), the second trip of a pair is
    k + 1 with its own a0, b0, ..; the last trip alone; the adjoints of the privates are
    assigned, not incremented (M-fold-trip: they are 0 where each trip starts)."""
    lines = lines_of(pairs(5))
    assert "for (k = ad_to; k + 1 <= ad_from; k = k + 1 + 1) {" in lines, lines
    assert "if (k <= ad_from) {" in lines and lines.count("a = x[k] * y[k];") == 2
    assert "a0 = x[k + 1] * y[k + 1];" in lines
    assert not any(line.startswith(("ab = ab ", "bb = bb ", "cb = cb ", "db = db ", "sb = sb ")) for line in lines)
    text = "\n".join(lines_of(pairs(5, nooptim=frozenset({"trippairs"}))))
    assert "a0 = " not in text and "if (k" not in text, text


def test_a_private_read_after_the_loop_keeps_the_trips_one_by_one():
    lines = lines_of(single(4))
    assert not any(line.startswith("a0 = ") for line in lines) and not any("if (k" in line for line in lines), lines


@pytest.mark.parametrize("n", [0, 1, 4, 5])
def test_pairs_dot_product(n):
    for case in (pairs(n), single(n)):
        check = case.check()
        assert check.stack_state == 0 and check.error < TOL, check.report()


def test_pairs_give_the_adjoint_of_trips_one_by_one():
    """Up to the order of the additions into z̄ and x̄, ȳ from two trips."""
    reference, _ = pairs(5, nooptim=frozenset({"trippairs"})).run_adjoint()
    xbar, _ = pairs(5).run_adjoint()
    for name, value in reference.items():
        assert np.allclose(np.asarray(xbar[name]), value, rtol=1e-14, atol=0), name


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("n", [1, 4, 5])
def test_pairs_compiled_checked(n, tmp_path):
    check = pairs(n).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()
