"""The corpus of Fortran programs using the constructs real codes use (f22-f33): twelve of
them, four in fixed form with TABs, continuation lines and every comment marker. Their
round trip and interpreter checks are those of every corpus program (test_roundtrip.py)."""
from harness import program_paths

NEW_PROGRAMS = [p for p in program_paths() if p.suffix in (".f", ".f90") and "f22" <= p.name[:3] <= "f33"]


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
