"""Tangent mode (paper 5.3): the structure of the paper's figures, derivatives checked by
numbers in the IL interpreter and compiled, the derivation record, the command line."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import adspec
from adspec.engine.errors import UnsupportedError
from adspec.engine.il import walk
from harness import require_compilers
from tangent_check import check_tangent

FIG9 = """subroutine fig9(a, b, c, d, e)
  real :: a, b, c, d, e, x
  x = a*b
  a = 5.0
  d = a*c
  e = a/x
  e = floor(e)
end subroutine
"""

FIG8 = """subroutine foo(a, x, t, y)
  real(8) a, x, t, y
  y = a*x*sin(t)
end subroutine
subroutine top(a, x, z, t, y, b, c)
  real(8) a, x, z, t, y, b, c
  call foo(a, x, 2.5d0, y)
  call foo(c, z, t, b)
end subroutine
"""

LOOP = """subroutine f(x, y, n)
  integer n, i
  real(8) x(n), y, t
  y = 0.0d0
  do i = 1, n
    t = sin(x(i)) * x(i)
    if (t > 0.0d0) then
      y = y + t * t
    else
      y = y - 2.0d0 * t / x(i)
    end if
  end do
end subroutine
"""


def body_lines(text: str, proc: str) -> list[str]:
    """The executable and declaration lines of procedure `proc` in generated code."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"subroutine {proc}("))
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("end subroutine"))
    return [line.strip() for line in lines[start + 1:end]]


def tangent(src, head, mode="tangent", **options):
    return adspec.differentiate(src, head=head, mode=mode, lang="fortran", filename="t.f90", **options)


def test_fig9_with_activity_analysis():
    """Fig. 9, right column: partial evaluation (a is not varied after a = 5.0, so no ad
    and dd = a*cd) and slicing (e is not useful before floor, so no derivative of e = a/x);
    ed = 0.0 before e = floor(e), since e is a dependent."""
    lines = body_lines(tangent(FIG9, "fig9(d e)/(a b c)").text, "fig9_d")
    statements = [line for line in lines if not line.startswith("real")]
    assert statements == ["x = a*b", "a = 5.0", "dd = a*cd", "d = a*c", "e = a/x", "ed = 0.0", "e = floor(e)"]


def test_fig9_without_activity_analysis():
    """Fig. 9, middle column (the naïve tangent, -nooptim activity): every real variable
    has a derivative, reset to 0.0 when it receives a constant."""
    lines = body_lines(tangent(FIG9, "fig9(d e)/(a b c)", nooptim={"activity"}).text, "fig9_d")
    statements = [line for line in lines if not line.startswith("real")]
    assert statements == ["xd = b*ad + a*bd", "x = a*b", "ad = 0.0", "a = 5.0", "dd = c*ad + a*cd", "d = a*c",
                          "ed = 1.0/x*ad - a/x*(1.0/x)*xd", "e = a/x", "ed = 0.0", "e = floor(e)"]


def test_fig8_generalization_and_dummy_zero_derivative():
    """Fig. 8: one foo_d for the envelope of the active calls (x, t and y have derivatives);
    the first call passes the constant 2.5 for t, so it passes a dummy zero derivative."""
    text = tangent(FIG8, "top(y b)/(x z t)").text
    assert "subroutine foo_d(a, x, xd, t, td, y, yd)" in text
    top = body_lines(text, "top_d")
    assert "dummyzerod = 0.0d0" in top
    assert "call foo_d(a, x, xd, 2.5d0, dummyzerod, y, yd)" in top
    assert "call foo_d(c, z, zd, t, td, b, bd)" in top
    check = check_tangent(FIG8, "fortran", "top(y b)/(x z t)", [(n, "real", (), None) for n in "a x z t y b c".split()])
    assert check.max_error < 1e-7, check.report()


def test_fig6_derivative_instruction_goes_before_the_assignment():
    """Fig. 6 (4.3): a(i) = x*b(j) + cos(a(i)); the derivative reads a(i) before it is
    overwritten, so it is placed just before a copy of the assignment."""
    src = ("subroutine s(a, b, x, i, j)\n  integer i, j\n  real(8) a(5), b(5), x\n"
           "  a(i) = x*b(j) + cos(a(i))\nend subroutine\n")
    result = tangent(src, "s(a)/(a b x)")
    lines = body_lines(result.text, "s_d")
    first = lines.index("a(i) = x*b(j) + cos(a(i))")
    assert lines[first - 1].startswith("ad(i) = ") and "sin(a(i))" in lines[first - 1]
    check = check_tangent(src, "fortran", "s(a)/(a b x)", [("a", "real", (5,), None), ("b", "real", (5,), None),
                                                          ("x", "real", (), None), ("i", "int", (), 2),
                                                          ("j", "int", (), 4)])
    assert check.max_error < 1e-7, check.report()


def test_fig10_tangent_statements():
    """Fig. 10 (tangent column, without the function call): xd = xd + yd(2) before
    x = x + y(2), then the product rule for x = x*x (the paper's xd*x + x*xd, its two equal
    terms folded into one)."""
    src = "subroutine g(x, y)\n  real(8) :: x, y(*)\n  x = x + y(2)\n  x = x*x\n  y(10) = x*y(9)\nend subroutine\n"
    lines = body_lines(tangent(src, "g(y)/(x y)").text, "g_d")
    assert lines[lines.index("x = x + y(2)") - 1] == "xd = xd + yd(2)"
    assert lines[lines.index("x = x*x") - 1] == "xd = 2.0d0*x*xd"
    assert lines[lines.index("y(10) = x*y(9)") - 1] == "yd(10) = y(9)*xd + x*yd(9)"


def test_loop_with_branches_and_a_variable_made_passive_then_active():
    """y = 0 makes y passive; the loop makes it active again: its derivative is reset so that
    the loop's first iteration reads zero (implicit zero made explicit, 4.6)."""
    result = tangent(LOOP, "f(y)/(x)")
    lines = body_lines(result.text, "f_d")
    assert lines[lines.index("y = 0.0d0") - 1] == "yd = 0.0d0"
    check = check_tangent(LOOP, "fortran", "f(y)/(x)", [("x", "real", (4,), None), ("y", "real", (), None),
                                                       ("n", "int", (), 4)])
    assert check.max_error < 1e-7, check.report()


@pytest.mark.parametrize("nooptim", [{"activity"}, {"diffliveness"}, {"activity", "diffliveness"}])
def test_nooptim_gives_the_same_derivatives(nooptim):
    args = [("x", "real", (4,), None), ("y", "real", (), None), ("n", "int", (), 4)]
    optimized = check_tangent(LOOP, "fortran", "f(y)/(x)", args)
    naive = check_tangent(LOOP, "fortran", "f(y)/(x)", args, nooptim=frozenset(nooptim))
    assert np.allclose(optimized.analytic["y"], naive.analytic["y"], rtol=1e-14, atol=0)


def test_every_derivative_statement_has_a_derivation():
    for src, head in ((FIG9, "fig9(d e)/(a b c)"), (FIG8, "top(y b)/(x z t)"), (LOOP, "f(y)/(x)")):
        result = tangent(src, head)
        derived = set()
        for derivation in result.derivations.values():
            for d in derivation.walk():
                if d.judgment == "tangent" and d.result is not None:
                    derived.update(id(n) for n in walk(d.result))
        made = [n for n in walk(result.tree) if n.ann.get("derivative")]
        assert made, head
        assert all(id(n) in derived for n in made), head


def test_explain_shows_the_rules_premises_and_facts():
    result = tangent(FIG9, "fig9(d e)/(a b c)")
    from adspec.pipeline import explain
    text = explain(result, 7)
    assert "T-assign-zero at line 7: e = floor(e)  ⇒  ed = 0.0; e = floor(e)" in text
    assert "✓ derivative_read_later(e, e = floor(e))" in text
    assert "T-ref-name: e  ⇒  ed" in text


def test_unsupported_constructs_are_refused_with_their_line():
    src = ("subroutine s(x, y)\n  real(8) x, y\n  real(8), pointer :: p\n  real(8), target :: t, c\n"
           "  t = x\n  c = 2.0d0\n  p => t\n  y = p * p\n  p => c\n  y = y + p\nend subroutine\n")
    with pytest.raises(adspec.UnsupportedError) as e:
        tangent(src, "s(y)/(x)")
    assert e.value.line == 9 and "is not supported yet" in e.value.message


def run_adspec(*args, cwd=None):
    code = "import sys; from adspec.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-P", "-c", code, *args], capture_output=True, text=True, cwd=cwd)


def test_command_line_writes_the_tangent_and_the_msg_file(tmp_path):
    src = tmp_path / "loop.f90"
    src.write_text(LOOP)
    result = run_adspec("-d", "-head", "f(y)/(x)", str(src), "-O", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = (tmp_path / "out" / "loop_d.f90").read_text()
    assert "subroutine f_d(x, xd, y, yd, n)" in out and "RW status of diff variables: x:in y:out" in out
    assert (tmp_path / "out" / "loop_d.msg").exists()
    result = run_adspec("-b", "-head", "f(y)/(x)", str(src), "-O", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr   # adjoint mode (tests/test_adjoint.py)
    assert "subroutine f_b(" in (tmp_path / "out" / "loop_b.f90").read_text()


def test_rules_command_and_docs_are_current():
    from pathlib import Path
    import importlib.util
    result = run_adspec("rules")
    assert result.returncode == 0
    for name in ("T-proc", "T-seq", "T-if", "T-loop", "T-assign-diff", "T-assign-zero", "T-assign-copy",
                 "T-call-active", "T-call-passive", "T-expr-chain", "T-ref-name"):
        assert f"[{name}]" in result.stdout
    docs = Path(__file__).resolve().parents[1] / "docs"
    spec = importlib.util.spec_from_file_location("make_rules_reference", docs / "make_rules_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (docs / "rules.md").read_text() == module.reference(), "run python docs/make_rules_reference.py"


@pytest.mark.compile
def test_generated_tangent_compiles_and_agrees_with_the_interpreter(tmp_path):
    """The generated Fortran compiles with gfortran -Wall without warnings and computes the
    same derivative as the interpreter."""
    require_compilers("fortran")
    result = tangent(LOOP, "f(y)/(x)")
    (tmp_path / "f_d.f90").write_text(result.text)
    driver = """program main
  implicit none
  real(8) :: x(4), xd(4), y, yd
  x = (/ 0.7d0, 1.1d0, 0.9d0, 1.3d0 /)
  xd = (/ 0.3d0, -0.2d0, 0.5d0, 0.1d0 /)
  call f_d(x, xd, y, yd, 4)
  print '(2z17)', y, yd
end program
"""
    (tmp_path / "main.f90").write_text(driver)
    built = subprocess.run(["gfortran", "-Wall", "-O0", "f_d.f90", "main.f90", "-o", "main"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert built.returncode == 0 and "Warning" not in built.stderr, built.stderr
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True).stdout.split()
    y, yd = (np.frombuffer(bytes.fromhex(h.zfill(16)), dtype=">f8")[0] for h in out)
    from adspec.engine.il import mk
    from adspec.engine.interp import Interpreter
    combined = mk("file", *adspec.parse(LOOP, lang="fortran", filename="t.f90").kids, *result.tree.kids,
                  lang="fortran", form="free", filename="t.f90")
    args = [np.array([0.7, 1.1, 0.9, 1.3]), np.array([0.3, -0.2, 0.5, 0.1]), np.array(0.0), np.array(0.0),
            np.array(4, dtype=np.int32)]
    Interpreter(combined).call("f_d", args)
    assert y == args[2] and abs(yd - args[3]) <= 1e-14 * abs(yd)


C_PROGRAMS = Path(__file__).parent / "tangent_programs"


# the C programs are checked by numbers in tests/test_tangent_c_programs.py (tests/c_tangent_cases.py)


@pytest.mark.compile
def test_c_tangent_compiles_with_gcc_wall_werror(tmp_path):
    require_compilers("c")
    source = (C_PROGRAMS / "c02_static_helper.c").read_text()
    result = adspec.differentiate(source, head="g(r)/(x u)", lang="c", filename="c02.c")
    assert "void g_d(double x, double xd, double *u, double *ud, double *r, double *rd, int n)" in result.text
    (tmp_path / "c02_d.c").write_text(result.text)
    built = subprocess.run(["gcc", "-Wall", "-Werror", "-c", "c02_d.c"], cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr


def vector_and_scalar_runs(source: str, head: str, args: list, independents: list, dependents: list, nbdirs=3,
                           lang="fortran"):
    """(vector results, scalar results): F_DV with nbdirs directions, and F_D once per
    direction, both in the interpreter. args: (name, numpy value); derivative arrays are
    flat, the direction varying fastest (Fortran xd(nd, i), C xd[i][nd])."""
    from adspec.engine.il import Node, mk
    from adspec.engine.interp import Interpreter
    filename = "t.f90" if lang == "fortran" else "t.c"
    original = adspec.parse(source, lang=lang, filename=filename)
    if lang == "fortran":
        sizes = adspec.parse(f"module diffsizes\n  integer, parameter :: nbdirsmax = {nbdirs}\nend module\n", lang="fortran",
                             filename="diffsizes.f90").kids
    else:
        sizes = ()
    scalar = adspec.differentiate(source, head=head, lang=lang, filename=filename)
    vector = adspec.differentiate(source, head=head, mode="vector", lang=lang, filename=filename)

    def with_nbdirsmax(node):  # C: the value of the macro of DIFFSIZES.h
        if isinstance(node, tuple):
            return tuple(with_nbdirsmax(k) for k in node)
        if not isinstance(node, Node):
            return node
        if node.op == "ident" and node.kids[0] == "NBDirsMax":
            return mk("intCst", nbdirs, None)
        return Node(node.op, with_nbdirsmax(node.kids), node.ann)
    rng = np.random.default_rng(7)
    directions = {name: rng.uniform(-1, 1, size=(nbdirs,) + np.shape(value)) for name, value in args
                  if name in independents}
    proc = scalar.heads[0].procedure

    def run(result, extra, make_derivative):
        tree = mk("file", *sizes, *original.kids, *with_nbdirsmax(result.tree.kids), lang=lang, form="free",
                  filename=filename)
        actuals, slots = [], {}
        for name, value in args:
            actuals.append(np.array(value, copy=True))
            if name in result.diff_formals:
                slots[name] = len(actuals)
                actuals.append(make_derivative(name, value))
        Interpreter(tree).call(result.procedure_names[proc], actuals + extra)
        return {name: actuals[slots[name]] for name in dependents}

    # a copy: F_DV writes the derivatives of in-out arguments where it reads their directions
    column_major = lambda a: np.array(np.asfortranarray(a).reshape(-1, order="F"))  # noqa: E731
    vec = run(vector, [np.array(nbdirs, dtype=np.int32)],
              lambda name, value: column_major(directions[name]) if name in directions
              else np.zeros((nbdirs,) + np.shape(value)).reshape(-1, order="F"))
    scal = [run(scalar, [], lambda name, value, d=d: np.array(directions[name][d]) if name in directions
                else np.zeros(np.shape(value))) for d in range(nbdirs)]
    return vec, scal


@pytest.mark.parametrize("source, head, args, independents, dependents", [
    (LOOP, "f(y)/(x)", [("x", np.array([0.7, 1.1, 0.9, 1.3])), ("y", np.array(0.0)), ("n", np.array(4, np.int32))],
     ["x"], ["y"]),
    (FIG8, "top(y b)/(x z t)", [(n, np.array(v)) for n, v in zip("a x z t y b c".split(), (1.1, 0.8, 1.3, 0.6, 0.0, 0.0, 0.9))],
     ["x", "z", "t"], ["y", "b"]),
])
def test_vector_mode_agrees_with_scalar_runs(source, head, args, independents, dependents):
    """-vector (fig. 10): F_DV with nbdirs = 3 gives, for each direction, exactly what F_D gives."""
    vec, scal = vector_and_scalar_runs(source, head, args, independents, dependents)
    for name in dependents:
        for d in range(3):
            got = np.asarray(vec[name]).reshape(-1, order="F")[d::3] if np.ndim(scal[d][name]) else \
                np.asarray(vec[name]).reshape(-1)[d]
            assert np.array_equal(got, scal[d][name]), (name, d)  # the same operations, in the same order


def test_vector_mode_structure():
    """Fig. 10: derivatives gain the direction dimension first; consecutive derivative
    statements share one DO nd loop; nbdirsmax comes from DIFFSIZES; nbdirs is the last argument.
    The partials are computed once, before the loop over the directions."""
    text = tangent(LOOP, "f(y)/(x)", mode="vector").text
    assert "subroutine f_dv(x, xd, y, yd, n, nbdirs)" in text and "use diffsizes" in text
    assert "real(8) :: xd(nbdirsmax, n), yd(nbdirsmax), td(nbdirsmax)" in text
    assert "real(8) :: temp, temp0, temp1, temp2, temp3" in text
    assert ("      temp = cos(x(i))\n      temp0 = sin(x(i))\n      !GCC$ vector\n      do nd = 1, nbdirs\n"
            "         td(nd) = x(i)*(temp*xd(nd, i)) + temp0*xd(nd, i)\n") in text
    assert "temp1 = 2.0d0*t\n" in text and "temp3 = 2.0d0*t/x(i)*(1.0d0/x(i))" in text
    assert text.count("do nd = 1, nbdirs") == 4


def test_external_procedure_is_called_differentiated_with_a_warning():
    """As Tapenade: a procedure with no source is called as g_d, each real argument followed by
    its derivative; the .msg file says that the user must provide g_d."""
    src = ("subroutine f(x, y)\n  real(8) x, y, t\n  external g\n  t = x * x\n  call g(t, y)\n"
           "  y = y * x\nend subroutine\n")
    result = tangent(src, "f(y)/(x)")
    assert "call g_d(t, td, y, yd)" in result.text
    assert any(":5: g has no source: g_d must be provided" in m for m in result.messages)


def test_non_differentiable_points_are_warned():
    src = "subroutine f(x, y)\n  real(8) x, y\n  y = abs(x) + max(x, 1.0d0) + sqrt(x)\nend subroutine\n"
    messages = tangent(src, "f(y)/(x)").messages
    assert any(m.startswith("t.f90:3: non-differentiable abs:") for m in messages)
    assert any(m.startswith("t.f90:3: non-differentiable max:") for m in messages)
    assert any(m.startswith("t.f90:3: non-differentiable sqrt:") for m in messages)


def test_active_module_variable_and_derived_types_differentiate():
    module_var = ("module m\n  real(8) :: g\nend module\nsubroutine f(a, r)\n  use m\n  real(8) a, r\n"
                  "  g = a * a\n  r = g * 2.0d0\nend subroutine\n")
    assert "gd = 2.0d0*a*ad" in tangent(module_var, "f(r)/(a)").text
    check = check_tangent(module_var, "fortran", "f(r)/(a)", [("a", "real", (), None), ("r", "real", (), None)])
    assert check.max_error < 1e-7, check.report()
    derived = ("module shapes\n  type point\n    real(8) :: x, y\n  end type\nend module\n"
               "subroutine f(a, r)\n  use shapes\n  real(8) a, r\n  type(point) :: p\n  p%x = a * a\n"
               "  p%y = sin(a)\n  r = p%x + p%y\nend subroutine\n")
    assert "pd%y = cos(a)*ad" in tangent(derived, "f(r)/(a)").text
    check = check_tangent(derived, "fortran", "f(r)/(a)", [("a", "real", (), None), ("r", "real", (), None)])
    assert check.max_error < 1e-7, check.report()


def test_nested_function_calls_read_their_argument_at_the_inner_call():
    """Found by the random programs: in f(f(0.5 + *s)) the argument is evaluated by the inner
    call, where *s is still active; it was read at the outer one, where it is not."""
    source = "#include <math.h>\ndouble f(double v) {\n  return sin(v) * 0.5;\n}\nvoid head(double *s) {\n" \
             "  *s = sin(f(f(0.5 + *s)));\n}\n"
    check = check_tangent(source, "c", "head(s)/(s)", [("s", "real", (1,), None)])
    assert check.max_error < 1e-7, check.report()


def test_vector_mode_hoists_only_scalar_partials_of_one_real_type():
    """A partial moves out of the direction loop only when its value cannot change on the way:
    a whole-array partial, one mixing real(4) and real(8), or one under a merge stays put."""
    source = """subroutine f(x, s, y, z, n)
  integer n
  real(8) x(n), y(n), z
  real(4) s
  y = cos(x) * x
  z = sin(x(1)) * dble(s) * x(2) + merge(x(1) * x(2), 0.0d0, n > 1)
end subroutine
"""
    text = tangent(source, "f(y z)/(x)", mode="vector").text
    assert ("   temp = cos(x(1))\n   !GCC$ vector\n   do nd = 1, nbdirs\n      yd(nd, :) = x*(-sin(x)*xd(nd, :)) + cos(x)*xd(nd, :)\n"
            "      zd(nd) = x(2)*(dble(s)*(temp*xd(nd, 1))) + sin(x(1))*dble(s)*xd(nd, 2) + "
            "merge(x(2)*xd(nd, 1) + x(1)*xd(nd, 2), 0.0d0, n > 1)\n   end do\n   y = cos(x)*x\n") in text
    assert "temp0" not in text, text
    args = [("x", np.array([0.7, 1.1])), ("s", np.array(1.5, np.float32)), ("y", np.zeros(2)), ("z", np.array(0.0)),
            ("n", np.array(2, np.int32))]
    vec, scal = vector_and_scalar_runs(source, "f(y z)/(x)", args, ["x"], ["y", "z"])
    for d in range(3):
        assert np.array_equal(np.asarray(vec["z"]).reshape(-1)[d], scal[d]["z"])
        assert np.array_equal(np.asarray(vec["y"]).reshape(-1, order="F")[d::3], scal[d]["y"])


C_VECTOR_CASES = [
    ("c01_pointer_loop.c", "f(y)/(x)", [("x", np.array([0.7, 1.1, 0.9, 1.3])), ("y", np.array([0.0])),
                                        ("n", np.array(4, np.int32))], ["x"], ["y"]),
    ("c02_static_helper.c", "g(r)/(x u)", [("x", np.array(0.8)), ("u", np.array([0.7, 1.1, 0.9, 1.3])),
                                           ("r", np.array([0.0])), ("n", np.array(4, np.int32))], ["x", "u"], ["r"]),
    # structs: by value and by pointer, an array field, returned by value (struct s_diff)
    ("c04_struct_value_pointer.c", "f(r)/(u)", [("u", np.array([0.7, 1.1, 0.9, 1.3])), ("r", np.array([0.0])),
                                                ("n", np.array(4, np.int32))], ["u"], ["r"]),
    ("c05_struct_array_field.c", "g(q e)/(q e)", [("q", np.array([0.7, 1.1, 0.9])), ("e", np.array([0.3])),
                                                  ("n", np.array(3, np.int32))], ["q", "e"], ["q", "e"]),
    ("c15_struct_return.c", "cpoly(y)/(x)", [("x", np.array([0.7, 1.1, 0.9])), ("y", np.array([0.0, 0.0])),
                                             ("n", np.array(3, np.int32))], ["x"], ["y"]),
]


@pytest.mark.parametrize("name, head, args, independents, dependents", C_VECTOR_CASES)
def test_c_vector_mode_agrees_with_scalar_runs(name, head, args, independents, dependents):
    """C -vector: F_DV with nbdirs = 3 gives, for each direction, exactly what F_D gives."""
    vec, scal = vector_and_scalar_runs((C_PROGRAMS / name).read_text(), head, args, independents, dependents,
                                       lang="c")
    for out in dependents:
        for d in range(3):
            assert np.array_equal(np.asarray(vec[out]).reshape(-1)[d::3], np.asarray(scal[d][out]).reshape(-1))


def test_c_vector_mode_structure():
    """C -vector: a pointer derivative argument points to rows of NBDirsMax directions, a
    by-value one is an array of them; the direction is the last index; NBDirsMax comes from
    DIFFSIZES.h; the initial value of a derivative declared in the body is set per direction."""
    source = (C_PROGRAMS / "c02_static_helper.c").read_text()
    text = adspec.differentiate(source, head="g(r)/(x u)", mode="vector", lang="c", filename="c02.c").text
    assert text.startswith('#include "DIFFSIZES.h"\n')
    assert ("void g_dv(double x, double xd[NBDirsMax], double *u, double ud[][NBDirsMax], double *r, "
            "double rd[][NBDirsMax], int n, int nbdirs)") in text
    assert "static void scale_dv(double *v, double vd[][NBDirsMax], int n, double a, double ad[NBDirsMax], int nbdirs)" \
        in text
    assert "    double sd[NBDirsMax];\n    for (nd = 0; nd < nbdirs; nd++) {\n        sd[nd] = 0.0;\n" in text
    assert "rd[0][nd] = 1.0 / n * sd[nd];" in text


def test_c_vector_mode_of_structs():
    """C -vector (4.7 with 4.2): the derivative of a struct s is the tangent's struct s_diff
    (typedef T -> T_diff), its real fields with the directions innermost (an int field has none,
    in the tangent's too); a struct value's derivative
    is written where a pointer argument points, out of the direction loops, like a whole
    struct copy; a union's derivative is refused."""
    text = adspec.differentiate((C_PROGRAMS / "c15_struct_return.c").read_text(), head="cpoly(y)/(x)",
                                mode="vector", lang="c", filename="c15.c").text
    assert "typedef struct {\n    double re[NBDirsMax];\n    double im[NBDirsMax];\n} cplx_diff;" in text
    assert "static void cmul_dv(cplx a, cplx_diff ad, cplx b, cplx_diff bd, cplx *cmul_value, cplx_diff *cmuld, " \
           "int nbdirs)" in text
    # the field statements share one direction loop (r.re = ... moved below it), the struct after it
    assert "bd.re[nd]);\n    }\n    r.re = a.re * b.re - a.im * b.im;\n    r.im = a.re * b.im + a.im * b.re;\n" \
           "    *cmul_value = r;\n    *cmuld = rd;\n" in text
    assert "cmul_dv(acc, accd, z, zd, &result1, &result1d, nbdirs);\n        accd = result1d;\n" in text
    fields = adspec.differentiate((C_PROGRAMS / "c05_struct_array_field.c").read_text(), head="g(q e)/(q e)",
                                  mode="vector", lang="c", filename="c05.c").text
    assert "struct state_diff {\n    double q[3][NBDirsMax];\n    double e[NBDirsMax];\n};" in fields
    tangent_fields = adspec.differentiate((C_PROGRAMS / "c05_struct_array_field.c").read_text(), head="g(q e)/(q e)",
                                          lang="c", filename="c05.c").text
    assert "struct state_diff {\n    double q[3];\n    double e;\n};" in tangent_fields
    assert "sd->e[nd] = temp0 * sd->e[nd] + s->e * -(dt * sd->q[0][nd]);" in fields
    with pytest.raises(UnsupportedError) as info:
        adspec.differentiate("union u { double a; int i; };\nvoid f(double *x, double *y) {\n  union u v;\n"
                             "  v.a = x[0] * x[0];\n  *y = v.a * 2.0;\n}\n", head="f(y)/(x)", mode="vector",
                             lang="c", filename="t.c")
    assert str(info.value) == "t.c:3: vector mode for a derivative of type u is not supported yet"


def test_c_vector_mode_pointer_locals_and_allocations():
    """C -vector: a derivative pointer declared in the body points to rows of directions like
    a pointer argument (its initial value assigned whole, moved whole); an allocated
    derivative holds n rows of directions and is freed whole."""
    walk_text = adspec.differentiate((C_PROGRAMS / "c17_pointer_walk.c").read_text(), head="walk(y)/(a x)",
                                     mode="vector", lang="c", filename="c17.c").text
    assert "    double (*pd)[NBDirsMax];\n    pd = xd;\n" in walk_text
    assert "    double (*psd)[NBDirsMax];\n    psd = &sd;\n" in walk_text
    assert "psd[0][nd] = psd[0][nd] + 2.0 * *p * pd[0][nd];" in walk_text and "        pd = pd + 1;\n" in walk_text
    smooth_text = adspec.differentiate((C_PROGRAMS / "c08_malloc_work.c").read_text(), head="smooth(u r)/(u)",
                                       mode="vector", lang="c", filename="c08.c").text
    assert "    double (*wd)[NBDirsMax];\n" in smooth_text
    assert "wd = (double (*)[NBDirsMax])calloc(n, sizeof(double[NBDirsMax]));" in smooth_text
    assert "free(wd);" in smooth_text and "wd[i][nd] = temp * ud[i][nd];" in smooth_text



STENCIL = """subroutine f(u, v, c, n)
  integer n, i
  real(8) u(n), v(n), c
  do i = 2, n - 1
    v(i) = c * u(i) * (u(i+1) - u(i-1)) + sin(u(i))
  end do
end subroutine
"""

C_STENCIL = ("#include <math.h>\nvoid f(double *u, double *v, double c, int n) {\n  int i;\n"
             "  for (i = 1; i < n - 1; i++)\n    v[i] = c * u[i] * (u[i+1] - u[i-1]) + sin(u[i]);\n}\n")


@pytest.mark.parametrize("lang", ["fortran", "c"])
@pytest.mark.parametrize("nbdirs", [1, 2, 4])
def test_vector_mode_for_any_number_of_directions(nbdirs, lang):
    """Every direction of F_DV is F_D's, bit for bit, for one direction, an even number and
    nbdirs = nbdirsmax (the other tests use 3)."""
    args = [("u", np.array([0.3, 0.9, 1.4, 0.2, 0.7])), ("v", np.zeros(5)), ("c", np.array(1.3)),
            ("n", np.array(5, np.int32))]
    vec, scal = vector_and_scalar_runs(STENCIL if lang == "fortran" else C_STENCIL, "f(v)/(u c)", args, ["u", "c"],
                                       ["v"], nbdirs=nbdirs, lang=lang)
    for d in range(nbdirs):
        assert np.array_equal(np.asarray(vec["v"]).reshape(-1)[d::nbdirs], scal[d]["v"]), d
        assert np.abs(scal[d]["v"]).max() > 0


@pytest.mark.compile
def test_gfortran_O2_vectorizes_the_direction_loop(tmp_path):
    """gcc 12's -O2 (very cheap cost model) leaves a loop with a run-time bound scalar; F_DV's
    direction loops carry `!GCC$ vector`, and gfortran -O2 -Wall vectorizes them silently."""
    require_compilers("fortran")
    (tmp_path / "diffsizes.f90").write_text("module diffsizes\n  integer, parameter :: nbdirsmax = 8\nend module\n")
    text = adspec.differentiate(STENCIL, head="f(v)/(u c)", mode="vector", lang="fortran", filename="f_dv.f90").text
    (tmp_path / "f_dv.f90").write_text(text)
    built = subprocess.run(["gfortran", "-O2", "-Wall", "-fopt-info-vec-optimized", "-c", "diffsizes.f90", "f_dv.f90"],
                           cwd=tmp_path, capture_output=True, text=True, check=True)
    lines = text.splitlines()
    loops = [i for i, line in enumerate(lines, 1) if line.strip() == "do nd = 1, nbdirs"]
    assert all(lines[i - 2].strip() == "!GCC$ vector" for i in loops), text
    vectorized = {int(v.split(":")[1]) for v in built.stderr.splitlines() if v.startswith("f_dv.f90") and "vectorized" in v}
    assert loops[-1] in vectorized, (built.stderr, text)
    assert "Warning" not in built.stderr, built.stderr

@pytest.mark.compile
def test_c_vector_mode_compiles_with_gcc_wall_werror(tmp_path):
    require_compilers("c")
    source = (C_PROGRAMS / "c02_static_helper.c").read_text()
    result = adspec.differentiate(source, head="g(r)/(x u)", mode="vector", lang="c", filename="c02.c")
    (tmp_path / "DIFFSIZES.h").write_text("#define NBDirsMax 8\n")
    (tmp_path / "c02_dv.c").write_text(result.text)
    built = subprocess.run(["gcc", "-Wall", "-Werror", "-c", "c02_dv.c"], cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr


EARLY_RETURN = """#include <math.h>
static double sq(double u, double v) {
  if (u > v) {
    return u * sin(v);
  }
  return v * u;
}
double h(double *x, int n) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) {
    s = s + 2.0 * sq(x[i], s);
  }
  return s;
}
void top(double *x, double *y, int n) {
  *y = h(x, n) * x[0];
}
"""


def test_c_return_inside_a_branch_is_differentiated():
    """Found by the vector-mode work: `return E` inside an if was copied as it was (the return
    wrote the result, but diff-liveness gave it no derivative instruction, so the if was not
    live for diff) and F_D returned the value for the derivative. Regression test, by numbers."""
    for head in ("h(h)/(x)", "top(y)/(x)"):  # the bug needed h's result as the dependent
        text = adspec.differentiate(EARLY_RETURN, head=head, lang="c", filename="t.c").text
        assert "        *sq_value = u * sin(v);\n        return sin(v) * ud + u * (cos(v) * vd);\n" in text, head
    check = check_tangent(EARLY_RETURN, "c", "top(y)/(x)", [("x", "real", (4,), None), ("y", "real", (1,), None),
                                                           ("n", "int", (), 4)])
    assert check.max_error < 1e-7, check.report()


FUNCTION_CALLED_IN_AN_EXPRESSION = """function g(u, v)
  real(8) g, u, v
  g = u * sin(v)
end function

subroutine f(x, y)
  real(8) x(2), y
  real(8), external :: g
  y = g(x(1), x(2)) * x(1) + 1.0d0
end subroutine
"""


def test_vector_mode_of_functions():
    """A function's F_DV is a subroutine (it cannot return the array of directions): its value
    and its derivative are its last arguments before nbdirs, and a call split out of an
    expression becomes `call g_dv(..., result1, result1d, nbdirs)`. Fortran and C, each
    direction exactly what F_D gives."""
    text = tangent(FUNCTION_CALLED_IN_AN_EXPRESSION, "f(y)/(x)", mode="vector").text
    assert "subroutine g_dv(u, ud, v, vd, g, gd, nbdirs)" in text and "real(8), external :: g_d" not in text
    assert "call g_dv(x(1), xd(:, 1), x(2), xd(:, 2), result1, result1d, nbdirs)" in text
    vec, scal = vector_and_scalar_runs(FUNCTION_CALLED_IN_AN_EXPRESSION, "f(y)/(x)",
                                       [("x", np.array([0.7, 1.2])), ("y", np.array(0.0))], ["x"], ["y"])
    for d in range(3):
        assert np.array_equal(np.asarray(vec["y"]).reshape(-1)[d], scal[d]["y"])
    c_text = adspec.differentiate(EARLY_RETURN, head="top(y)/(x)", mode="vector", lang="c", filename="t.c").text
    assert ("static void sq_dv(double u, double ud[NBDirsMax], double v, double vd[NBDirsMax], double *sq_value, "
            "double sqd[NBDirsMax], int nbdirs)") in c_text
    assert "sq_dv(x[i], xd[i], s, sd, &result1, result1d, nbdirs);" in c_text
    args = [("x", np.array([0.7, 1.1, 0.9, 1.3])), ("y", np.array([0.0])), ("n", np.array(4, np.int32))]
    vec, scal = vector_and_scalar_runs(EARLY_RETURN, "top(y)/(x)", args, ["x"], ["y"], lang="c")
    for d in range(3):
        assert np.array_equal(np.asarray(vec["y"]).reshape(-1)[d::3], np.asarray(scal[d]["y"]).reshape(-1))


def test_vector_mode_moves_derivative_statements_up_to_share_a_direction_loop():
    """Paper 4.7: a derivative statement moves above original assignments that write nothing
    it reads, so it joins the direction loop before them; one that reads t or y after they
    change starts a new loop. In C, a write through a pointer stops the move (another name
    may reach what it writes)."""
    source = """subroutine f(x, y, z)
  real(8) x, y, z, t
  t = x * x
  y = sin(x)
  z = t * y
end subroutine
"""
    text = tangent(source, "f(z)/(x)", mode="vector").text
    assert ("   !GCC$ vector\n   do nd = 1, nbdirs\n      td(nd) = temp*xd(nd)\n      yd(nd) = temp0*xd(nd)\n   end do\n"
            "   t = x*x\n   y = sin(x)\n   !GCC$ vector\n   do nd = 1, nbdirs\n      zd(nd) = y*td(nd) + t*yd(nd)\n") in text, text
    vec, scal = vector_and_scalar_runs(source, "f(z)/(x)", [("x", np.array(0.7)), ("y", np.array(0.0)),
                                                           ("z", np.array(0.0))], ["x"], ["z"])
    for d in range(3):
        assert np.array_equal(np.asarray(vec["z"]).reshape(-1)[d], scal[d]["z"])
    through_pointer = "void f(double x, double *y, double *z) {\n  *y = x * x;\n  *z = 3.0 * x * x;\n}\n"
    to_local = "void f(double x, double *z) {\n  double t;\n  t = x * x;\n  *z = 3.0 * x * x;\n  *z = *z + t;\n}\n"
    loops = [adspec.differentiate(c, head=h, mode="vector", lang="c", filename="t.c").text.count("for (nd = 0;")
             for c, h in ((through_pointer, "f(y z)/(x)"), (to_local, "f(z)/(x)"))]
    assert loops == [2, 2]  # to_local: *zd moves above t = x*x; the last one reads t
