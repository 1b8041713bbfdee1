"""The paper's adjoint figures 11 (split and merge, 4.8) and 12 (naive column, 4.9), up to
names and layout, and the -nooptim variants of -b: each switches one improvement off and
gives the same adjoint numbers (X̄ equal to the default's to 1e-13, the dot-product test)
on the adjoint tests' programs and on every corpus program adjoint mode differentiates."""
from __future__ import annotations

import re

import numpy as np
import pytest

from adspec.engine.errors import UnsupportedError
from adspec.pipeline import NOOPTIM
from adjoint_check import AdjointCase
from c_tangent_cases import SINGLE_PRECISION, source as corpus_source
import test_adjoint as t
import test_adjoint_corpus as corpus
import test_tangent_programs as T

OFF = frozenset({"spareinit", "mergediff", "splitdiff"})   # the three rewrites of 4.8

FIG11 = """
subroutine fig11(g, z, w, v, tau, i, j)
  integer i, j
  real(8) g(5, 5), z(5), w(5, 5), v(5), tau, res
  res = (tau-w(i,j))*g(i,j)*(z(j)-2.0)/v(j)
  g(i,j) = res*v(j)
end subroutine
"""
FIG11_HEAD = "fig11(g z w v tau)/(g z w v tau)"   # in a bigger code, every adjoint is incremented
FIG11_ARGS = [t.real("g", (5, 5)), t.real("z", (5,)), t.real("w", (5, 5)), t.real("v", (5,)), t.real("tau"),
              t.integer("i", 2), t.integer("j", 4)]


def backward(text: str, after: str) -> list:
    """The statements of P_b after the line `after`, temporaries named temp, tempb (their
    numbering is layout)."""
    lines = [line.strip() for line in text.splitlines()]
    body = lines[lines.index(after) + 1:lines.index(next(x for x in lines if x.startswith("end subroutine")))]
    return [re.sub(r"\b(tempb?)\d+\b", r"\1", line) for line in body if line]


def test_fig11_naive_column():
    """The 4.8 rewrites off: the left column, statement for statement (our partials are
    written from Fortran's left-to-right tree, ((tau-w)*g*(z-2))/v)."""
    case = t.dot_product(FIG11, "fortran", FIG11_HEAD, FIG11_ARGS, nooptim=OFF)
    assert backward(case.adjoint.text, "res = (tau - w(i, j))*g(i, j)*(z(j) - 2.0)/v(j)") == [
        "resb = 0.0d0",
        "resb = resb + v(j)*gb(i, j)",
        "vb(j) = vb(j) + res*gb(i, j)",
        "gb(i, j) = 0.0d0",
        "taub = taub + g(i, j)*((z(j) - 2.0)*(1.0d0/v(j)*resb))",
        "wb(i, j) = wb(i, j) - g(i, j)*((z(j) - 2.0)*(1.0d0/v(j)*resb))",
        "gb(i, j) = gb(i, j) + (tau - w(i, j))*((z(j) - 2.0)*(1.0d0/v(j)*resb))",
        "zb(j) = zb(j) + (tau - w(i, j))*g(i, j)*(1.0d0/v(j)*resb)",
        "vb(j) = vb(j) - (tau - w(i, j))*g(i, j)*(z(j) - 2.0)/v(j)*(1.0d0/v(j))*resb",
        "resb = 0.0d0"]


def test_fig11_split_and_merge_column():
    """The right column: resb's reset folded into its increment (resb = v(j)*gb(i, j)), the
    two increments of vb(j) gathered into one statement, gb(i, j)'s reset and increment one
    assignment, the adjoint of a sub-expression used by two leaves in a temporary (taub and
    wb(i, j) read the same tempb), a partial used twice in a temp, resb's last reset dropped
    (res is a local: its adjoint is dead at the exit). The numbers pass the dot-product test."""
    case = t.dot_product(FIG11, "fortran", FIG11_HEAD, FIG11_ARGS)
    assert backward(case.adjoint.text, "res = (tau - w(i, j))*g(i, j)*(z(j) - 2.0)/v(j)") == [
        "resb = v(j)*gb(i, j)",
        "temp = 1.0d0/v(j)",
        "temp = (tau - w(i, j))*g(i, j)",
        "vb(j) = vb(j) + res*gb(i, j) - temp*(z(j) - 2.0)/v(j)*temp*resb",
        "tempb = temp*resb",
        "tempb = (z(j) - 2.0)*tempb",
        "gb(i, j) = (tau - w(i, j))*tempb",
        "tempb = g(i, j)*tempb",
        "taub = taub + tempb",
        "wb(i, j) = wb(i, j) - tempb",
        "zb(j) = zb(j) + temp*tempb"]


@pytest.mark.parametrize("off", sorted(OFF))
def test_fig11_each_rewrite_has_its_switch(off):
    """-nooptim spareinit keeps the resets, mergediff the two vb(j) statements, splitdiff
    the repeated expressions."""
    text = t.dot_product(FIG11, "fortran", FIG11_HEAD, FIG11_ARGS, nooptim=frozenset({off})).adjoint.text
    assert ("gb(i, j) = 0.0d0" in text) == (off == "spareinit")
    assert (text.count("vb(j) = vb(j)") == 2) == (off == "mergediff")
    assert ("tempb" in text) == (off != "splitdiff")


def test_fig12_naive_column():
    """Fig. 12's naive column (-nooptim diffliveness -nooptim tbr): every assignment kept,
    every value it overwrites pushed and popped. Up to layout: cb = zb(n) comes before the pop
    of z(n) (they are independent), the sum of ab(n) is written the other way round, and x
    is an input only here (xb = ab(n))."""
    args = [t.real("a", (10,)), t.real("b", (10,)), t.real("x"), t.real("z", (10,)), t.real("c"),
            ("ind1", "int", (10,), list(range(1, 11))), ("ind2", "int", (10,), [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]),
            t.integer("i", 2)]
    case = t.dot_product(t.FIG12, "fortran", "fig12(a b z)/(a b x z)", args,
                         nooptim=frozenset({"diffliveness", "tbr"}))
    lines = [line.strip() for line in case.adjoint.text.splitlines()]
    assert lines[lines.index("call pushinteger4(n)"):lines.index("end subroutine fig12_b")] == [
        "call pushinteger4(n)", "n = ind1(i)",
        "call pushreal8(b(n))", "b(n) = sin(a(n)) - b(n)",
        "call pushreal8(a(n))", "a(n) = a(n) + x",
        "call pushreal8(c)", "c = a(n)*b(n)",
        "call pushreal8(a(n))", "a(n) = a(n)*a(n + 1)",
        "call pushinteger4(n)", "n = ind2(i + 2)",
        "call pushreal8(z(n))", "z(n) = z(n) + c",
        "cb = zb(n)",
        "call popreal8(z(n))",
        "call popinteger4(n)",
        "call popreal8(a(n))",
        "ab(n + 1) = ab(n + 1) + a(n)*ab(n)",
        "ab(n) = a(n + 1)*ab(n) + b(n)*cb",
        "call popreal8(c)",
        "bb(n) = bb(n) + a(n)*cb",
        "call popreal8(a(n))",
        "xb = ab(n)",
        "call popreal8(b(n))",
        "ab(n) = ab(n) + cos(a(n))*bb(n)",
        "bb(n) = -bb(n)",
        "call popinteger4(n)"]


# --- -nooptim variants -------------------------------------------------------------------------
VARIANTS = [frozenset({word}) for word in NOOPTIM] + [frozenset({"diffliveness", "tbr"}), OFF]
PROGRAMS = {
    "straight": (t.STRAIGHT, "fortran", "f(y)/(x z)", [t.real("x"), t.real("z"), t.real("y")]),
    "arrays": (t.ARRAYS, "fortran", "g(b s)/(a)", [t.real("a", (5,)), t.real("b", (5,)), t.integer("n", 5),
                                                    t.real("s")]),
    "iterative": (t.ITERATIVE, "fortran", "h(x y)/(x y)", [t.real("x"), t.real("y")]),
    "alias": (t.ALIAS, "fortran", "al(a)/(a)", [t.real("a", (3,)), t.integer("i", 2), t.integer("j", 2)]),
    "branches": (t.BRANCHES, "fortran", "br(y a)/(x y a)", [t.real("x"), t.real("y"), t.real("a", (6,)),
                                                            t.integer("n", 6)]),
    "loops": (t.LOOPS, "fortran", "lp(a b)/(a b)", [t.real("a", (7, 5)), t.real("b", (5,)), t.integer("m", 7),
                                                   t.integer("n", 5), t.integer("lo", 1), t.integer("hi", 5),
                                                   t.integer("st", 3)]),
    "fig7": (t.FIG7, "fortran", "fig7(c)/(a b c)", [t.real("a"), t.real("b", (1000,)), t.real("c"),
                                                    t.integer("n", 30), t.integer("m", 11)]),
    "fig11": (FIG11, "fortran", FIG11_HEAD, FIG11_ARGS),
    "function": (t.FUNCTION, "fortran", "fn(fn a)/(x a)", [t.real("x"), t.real("a", (4,)), t.integer("n", 4)]),
    "relax": (t.KERNEL, "fortran", "relax(u)/(u f)", [t.real("u", (8,)), t.real("f", (8,)), t.integer("n", 8),
                                                      t.integer("sweeps", 3)]),
    "select": (t.SELECT, "fortran", "sel(x y)/(x y)", [t.real("x"), t.real("y"),
                                                       ("ks", "int", (7,), [1, 4, 2, 6, 5, 3, 1]), t.integer("n", 7)]),
    "C function": (t.C_FUNCTION, "c", "f(f y)/(x z y)", [t.real("x"), t.real("z"), t.real("y", (7,)),
                                                         t.integer("n", 7)]),
    "C pointer input": (t.C_POINTER_INPUT, "c", "p(y)/(x)", [t.real("x", (2,)), t.real("y", (2,))]),
    "C declarations": (t.C_DECLARATIONS, "c", "d(y)/(x y)", [t.real("x"), t.real("y", (2,)), t.integer("n", 2)]),
    "C loops": (t.C_LOOP_DECLARATIONS, "c", "w(y)/(x y)", [t.real("x", (5,)), t.real("y", (5,)),
                                                          t.integer("n", 5)]),
}


def same_adjoint(case: AdjointCase, label: str, tolerance: float = 1e-12) -> None:
    """Every variant of VARIANTS passes the dot-product test with X̄ equal to the default's,
    or is refused with file:line (-nooptim tbr saves more: an array of a size not known at
    a call is refused where the default had nothing to save). tolerance: a float program's
    round-off is larger."""
    default = case.check()
    assert default.stack_state == 0 and default.error < tolerance, default.report()
    reference, _ = case.run_adjoint()
    for nooptim in VARIANTS:
        try:
            variant = case.variant(nooptim=nooptim)
            check = variant.check()
        except UnsupportedError as refusal:
            assert re.match(r"^\S+:\d+: adjoint mode does not support .* yet$", str(refusal)), str(refusal)
            continue
        assert check.stack_state == 0 and check.error < tolerance, f"{label} -nooptim {set(nooptim)}\n{check.report()}"
        xbar, _ = variant.run_adjoint()
        for name, value in reference.items():
            scale = max(float(np.max(np.abs(value), initial=0.0)), 1e-300)
            difference = float(np.max(np.abs(np.asarray(xbar[name]) - value), initial=0.0)) / scale
            assert difference < tolerance / 10, f"{label} -nooptim {set(nooptim)}: {name}b differs by {difference:.3g}"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_nooptim_variants_give_the_same_adjoint(name):
    source, lang, head, args = PROGRAMS[name]
    same_adjoint(AdjointCase(source, lang, head, args), name)


@pytest.mark.parametrize("name, head, args", corpus.FORTRAN + corpus.C, ids=[c[0] for c in corpus.FORTRAN + corpus.C])
def test_nooptim_variants_on_the_corpus(name, head, args):
    lang = "c" if name.endswith(".c") else "fortran"
    text = corpus_source(name) if lang == "c" else (T.HERE / name).read_text()
    try:
        case = AdjointCase(text, lang, head, args, filename=name)
    except UnsupportedError:
        pytest.skip("refused by adjoint mode (tests/test_adjoint_corpus.py checks the refusal)")
    same_adjoint(case, name, SINGLE_PRECISION[name][1] if name in SINGLE_PRECISION else 1e-12)


def test_a_variant_that_changes_the_numbers_is_caught(monkeypatch):
    """The comparison can fail: a variant whose merge drops an increment differs."""
    from adspec.rules.adjoint import merge
    source, lang, head, args = PROGRAMS["fig11"]
    case = AdjointCase(source, lang, head, args)
    monkeypatch.setattr(merge, "_combined", lambda first, sign, term: first)
    with pytest.raises(AssertionError):
        same_adjoint(case, "fig11")
