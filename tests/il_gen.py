"""Hypothesis strategies that build random IL programs directly (not source text).

Each program is a `file` with one head procedure over two real arrays x, y of size N, a
real scalar s and an integer k, in Fortran or C. Bodies mix straight-line assignments,
nested if/else and loops, array accesses with computed indices, integer arithmetic and
intrinsic calls; Fortran bodies jump too (`jumps`): GOTOs, computed GOTOs and arithmetic
IFs forward over active statements to labelled active assignments (from the same block or
out of nested ifs and loops), and backward GOTOs counted by b so that they end. Real values stay bounded (intrinsics are contractive, divisions are by
1 + e*e) so that compiled code and the interpreter can be compared to round-off.
"""
from __future__ import annotations

import os

from hypothesis import strategies as st

from adspec.engine.il import mk

N = 4


def examples(n: int) -> int:
    """Number of hypothesis examples: n, times ADSPEC_HYPOTHESIS_SCALE for stress runs."""
    return n * int(os.environ.get("ADSPEC_HYPOTHESIS_SCALE", "1"))


SPEC = {
    "fortran": f"head(x:r8[{N}], y:r8[{N}], s:r8, k:i4=3)",
    "c": f"head(x:r8[{N}], y:r8[{N}], s:r8*, k:i4=3)",
}
LOOP_VARS = ("i", "j", "l")
INT_LOCALS = ("m",) + LOOP_VARS + ("w", "b")   # w counts the trips of while loops, b of backward GOTOs
JUMP_OPS = ("goto", "computedGoto", "arithmeticIf")
BACKWARD_TRIPS = 3
REAL_CONSTANTS = ("0.5", "1.5", "2.0", "0.25", "3.0", "0.125")
UNARY_INTRINSICS = {"fortran": ("sin", "cos", "tanh", "atan", "abs"),
                    "c": ("sin", "cos", "tanh", "atan", "fabs")}
BINARY_INTRINSICS = {"fortran": ("min", "max"), "c": ("fmin", "fmax")}


# Helper procedures the random heads call: a function (called inside expressions, its actual
# argument an expression passed as a temporary) and a subroutine updating an array argument.
HELPERS_SOURCE = {
    "fortran": """real(8) function f(v)
   real(8) :: v
   f = sin(v)*0.5d0
end function f

subroutine g(a, v)
   real(8) :: a(4), v
   a(2) = a(2) + sin(v)
end subroutine g
""",
    "c": """double f(double v) {
    return sin(v) * 0.5;
}

void g(double *a, double v) {
    a[1] = a[1] + sin(v);
}
""",
}
_helpers_cache: dict = {}


def helpers(lang, sources=None):
    """The helper procedures (HELPERS_SOURCE or `sources`) as IL, parsed by the front end (so
    that they round-trip as such)."""
    text = (sources or HELPERS_SOURCE)[lang]
    if text not in _helpers_cache:
        import adspec
        _helpers_cache[text] = adspec.parse(text, lang=lang).units
    return _helpers_cache[text]


def ident(name):
    return mk("ident", name)


def int_cst(v):
    return mk("intCst", v, None)


def real_cst(text):
    return mk("realCst", text, 8)


class _Gen:
    """Draws one program; `lang` decides indexing base, loop form and intrinsic names."""

    def __init__(self, draw, lang, structured=False, calls=None, exits=False):
        self.draw = draw
        self.lang = lang
        self.structured = structured  # no jumps, WHILE loops nor calls
        self.calls = not structured if calls is None else calls  # calls of f and g
        self.exits = exits  # EXIT/CYCLE (break/continue) under an IF in DO and for loops
        self.labels = 0      # labels drawn so far (each is unique in the file)
        self.ahead = []      # labels of enclosing or current blocks not reached yet: forward GOTO targets

    # --- integer expressions -------------------------------------------------------
    def int_expr(self, loop_vars, depth=0):
        d = self.draw
        choice = d(st.integers(0, 4 if depth < 2 else 1))
        if choice == 0:
            return int_cst(d(st.integers(0, 9)))
        if choice == 1:
            return ident(d(st.sampled_from(("k", "m") + tuple(loop_vars))))
        op = ("add", "sub", "mul")[choice - 2]
        return mk(op, self.int_expr(loop_vars, depth + 1), self.int_expr(loop_vars, depth + 1))

    def index(self, loop_vars):
        """An index that is always in bounds: a constant, a loop variable, or a mod."""
        d = self.draw
        base = 1 if self.lang == "fortran" else 0
        choice = d(st.integers(0, 2))
        if choice == 0:
            return int_cst(d(st.integers(base, base + N - 1)))
        indices = [v for v in loop_vars if v in LOOP_VARS]  # DO/for indices span the bounds; w does not
        if choice == 1 and indices:
            return ident(d(st.sampled_from(indices)))
        # leaves are >= -6 (m is kept in -6..6 by its assignments), so adding 14 keeps the
        # operand of mod non-negative and the index in bounds
        leaf = lambda: self.int_expr(loop_vars, 2)  # noqa: E731
        e = mk("add", mk("add", leaf(), leaf()), int_cst(14))
        return self.int_mod(e, N, 1 if self.lang == "fortran" else 0)

    def int_mod(self, e, n, offset=0):
        m = mk("intrinsic", "mod", (e, int_cst(n))) if self.lang == "fortran" else mk("mod", e, int_cst(n))
        return mk("add", m, int_cst(offset)) if offset else m

    # --- real expressions -----------------------------------------------------------
    def array_ref(self, name, loop_vars):
        return mk("arrayAccess", ident(name), (self.index(loop_vars),))

    def scalar_ref(self, name):
        if name == "s" and self.lang == "c":
            return mk("deref", ident("s"))
        return ident(name)

    def real_expr(self, loop_vars, depth=0):
        d = self.draw
        choice = d(st.integers(0, 9 if depth < 3 else 2))
        if choice == 0:
            return real_cst(d(st.sampled_from(REAL_CONSTANTS)))
        if choice == 1:
            return self.array_ref(d(st.sampled_from(("x", "y"))), loop_vars)
        if choice == 2:
            return self.scalar_ref(d(st.sampled_from(("s", "t"))))
        sub = lambda: self.real_expr(loop_vars, depth + 1)  # noqa: E731
        if choice in (3, 4):
            return mk(d(st.sampled_from(("add", "sub", "mul"))), sub(), sub())
        if choice == 5:
            e = sub()
            return mk("div", sub(), mk("add", real_cst("1.0"), mk("mul", e, e)))
        if choice == 6:
            return mk("intrinsic", d(st.sampled_from(UNARY_INTRINSICS[self.lang])), (sub(),))
        if choice == 7:
            return mk("intrinsic", d(st.sampled_from(BINARY_INTRINSICS[self.lang])), (sub(), sub()))
        if choice == 8:
            if d(st.booleans()) and self.calls:
                return mk("call", "f", (sub(),))
            return mk("neg", mk("intrinsic", UNARY_INTRINSICS[self.lang][0], (sub(),)))
        # an integer converted by mixed-mode arithmetic
        return mk("mul", real_cst("0.5"), self.int_expr(loop_vars, 2))

    def bounded(self, e):
        """Keep assigned values in a bounded range so loops cannot blow them up."""
        fn = self.draw(st.sampled_from(("sin", "tanh", "atan", "cos")))
        return mk("intrinsic", fn, (e,))

    def condition(self, loop_vars):
        d = self.draw
        choice = d(st.integers(0, 3))
        if choice == 0:
            return mk(d(st.sampled_from(("lt", "gt", "le", "ge"))), self.real_expr(loop_vars, 2),
                      self.real_expr(loop_vars, 2))
        if choice == 1:
            return mk(d(st.sampled_from(("lt", "gt", "eq", "ne"))), self.int_expr(loop_vars, 1),
                      int_cst(d(st.integers(0, 5))))
        return mk(d(st.sampled_from(("and", "or"))), self.condition_leaf(loop_vars),
                  self.condition_leaf(loop_vars))

    def condition_leaf(self, loop_vars):
        return mk("gt", self.real_expr(loop_vars, 2), real_cst(self.draw(st.sampled_from(REAL_CONSTANTS))))

    # --- statements ------------------------------------------------------------------
    def statements(self, loop_vars, depth) -> tuple:
        """One statement, a while loop with its counter's initialisation, or (Fortran) jumps."""
        d = self.draw
        if self.structured:
            return (self.statement(loop_vars, depth),)
        if self.lang == "fortran" and depth < 3 and d(st.integers(0, 19)) == 0:
            return self.jumps(loop_vars, depth)
        if self.ahead and d(st.integers(0, 9)) == 0:  # out of the enclosing constructs, forward
            return (mk("if", self.condition(loop_vars), mk("block", mk("goto", d(st.sampled_from(self.ahead)))),
                           None),)
        if self.exits and set(loop_vars) & set(LOOP_VARS) and d(st.integers(0, 9)) == 0:
            # CYCLE only outside WHILE loops, whose counter it would skip
            kind = d(st.sampled_from(("exit", "cycle") if "w" not in loop_vars else ("exit",)))
            return (mk("if", self.condition(loop_vars), mk("block", mk(kind)), None),)
        if depth < 3 and "w" not in loop_vars and d(st.integers(0, 9)) == 0:
            w = ident("w")
            body = self.block(tuple(loop_vars) + ("w",), depth + 1)
            body = mk("block", *body.stmts, mk("assign", w, mk("add", w, int_cst(1))))
            return mk("assign", w, int_cst(0)), mk("while", mk("lt", w, int_cst(3)), body)
        if d(st.integers(0, 11)) == 0 and self.calls:
            return (mk("call", "g", (ident("x"), self.real_expr(loop_vars, 2))),)
        return (self.statement(loop_vars, depth),)

    def jumps(self, loop_vars, depth) -> tuple:
        """Forward: a GOTO under an IF, a computed GOTO of two labels (its index 0..3: out of
        range it goes on) or an arithmetic IF of three, each label on an active assignment
        after some statements (which may jump to it too; none right after the arithmetic IF,
        where they would be unreachable). Backward: an active assignment
        labelled L, statements, then b = b + 1; IF (b < 3) GOTO L."""
        d = self.draw
        kind = d(st.integers(0, 3))
        between = lambda lv: tuple(s for _ in range(d(st.integers(0, 2)))  # noqa: E731
                                   for s in self.statements(lv, depth + 1))
        if kind == 3:
            if "b" in loop_vars:
                return (self.real_assignment(loop_vars),)
            b, label, inner = ident("b"), self.label(), tuple(loop_vars) + ("b",)
            return (mk("assign", b, int_cst(0)), self.real_assignment(inner).with_ann(label=label),
                    *between(inner), mk("assign", b, mk("add", b, int_cst(1))),
                    mk("if", mk("lt", b, int_cst(BACKWARD_TRIPS)), mk("block", mk("goto", label)), None))
        labels = tuple(self.label() for _ in range(kind + 1))
        if kind == 0:
            jump = mk("if", self.condition(loop_vars), mk("block", mk("goto", labels[0])), None)
        elif kind == 1:
            leaf = self.int_expr(loop_vars, 2)  # >= -6: see index
            jump = mk("computedGoto", labels, self.int_mod(mk("add", leaf, int_cst(6)), 4))
        else:
            jump = mk("arithmeticIf", mk("sub", self.real_expr(loop_vars, 1), real_cst("0.5")), *labels)
        out = [jump]
        self.ahead.extend(labels)
        for label in labels:
            if jump.op != "arithmeticIf" or label != labels[0]:  # no dead code after an arithmetic IF
                out.extend(between(loop_vars))
            out.append(self.real_assignment(loop_vars).with_ann(label=label))
            self.ahead.remove(label)
        return tuple(out)

    def label(self) -> str:
        self.labels += 1
        return str(10 * self.labels)

    def real_assignment(self, loop_vars):
        """An array element or a real scalar gets a bounded real expression."""
        d = self.draw
        if d(st.integers(0, 2)) <= 1:
            lhs = self.array_ref(d(st.sampled_from(("x", "y"))), loop_vars)
        else:
            lhs = self.scalar_ref(d(st.sampled_from(("s", "t"))))
        return mk("assign", lhs, self.bounded(self.real_expr(loop_vars)))

    def statement(self, loop_vars, depth):
        d = self.draw
        choice = d(st.integers(0, 7 if depth < 3 else 3))
        if choice <= 2:
            return self.real_assignment(loop_vars)
        if choice == 3:
            rhs = self.int_expr(loop_vars, 1)
            if d(st.booleans()):
                rhs = mk("div", rhs, int_cst(d(st.integers(2, 5))))
            return mk("assign", ident("m"), self.int_mod(rhs, 7))
        if choice in (4, 5):
            then = self.block(loop_vars, depth + 1)
            els = self.block(loop_vars, depth + 1) if d(st.booleans()) else None
            return mk("if", self.condition(loop_vars), then, els)
        free = [v for v in LOOP_VARS if v not in loop_vars]  # (the while counter w is not one)
        if not free:
            return mk("assign", ident("t"), self.bounded(self.real_expr(loop_vars)))
        var = free[0]
        body = self.block(tuple(loop_vars) + (var,), depth + 1)
        return self.loop(var, body)

    def loop(self, var, body):
        if self.lang == "fortran":
            lo, hi, step = self.draw(st.sampled_from(((1, N, None), (N, 1, -1), (1, N, 2), (2, N - 1, None))))
            step_node = None if step is None else (int_cst(step) if step > 0 else mk("neg", int_cst(-step)))
            return mk("do", ident(var), int_cst(lo), int_cst(hi), step_node, body)
        v = ident(var)
        lo, hi = self.draw(st.sampled_from(((0, N), (1, N - 1))))
        return mk("for", mk("assign", v, int_cst(lo)), mk("lt", v, int_cst(hi)),
                  mk("assign", v, mk("add", v, int_cst(1))), body)

    def block(self, loop_vars, depth):
        n = self.draw(st.integers(1, 3))
        return mk("block", *(s for _ in range(n) for s in self.statements(loop_vars, depth)))


def _real8():
    return mk("type", "real", 8, None)


def _int4():
    return mk("type", "integer", None, None)


def _decl(type_node, *names_dims):
    return mk("varDecl", type_node, (), tuple(
        mk("declarator", name, None if dim is None else (mk("dim", None, int_cst(dim)),), None, 0)
        for name, dim in names_dims))


def _program(lang, body, units=None, locals_=(), init=()):
    """The file of the helpers (or `units`) and head over x, y, s, k with this body; `locals_`
    declared and `init` run first too (il_gen_adjoint's local arrays)."""
    units = helpers(lang) if units is None else units
    init = (mk("assign", ident("t"), real_cst("0.5")), mk("assign", ident("m"), ident("k"))) + tuple(init)
    if lang == "fortran":
        decls = (_decl(_real8(), ("x", N), ("y", N), ("s", None), ("t", None)),
                 _decl(_int4(), ("k", None), *((v, None) for v in INT_LOCALS)),
                 _decl(_real8(), ("f", None))) + tuple(locals_)
        proc = mk("procedure", "head", "subroutine", ("x", "y", "s", "k"), None, None, (), decls,
                  mk("block", *init, *body.stmts), ())
        return mk("file", *units, proc, lang="fortran", form="free")
    params = (mk("varDecl", _real8(), (), (mk("declarator", "x", None, None, 1),)),
              mk("varDecl", _real8(), (), (mk("declarator", "y", None, None, 1),)),
              mk("varDecl", _real8(), (), (mk("declarator", "s", None, None, 1),)),
              mk("varDecl", mk("type", "integer", 4, None), (), (mk("declarator", "k", None, None, 0),)))
    locals_ = (_decl(_real8(), ("t", None)),
               _decl(mk("type", "integer", 4, None), *((v, None) for v in INT_LOCALS))) + tuple(locals_)
    proc = mk("procedure", "head", "function", ("x", "y", "s", "k"), None, mk("type", "void", None, None), (),
              params, mk("block", *locals_, *init, *body.stmts), ())
    return mk("file", *units, proc, lang="c")


@st.composite
def programs(draw, lang, structured=False, calls=None, exits=False):
    """A random IL `file` in language `lang` ('fortran' or 'c'); `structured`: no jumps,
    WHILE loops nor calls; `calls` False: jumps and WHILE loops, no calls; `exits`: EXIT and
    CYCLE too."""
    gen = _Gen(draw, lang, structured, calls, exits)
    return _program(lang, gen.block((), 0))


# --- programs with a call, for the interprocedural analyses ------------------------------
CALLEE = "callee"
ARGS = ("x", "y", "s", "k")
LOCALS = ("t",) + INT_LOCALS


def _call_statement():
    return mk("call", CALLEE, tuple(ident(a) for a in ARGS))


def _procedure(lang, name, body_stmts):
    """A procedure over (x, y, s, k) like the head of `programs`, with this body."""
    file_node = _program(lang, mk("block", *body_stmts))
    return file_node.units[-1].replace(name=name)


@st.composite
def programs_with_call(draw, lang):
    """(program with head calling g, the same program with g's body inlined at the call).

    Both are IL `file`s; g's locals are renamed in the inlined copy so that they cannot
    clash with the head's."""
    gen = _Gen(draw, lang)
    callee_body = gen.block((), 0).stmts
    before, after = gen.block((), 1).stmts, gen.block((), 1).stmts
    callee = _procedure(lang, CALLEE, callee_body)
    head = _procedure(lang, "head", before + (_call_statement(),) + after)
    init = callee.body.stmts  # g's own initialisation then its body (C: declarations first)
    rename = {v: v + "_g" for v in LOCALS}
    inlined_stmts = tuple(_rename(s, rename) for s in init)
    if lang == "c":
        head_with_inlined = head.replace(body=mk("block", *(head.body.stmts[:2] + inlined_stmts[:2]
                                                              + head.body.stmts[2:-len(after) - 1]
                                                              + inlined_stmts[2:] + after)))
    else:
        decls = head.decls + (_decl(_real8(), (rename["t"], None)),
                              _decl(_int4(), *((rename[v], None) for v in LOCALS[1:])))
        head_with_inlined = head.replace(decls=decls, body=mk("block", *(head.body.stmts[:-len(after) - 1]
                                                                         + inlined_stmts + after)))
    ann = dict(lang=lang, form="free") if lang == "fortran" else dict(lang="c")
    return mk("file", *helpers(lang), callee, head, **ann), mk("file", *helpers(lang), head_with_inlined, **ann)


def _rename(node, names):
    if not hasattr(node, "op"):
        return node
    if node.op == "ident" and node.kids[0] in names:
        return node.with_kids(names[node.kids[0]])
    if node.op == "declarator" and node.kids[0] in names:
        return node.with_kids(names[node.kids[0]], *node.kids[1:])
    kids = tuple(tuple(_rename(k, names) for k in kid) if isinstance(kid, tuple) else _rename(kid, names)
                 for kid in node.kids)
    return node.with_kids(*kids)
