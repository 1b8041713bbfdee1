"""Trips in pairs in the backward sweep (issue 16; reconstructed, not in the paper): a post-pass
on the backward sweep of each C adjoint procedure, after the rewrites of 4.8 (merge.py),
switched off by `-nooptim trippairs`.

A loop whose trips are independent (A-trips-fused) runs, in its backward loop, each trip
forward then backward: a long chain of dependent operations (the primal values, then their
adjoints from the last back to the first), where the primal loop's trips, short, overlap
in the processor. Two trips of the backward loop run side by side, statement by statement,
overlap the same way:

    J-pair   for (I = T; I >= F; I = I - S) {B1; ..; Bn}
         →   for (I = T; I - S >= F; I = I - S - S) {B1; B1'; ..; Bn; Bn'}
             if (I >= F) {B1; ..; Bn; I = I - S}

(`<=` and `+` for a negative stride) where Bk' is Bk of the trip I - S with its own
variables. The premises: B1..Bn are assignments (no call), at least PAIRED of them; I is
not assigned; each scalar they assign is either

- private to the trip: a local of the procedure (declared in its body, not static, not an
  array, not a pointer; a temporary of the adjoint is one) that nothing outside the loop
  refers to and whose first reference in the trip is an assignment that does not read it:
  Bk' has a fresh variable of its type in its place, so the trip I - S reads what it wrote
  itself; or
- a sum: `R = R ± E`, R's variable referred to only by such statements of R (element
  or not) with E reading no sum's variable;

and at least one is private (a trip with values of its own: otherwise there is no chain).
Then the two trips of a pair touch distinct variables except for their sums, which commute:
the adjoint is the same up to the order of the additions into a sum (R̄ += of two trips in
the other order: the last bits of X̄ may differ). Fortran is left as it is (a DO loop's
stride is a variable there), as is a procedure where memory may have two names
(merge._has_aliases: a C pointer assigned in the body).
"""
from __future__ import annotations

from ...engine.il import Node, substituted, walk
from .loop_order import _terms
from .merge import _has_aliases, _indices, _root

PAIRED = 8   # the fewest statements in a trip worth pairing (a short trip has no long chain)
_STEPS = {("ge", "sub"), ("le", "add")}


def paired(block: Node, forward: Node, ctx) -> Node:
    """The backward sweep `block` of ctx.procedure after J-pair (see above); forward: the
    forward sweep (flattened), where C declares the locals."""
    if not ctx.c or "trippairs" in ctx.facts.results.nooptim or not any(n.op == "for" for n in walk(block)) \
            or _has_aliases(ctx):
        return block
    return _Pairs(block, forward, ctx).block(block)


class _Pairs:
    def __init__(self, sweep: Node, forward: Node, ctx):
        self.ctx = ctx
        self.types = {}   # local scalar -> its type
        for stmt in forward.kids:
            if isinstance(stmt, Node) and stmt.op == "varDecl" and not {"static", "extern"} & set(stmt.kids[1]):
                for d in stmt.kids[2]:
                    if d.kids[1] is None and not d.kids[3]:
                        self.types[d.kids[0]] = stmt.kids[0]
        for name, typ, dims in ctx.extra_declarations:
            if not dims:
                self.types[name] = typ
        self.counts = _counts((forward, sweep))

    def block(self, block: Node) -> Node:
        out = []
        for stmt in block.kids:
            if isinstance(stmt, Node) and stmt.op in ("if", "for", "do", "while", "doWhile"):
                stmt = stmt.with_kids(*(self.block(k) if isinstance(k, Node) and k.op == "block" else k
                                        for k in stmt.kids))
                if stmt.op == "for":
                    out.extend(self.pair(stmt))
                    continue
            out.append(stmt)
        return Node("block", tuple(out), block.ann)

    def pair(self, loop: Node) -> tuple:
        """(the paired loop, the last trip) for the backward loop `loop`, or (loop,)."""
        init, cond, step, body = loop.kids
        if init is None or init.op != "assign" or init.kids[0].op != "ident" or cond is None or step is None:
            return (loop,)
        index = init.kids[0]
        if cond.op not in ("ge", "le") or cond.kids[0] != index or step.op != "assign" or step.kids[0] != index \
                or (cond.op, step.kids[1].op) not in _STEPS or step.kids[1].kids[0] != index \
                or step.kids[1].kids[1].op != "intCst":
            return (loop,)
        stmts = [s for s in body.kids if not (isinstance(s, Node) and s.op in ("nop", "comment"))]
        private = self._private(stmts, index.kids[0])
        if private is None:
            return (loop,)
        previous = step.kids[1]   # I - S: the other trip of the pair
        other = {name: self.ctx.fresh(name, self.types[name]) for name in sorted(private)}
        other[index.kids[0]] = previous
        twins = [s for stmt in stmts for s in (stmt, substituted(stmt, other))]
        pairs = Node("for", (init, substituted(cond, {index.kids[0]: previous}),
                             Node("assign", (index, substituted(previous, {index.kids[0]: previous}))),
                             Node("block", tuple(twins), body.ann)), loop.ann)
        last = Node("if", (cond, Node("block", tuple(stmts) + (step,), body.ann), None), loop.ann)
        return pairs, last

    def _private(self, stmts: list, index: str):
        """The private scalars of the trip stmts (see above), or None where a premise fails."""
        if len(stmts) < PAIRED or any(not isinstance(s, Node) or s.op != "assign"
                                      or any(n.op == "call" for n in walk(s)) for s in stmts):
            return None
        inside = _counts(tuple(stmts))
        private, sums, seen = set(), {}, set()
        for stmt in stmts:
            lhs, rhs = stmt.kids
            reads = set(_counts((rhs, tuple(_indices(lhs)))))
            name = lhs.kids[0] if lhs.op == "ident" else None
            if name is not None and name not in seen and name not in reads and name in self.types \
                    and self.counts[name] == inside[name]:
                private.add(name)
            elif name is None or name not in private:
                terms = _terms(lhs, rhs)
                if terms is None or _root(lhs) is None:
                    return None
                sums.setdefault(_root(lhs), []).append((stmt, terms))
            seen |= reads | set(_counts(lhs))
        if not private or index in private or index in sums or set(sums) & private:
            return None
        for root, incs in sums.items():
            if sum(_counts(stmt).get(root, 0) for stmt, _ in incs) != inside[root] \
                    or any(set(_counts((terms, tuple(_indices(stmt.kids[0]))))) & set(sums) for stmt, terms in incs):
                return None
        return private


def _counts(tree) -> dict:
    out = {}
    for node in walk(tree):
        if node.op == "ident":
            out[node.kids[0]] = out.get(node.kids[0], 0) + 1
    return out
