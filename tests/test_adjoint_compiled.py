"""The adjoint compiled with the project's runtime (backends/runtime/): P, P_D and P_b in one
program built with gcc/gfortran -O2, the dot-product test <Ẋ, X̄> = <Ẏ, Ȳ> to 1e-12 and X̄
equal to the interpreted adjoint's to 1e-13; once more under AddressSanitizer/UBSan (C) or
-fcheck=all (Fortran) with no report."""
import pytest

import test_adjoint as t
from adjoint_check import RUNTIME, AdjointCase, parsed_once

pytestmark = pytest.mark.skipif(not RUNTIME.is_dir() or not any(RUNTIME.glob("*.c")),
                                reason="the runtime (backends/runtime/) is not on this branch yet")

CASES = {
    "straight line": (t.STRAIGHT, "fortran", "f(y)/(x z)", [t.real("x"), t.real("z"), t.real("y")]),
    "nested loops, stride 3": (t.LOOPS, "fortran", "lp(a b)/(a b)",
                               [t.real("a", (7, 5)), t.real("b", (5,)), t.integer("m", 7), t.integer("n", 5),
                                t.integer("lo", 1), t.integer("hi", 5), t.integer("st", 3)]),
    "a loop that does not run": (t.LOOPS, "fortran", "lp(a b)/(a b)",
                                 [t.real("a", (8, 5)), t.real("b", (5,)), t.integer("m", 8), t.integer("n", 5),
                                  t.integer("lo", 3), t.integer("hi", 2), t.integer("st", 3)]),
    "branches": (t.BRANCHES, "fortran", "br(y a)/(x y a)", [t.real("x"), t.real("y"), t.real("a", (6,)),
                                                            t.integer("n", 6)]),
    "Fortran function": (t.FUNCTION, "fortran", "fn(fn a)/(x a)", [t.real("x"), t.real("a", (4,)), t.integer("n", 4)]),
    "C function, by-value inputs": (t.C_FUNCTION, "c", "f(f y)/(x z y)", [t.real("x"), t.real("z"),
                                                                          t.real("y", (7,)), t.integer("n", 7)]),
    "C pointer input": (t.C_POINTER_INPUT, "c", "p(y)/(x)", [t.real("x", (2,)), t.real("y", (2,))]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_dot_product(name, tmp_path):
    source, lang, head, args = CASES[name]
    check = AdjointCase(source, lang, head, args).compiled_check(tmp_path, flags=("-O2",), checked=True)
    assert check.error < 1e-12, check.report()
    assert check.interpreter_error < 1e-13, check.report()   # the interpreted adjoint agrees


@pytest.mark.parametrize("lang", ["fortran", "c"])
def test_random_programs_compiled(lang, tmp_path_factory):
    """13 random programs per language (26 in all, with jumps, WHILE, EXIT and CYCLE) compiled at -O2."""
    from hypothesis import given, settings

    import adspec
    from il_gen import examples, programs
    from test_adjoint_random import ARGS, SETTINGS
    ext = "f90" if lang == "fortran" else "c"

    compiled = []

    @settings(max_examples=examples(13), **SETTINGS)
    @given(programs(lang, calls=False, exits=True))
    def check(tree):
        case = AdjointCase(adspec.unparse(tree), lang, "head", ARGS[lang], filename=f"random.{ext}")
        result = case.compiled_check(tmp_path_factory.mktemp("random"))
        assert result.error < 1e-12 and result.interpreter_error < 1e-13, result.report()
        compiled.append(result)
    with parsed_once():
        check()
    assert len(compiled) >= examples(13)   # 26 compiled a run, Fortran and C
