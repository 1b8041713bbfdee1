"""The derivative table: one entry per intrinsic or operator family, one partial per argument.

Models: Enzyme's InstructionDerivatives.td (one entry for a family of names, a partial per
argument, inactive arguments marked) and JAX's defjvp (a missing rule is an error naming the
primitive). The tangent and the adjoint expression rules both read this table; nothing else in
adspec knows a derivative.

Each entry `D(...)` gives
- the family: IL operators (`ops`), Fortran names (generic and specific: sin, dsin, ...) and
  C names (double and float forms: sin, sinf);
- the argument names (`args`; a last name written `x...` is variadic: max(a, b, c));
- `partials(L, *args)`: one IL expression per argument, built from the argument IL nodes
  themselves (so their free variables are the operands the derivative reads). `L` spells
  language-dependent pieces: the C float form of a function (`cosf`), real constants of the
  right kind, a two-way choice (C `c ? a : b`, Fortran `merge(a, b, c)`);
- `inactive`: arguments through which no derivative flows (sign's second argument, the
  rounding functions' argument, kind= and mask arguments). Their partial is None;
- `nondiff`: an IL boolean that is true at the non-differentiable points of the arguments, and
  `nondiff_doc` saying the same in words (for the warning of a later pass);
- `linear`: the derivative is the same operation applied to the derivatives (+, -, real, sum).

Layering: this module depends only on engine.il and engine.errors. The engine's own view of
differentiability (`engine.intrinsics.differentiable_args`, read by zones.diff_reads) and the
analyses' partial-derivative reads (analyses/derivative_uses.py) are derived from this table;
`engine.intrinsics` loads it on first use (a function-level import), so importing the engine
never loads the rules and the table stays the one source of truth.

Decisions (the maths):
- mod(a, p) = a - aint(a/p)*p: d/dp = -aint(a/p), not zero almost everywhere, so p is ACTIVE.
  modulo(a, p) = a - floor(a/p)*p likewise, with floor. Both jump where a/p is an integer.
- sign(a, b) = |a| * (sign of b): d/da = sign(1,a)*sign(1,b); b only chooses the sign, so it is
  INACTIVE (the jump at b = 0 carries no derivative).
- max/min pick one argument: its partial is 1, the others' 0; at a tie the first one wins.
- x**n with an integer literal n: d/dx = n*x**(n-1) and n is inactive; x**y otherwise:
  d/dx = y*x**(y-1), d/dy = x**y*log(x) (needs x > 0).
- Intrinsics of `NOT_DIFFERENTIABLE` have integer, logical or character values, or inspect a
  variable (inquiry): no entry, no derivative. `NOT_TABULATED` lists the real intrinsics that
  the front ends know and that have no entry yet: differentiating them is an UnsupportedError.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Callable

from ..engine.errors import UnsupportedError
from ..engine.il import Node, mk

__all__ = ["D", "Derivative", "DERIVATIVES", "derivative", "require_derivative", "differentiable_args",
           "non_differentiable", "LINEAR_INTRINSICS", "PARTIALLY_DIFFERENTIABLE", "NOT_DIFFERENTIABLE",
           "NOT_TABULATED", "LinearOnly", "show"]


def _lang_key(lang: str) -> str:
    return "c" if lang in ("c", "cuda") else "fortran"


class L:
    """Language-dependent spelling of the pieces of a partial derivative."""

    def __init__(self, lang: str, kind: int | None):
        self.c = _lang_key(lang) == "c"
        self.kind = kind or 8

    def f(self, base: str, *args: Node) -> Node:
        """The intrinsic `base` in this language and precision (C float: cosf)."""
        name = base + "f" if self.c and self.kind == 4 else base
        return Node("intrinsic", (name, tuple(args)))

    def r(self, text: str) -> Node:
        return Node("realCst", (text, self.kind))

    @property
    def one(self) -> Node:
        return Node("realCst", ("1.0", self.kind))   # r("1.0"), one call less: the most built partial

    @cached_property
    def unit_partials(self) -> dict:
        """The constant partials of the linear operators (1 and -1), built once per language
        and kind, not at each of the thousands of sums: the rules only compare a partial with
        1 or take its sign (_scaled, _times), so these nodes are never placed in a program."""
        one, minus_one = self.one, neg(self.one)
        return {"add": (one, one), "sub": (one, minus_one), "neg": (minus_one,), "pos": (one,)}

    def choose(self, cond: Node, a: Node, b: Node) -> Node:
        """cond ? a : b (C) / merge(a, b, cond) (Fortran)."""
        return mk("ifExpr", cond, a, b) if self.c else mk("intrinsic", "merge", (a, b, cond))

    def sign1(self, x: Node) -> Node:
        """+1 or -1, the sign of x: C `x >= 0 ? 1 : -1`, Fortran sign(1.0, x)."""
        if self.c:
            return mk("ifExpr", mk("ge", x, self.r("0.0")), self.one, mk("neg", self.one))
        return mk("intrinsic", "sign", (self.one, x))

    def absval(self, x: Node) -> Node:
        return self.f("fabs", x) if self.c else mk("intrinsic", "abs", (x,))

    def trunc(self, x: Node) -> Node:
        """x rounded toward zero, as a real."""
        return self.f("trunc", x) if self.c else mk("intrinsic", "aint", (x,))

    def floor(self, x: Node) -> Node:
        return self.f("floor", x) if self.c else mk("intrinsic", "floor", (x,))


class LinearOnly:
    """Partials of a linear operation that are not scalar factors (conjg, aimag: not complex
    differentiable): its derivative is the operation itself applied to the derivatives."""


# ------------------------------------------------------------------------------------------------
# IL building helpers: short names so that each entry reads like its formula (the operators the
# rules ask for at every operation build their Node directly: mk checks the name first)
# ------------------------------------------------------------------------------------------------
def add(a, b): return Node("add", (a, b))       # noqa: E704
def sub(a, b): return Node("sub", (a, b))       # noqa: E704
def mul(a, b): return Node("mul", (a, b))       # noqa: E704
def div(a, b): return Node("div", (a, b))       # noqa: E704
def neg(a): return Node("neg", (a,))            # noqa: E704
def pw(a, b): return Node("power", (a, b))     # noqa: E704
def eq(a, b): return mk("eq", a, b)            # noqa: E704
def both(a, b): return mk("and", a, b)         # noqa: E704
def either(a, b): return mk("or", a, b)        # noqa: E704
def icst(n): return mk("intCst", n, None)      # noqa: E704


def square(L, x):
    """x**2 (Fortran) / x*x (C, which has no power operator)."""
    return mul(x, x) if L.c else pw(x, icst(2))


def _power_partial_base(L, x, y):
    """d(x**y)/dx: n*x**(n-1) folded for a literal n (2*x for n = 2), y*x**(y-1) otherwise."""
    if y.op == "intCst":
        n = y.kids[0]
        if n == 0:
            return L.r("0.0")
        if n == 1:
            return L.one
        if n == 2:
            return mul(L.r("2.0"), x)
        return mul(L.r(f"{n}.0"), pw(x, icst(n - 1)))
    if L.c:
        return mul(y, L.f("pow", x, sub(y, L.one)))
    return mul(y, pw(x, sub(y, L.one)))


def _power_partials(L, x, y, c_pow=False):
    """x**y (or C pow(x, y)): an integer literal exponent is inactive."""
    if y.op == "intCst":
        return (_power_partial_base(L, x, y), None)
    value = L.f("pow", x, y) if (L.c or c_pow) else pw(x, y)
    return (_power_partial_base(L, x, y), mul(value, L.f("log", x)))


def _power_nondiff(L, x, y):
    if y.op == "intCst":
        return eq(x, L.r("0.0")) if y.kids[0] < 0 else None
    return mk("le", x, L.r("0.0"))


def _select(L, xs, i, greater):
    """The condition under which max (greater="ge"/"gt") picks xs[i]: at least every later
    argument and more than every earlier one (the first of a tie wins)."""
    strict = "gt" if greater == "ge" else "lt"
    cond = None
    for j, other in enumerate(xs):
        if j != i:
            c = mk(strict if j < i else greater, xs[i], other)
            cond = c if cond is None else both(cond, c)
    return cond


def _extreme_partials(greater):
    def partials(L, *xs):
        if len(xs) == 1:
            return (L.one,)
        return tuple(L.choose(_select(L, xs, i, greater), L.one, L.r("0.0")) for i in range(len(xs)))
    return partials


def _extreme_nondiff(fname):
    def nondiff(L, *xs):
        if len(xs) == 2:
            return eq(xs[0], xs[1])
        cond = None
        extreme = mk("intrinsic", ("f" + fname) if L.c else fname, tuple(xs))
        for i in range(len(xs)):
            for j in range(i + 1, len(xs)):
                c = both(eq(xs[i], xs[j]), eq(xs[i], extreme))
                cond = c if cond is None else either(cond, c)
        return cond
    return nondiff


def _is_integer(L, x):
    """x is an integer value (x == aint(x))."""
    return eq(x, L.trunc(x))


# ------------------------------------------------------------------------------------------------
# The entries
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Derivative:
    name: str
    names: tuple           # the whole family: operators, Fortran names, C names
    ops: tuple
    fortran: tuple
    c: tuple
    args: tuple            # argument names; the last one variadic when `variadic`
    variadic: bool
    inactive: frozenset    # positions with no derivative
    build: Callable | type  # (L, *args) -> tuple of partials, or LinearOnly
    nondiff_build: Callable | None
    nondiff_doc: str
    linear: bool
    doc: str = ""
    all_inactive: bool = field(default=False)
    multilinear: bool = False   # linear in each argument apart: d f = Σ f(A1..Aid..An)
    reduction: bool = False     # an array reduction: d f = sum(P * Ad), P the elementwise partial
    shaped: frozenset = frozenset()  # linear arguments whose zero must keep their shape (0*pad)

    def active_positions(self, nargs: int) -> tuple:
        """Positions of the arguments (of a call with nargs arguments) that carry a derivative."""
        key = (self.name, nargs)
        known = _ACTIVE_POSITIONS.get(key)
        if known is None:
            n = len(self.args)
            known = _ACTIVE_POSITIONS[key] = tuple(i for i in range(nargs) if (i < n or self.variadic)
                                                   and min(i, n - 1) not in self.inactive)
        return known

    def dummy_order(self, args: tuple) -> tuple:
        """The argument nodes of a call (keyword arguments as namedArg) in the order of
        `self.args`, None for one left out (maxval(x, mask=m) -> (x, None, m))."""
        if self.variadic or not any(a.op == "namedArg" for a in args):
            return tuple(args)
        out = {i: a for i, a in enumerate(args) if a.op != "namedArg"}
        out.update({self.args.index(a.kids[0]): a.kids[1] for a in args
                    if a.op == "namedArg" and a.kids[0] in self.args})
        return tuple(out.get(i) for i in range(max(out) + 1))

    def partials(self, args: tuple, lang: str, kind: int | None = None) -> tuple:
        """One IL expression per argument: the partial derivative with respect to it, built
        from the argument nodes; None for an argument that carries no derivative."""
        args = tuple(args)
        if self.build is LinearOnly:
            raise UnsupportedError(f"{self.name} is linear but has no scalar partial derivative: "
                                   f"its derivative is {self.name} of the derivatives")
        nargs = len(args)
        active = self.active_positions(nargs)
        if not active:
            return (None,) * nargs
        n = len(self.args)
        built = tuple(self.build(_spelling(lang, kind), *(args if self.variadic else args[:n])))
        if len(built) == nargs and len(active) == nargs:   # every argument active: the operators
            return built
        built = (built + (None,) * nargs)[:nargs]
        return tuple(p if i in active else None for i, p in enumerate(built))

    def nondifferentiable(self, args: tuple, lang: str = "fortran", kind: int | None = None) -> Node | None:
        """An IL boolean true where the arguments sit at a non-differentiable point (None when
        the operation is differentiable everywhere in its domain)."""
        if self.nondiff_build is None:
            return None
        n = len(self.args)
        args = tuple(args)
        return self.nondiff_build(_spelling(lang, kind), *(args if self.variadic else args[:n]))


_ACTIVE_POSITIONS: dict = {}   # (entry name, number of arguments) -> Derivative.active_positions


@lru_cache(maxsize=None)
def _spelling(lang: str, kind: int | None) -> L:
    """The L of a language and kind (its pieces are built afresh at each use, but for the
    constant unit_partials)."""
    return L(lang, kind)


DERIVATIVES: list[Derivative] = []


def D(fortran=(), c=(), ops=(), args="x", partials=None, inactive="", nondiff=None, nondiff_doc="",
      linear=False, doc="", multilinear=False, reduction=False, shaped=""):
    """Declare one entry (see the module docstring)."""
    names = tuple(ops) + tuple(fortran) + tuple(n for n in c if n not in fortran)
    argnames = tuple(args.split())
    variadic = argnames[-1].endswith("...")
    argnames = tuple(a.rstrip(".") for a in argnames)
    inactive_pos = frozenset(argnames.index(a) for a in inactive.split())
    entry = Derivative(name=names[0], names=names, ops=tuple(ops), fortran=tuple(fortran), c=tuple(c),
                       args=argnames, variadic=variadic, inactive=inactive_pos, build=partials,
                       nondiff_build=nondiff, nondiff_doc=nondiff_doc or "none (differentiable in its domain)",
                       linear=linear, doc=doc,
                       all_inactive=len(inactive_pos) == len(argnames), multilinear=multilinear,
                       reduction=reduction, shaped=frozenset(argnames.index(a) for a in shaped.split()))
    DERIVATIVES.append(entry)
    return entry


def _c(*names):
    """A C double function and its float form: _c("sin") is (sin, sinf)."""
    return tuple(x for n in names for x in (n, n + "f"))


ZERO_DERIVATIVE = lambda L, *xs: (None,) * len(xs)  # noqa: E731

# --- IL operators --------------------------------------------------------------------------------
D(ops=("add",), args="a b", partials=lambda L, a, b: L.unit_partials["add"], linear=True)
D(ops=("sub",), args="a b", partials=lambda L, a, b: L.unit_partials["sub"], linear=True)
D(ops=("neg",), args="a", partials=lambda L, a: L.unit_partials["neg"], linear=True)
D(ops=("pos",), args="a", partials=lambda L, a: L.unit_partials["pos"], linear=True)
D(ops=("mul",), args="a b", partials=lambda L, a, b: (b, a))
# d(a/b)/db = -(a/b)*(1/b), not -(a/b)/b: the compiler computes a/b once for the partial and the
# value, and 1/b once for both partials, so the derivative costs one division more, not three
D(ops=("div",), args="a b", partials=lambda L, a, b: (div(L.one, b), neg(mul(div(a, b), div(L.one, b)))))
D(ops=("power",), args="x y", partials=lambda L, x, y: _power_partials(L, x, y),
  nondiff=_power_nondiff,
  nondiff_doc="x**n, integer literal n < 0: x = 0 (pole); x**y otherwise: x <= 0 (log x in d/dy)",
  doc="x**n with an integer literal n: n is inactive")
# --- elementary functions ------------------------------------------------------------------------
D(fortran=("sqrt", "dsqrt", "csqrt"), c=_c("sqrt"),
  partials=lambda L, x: (div(L.one, mul(L.r("2.0"), L.f("sqrt", x))),),
  nondiff=lambda L, x: eq(x, L.r("0.0")), nondiff_doc="x = 0 (infinite slope)")
D(c=_c("cbrt"),
  partials=lambda L, x: (div(L.one, mul(L.r("3.0"), square(L, L.f("cbrt", x)))),),
  nondiff=lambda L, x: eq(x, L.r("0.0")), nondiff_doc="x = 0 (infinite slope)")
D(fortran=("exp", "dexp", "cexp"), c=_c("exp"), partials=lambda L, x: (L.f("exp", x),))
D(c=_c("expm1"), partials=lambda L, x: (L.f("exp", x),))
D(fortran=("log", "dlog", "clog", "alog"), c=_c("log"), partials=lambda L, x: (div(L.one, x),))
D(c=_c("log1p"), partials=lambda L, x: (div(L.one, add(L.one, x)),))
D(fortran=("log10", "dlog10", "alog10"), c=_c("log10"),
  partials=lambda L, x: (div(L.one, mul(x, L.f("log", L.r("10.0")))),))
D(fortran=("sin", "dsin", "csin"), c=_c("sin"), partials=lambda L, x: (L.f("cos", x),))
D(fortran=("cos", "dcos", "ccos"), c=_c("cos"), partials=lambda L, x: (neg(L.f("sin", x)),))
D(fortran=("tan", "dtan"), c=_c("tan"), partials=lambda L, x: (add(L.one, square(L, L.f("tan", x))),))
D(fortran=("asin", "dasin"), c=_c("asin"),
  partials=lambda L, x: (div(L.one, L.f("sqrt", sub(L.one, square(L, x)))),),
  nondiff=lambda L, x: eq(L.absval(x), L.one), nondiff_doc="|x| = 1 (infinite slope)")
D(fortran=("acos", "dacos"), c=_c("acos"),
  partials=lambda L, x: (neg(div(L.one, L.f("sqrt", sub(L.one, square(L, x))))),),
  nondiff=lambda L, x: eq(L.absval(x), L.one), nondiff_doc="|x| = 1 (infinite slope)")
D(fortran=("atan", "datan"), c=_c("atan"), partials=lambda L, x: (div(L.one, add(L.one, square(L, x))),))
D(fortran=("atan2", "datan2"), c=_c("atan2"), args="y x",
  partials=lambda L, y, x: (div(x, add(square(L, x), square(L, y))), neg(div(y, add(square(L, x), square(L, y))))),
  nondiff=lambda L, y, x: both(eq(y, L.r("0.0")), mk("le", x, L.r("0.0"))),
  nondiff_doc="y = 0 and x <= 0 (the origin, and the jump from pi to -pi)")
D(fortran=("sinh", "dsinh"), c=_c("sinh"), partials=lambda L, x: (L.f("cosh", x),))
D(fortran=("cosh", "dcosh"), c=_c("cosh"), partials=lambda L, x: (L.f("sinh", x),))
D(fortran=("tanh", "dtanh"), c=_c("tanh"), partials=lambda L, x: (sub(L.one, square(L, L.f("tanh", x))),))
D(c=_c("erf"), partials=lambda L, x: (mul(L.r("1.1283791670955126"), L.f("exp", neg(square(L, x)))),),
  doc="2/sqrt(pi) exp(-x**2)")
D(c=_c("erfc"), partials=lambda L, x: (neg(mul(L.r("1.1283791670955126"), L.f("exp", neg(square(L, x))))),))
D(c=_c("exp2"), partials=lambda L, x: (mul(L.f("exp2", x), L.f("log", L.r("2.0"))),))
D(c=_c("log2"), partials=lambda L, x: (div(L.one, mul(x, L.f("log", L.r("2.0")))),))
D(c=_c("asinh"), partials=lambda L, x: (div(L.one, L.f("sqrt", add(square(L, x), L.one))),))
D(c=_c("acosh"), partials=lambda L, x: (div(L.one, L.f("sqrt", sub(square(L, x), L.one))),),
  nondiff=lambda L, x: eq(x, L.one), nondiff_doc="x = 1 (infinite slope)")
D(c=_c("atanh"), partials=lambda L, x: (div(L.one, sub(L.one, square(L, x))),))
D(fortran=("hypot",), c=_c("hypot"), args="x y",
  partials=lambda L, x, y: (div(x, L.f("hypot", x, y)), div(y, L.f("hypot", x, y))),
  nondiff=lambda L, x, y: both(eq(x, L.r("0.0")), eq(y, L.r("0.0"))), nondiff_doc="x = y = 0")
D(c=_c("pow"), args="x y", partials=lambda L, x, y: _power_partials(L, x, y, c_pow=True),
  nondiff=lambda L, x, y: mk("le", x, L.r("0.0")), nondiff_doc="x <= 0 (log x in d/dy)")
# --- piecewise functions -------------------------------------------------------------------------
D(fortran=("abs", "dabs"), c=_c("fabs"), partials=lambda L, x: (L.sign1(x),),
  nondiff=lambda L, x: eq(x, L.r("0.0")), nondiff_doc="x = 0")
D(fortran=("sign", "dsign"), c=_c("copysign"), args="a b", inactive="b",
  partials=lambda L, a, b: (mul(L.sign1(a), L.sign1(b)), None),
  nondiff=lambda L, a, b: eq(a, L.r("0.0")),
  nondiff_doc="a = 0 (|a|); b only chooses the sign: no derivative flows through b")
D(fortran=("max", "amax1", "dmax1"), c=_c("fmax"), args="a...", partials=_extreme_partials("ge"),
  nondiff=_extreme_nondiff("max"), nondiff_doc="a tie: two arguments equal to the maximum")
D(fortran=("min", "amin1", "dmin1"), c=_c("fmin"), args="a...", partials=_extreme_partials("le"),
  nondiff=_extreme_nondiff("min"), nondiff_doc="a tie: two arguments equal to the minimum")
D(fortran=("mod", "amod", "dmod"), c=_c("fmod"), args="a p",
  partials=lambda L, a, p: (L.one, neg(L.trunc(div(a, p)))),
  nondiff=lambda L, a, p: _is_integer(L, div(a, p)), nondiff_doc="a/p an integer (a jump of p)")
D(fortran=("modulo",), args="a p",
  partials=lambda L, a, p: (L.one, neg(L.floor(div(a, p)))),
  nondiff=lambda L, a, p: eq(div(a, p), L.floor(div(a, p))), nondiff_doc="a/p an integer (a jump of p)")
D(fortran=("dim",), args="x y",
  partials=lambda L, x, y: (L.choose(mk("gt", x, y), L.one, L.r("0.0")),
                            L.choose(mk("gt", x, y), neg(L.one), L.r("0.0"))),
  nondiff=lambda L, x, y: eq(x, y), nondiff_doc="x = y (the kink of max(x - y, 0))")
# --- conversions -----------------------------------------------------------------------------------
D(fortran=("int", "ifix", "idint", "aint", "dint"), c=_c("trunc"), args="a kind", inactive="a kind",
  partials=ZERO_DERIVATIVE, nondiff=lambda L, a, *k: both(_is_integer(L, a), mk("ne", a, L.r("0.0"))),
  nondiff_doc="a a non-zero integer (a jump)", doc="rounding toward zero: zero derivative")
D(fortran=("nint", "idnint", "anint", "dnint"), c=_c("round"), args="a kind", inactive="a kind",
  partials=ZERO_DERIVATIVE, nondiff=lambda L, a, *k: eq(L.absval(sub(a, L.trunc(a))), L.r("0.5")),
  nondiff_doc="a half-integer (a jump)", doc="rounding to nearest: zero derivative")
D(fortran=("floor",), c=_c("floor"), args="a kind", inactive="a kind", partials=ZERO_DERIVATIVE,
  nondiff=lambda L, a, *k: eq(a, L.floor(a)), nondiff_doc="a an integer (a jump)")
D(fortran=("ceiling",), c=_c("ceil"), args="a kind", inactive="a kind", partials=ZERO_DERIVATIVE,
  nondiff=lambda L, a, *k: eq(a, L.f("ceil", a) if L.c else mk("intrinsic", "ceiling", (a,))),
  nondiff_doc="a an integer (a jump)")
D(fortran=("real", "float", "sngl", "dble", "dfloat"), args="a kind", inactive="kind",
  partials=lambda L, a, *k: (L.one, None), linear=True,
  doc="real(z) of a complex z takes the real part: the same operation on the derivative")
# --- complex and array operations that are linear ----------------------------------------------
D(fortran=("cmplx", "dcmplx"), args="x y kind", inactive="kind",
  partials=lambda L, x, y=None, *k: (L.one, mk("complexCst", L.r("0.0"), L.one)), linear=True)
D(fortran=("aimag", "dimag"), args="z", partials=LinearOnly, linear=True,
  doc="not complex-differentiable: the derivative is aimag(zd)")
D(fortran=("conjg", "dconjg"), args="z", partials=LinearOnly, linear=True,
  doc="not complex-differentiable: the derivative is conjg(zd)")
D(fortran=("sum",), args="array dim mask", inactive="dim mask",
  partials=lambda L, a, *rest: (L.one, None, None), linear=True,
  doc="elementwise partial 1: the derivative is sum of the derivatives, with the same dim and mask")
D(fortran=("transpose",), args="matrix", partials=lambda L, m: (L.one,), linear=True,
  doc="the derivative is transpose of the derivative")
D(fortran=("merge",), args="tsource fsource mask", inactive="mask",
  partials=lambda L, t, f, m: (L.choose(m, L.one, L.r("0.0")), L.choose(m, L.r("0.0"), L.one), None),
  linear=True, doc="the derivative is merge(td, fd, mask)")
# --- array operations: data movement (linear), products (linear in each argument apart) ------------
D(fortran=("reshape",), args="source shape pad order", inactive="shape order", shaped="pad",
  partials=lambda L, s, *r: (L.one, None, L.one, None), linear=True,
  doc="the derivative is reshape of the derivatives (a passive pad: 0*pad, zeros of its shape)")
D(fortran=("spread",), args="source dim ncopies", inactive="dim ncopies",
  partials=lambda L, s, *r: (L.one, None, None), linear=True)
D(fortran=("pack",), args="array mask vector", inactive="mask", shaped="vector",
  partials=lambda L, a, *r: (L.one, None, L.one), linear=True)
D(fortran=("cshift",), args="array shift dim", inactive="shift dim",
  partials=lambda L, a, *r: (L.one, None, None), linear=True)
D(fortran=("eoshift",), args="array shift boundary dim", inactive="shift dim",
  partials=lambda L, a, *r: (L.one, None, L.one, None), linear=True,
  doc="the derivative is eoshift of the derivatives, with the derivative of the boundary (0 by default)")
D(fortran=("dot_product",), args="vector_a vector_b", partials=lambda L, a, b: (b, a), multilinear=True,
  doc="product rule: dot_product(ad, b) + dot_product(a, bd)")
D(fortran=("matmul",), args="matrix_a matrix_b", partials=lambda L, a, b: (b, a), multilinear=True,
  doc="product rule: matmul(ad, b) + matmul(a, bd)")
# --- array reductions: d f(a) = sum(P * ad), P an array of a's shape (rank 1, no dim) -------------


def _all_true(a):
    """An array of .true. of a's shape, built without an index variable."""
    return mk("intrinsic", "spread", (mk("boolCst", True), icst(1), mk("intrinsic", "size", (a,))))


def _first_extreme(L, a, loc, mask=None):
    """1 at the first maximum (maxloc) or minimum of a, 0 elsewhere (rank 1): with k its position,
    the elements at or after k (eoshift by 1-k) and at or before k (eoshift by size-k). Under a
    mask, the first extreme of the masked elements (none: k = 0, all 0)."""
    k = mk("intrinsic", loc, (a, icst(1)) + ((mk("namedArg", "mask", mask),) if mask is not None else ()))
    false = mk("boolCst", False)
    at_or_after = mk("intrinsic", "eoshift", (_all_true(a), sub(icst(1), k), false))
    at_or_before = mk("intrinsic", "eoshift", (_all_true(a), sub(mk("intrinsic", "size", (a,)), k), false))
    return mk("intrinsic", "merge", (L.one, L.r("0.0"), both(at_or_after, at_or_before)))


def _tie(fname):
    def tie(L, a, dim=None, mask=None):
        if mask is None:
            return mk("gt", mk("intrinsic", "count", (eq(a, mk("intrinsic", fname, (a,))),)), icst(1))
        extreme = mk("intrinsic", fname, (a, mk("namedArg", "mask", mask)))
        return mk("gt", mk("intrinsic", "count", (both(eq(a, extreme), mask),)), icst(1))
    return tie


def _others_product(L, a, dim=None, mask=None):
    """Element i: the product of the other elements of a (rank 1), no division: the rows of
    spread(a, 1, n), whose diagonal is replaced by 1 (an identity mask from reshape's pad:
    .true., then n .false. and .true. repeated). Under a mask, the other masked elements, and 0
    for an element outside the mask."""
    n = mk("intrinsic", "size", (a,))
    rows = mk("intrinsic", "spread", (a, icst(1), n))
    pad = mk("arrayConstructor", (mk("intrinsic", "spread", (mk("boolCst", False), icst(1), n)), mk("boolCst", True)))
    ones = mk("intrinsic", "reshape", (mk("arrayConstructor", (mk("boolCst", True),)),
                                       mk("arrayConstructor", (n, n)), mk("namedArg", "pad", pad)))
    if mask is not None:
        ones = either(ones, mk("not", mk("intrinsic", "spread", (mask, icst(1), n))))
    others = mk("intrinsic", "product", (mk("intrinsic", "merge", (L.one, rows, ones)), icst(2)))
    return others if mask is None else mk("intrinsic", "merge", (others, L.r("0.0"), mask))


D(fortran=("maxval",), args="array dim mask", inactive="dim mask", reduction=True,
  partials=lambda L, a, dim=None, mask=None: (_first_extreme(L, a, "maxloc", mask), None, None),
  nondiff=_tie("maxval"), nondiff_doc="a tie: two elements equal to the maximum (the first one's derivative)",
  doc="the derivative of the first maximum")
D(fortran=("minval",), args="array dim mask", inactive="dim mask", reduction=True,
  partials=lambda L, a, dim=None, mask=None: (_first_extreme(L, a, "minloc", mask), None, None),
  nondiff=_tie("minval"), nondiff_doc="a tie: two elements equal to the minimum (the first one's derivative)",
  doc="the derivative of the first minimum")
D(fortran=("product",), args="array dim mask", inactive="dim mask", reduction=True,
  partials=lambda L, a, dim=None, mask=None: (_others_product(L, a, dim, mask), None, None),
  doc="element i: the product of the others (no division: right at zeros)")
D(fortran=("norm2",), args="x dim", inactive="dim", reduction=True,
  partials=lambda L, x, *r: (div(x, mk("intrinsic", "norm2", (x,))), None),
  nondiff=lambda L, x, *r: eq(mk("intrinsic", "norm2", (x,)), L.r("0.0")), nondiff_doc="x = 0 (the cone's tip)")

# Intrinsics with no real derivative at all: integer, logical or character values, inquiries,
# library calls without a value. No entry: differentiable_args gives ().
NOT_DIFFERENTIABLE = {
    "fortran": frozenset("""
        iabs isign max0 min0 size shape lbound ubound maxloc minloc count any all
        len len_trim trim adjustl char ichar present associated allocated null huge tiny epsilon kind
        """.split()),
    "c": frozenset("abs labs printf malloc free __syncthreads".split()),
}
# Real intrinsics the front ends know that have no entry yet: analyses treat every argument as
# differentiable (the safe choice); differentiating one is an UnsupportedError.
NOT_TABULATED = {
    "fortran": frozenset("cabs".split()),
    "c": frozenset("atomicAdd".split()),
}

_BY_NAME: dict[str, dict[str, Derivative]] = {"fortran": {}, "c": {}}
for _entry in DERIVATIVES:
    for _lang, _names in (("fortran", _entry.ops + _entry.fortran), ("c", _entry.ops + _entry.c)):
        for _n in _names:
            assert _n not in _BY_NAME[_lang], f"{_n} has two entries"
            _BY_NAME[_lang][_n] = _entry


def derivative(name_or_op: str, lang: str) -> Derivative | None:
    """The entry of an intrinsic name or IL operator in language `lang` (None: no entry)."""
    try:   # the rules ask at every operation of every expression
        return _LOOKED_UP[name_or_op, lang]
    except KeyError:
        pass
    key = _lang_key(lang)
    entry = _LOOKED_UP[name_or_op, lang] = _BY_NAME[key].get(name_or_op.lower() if key == "fortran" else name_or_op)
    return entry


_LOOKED_UP: dict = {}   # (name or operator, language) -> derivative(name, language)


def require_derivative(name: str, lang: str, node: Node | None = None, filename: str = "<input>") -> Derivative:
    """The entry of `name`, or an UnsupportedError at the node's file:line: never a default."""
    entry = derivative(name, lang)
    if entry is None:
        key = _lang_key(lang)
        why = ("is not differentiable (integer, logical, character or inquiry value)"
               if name in NOT_DIFFERENTIABLE[key] else "has no entry in the derivative table")
        raise UnsupportedError(f"intrinsic {name} {why}: cannot differentiate it", filename,
                               node.line if node is not None else None)
    return entry


# ------------------------------------------------------------------------------------------------
# Views derived from the table (engine.intrinsics and analyses read these)
# ------------------------------------------------------------------------------------------------
def non_differentiable(name: str, lang: str) -> bool:
    """True when no argument of intrinsic `name` carries a derivative into its value."""
    entry = derivative(name, lang)
    if entry is not None:
        return entry.all_inactive
    return name in NOT_DIFFERENTIABLE[_lang_key(lang)]


@lru_cache(maxsize=None)
def differentiable_args(name: str, nargs: int, lang: str) -> tuple:
    """Positions of the arguments of intrinsic `name` through which its value is differentiable.
    Names with no entry: () when listed NOT_DIFFERENTIABLE, else every argument (the safe choice)."""
    entry = derivative(name, lang)
    if entry is not None:
        return entry.active_positions(nargs)
    if name in NOT_DIFFERENTIABLE[_lang_key(lang)]:
        return ()
    return tuple(range(nargs))


LINEAR_INTRINSICS = frozenset(n for e in DERIVATIVES if e.linear for n in e.fortran + e.c)
PARTIALLY_DIFFERENTIABLE = {
    lang: {n: tuple(i for i in range(len(e.args)) if i not in e.inactive)
           for e in DERIVATIVES if e.inactive and not e.all_inactive and not e.ops
           for n in (e.fortran if lang == "fortran" else e.c)}
    for lang in ("fortran", "c")
}


# ------------------------------------------------------------------------------------------------
# A readable infix rendering of partials (docs/derivatives.md)
# ------------------------------------------------------------------------------------------------
_INFIX = {"add": ("+", 1), "sub": ("-", 1), "mul": ("*", 2), "div": ("/", 2), "power": ("**", 4),
          "eq": ("==", 0), "ne": ("!=", 0), "lt": ("<", 0), "le": ("<=", 0), "gt": (">", 0), "ge": (">=", 0),
          "and": ("and", -1), "or": ("or", -2)}


def show(e, prec: int = -3) -> str:
    """Infix text of a partial-derivative expression."""
    if e is None:
        return "inactive"
    op = e.op
    if op == "ident":
        return e.kids[0]
    if op == "realCst":
        return e.kids[0]
    if op == "intCst":
        return str(e.kids[0])
    if op == "complexCst":
        return f"({show(e.kids[0])}, {show(e.kids[1])})"
    if op == "boolCst":
        return ".true." if e.kids[0] else ".false."
    if op == "arrayConstructor":
        return f"[{', '.join(show(a) for a in e.kids[0])}]"
    if op == "namedArg":
        return f"{e.kids[0]}={show(e.kids[1])}"
    if op == "not":
        return f"not {show(e.kids[0], 3)}"
    if op == "neg":
        text = "-" + show(e.kids[0], 3)
        return f"({text})" if prec >= 1 else text
    if op == "intrinsic":
        return f"{e.kids[0]}({', '.join(show(a) for a in e.kids[1])})"
    if op == "ifExpr":
        text = f"{show(e.kids[0], 0)} ? {show(e.kids[1], 0)} : {show(e.kids[2], 0)}"
        return f"({text})" if prec > -3 else text
    sym, p = _INFIX[op]
    left_p = p + 1 if op == "power" or p == 0 else p
    right_p = p + 1 if op in ("sub", "div") or p == 0 else p
    text = f"{show(e.kids[0], left_p)} {sym} {show(e.kids[1], right_p)}"
    return f"({text})" if p < prec else text
