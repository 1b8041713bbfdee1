"""Random programs (hypothesis, tests/il_gen.py without calls: what adjoint mode covers so
far, with jumps, WHILE loops, EXIT and CYCLE), each differentiated in adjoint mode and checked
by the dot-product test against the tangent in the interpreter, with the stack empty at the end
(tests/adjoint_check.py). 100 programs per language; most of the time goes to reading C
(three parses per program). The share of programs with jumps or WHILE loops is asserted, so
that the generator cannot drift back to structured code only."""
import pytest
from hypothesis import HealthCheck, given, settings

import adspec
from adspec.engine.il import walk
from il_gen import JUMP_OPS, N, examples, programs
from adjoint_check import AdjointCase

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ARGS = {
    "fortran": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (), None), ("k", "int", (), 3)],
    "c": [("x", "real", (N,), None), ("y", "real", (N,), None), ("s", "real", (1,), None), ("k", "int", (), 3)],
}
# relative to the larger side; a program whose outputs barely depend on its inputs sums
# terms of 1 to a result near 1e-15, where a few roundings are all there is
TOLERANCE = 1e-12
CONTROL_OPS = frozenset(JUMP_OPS) | {"while", "exit", "cycle"}


@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_random_programs_pass_the_dot_product_test(lang):
    ext = "f90" if lang == "fortran" else "c"
    checked, with_control = [], []

    @settings(max_examples=examples(100), **SETTINGS)
    @given(programs(lang, calls=False, exits=True))
    def check(tree):
        text = adspec.unparse(tree)
        result = AdjointCase(text, lang, "head", ARGS[lang], filename=f"random.{ext}").check()
        assert result.stack_state == 0, text + "\n" + result.report()
        assert result.error < TOLERANCE, text + "\n" + result.report()
        checked.append(result)
        with_control.append(any(n.op in CONTROL_OPS for n in walk(tree.kids[-1].kids[7])))
    check()
    assert len(checked) >= examples(100)
    assert sum(with_control) >= len(checked) // 5, f"{sum(with_control)} of {len(checked)} with jumps or WHILE"
