"""Random IL programs (not source text): the generator of the test suite and of `adspec campaign`.

The generator draws through a small choice interface (`integers`, `choice`, `boolean`, `int_set`,
`permutation`): `RandomChoices(random.Random(seed))` in a campaign, an adapter over hypothesis'
`draw` in the tests (tests/il_gen.py), so that one generator serves both.

`Generator` draws programs with one head procedure over two real arrays x, y of size N, a real
scalar s and an integer k, in Fortran or C. Bodies mix straight-line assignments, nested if/else
and loops, array accesses with computed indices, integer arithmetic and intrinsic calls;
Fortran bodies jump too (`jumps`): GOTOs, computed GOTOs and arithmetic IFs forward over active
statements to labelled active assignments (from the same block or out of nested ifs and loops),
and backward GOTOs counted by b so that they end. Real values stay bounded (intrinsics are
contractive, divisions are by 1 + e*e) so that compiled code and the interpreter can be compared
to round-off.

`WideGenerator` (issue 16) adds what breaks AD tools in real code, each a class of construct it
records (`CLASSES`) so that a test can assert a fair share of programs contains it:

- `state update`: an array overwritten in place by a recurrence x(i) = f(x(i-1), x(i))
  (or x(i+1) walking down);
- `stride`: DO/for loops of stride 2 or 3, up or down, trip counts no multiple of it;
- `select`: SELECT CASE with ranges and lists / C switch with case groups, fall-through;
- `intrinsics`: sqrt(e*e + 1), exp(sin e), abs(1.5 -+ sin e), away from their non-smooth points;
- `local array`: z(N), initialised from y, read and written like x and y;
- `call overwrite`: fill(a, b, v) overwrites all of a (the caller reads it afterwards);
  bump(a, i, v) updates a(i); smooth(a, v) runs a recurrence through a local copy;
- `call in loop` and `repeated call` (one helper called twice or more, no aliasing:
  distinct array actuals, the real actual an expression, so a temporary);
- Fortran: `section` (x(1:3) = f(x(2:4), y(4:2:-1)...), overlapping sides, strides),
  `whole array` (x = ..., sum(...)), `where` (with ELSEWHERE), `spread` (into a local q(N, 2));
- C: `pointer` (p = x + c; loop over p[v] reading p[v - 1], which may lie before p).

Indices stay in bounds, every value read is set (z and q at the start), values stay bounded.
"""
from __future__ import annotations

import random

from ..engine.il import mk, walk


class RandomChoices:
    """The choice interface over a `random.Random`."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integers(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options):
        return self.rng.choice(tuple(options))

    def boolean(self) -> bool:
        return self.rng.random() < 0.5

    def int_set(self, lo: int, hi: int, min_size: int, max_size: int) -> frozenset:
        return frozenset(self.rng.sample(range(lo, hi + 1), self.rng.randint(min_size, max_size)))

    def permutation(self, items) -> list:
        return self.rng.sample(list(items), len(items))


N = 4


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
        from .. import parse
        _helpers_cache[text] = parse(text, lang=lang).units
    return _helpers_cache[text]


def ident(name):
    return mk("ident", name)


def int_cst(v):
    return mk("intCst", v, None)


def real_cst(text):
    return mk("realCst", text, 8)


class Generator:
    """Draws one program; `lang` decides indexing base, loop form and intrinsic names."""

    def __init__(self, choices, lang, structured=False, calls=None, exits=False):
        self.choices = choices
        self.lang = lang
        self.structured = structured  # no jumps, WHILE loops nor calls
        self.calls = not structured if calls is None else calls  # calls of f and g
        self.exits = exits  # EXIT/CYCLE (break/continue) under an IF in DO and for loops
        self.labels = 0      # labels drawn so far (each is unique in the file)
        self.ahead = []      # labels of enclosing or current blocks not reached yet: forward GOTO targets

    # --- integer expressions -------------------------------------------------------
    def int_expr(self, loop_vars, depth=0):
        ch = self.choices
        choice = ch.integers(0, 4 if depth < 2 else 1)
        if choice == 0:
            return int_cst(ch.integers(0, 9))
        if choice == 1:
            return ident(ch.choice(("k", "m") + tuple(loop_vars)))
        op = ("add", "sub", "mul")[choice - 2]
        return mk(op, self.int_expr(loop_vars, depth + 1), self.int_expr(loop_vars, depth + 1))

    def index(self, loop_vars):
        """An index that is always in bounds: a constant, a loop variable, or a mod."""
        ch = self.choices
        base = 1 if self.lang == "fortran" else 0
        choice = ch.integers(0, 2)
        if choice == 0:
            return int_cst(ch.integers(base, base + N - 1))
        indices = [v for v in loop_vars if v in LOOP_VARS]  # DO/for indices span the bounds; w does not
        if choice == 1 and indices:
            return ident(ch.choice(indices))
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
        ch = self.choices
        choice = ch.integers(0, 9 if depth < 3 else 2)
        if choice == 0:
            return real_cst(ch.choice(REAL_CONSTANTS))
        if choice == 1:
            return self.array_ref(ch.choice(("x", "y")), loop_vars)
        if choice == 2:
            return self.scalar_ref(ch.choice(("s", "t")))
        sub = lambda: self.real_expr(loop_vars, depth + 1)  # noqa: E731
        if choice in (3, 4):
            return mk(ch.choice(("add", "sub", "mul")), sub(), sub())
        if choice == 5:
            e = sub()
            return mk("div", sub(), mk("add", real_cst("1.0"), mk("mul", e, e)))
        if choice == 6:
            return mk("intrinsic", ch.choice(UNARY_INTRINSICS[self.lang]), (sub(),))
        if choice == 7:
            return mk("intrinsic", ch.choice(BINARY_INTRINSICS[self.lang]), (sub(), sub()))
        if choice == 8:
            if ch.boolean() and self.calls:
                return mk("call", "f", (sub(),))
            return mk("neg", mk("intrinsic", UNARY_INTRINSICS[self.lang][0], (sub(),)))
        # an integer converted by mixed-mode arithmetic
        return mk("mul", real_cst("0.5"), self.int_expr(loop_vars, 2))

    def bounded(self, e):
        """Keep assigned values in a bounded range so loops cannot blow them up."""
        fn = self.choices.choice(("sin", "tanh", "atan", "cos"))
        return mk("intrinsic", fn, (e,))

    def condition(self, loop_vars):
        ch = self.choices
        choice = ch.integers(0, 3)
        if choice == 0:
            return mk(ch.choice(("lt", "gt", "le", "ge")), self.real_expr(loop_vars, 2),
                      self.real_expr(loop_vars, 2))
        if choice == 1:
            return mk(ch.choice(("lt", "gt", "eq", "ne")), self.int_expr(loop_vars, 1),
                      int_cst(ch.integers(0, 5)))
        return mk(ch.choice(("and", "or")), self.condition_leaf(loop_vars),
                  self.condition_leaf(loop_vars))

    def condition_leaf(self, loop_vars):
        return mk("gt", self.real_expr(loop_vars, 2), real_cst(self.choices.choice(REAL_CONSTANTS)))

    # --- statements ------------------------------------------------------------------
    def statements(self, loop_vars, depth) -> tuple:
        """One statement, a while loop with its counter's initialisation, or (Fortran) jumps."""
        ch = self.choices
        if self.structured:
            return (self.statement(loop_vars, depth),)
        if self.lang == "fortran" and depth < 3 and ch.integers(0, 19) == 0:
            return self.jumps(loop_vars, depth)
        if self.ahead and ch.integers(0, 9) == 0:  # out of the enclosing constructs, forward
            return (mk("if", self.condition(loop_vars), mk("block", mk("goto", ch.choice(self.ahead))),
                           None),)
        if self.exits and set(loop_vars) & set(LOOP_VARS) and ch.integers(0, 9) == 0:
            # CYCLE only outside WHILE loops, whose counter it would skip
            kind = ch.choice(("exit", "cycle") if "w" not in loop_vars else ("exit",))
            return (mk("if", self.condition(loop_vars), mk("block", mk(kind)), None),)
        if depth < 3 and "w" not in loop_vars and ch.integers(0, 9) == 0:
            w = ident("w")
            body = self.block(tuple(loop_vars) + ("w",), depth + 1)
            body = mk("block", *body.stmts, mk("assign", w, mk("add", w, int_cst(1))))
            return mk("assign", w, int_cst(0)), mk("while", mk("lt", w, int_cst(3)), body)
        if ch.integers(0, 11) == 0 and self.calls:
            return (mk("call", "g", (ident("x"), self.real_expr(loop_vars, 2))),)
        return (self.statement(loop_vars, depth),)

    def jumps(self, loop_vars, depth) -> tuple:
        """Forward: a GOTO under an IF, a computed GOTO of two labels (its index 0..3: out of
        range it goes on) or an arithmetic IF of three, each label on an active assignment
        after some statements (which may jump to it too; none right after the arithmetic IF,
        where they would be unreachable). Backward: an active assignment
        labelled L, statements, then b = b + 1; IF (b < 3) GOTO L."""
        ch = self.choices
        kind = ch.integers(0, 3)
        between = lambda lv: tuple(s for _ in range(ch.integers(0, 2))  # noqa: E731
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
        ch = self.choices
        if ch.integers(0, 2) <= 1:
            lhs = self.array_ref(ch.choice(("x", "y")), loop_vars)
        else:
            lhs = self.scalar_ref(ch.choice(("s", "t")))
        return mk("assign", lhs, self.bounded(self.real_expr(loop_vars)))

    def statement(self, loop_vars, depth):
        ch = self.choices
        choice = ch.integers(0, 7 if depth < 3 else 3)
        if choice <= 2:
            return self.real_assignment(loop_vars)
        if choice == 3:
            rhs = self.int_expr(loop_vars, 1)
            if ch.boolean():
                rhs = mk("div", rhs, int_cst(ch.integers(2, 5)))
            return mk("assign", ident("m"), self.int_mod(rhs, 7))
        if choice in (4, 5):
            then = self.block(loop_vars, depth + 1)
            els = self.block(loop_vars, depth + 1) if ch.boolean() else None
            return mk("if", self.condition(loop_vars), then, els)
        free = [v for v in LOOP_VARS if v not in loop_vars]  # (the while counter w is not one)
        if not free:
            return mk("assign", ident("t"), self.bounded(self.real_expr(loop_vars)))
        var = free[0]
        body = self.block(tuple(loop_vars) + (var,), depth + 1)
        return self.loop(var, body)

    def loop(self, var, body):
        if self.lang == "fortran":
            lo, hi, step = self.choices.choice(((1, N, None), (N, 1, -1), (1, N, 2), (2, N - 1, None)))
            step_node = None if step is None else (int_cst(step) if step > 0 else mk("neg", int_cst(-step)))
            return mk("do", ident(var), int_cst(lo), int_cst(hi), step_node, body)
        v = ident(var)
        lo, hi = self.choices.choice(((0, N), (1, N - 1)))
        return mk("for", mk("assign", v, int_cst(lo)), mk("lt", v, int_cst(hi)),
                  mk("assign", v, mk("add", v, int_cst(1))), body)

    def block(self, loop_vars, depth):
        n = self.choices.integers(1, 3)
        return mk("block", *(s for _ in range(n) for s in self.statements(loop_vars, depth)))


def _real8():
    return mk("type", "real", 8, None)


def _int4():
    return mk("type", "integer", None, None)


def _decl(type_node, *names_dims):
    return mk("varDecl", type_node, (), tuple(
        mk("declarator", name, None if dim is None else (mk("dim", None, int_cst(dim)),), None, 0)
        for name, dim in names_dims))


def program_file(lang, body, units=None, locals_=(), init=()):
    """The file of the helpers (or `units`) and head over x, y, s, k with this body; `locals_`
    declared and `init` run first too (il_gen_adjoint's local arrays)."""
    units = helpers(lang) if units is None else units
    init = tuple(s.with_ann(setup=True) for s in (mk("assign", ident("t"), real_cst("0.5")),
                                                  mk("assign", ident("m"), ident("k")))) + tuple(init)
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


def program(choices, lang, structured=False, calls=None, exits=False):
    """A random IL `file` in language `lang` ('fortran' or 'c'); `structured`: no jumps,
    WHILE loops nor calls; `calls` False: jumps and WHILE loops, no calls; `exits`: EXIT and
    CYCLE too."""
    gen = Generator(choices, lang, structured, calls, exits)
    return program_file(lang, gen.block((), 0))


# --- programs with a call, for the interprocedural analyses ------------------------------
CALLEE = "callee"
ARGS = ("x", "y", "s", "k")
LOCALS = ("t",) + INT_LOCALS


def _call_statement():
    return mk("call", CALLEE, tuple(ident(a) for a in ARGS))


def procedure_like_head(lang, name, body_stmts):
    """A procedure over (x, y, s, k) like the head of `programs`, with this body."""
    file_node = program_file(lang, mk("block", *body_stmts))
    return file_node.units[-1].replace(name=name)


def program_with_call(choices, lang):
    """(program with head calling g, the same program with g's body inlined at the call).

    Both are IL `file`s; g's locals are renamed in the inlined copy so that they cannot
    clash with the head's."""
    gen = Generator(choices, lang)
    callee_body = gen.block((), 0).stmts
    before, after = gen.block((), 1).stmts, gen.block((), 1).stmts
    callee = procedure_like_head(lang, CALLEE, callee_body)
    head = procedure_like_head(lang, "head", before + (_call_statement(),) + after)
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


# --- wider programs (issue 16) ------------------------------------------------------------
WIDE_HELPERS_SOURCE = {
    "fortran": HELPERS_SOURCE["fortran"] + f"""
subroutine fill(a, b, v)
   real(8) :: a({N}), b({N}), v
   a = tanh(b*v) + 0.5d0*b({N}:1:-1)
end subroutine fill

subroutine bump(a, i, v)
   real(8) :: a({N}), v
   integer :: i
   a(i) = sin(a(i))*v + cos(v)
end subroutine bump

subroutine smooth(a, v)
   real(8) :: a({N}), v
   real(8) :: c({N})
   integer :: i
   do i = 1, {N}
      c(i) = a(i)
   end do
   do i = 2, {N}
      a(i) = sin(c(i - 1)*v + a(i - 1))
   end do
end subroutine smooth
""",
    "c": HELPERS_SOURCE["c"] + f"""
void fill(double a[{N}], double b[{N}], double v) {{
    int i;
    for (i = 0; i < {N}; i++) {{
        a[i] = tanh(b[i] * v) + 0.5 * b[{N - 1} - i];
    }}
}}

void bump(double a[{N}], int i, double v) {{
    a[i] = sin(a[i]) * v + cos(v);
}}

void smooth(double a[{N}], double v) {{
    double c[{N}];
    int i;
    for (i = 0; i < {N}; i++) {{
        c[i] = a[i];
    }}
    for (i = 1; i < {N}; i++) {{
        a[i] = sin(c[i - 1] * v + a[i - 1]);
    }}
}}
""",
}
HELPERS = ("fill", "bump", "smooth")
ARRAYS = ("x", "y", "z")
CLASSES = {
    "fortran": ("state update", "stride", "select", "intrinsics", "local array", "call overwrite", "call in loop",
                "repeated call", "section", "whole array", "where", "spread"),
    "c": ("state update", "stride", "select", "intrinsics", "local array", "call overwrite", "call in loop",
          "repeated call", "pointer"),
}
# (lo, hi, step) of DO loops over 1..N; C's are the same shifted to 0..N-1 (hi inclusive)
STRIDED = ((1, N, 2), (1, N, 3), (N, 1, -2), (N - 1, 1, -2), (N, 1, -3), (2, N, 2), (1, N - 1, 2), (N, 1, -1))


class WideGenerator(Generator):
    def __init__(self, choices, lang):
        super().__init__(choices, lang, structured=False, calls=False, exits=True)
        self.base = 1 if lang == "fortran" else 0
        self.classes = set()
        self.called = []
        self.walking = False   # inside a pointer walk's loop

    # --- expressions ------------------------------------------------------------------
    def array_ref(self, name, loop_vars):
        if self.choices.integers(0, 3) == 0:
            self.classes.add("local array")
            name = "z"
        return super().array_ref(name, loop_vars)

    def real_expr(self, loop_vars, depth=0):
        ch = self.choices
        if depth >= 3 or ch.integers(0, 5) != 0:
            return super().real_expr(loop_vars, depth)
        choice = ch.integers(0, 3 if self.lang == "fortran" else 2)
        sub = lambda: self.real_expr(loop_vars, depth + 1)  # noqa: E731
        self.classes.add("intrinsics")
        fabs = "abs" if self.lang == "fortran" else "fabs"
        if choice == 0:
            e = sub()
            return mk("intrinsic", "sqrt", (mk("add", mk("mul", e, e), real_cst("1.0")),))
        if choice == 1:
            return mk("intrinsic", "exp", (mk("intrinsic", ch.choice(("sin", "tanh")), (sub(),)),))
        if choice == 2:
            e = mk("intrinsic", "sin", (sub(),))
            return mk("intrinsic", fabs, ((mk("sub", e, real_cst("1.5")) if ch.boolean()
                                           else mk("add", e, real_cst("1.5"))),))
        if ch.boolean():   # Fortran: the sum of an array expression, or an element of q
            self.classes.add("whole array")
            return mk("mul", real_cst("0.25"), mk("intrinsic", "sum", (self.array_expr(self.length(), 1),)))
        self.classes.add("spread")
        return mk("arrayAccess", ident("q"), (self.index(loop_vars), int_cst(ch.integers(1, 2))))

    # --- Fortran array expressions ------------------------------------------------------
    def length(self):
        return self.choices.integers(1, N)

    def section(self, name, length):
        """name(lo:hi:stride) of `length` elements in 1..N, or the whole array."""
        ch = self.choices
        if length == N and ch.boolean():
            self.classes.add("whole array")
            return ident(name)
        self.classes.add("section")
        step = ch.choice((1, 1, 2, -1, -2))
        span = (length - 1) * abs(step)
        if span > N - 1:
            step, span = (1 if step > 0 else -1), length - 1
        lo = ch.integers(1, N - span)
        first, last = (lo, lo + span) if step > 0 else (lo + span, lo)
        stride = None if step == 1 else (int_cst(step) if step > 0 else mk("neg", int_cst(-step)))
        return mk("arrayAccess", ident(name), (mk("arrayTriplet", int_cst(first), int_cst(last), stride),))

    def array_expr(self, length, depth=0):
        """An elementwise expression of `length` elements: sections, scalars, intrinsics; at
        least one section (SUM of a scalar is no Fortran)."""
        e = self._array_expr(length, depth)
        if not any(n.op == "arrayTriplet" or (n.op == "ident" and n.kids[0] in ARRAYS) for n in walk(e)):
            e = mk("mul", e, self.section(self.choices.choice(ARRAYS), length))
        return e

    def _array_expr(self, length, depth):
        ch = self.choices
        choice = ch.integers(0, 5 if depth < 2 else 1)
        if choice == 0:
            return self.section(ch.choice(ARRAYS), length)
        if choice == 1:
            return self.section(ch.choice(ARRAYS), length) if ch.boolean() else \
                self.scalar_ref(ch.choice(("s", "t")))
        sub = lambda: self._array_expr(length, depth + 1)  # noqa: E731
        if choice in (2, 3):
            return mk(ch.choice(("add", "sub", "mul")), sub(), sub())
        if choice == 4:
            return mk("intrinsic", ch.choice(("sin", "cos", "tanh")), (sub(),))
        e = sub()
        return mk("intrinsic", "sqrt", (mk("add", mk("mul", e, e), real_cst("1.0")),))

    def array_statement(self, loop_vars):
        ch = self.choices
        choice = ch.integers(0, 3)
        if choice == 0:   # sections or whole arrays, the sides may overlap
            length = self.length()
            return mk("assign", self.section(ch.choice(ARRAYS), length), self.bounded(self.array_expr(length)))
        if choice == 1:
            self.classes.add("spread")
            return mk("assign", ident("q"), mk("intrinsic", "spread", (self.bounded(self.array_expr(N)), int_cst(2),
                                                                       int_cst(2))))
        if choice == 2:
            self.classes.add("whole array")
            return mk("assign", self.scalar_ref(ch.choice(("s", "t"))),
                      self.bounded(mk("intrinsic", "sum", (self.array_expr(self.length()),))))
        self.classes.add("where")
        length, masked_by = self.length(), ch.choice(ARRAYS)
        mask = mk(ch.choice(("gt", "lt")),
                  mk("mul", self.section(masked_by, length), self.array_expr(length, 2)),
                  real_cst(ch.choice(("0.5", "0.25"))))
        # mostly arrays the mask does not read (adspec refuses the others so far)
        targets = ARRAYS if ch.integers(0, 3) == 0 else tuple(n for n in ARRAYS if n != masked_by)
        masked = lambda: mk("block", *(mk("assign", self.section(ch.choice(targets), length),  # noqa: E731
                                          self.bounded(self.array_expr(length)))
                                       for _ in range(ch.integers(1, 2))))
        return mk("where", mask, masked(), masked() if ch.boolean() else None)

    # --- statements ----------------------------------------------------------------------
    def statements(self, loop_vars, depth) -> tuple:
        if self.choices.integers(0, 2) == 0:
            return self.wide_statement(loop_vars, depth)
        return super().statements(loop_vars, depth)

    def wide_statement(self, loop_vars, depth) -> tuple:
        ch = self.choices
        free = [v for v in LOOP_VARS if v not in loop_vars]
        choice = ch.integers(0, 4 if depth < 3 else 2)
        if choice == 0:   # maybe the same helper again on other arrays
            first = self.call(loop_vars)
            return (first, self.call(loop_vars, first.kids[0])) if ch.boolean() else (first,)
        if choice == 1 and free and depth < 3:
            return (self.state_update(free[0], loop_vars, depth),)
        if choice == 2:
            if self.lang == "fortran":
                return (self.array_statement(loop_vars),)
            if free and depth < 3 and not self.walking:   # p is set again by no statement of a walk
                return self.pointer_walk(free[0], loop_vars, depth)
        if choice in (3, 4):
            return (self.select(loop_vars, depth),)
        return (self.real_assignment(loop_vars),)

    def call(self, loop_vars, name=None):
        ch = self.choices
        name = name or ch.choice(HELPERS)
        self.called.append(name)
        if self.called.count(name) > 1:
            self.classes.add("repeated call")
        if set(loop_vars) & set(LOOP_VARS + ("w", "b")):
            self.classes.add("call in loop")
        v = self.bounded(self.real_expr(loop_vars, 2))   # an expression: a temporary, no alias with a
        a = ch.choice(ARRAYS)
        if name == "fill":
            self.classes.add("call overwrite")
            b = ch.choice(tuple(n for n in ARRAYS if n != a))
            args = (ident(a), ident(b), v)
        elif name == "bump":
            args = (ident(a), self.index(loop_vars), v)
        else:
            args = (ident(a), v)
        return mk("call", name, args)

    def state_update(self, var, loop_vars, depth):
        """DO var: a(var) = f(a(var -+ 1), a(var), ...), walking up or down; other statements around."""
        ch = self.choices
        self.classes.add("state update")
        a, v, up = ch.choice(ARRAYS), ident(var), ch.boolean()
        inner = tuple(loop_vars) + (var,)
        previous = mk("arrayAccess", ident(a), (mk("sub" if up else "add", v, int_cst(1)),))
        current = mk("arrayAccess", ident(a), (v,))
        rhs = mk(ch.choice(("add", "mul", "sub")), previous,
                 mk(ch.choice(("add", "mul")), current, self.real_expr(inner, 2)))
        update = mk("assign", current, self.bounded(rhs))
        before = self.block(inner, depth + 1).stmts if ch.boolean() else ()
        after = self.block(inner, depth + 1).stmts if ch.boolean() else ()
        b = self.base
        lo, hi, step = (b + 1, b + N - 1, 1) if up else (b + N - 2, b, -1)
        return self.counted_loop(var, lo, hi, step, mk("block", *before, update, *after))

    def pointer_walk(self, var, loop_vars, depth) -> tuple:
        """C: p = a + c; for var in 0..N-c-1: p[var] = f(p[var], p[var - 1] when c > 0, ...)."""
        ch = self.choices
        self.classes.add("pointer")
        a, c = ch.choice(ARRAYS), ch.integers(0, N - 1)
        p, v = ident("p"), ident(var)
        inner = tuple(loop_vars) + (var,)
        at = lambda i: mk("arrayAccess", p, (i,))  # noqa: E731
        rhs = mk("mul", at(v), self.real_expr(inner, 2))
        if c > 0 and ch.boolean():
            rhs = mk("add", at(mk("sub", v, int_cst(1))), rhs)
        self.walking = True
        before = self.block(inner, depth + 1).stmts if ch.boolean() else ()
        self.walking = False
        body = mk("block", *before, mk("assign", at(v), self.bounded(rhs)))
        start = mk("add", ident(a), int_cst(c)) if ch.boolean() else \
            mk("address", mk("arrayAccess", ident(a), (int_cst(c),)))
        return mk("assign", p, start), self.counted_loop(var, 0, N - 1 - c, 1, body)

    def select(self, loop_vars, depth):
        """SELECT CASE over a small integer: ranges and lists (Fortran), case groups with
        break or falling through (C), and maybe a default."""
        ch = self.choices
        self.classes.add("select")
        selector = self.int_mod(mk("add", self.int_expr(loop_vars, 2), int_cst(14)), 6)   # 0..5: see il_gen.index
        cuts = sorted(ch.int_set(0, 6, min_size=2, max_size=4))
        cases = []
        for lo, hi in zip(cuts, cuts[1:]):
            values = tuple(int_cst(n) for n in range(lo, hi))
            if self.lang == "fortran" and len(values) > 1 and ch.boolean():
                values = (mk("caseRange", int_cst(lo), int_cst(hi - 1)),)
            elif len(values) > 2:
                values = tuple(ch.permutation(values))[:2]
            body = self.block(loop_vars, depth + 1)
            if self.lang == "c" and ch.integers(0, 3) != 0:
                body = mk("block", *body.stmts, mk("exit"))   # else it falls through
            cases.append(mk("case", values, body))
        if ch.boolean():
            cases.append(mk("case", (), self.block(loop_vars, depth + 1)))
        return mk("switch", selector, tuple(cases), self.lang == "c")

    def loop(self, var, body):
        if self.choices.boolean():
            return super().loop(var, body)
        self.classes.add("stride")
        lo, hi, step = self.choices.choice(STRIDED)
        shift = self.base - 1
        return self.counted_loop(var, lo + shift, hi + shift, step, body)

    def counted_loop(self, var, lo, hi, step, body):
        """DO var = lo, hi, step / for (var = lo; var <= hi or >= hi; var += step), hi inclusive."""
        v = ident(var)
        if self.lang == "fortran":
            step_node = None if step == 1 else (int_cst(step) if step > 0 else mk("neg", int_cst(-step)))
            return mk("do", v, int_cst(lo), int_cst(hi), step_node, body)
        test = mk("le" if step > 0 else "ge", v, int_cst(hi)) if abs(step) > 1 or step < 0 else \
            mk("lt", v, int_cst(hi + 1))
        return mk("for", mk("assign", v, int_cst(lo)), test,
                  mk("assign", v, mk("add" if step > 0 else "sub", v, int_cst(abs(step)))), body)


def _init(lang):
    """z = 0.5*y element by element, and (Fortran) q = spread(x, 2, 2): every value read is set."""
    b = 1 if lang == "fortran" else 0
    i = ident("i")
    z_i = mk("assign", mk("arrayAccess", ident("z"), (i,)),
             mk("mul", real_cst("0.5"), mk("arrayAccess", ident("y"), (i,))))
    if lang == "fortran":
        loop = mk("do", i, int_cst(b), int_cst(b + N - 1), None, mk("block", z_i))
        return loop, mk("assign", ident("q"), mk("intrinsic", "spread", (ident("x"), int_cst(2), int_cst(2))))
    return (mk("for", mk("assign", i, int_cst(0)), mk("lt", i, int_cst(N)), mk("assign", i, mk("add", i, int_cst(1))),
               mk("block", z_i)),)


def _locals(lang):
    if lang == "fortran":
        dims = (mk("dim", None, int_cst(N)), mk("dim", None, int_cst(2)))
        q = mk("varDecl", _real8(), (), (mk("declarator", "q", dims, None, 0),))
        return _decl(_real8(), ("z", N)), q
    return _decl(_real8(), ("z", N)), mk("varDecl", _real8(), (), (mk("declarator", "p", None, None, 1),))


def wide_program(choices, lang):
    """(IL file, frozenset of the construct classes it contains: CLASSES[lang])."""
    gen = WideGenerator(choices, lang)
    body = gen.block((), 0)
    tree = program_file(lang, body, units=helpers(lang, WIDE_HELPERS_SOURCE), locals_=_locals(lang), init=_init(lang))
    return tree, frozenset(gen.classes)


# --- campaign programs -------------------------------------------------------------------
REAL_ARGUMENTS = ("x", "y", "s")
EXTENSIONS = {"fortran": "f90", "c": "c"}
MAX_ATTEMPTS = 20


class CampaignProgram:
    """One program of a campaign: the IL `tree`, its source `text`, the `head` string, the
    `args` dict of `adspec check` (the arguments file's tables) and its construct classes."""

    def __init__(self, tree, lang: str, head: str, classes=frozenset()):
        from .. import unparse
        self.tree, self.lang, self.head, self.classes = tree, lang, head, frozenset(classes)
        self.text = unparse(tree)

    @property
    def args(self) -> dict:
        return head_args(self.lang)

    @property
    def filename(self) -> str:
        return "prog." + EXTENSIONS[self.lang]

    def with_tree(self, tree) -> "CampaignProgram":
        return CampaignProgram(tree, self.lang, self.head, self.classes)


def head_args(lang: str) -> dict:
    """The arguments file of the head (x, y, s, k): k's value; C's pointers' element counts;
    the helpers' integer arguments and (C) pointers, for the checks of each procedure alone."""
    args = {"k": {"value": 3}, "bump": {"i": {"value": 2}}}
    if lang == "c":
        args.update(x={"shape": [N]}, y={"shape": [N]}, s={"shape": [1]}, g={"a": {"shape": [N]}})
    return args


def campaign_program(seed: int, index: int, lang: str, mode: str, heads: str = "random") -> tuple:
    """(CampaignProgram, number of programs drawn before it that adspec itself cannot
    differentiate in `mode`: those have no reference to check a candidate against).
    `heads`: "random" (dependents and independents drawn among x, y, s) or "all" (all three
    both). Program `index` of campaign `seed` is the same wherever it is drawn."""
    for attempt in range(MAX_ATTEMPTS):
        ch = RandomChoices(random.Random(f"{seed}:{index}:{attempt}"))
        gen = WideGenerator(ch, lang)
        body = tuple(s for _ in range(ch.integers(2, 4)) for s in gen.block((), 0).stmts)
        init = tuple(s.with_ann(setup=True) for s in _init(lang))   # the shrinker keeps them
        tree = program_file(lang, mk("block", *body), units=helpers(lang, WIDE_HELPERS_SOURCE),
                            locals_=_locals(lang), init=init)
        head = random_head(ch) if heads == "random" else f"head({' '.join(REAL_ARGUMENTS)})/({' '.join(REAL_ARGUMENTS)})"
        program = CampaignProgram(tree, lang, head, gen.classes)
        if differentiable(program, mode):
            return program, attempt
    raise RuntimeError(f"no program of {MAX_ATTEMPTS} drawn for index {index} could be differentiated by adspec")


def random_head(ch) -> str:
    """head(dependents)/(independents): nonempty subsets of x, y, s."""
    def subset():
        names = [n for n in REAL_ARGUMENTS if ch.boolean()]
        return names or [ch.choice(REAL_ARGUMENTS)]
    return f"head({' '.join(subset())})/({' '.join(subset())})"


def differentiable(program: CampaignProgram, mode: str) -> bool:
    """adspec differentiates the program in `mode` (tangent or adjoint) without error."""
    from .. import differentiate
    try:
        differentiate(program.text, program.head, mode, lang=program.lang, filename=program.filename)
    except Exception:   # refused or an adspec bug: either way no reference for the checker
        return False
    return True
