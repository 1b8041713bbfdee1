"""Temporaries that stand for a callee's formal take the formal's type: the zero derivative
(`dummyzerod`) and zero adjoint (`dummyb`) passed for a passive actual, the `argN` / `argb`
temporaries of an expression actual, the results of calls. A real(4) / C float callee
given a constant would otherwise get a real(8) dummy (gfortran: "Type mismatch in argument",
gcc: a double array where F_DV takes a float pointer).

The heads take real(8) / double arguments (the harness passes doubles); the single
precision lives in the callees, so the compiled derivatives agree to single precision."""
import re

import pytest

from adjoint_check import AdjointCase
from harness import require_compilers
from tangent_check import TangentCase, compiled_errors, vector_error

FORTRAN = """\
real function sq(t, c)
  real :: t, c
  sq = t * t * c
end function
real(8) function dq(t, c)
  real(8) :: t, c
  dq = t * t * c
end function
subroutine s4(a, b)
  real :: a, b
  b = b + a * b
end subroutine
subroutine f(x, y)
  real(8) :: x, y
  real :: xs, ys, sq
  real(8) :: dq
  xs = x
  ys = sq(xs, 2.0) + sq(3.0, xs) + sq(xs * 2.0, 1.5)
  call s4(2.0, ys)
  y = ys + dq(x, 2.0d0) + dq(3.0d0, x)
end subroutine
"""

C = """\
float sq(float t, float c) { return t * t * c; }
double dq(double t, double c) { return t * t * c; }
void s4(float a, float *b) { *b = *b + a * *b; }
void f(double *x, double *y) {
    float xs = *x, ys;
    ys = sq(xs, 2.0f) + sq(3.0f, xs) + sq(xs * 2.0f, 1.5f);
    s4(2.0f, &ys);
    *y = ys + dq(*x, 2.0) + dq(3.0, *x);
}
"""

ARGS = {"fortran": [("x", "real", (), None), ("y", "real", (), None)],
        "c": [("x", "real", (1,), None), ("y", "real", (1,), None)]}   # C pointers
SINGLE = 1e-5   # the callees compute in single precision


def _wrong_kinds(text: str, name: str, lang: str) -> list:
    """The temporaries `name`N passed to sq / s4 (single precision) or dq (double) whose
    declared type is not their callee's formal's."""
    decl = (r"^\s*(real(?:\(\d\))?)\s*::\s*({0}\d*)\b" if lang == "fortran"
            else r"^\s*(float|double)\s+({0}\d*)\b").format(name)
    declared = {temp: typ for typ, temp in re.findall(decl, text, re.M)}
    wrong = []
    for callee, args in re.findall(r"\b(sq|dq|s4)_[bdv]+\(([^)]*)\)", text):
        want = ("real(8)", "double") if callee == "dq" else ("real", "real(4)", "float")
        wrong += [(callee, t, declared[t]) for t in re.findall(rf"\b{name}\d*\b", args) if declared[t] not in want]
    return wrong


@pytest.mark.compile
@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_dummy_derivatives_of_the_formal_kind(lang, tmp_path):
    require_compilers(lang)
    case = TangentCase(FORTRAN if lang == "fortran" else C, lang, "f(y)/(x)", ARGS[lang])
    assert not _wrong_kinds(case.result.text, "dummyzerod", lang), case.result.text
    assert not _wrong_kinds(case.vector.text, "dummyzerod", lang), case.vector.text
    runs = case.compiled(tmp_path, checked=False)
    assert not [w for w in runs.compiler_messages.splitlines() if "mismatch" in w or "incompatible" in w], \
        runs.compiler_messages
    errors = compiled_errors(case, runs)
    # (divided differences with a 1e-6 step mean nothing in single precision)
    assert errors["complex step"] < SINGLE and errors["interpreter"] < 1e-14, errors
    assert vector_error(runs) < 1e-14


@pytest.mark.compile
@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_dummy_adjoints_of_the_formal_kind(lang, tmp_path):
    require_compilers(lang)
    case = AdjointCase(FORTRAN if lang == "fortran" else C, lang, "f(y)/(x)", ARGS[lang])
    assert not _wrong_kinds(case.adjoint.text, "dummyb", lang) + _wrong_kinds(case.adjoint.text, "argb", lang), \
        case.adjoint.text
    check = case.compiled_check(tmp_path, flags=("-O0", "-Wall"))
    assert check.error < SINGLE, check.report()
