"""Array-region summaries: which index range of each array or pointer formal a procedure may
read and write, as affine expressions of its integer formals (`u[0..n-1]` from
`for (i = 0; i < n; i++) u[i] = ...`). The adjoint uses them to save, around a call, the
memory a callee may overwrite through a pointer whose size the caller does not know
(Tapenade pushes only its first element there: issue 16).

An index is bounded when it is affine in the indices of the enclosing counted loops and in
integer formals the procedure never assigns; a loop index ranges over [first, last] of its
loop. A formal that is reached any other way (pointer arithmetic on it, an unbounded index, a
call that passes it where the callee's region is not known) has no summary: the caller keeps
refusing. A call passing `f`, `f + k` or `&f[k]` contributes the callee's region shifted by k,
the callee's formals replaced by the actuals.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..engine.il import Node, walk
from .allocators import root_of

_OPAQUE = "opaque"   # a summary being computed (recursion): not known


@dataclass(frozen=True)
class Affine:
    """c + sum(coef * term): terms is a tuple of (term, coef), sorted, each term an IL
    expression (a variable, or a product of variables the caller knows at the call)."""
    terms: tuple
    const: int

    @staticmethod
    def of(value: int = 0, name: str | None = None) -> "Affine":
        return Affine(((Node("ident", (name,)), 1),) if name else (), value)

    def scaled(self, k: int) -> "Affine":
        return Affine(tuple((n, c * k) for n, c in self.terms if c * k), self.const * k)

    def plus(self, other: "Affine") -> "Affine":
        coefs = dict(self.terms)
        for n, c in other.terms:
            coefs[n] = coefs.get(n, 0) + c
        return Affine(tuple(sorted(((n, c) for n, c in coefs.items() if c), key=repr)), self.const + other.const)

    def minus(self, other: "Affine") -> "Affine":
        return self.plus(other.scaled(-1))

    def times(self, other: "Affine") -> "Affine":
        """The product, a product of two terms being a new term."""
        out = self.scaled(other.const).plus(other.scaled(self.const)).minus(Affine((), self.const * other.const))
        for n, c in self.terms:
            for m, d in other.terms:
                out = out.plus(Affine(((Node("mul", tuple(sorted((n, m), key=repr))), c * d),), 0))
        return out

    def substituted(self, values: dict) -> "Affine | None":
        """The form with each variable term replaced by values[name] (None when one is missing)."""
        out = Affine.of(self.const)
        for n, c in self.terms:
            value = values.get(n.kids[0]) if n.op == "ident" else None
            if value is None:
                return None
            out = out.plus(value.scaled(c))
        return out

    def node(self) -> Node:
        """The form as an IL expression."""
        out = None
        for n, c in self.terms:
            term = n if abs(c) == 1 else Node("mul", (Node("intCst", (abs(c), None)), n))
            out = term if out is None and c > 0 else Node("neg", (term,)) if out is None else \
                Node("add" if c > 0 else "sub", (out, term))
        if out is None:
            return Node("intCst", (self.const, None))
        if self.const:
            out = Node("add" if self.const > 0 else "sub", (out, Node("intCst", (abs(self.const), None))))
        return out


Interval = tuple   # (low: Affine, high: Affine), both included


def hulls(intervals) -> tuple:
    """The intervals with those whose bounds differ by constants merged into their hull."""
    out = []
    for low, high in intervals:
        for k, (l2, h2) in enumerate(out):
            dl, dh = low.minus(l2), high.minus(h2)
            if not dl.terms and not dh.terms:
                out[k] = (low if dl.const < 0 else l2, high if dh.const > 0 else h2)
                break
        else:
            out.append((low, high))
    return tuple(out)


@dataclass(frozen=True)
class Region:
    """The index intervals of one array formal a procedure may read and write (None: not known)."""
    read: tuple | None
    written: tuple | None

    def accessed(self) -> tuple | None:
        return None if self.read is None or self.written is None else hulls(self.read + self.written)


class Regions:
    """Region summaries of the program's procedures, computed on demand."""

    def __init__(self, program):
        self.program = program
        self._known = {}

    def of(self, name: str) -> dict:
        """formal name -> Region, for the pointer and array formals of procedure name."""
        known = self._known.get(name)
        if known is _OPAQUE:
            return {}
        if known is None:
            self._known[name] = _OPAQUE
            known = self._known[name] = _Summary(self, self.program.procedure(name)).regions()
        return known

    def at_call(self, proc, call: Node, name: str, written_only: bool) -> tuple | None:
        """The (low, high) sections of the caller's array `name` (C: offsets from name, Fortran:
        indices) that the call (of a procedure of the source) may write (and read, unless
        written_only), affine in the caller's variables; None when some access through an
        actual rooted at name is not bounded or when the call reaches name otherwise than
        through its actuals."""
        callee = self.program.procedure(call.kids[0])
        if not _positional(call.kids[1], callee.formals):
            return None
        regions = self.of(callee.name)
        values = _actual_values(proc, call.kids[1], callee.formals)
        sections = []
        for formal, actual in zip(callee.formals, call.kids[1]):
            base, offset = _base_and_offset(proc, actual)
            sym = proc.scope.lookup(base) if base is not None else None
            if base != name and sym is not None and sym.ptr and sym.formal is None:
                actual = _set_just_before(proc, call, base)
                if actual is None:
                    return None   # a local pointer: it may point into name
                base, offset = _base_and_offset(proc, actual)
            if base != name:
                if root_of(actual) == name and _passes_memory(proc, actual):
                    return None   # name's memory passed in a form not read here (a 2-D row, a section)
                reads = _element_reads(proc, actual, name)   # P_b evaluates the actual again
                if reads is None:
                    return None
                sections.extend(reads)
                continue
            region = regions.get(formal)
            if region is None or offset is None:
                return None
            intervals = region.written if written_only else region.accessed()
            if intervals is None:
                return None
            for low, high in intervals:
                low, high = low.substituted(values), high.substituted(values)
                if low is None or high is None:
                    return None
                sections.append((offset.plus(low), offset.plus(high)))
        return hulls(sections)


class _Summary:
    def __init__(self, regions: Regions, proc):
        self.summaries, self.proc = regions, proc
        body = proc.node.kids[7]
        self.assigned = assigned_names(body)
        self.tracked = {f for f in proc.formals if _is_array_formal(proc, f)}
        self.reads = {f: [] for f in self.tracked}
        self.writes = {f: [] for f in self.tracked}
        self.unknown = set()
        self.body = body
        self.ends = _end_pointers(body, self.tracked) if body is not None else {}
        self.shift, self.moved = {}, set()   # walking pointers: their counter; walked already

    def regions(self) -> dict:
        if self.body is None:
            return {}
        self.visit(self.body, {}, False)
        return {f: Region(None if f in self.unknown else hulls(self.reads[f]),
                          None if f in self.unknown else hulls(self.writes[f])) for f in self.tracked}

    def visit(self, node, env: dict, written: bool):
        if isinstance(node, tuple):
            for k in node:
                self.visit(k, env, False)
            return
        if not isinstance(node, Node):
            return
        op = node.op
        if op == "for":
            self.loop(node, env)
        elif op == "do":
            self.do_loop(node, env)
        elif op == "while" and self.walk_loop(node, env):
            pass
        elif op == "varDecl":   # an end pointer's initial value (e = p + m) is read by walk_loop
            for d in node.kids[2]:
                self.visit((d.kids[1] or ()) + (() if d.kids[0] in self.ends else (d.kids[2],)), env, False)
        elif op == "assign" and _ident(node.kids[0]) in self.ends:
            pass
        elif op == "assign":
            self.visit(node.kids[0], env, True)
            self.visit(node.kids[1], env, False)
        elif op == "arrayAccess" and _ident(node.kids[0]) in self.tracked:
            self.access(_ident(node.kids[0]), node.kids[1], env, written)
        elif op == "deref" and _pointer_sum(node.kids[0], self.tracked):
            base, index = _pointer_sum(node.kids[0], self.tracked)
            self.access(base, (index,), env, written)
        elif op == "call" and self.program_call(node):
            self.call(node, env)
        elif op == "ident" and node.kids[0] in self.tracked or op == "address" and root_of(node) in self.tracked:
            self.unknown.add(root_of(node))   # reached some other way than by an index (an alias)
        elif op in ("arrayAccess", "fieldAccess"):   # a[i].f = ... writes into what a reaches
            self.visit(node.kids[0], env, written)
            self.visit(node.kids[1], env, False)
        else:
            for k in node.kids:
                self.visit(k, env, False)

    def program_call(self, call: Node) -> bool:
        try:
            self.summaries.program.procedure(call.kids[0])
            return True
        except (KeyError, ValueError):
            return False

    def access(self, base: str, indices: tuple, env: dict, written: bool):
        if len(indices) != 1 or self.proc.lang != "c" and indices[0].op == "arrayTriplet":
            self.unknown.add(base)
        else:
            bounds = self.interval(indices[0], env)
            shift = self.shift.get(base)
            if bounds is not None and shift is not None:
                bounds = (bounds[0].plus(shift[0]), bounds[1].plus(shift[1]))
            if bounds is None or base in self.moved:
                self.unknown.add(base)
            else:
                (self.writes if written else self.reads)[base].append(bounds)
                if written:   # a compound update reads what it writes
                    self.reads[base].append(bounds)
        for index in indices:
            self.visit(index, env, False)

    def call(self, call: Node, env: dict):
        callee = self.summaries.program.procedure(call.kids[0])
        if not _positional(call.kids[1], callee.formals):
            self.unknown.update(n.kids[0] for n in walk(call.kids[1]) if n.op == "ident" and n.kids[0] in self.tracked)
            return
        inner = self.summaries.of(callee.name)
        values = {}
        for formal, actual in zip(callee.formals, call.kids[1]):
            bounds = self.interval(actual, env)
            values[formal] = bounds[0] if bounds is not None and bounds[0] == bounds[1] else None
        for formal, actual in zip(callee.formals, call.kids[1]):
            found = _pointer_sum(actual, self.tracked) if actual.op != "ident" or actual.kids[0] in self.tracked \
                else None
            if found is None:
                self.visit(actual, env, False)
                continue
            base, index = found
            offset = self.interval(index, env)
            region = inner.get(formal)
            if offset is None or region is None or region.read is None or region.written is None:
                self.unknown.add(base)
                continue
            for target, intervals in ((self.reads, region.read), (self.writes, region.written)):
                for low, high in intervals:
                    low, high = low.substituted(values), high.substituted(values)
                    if low is None or high is None:
                        self.unknown.add(base)
                    else:
                        target[base].append((offset[0].plus(low), offset[1].plus(high)))

    def loop(self, loop: Node, env: dict):
        init, test, step, body = loop.kids
        found = _counted(init, test, step)
        ends = _two_ends(init, test, step) if found is None else None
        if ends is not None and not set(ends) & assigned_names(body):
            inner = dict(env)
            for var, (first, last) in ends.items():
                low, high = self.interval(first, env), self.interval(last, env)
                inner[var] = None if low is None or high is None else (low[0], high[1])
            for k in (init, test, step):
                self.visit(k, env, False)
            self.visit(body, inner, False)
            return
        if found is None or found[0] in assigned_names(body):
            for k in loop.kids:
                self.visit(k, env, False)
            return
        var, first, last, direction = found
        low, high = self.interval(first, env), self.interval(last, env)
        inner = dict(env)
        if low is None or high is None:
            inner[var] = None
        else:
            inner[var] = (low[0], high[1]) if direction > 0 else (high[0], low[1])
        for k in (init, test, step):
            self.visit(k, env, False)
        self.visit(body, inner, False)

    def walk_loop(self, loop: Node, env: dict) -> bool:
        """`while (p < e) { ...; p++; q++; }` at the top of the body, e = p + M set before it
        and p, q formals that only these increments change: the loop runs M times, *q and
        q[k] in it reach q[t + k] for t in [0, M - 1]; after it, p and q reach nothing known.
        False (not handled) for another loop."""
        test, body = loop.kids[0], loop.kids[1]
        first, end = _ident(test.kids[0]) if test.op == "lt" else None, _ident(test.kids[1]) if test.op == "lt" else None
        position = _position(self.body, loop)
        if end not in self.ends or self.ends[end][0] != first or position is None or self.ends[end][2] >= position:
            return False
        stmts, walkers = body.kids, []
        while len(walkers) < len(stmts) and _increment(stmts[-1 - len(walkers)], self.tracked):
            walkers.append(stmts[-1 - len(walkers)].kids[0].kids[0])
        counts = [sum(1 for n in walk(self.body) if isinstance(n, Node) and (n.op == "assign" and _ident(n.kids[0]) == w
                                                                             or n.op == "address" and _ident(n.kids[0]) == w))
                  for w in walkers]
        trips = self.interval(self.ends[end][1], env)
        if first not in walkers or len(set(walkers)) != len(walkers) or counts != [1] * len(walkers)                 or trips is None or trips[0] != trips[1]:
            return False
        for w in walkers:
            self.shift[w] = (Affine.of(0), trips[0].minus(Affine.of(1)))
        self.visit(stmts[:len(stmts) - len(walkers)], env, False)
        for w in walkers:
            del self.shift[w]
            self.moved.add(w)
        return True

    def do_loop(self, loop: Node, env: dict):
        """DO v = F, T[, S] with a constant stride S: v in [F, T] (S > 0) or [T, F] (S < 0)."""
        var, first, last, stride, body = loop.kids
        inner = dict(env)
        step = 1 if stride is None else int(stride.kids[0]) if stride.op == "intCst" else 0
        low, high = self.interval(first, env), self.interval(last, env)
        known = var.op == "ident" and var.kids[0] not in assigned_names(body) and step and low and high
        if var.op == "ident":
            inner[var.kids[0]] = None if not known else (low[0], high[1]) if step > 0 else (high[0], low[1])
        for k in (first, last, stride):
            self.visit(k, env, False)
        self.visit(body, inner, False)

    def interval(self, expr: Node, env: dict) -> Interval | None:
        """[low, high] of an integer expression over the loops of env, None when not affine."""
        op = expr.op
        if op == "intCst":
            return (Affine.of(int(expr.kids[0])),) * 2
        if op == "ident":
            name = expr.kids[0]
            if name in env:
                return env[name]
            sym = self.proc.scope.lookup(name)
            if sym is None or sym.formal is None or sym.dims or sym.ptr or name in self.assigned or \
                    sym.type is None or sym.type.op != "type" or sym.type.kids[0] != "integer":
                return None
            return (Affine.of(0, name),) * 2
        if op in ("add", "sub"):
            a, b = self.interval(expr.kids[0], env), self.interval(expr.kids[1], env)
            if a is None or b is None:
                return None
            return (a[0].plus(b[0]), a[1].plus(b[1])) if op == "add" else (a[0].minus(b[1]), a[1].minus(b[0]))
        if op == "neg":
            a = self.interval(expr.kids[0], env)
            return None if a is None else (a[1].scaled(-1), a[0].scaled(-1))
        if op == "mul":
            for k, other in ((0, 1), (1, 0)):
                if expr.kids[k].op == "intCst":
                    a, c = self.interval(expr.kids[other], env), int(expr.kids[k].kids[0])
                    if a is None:
                        return None
                    return (a[0].scaled(c), a[1].scaled(c)) if c >= 0 else (a[1].scaled(c), a[0].scaled(c))
            a, b = self.interval(expr.kids[0], env), self.interval(expr.kids[1], env)
            if a is not None and b is not None and a[0] == a[1] and b[0] == b[1] and _product(a[0], b[0]):
                return (_product(a[0], b[0]),) * 2
        return None


def _product(a: Affine, b: Affine) -> Affine | None:
    """a * b when one is a constant (the callee's bounds stay affine)."""
    return a.times(b) if not a.terms or not b.terms else None


def _counted(init, test, step):
    """(var, first, last, direction) of `for (v = F; v < T | v <= T | v > T | v >= T; v += 1 | v -= 1)`
    (C) or `DO v = F, T` (Fortran), the last value included; None for another form."""
    if isinstance(init, Node) and init.op == "varDecl" and len(init.kids[2]) == 1 and init.kids[2][0].kids[2] is not None:
        var, first = init.kids[2][0].kids[0], init.kids[2][0].kids[2]
    elif isinstance(init, Node) and init.op == "assign" and init.kids[0].op == "ident":
        var, first = init.kids[0].kids[0], init.kids[1]
    else:
        return None
    if not (isinstance(step, Node) and step.op == "assign" and _ident(step.kids[0]) == var
            and step.kids[1].op in ("add", "sub") and _ident(step.kids[1].kids[0]) == var
            and step.kids[1].kids[1].op == "intCst" and int(step.kids[1].kids[1].kids[0]) > 0):
        return None
    direction = 1 if step.kids[1].op == "add" else -1
    if not (isinstance(test, Node) and test.op in ("lt", "le", "gt", "ge") and _ident(test.kids[0]) == var):
        return None
    if (test.op in ("lt", "le")) != (direction > 0):
        return None
    bound = test.kids[1]
    if test.op in ("lt", "gt"):
        bound = Node("sub" if test.op == "lt" else "add", (bound, Node("intCst", (1, None))))
    return var, first, bound, direction


def _two_ends(init, test, step) -> dict | None:
    """{i: (Fi, Fj - 1), j: (Fi + 1, Fj)} of `for (i = Fi, j = Fj; i < j; i++, j--)` (the two
    in any order, other assignments beside them; `i <= j`: both in [Fi, Fj]): i runs up from
    Fi and j down from Fj while the test holds, so neither passes the other's first value;
    None for another form."""
    def assigns(part):
        stmts = part.kids if isinstance(part, Node) and part.op == "block" else (part,)
        return [s for s in stmts if isinstance(s, Node) and s.op == "assign" and s.kids[0].op == "ident"]
    firsts = {s.kids[0].kids[0]: s.kids[1] for s in assigns(init)}
    moves = {}
    for s in assigns(step):
        var, value = s.kids[0].kids[0], s.kids[1]
        if value.op in ("add", "sub") and _ident(value.kids[0]) == var and value.kids[1] == Node("intCst", (1, None)):
            moves[var] = 1 if value.op == "add" else -1
    if not isinstance(test, Node) or test.op not in ("lt", "le", "gt", "ge") \
            or _ident(test.kids[0]) is None or _ident(test.kids[1]) is None:
        return None
    up, down = (_ident(k) for k in (test.kids if test.op in ("lt", "le") else test.kids[::-1]))
    if up == down or moves.get(up) != 1 or moves.get(down) != -1 or up not in firsts or down not in firsts:
        return None
    gap = Node("intCst", (1 if test.op in ("lt", "gt") else 0, None))
    return {up: (firsts[up], Node("sub", (firsts[down], gap))), down: (Node("add", (firsts[up], gap)), firsts[down])}


def _ident(node) -> str | None:
    return node.kids[0] if isinstance(node, Node) and node.op == "ident" else None


def _pointer_sum(expr: Node, bases) -> tuple | None:
    """(base, index) of `b`, `b + k`, `k + b`, `b - k` or `&b[k]` for a tracked base b."""
    if expr.op == "ident" and expr.kids[0] in bases:
        return expr.kids[0], Node("intCst", (0, None))
    if expr.op == "address" and expr.kids[0].op == "arrayAccess" and _ident(expr.kids[0].kids[0]) in bases \
            and len(expr.kids[0].kids[1]) == 1:
        return expr.kids[0].kids[0].kids[0], expr.kids[0].kids[1][0]
    if expr.op in ("add", "sub"):
        for k in (0, 1) if expr.op == "add" else (0,):
            if _ident(expr.kids[k]) in bases:
                index = expr.kids[1 - k]
                return expr.kids[k].kids[0], index if expr.op == "add" else Node("neg", (index,))
    return None


def assigned_names(body) -> set:
    """Variables a statement may assign: lhs of assignments, loop indices, C address-taken."""
    out = set()
    for n in walk(body):
        if not isinstance(n, Node):
            continue
        if n.op == "assign" and n.kids[0].op == "ident":
            out.add(n.kids[0].kids[0])
        elif n.op == "address" and n.kids[0].op == "ident":
            out.add(n.kids[0].kids[0])
        elif n.op == "varDecl":
            out.update(d.kids[0] for d in n.kids[2] if d.kids[2] is not None)
    return out


def _is_array_formal(proc, name: str) -> bool:
    sym = proc.scope.lookup(name)
    if sym is None:
        return False
    if proc.lang == "c":
        return sym.ptr == 1 and not sym.dims or sym.ptr == 0 and sym.dims is not None and len(sym.dims) == 1
    return first_index_one(sym)


def first_index_one(sym) -> bool:
    """A Fortran array of rank 1 whose first index is 1."""
    return sym.dims is not None and len(sym.dims) == 1 and sym.dims[0].kids[0] in (None, Node("intCst", (1, None)))


def _base_and_offset(proc, actual: Node):
    """(name, Affine offset) of a caller's actual `u`, `u + k` or `&u[k]` (C), `u` or `u(k)`
    (Fortran, offset k - 1), with k a polynomial of variables; (name, None) when the offset is
    not; (None, None) for another expression."""
    if proc.lang == "c":
        found = _pointer_sum(actual, {n.kids[0] for n in walk(actual) if n.op == "ident"})
    else:   # x or x(k) of a rank-1 x indexed from 1: the callee's x(j) is the caller's x(k + j - 1)
        base = actual.kids[0] if actual.op == "arrayAccess" else actual
        sym = proc.scope.lookup(base.kids[0]) if base.op == "ident" else None
        found = None
        if sym is not None and first_index_one(sym) and actual.op == "ident":
            found = base.kids[0], Node("intCst", (0, None))
        elif sym is not None and first_index_one(sym) and len(actual.kids[1]) == 1 and actual.kids[1][0].op != "arrayTriplet":
            found = base.kids[0], Node("sub", (actual.kids[1][0], Node("intCst", (1, None))))
    if found is None:
        return None, None
    return found[0], affine(found[1])


def _element_reads(proc, expr: Node, name: str) -> list | None:
    """[(k, k)] for each element name[k] (C *name, *(name + k); Fortran name(k)) the value
    expr reads, k an index (C: from 0); None when one is not affine or name is read whole."""
    out, inner = [], set()
    for n in walk(expr):
        if n.op == "arrayAccess" and _ident(n.kids[0]) == name:
            index = affine(n.kids[1][0]) if len(n.kids[1]) == 1 and n.kids[1][0].op != "arrayTriplet" else None
            inner.add(id(n.kids[0]))
        elif n.op == "deref" and proc.lang == "c" and _pointer_sum(n.kids[0], {name}):
            index = affine(_pointer_sum(n.kids[0], {name})[1])
            inner.update(id(k) for k in walk(n.kids[0]) if k.op == "ident")
        elif n.op == "ident" and n.kids[0] == name and id(n) not in inner:
            return None
        else:
            continue
        if index is None:
            return None
        out.append((index, index))
    return out


def _end_pointers(body: Node, tracked) -> dict:
    """e -> (p, M, position): the local pointers e set once, by a statement at the top of the
    body (`double *e = p + M;`, `e = &p[M];`), to a tracked formal p plus M, and read only by
    one test (`p < e`)."""
    out = {}
    for k, stmt in enumerate(body.kids):
        if stmt.op == "varDecl" and len(stmt.kids[2]) == 1 and stmt.kids[2][0].kids[2] is not None:
            name, value, uses = stmt.kids[2][0].kids[0], stmt.kids[2][0].kids[2], 1
        elif stmt.op == "assign" and stmt.kids[0].op == "ident":
            name, value, uses = stmt.kids[0].kids[0], stmt.kids[1], 2
        else:
            continue
        found = _pointer_sum(value, tracked)
        tested = any(isinstance(n, Node) and n.op == "while" and n.kids[0].op == "lt" and _ident(n.kids[0].kids[1]) == name
                     for n in walk(body))
        if found is not None and tested and name not in tracked and sum(
                1 for n in walk(body) if isinstance(n, Node) and n.op == "ident" and n.kids[0] == name) == uses:
            out[name] = (found[0], found[1], k)
    return out


def _position(body: Node, stmt: Node) -> int | None:
    """The index of stmt among the top-level statements of body (None when nested)."""
    return next((k for k, s in enumerate(body.kids) if s is stmt), None)


def _increment(stmt: Node, tracked) -> bool:
    """`w = w + 1` (`w++`, `w = &w[1]`) of a tracked pointer w."""
    return stmt.op == "assign" and _ident(stmt.kids[0]) in tracked and \
        _pointer_sum(stmt.kids[1], {stmt.kids[0].kids[0]}) == (stmt.kids[0].kids[0], Node("intCst", (1, None)))


def _set_just_before(proc, call: Node, pointer: str) -> Node | None:
    """V when the statement just before the call, in its block, is `pointer = V` (V not
    reading pointer): the value the call receives."""
    sid = call.ann.get("sid")
    for block in walk(proc.node.kids[7]):
        if not isinstance(block, Node) or block.op != "block":
            continue
        for k, stmt in enumerate(block.kids):
            if isinstance(stmt, Node) and (stmt is call or sid is not None and stmt.ann.get("sid") == sid) and k > 0:
                before = block.kids[k - 1]
                if isinstance(before, Node) and before.op == "assign" and _ident(before.kids[0]) == pointer \
                        and pointer not in {n.kids[0] for n in walk(before.kids[1]) if n.op == "ident"}:
                    return before.kids[1]
                return None
    return None


def _positional(actuals: tuple, formals) -> bool:
    """Each formal has its actual at its position (no keyword argument, none left out)."""
    return len(actuals) == len(formals) and not any(a.op == "namedArg" for a in actuals)


def _passes_memory(proc, actual: Node) -> bool:
    """The actual gives the callee a reference, not a value: Fortran always; C an address,
    a pointer, or an array indexed fewer times than its levels."""
    if proc.lang != "c" or actual.op in ("address", "ident", "add", "sub", "cast"):
        return True
    sym = proc.scope.lookup(root_of(actual))
    depth, node = 0, actual
    while node.op in ("arrayAccess", "deref"):
        depth, node = depth + (len(node.kids[1]) if node.op == "arrayAccess" else 1), node.kids[0]
    return node.op != "ident" or sym is None or depth < (sym.ptr or 0) + len(sym.dims or ())


def _actual_values(proc, actuals: tuple, formals) -> dict:
    """formal -> Affine value of its actual, in the caller's variables (None when not affine)."""
    return {f: affine(a) for f, a in zip(formals, actuals)}


def affine(expr: Node) -> Affine | None:
    """An integer expression as an affine form of the variables it reads (None otherwise)."""
    op = expr.op
    if op == "intCst":
        return Affine.of(int(expr.kids[0]))
    if op == "ident":
        return Affine.of(0, expr.kids[0])
    if op in ("add", "sub"):
        a, b = affine(expr.kids[0]), affine(expr.kids[1])
        return None if a is None or b is None else a.plus(b) if op == "add" else a.minus(b)
    if op == "neg":
        a = affine(expr.kids[0])
        return None if a is None else a.scaled(-1)
    if op == "mul":
        a, b = affine(expr.kids[0]), affine(expr.kids[1])
        return None if a is None or b is None else a.times(b)
    return None
