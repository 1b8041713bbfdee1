"""Back ends: IL trees built by hand -> Fortran / C text.

- each construct prints as expected (text checks);
- parentheses follow precedence and associativity: explicit cases, and a property test that
  re-reads the printed expression with a small independent parser of each language's grammar;
- whole generated files compile (gfortran -c, gcc -c -Wall -Werror).
"""
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from adspec.backends import unparse
from adspec.backends.c import unparse_c
from adspec.backends.fortran import unparse_fortran
from adspec.engine.errors import UnsupportedError
from adspec.engine.il import check, mk


# --- small IL builders ---------------------------------------------------------------------
def I(name):
    return mk("ident", name)


def ic(v, kind=None):
    return mk("intCst", v, kind)


def rc(text, kind=8):
    return mk("realCst", text, kind)


def T(base, kind=None, length=None):
    return mk("type", base, kind, length)


def dcl(name, dims=None, init=None, ptr=0):
    return mk("declarator", name, dims, init, ptr)


def var(typ, *declarators, attrs=(), **ann):
    return mk("varDecl", typ, tuple(attrs), tuple(declarators), **ann)


def dim(hi, lo=None):
    return mk("dim", lo, hi)


def blk(*stmts):
    return mk("block", *stmts)


def assign(lhs, rhs, **ann):
    return mk("assign", lhs, rhs, **ann)


def proc(name, kind, params, decls, body, typ=None, result=None, attrs=(), contains=()):
    return mk("procedure", name, kind, tuple(params), result, typ, tuple(attrs), tuple(decls), body,
              tuple(contains))


def cfunc(name, typ, params, body, attrs=()):
    """A C function: params are (name, type, ptr) triples, declared one per varDecl."""
    decls = [var(t, dcl(p, ptr=ptr)) for p, t, ptr in params]
    return proc(name, "function", [p for p, _, _ in params], decls, body, typ=typ, attrs=attrs)


a, b, c, x, y = I("a"), I("b"), I("c"), I("x"), I("y")
R8, I4 = T("real", 8), T("integer", 4)


def fexpr(e):
    """The Fortran text of one expression (the right side of an assignment)."""
    return unparse_fortran(proc("p", "subroutine", [], [], blk(assign(x, e)))).splitlines()[1].strip()[4:]


def cexpr(e):
    return unparse_c(cfunc("p", T("void"), [], blk(assign(x, e)))).splitlines()[1].strip()[4:-1]


# --- precedence: explicit cases ---------------------------------------------------------------
@pytest.mark.parametrize("tree, text", [
    (mk("sub", a, mk("sub", b, c)), "a - (b - c)"),
    (mk("sub", mk("sub", a, b), c), "a - b - c"),
    (mk("div", a, mk("mul", b, c)), "a/(b*c)"),
    (mk("mul", mk("div", a, b), c), "a/b*c"),
    (mk("neg", mk("power", a, ic(2))), "-a**2"),
    (mk("power", mk("neg", a), ic(2)), "(-a)**2"),
    (mk("power", a, mk("power", b, c)), "a**b**c"),
    (mk("power", mk("power", a, b), c), "(a**b)**c"),
    (mk("mul", a, mk("neg", b)), "a*(-b)"),
    (mk("add", a, mk("neg", b)), "a + (-b)"),
    (mk("power", a, mk("neg", b)), "a**(-b)"),
    (mk("add", mk("neg", a), b), "-a + b"),
    (mk("mul", mk("neg", a), b), "(-a)*b"),
    (mk("neg", mk("mul", a, b)), "-a*b"),
    (mk("neg", mk("add", a, b)), "-(a + b)"),
    (mk("neg", mk("neg", a)), "-(-a)"),
    (mk("and", mk("not", a), b), ".not. a .and. b"),
    (mk("not", mk("and", a, b)), ".not. (a .and. b)"),
    (mk("and", a, mk("or", b, c)), "a .and. (b .or. c)"),
    (mk("or", mk("and", a, b), c), "a .and. b .or. c"),
    (mk("lt", mk("add", a, b), mk("neg", c)), "a + b < -c"),
    (mk("eq", mk("lt", a, b), c), "(a < b) == c"),
    (mk("concat", a, mk("concat", b, c)), "a//(b//c)"),
])
def test_fortran_parenthesisation(tree, text):
    assert fexpr(tree) == text


@pytest.mark.parametrize("tree, text", [
    (mk("sub", a, mk("sub", b, c)), "a - (b - c)"),
    (mk("div", a, mk("mul", b, c)), "a / (b * c)"),
    (mk("mul", a, mk("neg", b)), "a * -b"),
    (mk("sub", a, mk("neg", b)), "a - -b"),
    (mk("neg", mk("neg", a)), "-(-a)"),
    (mk("neg", mk("mul", a, b)), "-(a * b)"),
    (mk("div", a, mk("deref", b)), "a / *b"),
    (mk("or", mk("and", a, b), c), "(a && b) || c"),
    (mk("and", mk("or", a, b), c), "(a || b) && c"),
    (mk("bitOr", mk("bitAnd", a, b), c), "(a & b) | c"),
    (mk("lShift", mk("add", a, b), c), "(a + b) << c"),
    (mk("eq", mk("not", a), b), "(!a) == b"),
    (mk("lt", mk("add", a, b), c), "a + b < c"),
    (mk("mod", mk("mul", a, b), c), "a * b % c"),
    (mk("mul", a, mk("mod", b, c)), "a * (b % c)"),
    (mk("cast", R8, mk("add", a, b)), "(double)(a + b)"),
    (mk("cast", R8, mk("neg", a)), "(double)-a"),
    (mk("neg", mk("cast", R8, a)), "-(double)a"),
    (mk("ifExpr", mk("lt", a, b), a, mk("ifExpr", b, c, a)), "a < b ? a : b ? c : a"),
    (mk("ifExpr", mk("ifExpr", a, b, c), a, b), "(a ? b : c) ? a : b"),
    (mk("arrayAccess", mk("arrayAccess", a, (I("i"),)), (I("j"),)), "a[i][j]"),
    (mk("arrayAccess", mk("deref", a), (I("i"),)), "(*a)[i]"),
    (mk("fieldAccess", mk("deref", I("p")), "f"), "p->f"),
    (mk("fieldAccess", mk("arrayAccess", I("s"), (ic(0),)), "f"), "s[0].f"),
    (mk("address", mk("arrayAccess", a, (ic(1),))), "&a[1]"),
    (mk("sizeof", R8), "sizeof(double)"),
    (mk("sizeof", a), "sizeof(a)"),
])
def test_c_parenthesisation(tree, text):
    assert cexpr(tree) == text


# --- precedence: property test with independent parsers ----------------------------------------
F_TOKENS = re.compile(r"\s*(\*\*|//|==|/=|<=|>=|\.(?:and|or|not|eqv|neqv)\.|[-+*/()<>]|\w+)")
C_TOKENS = re.compile(r"\s*(\|\||&&|<<|>>|==|!=|<=|>=|[-+*/%()<>!~&|^?:]|\w+)")


class _Reader:
    def __init__(self, text, pattern):
        self.toks, pos = [], 0
        text = text.rstrip()
        while pos < len(text):
            m = pattern.match(text, pos)
            assert m, f"cannot tokenise {text[pos:]!r}"
            self.toks.append(m.group(1))
            pos = m.end()
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, *options):
        if self.peek() in options:
            self.i += 1
            return self.toks[self.i - 1]
        return None

    def leaf(self, parse_expr):
        if self.take("("):
            e = parse_expr()
            assert self.take(")")
            return e
        tok = self.toks[self.i]
        self.i += 1
        return ic(int(tok)) if tok.isdigit() else I(tok)


class FortranGrammar(_Reader):
    """Fortran expressions by the levels of the standard (R702-R727), written independently."""
    BIN = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "power", "//": "concat", "==": "eq",
           "/=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge", ".and.": "and", ".or.": "or",
           ".eqv.": "eqv", ".neqv.": "neqv"}

    def __init__(self, text):
        super().__init__(text, F_TOKENS)

    def left_chain(self, ops, sub):
        e = sub()
        while (op := self.take(*ops)):
            e = mk(self.BIN[op], e, sub())
        return e

    def expr(self):
        return self.left_chain((".eqv.", ".neqv."), lambda: self.left_chain(
            (".or.",), lambda: self.left_chain((".and.",), self.and_operand)))

    def and_operand(self):
        return mk("not", self.level4()) if self.take(".not.") else self.level4()

    def level4(self):
        e = self.left_chain(("//",), self.level2)
        op = self.take("==", "/=", "<", "<=", ">", ">=")
        return mk(self.BIN[op], e, self.left_chain(("//",), self.level2)) if op else e

    def level2(self):
        sign = self.take("-", "+")
        e = self.add_operand()
        if sign:
            e = mk("neg" if sign == "-" else "pos", e)
        while (op := self.take("+", "-")):
            e = mk(self.BIN[op], e, self.add_operand())
        return e

    def add_operand(self):
        return self.left_chain(("*", "/"), self.mult_operand)

    def mult_operand(self):
        e = self.leaf(self.expr)
        return mk("power", e, self.mult_operand()) if self.take("**") else e


class CGrammar(_Reader):
    """C expressions by the precedence levels of the C standard, written independently."""
    LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
              ("<<", ">>"), ("+", "-"), ("*", "/", "%")]
    BIN = {"||": "or", "&&": "and", "|": "bitOr", "^": "bitXor", "&": "bitAnd", "==": "eq", "!=": "ne",
           "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "<<": "lShift", ">>": "rShift", "+": "add",
           "-": "sub", "*": "mul", "/": "div", "%": "mod"}
    PREFIX = {"-": "neg", "+": "pos", "!": "not", "~": "bitNot"}

    def __init__(self, text):
        super().__init__(text, C_TOKENS)

    def expr(self):
        cond = self.binary(0)
        if self.take("?"):
            then = self.expr()
            assert self.take(":")
            return mk("ifExpr", cond, then, self.expr())
        return cond

    def binary(self, level):
        if level == len(self.LEVELS):
            return self.unary()
        e = self.binary(level + 1)
        while (op := self.take(*self.LEVELS[level])):
            e = mk(self.BIN[op], e, self.binary(level + 1))
        return e

    def unary(self):
        op = self.take(*self.PREFIX)
        return mk(self.PREFIX[op], self.unary()) if op else self.leaf(self.expr)


def trees(binary, unary, extra=lambda sub: st.nothing()):
    leaves = st.sampled_from([a, b, c, ic(1), ic(2)])
    return st.recursive(leaves, lambda sub: st.one_of(
        st.builds(mk, st.sampled_from(binary), sub, sub),
        st.builds(mk, st.sampled_from(unary), sub),
        extra(sub)), max_leaves=8)


F_TREES = trees(["add", "sub", "mul", "div", "power", "concat", "eq", "lt", "ge", "and", "or", "eqv"],
                ["neg", "pos", "not"])
C_TREES = trees(list(CGrammar.BIN.values()), ["neg", "pos", "not", "bitNot"],
                lambda sub: st.builds(lambda p, q, r: mk("ifExpr", p, q, r), sub, sub, sub))


@settings(max_examples=300, deadline=None, database=None)
@given(F_TREES)
def test_fortran_text_reparses_to_the_same_tree(tree):
    reader = FortranGrammar(fexpr(tree))
    assert reader.expr() == tree and reader.peek() is None, fexpr(tree)


@settings(max_examples=300, deadline=None, database=None)
@given(C_TREES)
def test_c_text_reparses_to_the_same_tree(tree):
    reader = CGrammar(cexpr(tree))
    assert reader.expr() == tree and reader.peek() is None, cexpr(tree)


# --- literals ------------------------------------------------------------------------------------
@pytest.mark.parametrize("node, fortran, c", [
    (rc("1.5", 8), "1.5d0", "1.5"),
    (rc("1.5e0", 8), "1.5d0", "1.5e0"),
    (rc("2.0e-3", 8), "2.0d-3", "2.0e-3"),
    (rc("1", 8), "1.0d0", "1.0"),
    (rc("1.5", 4), "1.5", "1.5f"),
    (rc("3", 4), "3.0", "3.0f"),
    (rc("1e5", 4), "1e5", "1e5f"),
    (rc("1.5", 16), "1.5_16", "1.5L"),
    (ic(7), "7", "7"),
    (ic(1, 8), "1_8", "1L"),
    (mk("boolCst", True), ".true.", "1"),
    (mk("boolCst", False), ".false.", "0"),
    (mk("stringCst", "it's"), "'it''s'", '"it\'s"'),
    (mk("stringCst", 'say "hi"\\\n'), None, '"say \\"hi\\"\\\\\\n"'),
    (mk("add", a, ic(-1)), "a + (-1)", "a + -1"),
])
def test_literals(node, fortran, c):
    if fortran is not None:
        assert fexpr(node) == fortran
    assert cexpr(node) == c


# --- Fortran constructs ----------------------------------------------------------------------------
def fortran_module():
    """A module with a derived type, a function with a result clause, a subroutine using most
    statements, and an internal procedure; it is also compiled below."""
    point = mk("typeDef", "point", (var(R8, dcl("x"), dcl("y")),), "fortran")
    norm = proc("norm", "function", ["p"], [
        var(mk("typeRef", "point"), dcl("p"), attrs=("intent(in)",)),
        var(R8, dcl("r"))],
        blk(assign(I("r"), mk("intrinsic", "sqrt", (mk("add", mk("power", mk("fieldAccess", I("p"), "x"), ic(2)),
                                                              mk("power", mk("fieldAccess", I("p"), "y"), ic(2))),)))),
        result="r")
    twice = proc("twice", "function", ["v"], [var(R8, dcl("v"), attrs=("intent(in)",))],
                 blk(assign(I("twice"), mk("mul", rc("2.0"), I("v")))), typ=R8)
    i, n = I("i"), I("n")
    xi = mk("arrayAccess", x, (i,))
    body = blk(
        mk("comment", "fill the array"),
        mk("allocate", I("w"), (dim(n),), None),
        mk("do", i, ic(1), n, None, blk(assign(xi, mk("mul", rc("0.5"), mk("call", "twice", (mk("intrinsic", "dble", (i,)),))),
                                                directives=("NOCHECKPOINT",)))),
        mk("do", i, n, ic(1), mk("neg", ic(1)), blk(mk("if", mk("gt", xi, rc("1.0e2")), blk(mk("cycle")), None))),
        assign(I("s"), ic(0, 8)),
        mk("if", mk("lt", n, ic(1)), blk(mk("return", None)),
           blk(mk("if", mk("eq", n, ic(1)), blk(assign(I("s"), ic(1, 8))),
                  blk(assign(I("s"), ic(2, 8)))))),
        mk("while", mk("boolCst", True), blk(
            assign(I("s"), mk("add", I("s"), ic(1, 8))),
            mk("if", mk("ge", I("s"), ic(10, 8)), blk(mk("exit")), None))),
        mk("while", mk("lt", I("s"), ic(20, 8)), blk(assign(I("s"), mk("add", I("s"), ic(1, 8))))),
        mk("goto", "10"),
        mk("nop", label="10"),
        mk("pointerAssign", I("pp"), I("tgt")),
        assign(I("q"), mk("fieldAccess", I("pt"), "x")),
        assign(mk("fieldAccess", I("pt"), "y"), mk("call", "norm", (I("pt"),))),
        assign(mk("arrayAccess", x, (mk("arrayTriplet", ic(1), n, ic(2)),)), mk("arrayConstructor", (rc("1.0"),))),
        mk("io", "print", "*", (I("s"), mk("stringCst", "done"))),
        mk("io", "write", "*, '(a)'", (mk("stringCst", "it's"),)),
        mk("call", "helper", (I("q"),)),
        mk("deallocate", I("w")),
        mk("if", mk("and", mk("not", mk("boolCst", False)), mk("ne", n, ic(3))),
           blk(mk("stop", ic(1))), None))
    helper = proc("helper", "subroutine", ["v"], [var(R8, dcl("v"), attrs=("intent(inout)",))],
                  blk(assign(I("v"), mk("neg", I("v")))))
    work = proc("work", "subroutine", ["x", "n"], [
        mk("implicit", "none"),
        var(I4, dcl("n"), attrs=("intent(in)",)),
        var(R8, dcl("x", (dim(n),)), attrs=("intent(inout)",)),
        var(I4, dcl("i")),
        var(T("integer", 8), dcl("s")),
        var(R8, dcl("q")),
        var(R8, dcl("w", (dim(None),)), attrs=("allocatable",)),
        var(R8, dcl("pp"), attrs=("pointer",)),
        var(R8, dcl("tgt", init=rc("3.0")), attrs=("target", "save")),
        var(mk("typeRef", "point"), dcl("pt")),
        var(T("character", length=ic(8)), dcl("tag", init=mk("stringCst", "abc"))),
        var(T("logical", 4), dcl("flag", init=mk("boolCst", True))),
        var(T("complex", 8), dcl("z", init=mk("complexCst", rc("1.0"), rc("-2.0")))),
        var(R8, dcl("coef", init=rc("0.5")), attrs=("parameter",)),
    ], body, contains=[helper])
    consts = var(I4, dcl("nmax", init=ic(100)), attrs=("parameter",))
    module = mk("module", "shapes", (point, consts), (norm, twice, work))
    main = proc("main", "program", [], [mk("use", "shapes", None), mk("implicit", "none"),
                                        var(R8, dcl("v", (dim(ic(3)),)))],
                blk(mk("call", "work", (I("v"), ic(3)))))
    return mk("file", mk("comment", "generated for the back end tests"), module, main)


def test_fortran_units_and_declarations():
    text = unparse_fortran(fortran_module())
    for expected in [
        "! generated for the back end tests\nmodule shapes\n",
        "   type point\n      real(8) :: x, y\n   end type point\n",
        "   integer(4), parameter :: nmax = 100\ncontains\n",
        "   function norm(p) result(r)\n",
        "   real(8) function twice(v)\n",
        "      real(8), intent(inout) :: x(n)\n",
        "real(8), allocatable :: w(:)",
        "real(8), target, save :: tgt = 3.0d0",
        "character(len=8) :: tag = 'abc'",
        "complex(8) :: z = (1.0d0, -2.0d0)",
        "   contains\n      subroutine helper(v)\n",
        "   end subroutine work\nend module shapes\n\nprogram main\n   use shapes\n",
        "end program main\n",
    ]:
        assert expected in text, expected


def test_fortran_statements():
    text = unparse_fortran(fortran_module())
    for expected in [
        "      ! fill the array\n      allocate(w(n))\n",
        "         !$AD NOCHECKPOINT\n         x(i) = 0.5d0*twice(dble(i))\n",
        "do i = n, 1, -1\n",
        "      if (n < 1) then\n         return\n      else if (n == 1) then\n         s = 1_8\n"
        "      else\n         s = 2_8\n      end if\n",
        "      do\n         s = s + 1_8\n",
        "do while (s < 20_8)",
        "      go to 10\n      10 continue\n",
        "pp => tgt", "pt%y = norm(pt)", "x(1:n:2) = (/ 1.0d0 /)",
        "print *, s, 'done'", "write(*, '(a)') 'it''s'", "call helper(q)", "deallocate(w)",
        "if (.not. .false. .and. n /= 3) then\n         stop 1\n",
    ]:
        assert expected in text, expected


def test_fortran_fixed_form_columns_and_continuation():
    long_sum = mk("add", *[mk("mul", I(f"coefficient{k}"), I(f"value{k}")) for k in range(2)])
    for k in range(2, 6):
        long_sum = mk("add", long_sum, mk("mul", I(f"coefficient{k}"), I(f"value{k}")))
    body = blk(mk("comment", "a comment"), assign(x, long_sum, label="100", directives=("II-LOOP",)),
               mk("io", "print", "*", (mk("stringCst", "s" * 150),)))
    text = unparse_fortran(proc("p", "subroutine", [], [], body), form="fixed")
    lines = text.splitlines()
    assert lines[0] == "      subroutine p()"
    assert "C a comment" in lines and "C$AD II-LOOP" in lines
    assert lines[3].startswith("100      x = coefficient0*value0")
    assert all(len(line) <= 72 for line in lines)
    continued = [line for line in lines if line[:6] == "     &"]
    assert len(continued) >= 3
    # the 150-character string is cut at column 72 exactly and continued at column 7
    joined = "".join(line[6:72] if line[:6] == "     &" else line[6:72].rstrip() for line in lines[-5:-1])
    assert "'" + "s" * 150 + "'" in joined


def test_fortran_free_form_continuation():
    items = tuple(mk("stringCst", f"item number {k}") for k in range(12))
    body = blk(mk("io", "print", "*", items), mk("io", "print", "*", (mk("stringCst", "q" * 300),)))
    lines = unparse_fortran(proc("p", "subroutine", [], [], body)).splitlines()
    assert all(len(line) <= 132 for line in lines)
    assert lines[1].endswith(" &") and lines[2].startswith("         'item")
    # the 300-character string is split inside, continued right after a leading '&'
    split = [k for k, line in enumerate(lines) if line.endswith("q&")]
    assert split and all(lines[k + 1].lstrip().startswith("&q") for k in split)


def test_fortran_accepts_a_single_procedure_and_refuses_c_only_operators():
    assert unparse_fortran(proc("p", "subroutine", [], [], blk())) == "subroutine p()\nend subroutine p\n"
    with pytest.raises(UnsupportedError, match="address"):
        fexpr(mk("address", a))
    with pytest.raises(UnsupportedError, match="for"):
        unparse_fortran(proc("p", "subroutine", [], [], blk(mk("for", None, None, None, blk(), line=4))))


# --- C constructs ------------------------------------------------------------------------------------
def c_file():
    """Most C constructs in one file; it is also compiled below."""
    i, n, p = I("i"), I("n"), I("p")
    node_t = mk("typeDef", "node", (var(R8, dcl("val")), var(mk("typeRef", "node"), dcl("next", ptr=1))), "struct")
    pair_t = mk("typeDef", "pair", (var(I4, dcl("first"), dcl("second")),), "typedef")
    real_t = mk("typeAlias", "real_t", R8)
    counter = var(I4, dcl("counter", init=ic(0)), attrs=("static",))
    table = var(R8, dcl("table", (dim(ic(3)),), init=mk("arrayConstructor", (rc("1.0"), rc("2.5", 4), rc("3")))),
                attrs=("static", "const"))
    proto = proc("scale", "function", ["v", "k"], [var(R8, dcl("v")), var(I4, dcl("k"))], None, typ=R8,
                 attrs=("static",))
    scale = cfunc("scale", R8, [("v", R8, 0), ("k", I4, 0)], blk(
        mk("return", mk("mul", I("v"), mk("cast", R8, I("k"))))), attrs=("static",))
    xi = mk("arrayAccess", x, (i,))
    body = blk(
        mk("comment", "sum the list"),
        var(R8, dcl("s", init=rc("0.0"))),
        var(mk("typeRef", "node"), dcl("q", ptr=1)),
        var(mk("typeRef", "pair"), dcl("pr")),
        var(mk("typeRef", "real_t"), dcl("w", ptr=1)),
        var(I4, dcl("m", init=ic(0)), dcl("grid", (dim(ic(2)), dim(ic(3))))),
        mk("allocate", I("w"), (n,), R8),
        mk("for", var(I4, dcl("i", init=ic(0))), mk("lt", i, n), assign(i, mk("add", i, ic(1))), blk(
            assign(mk("arrayAccess", I("w"), (i,)), mk("call", "scale", (xi, i)), directives=("NOCHECKPOINT",)))),
        mk("for", None, None, None, blk(mk("exit"))),
        assign(I("q"), p),
        mk("while", mk("ne", I("q"), ic(0)), blk(
            assign(I("s"), mk("add", I("s"), mk("fieldAccess", mk("deref", I("q")), "val"))),
            assign(I("q"), mk("fieldAccess", mk("deref", I("q")), "next")))),
        mk("doWhile", blk(assign(I("m"), mk("add", I("m"), ic(1))),
                          mk("if", mk("eq", mk("mod", I("m"), ic(2)), ic(0)), blk(mk("cycle")), None)),
           mk("lt", I("m"), ic(5))),
        assign(mk("fieldAccess", I("pr"), "first"), I("m")),
        assign(mk("fieldAccess", I("pr"), "second"), mk("fieldAccess", I("pr"), "first")),
        assign(mk("arrayAccess", mk("arrayAccess", I("grid"), (ic(1),)), (ic(2),)), ic(7)),
        mk("if", mk("gt", I("s"), rc("1.0e3")), blk(assign(I("s"), rc("1.0e3"))),
           blk(mk("if", mk("lt", I("s"), mk("neg", rc("1.0e3"))), blk(assign(I("s"), mk("neg", rc("1.0e3")))),
                  blk(assign(I("s"), mk("ifExpr", mk("ge", I("s"), rc("0.0")), I("s"), mk("neg", I("s")))))))),
        mk("goto", "done"),
        assign(I("counter"), mk("add", I("counter"), ic(1)), label="again"),
        assign(I("counter"), mk("add", I("counter"), ic(1)), label="done"),
        mk("if", mk("gt", I("counter"), ic(100)), blk(mk("goto", "again")), None),
        mk("intrinsic", "printf", (mk("stringCst", "%g %d %d\n"), I("s"), mk("fieldAccess", I("pr"), "second"),
                                   mk("arrayAccess", mk("arrayAccess", I("grid"), (ic(1),)), (ic(2),)))),
        assign(I("s"), mk("add", I("s"), mk("arrayAccess", I("table"), (ic(1),)))),
        mk("block", var(T("logical", 1), dcl("ok", init=mk("boolCst", True))),
           mk("if", I("ok"), blk(assign(I("s"), mk("intrinsic", "sqrt", (mk("intrinsic", "fabs", (I("s"),)),)))), None)),
        mk("deallocate", I("w")),
        mk("return", I("s")))
    total = cfunc("total", R8, [("x", R8, 1), ("n", I4, 0), ("p", mk("typeRef", "node"), 1)], body)
    return mk("file", mk("comment", "generated for the back end tests"), node_t, pair_t, real_t, counter, table,
              proto, scale, total, includes=("#include <stdio.h>",))


def test_c_file_layout_and_declarations():
    text = unparse_c(c_file())
    for expected in [
        "#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n\n/* generated for the back end tests */\n",
        "struct node {\n    double val;\n    struct node *next;\n};\n",
        "typedef struct {\n    int first, second;\n} pair;\n",
        "typedef double real_t;\nstatic int counter = 0;\nstatic const double table[3] = {1.0, 2.5f, 3.0};\n",
        "static double scale(double v, int k);\n",
        "static double scale(double v, int k) {\n    return v * (double)k;\n}\n",
        "double total(double *x, int n, struct node *p) {\n    /* sum the list */\n    double s = 0.0;\n",
        "    struct node *q;\n    pair pr;\n    real_t *w;\n    int m = 0, grid[2][3];\n",
    ]:
        assert expected in text, expected


def test_c_statements():
    text = unparse_c(c_file())
    for expected in [
        "    w = (double*)malloc(n * sizeof(double));\n",
        "    for (int i = 0; i < n; i++) {\n        /* $AD NOCHECKPOINT */\n        w[i] = scale(x[i], i);\n    }\n",
        "    for (;;) {\n        break;\n    }\n",
        "        s = s + q->val;\n        q = q->next;\n",
        "    do {\n        m = m + 1;\n        if (m % 2 == 0) {\n            continue;\n        }\n    } while (m < 5);\n",
        "pr.second = pr.first;", "grid[1][2] = 7;",
        "    } else if (s < -1.0e3) {\n", "s = s >= 0.0 ? s : -s;",
        "    goto done;\nagain:\n    counter = counter + 1;\ndone:\n",
        '    printf("%g %d %d\\n", s, pr.second, grid[1][2]);\n',
        "    {\n        _Bool ok = 1;\n", "    free(w);\n    return s;\n}\n",
    ]:
        assert expected in text, expected


def test_c_labels_numeric_and_before_declarations():
    body = blk(mk("goto", "10"), var(I4, dcl("k", init=ic(1)), label="10"), mk("return", I("k")))
    text = unparse_c(cfunc("f", I4, [], body))
    assert "    goto L10;\nL10:\n    ;\n    int k = 1;\n" in text


def test_c_comments_and_prototypes():
    f = mk("file", mk("comment", "two\nlines"), mk("comment", "has */ inside"),
           proc("g", "function", [], [], None, typ=T("void")))
    assert unparse_c(f) == "/* two\nlines */\n// has */ inside\nvoid g(void);\n"


def test_cuda_kernel_launch_and_qualifiers():
    launch = mk("kernelLaunch", "k", I("nb"), ic(128), None, (I("d"), I("n")))
    kernel = cfunc("k", T("void"), [("d", R8, 1), ("n", I4, 0)], blk(
        var(R8, dcl("buf", (dim(ic(128)),)), attrs=("__shared__",)),
        mk("intrinsic", "__syncthreads", ())), attrs=("__global__",))
    host = cfunc("run", T("void"), [("d", R8, 1), ("n", I4, 0), ("nb", I4, 0)], blk(launch))
    text = unparse_c(mk("file", kernel, host), cuda=True)
    assert "__global__ void k(double *d, int n) {\n    __shared__ double buf[128];\n    __syncthreads();\n" in text
    assert "    k<<<nb, 128>>>(d, n);\n" in text
    shared = mk("kernelLaunch", "k", I("nb"), ic(128), ic(1024), (I("d"), I("n")))
    assert "k<<<nb, 128, 1024>>>(d, n);" in unparse_c(cfunc("r", T("void"), [], blk(shared)), cuda=True)
    with pytest.raises(UnsupportedError, match="cuda"):
        unparse_c(host)


def test_c_refuses_fortran_only_constructs():
    with pytest.raises(UnsupportedError) as err:
        unparse_c(cfunc("f", T("void"), [], blk(mk("io", "print", "*", (), line=12))))
    assert err.value.line == 12
    with pytest.raises(UnsupportedError, match="power"):
        cexpr(mk("power", a, b))
    with pytest.raises(UnsupportedError, match="parameter n"):
        unparse_c(proc("f", "function", ["n"], [], blk(), typ=T("void")))


def test_hand_made_trees_follow_the_operator_table():
    check(fortran_module())
    check(c_file())


def test_long_sums_print_without_deep_recursion():
    e = a
    for k in range(5000):
        e = mk("sub" if k % 2 else "add", e, mk("mul", I(f"b{k}"), rc("1.5")))
    assert fexpr(e).startswith("a + b0*1.5d0 - b1*1.5d0 + ")
    assert cexpr(e).endswith(" - b4999 * 1.5")


def test_unparse_dispatch_uses_the_form_annotation():
    tree = mk("file", proc("p", "subroutine", [], [], blk()), lang="fortran", form="fixed")
    assert unparse(tree, "fortran").startswith("      subroutine p()")
    assert unparse(mk("file", cfunc("f", T("void"), [], blk())), "c") == "void f(void) {\n}\n"


# --- the generated files compile -----------------------------------------------------------------
def compile_ok(cmd, tmp_path, name, text):
    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} not installed")
    src = tmp_path / name
    src.write_text(text)
    proc_ = subprocess.run(cmd + [str(src), "-o", str(tmp_path / "out.o")], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert proc_.returncode == 0, proc_.stderr + "\n" + text
    return proc_.stderr


@pytest.mark.compile
@pytest.mark.parametrize("form", ["free", "fixed"])
def test_generated_fortran_compiles(form, tmp_path):
    text = unparse_fortran(fortran_module(), form=form)
    ext = ".f90" if form == "free" else ".f"
    compile_ok(["gfortran", f"-f{form}-form", "-c", "-J", str(tmp_path)], tmp_path, "gen" + ext, text)


@pytest.mark.compile
def test_generated_c_compiles_cleanly(tmp_path):
    compile_ok(["gcc", "-std=c99", "-Wall", "-Werror", "-c"], tmp_path, "gen.c", unparse_c(c_file()))


# --- switch, enums, unions, qualifiers, comma for headers -------------------------------------------
def test_c_switch_labels_fall_through_and_refused_fortran_flavour():
    cases = (mk("case", (ic(1), ic(2)), blk(assign(x, ic(1)), mk("exit"))),
             mk("case", (), blk(assign(x, ic(3)))))
    text = unparse_c(cfunc("f", T("void"), [("i", I4, 0)], blk(mk("switch", I("i"), cases, True))))
    assert "switch (i) {\n        case 1:\n        case 2:\n            x = 1;\n            break;\n" \
           "        default:\n            x = 3;\n    }" in text
    with pytest.raises(UnsupportedError):
        unparse_c(cfunc("f", T("void"), [("i", I4, 0)], blk(mk("switch", I("i"), cases, False))))


def test_c_enums_unions_and_tag_references():
    items = (mk("enumerator", "A", None), mk("enumerator", "B", ic(4)))
    union = mk("typeDef", "u", (var(R8, dcl("d")), var(T("integer", 8), dcl("i"))), "union")
    body = blk(var(mk("typeRef", "e"), dcl("m", init=I("B"))), var(mk("typeRef", "u"), dcl("v")),
               var(mk("typeRef", "t"), dcl("k")))
    tree = mk("file", mk("enumDef", "e", items), mk("typedefEnum", "t", items[:1]), union,
              mk("typeDef", "w", (var(R8, dcl("d")),), "typedefUnion"), cfunc("f", T("void"), [], body), lang="c")
    text = unparse_c(tree)
    for line in ("enum e {A, B = 4};", "typedef enum {A} t;", "union u {", "typedef union {", "} w;",
                 "enum e m = B;", "union u v;", "    t k;"):
        assert line in text, line


def test_c_pointer_qualifiers_go_after_their_star():
    decls = [var(R8, dcl("x", ptr=1), attrs=("const", "*restrict")),
             var(R8, dcl("p", ptr=2), attrs=("*const", "**restrict"))]
    f = proc("f", "function", ["x", "p"], decls, blk(), typ=T("void"))
    assert "void f(const double *restrict x, double *const *restrict p)" in unparse_c(f)


def test_c_for_header_with_comma_separated_statements():
    loop = mk("for", blk(assign(a, ic(0)), assign(b, ic(9))), mk("lt", a, b),
              blk(assign(a, mk("add", a, ic(1))), assign(b, mk("sub", b, ic(1)))), blk())
    assert "for (a = 0, b = 9; a < b; a++, b = b - 1) {" in unparse_c(cfunc("f", T("void"), [], blk(loop)))


# --- computed GOTO and arithmetic IF ---------------------------------------------------------------
def _jumps_body():
    """r = 10 * (the label k chose, 0 when k is out of 1..2) + (1, 2, 3 as x - 1 < 0, = 0, > 0)."""
    return blk(mk("computedGoto", ("10", "20"), I("k")), assign(I("r"), ic(0)), mk("goto", "30"),
               assign(I("r"), ic(10), label="10"), mk("goto", "30"),
               assign(I("r"), ic(20), label="20"),
               mk("arithmeticIf", mk("sub", x, rc("1.0")), "40", "50", "60", label="30"),
               mk("return", mk("add", I("r"), ic(1)), label="40"),
               mk("return", mk("add", I("r"), ic(2)), label="50"),
               mk("return", mk("add", I("r"), ic(3)), label="60"))


def test_fortran_computed_goto_and_arithmetic_if():
    f = proc("f", "function", ["k", "x"], [var(I4, dcl("k"), dcl("r")), var(R8, dcl("x"))], _jumps_body(), typ=I4)
    text = unparse_fortran(f)
    assert "   go to (10, 20), k\n" in text and "30 if (x - 1.0d0) 40, 50, 60\n" in text
    fixed = unparse_fortran(f, form="fixed")
    assert "         go to (10, 20), k\n" in fixed and "\n30       if (x - 1.0d0) 40, 50, 60\n" in fixed


@pytest.mark.compile
def test_c_computed_goto_and_arithmetic_if_run_as_fortran_says(tmp_path):
    """C has neither: a switch of gotos with no default (another index goes on) and an if chain."""
    f = cfunc("f", I4, [("k", I4, 0), ("x", R8, 0)], blk(var(I4, dcl("r")), *_jumps_body().kids))
    text = unparse_c(f)
    assert "switch (k) {\n        case 1: goto L10;\n        case 2: goto L20;\n    }\n" in text
    assert "if (x - 1.0 < 0) goto L40; else if (x - 1.0 == 0) goto L50; else goto L60;" in text
    main = ('#include <stdio.h>\nint main(void) {\n    printf("%d %d %d %d %d\\n", f(1, 0.5), f(2, 1.0), '
            'f(0, 2.0), f(3, 1.0), f(-1, 0.5));\n    return 0;\n}\n')
    compile_ok(["gcc", "-std=c99", "-Wall", "-Werror", "-c"], tmp_path, "gen.c", text + main)
    subprocess.run(["gcc", str(tmp_path / "out.o"), "-o", str(tmp_path / "prog")], check=True)
    out = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["11", "22", "3", "2", "1"]


def test_c_refuses_an_arithmetic_if_on_a_function_call():
    body = blk(mk("arithmeticIf", mk("call", "g", (x,)), "10", "10", "10", line=7), mk("nop", label="10"))
    with pytest.raises(UnsupportedError) as e:
        unparse_c(cfunc("f", T("void"), [("x", R8, 0)], body))
    assert e.value.line == 7 and "arithmetic IF" in e.value.message
