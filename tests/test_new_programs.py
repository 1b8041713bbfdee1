"""The Fortran programs waiting in tests/new_programs/ for the new reader: each compiles with
gfortran and runs through the harness's compiled path, with finite, deterministic results.
(The round trip and the interpreter check come when they move to tests/programs/.)"""
import shutil
from pathlib import Path

import numpy as np
import pytest

from harness import compare_bits, load_program, make_inputs, compile_and_run

NEW_DIR = Path(__file__).resolve().parent / "new_programs"
NEW_PROGRAMS = sorted(p for p in NEW_DIR.iterdir() if p.suffix in (".f", ".f90"))
INCLUDES = sorted(NEW_DIR.glob("*.inc"))


def test_the_new_corpus_has_twelve_programs_four_in_fixed_form_with_tabs():
    assert len(NEW_PROGRAMS) == 12
    fixed = [p for p in NEW_PROGRAMS if p.suffix == ".f"]
    assert len(fixed) >= 4
    for p in fixed:
        lines = p.read_text().splitlines()
        assert any("\t" in line for line in lines), p.name
        assert {line[0] for line in lines if line and line[0] in "cC*"} == {"c", "C", "*"}, p.name
        assert any(_is_continuation(line) for line in lines), p.name


def _is_continuation(line: str) -> bool:
    """A fixed-form continuation line: a character other than blank or 0 in column 6 after
    five blanks, or (TAB layout) a TAB followed by a digit 1-9."""
    if line.startswith("\t"):
        return line[1:2].isdigit() and line[1:2] != "0"
    return len(line) > 5 and line[:5] == "     " and line[5] not in " 0\t"


@pytest.mark.compile
@pytest.mark.parametrize("path", NEW_PROGRAMS, ids=[p.name for p in NEW_PROGRAMS])
def test_new_program_compiles_and_runs(path, tmp_path):
    prog = load_program(path)
    runs = []
    for k in range(2):
        work = tmp_path / str(k)
        work.mkdir()
        for inc in INCLUDES:  # INCLUDE files live beside the program
            shutil.copy(inc, work)
        runs.append(compile_and_run(prog.text, prog.lang, prog.spec, make_inputs(prog.spec, 0), work, prog.form))
    assert not compare_bits(*runs)
    for name, value in runs[0].items():
        assert np.all(np.isfinite(value)), f"{prog.name}: {name} not finite: {value}"
