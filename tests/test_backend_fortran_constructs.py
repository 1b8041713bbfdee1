"""Fortran back end on the constructs of real codes: SELECT CASE, WHERE/ELSEWHERE, FORALL,
implied DO, DATA, INTERFACE, USE renames/ONLY, the I/O statements; free and fixed form, and
the generated file compiles."""
import shutil
import subprocess

import pytest

from adspec.backends.fortran import unparse_fortran
from adspec.engine.errors import UnsupportedError
from adspec.engine.il import check, mk

from construct_il import (A, C, I, I4, R, R4, S, asg, blk, crange, data, dim, ffile, forall, iface_body,
                          implied, interface, io, module, op, rep, rng, select, sub, T, use, var, where)


def body_text(*stmts, decls=(), form="free"):
    """The lines of a subroutine holding `stmts`, without its header and end, dedented."""
    lines = unparse_fortran(sub("p", [], decls, *stmts), form=form).splitlines()[1:-1]
    if form == "fixed":  # a labelled line keeps its label columns
        return "\n".join(line if line[:6].strip() else line[9:] for line in lines)
    return "\n".join(line[3:] for line in lines)


SELECT = select(I("k"), ((C(1), crange(C(3), C(5)), crange(None, C(0))), blk(asg(I("x"), C(1)))),
                ((crange(C(9), None),), blk(asg(I("x"), C(3)))),
                ((), blk(asg(I("x"), C(2)))))


@pytest.mark.parametrize("form", ["free", "fixed"])
def test_select_case(form):
    assert body_text(SELECT, form=form) == (
        "select case (k)\ncase (1, 3:5, :0)\n   x = 1\ncase (9:)\n   x = 3\ncase default\n   x = 2\n"
        "end select")


def test_select_case_on_characters():
    tree = select(I("c"), ((S("a"), crange(S("x"), S("z"))), blk(asg(I("n"), C(1)))))
    assert body_text(tree) == "select case (c)\ncase ('a', 'x':'z')\n   n = 1\nend select"


def test_a_c_switch_has_no_fortran_form():
    tree = mk("switch", I("k"), (mk("case", (C(1),), blk()),), True)
    with pytest.raises(UnsupportedError):
        body_text(tree)


WHERE = where(op("gt", I("a"), C(0)), blk(asg(I("a"), C(1))),
              blk(where(op("lt", I("a"), C(-1)), blk(asg(I("a"), C(2))), blk(asg(I("a"), C(3))))))


@pytest.mark.parametrize("form", ["free", "fixed"])
def test_where_elsewhere_chain(form):
    assert body_text(WHERE, form=form) == (
        "where (a > 0)\n   a = 1\nelsewhere (a < -1)\n   a = 2\nelsewhere\n   a = 3\nend where")


def test_where_nested_in_elsewhere_with_other_statements_stays_nested():
    tree = where(I("m"), blk(asg(I("a"), C(1))),
                 blk(asg(I("b"), C(0)), where(I("q"), blk(asg(I("a"), C(2))))))
    assert body_text(tree) == ("where (m)\n   a = 1\nelsewhere\n   b = 0\n   where (q)\n      a = 2\n"
                               "   end where\nend where")


FORALL = forall([rng("i", C(1), I("n")), rng("j", C(1), I("n"), C(2))],
                blk(asg(A("b", I("i"), I("j")), op("add", I("i"), I("j")))), mask=op("gt", I("i"), I("j")))


@pytest.mark.parametrize("form", ["free", "fixed"])
def test_forall_construct(form):
    assert body_text(FORALL, form=form) == (
        "forall (i = 1:n, j = 1:n:2, i > j)\n   b(i, j) = i + j\nend forall")


def test_implied_do_in_array_constructor_and_output_list():
    cons = asg(I("v"), mk("arrayConstructor", (C(0), implied([op("mul", I("i"), C(2))], "i", C(1), I("n"), C(3)))))
    out = io("write", "*, *", I("x"), implied([A("v", I("i")), I("i")], "i", C(1), C(3)))
    assert body_text(cons, out) == "v = (/ 0, (i*2, i = 1, n, 3) /)\nwrite(*, *) x, (v(i), i, i = 1, 3)"


@pytest.mark.parametrize("form", ["free", "fixed"])
def test_data_with_repeat_counts_and_implied_do(form):
    d1 = data([I("x"), I("y")], [R("1.5", 4), mk("neg", C(2))])
    d2 = data([implied([A("a", I("i"), I("i"))], "i", C(1), C(3))], [rep(3, R("0.5", 4))])
    assert body_text(decls=(d1, d2), form=form) == "data x, y / 1.5, -2 /\ndata (a(i, i), i = 1, 3) / 3*0.5 /"


@pytest.mark.parametrize("form", ["free", "fixed"])
def test_use_with_only_and_renames(form):
    decls = (use("m", only=("a", "loc")), use("m", only=("a", "loc"), loc="rem"), use("m", loc="rem", l2="r2"),
             use("m"))
    assert body_text(decls=decls, form=form) == (
        "use m, only: a, loc\nuse m, only: a, loc => rem\nuse m, loc => rem, l2 => r2\nuse m")


def test_interfaces_generic_and_explicit():
    generic = interface("norm", names=("norm_r", "norm_v"))
    real = T("real")
    explicit = interface(procs=(iface_body("ext", ("y",), (var(real, "y", attrs=("intent(inout)",)),)),
                                iface_body("f", ("t",), (var(real, "t"),), kind="function", typ=real)))
    text = unparse_fortran(module("m", (generic, explicit)))
    assert text == (
        "module m\n   interface norm\n      module procedure norm_r, norm_v\n   end interface\n"
        "   interface\n      subroutine ext(y)\n         real, intent(inout) :: y\n      end subroutine ext\n\n"
        "      real function f(t)\n         real :: t\n      end function f\n   end interface\nend module m\n")


def test_io_statements_and_format_label():
    stmts = (io("open", "unit=10, file='out.txt', status='replace'"), io("write", "10, 100", I("x")),
             io("format", "1x, 'x =', f10.4", label="100"), io("rewind", "10"), io("close", "10"),
             io("inquire", "unit=10, opened=op"), io("backspace", "10"), io("endfile", "10"),
             io("print", "100", I("x")))
    assert body_text(*stmts) == (
        "open(unit=10, file='out.txt', status='replace')\nwrite(10, 100) x\n100 format(1x, 'x =', f10.4)\n"
        "rewind(10)\nclose(10)\ninquire(unit=10, opened=op)\nbackspace(10)\nendfile(10)\nprint 100, x")
    fixed = unparse_fortran(sub("p", [], (), *stmts), form="fixed").splitlines()
    assert "100      format(1x, 'x =', f10.4)" in fixed


# --- everything together compiles ------------------------------------------------------------
def constructs_file(form):
    """A module with a generic interface and a subroutine using every construct, that gfortran
    must accept."""
    n = I("n")
    m = module("kinds_m", (var(R4, "scale", "offset"),
                           interface("twice", names=("twice_r", "twice_i"))),
               mk("procedure", "twice_r", "function", ("x",), None, R4, (), (var(R4, "x"),),
                  blk(asg(I("twice_r"), op("mul", C(2), I("x")))), ()),
               mk("procedure", "twice_i", "function", ("k",), None, I4, (), (var(I4, "k"),),
                  blk(asg(I("twice_i"), op("mul", C(2), I("k")))), ()))
    decls = (use("kinds_m", only=("s", "twice"), s="scale"),
             interface(procs=(iface_body("ext", ("y",), (var(R4, "y", attrs=("intent(inout)",)),)),)),
             var(I4, "n", "k", "i", "j"), var(R4, ("a", (dim(C(4)),)), ("b", (dim(C(4)), dim(C(4))))),
             var(R4, "x"), var(T("character", None, C(3)), "word"),
             data([I("x"), implied([A("a", I("i"))], "i", C(1), C(4))], [R("1.0", 4), rep(4, R("0.5", 4))]))
    body = (asg(n, C(4)), asg(I("word"), S("abc")), SELECT,
            select(I("word"), ((S("abc"), crange(S("x"), S("z"))), blk(asg(I("k"), C(1)))), ((), blk())),
            asg(I("a"), mk("arrayConstructor", (implied([op("mul", I("i"), C(2))], "i", C(1), C(4)),))),
            WHERE, FORALL, asg(I("x"), op("mul", I("s"), mk("call", "twice", (I("x"),)))),
            io("open", "unit=10, status='scratch'"), io("write", "10, 100", I("x"), implied([A("a", I("i"))], "i", C(1), C(4))),
            io("format", "1x, 5f8.3", label="100"), io("rewind", "10"), io("close", "10"),
            mk("call", "ext", (I("x"),)))
    return check(ffile(m, sub("p", [], decls, *body), form=form))


@pytest.mark.compile
@pytest.mark.parametrize("form", ["free", "fixed"])
def test_generated_constructs_compile(form, tmp_path):
    if shutil.which("gfortran") is None:
        pytest.skip("gfortran not installed")
    src = tmp_path / ("gen.f90" if form == "free" else "gen.f")
    src.write_text(unparse_fortran(constructs_file(form), form=form))
    run = subprocess.run(["gfortran", f"-f{form}-form", "-c", "-J", str(tmp_path), str(src), "-o",
                          str(tmp_path / "gen.o")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr + "\n" + src.read_text()
