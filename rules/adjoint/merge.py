"""Splitting and merging the adjoint statements (paper 4.8, fig. 11): a post-pass on the
backward sweep of each adjoint procedure (with the adjoint initialisations before it), local
to each basic block: a run of assignments and pops; a call, a control statement or an
assignment through a structure field or an address ends a run. The paper describes these
rewrites in words and by the example of fig. 11, without rules: they are reconstructed, each
named and switched off by its `-nooptim` word.

    M-fold-reset   (spareinit)  R = 0 ; ... ; R = R ± E      →  R = ±E
    M-fold-trip    (spareinit)  loop {... R = R ± E ... ; R = 0}  →  loop {... R = ±E ... ; R = 0}
                                where R, a scalar, is 0 before the loop
    M-dead-write   (spareinit)  R = E1 ; ... ; R = E2        →  R = E2    (E2 does not read R)
    M-dead-at-exit (spareinit)  Lb = E last in P_b, Lb the adjoint of a local or a temporary
                                and read by nothing after  →  nothing
    M-merge        (mergediff)  R = E1 ; ... ; R = R ± E2    →  R = E1 ± E2
    M-split        (splitdiff)  ... E ... ; ... E ...        →  temp = E ; ... temp ... ; ... temp ...

Premises of the first four: no statement between the two reads or writes memory that may
be R, nor writes what R's indices read; E2 reads nothing that may be R; the merged statement
goes where the first was when no statement between writes what E2 reads, else where the
second was when none writes what E1 reads, else nothing changes. A pop is a write of its
variable that no rewrite moves. Memory that may be R: a reference to the same variable,
except an element whose index differs from R's by a nonzero constant in some dimension
(ab(n) and ab(n+1)). A procedure with EQUIVALENCE, pointer assignments or C pointers assigned
in its body is left as it is (two names may reach one memory there).

M-fold-trip is M-fold-reset across the trips of a loop (the adjoint of a local of a loop
body, reset at the end of each trip, Tapenade's `exb = 2*ex*fb`): R is 0 before the loop
(assigned 0 in a run before it with nothing between writing it or calling anything, or C's
declaration with the initial value 0 of a scalar the forward sweep does not refer to; no
label nor jump in the backward sweep: flows that join there are not followed), the
last statement of the loop's body that refers to R is `R = 0`, and no jump leaves a trip
early: R is 0 where each trip starts, which each run of the body before a write of R takes
as a leading `R = 0` (dropped where no rewrite uses it).

M-split's premises: E is an expression of operators and intrinsics on real values, found in
at least two places of the run (within windows of WINDOW statements, so that the pass stays
linear on long runs), reading nothing that a statement between its first and last place
writes; and it is worth a temporary: it holds an adjoint (the adjoint of a sub-expression
that reaches several leaves: fig. 11's tempb and tempb0), or costs more than one addition
or multiplication (the partial (z(j)-2.0)/v(j) of the figure's temp). The largest such
expressions are taken first; the temporary is assigned just before the first statement that
holds E. The temporary is `tempb` when E holds an adjoint, `temp` otherwise.

None of these changes a value: a fold adds to an exact zero, a merge keeps the order of the
additions, a temporary holds the value every place computed. tests/test_adjoint_figures.py
checks the two columns of fig. 11 and that every -nooptim variant gives the same adjoint.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from functools import lru_cache

from ...engine.il import EXPRESSION_OPS, Node, has_op, walk, walk_statements
from ..tangent.expressions import OPERATOR_OPS

REFERENCES = ("ident", "arrayAccess", "deref")
POPPED = Node("ident", ("<popped>",))   # the value a pop gives, in a run
WINDOW = 64   # M-split looks for repeated expressions within runs of this many statements
SPLIT_OPS = frozenset(OPERATOR_OPS + ("intrinsic",))
_UNSPLIT = frozenset(REFERENCES + ("realCst", "intCst"))   # nodes _substituted does not go into
_RUN_ENDS = frozenset(("fieldAccess", "address", "call", "pointerSum"))   # see _Improver.in_a_run
_TRIPLET = frozenset(("arrayTriplet",))
_CONSTANTS = frozenset(("realCst", "intCst"))
_NO_KIND = object()   # see _Improver._leaf_kind


def improved(block: Node, ctx, arguments, zero=frozenset()) -> Node:
    """The backward sweep `block` (flattened) of ctx.procedure after the rewrites that
    -nooptim leaves on; `arguments`: the names of P_b's arguments (their adjoints are not
    dead at the exit); `zero`: the scalars that are 0 where it starts (C: the adjoints of
    locals, zero in their declarations)."""
    off = ctx.facts.results.nooptim
    if {"spareinit", "mergediff", "splitdiff"} <= off or _has_aliases(ctx):
        return block
    if _jumps(block):   # a label joins flows that M-fold-trip's straight scan does not follow
        off = off | {"spareinit-trip"}
    return _Improver(ctx, off, frozenset(arguments)).block(block, top=True, zero=zero)


_JUMPS = frozenset(("goto", "computedGoto", "arithmeticIf", "exit", "cycle", "return", "stop"))


def _jumps(block: Node) -> bool:
    """A jump or a label among the statements of block."""
    return any(n.op in _JUMPS or n.ann.get("label") is not None for n in walk_statements(block))


def zero_declared(forward: Node, adjoints) -> frozenset:
    """The scalars of adjoints that the forward sweep (flattened) declares with the value 0
    and does not refer to otherwise: 0 where the backward sweep starts."""
    declared, used = set(), set()
    for stmt in forward.kids:
        if isinstance(stmt, Node) and stmt.op == "varDecl":
            declared |= {d.kids[0] for d in stmt.kids[2] if d.kids[0] in adjoints and d.kids[1] is None
                         and not d.kids[3] and isinstance(d.kids[2], Node) and _is_zero(d.kids[2])}
            used |= {n.kids[0] for d in stmt.kids[2] for n in walk(d.kids[1:3]) if n.op == "ident"}
        else:
            used |= {n.kids[0] for n in walk(stmt) if n.op == "ident"}
    return frozenset(declared - used)


def _has_aliases(ctx) -> bool:
    """Memory reachable by two names (C pointers assigned in the body, EQUIVALENCE, Fortran
    pointers): the root-name test of `_may_be` would not see it; nothing is rewritten."""
    proc = ctx.procedure.node
    for node in walk_statements(proc.kids[6] + ((proc.kids[7],) if proc.kids[7] is not None else ())):
        if node.op in ("equivalence", "pointerAssign"):
            return True
        if node.op == "assign" and node.kids[0].op == "ident":
            sym = ctx.symbol_of(node.kids[0])
            if sym is not None and sym.is_pointer:
                return True
    return False


class _Improver:
    def __init__(self, ctx, off, arguments):
        self.ctx, self.off, self.arguments = ctx, off, arguments
        self.kinds = {}   # temp name -> its real kind
        self.ref_kinds = {}   # id(reference) -> (the reference, its kind by its declaration)
        self.pops = {}    # id of a run's `R = <popped>` -> the pop statement
        self.originals = ctx.names.originals()   # adjoint name -> its variable's
        self.adjoints = set(self.originals)        # and the adjoint temporaries
        self.summaries = {}   # id(statement or block) -> (it, its summary): see summary

    # --- blocks and runs -----------------------------------------------------------------------
    def block(self, block: Node, top: bool = False, zero=frozenset(), seeding: bool = False) -> Node:
        """block improved; zero: the scalars known to be 0 where it starts, followed through
        it for the loops in it (M-fold-trip), and folded into its runs when seeding (the body
        of such a loop)."""
        out, run, zero = [], [], set(zero)
        at_run = frozenset()   # the scalars known to be 0 where the run starts
        for kid in block.kids:
            plain = self.in_a_run(kid)
            if plain or _is_pop(kid):
                if not run and seeding:
                    at_run = frozenset(zero)
                if plain:
                    run.append(kid)
                else:  # in the run as `R = <popped>`: a write of R that no rewrite moves
                    target = kid.kids[1][0]
                    run.append(Node("assign", (target.kids[0] if target.op == "address" else target, POPPED)))
                    self.pops[id(run[-1])] = kid
                written = run[-1].kids[0]
                if written.op == "ident" and _is_zero(run[-1].kids[1]):
                    zero.add(written.kids[0])
                else:
                    zero.discard(_root(written))
                continue
            out.extend(self.run(run, zero=at_run))
            run = []
            out.append(self.inside(kid, zero))
            if zero:
                calls, names, _, _ = self.summary(kid)
                if calls:
                    zero.clear()   # a call may change a global's adjoint
                else:
                    zero -= names
        out.extend(self.run(run, at_exit=top, zero=at_run))
        return Node("block", tuple(out), block.ann)

    def inside(self, stmt, zero=frozenset()):
        """A control statement with its blocks improved (each is a basic block of its own);
        zero: the scalars known to be 0 before it."""
        if not isinstance(stmt, Node) or stmt.op not in ("if", "do", "for", "switch"):
            return stmt
        if stmt.op == "switch":
            cases = tuple(c.with_kids(c.kids[0], self.block(c.kids[1])) for c in stmt.kids[1])
            return stmt.with_kids(stmt.kids[0], cases, stmt.kids[2])
        body = stmt.kids[-1] if stmt.op in ("do", "for") else None
        trip = self._zero_at_each_trip(body, zero) if body is not None and not {"spareinit", "spareinit-trip"} & self.off \
            else frozenset()
        return stmt.with_kids(*(self.block(k, zero=trip, seeding=True) if k is body and trip else self.block(k)
                                if isinstance(k, Node) and k.op == "block" else k for k in stmt.kids))

    def _zero_at_each_trip(self, body: Node, zero) -> frozenset:
        """M-fold-trip: the scalars of zero (0 before the loop) that are 0 again at the end of
        each trip of the loop whose body is `body`: the last statement of the body that refers
        to one is `R = 0`, and no jump leaves a trip early."""
        reset = {s.kids[0].kids[0] for s in body.kids if isinstance(s, Node) and s.op == "assign"
                 and s.kids[0].op == "ident" and _is_zero(s.kids[1])} & zero
        if not reset:
            return frozenset()
        last = {}   # name -> the last statement of the body that refers to it
        for stmt in body.kids:
            _, names, jumps, _ = self.summary(stmt)
            if jumps:
                return frozenset()
            for name in reset & names:
                last[name] = stmt
        return frozenset(name for name in reset if last[name].op == "assign"
                         and last[name].kids[0] == Node("ident", (name,)) and _is_zero(last[name].kids[1]))

    def in_a_run(self, stmt) -> bool:
        """An assignment of references, operators and constants (a field, an address or a call
        reads memory the root-name test does not see: it ends the run). Asked of the summary,
        whose walk M-fold-trip and the zero scalars need too."""
        return type(stmt) is Node and stmt.op == "assign" and stmt.kids[0].op in REFERENCES \
            and not self.summary(stmt)[3]

    def summary(self, stmt) -> tuple:
        """(whether stmt calls a procedure or function other than a pop, the names of the
        identifiers in it, whether a jump is in it, whether an operator of _RUN_ENDS is in
        it), for the original statements of the sweep: that of each block in it computed
        once (and those asked before reused), where walking each control statement whole at
        each level of a nest would be quadratic in its depth."""
        known = self.summaries.get(id(stmt))
        if known is not None and known[0] is stmt:
            return known[1]
        calls, names, jumps, ends = False, set(), False, False
        stack = [stmt]
        pop, push = stack.pop, stack.extend
        while stack:
            x = pop()
            kind = type(x)
            if kind is tuple:
                push(x)
            elif kind is Node:
                op = x.op
                if op == "ident":
                    names.add(x.kids[0])
                    continue
                if op in _CONSTANTS:
                    continue
                if x is not stmt and op not in EXPRESSION_OPS:
                    known = self.summaries.get(id(x))
                    if known is None and op == "block":
                        self.summary(x)
                        known = self.summaries[id(x)]
                    if known is not None and known[0] is x:
                        c, n, j, e = known[1]
                        calls, jumps, ends = calls or c, jumps or j, ends or e
                        names |= n
                        continue
                if op in _RUN_ENDS:
                    ends = True
                    if op == "call":
                        calls = calls or not _is_pop(x)
                elif op in _JUMPS:
                    jumps = True
                push(x.kids)
        found = (calls, names, jumps, ends)
        self.summaries[id(stmt)] = (stmt, found)
        return found

    def run(self, run: list, at_exit: bool = False, zero=frozenset()) -> list:
        if not run:
            return []
        seeds = self._seeds(run, zero) if zero and not {"spareinit", "spareinit-trip"} & self.off else []
        stmts = [s for s in _Run(seeds + run, self.off).merged() if s is not None and not any(s is z for z in seeds)]
        if at_exit and "spareinit" not in self.off:
            stmts = self._without_dead_at_exit(stmts)
        if "splitdiff" not in self.off:
            stmts = [s for k in range(0, len(stmts), WINDOW) for s in self._split(stmts[k:k + WINDOW])]
        out = [self.pops.get(id(s), s) for s in stmts]
        self.pops.clear()   # the ids of this run's `R = <popped>` may come back
        return out

    def _seeds(self, run: list, zero) -> list:
        """`R = 0` for each scalar R of zero that the run refers to, for M-fold-reset to fold
        into the run's first increment of R (the seeds that no rewrite takes are dropped)."""
        named = set()
        for stmt in run:   # (the body's statements: M-fold-trip's test summarised them)
            named |= zero & self.summary(stmt)[1]
        return [Node("assign", (Node("ident", (name,)), Node("realCst", ("0.0", 8)))) for name in sorted(named)]

    def _touches(self, stmt: Node, ref: Node) -> bool:
        """stmt reads or writes memory that may be ref."""
        return _may_be(stmt.kids[0], ref) or any(_may_be(r, ref) for r in _reads(stmt))

    def _writes_read_by(self, stmt: Node, expr) -> bool:
        """stmt writes memory that expr reads."""
        return any(_may_be(stmt.kids[0], r) for r in _references(expr))


    # --- M-dead-at-exit ----------------------------------------------------------------------
    def _without_dead_at_exit(self, stmts: list) -> list:
        """The adjoints of locals (and temporaries) are dead when P_b returns: a last write
        read by nothing after it is dropped."""
        local = {name for name in self.ctx.names.derivative_names() - self.arguments if self._local(name)}
        out = list(stmts)
        for k in range(len(out) - 1, -1, -1):
            lhs = out[k].kids[0]
            if out[k].kids[1] is not POPPED and lhs.op in ("ident", "arrayAccess") and _root(lhs) in local and not any(self._touches(s, lhs) and not _plain_write_of(s, lhs) for s in out[k + 1:]):
                del out[k]
        return out

    def _local(self, adjoint: str) -> bool:
        """The adjoint of a variable of the procedure's own (not a global, COMMON or SAVE one,
        whose adjoint lives on after P_b returns), or an adjoint temporary."""
        original = self.originals.get(adjoint)
        if original is None:
            return True
        scope = self.ctx.procedure.scope
        sym = scope.lookup(original)
        return sym is not None and scope.owner_of(original)[0] is scope and sym.common is None \
            and not {"save", "static"} & set(sym.attrs or ())

    # --- M-split ---------------------------------------------------------------------------------
    def _split(self, stmts: list) -> list:
        """M-split over a window: the repeated expressions found in one walk, the largest
        first; each place keeps its statement last, the temporaries put before it (a
        temporary of a smaller expression goes before that of a larger one holding it)."""
        counts = _Occurrences(self.adjoints)
        for k, stmt in enumerate(stmts):
            counts.scan(stmt, k)
        written = [_root(stmt.kids[0]) for stmt in stmts]   # a rewrite keeps each place's lhs
        kinds = {}   # see _kind
        places, changed = [[stmt] for stmt in stmts], set()   # changed: the places rewritten so far
        firsts = counts.firsts
        repeated = [c for c, ks in enumerate(counts.places) if ks is not None and len(ks) > 1]
        for c in sorted(repeated, key=lambda c: -counts.size(firsts[c])):
            expr, positions = firsts[c], counts.places[c]
            adjoint = counts.holds_adjoint(expr)
            if not (adjoint or _costly(expr)):
                continue
            holding = positions if changed.isdisjoint(positions) else self._recounted(positions, changed, places, counts, c)
            if len(holding) < 2:
                continue
            kind = self._kind(expr, kinds)   # (asked first: its walk is kept for the expressions in expr)
            if kind is None:
                continue
            read = {_root(r) for r in _references(expr)}
            if any(written[k] in read and self._writes_read_by(places[k][-1], expr) for k in range(holding[0], holding[-1])):
                continue
            temp = self.ctx.fresh("tempb" if adjoint else "temp", kind)
            self.kinds[temp.kids[0]] = kind
            if adjoint:
                self.adjoints.add(temp.kids[0])
            inner = counts.inner(expr)
            for k in dict.fromkeys(holding):
                places[k] = counts.rewritten(places[k], c, inner, temp)
                changed.add(k)
            places[holding[0]].insert(0, counts.definition(temp, expr, inner))
        return [stmt for place in places for stmt in place]

    @staticmethod
    def _recounted(positions: list, changed: set, places: list, counts, c: int) -> list:
        """positions (the scan's places of class c) with those of the places rewritten since
        counted again: an unchanged place keeps the scan's count."""
        holding, last = [], None
        for k in positions:
            if k not in changed:
                holding.append(k)
            elif k != last:
                holding.extend([k] * counts.of(places[k], c))
                last = k
        return holding

    def _kind(self, expr: Node, memo: dict):
        """The real kind expr computes in; None when it is no real expression of operators,
        intrinsics, references and constants (an integer, a call, a structure). memo: the
        window's expressions met so far by id, with their kinds (one of a smaller candidate
        is in a larger one, or shared)."""
        kind = self._leaf_kind(expr, memo)
        return None if kind is _NO_KIND else kind

    def _leaf_kind(self, node, memo):
        """The largest real kind of the leaves of node, None when none is real, _NO_KIND
        when one is no reference nor constant (or not real)."""
        if type(node) is not Node:
            return _NO_KIND
        op = node.op
        if op in SPLIT_OPS:
            known = memo.get(id(node))
            if known is not None and known[0] is node:
                return known[1]
            best = None
            for kid in (node.kids[1] if op == "intrinsic" else node.kids):
                kind = self._leaf_kind(kid, memo)
                if kind is _NO_KIND:
                    best = kind
                    break
                if kind is not None:
                    best = kind if best is None else max(best, kind)
            memo[id(node)] = (node, best)
            return best
        if op == "realCst":
            return node.kids[1] or 4
        if op in REFERENCES:
            kind = self._reference_kind(node)
            return _NO_KIND if kind is None else kind
        return None if op == "intCst" else _NO_KIND

    def _reference_kind(self, ref: Node):
        """The real kind of a scalar reference; None for another type or an array value (a
        whole array or a section: a temporary would need its shape)."""
        name = _root(ref)
        if name in self.kinds:
            return self.kinds[name]
        known = self.ref_kinds.get(id(ref))   # M-split asks it of the same leaves again and again
        if known is None or known[0] is not ref:
            known = self.ref_kinds[id(ref)] = (ref, self._declared_kind(ref, name))
        return known[1]

    def _declared_kind(self, ref: Node, name: str):
        sym = self.ctx.procedure.scope.lookup(self.originals.get(name, name))
        if has_op(ref, _TRIPLET) or ref.op == "ident" and sym is not None and sym.dims:
            return None
        typ = sym.type if sym is not None else None
        while typ is not None and typ.op == "pointerType":
            typ = typ.kids[0]
        if typ is None or typ.op != "type" or typ.kids[0] != "real":
            return None
        return typ.kids[1] or 4


class _Run:
    """M-fold-reset, M-dead-write and M-merge over one run, in one pass: for each statement
    R = ..., the last earlier statement that uses R is found among those that use R's
    variable (`uses`), and the writes crossed by a moved expression among those that write
    its variables (`writes`); a statement dropped is None."""

    def __init__(self, run: list, off):
        self.stmts, self.off = list(run), off
        self.uses, self.writes = {}, {}   # variable -> the indices of the statements using / writing it
        self.reads = {}   # index -> _reads of the statement there

    def merged(self) -> list:
        for j in range(len(self.stmts)):
            self._second(j)
            if self.stmts[j] is not None:
                self._index(j, self.stmts[j])
        return self.stmts

    def _index(self, k: int, stmt: Node, reads: tuple | None = None) -> None:
        reads = self.reads[k] = _reads(stmt) if reads is None else reads
        written = _root(stmt.kids[0])
        roots = {_root(r) for r in reads}
        roots.add(written)
        for root in roots:
            _insert(self.uses, root, k)
        _insert(self.writes, written, k)

    def _second(self, j: int) -> None:
        second = self.stmts[j]
        lhs = second.kids[0]
        own = _increment(second)
        if own is None and any(_may_be(r, lhs) for r in _references(second.kids[1])):
            return
        i = self._last_use(lhs, j)
        if i is None or self.stmts[i].kids[0] != lhs \
                or any(self._written(r, i, j) for k in _indices(lhs) for r in _references(k)):
            return  # R is used in between, or its indices change
        first = self.stmts[i]
        if first.kids[1] is POPPED or second.kids[1] is POPPED and own is not None:
            return  # a pop stays (the stack), and is no value to merge into
        if own is None:  # the second overwrites R: the first is dead (M-dead-write)
            if "spareinit" not in self.off:
                self.stmts[i] = None
            return
        if ("spareinit" if _is_zero(first.kids[1]) else "mergediff") in self.off:
            return
        sign, term = own
        if any(_may_be(r, lhs) for r in _references(term)):
            return
        merged = Node("assign", (lhs, _combined(first.kids[1], sign, term)), first.ann)
        if not any(self._written(r, i, j) for r in _references(term)):
            self.stmts[i], self.stmts[j] = merged, None   # E2 moves up to the first statement
            # what merged reads, in _reads's order: term's references walked before E1's
            self._index(i, merged, _references(term) + self.reads[i])
        elif not any(self._written(r, i, j) for r in _references(first.kids[1])):
            self.stmts[i], self.stmts[j] = None, merged   # E1 moves down to the second

    def _last_use(self, ref: Node, j: int):
        """The index of the last statement before j that may use ref."""
        for k in reversed(self.uses.get(_root(ref), ())):
            stmt = self.stmts[k]
            if k < j and stmt is not None and (_may_be(stmt.kids[0], ref) or any(_may_be(r, ref) for r in self.reads[k])):
                return k
        return None

    def _written(self, ref: Node, i: int, j: int) -> bool:
        """A statement strictly between i and j writes memory that may be ref."""
        found = self.writes.get(_root(ref), ())
        for k in found[bisect_right(found, i):bisect_left(found, j)]:
            if self.stmts[k] is not None and _may_be(self.stmts[k].kids[0], ref):
                return True
        return False


def _insert(indices: dict, key, k: int) -> None:
    """k put in order in indices[key] (the run's statements come in order: most go last)."""
    found = indices.get(key)
    if found is None:
        indices[key] = [k]
    elif found[-1] <= k:
        found.append(k)
    else:
        insort(found, k)


# --- trees --------------------------------------------------------------------------------------
def _root(ref: Node):
    while type(ref) is Node:
        op = ref.op
        if op == "ident":
            return ref.kids[0]
        if op != "arrayAccess" and op != "deref":
            return None
        ref = ref.kids[0]
    return None


@lru_cache(maxsize=65536)
def _references(expr) -> tuple:
    """The references expr reads, outermost (ab(i + 1), not the ab in it), those inside
    indices included."""
    out, stack = [], [expr]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is tuple:
            push(node)
        elif kind is Node:
            op = node.op
            if op == "ident":
                out.append(node)
            elif op in REFERENCES:
                out.append(node)
                push(_indices(node))
                if op == "deref":   # the pointer is read too
                    stack.append(node.kids[0])
            elif op not in _CONSTANTS:
                push(node.kids)
    return tuple(out)


def _reads(stmt: Node) -> tuple:
    """The references an assignment reads: its rhs's and its lhs's indices'."""
    lhs, rhs = stmt.kids
    if lhs.op == "ident":
        return _references(rhs)
    return _references(rhs) + tuple(r for k in _indices(lhs) for r in _references(k))


def _may_be(a: Node, b: Node) -> bool:
    """Whether the references a and b may denote overlapping memory: same variable, and
    not two elements whose indices differ by a nonzero constant."""
    root = _root(a)
    return root is not None and root == _root(b) and not distinct_elements(a, b)


def references_to(expr, root: str, out: list | None = None) -> list:
    """The references to variable root in expr, outermost first (a(n+1), not its a), after
    those already in out."""
    out = [] if out is None else out
    stack = [expr]   # pre-order, without recursion: the rules ask it of every assignment
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is tuple:
            push(node[::-1])
        elif kind is Node:
            if node.op in REFERENCES and _root(node) == root:
                out.append(node)
                push(_indices(node)[::-1])
            else:
                push(node.kids[::-1])
    return out


def _indices(ref: Node) -> list:
    out = []
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "deref"):
        if ref.op == "arrayAccess":
            out.extend(ref.kids[1])
        ref = ref.kids[0]
    return out


def _costly(expr: Node) -> bool:
    """Worth a temporary of its own: more than one operation, or a division, a power or
    an intrinsic (tau - w(i, j) alone is not)."""
    return expr.op in ("div", "power", "intrinsic") or has_op(expr.kids, SPLIT_OPS)


class _Occurrences:
    """The statements of a window, each with the number of times each operator or intrinsic
    expression is in its right-hand side, and the sizes of those expressions. Each
    statement is walked once: a rewritten one gets the counts of the one it replaces, less
    what the rewrite took out. The counts of the expressions holding a replaced one are
    left as they were: M-split asks about smaller expressions only from then on.
    The expressions equal in value are one class, a number: each object met is hashed
    (a deep hash, through Node.__hash__) once, and counts and places are kept by class."""

    def __init__(self, adjoints):
        self.known = {}   # id(stmt) -> (stmt, its counts by class): stmt kept, so that its id stays its own
        self.sizes = {}   # id(expression) -> its number of nodes (the window's statements keep them)
        self.adjoints, self.holding = adjoints, set()   # the ids of the expressions holding an adjoint
        # the classes of the operator and intrinsic expressions met, pre-order, and
        # id(expression) -> the slice of trail that it and those in it took: the adjoint's
        # statements share subtrees (a partial in several increments), each walked once in a window
        self.trail, self.spans = [], {}
        self.classes = {}   # expression -> its class
        self.firsts = []    # class -> the first expression met of it
        self.places = []    # class -> the indices of the statements holding it, once per place (None: neg, pos)

    def scan(self, stmt: Node, k: int) -> None:
        """Counts statement k, each of its expressions placed."""
        counts = {}
        _scan(stmt.kids[1], (k, counts, self.sizes, self.adjoints, self.holding, self.trail, self.spans,
                             self.classes, self.firsts, self.places))
        self.known[id(stmt)] = (stmt, counts)

    def size(self, expr: Node) -> int:
        return self.sizes[id(expr)]

    def inner(self, expr: Node) -> dict:
        """The classes of the operator and intrinsic expressions in expr (of the window's
        statements, expr included), each with its number of places."""
        counts = {}
        start, end = self.spans[id(expr)]
        for c in self.trail[start:end]:
            counts[c] = counts.get(c, 0) + 1
        return counts

    def holds_adjoint(self, expr: Node) -> bool:
        """expr (of the window's statements) reads an adjoint."""
        return id(expr) in self.holding

    def of(self, stmts: list, c: int) -> int:
        """The places the expressions of class c have in the right-hand sides of stmts."""
        return sum(self.known[id(stmt)][1].get(c, 0) for stmt in stmts)

    def rewritten(self, stmts: list, c: int, inner: dict, temp: Node) -> list:
        """stmts with the expressions of class c (whose own counts are inner) replaced by temp."""
        out = []
        expr = self.firsts[c]
        for stmt in stmts:
            counts = self.known[id(stmt)][1]
            replaced = [0]
            places = counts.get(c, 0)
            new = _substituted(stmt, (expr, self.sizes[id(expr)], temp, self.sizes, replaced, hash(expr), places)) \
                if places else stmt
            if new is not stmt:
                counts = dict(counts)
                for inside, n in inner.items():
                    counts[inside] -= n * replaced[0]
                self.known[id(new)] = (new, counts)
            out.append(new)
        return out

    def definition(self, temp: Node, expr: Node, inner: dict) -> Node:
        """temp = expr."""
        stmt = Node("assign", (temp, expr))
        self.known[id(stmt)] = (stmt, inner)   # rewritten copies the counts it changes
        return stmt


def _scan(node: Node, window: tuple) -> tuple:
    """The walk of statement k's rhs, window = (k, counts, sizes, adjoints, holding, trail,
    spans, classes, firsts, places): each operator or intrinsic expression under node,
    pre-order, given its class, counted in counts and placed, its number of nodes put in
    sizes, its id in holding if it holds an adjoint (a name in adjoints); returns (node's
    number of nodes, whether it holds one). A node met before in the window is not walked
    again: the classes of its slice of trail are counted and placed."""
    k, counts, sizes, adjoints, holding, trail, spans, classes, firsts, places = window
    op = node.op
    if op == "ident":
        return 1, node.kids[0] in adjoints
    if op not in SPLIT_OPS:
        size, adjoint = _scan_kids(node.kids, window)
        return size + 1, adjoint
    span = spans.get(id(node))
    if span is not None:
        inners = trail[span[0]:span[1]]
        trail.extend(inners)   # in the slice of the expression being walked, if any
        for c in inners:
            counts[c] = counts.get(c, 0) + 1
            found = places[c]
            if found is not None:
                found.append(k)
        return sizes[id(node)], id(node) in holding
    start = len(trail)
    new = len(firsts)
    c = classes.setdefault(node, new)
    if c == new:
        firsts.append(node)
        places.append(None if op in ("neg", "pos") else [])
    trail.append(c)
    counts[c] = counts.get(c, 0) + 1
    found = places[c]
    if found is not None:
        found.append(k)
    size, adjoint = _scan_kids(node.kids, window)
    size += 1
    sizes[id(node)] = size
    spans[id(node)] = (start, len(trail))
    if adjoint:
        holding.add(id(node))
    return size, adjoint


def _scan_kids(kids: tuple, window: tuple) -> tuple:
    size, adjoint = 0, False
    for kid in kids:
        if type(kid) is Node:
            op = kid.op
            if op in _CONSTANTS:   # a leaf: no call
                size += 1
                continue
            if op == "ident":   # a leaf too
                size += 1
                adjoint = adjoint or kid.kids[0] in window[3]
                continue
            n, a = _scan(kid, window)
        elif type(kid) is tuple:   # a list of operands
            n, a = _scan_kids(kid, window)
        else:
            continue
        size += n
        adjoint = adjoint or a
    return size, adjoint


def _substituted(node: Node, rewrite: tuple) -> Node:
    """node with each occurrence of expr replaced by temp, rewrite = (expr, its size, temp,
    the sizes of the window's expressions by id, [the number of places replaced], its hash,
    its number of places in node): not inside references (a real expr is in no index), nor
    in an expression of the window no larger than expr (but expr itself); node itself when
    expr is not in it. The walk stops at the last place (the scan counted them; those in
    indices too, where the walk does not go: then it walks to the end)."""
    kids = node.kids
    done = _substituted_kids(kids, rewrite)
    return node if done is kids else Node(node.op, done, node.ann)


def _substituted_kids(kids: tuple, rewrite: tuple) -> tuple:
    expr, size, temp, sizes, replaced, hashed, places = rewrite
    new = None
    for i, kid in enumerate(kids):
        if replaced[0] == places:
            break
        kind = type(kid)
        if kind is Node:
            if kid.op in _UNSPLIT:
                continue
            n = sizes.get(id(kid))
            if n is not None and n <= size:
                # the scan hashed the window's expressions: a different hash spares a deep comparison
                if n < size or kid.op != expr.op or kid._hash != hashed or kid != expr:
                    continue   # an expression of expr's size holds it only by being it
                done = temp
                replaced[0] += 1
            elif n is None and kid == expr:   # (a node of an earlier rewrite, or no operator)
                done = temp
                replaced[0] += 1
            else:
                done = kid.kids
                done = _substituted_kids(done, rewrite)
                if done is kid.kids:
                    continue
                done = Node(kid.op, done, kid.ann)
        elif kind is tuple:
            done = _substituted_kids(kid, rewrite)
        else:
            continue
        if done is not kid:
            if new is None:
                new = list(kids)
            new[i] = done
    return kids if new is None else tuple(new)


def _is_pop(stmt) -> bool:
    """A pop of the stack (popReal8(&x), CALL POPREAL8(x), popControl1b(&branch))."""
    return isinstance(stmt, Node) and stmt.op == "call" and stmt.kids[0].lower().startswith("pop") \
        and len(stmt.kids[1]) == 1


def _increment(stmt: Node):
    """(sign, E) of `R = R + E` / `R = R - E`, else None."""
    lhs, rhs = stmt.kids
    if rhs.op in ("add", "sub") and rhs.kids[0] == lhs:
        return rhs.op, rhs.kids[1]
    return None


def _plain_write_of(stmt: Node, ref: Node) -> bool:
    return stmt.kids[0] == ref and not any(r == ref for r in _references(stmt.kids[1]))


def _is_zero(expr: Node) -> bool:
    return expr.op in ("realCst", "intCst") and float(expr.kids[0]) == 0.0


def _combined(first: Node, sign: str, term: Node) -> Node:
    """first ± term; ±term alone when first is 0."""
    if _is_zero(first):
        return term if sign == "add" else Node("neg", (term,))
    return Node(sign, (first, term))


def _offset(expr: Node):
    """(base, c) with expr = base + c for an integer constant c (base None: expr is c)."""
    if expr.op == "intCst":
        return None, expr.kids[0]
    if expr.op in ("add", "sub") and expr.kids[1].op == "intCst":
        base, c = _offset(expr.kids[0])
        return base, c + (expr.kids[1].kids[0] if expr.op == "add" else -expr.kids[1].kids[0])
    return expr, 0


def distinct_elements(a: Node, b: Node) -> bool:
    """Two elements of one array whose indices differ by a nonzero constant in some
    dimension (ab(n) and ab(n+1))."""
    if a.op != "arrayAccess" or b.op != "arrayAccess" or len(a.kids[1]) != len(b.kids[1]):
        return False
    if a.kids[0] != b.kids[0] and not distinct_elements(a.kids[0], b.kids[0]):
        return False
    if a.kids[0] != b.kids[0]:
        return True
    for x, y in zip(a.kids[1], b.kids[1]):
        if not isinstance(x, Node) or not isinstance(y, Node) or x.op == "arrayTriplet" or y.op == "arrayTriplet":
            continue
        (bx, cx), (by, cy) = _offset(x), _offset(y)
        if bx == by and cx != cy:
            return True
    return False
