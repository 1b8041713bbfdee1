"""Hand-built IL for the Fortran constructs (SELECT CASE, WHERE, FORALL, implied DO, DATA,
INTERFACE, USE renames, keyword and OPTIONAL arguments, I/O statements), shared by the back-end,
interpreter and analysis tests."""
from __future__ import annotations

from adspec.engine.il import mk


def I(name):
    return mk("ident", name)


def C(v):
    return mk("intCst", v, None)


def R(text, kind=8):
    return mk("realCst", text, kind)


def S(text):
    return mk("stringCst", text)


def T(base, kind=None, length=None):
    return mk("type", base, kind, length)


R8, R4, I4 = T("real", 8), T("real", 4), T("integer", 4)


def A(name, *idx):
    return mk("arrayAccess", I(name), idx)


def dim(hi, lo=None):
    return mk("dim", lo, hi)


def var(typ, *names, attrs=()):
    """varDecl; each name is 'x', ('x', dims) or ('x', dims, init)."""
    decls = []
    for n in names:
        n = (n,) if isinstance(n, str) else n
        decls.append(mk("declarator", n[0], n[1] if len(n) > 1 else None, n[2] if len(n) > 2 else None, 0))
    return mk("varDecl", typ, tuple(attrs), tuple(decls))


def blk(*stmts):
    return mk("block", *stmts)


def asg(lhs, rhs):
    return mk("assign", lhs, rhs)


def op(name, a, b):
    return mk(name, a, b)


def call(name, *args):
    return mk("call", name, args)


def named(name, value):
    return mk("namedArg", name, value)


def present(name):
    return mk("intrinsic", "present", (I(name),))


def sub(name, params, decls, *body, contains=()):
    return mk("procedure", name, "subroutine", tuple(params), None, None, (), tuple(decls), blk(*body),
              tuple(contains))


def func(name, params, typ, decls, *body):
    return mk("procedure", name, "function", tuple(params), None, typ, (), tuple(decls), blk(*body), ())


def iface_body(name, params, decls, kind="subroutine", typ=None):
    """An interface body: a procedure with no body."""
    return mk("procedure", name, kind, tuple(params), None, typ, (), tuple(decls), None, ())


def module(name, decls, *contains):
    return mk("module", name, tuple(decls), tuple(contains))


def ffile(*units, form="free"):
    return mk("file", *units, lang="fortran", form=form)


# --- the constructs -------------------------------------------------------------------------
def select(selector, *cases):
    """SELECT CASE: each case is (values, block); values () is CASE DEFAULT."""
    return mk("switch", selector, tuple(mk("case", tuple(v), b) for v, b in cases), False)


def crange(lo, hi):
    return mk("caseRange", lo, hi)


def where(mask, then, els=None):
    return mk("where", mask, then, els)


def rng(v, lo, hi, step=None):
    """A FORALL range (an impliedDo with no items)."""
    return mk("impliedDo", (), I(v), lo, hi, step)


def forall(ranges, body, mask=None):
    return mk("forall", tuple(ranges), mask, body)


def implied(items, v, lo, hi, step=None):
    return mk("impliedDo", tuple(items), I(v), lo, hi, step)


def data(objects, values):
    return mk("data", tuple(objects), tuple(values))


def rep(count, value):
    return mk("dataRepeat", C(count), value)


def use(module_name, only=None, **renames):
    """USE module [, ONLY: only], renames local=remote."""
    return mk("use", module_name, None if only is None else tuple(only),
              *(mk("rename", local, remote) for local, remote in renames.items()))


def interface(name=None, names=(), procs=()):
    return mk("interface", name, tuple(names), tuple(procs))


def io(kind, control, *items, label=None):
    return mk("io", kind, control, tuple(items), label=label)
