"""Arrays pushed whole: the section a DO loop overwrites, saved once around the loop instead of
one element per iteration (issue 16; reconstructed, Tapenade saves array statements this way).

A-record pushes the value an assignment I: A(f(i)) = E overwrites at every trip of its loop
L and pops it at every backward trip. When the values are wanted only outside L, the same
values can be pushed as one section before L and popped after L's backward loop, which is
one call instead of one per element, and a copy the compiler vectorizes. The section is
exact when

- I is a statement of the body of L (not nested deeper), L's stride is the constant 1 or -1;
- A(f(i)) has one index i + c (or i, c + i, i - c) in L's index i, the other indices and c
  are integer constants or names that nothing in the procedure assigns (so they have the
  same value before L, and after its backward loop), and the procedure is not called split
  (its caller could change them between its forward and backward sweeps: Facts);
- L's body is assignments only, with no function call, and none but I refers to A (E
  included): no other write of A, and no jump, so L runs all of its trips (a loop left by a
  jump is the flow-graph method's, rules/adjoint/jumps.py); no name in the body is a
  POINTER, a TARGET or in an EQUIVALENCE (another name of A's memory; Facts).

Then trip i overwrites A(i + c) and nothing else does, so the elements from F + c to the
last index + c (downwards for stride -1) hold, before L, exactly the values the per-element
pushes would save; and since no statement of L's body reads A, no derivative instruction
of the body reads them either: restoring them all after the backward loop, instead of one
at each backward trip, gives the code before L the same values. Fortran only (C pointers
may reach one array under two names).
"""
from __future__ import annotations

from ..engine.il import Node, walk

_PLAIN = frozenset(("assign", "nop", "comment"))   # a body of these: no jump, no hidden write


def overwritten_section(stmt: Node, parents: dict, body: Node):
    """(loop, offset c, position of the loop index among the indices) when the loop around
    stmt overwrites an exact section of stmt's lhs array (see above), else None."""
    place = parents.get(id(stmt))
    if stmt.op != "assign" or place is None or place[2] is None or place[2].op != "do":
        return None
    loop = place[2]
    lhs = stmt.kids[0]
    if lhs.op != "arrayAccess" or lhs.kids[0].op != "ident" or unit_stride(loop) is None:
        return None
    index = loop.kids[0].kids[0] if loop.kids[0].op == "ident" else None
    found = [(k, _offset(x, index)) for k, x in enumerate(lhs.kids[1]) if _names(x) & {index}]
    if len(found) != 1 or found[0][1] is None:
        return None
    position, offset = found[0]
    others = [x for k, x in enumerate(lhs.kids[1]) if k != position] + [offset]
    if not all(invariant(x, body) for x in others):
        return None
    array = lhs.kids[0].kids[0]
    for other in loop.kids[4].kids:
        if not isinstance(other, Node) or other.op not in _PLAIN or any(n.op == "call" for n in walk(other)):
            return None
        if other is not stmt and array in _names(other):
            return None
    return None if array in _names(stmt.kids[1]) else (loop, offset, position)


def unit_stride(loop: Node):
    """1 or -1 for a DO whose stride is that constant (none is 1), else None."""
    step = loop.kids[3]
    if step is None:
        return 1
    if step.op == "neg" and step.kids[0].op == "intCst":
        step = Node("intCst", (-step.kids[0].kids[0], None))
    return step.kids[0] if step.op == "intCst" and step.kids[0] in (1, -1) else None


def _offset(expr: Node, index: str):
    """c of an index i, i + c, c + i or i - c (c free of i): a Node, or None."""
    if expr.op == "ident" and expr.kids[0] == index:
        return Node("intCst", (0, None))
    if expr.op in ("add", "sub") and expr.kids[0] == Node("ident", (index,)) and index not in _names(expr.kids[1]):
        return expr.kids[1] if expr.op == "add" else Node("neg", (expr.kids[1],))
    if expr.op == "add" and expr.kids[1] == Node("ident", (index,)) and index not in _names(expr.kids[0]):
        return expr.kids[0]
    return None


def invariant(expr: Node, body: Node) -> bool:
    """An integer expression of constants and of names that nothing in body changes."""
    if any(n.op not in ("intCst", "ident", "add", "sub", "neg", "mul") for n in walk(expr)):
        return False
    return unassigned(_names(expr), body)


def unassigned(names: set, body: Node) -> bool:
    """Nothing in body (a procedure or its statements) may change the variables names: no
    assignment, DO index, call, I/O, EQUIVALENCE, or address taken."""
    if not names:
        return True
    for n in walk(body):
        if n.op in ("call", "io", "equivalence") or n.op in ("assign", "do", "address") and _root(n.kids[0]) in names:
            return False
    return True


def _names(tree) -> set:
    return {n.kids[0] for n in walk(tree) if n.op == "ident"}


def _root(ref):
    while isinstance(ref, Node) and ref.op in ("arrayAccess", "fieldAccess"):
        ref = ref.kids[0]
    return ref.kids[0] if isinstance(ref, Node) and ref.op == "ident" else None
