"""Random programs (hypothesis, tests/il_gen.py): each is differentiated in tangent mode and
its derivatives checked in the IL interpreter against complex step (1e-12 relative to the
largest derivative), which follows the branch the real parts take, as the tangent does.

Where complex step is not valid (a kink reached: abs at 0, a tie of max, a rounding jump), the
check falls back to central divided differences: they may straddle a kink, so a case only
fails when two step sizes agree with each other (the function is smooth there) and the
tangent disagrees with both."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import adspec
from adspec.engine.errors import UnsupportedError
from adspec.engine.il import walk
from il_gen import JUMP_OPS, N, examples, programs
from tangent_check import check_tangent

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ARGS = {
    "fortran": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (), None), ("k", "int", (), 3)],
    "c": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (1,), None), ("k", "int", (), 3)],
}
HEAD = "head"  # every real input and output of head
# relative to the largest derivative of the program: a random chain of saturated tanh, or a
# cancellation, can leave one output's derivative at 1e-17 or 1e-26 next to others near 1, which
# the tangent and complex step reach by different roundings (found: 1e-9 apart relative to 1e-17)
COMPLEX_STEP_TOLERANCE = 1e-12


def complex_step_error(check) -> float:
    scale = max((float(np.max(np.abs(v), initial=0.0)) for v in check.complex_step.values()), default=0.0)
    errors = [float(np.max(np.abs(np.asarray(check.analytic[n]) - v), initial=0.0))
              for n, v in check.complex_step.items()]
    return max(errors, default=0.0) / (scale or 1.0)


def smooth_and_wrong(check_small, check_large) -> list[str]:
    wrong = []
    for name, analytic in check_small.analytic.items():
        fd1, fd2 = np.asarray(check_small.divided[name]), np.asarray(check_large.divided[name])
        scale = max(1.0, float(np.max(np.abs(fd1))))
        smooth = np.abs(fd1 - fd2) <= 1e-5 * scale
        off = np.abs(np.asarray(analytic) - fd1) > 1e-5 * scale
        if np.any(smooth & off):
            wrong.append(f"{name}: tangent {analytic} divided differences {fd1}")
    return wrong


@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_random_programs_have_right_tangents(lang):
    ext = "f90" if lang == "fortran" else "c"
    refused, checked_by_complex_step = [], []

    @settings(max_examples=examples(250), **SETTINGS)
    @given(programs(lang))
    def check(tree):
        text = adspec.unparse(tree)
        try:
            small = check_tangent(text, lang, HEAD, ARGS[lang], filename=f"random.{ext}")
        except UnsupportedError as e:
            refused.append(str(e))
            return
        if small.complex_step is not None:
            checked_by_complex_step.append(tree)
            assert complex_step_error(small) <= COMPLEX_STEP_TOLERANCE, small.report()
            return
        large = check_tangent(text, lang, HEAD, ARGS[lang], filename=f"random.{ext}", step=1e-4)
        assert not smooth_and_wrong(small, large), text + "\n" + small.tangent_text
    check()
    assert len(refused) <= examples(250) // 4, refused[:5]
    assert len(checked_by_complex_step) >= examples(250) // 2  # kinks are rare
    if lang == "fortran":  # GOTOs, computed GOTOs, arithmetic IFs: checked by complex step too
        jumping = [tree for tree in checked_by_complex_step if any(n.op in JUMP_OPS for n in walk(tree))]
        assert len(jumping) >= examples(250) // 10, len(jumping)


def test_a_tenth_of_the_drawn_fortran_programs_jump():
    """Of 200 drawn Fortran programs, at least 10% jump, with each kind of jump among them."""
    kinds = []

    @settings(max_examples=200, database=None, derandomize=True, **SETTINGS)  # the same draw every run
    @given(programs("fortran"))
    def draw(tree):
        kinds.append({n.op for n in walk(tree)} & set(JUMP_OPS))
    draw()
    assert sum(1 for k in kinds if k) >= len(kinds) // 10 and len(kinds) >= 150, kinds
    assert set().union(*kinds) == set(JUMP_OPS)


@pytest.mark.compile
def test_random_tangents_compile_and_agree_with_the_interpreter(tmp_path_factory):
    """At least 25 random programs (of 34 drawn: some are refused): the generated Fortran
    tangent, compiled with the original, computes what the interpreter computes from the
    tangent IL (to 1e-14)."""
    from adspec.engine.il import mk
    from harness import compare_rel, compile_and_run, interp_run, make_inputs, parse_spec, require_compilers
    require_compilers("fortran")
    compiled_programs = []

    @settings(max_examples=examples(34), **SETTINGS)
    @given(programs("fortran"))
    def check(tree):
        text = adspec.unparse(tree)
        try:
            result = adspec.differentiate(text, head=HEAD, lang="fortran", filename="random.f90")
        except UnsupportedError:
            return
        formals = []
        for name, kind, shape, fixed in ARGS["fortran"]:
            typ = "r8" if kind == "real" else "i4"
            dims = f"[{shape[0]}]" if shape else ""
            formals.append(f"{name}:{typ}{dims}" + (f"={fixed}" if fixed is not None else ""))
            if name in result.diff_formals:
                formals.append(f"{name}d:r8{dims}")
        spec = parse_spec(f"! adspec-test: {result.procedure_names['head']}({', '.join(formals)})\n")
        inputs = make_inputs(spec, seed=3)
        compiled = compile_and_run(text + "\n" + result.text, "fortran", spec, inputs, tmp_path_factory.mktemp("t"))
        combined = mk("file", *tree.kids, *result.tree.kids, lang="fortran", form="free", filename="random.f90")
        interpreted = interp_run(combined, spec, inputs)
        assert compare_rel(compiled, interpreted, 1e-14) == [], result.text
        compiled_programs.append(text)
    check()
    assert len(compiled_programs) >= examples(25)
