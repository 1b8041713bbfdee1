"""Random programs (hypothesis, tests/il_gen.py): each is differentiated in tangent mode and
its derivatives checked in the IL interpreter against central divided differences.

The programs branch on active values, so a divided difference may straddle a kink: a case
only fails when two step sizes agree with each other (the function is smooth there) and the
tangent disagrees with both."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import adspec
from adspec.engine.errors import UnsupportedError
from il_gen import N, examples, programs
from tangent_check import check_tangent

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ARGS = {
    "fortran": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (), None), ("k", "int", (), 3)],
    "c": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (1,), None), ("k", "int", (), 3)],
}
HEAD = "head"  # every real input and output of head


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
    refused = []

    @settings(max_examples=examples(250), **SETTINGS)
    @given(programs(lang))
    def check(tree):
        text = adspec.unparse(tree)
        try:
            small = check_tangent(text, lang, HEAD, ARGS[lang], filename=f"random.{ext}")
        except UnsupportedError as e:
            refused.append(str(e))
            return
        large = check_tangent(text, lang, HEAD, ARGS[lang], filename=f"random.{ext}", step=1e-4)
        assert not smooth_and_wrong(small, large), text + "\n" + small.tangent_text
    check()
    assert len(refused) <= examples(250) // 4, refused[:5]
