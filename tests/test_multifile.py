"""Several source files make one program: one call graph over all of them, in any order."""
import pytest

from adspec.analyze import analyze_files
from adspec.engine.errors import SourceError
from test_cli import ADSPEC, assert_one_line_error, head_lines, run

USER = """\
subroutine top(x, y)
  use consts
  real(8) :: x, y
  y = scale * x
  call helper(y)
end subroutine top
"""
HELPER = """\
subroutine helper(z)
  real(8) :: z
  z = z * z
end subroutine helper
"""
MODULE = """\
module consts
  real(8) :: scale = 2.0d0
end module consts
"""


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("user.f90", USER), ("helper.f90", HELPER), ("consts.f90", MODULE)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return {name: str(p) for name, p in paths.items()}


def test_module_file_given_after_its_user(files):
    """`use consts` in user.f90 finds the module of consts.f90, given last; the call of
    helper (another file) is an edge of the one call graph."""
    program, results, sources = analyze_files([files["user.f90"], files["helper.f90"], files["consts.f90"]],
                                              "top(y)/(x)")
    assert set(program.procedures) == {"top", "helper"}
    assert program.callgraph.has_edge("top", "helper")
    top = program.procedures["top"]
    assert top.zones.describe(results.inout.read(top)) == "scale, x"
    assert set(sources) == set(files.values())


@pytest.mark.skipif(ADSPEC is None, reason="the adspec command is not installed")
def test_command_line_takes_several_files_in_any_order(files):
    out = run("analyze", "-head", "top(y)/(x)", files["user.f90"], files["helper.f90"], files["consts.f90"])
    assert out.returncode == 0, out.stderr
    assert head_lines(out.stdout) == ["independents {x}   dependents {y}"]
    assert "Dep(P): y <- {scale, x}" in out.stdout and "subroutine helper  (" in out.stdout
    reordered = run("analyze", files["consts.f90"], files["helper.f90"], "-head", "top(y)/(x)", files["user.f90"])
    assert reordered.returncode == 0, reordered.stderr
    assert head_lines(reordered.stdout) == head_lines(out.stdout)     # the report follows the file order
    assert "Dep(P): y <- {scale, x}" in reordered.stdout


@pytest.mark.skipif(ADSPEC is None, reason="the adspec command is not installed")
def test_errors_name_the_file_they_are_about(files, tmp_path):
    assert "USE of unknown module 'consts'" in assert_one_line_error(
        run("analyze", "-head", "top(y)/(x)", files["user.f90"], files["helper.f90"]), files["user.f90"], 2)
    bad = tmp_path / "bad.f90"
    bad.write_text("subroutine bad(z)\n  implicit none\n  real(8) :: z\n  z = q\nend subroutine bad\n")
    assert_one_line_error(run("analyze", "-head", "top(y)/(x)", files["user.f90"], str(bad), files["consts.f90"],
                              files["helper.f90"]), bad, 4)


def test_a_procedure_defined_in_two_files_is_an_error(files, tmp_path):
    again = tmp_path / "again.f90"
    again.write_text(HELPER)
    with pytest.raises(SourceError) as e:
        analyze_files([files["user.f90"], files["helper.f90"], files["consts.f90"], str(again)], "top(y)/(x)")
    assert e.value.filename == str(again) and "helper is defined twice" in e.value.message
