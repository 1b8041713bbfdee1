"""The arguments file of `adspec check` and the reading of derivative prototypes and header
comments (adspec/oracle/argsfile.py, prototype.py, points.py)."""
import tomllib

import pytest

import adspec
from adspec.cli import main
from adspec.engine.errors import SourceError
from adspec.oracle import check, init_args_template
from adspec.oracle.argsfile import Args
from adspec.oracle.points import layout
from adspec.oracle.prototype import PrototypeMismatch, match, parse_header, read_procedures
from harness import require_compilers

C_FUNCTION = """\
double norm2(int n, double *x, double w) {
  int i;
  double s = 0.0;
  for (i = 0; i < n; i++) s = s + w * x[i] * x[i];
  return s;
}
"""


def test_init_template_parses_and_a_check_runs_with_it(tmp_path, capsys):
    require_compilers("c")
    src = tmp_path / "norm.c"
    src.write_text(C_FUNCTION)
    assert main(["check", "--init", str(src), "-head", "norm2", "-o", str(tmp_path / "args.toml")]) == 0
    template = (tmp_path / "args.toml").read_text()
    data = tomllib.loads(template)
    assert data["n"] == {"value": 4} and data["x"]["shape"] == ["n"] and data["w"] == {"range": [0.5, 1.5]}
    # adspec's own tangent of a C function (the value a last pointer, the derivative returned)
    tangent = tmp_path / "norm_d.c"
    tangent.write_text(adspec.differentiate([str(src)], "norm2", "tangent").text)
    report = check([str(src)], "norm2", tangent=[str(tangent)], args_file=str(tmp_path / "args.toml"), points=1)
    assert report.ok, report.text()
    assert report.checked_entries == 5   # d norm2 / d x[0..3], d norm2 / d w
    assert report.contract["primal_results"] == {"norm2_result": True}   # the value, through norm2_value


def test_args_errors_name_the_line(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text('[n]\nvalue = 3\n\n[x]\nshape = "n"\n')
    with pytest.raises(SourceError) as e:
        Args.load(path)
    assert str(e.value).startswith(f"{path}:5: x: shape must be a list")
    path.write_text("[n]\nvalu = 3\n")
    with pytest.raises(SourceError, match=r":2: n: unknown key 'valu'"):
        Args.load(path)
    path.write_text("[n\n")
    with pytest.raises(SourceError, match=r"a.toml:1: "):
        Args.load(path)


def test_shapes_from_declarations_args_and_head(tmp_path):
    src = tmp_path / "s.f90"
    src.write_text("subroutine h(n, m, x, y, z)\n integer n, m\n real(8) x(n, 0:m), y(*), z\n"
                   " y(1) = x(1, 0) + z\nend subroutine\n")
    h = read_procedures([str(src)])["h"]
    lay = layout(h, Args({"n": {"value": 2}, "m": {"value": 1}, "y": {"shape": ["n"]}}))
    assert lay.shapes == {"n": (), "m": (), "x": (2, 2), "y": (2,), "z": ()}
    assert lay.index("x", 3) == [2, 1]   # column-major, lower bounds 1 and 0
    with pytest.raises(SourceError, match="size of array 'y'"):
        layout(h, Args({"n": {"value": 2}, "m": {"value": 1}}))


def test_header_comment_and_prototype_matching(tmp_path):
    header = parse_header(["Differentiation of f in reverse (adjoint) mode:",
                           "  gradient     of useful results: *y s->v",
                           "  with respect to varying inputs: *x",
                           "  RW status of diff variables: x:incr y:in-zero s:(loc) *s.v:in-out",
                           "  Plus diff mem management of: state:in"], "c")
    assert (header.primal, header.mode, header.useful, header.varying) == ("f", "adjoint", ("y", "s"), ("x",))
    assert header.statuses == {"x": "incr", "y": "in-zero", "s": "in-out"} and header.memory == {"state": "in"}
    src = tmp_path / "p.c"
    src.write_text("void f(double *x, double *xx, double *y) { *y = *x * *xx; }\n"
                   "void f_b(double *x, double *xb0, double *xx, double *y, double *yb) {}\n"
                   "void f_c(double *x, double *xx, double *y, double *yb, int stated) {}\n")
    procs = read_procedures([str(src)])
    dp = match(procs["f_b"], procs["f"], "adjoint")
    assert dp.derivative_of == {"xb0": "x", "yb": "y"}   # a clash suffix; xx is no derivative of x
    with pytest.raises(PrototypeMismatch, match="unexpected extra argument"):
        match(procs["f_c"], procs["f"], "adjoint")


def test_fortran_files_compile_modules_first(tmp_path):
    from adspec.oracle.check import modules_first
    (tmp_path / "b.f90").write_text("subroutine f(x)\n  use mm\n  real(8) x\n  call g(x)\nend subroutine\n")
    (tmp_path / "a.f90").write_text("module mm\ncontains\n  subroutine g(x)\n  real(8) x\n  x = 2*x\n"
                                    "  end subroutine\nend module\n")
    paths = [str(tmp_path / "b.f90"), str(tmp_path / "a.f90")]
    assert modules_first(paths) == paths[::-1]


def test_the_jacobian_table_is_no_argument():
    args = Args({"n": {"value": 3}, "jacobian": {"array": "fjac", "layout": "rows"}})
    assert args.jacobian == {"array": "fjac", "layout": "rows"} and set(args.data) == {"n"}
    with pytest.raises(SourceError, match=r"\[jacobian\]: unknown key\(s\) rows"):
        Args({"jacobian": {"rows": 1}})


def test_init_guesses_one_element_for_c_pointers_used_at_element_zero_only(tmp_path):
    src = tmp_path / "s.c"
    src.write_text("void g(double *v) { v[1] = v[0]; }\n"
                   "void f(int n, double *x, double *w, double *s, double *t, double *y) {\n"
                   "  int i;\n  y[0] = 0.0;\n  g(t);\n"
                   "  for (i = 0; i < n; i++) y[0] += *w * x[i] * s[0] * s[1] * t[0];\n}\n")
    template = init_args_template(str(src), "f(y)/(x w)")
    data = tomllib.loads(template)
    assert {k: v.get("shape") for k, v in data.items()} == {
        "n": None, "x": ["n"], "w": [1], "s": ["n"], "t": ["n"], "y": [1]}
    assert 'shape = ["n"]         # a guess: element count(s)' in template
    assert "shape = [1]           # only its element 0 is used" in template
    # every comment after a value starts in one column
    assert {line.index("#") for line in template.splitlines() if "=" in line and "#" in line} == {22}
