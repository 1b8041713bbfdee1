"""The round trip source -> IL -> source on the hand-written programs of tests/programs.

- the IL is a fixed point: parse(unparse(parse(src))) == parse(src);
- compiled original and compiled unparsed code print the same outputs, to the bit;
- the IL interpreter agrees with the compiled original to 1e-14 relative.
"""
import pytest

import adspec
from harness import (compare_bits, compare_rel, compile_and_run, interp_run, load_program, make_inputs,
                     program_paths, run_original)

PROGRAMS = [load_program(p) for p in program_paths()]
IDS = [p.name for p in PROGRAMS]
INTERPRETER_RTOL = 1e-14


def parse_text(prog, text):
    return adspec.parse(text, lang=prog.lang, form=prog.form, filename=str(prog.path))  # INCLUDEs beside it


def test_corpus_is_large_enough():
    assert sum(p.lang == "fortran" for p in PROGRAMS) >= 12
    assert sum(p.lang == "c" for p in PROGRAMS) >= 12


@pytest.mark.parametrize("prog", PROGRAMS, ids=IDS)
def test_il_is_a_fixed_point_of_the_round_trip(prog):
    tree = parse_text(prog, prog.text)
    text = adspec.unparse(tree)
    again = parse_text(prog, text)
    assert again == tree, f"IL changed through unparse/parse; unparsed text:\n{text}"


@pytest.mark.compile
@pytest.mark.parametrize("prog", PROGRAMS, ids=IDS)
def test_unparsed_code_computes_the_same_bits(prog, tmp_path):
    expected = run_original(prog, tmp_path / "original")
    text = adspec.unparse(parse_text(prog, prog.text))
    got = compile_and_run(text, prog.lang, prog.spec, make_inputs(prog.spec), tmp_path / "unparsed", prog.form)
    assert compare_bits(expected, got) == [], text


@pytest.mark.compile
@pytest.mark.parametrize("prog", PROGRAMS, ids=IDS)
def test_interpreter_agrees_with_compiled_code(prog, tmp_path):
    expected = run_original(prog, tmp_path / "original")
    got = interp_run(parse_text(prog, prog.text), prog.spec, make_inputs(prog.spec))
    assert compare_rel(expected, got, INTERPRETER_RTOL) == []
