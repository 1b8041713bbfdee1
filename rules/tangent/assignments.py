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

from ...engine.il import Node
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import TANGENT


@TANGENT.rule("T-assign-diff", judgment="tangent", ops=("assign",), section="5.3",
              source="reconstructed: docs/rules.md#t-assign",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "LHS →ref LHSd",
                        "RHS →expr RHSd"),
              conclusion="LHS = RHS  →  LHSd = RHSd ; LHS = RHS")
def t_assign_diff(stmt, out, ctx):
    """The derivative instruction goes just before the assignment, so that it reads the
    values from before it (4.4). A derivative instruction `LHSd = LHSd` does nothing and is
    left out."""
    lhs, rhs, lhs_d, rhs_d = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt))
    body = lall(ctx.derive("ref", lhs, lhs_d), ctx.derive("expr", rhs, rhs_d, stmt),
                ctx.compute(lambda d, v, s: _derivative_then_copy(ctx, s, d, v), lhs_d, rhs_d, stmt, out))
    return guard, body


@TANGENT.rule("T-assign-zero", judgment="tangent", ops=("assign",), section="4.6",
              source="reconstructed: docs/rules.md#t-assign",
              premises=("¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))", "¬isDiffPointer(LHS)",
                        "isDiff(LHS)", "derivativeReadLater(LHS)", "LHS →ref LHSd"),
              conclusion="LHS = RHS  →  LHSd = 0 ; LHS = RHS")
def t_assign_zero(stmt, out, ctx):
    """LHS receives a value with a zero derivative. Its derivative may stay implicit zero
    (4.6) unless it is read later: by a derivative instruction once LHS is active again
    (perhaps after a merge of control flow), or by the caller (fig. 9: `ed = 0.0`). Fortran
    has no zero of a derived type: a structure's derivative is reset component by component
    (`vd%x = 0.0d0`), over a loop of its elements for an array of structures with array
    components (Fortran allows one part with a rank in a reference)."""
    lhs, rhs, lhs_d = var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.check(ctx.not_differentiated, stmt),
                 ctx.check(ctx.not_derivative_pointer_assignment, stmt),
                 ctx.fact("has_derivative", lhs, stmt), ctx.fact("derivative_read_later", lhs, stmt))
    body = lall(ctx.derive("ref", lhs, lhs_d),
                ctx.compute(lambda d, s: _zero_then_copy(ctx, s, d), lhs_d, stmt, out))
    return guard, body


@TANGENT.rule("T-assign-copy", judgment="tangent", ops=("assign",), section="5.3",
              source="reconstructed: docs/rules.md#t-assign",
              premises=("¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))", "¬isDiffPointer(LHS)",
                        "¬(isDiff(LHS) ∧ derivativeReadLater(LHS))"),
              conclusion="LHS = RHS  →  LHS = RHS")
def t_assign_copy(stmt, out, ctx):
    """No derivative instruction: the derivative of LHS is zero and never read, or not
    needed (partial evaluation and slicing by activity, 4.6)."""
    guard = lall(eq(stmt, pattern("assign", var(), var())), ctx.check(ctx.not_differentiated, stmt),
                 ctx.check(ctx.not_derivative_pointer_assignment, stmt), ctx.check(ctx.derivative_unread, stmt))
    return guard, eq(out, pattern("block", stmt))


@TANGENT.rule("T-assign-pointer", judgment="tangent", ops=("assign",), section="4.2",
              source="reconstructed: docs/rules.md#t-assign",
              premises=("isDiffPointer(P)", "P →ref Pd", "E →pointerValue Ed"),
              conclusion="P = E  →  Pd = Ed ; P = E   (C pointers: p = &a[k] → pd = &ad[k])")
def t_assign_pointer(stmt, out, ctx):
    """A C pointer with a derivative pointer (it may point to active memory) moves with it:
    association by name (4.2) makes pd point to the derivative of what p points to, so
    `*pd` is the derivative of `*p` wherever p goes (p = x + k, p++, p = &s.f)."""
    lhs, rhs, lhs_d, rhs_d = var(), var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.check(ctx.derivative_pointer_assignment, stmt))
    body = lall(ctx.derive("ref", lhs, lhs_d), ctx.compute(ctx.pointer_value_derivative, rhs, stmt, rhs_d),
                ctx.compute(lambda d, v, s: _derivative_then_copy(ctx, s, d, v), lhs_d, rhs_d, stmt, out))
    return guard, body


def _derivative_then_copy(ctx, stmt: Node, lhs_d: Node, value: Node) -> Node:
    """LHSd = VALUE before the copy of stmt (left out when it is LHSd = LHSd), after the
    differentiated calls split out of stmt and the C math calls both make (computed once)."""
    value = ctx.with_results(value)
    primal = ctx.primal(stmt)
    temporaries, value, copy = ctx.shared_calls(value, primal[-1], stmt)
    derivative = (Node("assign", (lhs_d, value), ctx.derivative_ann(stmt)),) if value != lhs_d else ()
    return Node("block", primal[:-1] + temporaries + derivative + (copy,))


def _zero_then_copy(ctx, stmt: Node, lhs_d: Node) -> Node:
    """LHSd = 0 (component by component for a structure) before the copy of stmt."""
    primal = ctx.primal(stmt)
    return Node("block", primal[:-1] + ctx.zero_assignments(lhs_d, stmt.kids[0], ctx.derivative_ann(stmt))
                + primal[-1:])
