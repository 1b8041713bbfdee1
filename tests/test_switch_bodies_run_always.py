"""A switch whose body runs whatever the selector is: SELECT CASE with only CASE DEFAULT, a C
default that the case before it falls into. Post-dominance finds no statement control
dependent on such a test, so Diff-live left the test dead and the rules dropped the whole
switch: no derivative of the body in the tangent, neither sweep of it in the adjoint, and the
primal value the rest needs never computed (relative error 0.17 in the dot-product test;
found by hypothesis on 2026-11-28, seed 31337, ADSPEC_HYPOTHESIS_SCALE=5, then shrunk).
Paper 5.2: a statement live for diff makes its surrounding control diff-live
(analyses/diffliveness.py, Controls, with engine/flowgraph.py's switch_bodies)."""
from __future__ import annotations

import pytest

from tangent_check import TangentCase
from test_adjoint_random import ARGS, dot_product_test
from test_adjoint_random_wide import wide_program

FORTRAN_DEFAULT_ONLY = """
subroutine head(x, y, s, k)
  real(8) :: x(4), y(4), s
  integer :: k, m
  m = k + 1
  select case (m)
  case default
     y(1) = sin(y(1))*0.7d0
  end select
  y(2) = y(1)*y(2)
end subroutine head
"""

C_DEFAULT_ONLY = """
#include <math.h>
void head(double *x, double *y, double *s, int k) {
    int m;
    m = k + 1;
    switch (m) {
        default:
            y[0] = sin(y[0]) * 0.7;
    }
    y[1] = y[0] * y[1];
}
"""

# a passive case that falls into the default: the default's body post-dominates the test
C_FALLS_INTO_DEFAULT = """
#include <math.h>
void head(double *x, double *y, double *s, int k) {
    double t;
    t = 0.5;
    switch (k) {
        case 1:
            t = 2.0;
        default:
            y[0] = sin(y[0]) * t;
    }
    y[1] = y[0] * y[1];
}
"""

# the program hypothesis found, shrunk: a call in a WHILE under a default-only switch in a loop
C_CALL_UNDER_DEFAULT = """
void head(double *x, double *y, double *s, int k) {
    double z[4];
    int i, w;
    z[0] = 0.5;
    for (i = 0; i <= 3; i = i + 3) {
        switch ((i + 14) % 6) {
            default:
                w = 0;
                while (w < 3) {
                    bump(y, 0, sin(sqrt(z[0] * z[0] + 1.0)));
                    w = w + 1;
                }
        }
    }
    for (i = 0; i < 4; i++) {
        y[i] = sin(y[i] * sqrt(0.5 * 0.5 + 1.0));
    }
}
"""

CASES = [("fortran", FORTRAN_DEFAULT_ONLY), ("c", C_DEFAULT_ONLY), ("c", C_FALLS_INTO_DEFAULT),
         ("c", wide_program("c", C_CALL_UNDER_DEFAULT))]


@pytest.mark.parametrize("lang, source", CASES, ids=["f-default-only", "c-default-only", "c-falls-into-default",
                                                     "c-call-under-default"])
def test_tangent_of_a_body_that_runs_always_matches_divided_differences(lang, source):
    check = TangentCase(source, lang, "head", ARGS[lang]).check()
    assert check.max_error < 1e-6, check.report()
    assert check.complex_step_error < 1e-12, check.report()


@pytest.mark.parametrize("lang, source", CASES, ids=["f-default-only", "c-default-only", "c-falls-into-default",
                                                     "c-call-under-default"])
def test_adjoint_of_a_body_that_runs_always_passes_the_dot_product_test(lang, source):
    dot_product_test(source, lang)
