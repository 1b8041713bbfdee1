"""The interpreter's complex-step mode (engine/interp_complex_step.py): on small programs with
branches, abs, max, sign, mod, loops, arrays and calls, imag(P(x + i h e_k)) / h is the exact
gradient (hand-derived here) to rounding; the real part is the plain run's value (to an ulp:
numpy's complex functions are not the C library's); kinks and
complex variables are refused."""
from __future__ import annotations

import math

import numpy as np
import pytest

import adspec
from adspec.engine.interp import Interpreter, InterpError
from adspec.engine.interp_complex_step import STEP, NonSmoothPoint

FORTRAN = """subroutine g(u, v)
  real(8) u, v
  v = exp(u) * u
end subroutine

subroutine f(x, n, y)
  integer n, i
  real(8) x(n), y, t
  y = 0.0d0
  do i = 1, n
    t = abs(x(i) - 1.0d0)
    if (t > 0.2d0) then
      y = y + max(t, x(i) * x(i))
    else
      y = y - sin(x(i)) / x(i)
    end if
  end do
  y = y + sum(x(2:n) * x(1:n-1))
  call g(y, t)
  y = t + sign(2.0d0, x(1)) * x(2) ** 3 + mod(x(1), 0.3d0) + dble(int(4.0d0 * x(3)))
end subroutine
"""


def fortran_gradient(x):
    n = len(x)
    y0, dy0 = 0.0, np.zeros(n)
    for i, xi in enumerate(x):
        t = abs(xi - 1.0)
        if t > 0.2:
            y0 += max(t, xi * xi)
            dy0[i] += math.copysign(1.0, xi - 1.0) if t > xi * xi else 2 * xi
        else:
            y0 -= math.sin(xi) / xi
            dy0[i] -= (math.cos(xi) * xi - math.sin(xi)) / xi ** 2
    y0 += sum(x[1:] * x[:-1])
    dy0[1:] += x[:-1]
    dy0[:-1] += x[1:]
    grad = math.exp(y0) * (1 + y0) * dy0
    grad[1] += math.copysign(2.0, x[0]) * 3 * x[1] ** 2
    grad[0] += 1.0
    return grad


C = """#include <math.h>
static double h(double a, double b) {
  return atan2(a, b) + hypot(a, b);
}
void f(double *x, double *y, int n) {
  int i, k;
  double s = 0.0;
  for (i = 0; i < n; i++) {
    k = (int) floor(3.0 * x[i]);
    s = s + fabs(x[i] - 1.0) * k + fmax(x[i], 0.9) + erf(x[i]) + pow(x[i], 1.5);
  }
  *y = h(s, x[0]);
}
"""


def c_gradient(x):
    s, ds = 0.0, np.zeros(len(x))
    for i, xi in enumerate(x):
        k = math.floor(3.0 * xi)
        s += abs(xi - 1.0) * k + max(xi, 0.9) + math.erf(xi) + xi ** 1.5
        ds[i] = (math.copysign(k, xi - 1.0) + (1.0 if xi > 0.9 else 0.0)
                 + 2 / math.sqrt(math.pi) * math.exp(-xi * xi) + 1.5 * math.sqrt(xi))
    r2 = s * s + x[0] * x[0]
    grad = (x[0] / r2 + s / math.sqrt(r2)) * ds
    grad[0] += -s / r2 + x[0] / math.sqrt(r2)
    return grad


def stepped_runs(source, lang, make_args, x, out_index):
    """(gradient by complex step along each e_k, real parts of the stepped outputs, plain output)."""
    tree = adspec.parse(source, lang=lang, filename="t.f90" if lang == "fortran" else "t.c")
    plain = make_args(np.array(x, dtype=np.float64))
    Interpreter(tree).call("f", plain)
    grad, reals = [], []
    for k in range(len(x)):
        z = np.array(x, dtype=np.complex128)
        z[k] += 1j * STEP
        args = make_args(z)
        Interpreter(tree, complex_step=True).call("f", args)
        grad.append(np.imag(args[out_index]).item() / STEP)
        reals.append(np.real(args[out_index]).item())
    return np.array(grad), reals, plain[out_index].item()


@pytest.mark.parametrize("x", [[0.65, 1.1, 1.3, 0.95], [1.4, 0.7, 0.55, 1.25]])
def test_fortran_gradient_is_exact(x):
    grad, reals, plain = stepped_runs(
        FORTRAN, "fortran", lambda v: [v, np.array(len(x), dtype=np.int32), np.zeros((), v.dtype)], x, 2)
    assert np.allclose(grad, fortran_gradient(np.array(x)), rtol=1e-14, atol=0), (grad, fortran_gradient(np.array(x)))
    assert np.allclose(reals, plain, rtol=1e-15, atol=0)   # the real computation, up to libm's roundings


@pytest.mark.parametrize("x", [[0.6, 1.1, 1.3], [1.4, 0.7, 1.2]])
def test_c_gradient_is_exact(x):
    grad, reals, plain = stepped_runs(
        C, "c", lambda v: [v, np.zeros(1, v.dtype), np.int32(len(x))], x, 1)
    assert np.allclose(grad, c_gradient(np.array(x)), rtol=1e-14, atol=0), (grad, c_gradient(np.array(x)))
    assert np.allclose(reals, plain, rtol=1e-15, atol=0)


def test_kinks_are_refused_only_when_stepped():
    """abs(x - 1) at x = 1: the step means nothing there; a passive kink is fine."""
    tree = adspec.parse(FORTRAN, lang="fortran", filename="t.f90")
    x = np.array([1.0, 1.1, 1.3], dtype=np.complex128)
    Interpreter(tree, complex_step=True).call("f", [x.copy(), np.array(3, np.int32), np.zeros((), np.complex128)])
    x[0] += 1j * STEP
    with pytest.raises(NonSmoothPoint, match="abs"):
        Interpreter(tree, complex_step=True).call("f", [x, np.array(3, np.int32), np.zeros((), np.complex128)])


def test_max_tie_below_the_extreme_is_smooth():
    tree = adspec.parse("subroutine f(a, b, y)\n  real(8) a, b, y\n  y = max(a, b, 2.0d0 * a)\nend subroutine\n",
                        lang="fortran", filename="t.f90")
    args = [np.array(0.5 + 1j * STEP), np.array(0.5 + 0j), np.zeros((), np.complex128)]
    Interpreter(tree, complex_step=True).call("f", args)
    assert args[2].imag / STEP == 2.0


def test_branches_compare_real_parts():
    """x + ih == x: an equality test on a stepped value takes the branch the real value takes."""
    tree = adspec.parse("subroutine f(x, y)\n  real(8) x, y\n  if (x == 0.5d0) then\n    y = x * x\n"
                        "  else\n    y = -x\n  end if\nend subroutine\n", lang="fortran", filename="t.f90")
    args = [np.array(0.5 + 1j * STEP), np.zeros((), np.complex128)]
    Interpreter(tree, complex_step=True).call("f", args)
    assert args[1] == 0.25 + 1j * STEP


def test_complex_variables_are_refused():
    tree = adspec.parse("subroutine f(x, y)\n  real(8) x, y\n  complex(8) z\n  z = x\n  y = real(z)\nend subroutine\n",
                        lang="fortran", filename="t.f90")
    with pytest.raises(InterpError, match="complex step on a program with complex variables"):
        Interpreter(tree, complex_step=True).call("f", [np.array(0.5 + 0j), np.zeros((), np.complex128)])


@pytest.mark.parametrize("call, x, smooth", [("nint(x)", 2.0, True), ("nint(x)", 2.5, False), ("int(x)", 2.5, True),
                                             ("floor(x)", 2.0, False), ("anint(x)", -1.5, False),
                                             ("aint(x)", -1.5, True)])
def test_rounding_jumps(call, x, smooth):
    """int, floor, aint jump at integers; nint, anint at halves: a step there is refused."""
    tree = adspec.parse(f"subroutine f(x, y)\n  real(8) x, y\n  y = x * {call}\nend subroutine\n",
                        lang="fortran", filename="t.f90")
    args = [np.array(x + 1j * STEP), np.zeros((), np.complex128)]
    if smooth:
        Interpreter(tree, complex_step=True).call("f", args)
        assert args[1].imag / STEP == float(np.real(args[1])) / x
    else:
        with pytest.raises(NonSmoothPoint):
            Interpreter(tree, complex_step=True).call("f", args)
