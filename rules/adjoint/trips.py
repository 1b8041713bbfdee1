"""Where a loop's trips go in its adjoint (judgment `trips`): the loop rules of 5.4 run the
forward trips in the forward sweep and the backward trips in the backward sweep
(A-trips-stored); a loop whose trips are independent but for sum reductions
(analyses/independent_trips.py) runs each trip forward then backward in the backward loop
(A-trips-fused), so the values of a trip need no push. A DO or for loop, with the two sweeps
of its body, maps to [the forward loop's body ; the backward loop's body].
"""
from __future__ import annotations

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
              premises=("independentTrips(LOOP)",),
              conclusion="LOOP, INSTRS→, INSTRS←  →trips  [{} ; INSTRS→; INSTRS←]")
def a_trips_fused(stmt, out, ctx, forward, backward):
    """Reconstructed from the loop rule of 5.4 and the joint mode of 5.4 applied to one trip.
    When no variable written by one trip is read by another, except sum reductions
    `R = R + E` whose adjoint reads only Rb, and the values a trip writes are dead after
    the loop, the trips commute with each other's adjoints: the backward loop can run trip
    i forward (INSTRS→) just before its adjoint (INSTRS←). Every value INSTRS← reads is then
    the one its trip wrote last, or one the loop does not write, which is what the pops of
    A-record restored; the statements of the body push nothing (Facts.is_restored), and the
    forward loop runs no trip (the reductions are not live for diff, the trip's values
    dead), keeping only its bounds for the backward loop."""
    op = var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, LOOPS), ctx.check(_trips(ctx, True), stmt))
    return guard, eq(out, pattern("block", pattern("block"), pattern("block", forward, backward)))


def _trips(ctx, wanted: bool):
    def independent_trips(loop):
        return ctx.facts.independent_trips(loop) == wanted
    independent_trips.__name__ = "independent_trips" if wanted else "dependent_trips"
    return independent_trips
