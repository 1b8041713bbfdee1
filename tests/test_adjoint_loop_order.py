"""Loop order in the backward sweep (rules/adjoint/loop_order.py, L-interchange): an inner loop
whose adjoint only increments elements along lines of the iteration space leaves its outer
loop and runs column by column (Fortran); where a premise fails (an adjoint the outer body
writes before the inner loop, an element incremented by every trip) the nest stays as the
loop rule of 5.4 writes it. The adjoint is the same as under -nooptim looporder, to the
last bit in the interpreter, passes the dot-product test, and compiled at -O2 with
-fcheck=all and the sanitizers."""
import numpy as np
import pytest

from adjoint_check import RUNTIME, AdjointCase
from test_adjoint import TOL, integer, real
from test_adjoint_kernels import case as kernel

NESTS = """
subroutine lo(w, u, b, x, h, q, c, y, z, nh, nx, nt, k)
  integer nh, nx, nt, k, i, j, t
  real(8) w(nh, nh), u(nh, nx), b(nh), x(nx, nt), h(nh), q(nh, nx), c(nx), y, z(nh)
  real(8) a(nh)
  do t = 1, nt
    do i = 1, nh
      a(i) = 2.0d0 * b(i)
      do j = 1, nx
        a(i) = a(i) + u(i, j) * x(j, t)
      end do
    end do
    do i = 1, nh
      h(i) = sin(a(i)) * h(i) + b(i)
    end do
  end do
  do i = 1, nh
    do j = 1, nh
      z(i) = z(i) + w(i, j) * h(j)
    end do
    z(i) = z(i) * b(i)
  end do
  do i = 1, nh
    do j = 1, nx
      q(i, j) = q(i, j) + u(i, j) * c(k)
    end do
  end do
  y = 0.0d0
  do i = 1, nh
    y = y + h(i) * h(i) + z(i) * q(i, 1)
  end do
end subroutine
"""
ARGS = [real("w", (4, 4)), real("u", (4, 3)), real("b", (4,)), real("x", (3, 2)), real("h", (4,)),
        real("q", (4, 3)), real("c", (3,)), real("y"), real("z", (4,)), integer("nh", 4), integer("nx", 3),
        integer("nt", 2), integer("k", 2)]
HEAD = "lo(y)/(w u b c)"


def nests(text: str) -> list:
    """(outer index, inner index) of each DO loop of P_b's backward sweep holding another
    (its first), in order."""
    lines = text.splitlines()
    lines = lines[next(n for n, line in enumerate(lines) if line.strip() == "wb = 0.0d0"):]
    depth = [len(line) - len(line.lstrip()) for line in lines]
    found = []
    for n, line in enumerate(lines):
        if line.strip().startswith("do "):
            end = next(m for m in range(n + 1, len(lines)) if depth[m] == depth[n] and lines[m].strip() == "end do")
            inner = next((lines[m].split()[1] for m in range(n + 1, end) if lines[m].strip().startswith("do ")), None)
            if inner is not None:
                found.append((line.split()[1], inner))
    return found


def test_backward_nests_run_column_by_column():
    """In the backward sweep, the loops come last first: the third nest keeps i outside
    (cb(k) is incremented by every trip), the second too (zb(i) is written before the inner
    loop in the same trip); the nest in the loop on t goes out of its loop on i, j outside
    (ub(i, j) down its columns)."""
    text = AdjointCase(NESTS, "fortran", HEAD, ARGS).adjoint.text
    found = nests(text)
    assert found == [("i", "j"), ("i", "j"), ("t", "i"), ("j", "i")], (found, text)
    assert "cb(k) = cb(k) + u(i, j)*qb(i, j)" in text
    off = AdjointCase(NESTS, "fortran", HEAD, ARGS, nooptim=frozenset({"looporder"})).adjoint.text
    assert nests(off) == [("i", "j"), ("i", "j"), ("t", "i"), ("i", "j")], off


def test_the_adjoint_is_the_same_either_way():
    """Each element gets the same increments in the same order: X̄ equal to the last bit."""
    case = AdjointCase(NESTS, "fortran", HEAD, ARGS)
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()
    reference, _ = case.run_adjoint()
    xbar, _ = case.variant(nooptim=frozenset({"looporder"})).run_adjoint()
    for name, value in reference.items():
        assert np.array_equal(np.asarray(xbar[name]), value), name


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
def test_interchanged_nests_compiled_checked(tmp_path):
    check = AdjointCase(NESTS, "fortran", HEAD, ARGS).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


def test_rnn_backward_nests_run_column_by_column():
    """bench/kernels/rnn.f90: ub(i, j) and wb(i, j) are incremented down their columns."""
    assert nests(kernel("rnn").adjoint.text) == [("t", "i"), ("j", "i"), ("j", "i")]
