"""Adjoint mode on the hand-written round-trip programs (tests/programs/, the corpus whose
tangents tests/test_corpus_tangent.py checks): each program the tangent differentiates is either
refused with `file:line: adjoint mode does not support ... yet` (or, from the code both modes share,
`file:line: ... is not supported yet`), or its adjoint passes the
dot-product test against the tangent in the interpreter with the stack empty at the end, and,
compiled with gcc/gfortran -O2 and the project's runtime, to 1e-12 with X̄ equal to the
interpreted one's to 1e-13 and nothing reported by ASan/UBSan or -fcheck=all."""
import re

import pytest

from adspec.engine.errors import UnsupportedError
from adjoint_check import AdjointCase
from harness import PROGRAMS_DIR, load_program
from test_corpus_tangent import HEADS, REFUSED, _args

NAMES = sorted(name for name in HEADS if (name, "tangent") not in REFUSED)
# the compiled check runs P_D, then P_b, in one process: programs whose run leaves state behind
# are checked in the interpreter only (a fresh machine per run)
ONE_RUN_PER_PROCESS = {
    "f04_module_use.f90": "the head doubles the module variable damping at each run",
    "f31_io_format.f90": "the head opens a scratch unit it leaves open (a second OPEN of it fails)",
}
DIFFERENTIATED = []


def _case(name):
    prog = load_program(PROGRAMS_DIR / name)
    try:
        return AdjointCase(prog.text, prog.lang, HEADS[name], _args(prog.spec), filename=str(prog.path))
    except UnsupportedError as e:
        assert re.match(rf"(.*/)?{re.escape(name)}:\d+: (adjoint mode does not support .*|.* is not supported) yet",
                        str(e)), str(e)
        return None


@pytest.mark.parametrize("name", NAMES)
def test_roundtrip_program_adjoint(name):
    case = _case(name)
    if case is None:
        return
    check = case.check()
    assert check.stack_state == 0 and check.error < 1e-12, check.report()
    DIFFERENTIATED.append(name)


def test_most_round_trip_programs_are_differentiated():
    """Runs after the programs (same module): the count can only go up."""
    if not DIFFERENTIATED:
        pytest.skip("run with the programs")
    assert len(DIFFERENTIATED) >= 46, DIFFERENTIATED   # 2026-11-27: all 46 (WHERE masks saved, c17, c18, c20, f07, f20)


@pytest.mark.compile
@pytest.mark.parametrize("name", NAMES)
def test_roundtrip_program_adjoint_compiled(name, tmp_path):
    if name in ONE_RUN_PER_PROCESS:
        pytest.skip(ONE_RUN_PER_PROCESS[name])
    case = _case(name)
    if case is None:
        pytest.skip("refused with file:line (test_roundtrip_program_adjoint checks how)")
    check = case.compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12, check.report()
    assert check.interpreter_error < 1e-13, check.report()
