"""The numeric acceptance of tangent mode, over every tangent program (the Fortran PROGRAMS of
tests/test_tangent_programs.py and the C_CASES of tests/c_tangent_cases.py: a program
appended to either list is checked here too):

- the tangent compiled (gcc/gfortran -O0 -Wall, with the original, in one compiler call; no
  warning in the derivative code) agrees with
  complex step to 1e-12 relative, with central differences to 1e-6, with the tangent in the
  interpreter to 1e-14, and its primal outputs with the original's in the interpreter;
- -vector, nbdirs = 3, compiled in the same call, agrees with three compiled scalar runs to
  1e-14 (vector mode must accept every program);
- the same program (original + F_D + F_DV + driver) built once more with AddressSanitizer and
  UBSan (C and Fortran) and -fcheck=all (Fortran) runs with no report and prints the same
  numbers bit for bit (tests/harness.py, CHECKED_FLAGS);
- -nooptim activity and -nooptim diffliveness give the derivatives of the optimised tangent
  (1e-14, interpreter).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import require_compilers
from tangent_check import TangentCase, compiled_errors, relative_error, vector_error
from c_tangent_cases import C_CASES, SINGLE_PRECISION
from test_tangent_programs import C_PROGRAMS, HERE, PROGRAMS

COMPLEX_STEP_TOLERANCE = 1e-12
FLOAT_TOLERANCE = 1e-5        # a float program against complex step in double
DIVIDED_DIFFERENCES_TOLERANCE = 1e-6
SAME_CODE_TOLERANCE = 1e-14   # the same derivative code run twice (compiled vs interpreted, vector vs scalar)


def _cases():
    """(path, language, head, args) of every tangent program, with the lists' ids and marks."""
    out = []
    for lang, programs in (("fortran", PROGRAMS), ("c", C_CASES + C_PROGRAMS)):
        for p in programs:
            values = p.values if hasattr(p, "values") else p
            name, head, args = values
            path = HERE / name if Path(name).suffix else HERE / f"{name}.{'f90' if lang == 'fortran' else 'c'}"
            out.append(pytest.param(path, lang, head, args, id=getattr(p, "id", None) or Path(name).stem,
                                    marks=getattr(p, "marks", ())))
    return out


CASES = _cases()


def _case(path, lang, head, args, **options) -> TangentCase:
    return TangentCase(Path(path).read_text(), lang, head, args, filename=Path(path).name, **options)


# Heads with an independent that only inquiry functions use: its derivative argument is kept
# (as Tapenade) and read by nothing, which is all -Wall may say about them.
ZERO_DERIVATIVE_ARGUMENTS = {"l02_inquiry_independent.f90"}
_COMPILED: dict = {}


def _compiled(path, lang, head, args, workdir):
    """Each program compiled and run once (original + F_D + F_DV + driver), shared by the tests."""
    key = (str(path), head)
    if key not in _COMPILED:
        require_compilers(lang)
        case = _case(path, lang, head, args)
        _COMPILED[key] = case, case.compiled(workdir)
    return _COMPILED[key]


@pytest.mark.compile
@pytest.mark.parametrize("path, lang, head, args", CASES)
def test_compiled_tangent(path, lang, head, args, tmp_path_factory):
    case, runs = _compiled(path, lang, head, args, tmp_path_factory.mktemp(Path(path).stem))
    errors = compiled_errors(case, runs)
    report = f"{Path(path).name} {head}: {errors}\n{case.result.text}"
    if Path(path).name in SINGLE_PRECISION:  # float: complex step to float accuracy; differences in
        assert errors["complex step"] <= FLOAT_TOLERANCE, report   # tests/test_tangent_c_programs.py
        return
    assert errors["central differences"] <= DIVIDED_DIFFERENCES_TOLERANCE, report
    assert errors["interpreter"] <= SAME_CODE_TOLERANCE, report
    assert errors["primal"] <= SAME_CODE_TOLERANCE, report
    if Path(path).name in ZERO_DERIVATIVE_ARGUMENTS:   # the derivative of an independent nothing reads
        warned = [w for w in runs.compiler_messages.splitlines() if w.startswith("Warning:")]
        assert all("Unused dummy argument ‘xd’" in w for w in warned), runs.compiler_messages
    else:
        assert not runs.warnings, runs.compiler_messages   # gcc/gfortran -Wall: nothing in the derivative code
    if "complex step skipped" in errors:   # inputs in (0.5, 1.5) should avoid the kinks
        pytest.skip(f"complex step not valid here: {errors['complex step skipped']}")
    assert errors["complex step"] <= COMPLEX_STEP_TOLERANCE, report


@pytest.mark.compile
@pytest.mark.parametrize("path, lang, head, args", CASES)
def test_compiled_vector_mode_agrees_with_scalar_runs(path, lang, head, args, tmp_path_factory):
    case, runs = _compiled(path, lang, head, args, tmp_path_factory.mktemp(Path(path).stem))
    assert runs.vector is not None, f"-vector refused {Path(path).name}: {case.vector}"
    assert vector_error(runs) <= SAME_CODE_TOLERANCE, (runs.vector, runs.scalar_runs)


@pytest.mark.compile
@pytest.mark.parametrize("path, lang, head, args", CASES)
def test_compiled_tangent_is_clean_under_runtime_checks(path, lang, head, args, tmp_path_factory):
    case, runs = _compiled(path, lang, head, args, tmp_path_factory.mktemp(Path(path).stem))
    assert runs.checks == "", f"{Path(path).name}: {runs.checks}\n{case.result.text}"


_OPTIMISED: dict = {}


@pytest.mark.parametrize("nooptim", ["activity", "diffliveness"])
@pytest.mark.parametrize("path, lang, head, args", CASES)
def test_nooptim_gives_the_same_derivatives(path, lang, head, args, nooptim):
    key = (str(path), head)
    if key not in _OPTIMISED:
        _OPTIMISED[key] = _case(path, lang, head, args).interp_tangent()
    optimised = _OPTIMISED[key]
    naive = _case(path, lang, head, args, nooptim=frozenset({nooptim})).interp_tangent()
    assert relative_error(naive, optimised) <= SAME_CODE_TOLERANCE, (naive, optimised)


# --- the harness on function heads: F_D returns the derivative, the result is a last argument ----
FUNCTION_HEADS = [
    pytest.param("function f(x, y)\n  real(8) f, x, y\n  y = x * x\n  f = x * sin(x) + y\nend function\n",
                 "fortran", [("x", "real", (), None), ("y", "real", (), None)], id="fortran"),
    pytest.param("#include <math.h>\ndouble f(double x, double *y) {\n  *y = x * x;\n  return sin(x) * x + *y;\n}\n",
                 "c", [("x", "real", (), None), ("y", "real", (1,), None)], id="c"),
]


@pytest.mark.compile
@pytest.mark.parametrize("source, lang, args", FUNCTION_HEADS)
def test_function_head_compiled(source, lang, args, tmp_path):
    require_compilers(lang)
    case = TangentCase(source, lang, "f(f y)/(x)", args)
    assert case.is_function
    runs = case.compiled(tmp_path)
    errors = compiled_errors(case, runs)
    assert errors["complex step"] <= COMPLEX_STEP_TOLERANCE and errors["interpreter"] <= SAME_CODE_TOLERANCE, errors
    assert errors["primal"] <= SAME_CODE_TOLERANCE and errors["central differences"] <= 1e-6, errors
    assert vector_error(runs) <= SAME_CODE_TOLERANCE, (runs.vector, runs.scalar_runs)  # F_DV is a subroutine
    assert runs.checks == "", runs.checks
