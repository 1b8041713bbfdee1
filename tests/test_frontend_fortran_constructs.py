"""The Fortran reader (fxtran) on the constructs real codes use, several files, INCLUDE,
fixed form with tabs, and its own failure modes."""
import os
import subprocess
import sys
import time

import pytest

from adspec.engine.errors import SourceError, UnsupportedError
from adspec.engine.il import check, mk
from adspec.frontends import parse_files
from adspec.frontends.fortran import parse_fortran


def parse(src, form="free", filename=None):
    return check(parse_fortran(src, filename or ("t.f90" if form == "free" else "t.f"), form))


def unit(src, form="free"):
    return next(u for u in parse(src, form).kids if u.op != "comment")


def body(stmts, decls=""):
    return unit(f"subroutine s\n{decls}\n{stmts}\nend subroutine\n").body.kids


def I(name):  # noqa: E743
    return mk("ident", name)


def N(v, kind=None):
    return mk("intCst", v, kind)


def R(text, kind=4):
    return mk("realCst", text, kind)


def assign(lhs, rhs):
    return mk("assign", lhs, rhs)


def at(name, *subs):
    return mk("arrayAccess", I(name), subs)


# --- control constructs ---------------------------------------------------------------------

def test_select_case_with_ranges_and_default():
    (s,) = body("select case (k)\ncase (1, 3:5)\n  y = 1\ncase (:0)\n  y = 2\ncase (9:)\n  y = 3\n"
                "case default\n  y = 4\nend select")
    assert s == mk("switch", I("k"), (
        mk("case", (N(1), mk("caseRange", N(3), N(5))), mk("block", assign(I("y"), N(1)))),
        mk("case", (mk("caseRange", None, N(0)),), mk("block", assign(I("y"), N(2)))),
        mk("case", (mk("caseRange", N(9), None),), mk("block", assign(I("y"), N(3)))),
        mk("case", (), mk("block", assign(I("y"), N(4))))), False)
    assert s.line == 3 and s.cases[1].line == 6 and s.cases[1].body.kids[0].line == 7


def test_select_case_on_characters():
    (s,) = body("select case (c)\ncase ('a', 'e')\n  k = 1\nend select", "character(len=1) c")
    assert s.cases[0].values == (mk("stringCst", "a"), mk("stringCst", "e"))


def test_where_elsewhere_masked_elsewhere_and_where_statement():
    (w, w1) = body("where (a > 0)\n  a = 1\nelsewhere (a < -1)\n  a = 2\nelsewhere\n  a = 3\nend where\n"
                   "where (a /= 0) b = 1 / a", "real a(5), b(5)")
    inner = mk("where", mk("lt", I("a"), mk("neg", N(1))), mk("block", assign(I("a"), N(2))),
               mk("block", assign(I("a"), N(3))))
    assert w == mk("where", mk("gt", I("a"), N(0)), mk("block", assign(I("a"), N(1))), mk("block", inner))
    assert w1 == mk("where", mk("ne", I("a"), N(0)), mk("block", assign(I("b"), mk("div", N(1), I("a")))), None)


def test_forall_statement_and_construct():
    f1, f2 = body("forall (i = 1:n:2, a(i) > 0) a(i) = 0\nforall (i = 1:n, j = 1:m)\n  c(i, j) = i + j\n"
                  "end forall", "real a(10), c(10, 10)")
    assert f1 == mk("forall", (mk("impliedDo", (), I("i"), N(1), I("n"), N(2)),),
                    mk("gt", at("a", I("i")), N(0)), mk("block", assign(at("a", I("i")), N(0))))
    assert f2.ranges == (mk("impliedDo", (), I("i"), N(1), I("n"), None),
                         mk("impliedDo", (), I("j"), N(1), I("m"), None))
    assert f2.mask is None and f2.body.kids == (assign(at("c", I("i"), I("j")), mk("add", I("i"), I("j"))),)


def test_keyword_and_optional_arguments_with_present():
    p = unit("subroutine s(x, scale)\n  real x\n  real, optional :: scale\n  if (present(scale)) x = x * scale\n"
             "  call t(x, tol=1.0e-6)\nend\n")
    assert p.decls[1].attrs == ("optional",)
    cond = p.body.kids[0].cond
    assert cond == mk("intrinsic", "present", (I("scale"),))
    assert p.body.kids[1] == mk("call", "t", (I("x"), mk("namedArg", "tol", R("1.0e-6"))))


# --- declarations ---------------------------------------------------------------------------

def test_data_statements_with_repeats_and_implied_do():
    p = unit("subroutine s\n  real a(6), b, c\n  integer k\n  data a /3*0.0, 3*1.5/, b, c /2.0, -1.0/\n"
             "  data (a(k), k = 1, 3) /1.0, 2.0, 3.0/\nend\n")
    d1, d2, d3 = [d for d in p.decls if d.op == "data"]
    assert d1 == mk("data", (I("a"),), (mk("dataRepeat", N(3), R("0.0")), mk("dataRepeat", N(3), R("1.5"))))
    assert d2 == mk("data", (I("b"), I("c")), (R("2.0"), mk("neg", R("1.0"))))
    assert d3 == mk("data", (mk("impliedDo", (at("a", I("k")),), I("k"), N(1), N(3), None),),
                    (R("1.0"), R("2.0"), R("3.0")))
    assert d1.line == d2.line == 4 and d3.line == 5


def test_array_constructor_with_implied_do():
    (s,) = body("v = (/ (real(i) * 0.5, i = 1, 4), 9.0 /)", "real v(5)")
    assert s.rhs == mk("arrayConstructor", (
        mk("impliedDo", (mk("mul", mk("intrinsic", "real", (I("i"),)), R("0.5")),), I("i"), N(1), N(4), None),
        R("9.0")))


def test_explicit_interface_and_generic_resolution_by_type():
    f = parse("""module ops
  interface norm
    module procedure norm_r, norm_d
  end interface norm
contains
  real function norm_r(x)
    real, intent(in) :: x(:)
    norm_r = sum(abs(x))
  end function
  double precision function norm_d(x)
    double precision, intent(in) :: x(:)
    norm_d = sum(abs(x))
  end function
end module
subroutine user(a, b, ra, rb)
  use ops
  real :: a(3), ra
  double precision :: b(3), rb
  interface
    subroutine ext(x, y)
      real, intent(in) :: x
      real, intent(out) :: y
    end subroutine
  end interface
  ra = norm(a)
  rb = norm(b(1:2))
  call ext(ra, ra)
end subroutine
""")
    m, user = f.kids
    assert m.decls[0] == mk("interface", "norm", ("norm_r", "norm_d"), ())
    (iface,) = [d for d in user.decls if d.op == "interface"]
    (ext,) = iface.procs
    assert (ext.name, ext.params, ext.body) == ("ext", ("x", "y"), None)
    assert [d.declarators[0].name for d in ext.decls] == ["x", "y"]
    s1, s2, s3 = user.body.kids
    assert s1.rhs == mk("call", "norm_r", (I("a"),))
    assert s2.rhs == mk("call", "norm_d", (at("b", mk("arrayTriplet", N(1), N(2), None)),))
    assert s3 == mk("call", "ext", (I("ra"), I("ra")))


def test_generic_with_no_matching_specific_is_refused():
    with pytest.raises(UnsupportedError) as e:
        parse("module g\n  interface f\n    module procedure f1\n  end interface\ncontains\n"
              "  subroutine f1(x)\n    real x\n  end subroutine\nend module\n"
              "subroutine u\n  use g\n  integer k\n  call f(k)\nend\n")
    assert e.value.line == 13 and "generic f" in e.value.message


def test_use_with_renames_and_only():
    f = parse("module m\n  real :: tab(3), s\nend module\nsubroutine u(y)\n  use m, only: t => tab, s\n"
              "  y = t(2) + s\nend\nsubroutine v(y)\n  use m, w => tab\n  y = w(1)\nend\n")
    _, u, v = f.kids
    assert u.decls[0] == mk("use", "m", ("t", "s"), mk("rename", "t", "tab"))
    assert u.body.kids[0].rhs == mk("add", at("t", N(2)), I("s"))  # t is the module's array
    assert v.decls[0] == mk("use", "m", None, mk("rename", "w", "tab"))
    assert v.body.kids[0].rhs == at("w", N(1))


def test_character_length_per_name_and_accessibility_statements():
    m = unit("module m\n  private\n  public :: a, f\n  character*8 a, b*16, c\nend module\n")
    assert m.decls[0] == mk("attrDecl", "private", ())
    assert m.decls[1] == mk("attrDecl", "public", (mk("declarator", "a", None, None, 0),
                                                   mk("declarator", "f", None, None, 0)))
    ch8, ch16, ch8b = m.decls[2:]
    assert ch8.type == mk("type", "character", None, N(8)) and ch8b.type == ch8.type
    assert ch16.type == mk("type", "character", None, N(16))
    assert [d.declarators[0].name for d in (ch8, ch16, ch8b)] == ["a", "b", "c"]


def test_io_statements_are_kept():
    stmts = body("open(unit=10, file='out.dat', status='replace')\nwrite(10, 100) x, (a(i), i = 1, 2)\n"
                 "100 format(f8.3, 2es12.4)\nrewind(10)\nclose(10)\nread 100, x",
                 "real a(2)")
    o, w, fmt, rw, c, r = stmts
    assert o == mk("io", "open", "unit=10, file='out.dat', status='replace'", ())
    assert w == mk("io", "write", "10, 100", (I("x"), mk("impliedDo", (at("a", I("i")),), I("i"), N(1), N(2), None)))
    assert fmt == mk("io", "format", "f8.3, 2es12.4", ()) and fmt.ann["label"] == "100"
    assert rw == mk("io", "rewind", "10", ()) and c == mk("io", "close", "10", ())
    assert r == mk("io", "read", "100", (I("x"),))


# --- files, INCLUDE and fixed form ----------------------------------------------------------

def test_include_is_read_in_place_and_lines_stay_right(tmp_path):
    (tmp_path / "consts.inc").write_text("      real*8 c1\n      parameter (c1 = 2.0d0)\n")
    src = tmp_path / "main.f"
    src.write_text("      subroutine s(x)\n      real*8 x\n      include 'consts.inc'\n"
                   "      x = x * c1\n      y = = 1\n      end\n")
    with pytest.raises(SourceError) as e:  # the syntax error is reported on the line of main.f
        parse_fortran(src.read_text(), str(src), "fixed")
    assert e.value.line == 5
    src.write_text(src.read_text().replace("      y = = 1\n", ""))
    p = unit_of(parse_fortran(src.read_text(), str(src), "fixed"))
    assert [d.op for d in p.decls] == ["varDecl", "varDecl", "attrDecl"]
    assert p.body.kids == (assign(I("x"), mk("mul", I("x"), I("c1"))),) and p.body.kids[0].line == 4


def test_missing_include_is_a_located_error(tmp_path):
    src = tmp_path / "m.f90"
    with pytest.raises(SourceError) as e:
        parse_fortran("subroutine s\n  real x\n  include 'nowhere.h'\nend\n", str(src), "free")
    assert "nowhere.h" in e.value.message and e.value.line == 3


def unit_of(tree):
    return next(u for u in tree.kids if u.op != "comment")


def test_fixed_form_with_tabs_continuations_and_comments():
    src = ("c     a fixed-form kernel\n"
           "\tsubroutine axpy(n, a, x, y)\n"
           "\tinteger n\n"
           "\treal*8 a, x(n), y(n)\n"
           "C loop\n"
           "\tdo 10 i = 1,\n"
           "     &     n\n"
           "\t  y(i) = y(i) +\n"
           "     1          a * x(i)\n"
           "   10 continue\n"
           "\tend\n")
    f = parse(src, "fixed")
    assert f.kids[0] == mk("comment", "    a fixed-form kernel")
    p = f.kids[1]
    (d,) = [s for s in p.body.kids if s.op == "do"]
    assert d.hi == I("n") and d.line == 6
    assert d.body.kids[0] == assign(at("y", I("i")), mk("add", at("y", I("i")), mk("mul", I("a"), at("x", I("i")))))
    assert d.body.kids[0].line == 8 and d.body.kids[1].ann["label"] == "10"


def test_several_files_in_any_order(tmp_path):
    user = tmp_path / "user.f90"
    user.write_text("subroutine u(y)\n  use shapes\n  y = w(2) + g(1.0)\nend\n")
    lib = tmp_path / "lib.f90"
    lib.write_text("module shapes\n  real :: w(3)\ncontains\n  real function g(x)\n    g = x\n  end function\n"
                   "end module\n")
    user_tree, lib_tree = parse_files([str(user), str(lib)])
    assert lib_tree.kids[0].op == "module"
    # w is the module's array, known although lib.f90 comes after user.f90
    assert user_tree.kids[0].body.kids[0].rhs == mk("add", at("w", N(2)), mk("call", "g", (R("1.0"),)))


def test_end_name_mismatch_and_statements_outside_units():
    with pytest.raises(SourceError) as e:
        parse("subroutine s\n  x = 1\nend subroutine t\n")
    assert e.value.line == 3 and "'t'" in e.value.message


def test_nested_subscripts_are_read_fast():
    """fparser took about a second on this; fxtran reads it at once."""
    depth = 11
    expr = "i"
    for _ in range(depth):
        expr = f"a({expr})"
    src = "subroutine s(x, a, i)\n  integer a(10), i\n  real x(10)\n" + f"  x({expr}) = 1.0\n" * 20 + "end\n"
    start = time.perf_counter()
    p = unit(src)
    elapsed = time.perf_counter() - start
    assert len(p.body.kids) == 20 and elapsed < 0.1, elapsed


def test_missing_fxtran_is_one_line_with_the_fix(tmp_path):
    src = tmp_path / "s.f90"
    src.write_text("subroutine s\nend\n")
    env = dict(os.environ, ADSPEC_FXTRAN=str(tmp_path / "no-such-fxtran"))
    result = subprocess.run([sys.executable, "-c", "import sys; from adspec.cli import main; sys.exit(main())",
                             "parse", str(src)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert "fxtran" in line and "pip install pyfxtran" in line


def test_assignment_in_a_module_specification_is_a_located_error():
    """Found by the mangled-source fuzz test: it used to crash the reader."""
    with pytest.raises(SourceError) as e:
        parse("module m\n  real x\n  x = 1\nend module\n")
    assert e.value.line == 3 and "syntax error" in e.value.message


def test_keyword_argument_without_value_is_a_located_error():
    """Found by the mangled-source fuzz test: `coef=` with no value crashed the reader."""
    with pytest.raises(SourceError) as e:
        parse("subroutine s(c, r)\n  real c, r(2)\n  call newton(coef=, r(1))\nend\n")
    assert e.value.line == 3 and "coef" in e.value.message


def test_declaration_without_names_is_a_located_error():
    """Found by the mangled-source fuzz test: `real(8)` alone on its line crashed the reader."""
    with pytest.raises(SourceError) as e:
        parse("module m\n  real(8)\n :: half = 0.5d0\nend module\n")
    assert e.value.line == 2


def test_statement_on_which_fxtran_crashes_is_a_located_error():
    """Found by the mangled-source fuzz test: fxtran crashes, silently, on this pair of lines;
    the reader finds the line by bisection."""
    with pytest.raises(SourceError) as e:
        parse("      SUBROUTINE S(A, N)\n      DOUBLE PRECISION A(N, N)\n      DO 30 K = 1, N - 1\n"
              "      = A(K, K)\n   30 CONTINUE\n      END\n", "fixed")
    assert e.value.line == 4


def test_data_object_that_is_no_variable_is_a_located_error():
    """Found by the mangled-source fuzz test: a function reference among DATA objects crashed
    the symbol tables."""
    with pytest.raises(SourceError) as e:
        parse("subroutine s\n  real x(2)\n  data sin(x) / 1.0, 2.0 /\nend\n")
    assert e.value.line == 3 and "DATA object" in e.value.message


def test_semicolons_end_statements_in_fixed_and_free_form():
    """`y = x*x;` and `a = 1; b = 2` (legacy codes end statements with `;`): the `;` only
    separates statements, each keeps its own line, and a label before one still applies."""
    fixed = ("      subroutine s(x, y)\n"
             "      real*8 x, y\n"
             "      y = x*x;\n"
             "   10 y = y + 1.0d0; y = 2*y\n"
             "      end\n")
    stmts = [s for s in unit(fixed, "fixed").body.kids if s.op == "assign"]
    assert [s.line for s in stmts] == [3, 4, 4] and stmts[1].ann["label"] == "10"
    assert stmts[0] == assign(I("y"), mk("mul", I("x"), I("x")))
    assert stmts[2] == assign(I("y"), mk("mul", N(2), I("y")))
    (s1, s2) = body("a = 1; b = 2;")
    assert (s1, s2) == (assign(I("a"), N(1)), assign(I("b"), N(2)))
