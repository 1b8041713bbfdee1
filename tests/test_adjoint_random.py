"""Random structured programs (hypothesis, tests/il_gen.py without jumps, WHILE loops and
calls: what adjoint mode covers so far), each differentiated in adjoint mode and checked by
the dot-product test against the tangent in the interpreter, with the stack empty at the end
(tests/adjoint_check.py). 100 programs per language: about 25 s, most of it reading C
(three parses per program)."""
import pytest
from hypothesis import HealthCheck, given, settings

import adspec
from il_gen import N, examples, programs
from adjoint_check import AdjointCase

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ARGS = {
    "fortran": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (), None), ("k", "int", (), 3)],
    "c": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (1,), None), ("k", "int", (), 3)],
}
# relative to the larger side; a program whose outputs barely depend on its inputs sums
# terms of 1 to a result near 1e-15, where a few roundings are all there is
TOLERANCE = 1e-12


@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_random_programs_pass_the_dot_product_test(lang):
    ext = "f90" if lang == "fortran" else "c"
    checked = []

    @settings(max_examples=examples(100), **SETTINGS)
    @given(programs(lang, structured=True))
    def check(tree):
        text = adspec.unparse(tree)
        result = AdjointCase(text, lang, "head", ARGS[lang], filename=f"random.{ext}").check()
        assert result.stack_state == 0, text + "\n" + result.report()
        assert result.error < TOLERANCE, text + "\n" + result.report()
        checked.append(result)
    check()
    assert len(checked) >= examples(100)
