"""adspec's own derivatives pass `adspec check` as candidates: its tangents of the whole tangent
corpus (tests/programs/ with the heads of tests/test_corpus_tangent.py, tests/tangent_programs/
with those of tests/test_tangent_programs.py and tests/c_tangent_cases.py) and its adjoints of
the same programs (the adjoint corpus: tests/test_adjoint_corpus.py, test_adjoint_roundtrip_corpus.py).

A failure here is a checker bug (a right candidate flagged) or a derivative bug that the
corpus tests missed. Each program's argument spec is converted to the `args` dict of
`adspec check` (args_of_spec, args_of_cases). Programs that adspec refuses to differentiate are
skipped (their refusal is the corpus tests' business); programs the checker cannot handle are
in CANNOT_CHECK with the reason (strict xfail: a fix fails the test until the entry goes).
One check per program, points=1.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adspec.oracle import check
from c_tangent_cases import C_CASES, C_PROGRAMS
from harness import PROGRAMS_DIR, load_program, make_inputs, require_compilers
import test_corpus_tangent as P
import test_tangent_programs as T

# (corpus, program) -> why `adspec check` cannot check it (strict xfail: a fix fails the test
# until the entry goes). None now.
CANNOT_CHECK: dict = {}


def args_of_spec(spec) -> dict:
    """The args dict of an `adspec-test:` signature (tests/programs/): integers at the values
    the corpus test runs with, fixed reals at their value, shapes of arrays and C pointers."""
    inputs, args = make_inputs(spec), {}
    for a in spec.args:
        table = {}
        if a.dims or a.pointer:
            table["shape"] = list(a.dims or (1,))
        if a.type in ("i4", "i8", "l4"):
            value = inputs[a.name].tolist()
            table = {"value": value, **({"shape": list(a.dims)} if a.dims else {})}
        elif a.fixed is not None:
            table["value"] = a.fixed
        args[a.name] = table
    return args


def args_of_cases(case_args) -> dict:
    """The args dict of tests/tangent_check.py's (name, kind, shape, value) list."""
    args = {}
    for name, kind, shape, value in case_args:
        table = {"shape": list(shape)} if shape else {}
        if kind == "int":   # an `int *` of one element is an integer to the checker
            table = {"value": value}
        elif kind == "struct":
            table = {"fields": dict(value)}
        elif value is not None:
            table["value"] = value
        args[name] = table
    return args


def _programs_corpus():
    for name in sorted(P.HEADS):
        if (name, "tangent") not in P.REFUSED:
            yield "programs", PROGRAMS_DIR / name, P.HEADS[name], args_of_spec(load_program(PROGRAMS_DIR / name).spec)


def _tangent_programs_corpus():
    for p in T.PROGRAMS:
        name, head, case_args = p.values
        yield "tangent_programs", T.program_path(name), head, args_of_cases(case_args)
    for name, head, case_args in C_CASES:
        yield "tangent_programs", C_PROGRAMS / name, head, args_of_cases(case_args)
    for p in T.C_PROGRAMS:
        name, head, case_args = p.values
        yield "tangent_programs", T.HERE / f"{name}.c", head, args_of_cases(case_args)


def _params(mode, corpus):
    params = []
    for group, path, head, args in corpus:
        why = CANNOT_CHECK.get((mode, path.name))
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        params.append(pytest.param(path, head, args, marks=marks, id=f"{group}/{path.name}"))
    return params


TANGENT = _params("tangent", [*_programs_corpus(), *_tangent_programs_corpus()])
ADJOINT = _params("adjoint", [*_programs_corpus(), *_tangent_programs_corpus()])


def own_candidate(path: Path, head: str, mode: str, outdir: Path) -> Path:
    """adspec's own derivative of the program, written as `adspec -d|-b -O outdir` would."""
    try:
        result = adspec.differentiate([str(path)], head=head, mode=mode)
    except UnsupportedError as e:
        pytest.skip(f"adspec refuses it: {e}")
    out = outdir / f"{path.stem}_{'d' if mode == 'tangent' else 'b'}{path.suffix}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result.text)
    return out


def assert_passes(path, head, args, mode, tmp_path):
    require_compilers("c" if path.suffix == ".c" else "fortran")
    candidate = own_candidate(path, head, mode, tmp_path / "candidate")
    report = check(primal=[str(path)], head=head, **{mode: [str(candidate)]}, args=args, points=1, seed=0,
                   workdir=tmp_path / "check")
    assert report.ok, f"{path.name} {head} ({mode}):\n{report.text()}"


@pytest.mark.compile
@pytest.mark.parametrize("path, head, args", TANGENT)
def test_own_tangent_passes(path, head, args, tmp_path):
    assert_passes(path, head, args, "tangent", tmp_path)


@pytest.mark.compile
@pytest.mark.parametrize("path, head, args", ADJOINT)
def test_own_adjoint_passes(path, head, args, tmp_path):
    assert_passes(path, head, args, "adjoint", tmp_path)


def test_the_corpora_are_whole():
    """Every program of both corpora is here, and what cannot be checked is counted (aim: none)."""
    names = {p.values[0].name for p in TANGENT}
    assert {n for n in P.HEADS if (n, "tangent") not in P.REFUSED} <= names
    assert {p.name for p in T.HERE.iterdir() if p.suffix in (".f", ".f90", ".c")} <= names
    assert len(ADJOINT) == len(TANGENT) == len(list(_programs_corpus())) + len(T.PROGRAMS) + len(C_CASES) + len(T.C_PROGRAMS)
    assert set(CANNOT_CHECK) <= {(m, p.values[0].name) for m, ps in (("tangent", TANGENT), ("adjoint", ADJOINT))
                                 for p in ps}
