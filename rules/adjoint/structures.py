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
              premises=("REF →ref REFb",), conclusion="REF.F  →ref  REFb.F")
def a_ref_field(ref, out, ctx):
    """The adjoint of a component is the same component of the adjoint, whose type is the
    T_diff of the structure's type (it has every component with an adjoint, under its own
    name): `v.y` → `vb.y`, `p->x` → `pb->x`, `s[1].y` → `sb[1].y`; a by-value struct v
    has the pointer adjoint vb (A-ref-value): `v.y` → `vb->y`."""
    base, field, base_b = var(), var(), var()
    guard = eq(ref, pattern("fieldAccess", base, field))
    return guard, lall(ctx.derive("ref", base, base_b), eq(out, pattern("fieldAccess", base_b, field)))
