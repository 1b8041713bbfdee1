"""The test-problem collection (tests/ssq_problems/, test_ssq_problems.py) in adjoint mode.

For each of SSQFCN's problems, one gfortran program (with the push/pop runtime) runs
adspec's SSQFCN_B m times, FVECB = e_i giving row i of the Jacobian as XB, and SSQJAC, the
Jacobian written by hand: they must agree to 1e-13 relative to the largest entry of each
column, for SSQFCN as written (computed GO TO) and with the GO TO as an IF chain (issue 16's
acceptance program; m adjoint runs, where the tangent test makes n)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import adspec
from adspec import backends
from harness import Arg, Call, Spec, compile_calls_and_run, require_compilers
from test_ssq_problems import FCN, HEAD, JAC, PROBLEM_PARAMS, PROBLEMS, VARIANTS, _error, _specs, if_chain

RUNTIME = Path(backends.__file__).resolve().parent / "runtime"
TOLERANCE = 1e-13
_RESULTS: dict = {}


def _calls(tag: str, nprob: int, m: int, x: list, adjoint) -> list:
    n = len(x)
    fcn, jac = _specs(m, n)
    args = []
    for arg in fcn.args:
        args.append(arg)
        if arg.name in adjoint.diff_formals:
            args.append(Arg(arg.name + "__b", arg.type, arg.dims, arg.pointer))
    fcn_b = Spec(adjoint.procedure_names["ssqfcn"], tuple(args))
    ints = {"m": np.int32(m), "n": np.int32(n), "nprob": np.int32(nprob)}
    calls = [Call(jac, {**ints, "x": np.array(x), "fjac": np.zeros(m * n), "ldfjac": np.int32(m)}, f"{tag}jac_")]
    for i in range(m):
        calls.append(Call(fcn_b, {**ints, "x": np.array(x), "x__b": np.zeros(n), "fvec": np.zeros(m),
                                  "fvec__b": np.eye(m)[i]}, f"{tag}b{i}_"))
    return calls


def _results(variant: str, workdir) -> dict:
    if variant not in _RESULTS:
        require_compilers("fortran")
        source = if_chain(FCN) if variant == "if-chain" else FCN
        adjoint = adspec.differentiate(source, head=HEAD, mode="adjoint", lang="fortran", filename="ssqfcn.f",
                                       form="fixed")
        calls = [c for k, (_, nprob, m, x) in enumerate(PROBLEMS) for c in _calls(f"p{k}_", nprob, m, x, adjoint)]
        runtime = [(p.name, p.read_text()) for p in sorted(RUNTIME.iterdir()) if p.suffix in (".h", ".c")]
        sources = runtime + [("ssqfcn.f", source), ("ssqfcn_b.f", adjoint.text), ("ssqjac.f", JAC)]
        outputs = compile_calls_and_run(sources, "fortran", calls, workdir, flags=("-O2", "-I."))
        by_tag = {c.tag: out for c, out in zip(calls, outputs)}
        _RESULTS[variant] = {
            name: (np.vstack([by_tag[f"p{k}_b{i}_"]["x__b"] for i in range(m)]),
                   by_tag[f"p{k}_jac_"]["fjac"].reshape((m, len(x)), order="F"))
            for k, (name, _, m, x) in enumerate(PROBLEMS)}
    return _RESULTS[variant]


@pytest.mark.compile
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", PROBLEM_PARAMS)
def test_adjoint_jacobian_equals_the_hand_written_one(variant, name, tmp_path_factory):
    adjoint, hand = _results(variant, tmp_path_factory.mktemp(f"b-{variant}"))[name]
    error = _error(adjoint, hand)
    assert error <= TOLERANCE, f"{name}: {error:.2e}\nadjoint\n{adjoint}\nhand\n{hand}"
    if name == "out-of-range-falls-through":
        assert not adjoint.any() and not hand.any()
