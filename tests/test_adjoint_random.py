"""Random structured programs (hypothesis, tests/il_gen.py without jumps, WHILE loops and
calls: what adjoint mode covers so far), each differentiated in adjoint mode and checked by
the dot-product test against the tangent in the interpreter, with the stack empty at the end
(tests/adjoint_check.py). 250 programs per language (500 a run), each read once
(adjoint_check.parsed_once: P, P_D and P_b share the IL). A failure hypothesis finds is to be
kept as a regression program calling dot_product_test (none found in the 1,000 programs run
while the split and merge of fig. 11 and the TBR of array elements went in)."""
import pytest
from hypothesis import HealthCheck, given, settings

import adspec
from il_gen import N, examples, programs
from adjoint_check import AdjointCase, parsed_once

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ARGS = {
    "fortran": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (), None), ("k", "int", (), 3)],
    "c": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (1,), None), ("k", "int", (), 3)],
}
# relative to the larger side; a program whose outputs barely depend on its inputs sums
# terms of 1 to a result near 1e-15, where a few roundings are all there is
TOLERANCE = 1e-12
PER_LANGUAGE = 250


@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_random_programs_pass_the_dot_product_test(lang):
    checked = []

    @settings(max_examples=examples(PER_LANGUAGE), **SETTINGS)
    @given(programs(lang, structured=True))
    def check(tree):
        checked.append(dot_product_test(adspec.unparse(tree), lang))
    with parsed_once():
        check()
    assert len(checked) >= examples(PER_LANGUAGE)


def dot_product_test(text: str, lang: str):
    ext = "f90" if lang == "fortran" else "c"
    result = AdjointCase(text, lang, "head", ARGS[lang], filename=f"random.{ext}").check()
    assert result.stack_state == 0, text + "\n" + result.report()
    assert result.error < TOLERANCE, text + "\n" + result.report()
    return result
