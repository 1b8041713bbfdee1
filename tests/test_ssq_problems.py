"""A test-problem collection in tangent mode (tests/ssq_problems/).

SSQFCN (ssqfcn.f) computes the residuals of 15 classic nonlinear least squares problems, as
the test sets of the old optimisation libraries do: Fortran 77 fixed form, the problem
selected by a computed GO TO, constants initialised by DATA, DFLOAT a statement function
called with expression arguments (DFLOAT(16-I), DFLOAT(I*I-1), DFLOAT(MIN(I, 16-I))).
SSQJAC (ssqjac.f) is its Jacobian written by hand.

For each problem, one gfortran program (-O0, and once more with -fcheck=all and the
sanitizers: harness.CHECKED_FLAGS) computes
- the Jacobian from n runs of adspec's tangent SSQFCN_D, direction e_j giving column j, and
  from one run of the vector tangent SSQFCN_DV on the n directions at once;
- SSQJAC's Jacobian;
- central differences of the original SSQFCN.
The tangent's Jacobian must equal the hand-written one to 1e-13 relative to the largest
entry of each column, and the hand-written one its central differences to 1e-6 (so that a wrong hand
Jacobian cannot hide).

Two variants of SSQFCN are differentiated: as written, and with the computed GO TO rewritten
into an IF / ELSE IF chain of GO TOs (`if_chain`). The first is skipped, with its reason,
only while adspec refuses computed GO TO at reading.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from harness import Arg, Call, Spec, compare_bits, compile_calls_and_run, require_compilers, with_derivatives

HERE = Path(__file__).parent / "ssq_problems"
FCN = (HERE / "ssqfcn.f").read_text()
JAC = (HERE / "ssqjac.f").read_text()
HEAD = "ssqfcn(fvec)/(x)"
NBDIRSMAX = 6   # the largest N of PROBLEMS
DIFFSIZES = f"module diffsizes\n  integer, parameter :: nbdirsmax = {NBDIRSMAX}\nend module\n"
TANGENT_TOLERANCE = 1e-13
DIFFERENCES_TOLERANCE = 1e-6
STEP = 1e-6   # central differences: x_j +- STEP * max(1, |x_j|)

# (id, NPROB, M, X): points near the problems' usual starting points, moved off their symmetries
PROBLEMS = [
    ("linear-full-rank", 1, 7, [1.1, -0.4, 0.7, 1.3, -0.9]),
    ("linear-rank-1", 2, 6, [0.5, -1.0, 1.5, 0.25]),
    ("rosenbrock", 3, 2, [-1.2, 1.0]),
    ("helical-valley-x1-negative", 4, 3, [-1.0, 0.3, 0.2]),
    ("helical-valley-x1-positive", 4, 3, [0.8, -0.6, 0.4]),
    ("powell-singular", 5, 4, [3.0, -1.0, 0.5, 1.0]),
    ("freudenstein-roth", 6, 2, [0.5, -2.0]),
    ("bard", 7, 15, [1.1, 0.9, 1.3]),
    ("kowalik-osborne", 8, 11, [0.25, 0.39, 0.415, 0.39]),
    ("meyer", 9, 16, [0.02, 4000.0, 250.0]),
    ("watson", 10, 31, [0.1, -0.2, 0.3, 0.15, -0.25, 0.05]),
    ("box-3d", 11, 10, [0.2, 9.0, 1.2]),
    ("jennrich-sampson", 12, 10, [0.3, 0.4]),
    ("brown-dennis", 13, 20, [25.0, 5.0, -5.0, -1.0]),
    ("chebyquad", 14, 7, [0.15, 0.35, 0.5, 0.65, 0.85]),
    ("brown-almost-linear", 15, 5, [0.55, 0.45, 0.6, 0.5, 0.4]),
    ("out-of-range-falls-through", 16, 2, [0.7, 0.8]),
]
VARIANTS = ["if-chain", "computed-goto"]
COMPUTED_GOTO_REFUSED = "computed GOTO is not supported"


def if_chain(text: str) -> str:
    """`GO TO (l1, l2, ...), NPROB` -> IF (NPROB .EQ. 1) THEN / GO TO l1 / ELSE IF ... END IF
    (no branch taken out of range: the fall-through of the computed GO TO)."""
    def chain(match):
        labels = re.findall(r"\d+", match.group(1))
        branches = [f"      {'ELSE ' if k > 1 else ''}IF (NPROB .EQ. {k}) THEN\n         GO TO {label}\n"
                    for k, label in enumerate(labels, 1)]
        return "".join(branches) + "      END IF\n"
    return re.sub(r"^      GO TO \(([^)]*)\), *NPROB\n", chain, text, flags=re.M)


def test_if_chain_replaces_the_computed_goto():
    rewritten = if_chain(FCN)
    assert "GO TO (" not in rewritten and rewritten.count("ELSE IF (NPROB .EQ.") == 14
    assert "ELSE IF (NPROB .EQ. 15) THEN\n         GO TO 150\n      END IF\n      GO TO 900\n" in rewritten


def _specs(m: int, n: int):
    scalar = [Arg("m", "i4"), Arg("n", "i4")]
    fcn = Spec("ssqfcn", (*scalar, Arg("x", "r8", (n,)), Arg("fvec", "r8", (m,)), Arg("nprob", "i4")))
    jac = Spec("ssqjac", (*scalar, Arg("x", "r8", (n,)), Arg("fjac", "r8", (m, n)), Arg("ldfjac", "i4"),
                          Arg("nprob", "i4")))
    return fcn, jac


def _calls(tag: str, nprob: int, m: int, x: list, tangent, vector) -> list:
    """For one problem: the n tangent runs, the vector tangent on the n directions, SSQJAC,
    SSQFCN at x and at x +- h e_j."""
    n = len(x)
    fcn, jac = _specs(m, n)
    fcn_d = with_derivatives(fcn, tangent.procedure_names["ssqfcn"], tangent.diff_formals, "fortran")
    fcn_dv = with_derivatives(fcn, vector.procedure_names["ssqfcn"], vector.diff_formals, "fortran", NBDIRSMAX)
    ints = {"m": np.int32(m), "n": np.int32(n), "nprob": np.int32(nprob)}
    x = np.array(x)
    directions = np.eye(NBDIRSMAX, n).reshape(-1, order="F")   # xd(nd, j): direction nd is e_nd
    calls = [Call(jac, {**ints, "x": x, "fjac": np.zeros(m * n), "ldfjac": np.int32(m)}, f"{tag}jac_"),
             Call(fcn, {**ints, "x": x, "fvec": np.zeros(m)}, f"{tag}f_"),
             Call(fcn_dv, {**ints, "x": x, "x__d": directions, "fvec": np.zeros(m),
                           "fvec__d": np.zeros(NBDIRSMAX * m), "nbdirs": np.int32(n)}, f"{tag}v_")]
    for j in range(n):
        derivs = {"x__d": np.eye(n)[j], "fvec__d": np.zeros(m)}
        calls.append(Call(fcn_d, {**ints, "x": x, "fvec": np.zeros(m), **derivs}, f"{tag}d{j}_"))
        for sign in ("plus", "minus"):
            shifted = x + (1 if sign == "plus" else -1) * STEP * max(1.0, abs(x[j])) * np.eye(n)[j]
            calls.append(Call(fcn, {**ints, "x": shifted, "fvec": np.zeros(m)}, f"{tag}{sign}{j}_"))
    return calls


_RESULTS: dict = {}


def _results(variant: str, workdir) -> dict:
    """Problem id -> what the compiled program gave (the Jacobians, values, checked build's
    report), for one variant of SSQFCN, compiled and run once for every problem."""
    if variant not in _RESULTS:
        require_compilers("fortran")
        source = if_chain(FCN) if variant == "if-chain" else FCN
        try:
            tangent, vector = (adspec.differentiate(source, head=HEAD, mode=mode, lang="fortran", filename="ssqfcn.f",
                                                    form="fixed") for mode in ("tangent", "vector"))
        except UnsupportedError as e:
            if variant == "computed-goto" and COMPUTED_GOTO_REFUSED in str(e):
                _RESULTS[variant] = str(e)
            else:
                raise
        else:
            calls = [c for k, (_, nprob, m, x) in enumerate(PROBLEMS)
                     for c in _calls(f"p{k}_", nprob, m, x, tangent, vector)]
            reports: list = []
            sources = [("diffsizes.f90", DIFFSIZES), ("ssqfcn.f", source), ("ssqfcn_d.f", tangent.text),
                       ("ssqfcn_dv.f", vector.text), ("ssqjac.f", JAC)]
            outputs = compile_calls_and_run(sources, "fortran", calls, workdir, reports=reports)
            by_tag = {c.tag: out for c, out in zip(calls, outputs)}
            _RESULTS[variant] = {name: _jacobians(by_tag, f"p{k}_", m, x, reports[0], tangent.text)
                                 for k, (name, _, m, x) in enumerate(PROBLEMS)}
    if isinstance(_RESULTS[variant], str):
        pytest.skip(f"adspec refuses the computed GO TO: {_RESULTS[variant]}")
    return _RESULTS[variant]


def _jacobians(by_tag: dict, tag: str, m: int, x: list, checks: str, tangent_text: str) -> dict:
    n = len(x)
    column = range(n)
    steps = [2 * STEP * max(1.0, abs(x[j])) for j in column]
    return {
        "tangent": np.column_stack([by_tag[f"{tag}d{j}_"]["fvec__d"] for j in column]),
        "vector": by_tag[f"{tag}v_"]["fvec__d"].reshape((NBDIRSMAX, m), order="F")[:n].T,
        "hand": by_tag[f"{tag}jac_"]["fjac"].reshape((m, n), order="F"),
        "differences": np.column_stack([(by_tag[f"{tag}plus{j}_"]["fvec"] - by_tag[f"{tag}minus{j}_"]["fvec"])
                                        / steps[j] for j in column]),
        "fvec": by_tag[f"{tag}f_"]["fvec"],
        "tangent fvec": by_tag[f"{tag}d0_"]["fvec"],
        "checks": checks,
        "text": tangent_text,
    }


def _error(got, want) -> float:
    """max over the columns of max |got - want| relative to the column's largest entry of
    want (the columns' scales differ by up to 1e4 in Meyer's problem); a zero column is
    compared absolutely."""
    scale = np.max(np.abs(want), axis=0)
    diff = np.max(np.abs(got - want), axis=0)
    return float(np.max(np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), diff)))


PROBLEM_PARAMS = [pytest.param(name, id=name) for name, *_ in PROBLEMS]


@pytest.mark.compile
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", PROBLEM_PARAMS)
def test_tangent_jacobian_equals_the_hand_written_one(variant, name, tmp_path_factory):
    result = _results(variant, tmp_path_factory.mktemp(variant))[name]
    error = _error(result["tangent"], result["hand"])
    assert error <= TANGENT_TOLERANCE, f"{name}: {error:.2e}\ntangent\n{result['tangent']}\nhand\n{result['hand']}"
    # the vector tangent computes the same numbers in one call
    assert _error(result["vector"], result["tangent"]) <= 1e-14, f"vector\n{result['vector']}"
    # the tangent leaves the values as the original computes them
    assert not compare_bits({"fvec": result["fvec"]}, {"fvec": result["tangent fvec"]})
    if name == "out-of-range-falls-through":
        assert not result["hand"].any() and not result["tangent"].any() and not result["fvec"].any()


@pytest.mark.compile
@pytest.mark.parametrize("name", PROBLEM_PARAMS)
def test_hand_written_jacobian_agrees_with_central_differences(name, tmp_path_factory):
    result = _results("if-chain", tmp_path_factory.mktemp("if-chain"))[name]
    error = _error(result["differences"], result["hand"])
    assert error <= DIFFERENCES_TOLERANCE, f"{name}: {error:.2e}\nhand\n{result['hand']}\n" \
                                           f"differences\n{result['differences']}"
    if name != "out-of-range-falls-through":
        assert np.abs(result["hand"]).max() > 0


@pytest.mark.compile
@pytest.mark.parametrize("variant", VARIANTS)
def test_runs_clean_under_fcheck_all_and_the_sanitizers(variant, tmp_path_factory):
    results = _results(variant, tmp_path_factory.mktemp(variant))
    assert results[PROBLEMS[0][0]]["checks"] == "", results[PROBLEMS[0][0]]["checks"]
