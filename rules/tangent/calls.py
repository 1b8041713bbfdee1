"""Tangent rules for procedure calls (paper 5.3, 4.5 and fig. 8).

An active call to a differentiated procedure P becomes a call to P_D, each argument followed
by its derivative when P_D expects one for that formal (generalization: one P_D for the
envelope of all active calls). When this call's actual has no derivative, a dummy derivative
initialized to zero is passed (fig. 8). A passive call stays a call to P.
"""
from __future__ import annotations

from ...engine.il import Node
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import TANGENT


@TANGENT.rule("T-call-passive", judgment="tangent", ops=("call",), section="5.3",
              source="reconstructed: docs/rules.md#t-call",
              premises=("¬isActiveCall(CALL)", "CALL →resets V  (the variables CALL overwrites whose derivative is read later)"),
              conclusion="call P(ARGS)  →  call P(ARGS) ; Vd = 0")
def t_call_passive(stmt, out, ctx):
    """What a call that is not active writes has a zero derivative (nothing varied reaches
    it); a derivative read later is reset after the call (4.6, as `ed = 0.0` after an
    assignment in fig. 9), so it does not keep the value from before the call. A variable the
    call may overwrite only in part is refused."""
    guard = lall(eq(stmt, pattern("call", var(), var())), ctx.no_fact("is_active_call", stmt))
    return guard, ctx.compute(lambda s: ctx.passive_call(s), stmt, out)


@TANGENT.rule("T-call-active", judgment="tangent", ops=("call",), section="5.3",
              source="reconstructed: docs/rules.md#t-call",
              premises=("isActiveCall(CALL)", "P →procName Pd", "ARGS →args ARGSd  (dummy zero derivatives)"),
              conclusion="call P(ARGS)  →  DUMMIES = 0 ; call Pd(ARGSd)")
def t_call_active(stmt, out, ctx):
    name, args, args_d = var(), var(), var()
    guard = lall(eq(stmt, pattern("call", name, args)), ctx.fact("is_active_call", stmt))
    body = lall(ctx.compute(lambda s: ctx.call_arguments(s), stmt, args_d),
                ctx.compute(lambda s, parts: _call_block(s, parts, ctx), stmt, args_d, out))
    return guard, body


def _call_block(stmt: Node, parts, ctx) -> Node:
    before, actuals = parts
    # P_D is called by its own name: the generic name P was reached by has no derivative
    call = Node("call", (ctx.names.proc(stmt.kids[0]), tuple(actuals) + ctx.discarded_result(stmt)),
                stmt.ann.discard("generic"))
    return Node("block", ctx.take_pending() + tuple(before) + (call,))
