"""Loop order in the backward sweep (issue 16; reconstructed, not in the paper): a post-pass on
the backward sweep of each Fortran adjoint procedure, after the rewrites of 4.8 (merge.py),
switched off by `-nooptim looporder`.

The loop rule of 5.4 reverses each loop where it stands, so a primal nest that walks an
array across its rows (`do i; do j; a(i) = a(i) + w(i, j)*h(j)`, the inner index in
Fortran's slow dimension) gives a backward nest that walks two arrays across their rows,
w and wb, and the increments of wb(i, j) miss the cache where the primal's reads of w
alone did not. The adjoint of an inner loop whose body only increments adjoints commutes
with the rest of the outer loop's trips, and its trips commute with each other, so the
inner loop can leave the outer loop and run its trips column by column:

    L-interchange   do i = OI; ..; [V = E]; do j = OJ; INCS; end do; REST; end do
                →   [V = E]; do j = OJ; do i = OI; INCS; end do; end do; do i = OI; ..; REST; end do

where `..` is what stood before, and the premises are:
- INCS are increments `X = X ± E` (no call, field, pointer or address), each X an element
  whose indices hold i or j as one index (each element of X is then incremented along one
  line of the iteration space, in the same order either way: the sums are the same to the
  last bit), every reference to X's variable in INCS being X itself, and E, X's indices
  and the bounds OJ reading no variable INCS write;
- OJ reads neither i nor a variable that the outer loop's body writes, except V, and V is
  read nowhere else in the backward sweep (the fresh last index A-bounds-fixed assigns just
  before the backward loop, E reading nothing the outer body writes nor i); OI reads
  nothing INCS write nor j;
- the statements of the outer body are assignments, pops, IFs and DO loops (no jump, no
  other call: the stack's order is kept as no pop moves); each variable INCS read or write
  that the rest of the outer body writes, or that INCS write and the rest reads, is referred
  to only after the inner loop and always through one index that is i itself, in the same
  place: the trips of the outer loop touch distinct elements of it, and within a trip the
  inner loop still comes first;
- j is read nowhere in the backward sweep outside a DO loop on j (its value after the
  loops is nobody's);
- and it pays: more references in INCS run across the slow dimensions of their arrays
  (an index other than the first holds the inner index) with j inner than with i inner.

No value changes: each element receives the same increments in the same order. C (whose
arrays are rows of rows, and whose loops A-for writes) is left as it is, as is a procedure
where memory may have two names (merge._has_aliases).
"""
from __future__ import annotations

from ...engine.il import Node, walk
from .merge import _has_aliases, _references, _root, references_to

STATEMENTS = frozenset(("block", "assign", "if", "do", "nop", "comment", "call"))
OPAQUE = frozenset(("call", "fieldAccess", "deref", "address", "pointerSum"))


def reordered(block: Node, ctx) -> Node:
    """The backward sweep `block` of ctx.procedure after L-interchange (see above)."""
    if ctx.c or "looporder" in ctx.facts.results.nooptim or _has_aliases(ctx) \
            or not any(n.op == "do" for n in walk(block)):
        return block
    return _Reorder(block).block(block)


class _Reorder:
    def __init__(self, sweep: Node):
        self.sweep, self._counts, self._loose = sweep, None, None

    def counts(self) -> dict:
        """name -> its identifiers in the sweep (found once, when a nest first needs them)."""
        if self._counts is None:
            self._counts = {}
            for node in walk(self.sweep):
                if node.op == "ident":
                    self._counts[node.kids[0]] = self._counts.get(node.kids[0], 0) + 1
        return self._counts

    def loose(self) -> set:
        """The names read somewhere in the sweep outside a DO loop on them."""
        if self._loose is None:
            self._loose = set()
            self._find_loose(self.sweep, frozenset())
        return self._loose

    def _find_loose(self, node, looping: frozenset) -> None:
        if isinstance(node, tuple):
            for kid in node:
                self._find_loose(kid, looping)
        elif isinstance(node, Node):
            if node.op == "ident" and node.kids[0] not in looping:
                self._loose.add(node.kids[0])
            elif node.op == "do" and node.kids[0].op == "ident":
                self._find_loose(node.kids[1:], looping | {node.kids[0].kids[0]})
            else:
                self._find_loose(node.kids, looping)

    def block(self, block: Node) -> Node:
        out = []
        for stmt in block.kids:
            if isinstance(stmt, Node) and stmt.op in ("if", "do"):
                stmt = stmt.with_kids(*(self.block(k) if isinstance(k, Node) and k.op == "block" else k
                                        for k in stmt.kids))
                if stmt.op == "do":
                    hoisted, stmt = self.interchanged(stmt)
                    out.extend(hoisted)
            out.append(stmt)
        return Node("block", tuple(out), block.ann)

    def interchanged(self, outer: Node) -> tuple:
        """(the nests taken out of the DO loop outer, what is left of it)."""
        if outer.kids[0].op != "ident" or outer.kids[4].op != "block":
            return (), outer
        hoisted = []
        while True:
            body = list(outer.kids[4].kids)
            for k, inner in enumerate(body):
                nest = self._nest(outer, body, k)
                if nest is not None:
                    taken, nest = nest
                    hoisted.extend(nest)
                    rest = tuple(s for n, s in enumerate(body) if n not in taken)
                    outer = outer.with_kids(*outer.kids[:4], Node("block", rest, outer.kids[4].ann))
                    break
            else:
                return tuple(hoisted), outer

    def _nest(self, outer: Node, body: list, k: int):
        """((positions taken from body), [V = E]; the interchanged nest) for the inner loop
        body[k], or None where a premise fails."""
        inner = body[k]
        if not isinstance(inner, Node) or inner.op != "do" or inner.kids[0].op != "ident" \
                or inner.kids[4].op != "block":
            return None
        i, j = outer.kids[0].kids[0], inner.kids[0].kids[0]
        incs = [s for s in inner.kids[4].kids if not (isinstance(s, Node) and s.op in ("nop", "comment"))]
        written = self._increments(incs, i, j)
        if written is None or i == j or not self._pays(incs, i, j) or j in self.loose():
            return None
        taken = {k}
        bounds = _names(inner.kids[1:4])
        rest = [s for n, s in enumerate(body) if n != k]
        if k > 0 and _assigns_scalar(body[k - 1]) and body[k - 1].kids[0].kids[0] in bounds \
                and self.counts().get(body[k - 1].kids[0].kids[0]) == 2:
            taken.add(k - 1)   # V = E, the last index of the inner loop, goes with it
            rest = [s for n, s in enumerate(body) if n not in taken]
            bounds = bounds - {body[k - 1].kids[0].kids[0]} | _names(body[k - 1].kids[1])
        changed = _writes(rest)
        if changed is None or bounds & (changed | written | {i, j}) \
                or _names(outer.kids[1:4]) & (written | {j}):
            return None
        read = _names(tuple(incs)) - written - {i, j}
        before = tuple(s for n, s in enumerate(body) if n < k and n not in taken)
        for name in written | read & changed:
            there = references_to(tuple(rest), name)
            if there and (references_to(before, name) or _index_place(references_to(tuple(incs), name) + there, i)
                          is None):
                return None
        nest = Node("do", (inner.kids[0], *inner.kids[1:4],
                           Node("block", (outer.with_kids(*outer.kids[:4], inner.kids[4]),))), inner.ann)
        return taken, [body[n] for n in sorted(taken) if n != k] + [nest]

    @staticmethod
    def _increments(incs: list, i: str, j: str):
        """The variables the increments incs write, or None where one is no increment of
        an element on a line of the iteration space (see the premises)."""
        written, lhss = set(), {}
        for stmt in incs:
            if not isinstance(stmt, Node) or stmt.op != "assign" or any(n.op in OPAQUE for n in walk(stmt)):
                return None
            lhs, rhs = stmt.kids
            root = _root(lhs)
            if lhs.op != "arrayAccess" or lhs.kids[0].op != "ident" or _terms(lhs, rhs) is None \
                    or lhss.setdefault(root, lhs) != lhs \
                    or not any(x == Node("ident", (v,)) for x in lhs.kids[1] for v in (i, j)):
                return None
            written.add(root)
        for stmt in incs:
            lhs, rhs = stmt.kids
            if _names(_terms(lhs, rhs)) & written or _names(lhs.kids[1]) & written \
                    or any(r != lhss[_root(r)] for r in _references(stmt) if _root(r) in written):
                return None
        return written

    @staticmethod
    def _pays(incs: list, i: str, j: str) -> bool:
        def across(inside: str) -> int:
            return sum(1 for stmt in incs for r in _references(stmt)
                       if r.op == "arrayAccess" and any(inside in _names(x) for x in r.kids[1][1:]))
        return across(j) > across(i)


def _terms(lhs: Node, rhs: Node):
    """(E1, .., En) of an increment lhs = lhs ± E1 ± .. ± En (4.8's merge writes several
    increments as one), else None."""
    terms = []
    while rhs.op in ("add", "sub") and rhs != lhs:
        terms.append(rhs.kids[1])
        rhs = rhs.kids[0]
    return tuple(terms) if rhs == lhs and terms else None


def _assigns_scalar(stmt) -> bool:
    return isinstance(stmt, Node) and stmt.op == "assign" and stmt.kids[0].op == "ident"


def _writes(stmts: list):
    """The variables stmts write (assignments, pops, DO indices), or None where one of them
    is no assignment, pop, IF or DO (a jump, another call, a call in an expression)."""
    out = set()
    for stmt in stmts:
        if not _statements_ok(stmt):
            return None
        for node in walk(stmt):
            if node.op == "assign":
                out.add(_root(node.kids[0]))
            elif node.op == "do":
                out.add(node.kids[0].kids[0] if node.kids[0].op == "ident" else None)
            elif node.op == "call":
                out.add(_root(node.kids[1][0]) if node.kids[1] else None)
    return None if None in out else out


def _statements_ok(stmt) -> bool:
    """stmt holds only assignments, pops, IFs, DO loops and blocks, and calls nowhere else
    than in its pops (a pop of an array section, `popreal8array(h(1:n), n)`, is a pop)."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        if not isinstance(node, Node):
            continue
        if node.op not in STATEMENTS:
            return False
        if node.op == "call":
            if not node.kids[0].lower().startswith("pop") or any(n.op == "call" for n in walk(node.kids[1])):
                return False
        elif node.op == "block":
            stack.extend(node.kids)
        elif node.op == "if":
            if any(n.op == "call" for n in walk(node.kids[0])):
                return False
            stack.extend(k for k in node.kids[1:] if isinstance(k, Node))
        elif node.op == "do":
            if any(n.op == "call" for n in walk(node.kids[:4])):
                return False
            stack.append(node.kids[4])
        elif node.op == "assign" and any(n.op == "call" for n in walk(node)):
            return False
    return True


def _index_place(refs: list, i: str):
    """The one place where every reference of refs has index i itself, or None."""
    places = None
    for ref in refs:
        if ref.op != "arrayAccess" or ref.kids[0].op != "ident":
            return None
        here = {n for n, x in enumerate(ref.kids[1]) if x == Node("ident", (i,))}
        places = here if places is None else places & here
        if not places:
            return None
    return min(places) if places else None


def _names(tree) -> set:
    return {n.kids[0] for n in walk(tree) if n.op == "ident"}
