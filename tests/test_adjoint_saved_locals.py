"""Adjoint mode on SAVE (Fortran) and static (C) locals of called procedures (issue 16;
rules/adjoint/saved_locals.py): the locals become global state that the output defines and
shares between P_b, P_fwd/P_bwd and the copies Q_nodiff of the primal procedures that reach it,
so snapshots and TBR save and restore it like any global. The programs of
tests/adjoint_programs/saved_locals.* carry a passive counter, an active state read before it is
written at every call of a loop of calls, and an array of state, in calls joint and split.

Each one passes the dot-product test in the interpreter, compiled (-O2, then -fcheck=all /
ASan+UBSan), under -nocheckpoint and under every -nooptim variant. The compiled check runs P_D
and P_b once each in one process: P_D keeps its own SAVE derivative state (the tangent's) and
P_b the output's, so both start from the source's initial values, as the interpreter's runs do."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from adspec import differentiate
from adspec.engine.errors import UnsupportedError
from adjoint_check import AdjointCase
from test_adjoint_figures import same_adjoint

TOL = 1e-12
HERE = Path(__file__).resolve().parent / "adjoint_programs"
PROGRAMS = ["saved_locals.f90", "saved_locals.c"]


def case_of(name: str, **options) -> AdjointCase:
    lang = "c" if name.endswith(".c") else "fortran"
    args = [("x", "real", (3,), None), ("y", "real", (1,) if lang == "c" else (), None), ("n", "int", (), 3)]
    return AdjointCase((HERE / name).read_text(), lang, "run(y)/(x)", args, filename=name, **options)


def assert_right(check):
    assert check.stack_state == 0, check.report()
    assert check.error < TOL and abs(check.tangent_side) > 1e-8, check.report()   # not 0 = 0


@pytest.mark.parametrize("name", PROGRAMS)
def test_interpreted(name):
    assert_right(case_of(name).check())


@pytest.mark.compile
@pytest.mark.parametrize("name", PROGRAMS)
def test_compiled(name, tmp_path):
    check = case_of(name).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < TOL, check.report()
    assert check.interpreter_error < 1e-13, check.report()


@pytest.mark.parametrize("name", PROGRAMS)
def test_under_nocheckpoint(name):
    assert_right(case_of(name, nooptim=frozenset({"checkpoint"})).check())


@pytest.mark.parametrize("name", PROGRAMS)
def test_nooptim_variants(name):
    same_adjoint(case_of(name), name)


def test_the_state_is_saved_around_the_checkpointed_calls():
    """The structure: the module relax_save holds s and hist, relax_save_diff their adjoints;
    the loop's checkpointed call saves the state a rerun reads (the counter too: inner_b's rerun
    must not advance it twice) and the head zeroes the adjoints of the state (the adjoint of its
    value at the end is 0) before its backward sweep; the forward sweeps run relax_nodiff."""
    text = case_of("saved_locals.f90").adjoint.text
    assert re.search(r"module relax_save\n\s+real\(8\), save :: s = 0.5d0", text)
    assert "module relax_save_diff" in text and "function tick_nodiff() result(k)" in text
    inner = text[text.index("subroutine inner_b"):text.index("end subroutine inner_b")]
    assert "call pushinteger4(count)" in inner and "call popinteger4(count)" in inner
    assert "call relax_nodiff(x, y)" in inner
    head = text[text.index("subroutine run_b"):]
    assert head.index("sb = 0.0d0") < head.index("call relax_bwd")
    c_text = case_of("saved_locals.c").adjoint.text
    assert "static double s = 0.5;" in c_text and "static int count = 0;" in c_text
    assert "static void relax_nodiff(double x, double *y)" in c_text


CALLED_TWICE = (Path(__file__).resolve().parent / "tangent_programs" / "p40_save_local.f90").read_text()


def test_the_procedure_itself_as_head():
    """acc as the head: its adjoint reads and updates the moved state too."""
    case = AdjointCase(CALLED_TWICE, "fortran", "acc(y)/(x)", [("x", "real", (), None), ("y", "real", (), None)],
                       filename="t.f90")
    assert_right(case.check())


ACC, TWICE = CALLED_TWICE.split("subroutine twice")
IN_A_MODULE = "module m\ncontains\n" + ACC + "end module\n\nsubroutine twice" + TWICE.replace(
    "real(8) x1", "use m\n  real(8) x1", 1)
DIMENSION = CALLED_TWICE.replace("  real(8), save :: s = 1.0d0\n", "  real(8) s\n  dimension s(1)\n  save s\n")
assert IN_A_MODULE != CALLED_TWICE != DIMENSION


@pytest.mark.parametrize("source", [IN_A_MODULE, DIMENSION], ids=["module procedure", "DIMENSION"])
def test_what_is_not_moved_is_still_refused(source):
    """A module procedure (its primal copy would belong in the module) and a local whose
    dimensions a DIMENSION statement gives keep their SAVE locals: P_b is refused where it is
    called, with file:line."""
    with pytest.raises(UnsupportedError, match=r"t.f90:\d+: adjoint mode does not support SAVE or static local "
                                               r"variables \(s\) in a procedure whose adjoint is called yet"):
        differentiate(source, head="twice(y)/(x1 x2)", mode="adjoint", lang="fortran", filename="t.f90")


FUNCTION = """
function acc(x)
  real(8) x, acc
  real(8), save :: s = 1.0d0
  acc = s * x
  s = s * sin(x) + x
end function

subroutine thrice(x1, x2, y)
  real(8) x1, x2, y, acc
  external acc
  y = acc(x1) * acc(x2) + acc(x1 * x2)
end subroutine
"""
C_FUNCTION = """
#include <math.h>
double acc(double x) {
  static double s = 1.0;
  double r = s * x;
  s = s * sin(x) + x;
  return r;
}
void thrice(double *x, double *y) {
  *y = acc(x[0]) * acc(x[1]) + acc(x[0] * x[1]);
}
"""
FUNCTIONS = {
    "fortran": (FUNCTION, "thrice(y)/(x1 x2)", [("x1", "real", (), None), ("x2", "real", (), None),
                                               ("y", "real", (), None)]),
    "c": (C_FUNCTION, "thrice(y)/(x)", [("x", "real", (2,), None), ("y", "real", (1,), None)]),
}


@pytest.mark.parametrize("lang", sorted(FUNCTIONS))
def test_functions_called_in_expressions(lang, tmp_path):
    """A function with state called three times in one expression, joint and split: acc_fwd's
    result variable keeps acc's name (a function without RESULT clause), its copy acc_nodiff
    takes the new one."""
    source, head, args = FUNCTIONS[lang]
    filename = "t.f90" if lang == "fortran" else "t.c"
    case = AdjointCase(source, lang, head, args, filename=filename)
    assert_right(case.check())
    compiled = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert compiled.error < TOL and compiled.interpreter_error < 1e-13, compiled.report()
    assert_right(AdjointCase(source, lang, head, args, filename=filename, nooptim=frozenset({"checkpoint"})).check())


def test_the_message_says_where_the_state_is():
    result = differentiate(CALLED_TWICE, head="twice(y)/(x1 x2)", mode="adjoint", lang="fortran", filename="t.f90")
    assert result.messages == ["t.f90:2: the SAVE locals of acc (s) are global state of the adjoint code (module "
                               "acc_save), which calls acc_nodiff where the source calls acc; acc itself keeps its "
                               "own state"]


@pytest.mark.parametrize("statements", ["save\n  data k /0/", "save s, k\n  data k /0/", "data k /0/\n  save s"],
                         ids=["bare SAVE", "SAVE statement", "DATA"])
def test_save_statements_and_data(statements, tmp_path):
    """A bare SAVE (once taken for no SAVE at all: a wrong adjoint, relative error 0.31), a
    SAVE statement naming the locals, a DATA statement: the locals move, the DATA with them."""
    source = CALLED_TWICE.replace("  real(8), save :: s = 1.0d0\n", f"  real(8) s\n  integer k\n  {statements}\n"
                                  ).replace("  y = s * x\n", "  if (k == 0) s = 1.0d0\n  k = 1\n  y = s * x\n")
    case = AdjointCase(source, "fortran", "twice(y)/(x1 x2)", [("x1", "real", (), None), ("x2", "real", (), None),
                                                                ("y", "real", (), None)], filename="t.f90")
    assert_right(case.check())
    assert re.search(r"module acc_save\n(.*\n)*\s+data k / 0 /", case.adjoint.text)
    compiled = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert compiled.error < TOL and compiled.interpreter_error < 1e-13, compiled.report()
