"""Loops that do nothing leave the adjoint (rules/adjoint/empty_loops.py): the forward nest
of a matrix-vector product, whose trips compute and push nothing (fixed bounds), and the
empty backward loop L-interchange leaves behind; a loop whose index is read after it stays."""
import re
from pathlib import Path

import pytest

from adjoint_check import AdjointCase
from harness import require_compilers

MATVEC = (Path(__file__).resolve().parent.parent / "docs" / "examples" / "matvec.f90").read_text()

C_MATVEC = """\
void matvec(double *w, double *h, double *z, int n) {
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            z[i] = z[i] + w[i * n + j] * h[j];
}
"""

# the forward nest pushes nothing, but `y * i` reads i after it: the outer loop stays
INDEX_READ_AFTER = """\
subroutine g(x, y, n)
  integer :: n, i, j
  real(8) :: x(n), y
  do i = 1, n
    do j = 1, n
      y = y + x(j) * x(i)
    end do
  end do
  y = y * i
end subroutine
"""

EMPTY_DO = re.compile(r"^\s*do [^\n]*\n\s*end do", re.M)
EMPTY_FOR = re.compile(r"for \([^)]*\) \{\s*\}")


def _loops(text: str, keyword: str) -> list:
    return re.findall(rf"^\s*{keyword} ?\(?(\w+) =", text, re.M)


@pytest.mark.compile
def test_fortran_matvec_has_no_empty_loop(tmp_path):
    require_compilers("fortran")
    case = AdjointCase(MATVEC, "fortran", "matvec(z)/(w h)",
                       [("w", "real", (3, 3), None), ("h", "real", (3,), None), ("z", "real", (3,), None),
                        ("n", "int", (), 3)])
    text = case.adjoint.text
    assert not EMPTY_DO.search(text), text
    assert _loops(text, "do") == ["j", "i"], text   # the backward nest alone, column by column
    for bound in ("ad_from", "ad_stride", "ad_from0", "ad_stride0"):   # what the backward loops read is set
        assert re.search(rf"^\s*{bound} = 1$", text, re.M), text
    check = case.compiled_check(tmp_path, flags=("-O0", "-Wall"), checked=True)
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


def test_c_matvec_has_no_empty_loop():
    case = AdjointCase(C_MATVEC, "c", "matvec(z)/(w h)",
                       [("w", "real", (9,), None), ("h", "real", (3,), None), ("z", "real", (3,), None),
                        ("n", "int", (), 3)])
    assert not EMPTY_FOR.search(case.adjoint.text), case.adjoint.text
    assert _loops(case.adjoint.text, "for") == ["i", "j"], case.adjoint.text
    check = case.check()
    assert check.error < 1e-12, check.report()


def test_a_loop_whose_index_is_read_after_it_stays():
    case = AdjointCase(INDEX_READ_AFTER, "fortran", "g(y)/(x y)",
                       [("x", "real", (3,), None), ("y", "real", (), None), ("n", "int", (), 3)])
    text = case.adjoint.text
    assert _loops(text, "do") == ["i", "i", "j"], text   # the forward loop on i, its inner j loop gone
    check = case.check()
    assert check.error < 1e-12, check.report()


def test_index_set_again_before_it_is_read():
    """energy.c: J-pair's remainder `if (i >= ad_from)` reads i after the backward loop,
    which sets i first: the empty forward loop goes all the same."""
    source = (Path(__file__).resolve().parent.parent / "docs" / "examples" / "energy.c").read_text()
    case = AdjointCase(source, "c", "energy(f)/(x y)", [("n", "int", (), 5), ("x", "real", (5,), None),
                                                         ("y", "real", (5,), None), ("f", "real", (1,), None)])
    assert not EMPTY_FOR.search(case.adjoint.text), case.adjoint.text
    assert re.search(r"if \(i >= ad_from\)", case.adjoint.text), case.adjoint.text   # the pairs' remainder
    check = case.check()
    assert check.error < 1e-12, check.report()
