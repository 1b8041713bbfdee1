"""Adjoint rules for WHILE loops (paper 5.4; Tapenade's iteration counter).

A WHILE loop's trip count is known only once it has run: the forward sweep counts the trips
and pushes the count after the loop, the backward sweep pops it and runs the body's adjoint
that many times. A WHILE with jumps out of its body (EXIT, break, GOTO) is a region of the
flow-graph method instead (rules/adjoint/jumps.py).
"""
from __future__ import annotations

from ...engine.il import Node
from ...engine.kanren_il import eq, lall, member, pattern, var
from .context import INTEGER
from .jumps import decided
from .ruleset import ADJOINT

WHILES = ("while", "doWhile")

ZERO, ONE = pattern("intCst", 0, None), pattern("intCst", 1, None)


@ADJOINT.rule("A-while", judgment="adjoint", ops=("while",), section="5.4",
              source="reconstructed: docs/rules.md#a-while",
              premises=("isLiveForDiff(LOOP)", "decided(LOOP)", "structured(LOOP)", "integer →newFreeVar N",
                        "INSTRS →  [INSTRS→ ; INSTRS←]"),
              conclusion="while (C) INSTRS  →  [N = 0; while (C) {INSTRS→; N = N + 1}; push(N) ;\n"
                         "                     pop(N); while (N > 0) {INSTRS←; N = N - 1}]")
def a_while(stmt, out, ctx):
    """Section 5.4 lists the WHILE loop with the loops whose control must be replayed, and
    Tapenade pushes a WHILE's trip count after it. The backward loop needs nothing else: the
    test is not evaluated again (the values it read are gone), the count N alone says how
    many times to run INSTRS←, the last trip first. N is a fresh integer per loop, since an
    inner loop's count is popped inside the outer loop's backward trips."""
    cond, instrs, forward, backward, count = var(), var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("while", cond, instrs)), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(_decided(ctx), stmt), ctx.check(ctx.structured, stmt))
    body = lall(ctx.compute(lambda s: ctx.fresh("ad_count", INTEGER), stmt, count),
                ctx.derive("adjoint", instrs, pattern("block", forward, backward)),
                eq(out, pattern("block",
                                pattern("block", pattern("assign", count, ZERO),
                                        pattern("while", cond, _counted(forward, count, "add")),
                                        ctx.pattern_push(count)),
                                _replay(backward, count, ctx))))
    return guard, body


@ADJOINT.rule("A-do-while", judgment="adjoint", ops=("doWhile",), section="5.4",
              source="reconstructed: docs/rules.md#a-while",
              premises=("isLiveForDiff(LOOP)", "decided(LOOP)", "structured(LOOP)", "integer →newFreeVar N",
                        "INSTRS →  [INSTRS→ ; INSTRS←]"),
              conclusion="do INSTRS while (C)  →  [N = 0; do {INSTRS→; N = N + 1} while (C); push(N) ;\n"
                         "                        pop(N); while (N > 0) {INSTRS←; N = N - 1}]")
def a_do_while(stmt, out, ctx):
    """C's do-while: A-while with the test after the body (at least one trip)."""
    cond, instrs, forward, backward, count = var(), var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("doWhile", instrs, cond)), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(_decided(ctx), stmt), ctx.check(ctx.structured, stmt))
    body = lall(ctx.compute(lambda s: ctx.fresh("ad_count", INTEGER), stmt, count),
                ctx.derive("adjoint", instrs, pattern("block", forward, backward)),
                eq(out, pattern("block",
                                pattern("block", pattern("assign", count, ZERO),
                                        pattern("doWhile", _counted(forward, count, "add"), cond),
                                        ctx.pattern_push(count)),
                                _replay(backward, count, ctx))))
    return guard, body


@ADJOINT.rule("A-for-counted", judgment="adjoint", ops=("for",), section="5.4",
              source="reconstructed: docs/rules.md#a-while",
              premises=("isLiveForDiff(LOOP)", "structured(LOOP)", "¬replayableFor(LOOP)",
                        "LOOP →forParts INIT, STEP  (a missing one: CONTINUE)", "integer →newFreeVar N",
                        "INIT →  [INIT→ ; INIT←]", "INSTRS →  [INSTRS→ ; INSTRS←]", "STEP →  [STEP→ ; STEP←]"),
              conclusion="for (INIT; C; STEP) INSTRS  →\n"
                         "  [INIT→; N = 0; while (C) {INSTRS→; STEP→; N = N + 1}; push(N) ;\n"
                         "   pop(N); while (N > 0) {STEP←; INSTRS←; N = N - 1}; INIT←]")
def a_for_counted(stmt, out, ctx):
    """A C for loop whose indices the backward loop cannot replay (A-for): several indices
    (`for (i = 0, j = n - 1; i < j; i++, j--)`), a stride that is no constant, a body that
    assigns the index. It is `INIT; while (C) {INSTRS; STEP}`, and A-while counts its trips:
    INIT and STEP are statements of their own in the flow graph, differentiated by the
    assignment rules (what STEP overwrites and a derivative reads is pushed, TBR)."""
    cond, instrs, init, step, count = var(), var(), var(), var(), var()
    init_f, init_b, forward, backward, step_f, step_b = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern("for", var(), cond, var(), instrs)), ctx.fact("is_live_for_diff", stmt),
                 ctx.check(ctx.structured, stmt), ctx.check(ctx.counted_for, stmt))
    body = lall(ctx.compute(lambda s: _for_parts(ctx, s), stmt, (init, step)),
                ctx.compute(lambda s: ctx.fresh("ad_count", INTEGER), stmt, count),
                ctx.derive("adjoint", init, pattern("block", init_f, init_b)),
                ctx.derive("adjoint", instrs, pattern("block", forward, backward)),
                ctx.derive("adjoint", step, pattern("block", step_f, step_b)),
                eq(out, pattern("block",
                                pattern("block", init_f, pattern("assign", count, ZERO),
                                        pattern("while", cond, _counted(pattern("block", forward, step_f), count, "add")),
                                        ctx.pattern_push(count)),
                                pattern("block", _replay(pattern("block", step_b, backward), count, ctx), init_b))))
    return guard, body


def _for_parts(ctx, loop: Node) -> tuple:
    """(INIT, STEP) of a counted for loop, CONTINUE for a missing one. Its test is evaluated
    in the forward sweep only: it must be live for diff (decided), and call no function of
    the program actively (refused: the calls of INIT and STEP outside a block too, which
    no A-seq hoists)."""
    init, cond, step, _ = loop.kids
    if cond is None or not decided(ctx, loop):
        ctx.refuse(loop, "a for loop without a test, or whose test the derivatives do not need")
    for part in (init, step):
        if part is not None and part.op != "block" and ctx.has_hoisted_calls(part):
            ctx.refuse(loop, "an active function call in a for loop's init or step")
    nop = Node("nop", (), loop.ann)
    return init if init is not None else nop, step if step is not None else nop


@ADJOINT.rule("A-while-undecided", judgment="adjoint", ops=WHILES, section="4.9",
              source="reconstructed: docs/rules.md#a-while",
              premises=("isLiveForDiff(LOOP)", "undecided(LOOP)", "structured(LOOP)"),
              conclusion="LOOP  →  [{} ; {}]")
def a_while_undecided(stmt, out, ctx):
    """A loop that is live for diff only for the derivative resets under it, while
    diff-liveness finds its test useless: nothing the derivatives read depends on how many
    times it runs, and the forward sweep no longer computes what its test reads. Both
    sweeps drop it, like a dead control (A-control-dead). A loop that a jump leaves is the
    flow-graph method's (A-flow-graph), which skips a test it finds useless."""
    op = var()
    return lall(eq(stmt, pattern(op, rest=var())), member(op, WHILES), ctx.fact("is_live_for_diff", stmt),
                ctx.check(_undecided(ctx), stmt), ctx.check(ctx.structured, stmt)), \
        eq(out, pattern("block", pattern("block"), pattern("block")))


def _decided(ctx):
    def decided_(s):
        return decided(ctx, s)
    decided_.__name__ = "decided"
    return decided_


def _undecided(ctx):
    def undecided(s):
        return not decided(ctx, s)
    return undecided


def _counted(instrs, count, op):
    return pattern("block", instrs, pattern("assign", count, pattern(op, count, ONE)))


def _replay(backward, count, ctx):
    return pattern("block", ctx.pattern_pop(count),
                   pattern("while", pattern("gt", count, ZERO), _counted(backward, count, "sub")))
