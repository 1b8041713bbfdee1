"""Arrays pushed whole around a DO loop (issue 16; analyses/tbr_sections.py proves the section).

A loop `do i = F, T; A(i + c) = E; ...` that overwrites values a derivative instruction
before it reads saves them as the one section A(F+c:T+c) before the loop and restores it
after the backward loop, instead of a push and a pop per trip (A-record). Judgment
`sections`: a DO loop and its saved bounds VF, VT map to [the pushes ; the pops], empty for
a loop that saves no section.
"""
from __future__ import annotations

from ...analyses.tbr_sections import unit_stride
from ...engine.il import Node
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT

EMPTY = pattern("block")
LOOP = pattern("do", var(), var(), var(), var(), var())


@ADJOINT.rule("A-sections", judgment="sections", ops=("do",), section="5.4",
              source="reconstructed: docs/rules.md#a-sections",
              premises=("sectionsSaved(LOOP) ≠ ∅", "LOOP, VF, VT →overwritten A1(S1→), A1(S1←) .. An(Sn→), An(Sn←)"),
              conclusion="LOOP, VF, VT  →sections  [push(A1(S1→)); ..; push(An(Sn→)) ; pop(An(Sn←)); ..; pop(A1(S1←))]")
def a_sections(stmt, out, ctx, first, last):
    """Reconstructed from A-record (5.4) gathered over the trips, as Tapenade saves an array
    statement. When analyses/tbr_sections.py proves that trip i of the loop overwrites
    A(i + c) and nothing else in the body refers to A, the trips' RVARS together are the
    section from VF + c to T + c, which one push saves before the loop (Si→). No derivative
    instruction of the body reads A, so the backward trips need none of these values: one
    pop after the backward loop, bounded by the popped last index VT (Si←), gives the code
    before the loop what the per-trip pops gave it."""
    pushes, pops = var(), var()
    guard = lall(eq(stmt, LOOP), ctx.check(_saves(ctx, True), stmt))
    body = lall(ctx.compute(lambda s, f, t: overwritten(ctx, s, f, t), stmt, first, last, (pushes, pops)),
                eq(out, pattern("block", pattern("block", rest=pushes), pattern("block", rest=pops))))
    return guard, body


@ADJOINT.rule("A-sections-none", judgment="sections", ops=("do",), section="5.4",
              source="reconstructed: docs/rules.md#a-sections",
              premises=("sectionsSaved(LOOP) = ∅",), conclusion="LOOP, VF, VT  →sections  [{} ; {}]")
def a_sections_none(stmt, out, ctx, first, last):
    """Every value the loop saves is saved by its statements (A-record), if any."""
    return lall(eq(stmt, LOOP), ctx.check(_saves(ctx, False), stmt)), eq(out, pattern("block", EMPTY, EMPTY))


def _saves(ctx, wanted: bool):
    def sections_saved(loop):
        return bool(ctx.facts.saved_sections(loop)) == wanted
    sections_saved.__name__ = "sections_saved" if wanted else "no_sections_saved"
    return sections_saved


def overwritten(ctx, loop: Node, first: Node, last: Node) -> tuple:
    """(the pushes before the loop, the pops after the backward loop) of its saved sections,
    the pops in the reverse order."""
    down = unit_stride(loop) == -1
    pushes, pops = [], []
    for lhs, offset, position in ctx.facts.saved_sections(loop):
        forward, backward = (loop.kids[2], first), (last, first)
        if not down:
            forward, backward = forward[::-1], backward[::-1]
        pushes.append(ctx.push(_section(lhs, offset, position, *forward)))
        pops.insert(0, ctx.pop(_section(lhs, offset, position, *backward)))
    return tuple(pushes), tuple(pops)


def _section(lhs: Node, offset: Node, position: int, lo: Node, hi: Node) -> Node:
    def shifted(bound):
        return bound if offset == Node("intCst", (0, None)) else Node("add", (bound, offset))
    indices = list(lhs.kids[1])
    indices[position] = Node("arrayTriplet", (shifted(lo), shifted(hi), None))
    return Node("arrayAccess", (lhs.kids[0], tuple(indices)))
