"""Random IL programs (hypothesis): unparse -> parse gives back the same IL, and the IL
interpreter agrees with the compiled unparsed code."""
import pytest
from hypothesis import HealthCheck, given, settings

import adspec
from harness import compare_rel, compile_and_run, interp_run, make_inputs, parse_spec
from il_gen import examples, SPEC, programs

LANGS = ("fortran", "c")
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def spec_of(lang):
    marker = "!" if lang == "fortran" else "//"
    return parse_spec(f"{marker} adspec-test: {SPEC[lang]}\n")


@pytest.mark.parametrize("lang, form", [("fortran", "free"), ("fortran", "fixed"), ("c", None)])
def test_unparse_then_parse_gives_the_same_il(lang, form):
    ext = {"free": "f90", "fixed": "f", None: "c"}[form]

    @settings(max_examples=examples(60), **SETTINGS)
    @given(programs(lang))
    def check(tree):
        text = adspec.unparse(tree, form=form)
        again = adspec.parse(text, lang=lang, form=form, filename=f"random.{ext}")
        assert again == tree, text
    check()


@pytest.mark.compile
@pytest.mark.parametrize("lang", LANGS)
def test_interpreter_agrees_with_compiled_code(lang, tmp_path_factory):
    spec = spec_of(lang)

    @settings(max_examples=examples(25), **SETTINGS)
    @given(programs(lang))
    def check(tree):
        text = adspec.unparse(tree)
        inputs = make_inputs(spec, seed=1)
        compiled = compile_and_run(text, lang, spec, inputs, tmp_path_factory.mktemp("rand"))
        interpreted = interp_run(tree, spec, inputs)
        assert compare_rel(compiled, interpreted, 1e-14) == [], text
    check()
