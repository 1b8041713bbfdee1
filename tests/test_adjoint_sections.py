"""Arrays pushed whole (analyses/tbr_sections.py, rules/adjoint/sections.py): a DO loop that
overwrites an exact section of an array whose old values a derivative reads saves the section
with one PUSHREAL8ARRAY before the loop and restores it after its backward loop. Loops where
the section is not proven (the body reads the array, writes it twice, a non-unit index
coefficient, a nested IF, an offset that the procedure assigns) keep one push per element.
Every program passes the dot-product test, interpreted and compiled under -fcheck=all."""
import pytest

from adjoint_check import RUNTIME, AdjointCase
from test_adjoint import TOL, integer, real

SAVED = """
subroutine sec(a, b, x, y, n, k, m)
  integer n, k, m, i
  real(8) a(n), b(n, 3), x(n), y
  y = 0
  do i = 1, n
    y = y + sin(a(i))*x(i)
  end do
  do i = 2, n - 1
    a(i + 1) = x(i)*x(i - 1)
  end do
  do i = 1, n
    y = y + cos(b(i, 2))*a(i)
  end do
  do i = n, 1, -1
    b(i, 2) = x(i)*y
  end do
  do i = 1, n
    y = y + exp(a(i))*b(i, 2)
  end do
  do i = k, n - 3
    a(i) = x(i)*y
  end do
  do i = 1, n
    y = y + a(i)*a(i)*b(i, 2)
  end do
  do i = 1, n - m
    a(i + m) = x(i) - y
    y = y + x(i)*x(i)
  end do
  y = y + sum(a*a)
end subroutine
"""

NOT_SAVED = """
subroutine nsec(a, x, y, n, k)
  integer n, k, i
  real(8) a(n), x(n), y
  y = 0
  do i = 1, n
    y = y + sin(a(i))
  end do
  do i = 1, n
    a(i) = a(i)*x(i)
  end do
  do i = 1, n
    y = y + a(i)**3
  end do
  do i = 1, n / 2
    a(2*i) = x(i)*y
  end do
  do i = 1, n
    y = y + a(i)**3
  end do
  do i = 1, n
    a(i) = x(i)
    a(i) = y*x(i)
  end do
  do i = 1, n
    y = y + cos(a(i))
  end do
  do i = 1, n
    if (x(i) > 0) then
      y = y + x(i)
    end if
    a(i) = y
  end do
  do i = 1, n
    y = y + a(i)*a(i)
  end do
  k = k + 0
  do i = 1, n - k
    a(i + k) = x(i)*y
  end do
  y = y + sum(sin(a))
end subroutine
"""

# a is a TARGET: a pointer could reach it under another name, so each element is pushed
TARGET = """
subroutine tsec(a, x, y, n)
  integer n, i
  real(8), target :: a(n)
  real(8) x(n), y
  y = 0
  do i = 1, n
    y = y + sin(a(i))
  end do
  do i = 1, n
    a(i) = x(i)*y
  end do
  y = y + sum(a*a)
end subroutine
"""

N = 7
SAVED_ARGS = [real("a", (N,)), real("b", (N, 3)), real("x", (N,)), real("y"), integer("n", N), integer("k", 2),
              integer("m", 3)]
NOT_SAVED_ARGS = [real("a", (N,)), real("x", (N,)), real("y"), integer("n", N), integer("k", 2)]


def saved_case(**options):
    return AdjointCase(SAVED, "fortran", "sec(y)/(a b x)", SAVED_ARGS, **options)


def lines_of(case):
    return [line.strip() for line in case.adjoint.text.splitlines()]


def test_loops_that_overwrite_a_section_push_it_whole():
    """Each of the four loops pushes its section once (offset +1, stride -1 on a column, a
    lower bound that may exceed the upper, an offset named m) and pops the same section, by
    its popped bounds, after its backward loop; no element is pushed alone."""
    case = saved_case()
    lines = lines_of(case)
    assert not any(line.startswith(("call pushreal8(a", "call pushreal8(b")) for line in lines), case.adjoint.text
    pushes = [line for line in lines if line.startswith("call pushreal8array(")]
    pops = [line for line in lines if line.startswith("call popreal8array(")]
    assert [p.split("(", 1)[1].split(", size(")[0] for p in pushes] == [
        "a(ad_from0 + 1:n - 1 + 1)", "b(1:ad_from2, 2)", "a(ad_from4:n - 3)", "a(ad_from6 + m:n - m + m)"], pushes
    assert len(pops) == 4 and "b(ad_to2:ad_from2, 2)" in pops[2], pops
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


@pytest.mark.parametrize("k", [2, 9])
def test_sections_under_zero_trips_and_without_tbr(k):
    """k = 9: the loop from k to n - 3 runs no trip, its section is empty. Under -nooptim tbr
    every overwritten value is saved, sections included; both agree with the tangent."""
    args = [arg if arg[0] != "k" else integer("k", k) for arg in SAVED_ARGS]
    for optim in ((), ("tbr",)):
        case = AdjointCase(SAVED, "fortran", "sec(y)/(a b x)", args, nooptim=frozenset(optim))
        check = case.check()
        assert check.stack_state == 0 and check.error < TOL, check.report()


def test_loops_where_the_section_is_not_proven_push_each_element():
    case = AdjointCase(NOT_SAVED, "fortran", "nsec(y)/(a x)", NOT_SAVED_ARGS)
    lines = lines_of(case)
    assert not any("real8array" in line for line in lines), case.adjoint.text
    for statement in ("a(i) = a(i)*x(i)", "a(2*i) = x(i)*y", "a(i) = y*x(i)", "a(i) = y", "a(i + k) = x(i)*y"):
        assert lines[lines.index(statement) - 1].startswith("call pushreal8(a("), statement
    check = case.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()
    target = AdjointCase(TARGET, "fortran", "tsec(y)/(a x)", [real("a", (N,)), real("x", (N,)), real("y"),
                                                               integer("n", N)])
    assert "call pushreal8(a(i))" in target.adjoint.text and "array" not in target.adjoint.text, target.adjoint.text
    check = target.check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("which", ["saved", "not saved"])
def test_sections_compiled_checked(which, tmp_path):
    case = saved_case() if which == "saved" else AdjointCase(NOT_SAVED, "fortran", "nsec(y)/(a x)", NOT_SAVED_ARGS)
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()
