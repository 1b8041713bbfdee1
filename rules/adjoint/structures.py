"""Adjoint rules for the components of structures (paper 4.2: the adjoint of a structure is a
structure of the derivative type T_diff the tangent defines, Tapenade's one type for every
mode; association by name gives a component's adjoint). The same rule serves C's `s.x` and
`p->x` (`(*p).x`) and Fortran's `s%x`: nothing in it knows the language.
"""
from __future__ import annotations

from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT


@ADJOINT.rule("A-ref-field", judgment="ref", ops=("fieldAccess",), section="4.2",
              source="reconstructed: docs/rules.md#a-ref-field",
              premises=("F no C pointer (else refused)", "REF →ref REFb"), conclusion="REF.F  →ref  REFb.F")
def a_ref_field(ref, out, ctx):
    """Reconstructed from 4.2 (association by name, the tangent's T-ref-access): the adjoint
    of a component is the same component of the adjoint, whose type is the T_diff of the
    structure's type (it keeps every component that can have an adjoint, under its own name):
    `v.y` → `vb.y`, `p->x` → `pb->x`, `s[1].y` → `sb[1].y`; a by-value struct v has the
    pointer adjoint vb (A-ref-value): `v.y` → `vb->y`."""
    base, field, base_b = var(), var(), var()
    guard = lall(eq(ref, pattern("fieldAccess", base, field)), ctx.check(ctx.component_with_adjoint, ref))
    return guard, lall(ctx.derive("ref", base, base_b), eq(out, pattern("fieldAccess", base_b, field)))


@ADJOINT.rule("A-assign-struct", judgment="adjoint", ops=("assign",), section="5.4",
              source="reconstructed: docs/rules.md#a-assign-struct",
              premises=("structure(LHS)", "isDiff(LHS)", "differentiable(LHS)", "hasDerivativeInstruction(LHS = RHS)",
                        "isActiveExpr(RHS)", "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb",
                        "RHS a reference (else refused)", "RHS →ref RHSb"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; RHSb.f = RHSb.f + LHSb.f; LHSb.f = 0 (each real f)]")
def a_assign_struct(stmt, out, ctx):
    """Reconstructed from the assignment rule of 5.4: a C struct copy `w = *s` is the
    assignment of each component at once, LHS.f = RHS.f, whose adjoint is RHSb.f += LHSb.f
    then LHSb.f = 0. C has no + of structs: the conclusion is written component by component
    (arrays by loops). The two sides are different memory (else refused), so no temporary.
    A struct-valued call on the rhs is refused (calls are not differentiated here)."""
    lhs, rhs, lhs_b, rhs_b, save, restore, instrs, source = (var() for _ in range(8))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.check(ctx.c_structure, lhs),
                 ctx.fact("has_derivative", lhs, stmt), ctx.check(ctx.differentiable_reference, lhs),
                 ctx.fact("has_derivative_instruction", stmt), ctx.fact("is_active_expr", rhs, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)),
                ctx.derive("ref", lhs, lhs_b), ctx.compute(ctx.structure_source, rhs, stmt, source),
                ctx.derive("ref", source, rhs_b),
                ctx.compute(ctx.structure_copy_adjoint, stmt, lhs_b, rhs_b, instrs),
                eq(out, pattern("block", save, pattern("block", restore, instrs))))
    return guard, body


@ADJOINT.rule("A-assign-struct-zero", judgment="adjoint", ops=("assign",), section="4.6",
              source="reconstructed: docs/rules.md#a-assign-struct",
              premises=("structure(LHS)", "isDiff(LHS)", "differentiable(LHS)",
                        "¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))",
                        "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; LHSb.f = 0 (each real f)]")
def a_assign_struct_zero(stmt, out, ctx):
    """A struct that receives a passive value: its components' adjoints are zero from here
    backwards (A-assign-zero, component by component)."""
    lhs, lhs_b, save, restore, instrs = (var() for _ in range(5))
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.check(ctx.c_structure, lhs),
                 ctx.fact("has_derivative", lhs, stmt), ctx.check(ctx.differentiable_reference, lhs),
                 ctx.check(ctx.not_differentiated, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(lambda s, b: ctx.structure_copy_adjoint(s, b, None), stmt, lhs_b, instrs),
                eq(out, pattern("block", save, pattern("block", restore, instrs))))
    return guard, body
