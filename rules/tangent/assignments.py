"""Tangent rules for assignments (paper 5.3, the four cases; 4.3, 4.4, 4.6).

The derivative instruction goes just before a copy of the assignment (4.4), so that it reads
the values from before the assignment. Whether there is a derivative instruction is the
analyses' decision (the assignment writes a variable that is useful after it and varied
around it, fig. 9): an active right-hand side gives `LHSd = RHSd`, a passive one resets
the derivative, `LHSd = 0` (fig. 9, `ed = 0.0`). Otherwise the assignment is only copied:
its derivative is null or not needed (partial evaluation and slicing, 4.6).

The tangent procedure computes the original results as well as the derivatives (4.5), so the
copy of the assignment stays even when it is not live for diff; diff-liveness tells which
controls may hold derivative code (rules/tangent/control.py).
"""
from __future__ import annotations

from kanren import eq, lall, var

from ...engine.il import Node
from ...engine.kanren_il import pattern
from .ruleset import TANGENT


@TANGENT.rule("T-assign-diff", judgment="tangent", ops=("assign",), section="5.3",
              source="reconstructed: docs/rules.md#t-assign",
              premises=("hasDerivativeInstruction(LHS = RHS)", "LHS →ref LHSd", "RHS →expr RHSd"),
              conclusion="LHS = RHS  →  LHSd = RHSd ; LHS = RHS")
def t_assign_diff(stmt, out, ctx):
    lhs, rhs, lhs_d, rhs_d = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt))
    body = lall(ctx.derive("ref", lhs, lhs_d), ctx.derive("expr", rhs, rhs_d, stmt),
                ctx.compute(lambda d, v, s: Node("block", (Node("assign", (d, v if v is not None else ctx.zero_like(s.kids[0])),
                                                                         ctx.derivative_ann(s)), s)),
                            lhs_d, rhs_d, stmt, out))
    return guard, body


@TANGENT.rule("T-assign-reset", judgment="tangent", ops=("assign",), section="4.6",
              source="reconstructed: docs/rules.md#t-assign",
              premises=("¬hasDerivativeInstruction(LHS = RHS)", "isDiff(LHS)", "mayBeVariedLater(LHS)",
                        "LHS →ref LHSd"),
              conclusion="LHS = RHS  →  LHSd = 0 ; LHS = RHS")
def t_assign_reset(stmt, out, ctx):
    """The assignment leaves LHS passive (its derivative is zero) but LHS may be varied again
    later: a merge of control flow could then read the stale derivative, so it is reset
    here (the paper's implicit-zero variables are reset before such merges, 4.6)."""
    lhs, rhs, lhs_d = var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.no_fact("has_derivative_instruction", stmt),
                 ctx.fact("has_derivative", lhs, stmt), ctx.fact("may_be_varied_later", lhs, stmt))
    body = lall(ctx.derive("ref", lhs, lhs_d),
                ctx.compute(lambda d, s: Node("block", (Node("assign", (d, ctx.zero_like(s.kids[0])),
                                                             ctx.derivative_ann(s)), s)),
                            lhs_d, stmt, out))
    return guard, body


@TANGENT.rule("T-assign-copy", judgment="tangent", ops=("assign",), section="5.3",
              source="reconstructed: docs/rules.md#t-assign",
              premises=("¬hasDerivativeInstruction(LHS = RHS)", "¬(isDiff(LHS) ∧ mayBeVariedLater(LHS))"),
              conclusion="LHS = RHS  →  LHS = RHS")
def t_assign_copy(stmt, out, ctx):
    lhs, rhs = var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.no_fact("has_derivative_instruction", stmt),
                 ctx.check(lambda l, s: not (ctx.facts.has_derivative(l, s) and ctx.facts.may_be_varied_later(l, s)),
                           lhs, stmt))
    return guard, eq(out, pattern("block", stmt))
