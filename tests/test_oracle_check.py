"""`adspec check` (adspec/oracle): adspec's own derivatives pass as candidates; hand-broken copies
fail with the right pair and the right first wrong procedure; the contract is observed right on
candidates written both ways; the command line's exit statuses and JSON. Each check() is one
compile; keep their number small."""
import json

import pytest

import adspec
from adspec.cli import main
from adspec.oracle import check
from harness import require_compilers

C_PRIMAL = """\
#include <math.h>
void g(int n, double *x, double *s) {
  int i;
  *s = 0.0;
  for (i = 0; i < n; i++) *s = *s + sin(x[i]) * x[i];
}
void f(int n, double *x, double *y, double c) {
  double s;
  int i;
  g(n, x, &s);
  for (i = 0; i < n; i++) y[i] = s * x[i] + c * x[i] * x[i];
}
"""
C_ARGS = {"n": {"value": 3}, "x": {"shape": ["n"]}, "y": {"shape": ["n"]}}

# g is a module procedure (called by gfortran's name) and keeps state: each call doubles
# `scale`, so only calls that each start from the program's first state agree
F_PRIMAL = """\
module m
  real(8) :: scale = 1.0d0
contains
  subroutine g(n, x, s)
    integer n
    real(8) x(n), s
    integer i
    scale = 2.0d0 * scale
    s = 0.0d0
    do i = 1, n
      s = s + scale * sin(x(i)) * x(i)
    end do
  end subroutine
end module
subroutine f(n, x, y)
  use m
  integer n
  real(8) x(n), y(n)
  real(8) s
  integer i
  call g(n, x, s)
  do i = 1, n
    y(i) = s * x(i) + x(i) * x(i)
  end do
end subroutine
"""
F_ARGS = {"n": {"value": 2}}


def _program(tmp_path, name, text, mode, head="f(y)/(x)"):
    primal = tmp_path / name
    primal.write_text(text)
    result = adspec.differentiate([str(primal)], head, mode)
    stem, ext = name.rsplit(".", 1)
    candidate = tmp_path / f"{stem}_{'d' if mode == 'tangent' else 'b'}.{ext}"
    candidate.write_text(result.text)
    return primal, candidate


def _broken(path, old, new):
    text = path.read_text()
    assert old in text, text
    broken = path.with_name("broken_" + path.name)
    broken.write_text(text.replace(old, new, 1))
    return broken


@pytest.mark.compile
@pytest.mark.parametrize("mode", ["tangent", "adjoint"])
def test_own_c_derivatives_pass_and_a_broken_callee_is_named(tmp_path, mode):
    require_compilers("c")
    primal, cand = _program(tmp_path, "t.c", C_PRIMAL, mode)
    report = check([str(primal)], "f(y)/(x)", **{mode: [str(cand)]}, args=C_ARGS, points=2)
    assert report.ok, report.text()
    assert report.checked_entries == 2 * 3 * 3   # the full 3 x 3 Jacobian at 2 points
    assert [p.name for p in report.procedures] == ["g", "f"]
    assert report.text().splitlines()[-1].startswith("adspec check: PASS")
    if mode == "tangent":
        assert report.complex_step["ok"] and report.complex_step["relative_error"] < 1e-12
        # g's derivative of sin(x) * x: drop the cos term's factor x
        broken = _broken(cand, "x[i] * (cos(x[i]) * xd[i])", "(cos(x[i]) * xd[i])")
    else:
        assert report.dot_product["relative_error"] < 1e-12 and report.stack["empty"]
        broken = _broken(cand, "cos(x[i]) * (x[i] * *sb)", "cos(x[i]) * *sb")
    bad = check([str(primal)], "f(y)/(x)", **{mode: [str(broken)]}, args=C_ARGS, points=1)
    assert not bad.ok and bad.first_wrong_procedure == "g", bad.text()
    assert [p.verdict for p in bad.procedures] == ["fail", "fail"]
    pair = bad.wrong_pairs[0]
    assert (pair["dependent"], pair["dependent_index"], pair["independent"], pair["independent_index"]) == \
        ("y", [0], "x", [0])
    assert pair["entry"] == "d y[0] / d x[0]" and pair["relative_error"] > 1e-3
    assert bad.text().splitlines()[-1].startswith("adspec check: FAIL")


@pytest.mark.compile
def test_own_fortran_derivatives_pass_and_a_broken_head_is_named(tmp_path):
    require_compilers("fortran")
    primal, tangent = _program(tmp_path, "t.f90", F_PRIMAL, "tangent")
    _, adjoint = _program(tmp_path, "t.f90", F_PRIMAL, "adjoint")
    report = check([str(primal)], "f(y)/(x)", adjoint=[str(adjoint)], args=F_ARGS, points=1)
    assert report.ok, report.text()
    assert [(p.name, p.verdict) for p in report.procedures] == [("g", "pass"), ("f", "pass")]
    # Fortran's adjoint overwrites xb (x:out): observed, and it agrees with the header
    assert report.contract["arguments"]["xb"] == {"observed": "out", "claimed": "out", "agrees": True}
    own = check([str(primal)], "f(y)/(x)", tangent=[str(tangent)], args=F_ARGS, points=1)
    assert own.ok and own.complex_step["relative_error"] < 1e-12, own.text()
    broken = _broken(tangent, "yd(i) = ", "yd(i) = 2*xd(i) + ")   # the head wrong, g right
    bad = check([str(primal)], "f(y)/(x)", tangent=[str(broken)], args=F_ARGS, points=1)
    assert not bad.ok and bad.first_wrong_procedure == "f", bad.text()
    assert {(p["entry"]) for p in bad.wrong_pairs} == {"d y(1) / d x(1)", "d y(2) / d x(2)"}


# A hand-written adjoint of y = x * x (n elements), written both ways (Tapenade's conventions).
ADJOINT_TEMPLATE = """\
#include <adStack.h>
/* Differentiation of sq in reverse (adjoint) mode:
   gradient     of useful results: *y
   with respect to varying inputs: *x
   RW status of diff variables: x:{x_claim} y:{y_claim} */
void sq_b(int n, double *x, double *xb, double *y, double *yb) {{
  int i;
  for (i = 0; i < n; i++) {{
    {x_update}
    {y_update}
  }}
  {stack}
}}
"""
SQ = "void sq(int n, double *x, double *y) {\n  int i;\n  for (i = 0; i < n; i++) y[i] = x[i] * x[i];\n}\n"
SQ_ARGS = {"n": {"value": 2}, "x": {"shape": ["n"]}, "y": {"shape": ["n"]}}
OVERWRITE = "xb[i] = 2.0 * x[i] * yb[i];"
ACCUMULATE = "xb[i] = xb[i] + 2.0 * x[i] * yb[i];"
RESET = "yb[i] = 0.0;"


@pytest.mark.compile
@pytest.mark.parametrize("x_claim, y_claim, x_update, y_update, stack, want", [
    ("out", "in-zero", OVERWRITE, RESET, "", {"xb": "out", "yb": "in-zero"}),
    ("incr", "in", ACCUMULATE, "", "", {"xb": "incr", "yb": "in"}),
    # accumulates where the header says it overwrites: wrong pairs and a disagreeing contract;
    # a value left on the stack
    ("out", "in-zero", ACCUMULATE, RESET, "pushReal8(1.0);", {"xb": "incr", "yb": "in-zero"}),
])
def test_contract_observed_on_candidates_written_both_ways(tmp_path, x_claim, y_claim, x_update, y_update, stack,
                                                           want):
    require_compilers("c")
    (tmp_path / "sq.c").write_text(SQ)
    (tmp_path / "sq_b.c").write_text(ADJOINT_TEMPLATE.format(x_claim=x_claim, y_claim=y_claim, x_update=x_update,
                                                             y_update=y_update, stack=stack))
    report = check([str(tmp_path / "sq.c")], "sq(y)/(x)", adjoint=[str(tmp_path / "sq_b.c")], args=SQ_ARGS, points=1)
    observed = {k: v["observed"] for k, v in report.contract["arguments"].items()}
    assert observed == want, report.text()
    assert report.contract["inputs_unchanged"] == {"n": True, "x": True}
    wrong = want["xb"] != x_claim
    assert report.ok is not wrong, report.text()
    if wrong:
        assert report.contract["arguments"]["xb"]["agrees"] is False
        # the garbage in xb stays in every entry of the rows
        assert {p["entry"] for p in report.wrong_pairs} == {f"d y[{i}] / d x[{j}]" for i in (0, 1) for j in (0, 1)}
        assert report.dot_product["ok"]   # the dot-product test passes zeroed adjoints: it cannot see this
        assert not report.stack["empty"] and report.stack["bytes_left"] > 0


@pytest.mark.compile
@pytest.mark.parametrize("x_update, why", [
    # the probe's garbage is lost next to these values, which are wrong
    ("xb[i] = xb[i] + 1.0e300 * x[i] * yb[i];", "wrong pair(s)"),
    # neither kept nor added; zeroed on entry (as `incr` allows) the values are right
    ("xb[i] = 0.5 * xb[i] + 2.0 * x[i] * yb[i];", "the header comment's contract of xb could not be confirmed"),
])
def test_an_inconclusive_contract_probe_says_unclear(tmp_path, x_update, why):
    require_compilers("c")
    (tmp_path / "sq.c").write_text(SQ)
    (tmp_path / "sq_b.c").write_text(ADJOINT_TEMPLATE.format(x_claim="incr", y_claim="in", x_update=x_update,
                                                             y_update="", stack=""))
    report = check([str(tmp_path / "sq.c")], "sq(y)/(x)", adjoint=[str(tmp_path / "sq_b.c")], args=SQ_ARGS, points=1)
    assert report.contract["arguments"]["xb"] == {"observed": "unclear", "claimed": "incr", "agrees": None}
    assert "xb: unclear / incr  (the probe could not tell" in report.text()
    assert not report.ok and why in report.text().splitlines()[-1], report.text()


def test_bad_input_is_file_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "sq.c").write_text(SQ)
    (tmp_path / "sq_b.c").write_text("void sq_b(void) {}\n")
    (tmp_path / "args.toml").write_text("[n]\nvalue = 2.5\n")
    code = main(["check", str(tmp_path / "sq.c"), "-head", "sq(y)/(x)", "--adjoint", str(tmp_path / "sq_b.c"),
                 "--args", str(tmp_path / "args.toml")])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == f"{tmp_path / 'args.toml'}:2: n: value must be an integer, got 2.5"
    assert main(["check", str(tmp_path / "sq.c"), "-head", "sq(y)/(x)", "--adjoint", str(tmp_path / "no.c")]) == 2
    assert "no.c: no such candidate file" in capsys.readouterr().err


def test_command_line_json_and_fail_exit(tmp_path, capsys):
    """A candidate whose prototype does not follow the primal's is a FAIL (exit 1) saying why."""
    (tmp_path / "sq.c").write_text(SQ)
    (tmp_path / "sq_b.c").write_text("void sq_b(int n, double *x, double *y, double *yb) {}\n")
    (tmp_path / "args.toml").write_text('[n]\nvalue = 2\n[x]\nshape = ["n"]\n[y]\nshape = ["n"]\n')
    code = main(["check", str(tmp_path / "sq.c"), "-head", "sq(y)/(x)", "--adjoint", str(tmp_path / "sq_b.c"),
                 "--args", str(tmp_path / "args.toml"), "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 1 and out.splitlines()[-1].startswith("adspec check: FAIL"), out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["verdict"] == "fail" and report["mode"] == "adjoint"
    assert "prototype mismatch" in report["errors"][0] and "xb" in report["errors"][0]


@pytest.mark.compile
def test_struct_of_doubles_by_pointer(tmp_path):
    """A C struct of doubles is checked as the array of its doubles; pairs name its fields."""
    require_compilers("c")
    primal, tangent = _program(tmp_path, "st.c", "struct state { double q[3]; double e; };\n"
                               "void f(struct state *s, double *y) { *y = s->q[1] * s->e + s->e; }\n",
                               "tangent", head="f(y)/(s)")
    broken = _broken(tangent, "s->e * sd->q[1]", "2.0 * s->e * sd->q[1]")
    report = check([str(primal)], "f(y)/(s)", tangent=[str(broken)], points=1)
    assert [p["entry"] for p in report.wrong_pairs] == ["d y / d s->q[1]"], report.text()
    assert report.checked_entries == 4 and not report.complex_step["ok"]


@pytest.mark.compile
def test_a_wrong_function_callee_is_named(tmp_path):
    """A callee that is a function is checked alone with its result as a dependent."""
    require_compilers("c")
    primal, tangent = _program(tmp_path, "fn.c", "#include <math.h>\n"
                               "double sq(double v, double w) { return v * sin(w); }\n"
                               "void f(int n, double *x, double *y) {\n"
                               "  int i;\n  for (i = 0; i < n; i++) y[i] = sq(x[i], x[0]) + x[i];\n}\n", "tangent")
    broken = _broken(tangent, "return sin(w) * vd", "return 2.0 * sin(w) * vd")
    report = check([str(primal)], "f(y)/(x)", tangent=[str(broken)], args=C_ARGS, points=1)
    assert report.first_wrong_procedure == "sq", report.text()
    sq = report.procedures[0]
    assert sq.head == "sq(sq)/(v w)" and [p["entry"] for p in sq.wrong_pairs] == ["d sq / d v"]


@pytest.mark.compile
def test_runtime_dir_and_the_candidate_tools_own_tangent(tmp_path):
    """An adjoint candidate compiles against the push/pop runtime the user names (--runtime DIR);
    a directory without adStack.h fails the check, saying so. --tangent-of-candidate checks the
    tool's tangent too: a broken one fails the adjoint's check with its pair named."""
    require_compilers("c")
    primal, adjoint = _program(tmp_path, "t.c", C_PRIMAL, "adjoint")
    _, tangent = _program(tmp_path, "t.c", C_PRIMAL, "tangent")
    runtime = tmp_path / "runtime"
    assert main(["runtime", "-O", str(runtime)]) == 0 and (runtime / "adStack.h").is_file()
    own = check([str(primal)], "f(y)/(x)", adjoint=[str(adjoint)], tangent_of_candidate=[str(tangent)],
                args=C_ARGS, points=1, runtime=str(runtime))
    assert own.ok, own.text()
    assert any(n.startswith("the candidate tool's own tangent: adspec check: PASS") for n in own.notes), own.notes
    empty = tmp_path / "empty"
    empty.mkdir()
    no_runtime = check([str(primal)], "f(y)/(x)", adjoint=[str(adjoint)], args=C_ARGS, points=1, runtime=str(empty))
    assert not no_runtime.ok and any("adStack" in e for e in no_runtime.errors), no_runtime.text()
    broken = _broken(tangent, "x[i] * (cos(x[i]) * xd[i])", "(cos(x[i]) * xd[i])")
    bad = check([str(primal)], "f(y)/(x)", adjoint=[str(adjoint)], tangent_of_candidate=[str(broken)],
                args=C_ARGS, points=1)
    assert not bad.ok
    assert any(p["entry"] == "tangent of candidate: d y[0] / d x[0]" for p in bad.wrong_pairs), bad.text()
