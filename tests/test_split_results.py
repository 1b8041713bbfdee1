"""A function called split (-nocheckpoint, $AD NOCHECKPOINT): its P_fwd returns the value
(Tapenade's FOO_FWD does), also where no caller reads it (fig. 8: gfortran -Wall warned that
foo_fwd never set foo; in C, foo_fwd returned an r it never computed). A caller that reads
the value (in a later active statement, a loop count, a test) gets it: checked by numbers."""
import re
from pathlib import Path

import pytest

from adjoint_check import AdjointCase
from harness import require_compilers

SPLIT = {"nooptim": frozenset({"checkpoint"})}   # -nocheckpoint
FIG8 = (Path(__file__).resolve().parent.parent / "docs" / "examples" / "fig8.f90").read_text()
FIG8_ARGS = [("a", "real", (), None), ("x", "real", (), None), ("z", "real", (), None), ("t", "real", (), None),
             ("y", "real", (), None), ("b", "real", (), None), ("c", "real", (), None)]

C_FIG8 = """\
#include <math.h>
double foo(double *a, double *x, double t) {
    double r;
    r = sin(*a * *x) * t;
    *a = 2 * *a;
    *x = *x * t;
    return r;
}
void top(double *a, double *x, double *z, double *t, double *y, double *b, double *c) {
    *y = foo(a, x, 2.5);
    *b = foo(c, z, *t);
}
"""

FOO = FIG8[FIG8.index("function foo"):FIG8.index("end function foo")] + "end function foo\n"   # fig. 8's foo

# callers that read foo's value: a later active statement, a loop count, a test
READERS = {
    "active statement": "  y = foo(a, x, t)\n  y = y * y\n",
    "loop count": "  v = foo(a, x, t)\n  n = int(v * 3)\n  do i = 1, n\n    y = y * t\n  end do\n",
    "test": "  y = x * t\n  if (foo(a, x, 2.0d0) > 0.5d0) y = y * t\n",
}


def _reader(body: str) -> str:
    return FOO + ("subroutine top(a, x, t, y)\n  real(8) :: a, x, t, y, v\n  real(8) :: foo\n  integer :: i, n\n"
                  + body + "end subroutine top\n")


def _fwd(text: str, start: str) -> str:
    return text[text.index(start):].split("end function", 1)[0].split("\n}", 1)[0]


@pytest.mark.compile
@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_split_function_returns_its_value(lang, tmp_path):
    require_compilers(lang)
    args = FIG8_ARGS if lang == "fortran" else [(n, k, (1,), v) for n, k, _, v in FIG8_ARGS]
    case = AdjointCase(FIG8 if lang == "fortran" else C_FIG8, lang, "top(y b)/(x z t)", args, **SPLIT)
    forward = _fwd(case.adjoint.text, "function foo_fwd" if lang == "fortran" else "double foo_fwd")
    assert re.search(r"^\s*(foo|r) = sin\(", forward, re.M), case.adjoint.text
    check = case.compiled_check(tmp_path, flags=("-O2", "-Wall"))
    assert check.error < 1e-12 and check.interpreter_error < 1e-13, check.report()


@pytest.mark.compile
def test_no_warning_of_an_unset_result(tmp_path):
    require_compilers("fortran")
    import subprocess
    case = AdjointCase(FIG8, "fortran", "top(y b)/(x z t)", FIG8_ARGS, **SPLIT)
    (tmp_path / "fig8_b.f90").write_text(case.adjoint.text)
    done = subprocess.run(["gfortran", "-Wall", "-c", "fig8_b.f90"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "not set" not in done.stderr, done.stderr


@pytest.mark.parametrize("reader", sorted(READERS))
def test_callers_reading_the_value(reader):
    case = AdjointCase(_reader(READERS[reader]), "fortran", "top(y)/(x t y)",
                       [("a", "real", (), None), ("x", "real", (), None), ("t", "real", (), None),
                        ("y", "real", (), None)], **SPLIT)
    check = case.check()
    assert check.error < 1e-12 and check.stack_state == 0, check.report()


@pytest.mark.compile
@pytest.mark.parametrize("split", [False, True])
def test_adjoint_of_an_inactive_result_is_declared(split, tmp_path):
    """foo's value only counts the loop: foo_b / foo_bwd take foob with no derivative
    through it, declared of foo's type all the same (it was implicit real(4), passed a
    real(8))."""
    require_compilers("fortran")
    case = AdjointCase(_reader(READERS["loop count"]), "fortran", "top(y)/(x t y)",
                       [("a", "real", (), None), ("x", "real", (), None), ("t", "real", (), None),
                        ("y", "real", (), None)], **(SPLIT if split else {}))
    assert re.search(r"^\s*real\(8\) :: foob$", case.adjoint.text, re.M), case.adjoint.text
    check = case.compiled_check(tmp_path, flags=("-O2", "-Wall"))
    assert check.error < 1e-12, check.report()
