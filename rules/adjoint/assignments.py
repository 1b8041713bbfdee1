"""Adjoint rules for assignments (paper 5.4, the four cases of the tangent; 4.4, 4.6, 4.9).

The forward sweep keeps the assignment where it is diff-live (slicing, 4.9), after pushing
the values RVARS = out(I) ∩ (TBR⁻(I) ∪ use(I')) that it overwrites and a derivative
instruction reads (judgment `record`). The backward sweep pops them first, so that the
partial derivatives read the values from before the assignment, then propagates the adjoint
of the assigned value into the active leaves of the right-hand side and resets the lhs
adjoint: the value it held is consumed.
"""
from __future__ import annotations

from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT

EMPTY = pattern("block")


@ADJOINT.rule("A-assign-active", judgment="adjoint", ops=("assign",), section="5.4", source="verbatim",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "scalar(LHS)",
                        "¬mayAlias(LHS, RHS)", "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb",
                        "RHS, LHSb →adjexpr INSTRS"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; INSTRS; LHSb = 0]")
def a_assign_active(stmt, out, ctx):
    """The paper introduces a temporary V for the adjoint of every assignment, for possible
    aliasing between the lhs and the rhs, and says it is spared where the question is
    decided statically: here the lhs's variable does not appear in the rhs at all, so no leaf
    of the rhs is the lhs, and the increments read LHSb directly before it is reset."""
    lhs, rhs, lhs_b, instrs, save, restore, zero = (var() for _ in range(7))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt), ctx.check(ctx.scalar_reference, lhs),
                 ctx.check(ctx.no_alias, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)),
                ctx.derive("ref", lhs, lhs_b), ctx.derive("adjexpr", rhs, instrs, lhs_b, stmt),
                ctx.compute(ctx.zero_like, lhs, zero),
                eq(out, pattern("block", save, pattern("block", restore, instrs, pattern("assign", lhs_b, zero)))))
    return guard, body


@ADJOINT.rule("A-assign-alias", judgment="adjoint", ops=("assign",), section="5.4", source="verbatim",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "scalar(LHS)",
                        "mayAlias(LHS, RHS) ∧ ¬selfReference(LHS, RHS)", "LHS = RHS →record [SAVE ; RESTORE]",
                        "LHS →ref LHSb", "real →newFreeVar V", "RHS, V →adjexpr INSTRS"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; V = LHSb; LHSb = 0; INSTRS]")
def a_assign_alias(stmt, out, ctx):
    """The paper's rule with its temporary V: the lhs's variable appears in the rhs as an
    element that may be the lhs or not (`a(i) = 2*a(j)`, i = j or not): LHSb is moved to V
    and reset before the increments, which may add to it."""
    lhs, rhs, lhs_b, instrs, save, restore, temp, zero = (var() for _ in range(8))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt), ctx.check(ctx.scalar_reference, lhs),
                 ctx.check(ctx.possible_alias, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)),
                ctx.derive("ref", lhs, lhs_b), ctx.compute(ctx.adjoint_temporary, lhs, temp),
                ctx.derive("adjexpr", rhs, instrs, temp, stmt), ctx.compute(ctx.zero_like, lhs, zero),
                eq(out, pattern("block", save, pattern("block", restore, pattern("assign", temp, lhs_b),
                                                       pattern("assign", lhs_b, zero), instrs))))
    return guard, body


@ADJOINT.rule("A-assign-self", judgment="adjoint", ops=("assign",), section="5.4",
              source="reconstructed: docs/rules.md#a-assign",
              premises=("hasDerivativeInstruction(LHS = RHS)", "isActiveExpr(RHS)", "scalar(LHS)",
                        "selfReference(LHS, RHS)", "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb",
                        "RHS, LHSb →adjexpr INSTRS"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; INSTRS(other leaves); LHSb = Σ INSTRS(LHS leaves)]")
def a_assign_self(stmt, out, ctx):
    """The iterative assignment (`c = c*a`, `x = x*x + y`, fig. 7): the lhs appears in the
    rhs only as itself, so the aliasing is decided and V is spared, as 5.4 allows. The
    increments of the other leaves read LHSb first; then LHSb becomes what the lhs's own
    occurrences receive (fig. 7: `ab = ab + c*cb; cb = a*cb`)."""
    lhs, rhs, lhs_b, instrs, save, restore, zero, update = (var() for _ in range(8))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative_instruction", stmt),
                 ctx.fact("is_active_expr", rhs, stmt), ctx.check(ctx.scalar_reference, lhs),
                 ctx.check(ctx.self_reference, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)),
                ctx.derive("ref", lhs, lhs_b), ctx.derive("adjexpr", rhs, instrs, lhs_b, stmt),
                ctx.compute(ctx.zero_like, lhs, zero), ctx.compute(ctx.self_update, instrs, lhs_b, zero, update),
                eq(out, pattern("block", save, pattern("block", restore, update))))
    return guard, body


@ADJOINT.rule("A-assign-zero", judgment="adjoint", ops=("assign",), section="4.6",
              source="reconstructed: docs/rules.md#a-assign",
              premises=("¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))", "¬isDiffPointer(LHS)",
                        "isDiff(LHS)", "differentiableType(LHS)", "differentiable(LHS)", "¬structure(LHS)",
                        "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; LHSb = 0]")
def a_assign_zero(stmt, out, ctx):
    """LHS gets a value with a zero derivative: the adjoint of what it held before is zero
    from here backwards (the tangent's `LHSd = 0`, transposed)."""
    lhs, lhs_b, save, restore, zero = (var() for _ in range(5))
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.check(ctx.not_differentiated, stmt),
                 ctx.check(ctx.not_derivative_pointer_assignment, stmt), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(ctx.differentiable_type, lhs), ctx.check(ctx.differentiable_reference, lhs),
                 ctx.check(ctx.not_c_structure, lhs))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.zero_like, lhs, zero),
                eq(out, pattern("block", save, pattern("block", restore, pattern("assign", lhs_b, zero)))))
    return guard, body


@ADJOINT.rule("A-assign-passive", judgment="adjoint", ops=("assign",), section="5.4", source="verbatim",
              premises=("¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))", "¬isDiffPointer(LHS)",
                        "¬(isDiff(LHS) ∧ differentiable(LHS))", "LHS = RHS →record [SAVE ; RESTORE]"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE]")
def a_assign_passive(stmt, out, ctx):
    """No adjoint: only the trajectory (an index, a passive value the partials read, an
    integer component of an active structure)."""
    lhs = var()
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.check(ctx.not_differentiated, stmt),
                 ctx.check(ctx.not_derivative_pointer_assignment, stmt), ctx.check(ctx.no_adjoint, lhs, stmt))
    return guard, ctx.derive("record", stmt, out)


# --- record: the trajectory ------------------------------------------------------------------
@ADJOINT.rule("A-record", judgment="record", ops=("assign",), section="5.4", source="verbatim",
              premises=("isLiveForDiff(I)", "RVARS(I) ≠ ∅"),
              conclusion="LHS = RHS  →record  [push(LHS); LHS = RHS ; pop(LHS)]")
def a_record(stmt, out, ctx):
    """RVARS of an assignment is its lhs or nothing (out(I) is the lhs)."""
    lhs, push, pop = var(), var(), var()
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.fact("is_live_for_diff", stmt),
                 ctx.fact("is_restored", stmt))
    body = lall(ctx.compute(ctx.push, lhs, push), ctx.compute(ctx.pop, lhs, pop),
                eq(out, pattern("block", pattern("block", push, stmt), pattern("block", pop))))
    return guard, body


@ADJOINT.rule("A-record-copy", judgment="record", ops=("assign",), section="5.4", source="verbatim",
              premises=("isLiveForDiff(I)", "RVARS(I) = ∅"),
              conclusion="LHS = RHS  →record  [LHS = RHS ; {}]")
def a_record_copy(stmt, out, ctx):
    guard = lall(eq(stmt, pattern("assign", var(), var())), ctx.fact("is_live_for_diff", stmt),
                 ctx.no_fact("is_restored", stmt))
    return guard, eq(out, pattern("block", pattern("block", stmt), EMPTY))


@ADJOINT.rule("A-record-dead", judgment="record", ops=("assign",), section="4.9", source="verbatim",
              premises=("¬isLiveForDiff(I)",), conclusion="LHS = RHS  →record  [{} ; {}]")
def a_record_dead(stmt, out, ctx):
    """Diff-liveness slicing (4.9): the value is needed by no derivative; the forward sweep
    drops the assignment, and so its push and pop."""
    guard = lall(eq(stmt, pattern("assign", var(), var())), ctx.no_fact("is_live_for_diff", stmt))
    return guard, eq(out, pattern("block", EMPTY, EMPTY))
