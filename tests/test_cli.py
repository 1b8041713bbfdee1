"""The command line: help, the round trip commands, and one-line errors on bad input."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _adspec_command():
    """The adspec installed with the Python running the tests (not another one first on PATH)."""
    beside = Path(sys.executable).parent / "adspec"
    return str(beside) if beside.exists() else shutil.which("adspec")


ADSPEC = _adspec_command()
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
    ("goto.f90", "subroutine f(i)\n  integer :: i\n  assign 10 to i\n  go to i\n10 i = 1\n"
                 "end subroutine f\n", 3),
    ("switch.c", "void f(int i, int *j) {\n  switch (i)\n  case 1: *j = 2;\n}\n", 2),
    ("data.f", "      SUBROUTINE S(A)\n      DOUBLE PRECISION A(4,4)\n      INTEGER I, J\n"
               "      DATA ((A(I,J), I =, 1, 4), J = 1, 4) / 16*0.0D0 /\n      END\n", 4),
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


FIG9 = str(__import__("pathlib").Path(__file__).parent.parent / "docs" / "examples" / "fig9.f90")


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
    for p in tmp_path.glob("*.dot"):   # (and an .svg beside each when Graphviz is installed)
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


# --- Tapenade's -head syntax and options ----------------------------------------------------
def analyze_ok(*args):
    result = run("analyze", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def head_lines(out):
    return [line for line in out.splitlines() if line.startswith("independents")]


def test_head_lists_separated_by_spaces_or_commas_give_the_same_sets():
    spaces = analyze_ok(FIG9, "-head", "fig9(d e)/(a b c)")
    assert head_lines(spaces) == ["independents {a, b, c}   dependents {d, e}"]
    assert spaces == analyze_ok(FIG9, "-head", "fig9(d,e)/(a,b,c)") == analyze_ok(FIG9, "-head", "fig9(d, e)/(a ,b c)")


TWO_HEADS = """\
subroutine f(x, y)
  real(8) :: x, y
  y = x * x
end subroutine f
subroutine g(w, z)
  real(8) :: w, z
  z = sin(w)
end subroutine g
"""


def test_several_heads_in_one_string_or_repeated(tmp_path):
    src = tmp_path / "two.f90"
    src.write_text(TWO_HEADS)
    one_string = analyze_ok(str(src), "-head", "f(y)/(x) g(z)/(w)")
    assert head_lines(one_string) == ["independents {x}   dependents {y}", "independents {w}   dependents {z}"]
    assert one_string == analyze_ok(str(src), "-head", "f(y)/(x)", "-head", "g(z)/(w)")


BARE = """\
subroutine f(n, x, z, y, k, p)
  integer :: n, k
  real(8), intent(in) :: x(n), p
  real(8) :: z, y
  y = sum(x) * z
  z = 2.0d0 * z
  k = n
end subroutine f
"""


def test_bare_head_takes_every_real_input_and_output(tmp_path):
    """`-head f`: independents are the real variables f reads (not the integer n, nor p which
    is never read), dependents the real ones it writes (not the integer k)."""
    src = tmp_path / "bare.f90"
    src.write_text(BARE)
    assert head_lines(analyze_ok(str(src), "-head", "f")) == ["independents {x, z}   dependents {z, y}"]


def test_vars_and_outvars_fill_the_lists_a_head_leaves_out():
    assert head_lines(analyze_ok(FIG9, "-head", "fig9", "-vars", "a b", "-outvars", "d")) == \
        ["independents {a, b}   dependents {d}"]
    assert head_lines(analyze_ok(FIG9, "-head", "fig9(e)", "-vars", "a,c", "-outvars", "d")) == \
        ["independents {a, c}   dependents {e}"]
    assert head_lines(analyze_ok(FIG9, "--head", "fig9", "--vars", "b")) == \
        ["independents {b}   dependents {a, d, e}"]


@pytest.mark.parametrize("option,message", [
    ("-haed", "adspec: unknown option -haed (did you mean -head?)"),
    ("-outvar", "adspec: unknown option -outvar (did you mean -outvars?)"),
    ("--haed", "adspec: unknown option --haed (did you mean --head?)"),
    ("-zzzzzz", "adspec: unknown option -zzzzzz"),
])
def test_unknown_option_is_one_line_with_the_closest_known_ones(option, message):
    result = run("analyze", FIG9, "-head", "fig9(d)/(a)", option, "x")
    assert result.returncode == 1
    assert result.stderr.strip() == message
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_missing_head_is_one_line_exit_1():
    result = run("analyze", FIG9)
    assert result.returncode == 1 and len(result.stderr.strip().splitlines()) == 1
    assert "-head" in result.stderr


def test_help_lists_the_tapenade_options():
    out = run("--help").stdout
    for option in ("-head", "-vars", "-outvars", "analyze FILE..."):
        assert option in out


GLOBAL_THROUGH_CALL = """\
module state
  real(8) :: energy
end module state
subroutine top(x)
  real(8) :: x
  call accumulate(x)
end subroutine top
subroutine accumulate(v)
  use state
  real(8) :: v
  energy = energy + v * v
end subroutine accumulate
"""
COMMON_THROUGH_CALL = """\
      subroutine top(x)
      double precision x
      call acc(x)
      end
      subroutine acc(v)
      double precision v, e
      common /blk/ e
      e = e + v*v
      end
"""


@pytest.mark.parametrize("name,text,head,expected", [
    ("module.f90", GLOBAL_THROUGH_CALL, "top(energy)/(x)", "independents {x}   dependents {energy}"),
    ("common.f", COMMON_THROUGH_CALL, "top(e)/(x e)", "independents {/blk/ e, x}   dependents {/blk/ e}"),
])
def test_head_global_reached_only_through_a_call(tmp_path, name, text, head, expected):
    """top never names the global: accumulate/acc, which it calls, writes it."""
    src = tmp_path / name
    src.write_text(text)
    assert head_lines(analyze_ok(str(src), "-head", head)) == [expected]


def test_head_global_of_a_callee_that_is_not_called_is_rejected(tmp_path):
    src = tmp_path / "module.f90"
    src.write_text(GLOBAL_THROUGH_CALL.replace("  call accumulate(x)\n", "  x = 2 * x\n"))
    line = assert_one_line_error(run("analyze", str(src), "-head", "top(energy)/(x)"), "<command line>")
    assert "'energy' is not an argument, result or global variable of top" in line


HOST = """\
subroutine top(x, y)
  real(8) :: x, y
  call host(x, y)
end subroutine top
subroutine host(in, out)
  implicit none
  real(8) :: in, out
  real(8) :: h
  h = 2.0d0 * in
  call inner()
contains
  subroutine inner()
    real(8) :: t, u
    t = h * in
    u = t + 1.0d0
    out = u * u
  end subroutine inner
end subroutine host
"""


def test_internal_procedure_variables_stay_inside_the_host(tmp_path):
    """inner writes the host's formal `out` and reads its local `h`: the host's summary shows
    `out` and not h (nor inner's own t, u), and top, calling host(x, y), sees y written."""
    src = tmp_path / "host.f90"
    src.write_text(HOST)
    out = analyze_ok(str(src), "-head", "host(out)/(in)")
    assert "independents {in}   dependents {out}" in out
    assert "in-out: reads {in}  may write {out}  must write {out}" in out
    assert head_lines(analyze_ok(str(src), "-head", "host")) == ["independents {in}   dependents {out}"]
    top = analyze_ok(str(src), "-head", "top(y)/(x)")
    assert "independents {x}   dependents {y}" in top
    assert "in-out: reads {x}  may write {y}  must write {y}" in top


def test_implicitly_typed_host_variable_is_shared_with_the_internal_procedure(tmp_path):
    """x and y are never declared: the host's implicit x and y are the ones inner uses."""
    src = tmp_path / "implicit_host.f90"
    src.write_text("subroutine host(in, out)\n  real(8) :: in, out\n  x = in\n  call inner()\n  out = y\n"
                   "contains\n  subroutine inner()\n    t = x * x\n    y = t\n  end subroutine inner\n"
                   "end subroutine host\n")
    out = analyze_ok(str(src), "-head", "host(out)/(in)")
    assert "in-out: reads {in}  may write {out}  must write {out}" in out
    assert "Diff-dep(P): out <- {in}" in out


def test_a_head_given_twice_is_refused():
    line = assert_one_line_error(run("analyze", FIG9, "-head", "fig9(d)/(a)", "-head", "FIG9"), "<command line>")
    assert "procedure FIG9 is given twice" in line


def test_tgtlang_other_than_the_source_language_is_refused(tmp_path):
    """-tgtlang c on Fortran input is refused with the file, not ignored (the output would be Fortran)."""
    src = tmp_path / "a.f90"
    src.write_text("subroutine f(x, y)\n  real(8) x, y\n  y = x * x\nend subroutine\n")
    refused = run("-d", "-tgtlang", "c", "-head", "f(y)/(x)", str(src), "-O", str(tmp_path))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert refused.stderr.strip() == f"{src}: writing the derivatives of fortran source in c is not supported yet"
    same = run("-d", "-tgtlang", "fortran", "-head", "f(y)/(x)", str(src), "-O", str(tmp_path))
    assert same.returncode == 0 and (tmp_path / "a_d.f90").exists(), same.stderr


# --- progress on a terminal ------------------------------------------------------------------

class _Terminal:
    """A stderr that says it is a terminal (or not) and keeps what is written."""

    def __init__(self, tty: bool):
        self.tty, self.parts = tty, []

    def isatty(self):
        return self.tty

    def write(self, text):
        self.parts.append(text)
        return len(text)

    def flush(self):
        pass

    @property
    def text(self):
        return "".join(self.parts)


_TWO_PROCEDURES = """subroutine g(x, y)
  real(8) :: x, y
  y = sin(x) * y
end subroutine g
subroutine f(x, y)
  real(8) :: x, y
  call g(x, y)
  y = y * x
end subroutine f
"""


@pytest.mark.parametrize("tty", [True, False])
def test_progress_is_shown_in_place_on_a_terminal_and_nothing_elsewhere(tmp_path, monkeypatch, tty):
    from adspec import cli, progress
    src = tmp_path / "two.f90"
    src.write_text(_TWO_PROCEDURES)
    monkeypatch.setattr(progress, "PROGRESS_MIN_LINES", 5)   # the file has 9 lines
    err = _Terminal(tty)
    monkeypatch.setattr(sys, "stderr", err)
    assert cli.main(["-d", "-head", "f(y)/(x)", str(src), "-O", str(tmp_path)]) == 0
    wrote = f"wrote {tmp_path / 'two_d.f90'}\nwrote {tmp_path / 'two_d.msg'}\n"
    if not tty:
        assert err.text == wrote
        return
    cleared = "\r" + " " * len("adspec: differentiating f (2/2)") + "\r"
    assert err.text == "\radspec: differentiating g (1/2)\radspec: differentiating f (2/2)" + cleared + wrote
    assert "subroutine f_d" in (tmp_path / "two_d.f90").read_text().lower()


def test_progress_only_for_inputs_over_2000_lines_on_a_terminal(tmp_path):
    from adspec.progress import PROGRESS_MIN_LINES, TerminalProgress, progress_for
    short, long = tmp_path / "short.f90", tmp_path / "long.f90"
    short.write_text("!\n" * PROGRESS_MIN_LINES)
    long.write_text("!\n" * (PROGRESS_MIN_LINES + 1))
    assert progress_for([short], _Terminal(True)) is None
    assert isinstance(progress_for([long], _Terminal(True)), TerminalProgress)
    assert isinstance(progress_for([short, short], _Terminal(True)), TerminalProgress)  # lines of all files
    assert progress_for([long], _Terminal(False)) is None


def test_a_shorter_name_overwrites_the_whole_previous_progress_line():
    from adspec.progress import TerminalProgress
    err = _Terminal(True)
    bar = TerminalProgress(err)
    bar("long_name", 1, 2)
    bar("g", 2, 2)
    bar.clear()
    assert err.parts == ["\radspec: differentiating long_name (1/2)",
                         "\radspec: differentiating g (2/2)" + " " * len("long_name"[1:]),
                         "\r" + " " * len("adspec: differentiating g (2/2)") + "\r"]
