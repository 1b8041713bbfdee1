"""Loops that do nothing (a post-pass on each adjoint procedure, after merge.py, loop_order.py
and trip_pairs.py; reconstructed, Tapenade's adjoints have none). The loop rule keeps a
forward loop for its trip count even when its body computes and pushes nothing (fixed
bounds: A-bounds-fixed), and L-interchange leaves an empty backward loop behind the nest it
moves out. Two rewrites, bottom-up through the nests:

    L-hoist-bounds  do I ..; V = E; .. end do  →  V = E; do I ..; .. end do
                    when what is left in the loop is empty (L-drop-empty then drops it),
                    V a bound variable of the loop rule (VF, VS: ad_from, ad_stride), assigned
                    nowhere else in the loop, E an integer expression of constants and names
                    that nothing in P changes (the A-bounds-fixed premise), the statement
                    unlabelled: every trip assigns V the same value, which only the loops
                    V bounds read (set once more when the loop runs no trip: nobody's);
                    the other loops keep their bound assignments where the loop rule put them
    L-drop-empty    do I = F, T, S; {} end do  →  nothing       (C: for (I = F; C; S) {})
                    when the header calls nothing, the loop is unlabelled, and I is a local
                    of P whose value after the loop is nobody's: the next statement of its
                    block that refers to I outside the loops on I sets I without reading it,
                    or none does and the block is P's body; else (or in a procedure with
                    jumps) nothing outside the loops on I refers to I

A bound variable that nothing reads once such loops are gone is assigned for nothing: its assignments and
its declaration go too. No value that the procedure returns changes.
"""
from __future__ import annotations

from ...engine.il import EXPRESSION_OPS, Node, walk
from ...analyses.tbr_sections import invariant
from .merge import _jumps

LOOPS = frozenset(("do", "for"))
NOTHING = frozenset(("nop", "comment"))


def without_empty_loops(body: Node, ctx) -> tuple:
    """(the adjoint procedure's body (forward sweep, backward sweep) after L-hoist-bounds and
    L-drop-empty, the bound variables no longer read: their declarations go);
    ctx.bound_variables: the names of the loop rule's VF, VT, VS."""
    if not ctx.bound_variables or not _hollow_loops(body, ctx.bound_variables):
        return body, frozenset()
    rewrite = _Pass(body, ctx)
    rewritten = rewrite.block(body)
    if rewritten is body:
        return body, frozenset()
    rewrite.dead, rewrite.top = _unread(rewritten, ctx.bound_variables), rewritten
    return (rewrite.block(rewritten) if rewrite.dead else rewritten), rewrite.dead


def _hollow_loops(block: Node, bound) -> bool:
    """Whether some loop under block holds nothing but bound assignments and such loops
    (a look at the statements only, before the premises are asked)."""
    def hollow(stmts) -> bool:
        return all(type(s) is Node and (s.op in NOTHING or (s.op == "block" and hollow(s.kids))
                                        or (s.op in LOOPS and hollow(s.kids[-1].kids))
                                        or (s.op == "assign" and s.kids[0].op == "ident" and s.kids[0].kids[0] in bound))
                   for s in stmts)

    stack = [block]
    while stack:
        node = stack.pop()
        if type(node) is tuple:
            stack.extend(node)
        elif type(node) is Node and node.op not in EXPRESSION_OPS and node.op != "assign":
            if node.op in LOOPS and hollow(node.kids[-1].kids):
                return True
            stack.extend(node.kids)
    return False


def _unread(body: Node, bound) -> frozenset:
    """The bound variables that nothing in body reads (only assigned)."""
    seen, assigned = {}, {}
    for n in walk(body):
        if n.op == "ident":
            seen[n.kids[0]] = seen.get(n.kids[0], 0) + 1
        elif n.op == "assign" and n.kids[0].op == "ident" and n.kids[0].kids[0] in bound:
            assigned[n.kids[0].kids[0]] = assigned.get(n.kids[0].kids[0], 0) + 1
    return frozenset(v for v in bound if seen.get(v, 0) == assigned.get(v, 0))


class _Pass:
    def __init__(self, body: Node, ctx):
        self.ctx, self.bound = ctx, ctx.bound_variables
        self.proc = ctx.procedure.node
        self.top, self.jumps = body, _jumps(body)
        self.referred = _referred_outside_their_loops(body)
        self.dead = frozenset()   # bound variables read by nothing: their assignments go

    def block(self, block: Node) -> Node:
        out = []
        for k, stmt in enumerate(block.kids):
            if type(stmt) is not Node or stmt.op in EXPRESSION_OPS:
                out.append(stmt)
            elif stmt.op == "assign" and stmt.kids[0].op == "ident" and stmt.kids[0].kids[0] in self.dead:
                continue
            elif stmt.op in LOOPS:
                out.extend(self.loop(stmt, block.kids[k + 1:], block is self.top))
            else:
                out.append(self.inside(stmt))
        if len(out) == len(block.kids) and all(a is b for a, b in zip(out, block.kids)):
            return block
        return Node("block", tuple(out), block.ann)

    def inside(self, stmt: Node) -> Node:
        kids = tuple(self.kid(k) for k in stmt.kids)
        return stmt if all(a is b for a, b in zip(kids, stmt.kids)) else Node(stmt.op, kids, stmt.ann)

    def kid(self, kid):
        if type(kid) is tuple:
            return tuple(self.kid(k) for k in kid)
        if type(kid) is not Node or kid.op in EXPRESSION_OPS:
            return kid
        return self.block(kid) if kid.op == "block" else self.inside(kid)

    def loop(self, loop: Node, rest: tuple, top: bool) -> list:
        """[the loop], or the assignments hoisted out of it when nothing else is left in it."""
        body = self.block(loop.kids[-1])
        bounds = [s for s in body.kids if self._bound_assignment(s)]
        if self._empty(s for s in body.kids if not self._bound_assignment(s)) and self._droppable(loop, rest, top) \
                and all(self._hoistable(s, body) for s in bounds):
            return bounds
        return [loop if body is loop.kids[-1] else loop.with_kids(*loop.kids[:-1], body)]

    def _bound_assignment(self, stmt) -> bool:
        return type(stmt) is Node and stmt.op == "assign" and stmt.kids[0].op == "ident" \
            and stmt.kids[0].kids[0] in self.bound

    def _hoistable(self, stmt: Node, body: Node) -> bool:
        name = stmt.kids[0].kids[0]
        assigned = sum(1 for s in body.kids if self._bound_assignment(s) and s.kids[0].kids[0] == name)
        return assigned == 1 and stmt.ann.get("label") is None and invariant(stmt.kids[1], self.proc)

    def _unread_after(self, index: str, rest: tuple, top: bool) -> bool:
        """Nothing reads the index's value after the loop (the statements `rest` follow it in
        its block, the procedure's body when top): the next statement of the block that
        refers to it outside the loops on it sets it (a loop on it, an assignment) without
        reading it, or none does and the block ends the procedure. Otherwise (or with jumps,
        where the order of the statements is not the order they run in): it is referred to
        nowhere outside the loops on it."""
        if not self.jumps:
            for stmt in rest:
                if type(stmt) is not Node:
                    continue
                sets = _index(stmt) == index if stmt.op in LOOPS else \
                    stmt.op == "assign" and stmt.kids[0].op == "ident" and stmt.kids[0].kids[0] == index
                referred = _referred_outside_their_loops(stmt)
                if sets and index not in _referred_outside_their_loops(
                        stmt.kids[1:4] if stmt.op == "do" else stmt.kids[0].kids[1] if stmt.op == "for" else stmt.kids[1]):
                    return True
                if index in referred:
                    return False
            if top:
                return True
        return index not in self.referred

    @staticmethod
    def _empty(stmts) -> bool:
        return all(type(s) is Node and s.ann.get("label") is None
                   and (s.op in NOTHING or (s.op == "block" and _Pass._empty(s.kids))) for s in stmts)

    def _droppable(self, loop: Node, rest: tuple, top: bool) -> bool:
        index = _index(loop)
        if index is None or not self._unread_after(index, rest, top) or loop.ann.get("label") is not None \
                or any(n.op == "call" for n in walk(loop.kids[:-1])):
            return False
        sym = self.ctx.procedure.scope.lookup(index)
        if sym is None:   # an implicitly declared local
            return not self.ctx.c
        return self.ctx.procedure.scope.symbols.get(index) is sym and sym.formal is None and sym.common is None \
            and sym.init is None and not sym.attrs & {"save", "static", "result", "pointer", "target"}


def _index(loop: Node):
    """The name of a DO loop's index, or of a C for loop's when its init assigns it alone."""
    if loop.op == "do":
        return loop.kids[0].kids[0] if loop.kids[0].op == "ident" else None
    init = loop.kids[0]
    if init is not None and init.op == "assign" and init.kids[0].op == "ident":
        return init.kids[0].kids[0]
    return None


def _referred_outside_their_loops(body: Node) -> set:
    """The names referred to somewhere not inside a loop on them (its header's init
    assignment excepted): the loop indices whose value after a loop may be read."""
    referred = set()
    stack = [(body, frozenset())]
    while stack:
        node, inside = stack.pop()
        if type(node) is tuple:
            stack.extend((k, inside) for k in node)
            continue
        if type(node) is not Node:
            continue
        if node.op == "ident":
            if node.kids[0] not in inside:
                referred.add(node.kids[0])
            continue
        index = _index(node) if node.op in LOOPS else None
        if index is None:
            stack.extend((k, inside) for k in node.kids)
        elif node.op == "do":   # the bounds are evaluated before the index is set
            stack.extend((k, inside) for k in node.kids[1:4])
            stack.append((node.kids[4], inside | {index}))
        else:
            stack.append((node.kids[0].kids[1], inside))
            stack.extend((k, inside | {index}) for k in node.kids[1:])
    return referred
