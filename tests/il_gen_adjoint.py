"""Wider random programs for adjoint mode (issue 16): il_gen's programs (assignments, IF, DO,
jumps, WHILE, EXIT/CYCLE) plus what breaks AD tools in real code, each a class of construct
the generator records so that a test can assert a fair share of programs contains it:

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

from hypothesis import strategies as st

from adspec.engine.il import mk, walk
from il_gen import (HELPERS_SOURCE, LOOP_VARS, N, _decl, _Gen, _program, _real8, helpers, ident, int_cst,
                    real_cst)

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


class _WideGen(_Gen):
    def __init__(self, draw, lang):
        super().__init__(draw, lang, structured=False, calls=False, exits=True)
        self.base = 1 if lang == "fortran" else 0
        self.classes = set()
        self.called = []
        self.walking = False   # inside a pointer walk's loop

    # --- expressions ------------------------------------------------------------------
    def array_ref(self, name, loop_vars):
        if self.draw(st.integers(0, 3)) == 0:
            self.classes.add("local array")
            name = "z"
        return super().array_ref(name, loop_vars)

    def real_expr(self, loop_vars, depth=0):
        d = self.draw
        if depth >= 3 or d(st.integers(0, 5)) != 0:
            return super().real_expr(loop_vars, depth)
        choice = d(st.integers(0, 3 if self.lang == "fortran" else 2))
        sub = lambda: self.real_expr(loop_vars, depth + 1)  # noqa: E731
        self.classes.add("intrinsics")
        fabs = "abs" if self.lang == "fortran" else "fabs"
        if choice == 0:
            e = sub()
            return mk("intrinsic", "sqrt", (mk("add", mk("mul", e, e), real_cst("1.0")),))
        if choice == 1:
            return mk("intrinsic", "exp", (mk("intrinsic", d(st.sampled_from(("sin", "tanh"))), (sub(),)),))
        if choice == 2:
            e = mk("intrinsic", "sin", (sub(),))
            return mk("intrinsic", fabs, ((mk("sub", e, real_cst("1.5")) if d(st.booleans())
                                           else mk("add", e, real_cst("1.5"))),))
        if d(st.booleans()):   # Fortran: the sum of an array expression, or an element of q
            self.classes.add("whole array")
            return mk("mul", real_cst("0.25"), mk("intrinsic", "sum", (self.array_expr(self.length(), 1),)))
        self.classes.add("spread")
        return mk("arrayAccess", ident("q"), (self.index(loop_vars), int_cst(d(st.integers(1, 2)))))

    # --- Fortran array expressions ------------------------------------------------------
    def length(self):
        return self.draw(st.integers(1, N))

    def section(self, name, length):
        """name(lo:hi:stride) of `length` elements in 1..N, or the whole array."""
        d = self.draw
        if length == N and d(st.booleans()):
            self.classes.add("whole array")
            return ident(name)
        self.classes.add("section")
        step = d(st.sampled_from((1, 1, 2, -1, -2)))
        span = (length - 1) * abs(step)
        if span > N - 1:
            step, span = (1 if step > 0 else -1), length - 1
        lo = d(st.integers(1, N - span))
        first, last = (lo, lo + span) if step > 0 else (lo + span, lo)
        stride = None if step == 1 else (int_cst(step) if step > 0 else mk("neg", int_cst(-step)))
        return mk("arrayAccess", ident(name), (mk("arrayTriplet", int_cst(first), int_cst(last), stride),))

    def array_expr(self, length, depth=0):
        """An elementwise expression of `length` elements: sections, scalars, intrinsics; at
        least one section (SUM of a scalar is no Fortran)."""
        e = self._array_expr(length, depth)
        if not any(n.op == "arrayTriplet" or (n.op == "ident" and n.kids[0] in ARRAYS) for n in walk(e)):
            e = mk("mul", e, self.section(self.draw(st.sampled_from(ARRAYS)), length))
        return e

    def _array_expr(self, length, depth):
        d = self.draw
        choice = d(st.integers(0, 5 if depth < 2 else 1))
        if choice == 0:
            return self.section(d(st.sampled_from(ARRAYS)), length)
        if choice == 1:
            return self.section(d(st.sampled_from(ARRAYS)), length) if d(st.booleans()) else \
                self.scalar_ref(d(st.sampled_from(("s", "t"))))
        sub = lambda: self._array_expr(length, depth + 1)  # noqa: E731
        if choice in (2, 3):
            return mk(d(st.sampled_from(("add", "sub", "mul"))), sub(), sub())
        if choice == 4:
            return mk("intrinsic", d(st.sampled_from(("sin", "cos", "tanh"))), (sub(),))
        e = sub()
        return mk("intrinsic", "sqrt", (mk("add", mk("mul", e, e), real_cst("1.0")),))

    def array_statement(self, loop_vars):
        d = self.draw
        choice = d(st.integers(0, 3))
        if choice == 0:   # sections or whole arrays, the sides may overlap
            length = self.length()
            return mk("assign", self.section(d(st.sampled_from(ARRAYS)), length), self.bounded(self.array_expr(length)))
        if choice == 1:
            self.classes.add("spread")
            return mk("assign", ident("q"), mk("intrinsic", "spread", (self.bounded(self.array_expr(N)), int_cst(2),
                                                                       int_cst(2))))
        if choice == 2:
            self.classes.add("whole array")
            return mk("assign", self.scalar_ref(d(st.sampled_from(("s", "t")))),
                      self.bounded(mk("intrinsic", "sum", (self.array_expr(self.length()),))))
        self.classes.add("where")
        length, masked_by = self.length(), d(st.sampled_from(ARRAYS))
        mask = mk(d(st.sampled_from(("gt", "lt"))),
                  mk("mul", self.section(masked_by, length), self.array_expr(length, 2)),
                  real_cst(d(st.sampled_from(("0.5", "0.25")))))
        # mostly arrays the mask does not read (adspec refuses the others so far)
        targets = ARRAYS if d(st.integers(0, 3)) == 0 else tuple(n for n in ARRAYS if n != masked_by)
        masked = lambda: mk("block", *(mk("assign", self.section(d(st.sampled_from(targets)), length),  # noqa: E731
                                          self.bounded(self.array_expr(length)))
                                       for _ in range(d(st.integers(1, 2)))))
        return mk("where", mask, masked(), masked() if d(st.booleans()) else None)

    # --- statements ----------------------------------------------------------------------
    def statements(self, loop_vars, depth) -> tuple:
        if self.draw(st.integers(0, 2)) == 0:
            return self.wide_statement(loop_vars, depth)
        return super().statements(loop_vars, depth)

    def wide_statement(self, loop_vars, depth) -> tuple:
        d = self.draw
        free = [v for v in LOOP_VARS if v not in loop_vars]
        choice = d(st.integers(0, 4 if depth < 3 else 2))
        if choice == 0:   # maybe the same helper again on other arrays
            first = self.call(loop_vars)
            return (first, self.call(loop_vars, first.kids[0])) if d(st.booleans()) else (first,)
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
        d = self.draw
        name = name or d(st.sampled_from(HELPERS))
        self.called.append(name)
        if self.called.count(name) > 1:
            self.classes.add("repeated call")
        if set(loop_vars) & set(LOOP_VARS + ("w", "b")):
            self.classes.add("call in loop")
        v = self.bounded(self.real_expr(loop_vars, 2))   # an expression: a temporary, no alias with a
        a = d(st.sampled_from(ARRAYS))
        if name == "fill":
            self.classes.add("call overwrite")
            b = d(st.sampled_from(tuple(n for n in ARRAYS if n != a)))
            args = (ident(a), ident(b), v)
        elif name == "bump":
            args = (ident(a), self.index(loop_vars), v)
        else:
            args = (ident(a), v)
        return mk("call", name, args)

    def state_update(self, var, loop_vars, depth):
        """DO var: a(var) = f(a(var -+ 1), a(var), ...), walking up or down; other statements around."""
        d = self.draw
        self.classes.add("state update")
        a, v, up = d(st.sampled_from(ARRAYS)), ident(var), d(st.booleans())
        inner = tuple(loop_vars) + (var,)
        previous = mk("arrayAccess", ident(a), (mk("sub" if up else "add", v, int_cst(1)),))
        current = mk("arrayAccess", ident(a), (v,))
        rhs = mk(d(st.sampled_from(("add", "mul", "sub"))), previous,
                 mk(d(st.sampled_from(("add", "mul"))), current, self.real_expr(inner, 2)))
        update = mk("assign", current, self.bounded(rhs))
        before = self.block(inner, depth + 1).stmts if d(st.booleans()) else ()
        after = self.block(inner, depth + 1).stmts if d(st.booleans()) else ()
        b = self.base
        lo, hi, step = (b + 1, b + N - 1, 1) if up else (b + N - 2, b, -1)
        return self.counted_loop(var, lo, hi, step, mk("block", *before, update, *after))

    def pointer_walk(self, var, loop_vars, depth) -> tuple:
        """C: p = a + c; for var in 0..N-c-1: p[var] = f(p[var], p[var - 1] when c > 0, ...)."""
        d = self.draw
        self.classes.add("pointer")
        a, c = d(st.sampled_from(ARRAYS)), d(st.integers(0, N - 1))
        p, v = ident("p"), ident(var)
        inner = tuple(loop_vars) + (var,)
        at = lambda i: mk("arrayAccess", p, (i,))  # noqa: E731
        rhs = mk("mul", at(v), self.real_expr(inner, 2))
        if c > 0 and d(st.booleans()):
            rhs = mk("add", at(mk("sub", v, int_cst(1))), rhs)
        self.walking = True
        before = self.block(inner, depth + 1).stmts if d(st.booleans()) else ()
        self.walking = False
        body = mk("block", *before, mk("assign", at(v), self.bounded(rhs)))
        start = mk("add", ident(a), int_cst(c)) if d(st.booleans()) else \
            mk("address", mk("arrayAccess", ident(a), (int_cst(c),)))
        return mk("assign", p, start), self.counted_loop(var, 0, N - 1 - c, 1, body)

    def select(self, loop_vars, depth):
        """SELECT CASE over a small integer: ranges and lists (Fortran), case groups with
        break or falling through (C), and maybe a default."""
        d = self.draw
        self.classes.add("select")
        selector = self.int_mod(mk("add", self.int_expr(loop_vars, 2), int_cst(14)), 6)   # 0..5: see il_gen.index
        cuts = sorted(d(st.sets(st.integers(0, 6), min_size=2, max_size=4)))
        cases = []
        for lo, hi in zip(cuts, cuts[1:]):
            values = tuple(int_cst(n) for n in range(lo, hi))
            if self.lang == "fortran" and len(values) > 1 and d(st.booleans()):
                values = (mk("caseRange", int_cst(lo), int_cst(hi - 1)),)
            elif len(values) > 2:
                values = tuple(d(st.permutations(values)))[:2]
            body = self.block(loop_vars, depth + 1)
            if self.lang == "c" and d(st.integers(0, 3)) != 0:
                body = mk("block", *body.stmts, mk("exit"))   # else it falls through
            cases.append(mk("case", values, body))
        if d(st.booleans()):
            cases.append(mk("case", (), self.block(loop_vars, depth + 1)))
        return mk("switch", selector, tuple(cases), self.lang == "c")

    def loop(self, var, body):
        if self.draw(st.booleans()):
            return super().loop(var, body)
        self.classes.add("stride")
        lo, hi, step = self.draw(st.sampled_from(STRIDED))
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


@st.composite
def wide_programs(draw, lang):
    """(IL file, frozenset of the construct classes it contains: CLASSES[lang])."""
    gen = _WideGen(draw, lang)
    body = gen.block((), 0)
    tree = _program(lang, body, units=helpers(lang, WIDE_HELPERS_SOURCE), locals_=_locals(lang), init=_init(lang))
    return tree, frozenset(gen.classes)
