"""Where a loop's trips go in its adjoint (judgment `trips`): the loop rules of 5.4 run the
forward trips in the forward sweep and the backward trips in the backward sweep
(A-trips-stored); a loop whose trips are independent but for sum reductions
(analyses/independent_trips.py) runs each trip forward then backward in the backward loop
(A-trips-fused), so the values of a trip need no push. A DO or for loop, with the two sweeps
of its body, maps to [the forward loop's body ; the backward loop's body].
"""
from __future__ import annotations

from collections import Counter

from ...engine.il import Node, walk, walk_statements
from ...engine.kanren_il import eq, lall, member, pattern, var
from .ruleset import ADJOINT

LOOPS = ("do", "for")


@ADJOINT.rule("A-trips-stored", judgment="trips", ops=LOOPS, section="5.4", source="verbatim",
              premises=("¬independentTrips(LOOP)",),
              conclusion="LOOP, INSTRS→, INSTRS←  →trips  [INSTRS→ ; INSTRS←]")
def a_trips_stored(stmt, out, ctx, forward, backward):
    """The loop rule as printed: what a trip overwrites and a derivative reads is pushed by
    the trip's statements, in the forward sweep."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, LOOPS), ctx.check(_trips(ctx, False), stmt))
    return guard, eq(out, pattern("block", forward, backward))


@ADJOINT.rule("A-trips-fused", judgment="trips", ops=LOOPS, section="5.4",
              source="reconstructed: docs/rules.md#a-trips-fused",
              premises=("independentTrips(LOOP)", "INSTRS→, INSTRS← →tripValues INSTRS←'"),
              conclusion="LOOP, INSTRS→, INSTRS←  →trips  [{} ; INSTRS→; INSTRS←']")
def a_trips_fused(stmt, out, ctx, forward, backward):
    """Reconstructed from the loop rule of 5.4 and the joint mode of 5.4 applied to one trip.
    When no variable written by one trip is read by another, except sum reductions
    `R = R + E` whose adjoint reads only Rb, and the values a trip writes are dead after
    the loop, the trips commute with each other's adjoints: the backward loop can run trip
    i forward (INSTRS→) just before its adjoint (INSTRS←). Every value INSTRS← reads is then
    the one its trip wrote last, or one the loop does not write, which is what the pops of
    A-record restored; the statements of the body push nothing (Facts.is_restored), and the
    forward loop runs no trip (the reductions are not live for diff, the trip's values
    dead), keeping only its bounds for the backward loop. The partials that INSTRS←
    recomputes from the trip's values (`sin(theta)` where `st = sin(theta)` ran) read the
    variable that holds them instead (INSTRS←')."""
    op, reused = var(), var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, LOOPS), ctx.check(_trips(ctx, True), stmt))
    body = lall(ctx.compute(trip_values, forward, backward, reused),
                eq(out, pattern("block", pattern("block"), pattern("block", forward, reused))))
    return guard, body


def _trips(ctx, wanted: bool):
    def independent_trips(loop):
        return ctx.facts.independent_trips(loop) == wanted
    independent_trips.__name__ = "independent_trips" if wanted else "dependent_trips"
    return independent_trips


def trip_values(forward: Node, backward: Node) -> Node:
    """backward with each right-hand side's sub-expression E replaced by V where forward ran
    `V = E` and nothing assigns V or what E reads afterwards (in forward or backward): V
    holds E's value all through backward."""
    ahead = [n for n in walk_statements(forward) if n.op == "assign"]
    later = Counter(_root(n.kids[0]) for n in ahead)
    later.update(_root(n.kids[0]) for n in walk_statements(backward) if n.op == "assign")
    known = {}
    for stmt in ahead:
        lhs, rhs = stmt.kids
        later[_root(lhs)] -= 1
        changed = any(later[n.kids[0]] for n in walk(stmt) if n.op == "ident")
        if lhs.op == "ident" and rhs.op not in _LEAVES and not changed:
            known.setdefault(rhs, lhs)
    return _replaced(backward, known) if known else backward


_LEAVES = frozenset(("ident", "intCst", "realCst", "boolCst"))


def _root(ref: Node):
    while ref.op in ("arrayAccess", "fieldAccess", "deref"):
        ref = ref.kids[0]
    return ref.kids[0] if ref.op == "ident" else None


def _replaced(tree, known: dict, rhs: bool = False):
    """tree with the sub-expressions of assignments' right-hand sides in known replaced."""
    if isinstance(tree, tuple):
        return tuple(_replaced(k, known, rhs) for k in tree)
    if not isinstance(tree, Node):
        return tree
    hit = known.get(tree) if rhs else None
    if hit is not None:
        return hit
    if tree.op == "assign":
        return Node("assign", (tree.kids[0], _replaced(tree.kids[1], known, True)), tree.ann)
    return Node(tree.op, tuple(_replaced(k, known, rhs) for k in tree.kids), tree.ann)
