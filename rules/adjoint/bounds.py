"""The bounds of a loop in its adjoint (judgment `bounds`): the loop rule of 5.4 pushes the last
index value, the first value and the stride after the forward loop and pops them before the
backward loop (A-bounds-saved). Where the bounds are fixed for the whole procedure and the
stride is 1 or -1, the backward loop computes its first index from the bounds instead
(A-bounds-fixed): no push and no pop each time an inner loop runs. A DO or for loop, with the
values the loop rule pushes and the variables it pops them into (the last index's first),
maps to [the pushes ; the pops].
"""
from __future__ import annotations

from ...analyses.tbr_sections import invariant, unit_stride
from ...engine.il import Node
from ...engine.kanren_il import eq, lall, member, pattern, var
from .context import _constant_stride
from .ruleset import ADJOINT

LOOPS = ("do", "for")
_LAST = {("lt", 1): ("sub", 1), ("le", 1): None, ("gt", -1): ("add", 1), ("ge", -1): None}


@ADJOINT.rule("A-bounds-saved", judgment="bounds", ops=LOOPS, section="5.4", source="verbatim",
              premises=("¬fixedBounds(LOOP)",),
              conclusion="LOOP, (P1..Pn), (V1..Vn)  →bounds  [push(P1); ..; push(Pn) ; pop(Vn); ..; pop(V1)]")
def a_bounds_saved(stmt, out, ctx, values, variables):
    """The loop rule as printed: the bounds the forward loop ran are saved for the backward."""
    op, pushes, pops = var(), var(), var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, LOOPS), ctx.check(_fixed(ctx, False), stmt))
    body = lall(ctx.compute(lambda vs: tuple(ctx.pattern_push(v) for v in vs), values, pushes),
                ctx.compute(lambda vs: tuple(ctx.pattern_pop(v) for v in reversed(vs)), variables, pops),
                eq(out, pattern("block", pattern("block", rest=pushes), pattern("block", rest=pops))))
    return guard, body


@ADJOINT.rule("A-bounds-fixed", judgment="bounds", ops=LOOPS, section="5.4",
              source="reconstructed: docs/rules.md#a-bounds-fixed",
              premises=("fixedBounds(LOOP)", "LOOP →lastIndex L"),
              conclusion="LOOP, (P1..Pn), (V1..Vn)  →bounds  [{} ; V1 = L]")
def a_bounds_fixed(stmt, out, ctx, values, variables):
    """Reconstructed from the loop rule of 5.4, whose pushes give the backward loop the
    iterations the forward loop ran. When F and T are integer constants or names that no
    statement of the procedure assigns (no call in it, no address taken), and the stride
    is 1 or -1 (and the procedure is not called split: its caller could change the bounds
    between the two sweeps), the forward loop ran F, F ± 1, .., up to the last value L = T (DO; C: T - 1
    for `<`, T + 1 for `>`, T for `<=`, `>=`), none if L is beyond F's side: the backward
    loop from L back to VF (VF = F and the stride were assigned before the forward loop and
    are the same at every run) runs the same iterations, zero where the forward ran none."""
    op, last, first = var(), var(), var()
    guard = lall(eq(stmt, pattern(op, rest=var())), member(op, LOOPS), ctx.check(_fixed(ctx, True), stmt))
    body = lall(ctx.compute(lambda s: last_index(s, ctx.procedure.node), stmt, last),
                ctx.compute(lambda vs: vs[0], variables, first),
                eq(out, pattern("block", pattern("block"), pattern("block", pattern("assign", first, last)))))
    return guard, body


def _fixed(ctx, wanted: bool):
    def fixed_bounds(loop):
        fixed = not ctx.facts.is_called_split(ctx.facts.procedure_of(loop)) \
            and last_index(loop, ctx.procedure.node) is not None
        return fixed == wanted
    fixed_bounds.__name__ = "fixed_bounds" if wanted else "saved_bounds"
    return fixed_bounds


def last_index(loop: Node, proc: Node):
    """The last index value of a loop with bounds fixed in the procedure proc and a unit
    stride (see A-bounds-fixed), else None."""
    if loop.op == "do":
        if unit_stride(loop) is None or not all(invariant(b, proc) for b in loop.kids[1:3]):
            return None
        return loop.kids[2]
    init, cond, step, _ = loop.kids
    if init is None or init.op != "assign" or cond is None or not cond.kids or cond.kids[0] != init.kids[0]:
        return None
    shape = (cond.op, _constant_stride(step, init.kids[0]))
    if shape not in _LAST or not invariant(init.kids[1], proc) or not invariant(cond.kids[1], proc):
        return None
    change, bound = _LAST[shape], cond.kids[1]
    return bound if change is None else Node(change[0], (bound, Node("intCst", (change[1], None))))
