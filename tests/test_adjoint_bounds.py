"""Loop bounds fixed in the procedure (rules/adjoint/bounds.py A-bounds-fixed): a loop with a
unit stride whose bounds are constants or names nothing in the procedure assigns pushes no
bound; the backward loop starts from the last index computed from the bounds, and runs no trip
where the forward ran none. A bound the procedure assigns, a stride 2, keep the pushes of the
loop rule (A-bounds-saved). Dot-product test, interpreted and compiled with the sanitizers."""
import pytest

from adjoint_check import RUNTIME, AdjointCase
from test_adjoint import TOL, integer, real

C_FIXED = """
#include <math.h>
void cb(double *x, double *y, int n, int m) {
  int i, j;
  *y = 0.0;
  for (i = 0; i < n; i++)
    for (j = n - 1; j >= 0; j--)
      *y = *y + sin(x[i] * x[j]) * *y;
  for (i = m; i <= n - 1; i++)
    *y = *y * cos(x[i]);
  for (i = n; i > m; i--)
    *y = *y * x[i - 1];
}
"""

C_SAVED = """
#include <math.h>
void cs(double *x, double *y, int n, int m) {
  int i;
  *y = 1.0;
  m = m - 1;
  for (i = 0; i < n; i += 2)
    *y = *y + sin(x[i]) * *y;
  for (i = m; i < n; i++)
    *y = *y * cos(x[i]);
}
"""

F_FIXED = """
subroutine ffb(x, y, n, m)
  integer n, m, i, j
  real(8) x(n), y
  y = 1
  do i = 1, n
    do j = n, 1, -1
      y = y*cos(x(j)) + x(i)*sin(y)
    end do
  end do
  do i = m, n
    y = y*sin(x(i))
  end do
end subroutine
"""

F_SAVED = """
subroutine fsb(x, y, n, m)
  integer n, m, i
  real(8) x(n), y
  y = 1
  m = m + 1 - 1
  do i = m, n
    y = y*cos(x(i))
  end do
  do i = 1, n, 2
    y = y*sin(x(i)) + y
  end do
end subroutine
"""

N = 5
CASES = {
    "c fixed": (C_FIXED, "c", "cb(y)/(x)", True),
    "c saved": (C_SAVED, "c", "cs(y)/(x)", False),
    "fortran fixed": (F_FIXED, "fortran", "ffb(y)/(x)", True),
    "fortran saved": (F_SAVED, "fortran", "fsb(y)/(x)", False),
}


def case(name, m=2, **options):
    source, lang, head, _ = CASES[name]
    y = real("y", (1,)) if lang == "c" else real("y")
    return AdjointCase(source, lang, head, [real("x", (N,)), y, integer("n", N), integer("m", m)], **options)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixed_bounds_are_not_pushed(name):
    text = case(name).adjoint.text
    pushed = text.lower().count("pushinteger4(")
    if CASES[name][3]:
        assert pushed == 0 and "ad_to" in text, text
    else:
        assert pushed >= 4, text


@pytest.mark.parametrize("m", [2, 9])
@pytest.mark.parametrize("name", sorted(CASES))
def test_bounds_dot_product(name, m):
    """m = 9: the loops from m run no trip."""
    check = case(name, m=m).check()
    assert check.stack_state == 0 and check.error < TOL, check.report()


@pytest.mark.skipif(not RUNTIME.is_dir(), reason="no runtime")
@pytest.mark.parametrize("name", sorted(CASES))
def test_bounds_compiled_checked(name, tmp_path):
    check = case(name).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()
