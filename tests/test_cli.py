"""The command line: help, the round trip commands, and one-line errors on bad input."""
import re
import shutil
import subprocess

import pytest

ADSPEC = shutil.which("adspec")
pytestmark = pytest.mark.skipif(ADSPEC is None, reason="the adspec command is not installed")


def run(*args, cwd=None):
    return subprocess.run([ADSPEC, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def assert_one_line_error(result, filename, line=None):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    where = re.escape(str(filename)) + (f":{line}:" if line is not None else r"(:\d+)?:")
    assert re.match(where, lines[0]), lines[0]
    return lines[0]


def test_help_lists_subcommands():
    result = run("--help")
    assert result.returncode == 0
    for command in ("parse", "unparse"):
        assert command in result.stdout


def test_parse_prints_il(tmp_path):
    src = tmp_path / "a.f90"
    src.write_text("subroutine f(x)\n  real(8) :: x\n  x = 2.0d0 * x\nend subroutine f\n")
    result = run("parse", str(src))
    assert result.returncode == 0, result.stderr
    assert "(procedure" in result.stdout and "assign" in result.stdout


def test_unparse_c(tmp_path):
    src = tmp_path / "a.c"
    src.write_text("double f(double x) {\n  return x * x;\n}\n")
    result = run("unparse", str(src), "-tgtlang", "c")
    assert result.returncode == 0, result.stderr
    assert "double f(double x)" in result.stdout


@pytest.mark.parametrize("name,text,line", [
    ("syntax.f90", "subroutine f(x)\n  real :: x\n  x = = 1\nend subroutine f\n", 3),
    ("syntax.c", "double f(double x) {\n  return x +;\n}\n", 2),
    ("goto.f90", "subroutine f(i)\n  integer :: i\n  go to (10, 20) i\n10 i = 1\n20 i = 2\n"
                 "end subroutine f\n", 3),
    ("switch.c", "void f(int i, int *j) {\n  switch (i)\n  case 1: *j = 2;\n}\n", 2),
    ("empty.f90", "", 1),
    ("blank.c", "\n\n  \n", 1),
])
def test_bad_input_gives_one_line_error(tmp_path, name, text, line):
    src = tmp_path / name
    src.write_text(text)
    assert_one_line_error(run("parse", str(src)), src, line)


def test_binary_file(tmp_path):
    src = tmp_path / "blob.f90"
    src.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00garbage")
    assert_one_line_error(run("unparse", str(src)), src, 1)


def test_missing_file(tmp_path):
    assert_one_line_error(run("parse", str(tmp_path / "nope.f90")), tmp_path / "nope.f90")


def test_unknown_extension(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("x = 1\n")
    assert_one_line_error(run("parse", str(src)), src)


FIG9 = str(__import__("pathlib").Path(__file__).parent / "analysis_programs" / "fig9.f90")


def test_analyze_annotates_every_instruction():
    result = run("analyze", FIG9, "-head", "fig9(d, e)/(a, b, c)")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "a = 5.0" in out and "e = floor(e)" in out
    for name in ("Varied", "Useful", "Active", "Diff-live", "TBR", "Adj-out"):
        assert name in out
    assert "independents {a, b, c}" in out
    assert "Diff-dep(P): a <- {}; d <- {c}; e <- {}" in out     # floor(e) cuts e's dependence


def test_analyze_writes_dot_files(tmp_path):
    result = run("analyze", FIG9, "-head", "fig9(d, e)/(a, b, c)", "--dot", str(tmp_path))
    assert result.returncode == 0, result.stderr
    dots = sorted(p.name for p in tmp_path.iterdir())
    assert any("fig9" in name for name in dots) and any("callgraph" in name for name in dots)
    for p in tmp_path.iterdir():
        assert p.read_text().lstrip().startswith("digraph")


@pytest.mark.parametrize("head,message", [
    ("nosuch(d)/(a)", "no procedure named 'nosuch'"),
    ("fig9(zz)/(a)", "'zz' is not an argument, result or global variable of fig9"),
    ("fig9(d)/(a", "cannot read"),
    ("fig9(d)/(x)", "independent 'x' is not an argument, result or global variable of fig9"),
])
def test_analyze_bad_head(head, message):
    result = run("analyze", FIG9, "-head", head)
    line = assert_one_line_error(result, "<command line>")
    assert message in line


def test_analyze_head_variable_that_is_neither_input_nor_output():
    path = str(__import__("pathlib").Path(__file__).parent / "analysis_programs" / "unused.f90")
    line = assert_one_line_error(run("analyze", path, "-head", "unused(y)/(w)"), "<command line>")
    assert "independent 'w' is neither read nor written by unused" in line
