"""Fortran front end: small snippets -> expected IL structure."""
import pytest

from adspec.engine.errors import SourceError, UnsupportedError
from adspec.engine.il import check, mk
from adspec.frontends.fortran import parse_fortran


def parse(src, form="free"):
    return check(parse_fortran(src, "t.f90" if form == "free" else "t.f", form))


def unit(src, form="free"):
    """The first non-comment unit of the file."""
    return next(u for u in parse(src, form).kids if u.op != "comment")


def body(stmts, decls="", form="free"):
    """Statements of a subroutine built around the given lines."""
    return unit(f"subroutine s\n{decls}\n{stmts}\nend subroutine\n", form).body.kids


def stmt(line, decls=""):
    (s,) = [k for k in body(line, decls) if k.op != "comment"]
    return s


def rhs(expr, decls=""):
    return stmt(f"y = {expr}", decls).rhs


def I(name):  # noqa: E743 - short helpers keep the expected trees readable
    return mk("ident", name)


def N(v, kind=None):
    return mk("intCst", v, kind)


def R(text, kind=4):
    return mk("realCst", text, kind)


def T(base, kind=None, length=None):
    return mk("type", base, kind, length)


def D(lo, hi):
    return mk("dim", lo, hi)


def decl_types(src_decls):
    proc = unit(f"subroutine s\n{src_decls}\nend\n")
    return [d.type for d in proc.decls if d.op == "varDecl"]


# --- program units -------------------------------------------------------------------------

def test_file_annotations_and_subroutine():
    f = parse("subroutine foo(a, B)\n  real a, b\n  a = b\nend subroutine foo\n")
    assert f.op == "file" and f.ann["lang"] == "fortran" and f.ann["form"] == "free"
    assert f.ann["filename"] == "t.f90"
    (p,) = f.kids
    assert (p.name, p.kind, p.params, p.result, p.type, p.attrs) == ("foo", "subroutine", ("a", "b"), None, None, ())
    assert p.line == 1 and p.contains == ()
    assert p.decls[0] == mk("varDecl", T("real"), (), (mk("declarator", "a", None, None, 0),
                                                      mk("declarator", "b", None, None, 0)))
    assert p.decls[0].line == 2
    assert p.body == mk("block", mk("assign", I("a"), I("b")))
    assert p.body.kids[0].line == 3


def test_function_prefix_and_result():
    p = unit("integer(8) pure recursive function g(x) result(r)\n r = x\nend function\n")
    assert (p.kind, p.name, p.params, p.result) == ("function", "g", ("x",), "r")
    assert p.type == T("integer", 8) and p.attrs == ("pure", "recursive")
    p = unit("double precision function h(x)\n h = x\nend\n")
    assert p.type == T("real", 8) and p.result is None


def test_program_and_empty_body():
    p = unit("program main\n  implicit none\nend program\n")
    assert (p.kind, p.name, p.params) == ("program", "main", ())
    assert p.decls == (mk("implicit", "none"),) and p.body == mk("block")


def test_module_contains_and_host_arrays():
    f = parse("""module m
  real :: arr(10), sc
contains
  subroutine s(i)
    y = arr(i) + g(i) + sc
  end subroutine
  real function g(i)
    g = 1.0
  end function
end module
""")
    (m,) = f.kids
    assert m.op == "module" and m.name == "m" and m.line == 1
    assert [u.name for u in m.contains] == ["s", "g"]
    expr = m.contains[0].body.kids[0].rhs
    assert expr == mk("add", mk("add", mk("arrayAccess", I("arr"), (I("i"),)), mk("call", "g", (I("i"),))), I("sc"))


def test_internal_procedure_sees_host_arrays():
    p = unit("""subroutine outer
  real :: w(5)
  call inner(2)
contains
  subroutine inner(k)
    w(k) = f(k)
  end subroutine
end subroutine
""")
    (inner,) = p.contains
    assert inner.body.kids[0] == mk("assign", mk("arrayAccess", I("w"), (I("k"),)), mk("call", "f", (I("k"),)))


def test_use_of_module_in_same_file():
    f = parse("""module data
  integer, parameter :: dp = selected_real_kind(15)
  real(dp) :: tab(3)
end module data
subroutine s(x)
  use data, only: tab, dp
  real(dp) :: x
  x = tab(1)
end subroutine
""")
    s = f.kids[1]
    assert s.decls[0] == mk("use", "data", ("tab", "dp"))
    assert s.decls[1].type == T("real", 8)
    assert s.body.kids[0].rhs == mk("arrayAccess", I("tab"), (N(1),))
    assert unit("subroutine s\nuse other\nend\n").decls[0] == mk("use", "other", None)


def test_implicit_text():
    p = unit("subroutine s\n  IMPLICIT DOUBLE PRECISION (A-H,O-Z)\nend\n")
    assert p.decls == (mk("implicit", "double precision (a-h,o-z)"),)


# --- declarations -----------------------------------------------------------------------------

def test_intrinsic_types_and_kinds():
    types = decl_types("""integer i
real a
real*8 b
double precision c
real(8) d
real(kind=8) e
integer, parameter :: dp = kind(1.d0), sp = kind(1.0)
real(dp) f
real(kind=sp) g
complex h
double complex k
complex*16 l
complex(8) m
logical n
character(len=10) o
character*(*) p
character(len=*) q
character*5 r
character(3) t
real(selected_real_kind(6)) u
""")
    assert types == [T("integer"), T("real"), T("real", 8), T("real", 8), T("real", 8), T("real", 8),
                     T("integer"), T("real", 8), T("real", 4), T("complex"), T("complex", 8),
                     T("complex", 8), T("complex", 8), T("logical"),
                     T("character", None, N(10)), T("character", None, mk("star")),
                     T("character", None, mk("star")), T("character", None, N(5)),
                     T("character", None, N(3)), T("real", 4)]


def test_unresolvable_kind_is_unsupported():
    with pytest.raises(UnsupportedError) as e:
        parse("subroutine s\n  use elsewhere\n  real(wp) :: x\nend\n")
    assert e.value.line == 3 and "wp" in e.value.message


def test_attributes_dims_and_initialisers():
    p = unit("""subroutine s(a, b, c, n)
  integer, intent(in) :: n
  real, dimension(n, 0:3), intent(inout) :: a, b(2)
  real, intent(out), optional :: c(:)
  real, save, target :: t = 1.5
  real, parameter :: pi = 3.14
  real, pointer :: p(:) => null()
  real, allocatable :: w(:, :)
  real, external :: ext
  real :: v(n, *), z(2:*)
end
""")
    d = {decl.declarators[0].name: decl for decl in p.decls}
    assert d["n"].attrs == ("intent(in)",)
    a_dims = (D(None, I("n")), D(N(0), N(3)))
    assert d["a"].attrs == ("intent(inout)",)
    assert [x.dims for x in d["a"].declarators] == [a_dims, (D(None, N(2)),)]
    assert d["c"].attrs == ("intent(out)", "optional") and d["c"].declarators[0].dims == (D(None, None),)
    assert d["t"].attrs == ("save", "target") and d["t"].declarators[0].init == R("1.5")
    assert d["pi"].attrs == ("parameter",)
    assert d["p"].declarators[0].init == mk("intrinsic", "null", ())
    assert d["w"].attrs == ("allocatable",) and d["w"].declarators[0].dims == (D(None, None),) * 2
    assert d["ext"].attrs == ("external",)
    v, z = d["v"].declarators
    assert v.dims == (D(None, I("n")), D(None, mk("star"))) and z.dims == (D(N(2), mk("star")),)


def test_derived_type_and_field_access():
    p = unit("""subroutine s
  type point
    real :: x = 0.0
    real, pointer :: q(:)
  end type point
  type(point) :: v, vs(3)
  v%x = vs(2)%q(1) + v%q(3)
end
""")
    td = p.decls[0]
    assert td.op == "typeDef" and td.name == "point" and td.style == "fortran" and td.line == 2
    assert [f.declarators[0].name for f in td.fields] == ["x", "q"]
    assert p.decls[1].type == mk("typeRef", "point")
    a = p.body.kids[0]
    assert a.lhs == mk("fieldAccess", I("v"), "x")
    q1 = mk("arrayAccess", mk("fieldAccess", mk("arrayAccess", I("vs"), (N(2),)), "q"), (N(1),))
    assert a.rhs == mk("add", q1, mk("arrayAccess", mk("fieldAccess", I("v"), "q"), (N(3),)))


def test_common_blocks():
    p = unit("subroutine s\n  common /blk/ a, b(3, 0:2) // c\n  y = b(1, 1)\nend\n")
    c1, c2 = p.decls
    assert c1 == mk("common", "blk", (I("a"), mk("arrayAccess", I("b"), (N(3), mk("arrayTriplet", N(0), N(2), None)))))
    assert c2 == mk("common", "", (I("c"),)) and c2.line == 2
    assert p.body.kids[0].rhs.op == "arrayAccess"


def names(attr, *names_):
    return mk("attrDecl", attr, tuple(mk("declarator", n, None, None, 0) for n in names_))


def test_attribute_statements():
    p = unit("subroutine s(f, x)\n  external f\n  intrinsic sin\n  save\n  save :: x\n  optional x\nend\n")
    assert p.decls == (names("external", "f"), names("intrinsic", "sin"), names("save"), names("save", "x"),
                       names("optional", "x"))


def test_parameter_and_dimension_statements():
    p = unit("subroutine s(a)\n  integer n, m\n  parameter (n = 3, m = 2*n)\n  dimension a(n), b(0:m)\n"
             "  real a, b\n  b(1) = a(2)\nend\n")
    param, dim = p.decls[1], p.decls[2]
    assert param == mk("attrDecl", "parameter", (mk("declarator", "n", None, N(3), 0),
                                                 mk("declarator", "m", None, mk("mul", N(2), I("n")), 0)))
    assert dim == mk("attrDecl", "dimension", (mk("declarator", "a", (mk("dim", None, I("n")),), None, 0),
                                               mk("declarator", "b", (mk("dim", N(0), I("m")),), None, 0)))
    assert param.line == 3 and dim.line == 4
    # the DIMENSION statement makes b(1) and a(2) array references, not calls
    assert p.body.kids[0] == mk("assign", mk("arrayAccess", I("b"), (N(1),)), mk("arrayAccess", I("a"), (N(2),)))


def test_parameter_gives_kinds():
    p = unit("subroutine s(x)\n  integer wp\n  parameter (wp = 8)\n  real(wp) x\n  x = 1.0_wp\nend\n")
    assert p.decls[2].type == mk("type", "real", 8, None)
    assert p.body.kids[0].rhs == mk("realCst", "1.0", 8)


def test_equivalence():
    p = unit("subroutine s\n  real a(3), b\n  equivalence (a(2), b)\nend\n")
    assert p.decls[1] == mk("equivalence", ((mk("arrayAccess", I("a"), (N(2),)), I("b")),))


# --- statements ------------------------------------------------------------------------------

def test_assignments_and_calls():
    stmts = body("x = 1\np => t\ncall foo(1, b=x)\ncall bar", "real, pointer :: p\nreal, target :: t")
    assert stmts == (mk("assign", I("x"), N(1)), mk("pointerAssign", I("p"), I("t")),
                     mk("call", "foo", (N(1), mk("namedArg", "b", I("x")))), mk("call", "bar", ()))
    assert [s.line for s in stmts] == [4, 5, 6, 7]


def test_intrinsics_versus_user_functions_and_arrays():
    assert rhs("sin(x) + f(x)") == mk("add", mk("intrinsic", "sin", (I("x"),)), mk("call", "f", (I("x"),)))
    assert rhs("max(x, 1.0, b=2)") == mk("intrinsic", "max", (I("x"), R("1.0"), mk("namedArg", "b", N(2))))
    # an intrinsic name declared as an array or a variable is not the intrinsic
    assert rhs("sum(2)", "real sum(10)") == mk("arrayAccess", I("sum"), (N(2),))
    assert rhs("max(x, 1.0)", "real max") == mk("call", "max", (I("x"), R("1.0")))
    # names the engine has no intrinsic for are user calls
    assert rhs("exponent(x)") == mk("call", "exponent", (I("x"),))
    assert rhs("g(x=1)") == mk("call", "g", (mk("namedArg", "x", N(1)),))
    assert rhs("sqrt(x)", "intrinsic sqrt") == mk("intrinsic", "sqrt", (I("x"),))
    assert rhs("sin(x)", "real, external :: sin") == mk("call", "sin", (I("x"),))


def test_sections_whole_arrays_and_constructors():
    decls = "real a(10), b(10), c(5, 5)"
    assert stmt("a(1:n:2) = b(:n)", decls) == mk(
        "assign", mk("arrayAccess", I("a"), (mk("arrayTriplet", N(1), I("n"), N(2)),)),
        mk("arrayAccess", I("b"), (mk("arrayTriplet", None, I("n"), None),)))
    assert stmt("a = 2 * b", decls) == mk("assign", I("a"), mk("mul", N(2), I("b")))
    assert rhs("c(:, 2)", decls) == mk("arrayAccess", I("c"), (mk("arrayTriplet", None, None, None), N(2)))
    assert rhs("(/ 1, 2 /)") == mk("arrayConstructor", (N(1), N(2)))
    assert rhs("[x, 2.0]") == mk("arrayConstructor", (I("x"), R("2.0")))
    assert rhs("s(2:3)", "character(len=8) s") == mk("arrayAccess", I("s"), (mk("arrayTriplet", N(2), N(3), None),))


def test_if_else_if_else_and_logical_if():
    (s,) = body("if (x > 0) then\n  y = 1\nelse if (x < 0) then\n  y = 2\nelse\n  y = 3\nend if")
    inner = mk("if", mk("lt", I("x"), N(0)), mk("block", mk("assign", I("y"), N(2))),
               mk("block", mk("assign", I("y"), N(3))))
    assert s == mk("if", mk("gt", I("x"), N(0)), mk("block", mk("assign", I("y"), N(1))), mk("block", inner))
    assert s.line == 3 and getattr(s, "else").kids[0].line == 5
    (s,) = body("if (x > 0) then\n  y = 1\nend if")
    assert s.kids[2] is None
    (s,) = body("if (l) y = 1")
    assert s == mk("if", I("l"), mk("block", mk("assign", I("y"), N(1))), None)
    assert s.kids[1].kids[0].line == s.line == 3


def test_do_loops():
    (d,) = body("do i = 1, n, 2\n  cycle\nend do")
    assert d == mk("do", I("i"), N(1), I("n"), N(2), mk("block", mk("cycle")))
    (d,) = body("do i = n, 1, -1\nend do")
    assert d.step == mk("neg", N(1))
    (w,) = body("do while (x < 3)\n  exit\nend do")
    assert w == mk("while", mk("lt", I("x"), N(3)), mk("block", mk("exit")))
    (w,) = body("do\n  stop\nend do")
    assert w == mk("while", mk("boolCst", True), mk("block", mk("stop", None)))
    (d,) = body("outer: do i = 1, 3\n  exit outer\nend do outer")
    assert d.body == mk("block", mk("exit"))
    with pytest.raises(UnsupportedError) as e:
        body("outer: do i = 1, 3\n  do j = 1, 2\n    cycle outer\n  end do\nend do outer")
    assert e.value.line == 5


def test_labelled_f77_do_loops():
    src = """      SUBROUTINE S(A, N)
      DOUBLE PRECISION A(N, N)
      DO 10 I = 1, N
        A(I, 1) = 0
   10 CONTINUE
      DO 20 I = 1, N
      DO 20 J = 1, N
        A(I, J) = 1
   20 CONTINUE
      DO 30 I = 1, N
   30 A(I, 2) = 3
      END
"""
    d1, d2, d3 = unit(src, "fixed").body.kids
    assert d1.op == "do" and d1.body.kids[-1] == mk("nop") and d1.body.kids[-1].ann["label"] == "10"
    assert d2.body.kids[0].op == "do" and len(d2.body.kids) == 1
    inner = d2.body.kids[0]
    assert inner.var == I("j") and inner.body.kids[-1].ann["label"] == "20"
    assert d3.body.kids == (mk("assign", mk("arrayAccess", I("a"), (I("i"), N(2))), N(3)),)
    assert d3.body.kids[0].ann["label"] == "30" and d3.line == 10


def test_nested_labelled_do_with_distinct_labels():
    (d,) = body("do 10 i = 1, n\n  do 20 j = 1, n\n    x = 1\n20 continue\n  y = 2\n10 y = 3")
    assert [k.op for k in d.body.kids] == ["do", "assign", "assign"]
    assert d.body.kids[0].body.kids[-1].ann["label"] == "20"


def test_jumps_and_simple_statements():
    stmts = body("goto 10\n10 continue\nreturn\nstop 'bad'\nstop 2")
    assert stmts == (mk("goto", "10"), mk("nop"), mk("return", None), mk("stop", mk("stringCst", "bad")),
                     mk("stop", N(2)))
    assert stmts[1].ann["label"] == "10" and "label" not in stmts[0].ann
    (g,) = body("go to 99")
    assert g == mk("goto", "99")


def test_computed_goto_and_arithmetic_if():
    """Both spellings of GO TO, the optional comma, any integer index; IF (e) with an integer
    or a real expression; the labels as written."""
    stmts = body("go to (10, 40, 70), nprob\ngoto (10,20) i+1\nGO TO ( 10 , 20 ) , N\n"
                 "10 if (x) 20, 30, 40\n20 IF (x - y*2) 10,10,30\n30 if (k - 1) 40, 70, 40\n"
                 "40 continue\n70 continue", "integer nprob, i, n, k\nreal(8) x, y")
    cg1, cg2, cg3, a1, a2, a3 = stmts[:6]
    assert cg1 == mk("computedGoto", ("10", "40", "70"), I("nprob"))
    assert cg2 == mk("computedGoto", ("10", "20"), mk("add", I("i"), N(1)))
    assert cg3 == mk("computedGoto", ("10", "20"), I("n")) and cg3.line == 6
    assert a1 == mk("arithmeticIf", I("x"), "20", "30", "40") and a1.ann["label"] == "10"
    assert a2 == mk("arithmeticIf", mk("sub", I("x"), mk("mul", I("y"), N(2))), "10", "10", "30")
    assert a3 == mk("arithmeticIf", mk("sub", I("k"), N(1)), "40", "70", "40")


def test_computed_goto_and_arithmetic_if_in_fixed_form():
    src = """      SUBROUTINE S(X, N)
      DOUBLE PRECISION X
      GO TO (10, 20), N
   10 IF (X - 1.0D0) 20, 20, 30
   20 X = X * 2
   30 CONTINUE
      END
"""
    g, a, _, _ = unit(src, "fixed").body.kids
    assert g == mk("computedGoto", ("10", "20"), I("n")) and g.line == 3
    assert a.op == "arithmeticIf" and a.kids[1:] == ("20", "20", "30") and a.ann["label"] == "10"
    # a label is its number: zeros before it and (fixed form) blanks inside do not count
    g, a, x, _ = unit(src.replace("(10, 20)", "(010, 2 0)").replace("   10 IF", "  010 IF")
                      .replace("20, 20, 30", "2 0, 020, 30"), "fixed").body.kids
    assert g.kids[0] == ("10", "20") and a.ann["label"] == "10" and a.kids[1:] == ("20", "20", "30")
    assert x.ann["label"] == "20"


@pytest.mark.parametrize("stmts, line", [
    ("go to (10, 20) x\n10 continue\n20 continue", 6),           # a real index
    ("go to (10) v\n10 continue", 6),                             # an array index
    ("if (l) 10, 10, 10\n10 continue", 6),                        # a logical expression
    ("if (c) 10, 10, 10\n10 continue", 6),                        # a complex expression
])
def test_computed_goto_and_arithmetic_if_refuse_wrong_types(stmts, line):
    with pytest.raises(SourceError) as e:
        body(stmts, "real x\ninteger v(3)\nlogical l\ncomplex c")
    assert e.value.line == line and "must be a scalar" in e.value.message


def test_label_on_end_statements_become_nops():
    p = unit("subroutine s\n  if (x > 0) goto 10\n  y = 1\n10 end subroutine\n")
    assert p.body.kids[-1] == mk("nop") and p.body.kids[-1].ann["label"] == "10"


def test_allocate_deallocate():
    stmts = body("allocate(w(n, 0:m), q(3))\ndeallocate(w, q)", "real, allocatable :: w(:,:), q(:)")
    assert stmts == (mk("allocate", I("w"), (D(None, I("n")), D(N(0), I("m"))), None),
                     mk("allocate", I("q"), (D(None, N(3)),), None),
                     mk("deallocate", I("w")), mk("deallocate", I("q")))
    assert {s.line for s in stmts[:2]} == {3}


def test_io_statements_keep_control_text():
    stmts = body("print *, 'hi', x\nwrite(6, '(a, \"x)\")') s // 't'\nread (5, *) x, y\nprint '(f5.2)', x\n"
                 "if (x > 0) write(*,*) x")
    p, w, r, p2, i = stmts
    assert p == mk("io", "print", "*", (mk("stringCst", "hi"), I("x")))
    assert w == mk("io", "write", "6, '(a, \"x)\")'", (mk("concat", I("s"), mk("stringCst", "t")),))
    assert r == mk("io", "read", "5, *", (I("x"), I("y")))
    assert p2.control == "'(f5.2)'"
    assert i.kids[1].kids[0] == mk("io", "write", "*,*", (I("x"),))


def test_program_without_program_statement():
    p = unit("x = 1\nend\n")
    assert (p.kind, p.name) == ("program", "main") and p.body.kids == (mk("assign", I("x"), N(1)),)


def test_labelled_end_do_and_end_if():
    (d,) = body("do 10 i = 1, 3\n  x = 1\n10 end do")
    assert d.body.kids[-1] == mk("nop") and d.body.kids[-1].ann["label"] == "10"
    i, nop = body("if (x > 0) then\n  goto 20\n20 end if")
    assert i.op == "if" and nop.ann["label"] == "20" and nop.line == 5


def test_statement_functions_are_expanded_where_used():
    stmts = body("f(x, k) = x ** k + c\ny = f(2.0, 3) * f(z, 2)", "real x, c, z\ninteger k")
    assert stmts == (mk("assign", I("y"), mk("mul", mk("add", mk("power", R("2.0"), N(3)), I("c")),
                                                 mk("add", mk("power", I("z"), N(2)), I("c")))),)
    assert stmts[0].line == 5
    # a module of another file may declare the array: the assigned name is an array
    assert stmt("a(1) = 2", "use other") == mk("assign", mk("arrayAccess", I("a"), (N(1),)), N(2))


def test_nullify():
    assert stmt("nullify(p)", "real, pointer :: p") == mk("pointerAssign", I("p"), mk("intrinsic", "null", ()))


# --- expressions ------------------------------------------------------------------------------

def test_literals():
    assert rhs("1.0d0") == R("1.0", 8)
    assert rhs("2.5") == R("2.5", 4)
    assert rhs("3.0_8") == R("3.0", 8)
    assert rhs("1.5E-3") == R("1.5e-3", 4)
    assert rhs("1d0") == R("1.0", 8)
    assert rhs("2.0_dp", "integer, parameter :: dp = 8") == R("2.0", 8)
    assert rhs("-1.0") == mk("neg", R("1.0"))
    assert rhs("42") == N(42) and rhs("7_8") == N(7, 8)
    assert rhs(".true.") == mk("boolCst", True) and rhs(".FALSE.") == mk("boolCst", False)
    assert rhs("'it''s'") == mk("stringCst", "it's") and rhs('"a""b"') == mk("stringCst", 'a"b')
    assert rhs("(1.0, -2d0)") == mk("complexCst", R("1.0"), mk("neg", R("2.0", 8)))


def test_operators_and_grouping():
    a, b, c = I("a"), I("b"), I("c")
    assert rhs("(a + b) * c") == mk("mul", mk("add", a, b), c)
    assert rhs("a - (b - c)") == mk("sub", a, mk("sub", b, c))
    assert rhs("a - b - c") == mk("sub", mk("sub", a, b), c)
    assert rhs("a ** b ** c") == mk("power", a, mk("power", b, c))
    assert rhs("-a ** 2") == mk("neg", mk("power", a, N(2)))
    assert rhs("a / b") == mk("div", a, b)
    for src, op in [("==", "eq"), (".eq.", "eq"), ("/=", "ne"), (".NE.", "ne"), ("<", "lt"), (".lt.", "lt"),
                    ("<=", "le"), (".le.", "le"), (">", "gt"), (".gt.", "gt"), (">=", "ge"), (".ge.", "ge")]:
        assert rhs(f"a {src} b") == mk(op, a, b), src
    assert rhs("a .and. .not. b .or. c") == mk("or", mk("and", a, mk("not", b)), c)
    assert rhs("a .eqv. b") == mk("eqv", a, b) and rhs("a .neqv. b") == mk("neqv", a, b)
    assert rhs("a // b") == mk("concat", a, b)
    assert rhs("+a") == mk("pos", a)


def test_identifiers_lower_cased():
    assert stmt("X = Foo(Y)") == mk("assign", I("x"), mk("call", "foo", (I("y"),)))


# --- comments and directives ------------------------------------------------------------------

def test_comments_where_they_stand():
    p = unit("""! before
subroutine s
  ! in decls
  real x  ! trailing decl
  ! in body
  x = 1 ! trailing stmt
end subroutine
""")
    f = parse("! top\nsubroutine s\nend\n")
    assert f.kids[0] == mk("comment", "top") and f.kids[0].line == 1
    assert [d.op for d in p.decls] == ["comment", "varDecl", "comment", "comment"]
    assert p.decls[0] == mk("comment", "in decls") and p.decls[2] == mk("comment", "trailing decl")
    assert p.body.kids == (mk("assign", I("x"), N(1)), mk("comment", "trailing stmt"))
    assert p.body.kids[1].line == 6


def test_comment_marker_and_one_space_removed():
    f = parse("!no space\n!   indented\n!\nsubroutine s\nend\n")
    assert [c.kids[0] for c in f.kids[:3]] == ["no space", "  indented", ""]


def test_comments_before_constructs_stay_in_place():
    stmts = body("x = 1\n! before do\ndo i = 1, 2\nend do\n! before if\nif (x > 0) then\nend if")
    assert [s.op for s in stmts] == ["assign", "comment", "do", "comment", "if"]
    f = parse("subroutine a\nend\n! between\nsubroutine b\nend\n")
    assert [u.op for u in f.kids] == ["procedure", "comment", "procedure"]


def test_ad_directives_annotate_next_statement():
    stmts = body("!$AD NOCHECKPOINT\ncall f(x)\n! plain\ndo i = 1, 2\n  !$AD II-LOOP\n  x = 1\nend do")
    assert stmts[0].ann["directives"] == ("NOCHECKPOINT",)
    assert "directives" not in stmts[2].ann
    assert stmts[2].body.kids[0].ann["directives"] == ("II-LOOP",)
    assert [s.op for s in stmts] == ["call", "comment", "do"]


def test_directive_between_declarations_and_body():
    p = unit("subroutine s\n  real x\n  !$AD NOCHECKPOINT\n  call g(x)\nend\n")
    assert p.body.kids[0].ann["directives"] == ("NOCHECKPOINT",)
    assert all(d.op != "comment" for d in p.decls)


def test_directive_before_procedure_and_if():
    f = parse("!$AD NOCHECKPOINT\nsubroutine s\n  !$ad binomial-ckp\n  if (x > 0) then\n  end if\nend\n")
    (p,) = f.kids
    assert p.ann["directives"] == ("NOCHECKPOINT",) and p.line == 2
    assert p.body.kids[0].ann["directives"] == ("BINOMIAL-CKP",)


def test_fixed_form():
    src = """C     a comment
* star comment
      SUBROUTINE FOO(A, N)
      REAL*8 A(N)
c$AD II-LOOP
      DO 10 I = 1,
     &          N
        A(I) = A(I) *
     &     2.0D0                                                        SEQ00010
   10 CONTINUE
      END
"""
    f = parse(src, "fixed")
    assert f.ann["form"] == "fixed"
    c1, c2, p = f.kids
    assert c1 == mk("comment", "    a comment") and c2 == mk("comment", "star comment")
    (d,) = p.body.kids
    assert d.ann["directives"] == ("II-LOOP",) and d.hi == I("n") and d.line == 6
    assert d.body.kids[0] == mk("assign", mk("arrayAccess", I("a"), (I("i"),)),
                                mk("mul", mk("arrayAccess", I("a"), (I("i"),)), R("2.0", 8)))
    assert d.body.kids[0].line == 8


# --- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("src, line", [
    ("subroutine s\n  x = 1\n  y = = 2\nend\n", 3),
    ("program p\n x = 1\n if (x) then\n y=2\nend program\n", 5),
    ("subroutine s\n  x = (1\nend\n", 2),
    ("module m\n  integer :: x\nend module\n  x = 1 +\n", 4),
])
def test_syntax_errors_report_the_line(src, line):
    with pytest.raises(SourceError) as e:
        parse(src)
    assert e.value.line == line and e.value.filename == "t.f90"
    assert "syntax error" in e.value.message


def test_mismatched_end_name_is_a_source_error():
    with pytest.raises(SourceError) as e:
        parse("subroutine s\n  x = 1\nend subroutine t\n")
    assert e.value.line == 3


def test_fixed_form_syntax_error_line():
    with pytest.raises(SourceError) as e:
        parse("      subroutine s\n      x = (1\n      end\n", "fixed")
    assert e.value.line == 2


def test_empty_file():
    with pytest.raises(SourceError) as e:
        parse("  \n\n")
    assert e.value.line == 1


@pytest.mark.parametrize("stmts, what, line", [
    ("x = 1\nassign 10 to i\ngo to i\n10 continue", "ASSIGN statement", 4),
    ("x = 1\ny = a .op. b", "defined operator", 4),
    ("x = 1\nassociate (z => x)\n  y = z\nend associate", "ASSOCIATE", 4),
    ("call p%m(1)", "type-bound procedure call", 3),
])
def test_unsupported_statements(stmts, what, line):
    with pytest.raises(UnsupportedError) as e:
        body(stmts)
    assert what in e.value.message and e.value.line == line


@pytest.mark.parametrize("decls, what, line", [
    ("interface operator(+)\n  module procedure addp\nend interface", "operator interface", 2),
    ("character(len=:), allocatable :: c", "deferred character length", 2),
    ("real, bind(c) :: x", "BIND", 2),
    ("class(point), pointer :: p", "CLASS declarations", 2),
    ("use, intrinsic :: iso_fortran_env", "module nature", 2),
])
def test_unsupported_declarations(decls, what, line):
    with pytest.raises(UnsupportedError) as e:
        body("", decls)
    assert what in e.value.message and e.value.line == line


def test_every_result_passes_check():
    src = "module m\ncontains\n subroutine s\n  x = 1\n end subroutine\nend module\nprogram p\n call s\nend\n"
    f = parse(src)
    assert [u.op for u in f.kids] == ["module", "procedure"]
