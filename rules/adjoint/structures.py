"""Adjoints of Fortran derived types (paper 4.2; TAPENADE.md: the T_DIFF type of the tangent
serves the adjoint too, as in Tapenade 3.x). A component's adjoint is the same component of
the adjoint, `p%x` → `pb%x`, `ps(i)%w(2)` → `psb(i)%w(2)`: association by name, as for
arrays. The rule is written for any language; C's structures are C data's part of the
work, and stay refused by A-ref-refuse until it lifts the guard."""
from __future__ import annotations

from ...engine.il import Node, walk
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT


@ADJOINT.rule("A-ref-field", judgment="ref", ops=("fieldAccess",), section="4.2",
              source="reconstructed: docs/rules.md#a-ref",
              premises=("fortranStructure(REF%F)", "REF →ref REFb"), conclusion="REF%F  →ref  REFb%F")
def a_ref_field(ref, out, ctx):
    base, field, base_b = var(), var(), var()
    guard = lall(eq(ref, pattern("fieldAccess", base, field)), ctx.check(ctx.fortran_structure, ref))
    return guard, lall(ctx.derive("ref", base, base_b), eq(out, pattern("fieldAccess", base_b, field)))


@ADJOINT.rule("A-assign-component", judgment="adjoint", ops=("assign",), section="4.2",
              source="reconstructed: docs/rules.md#a-ref",
              premises=("isDiff(LHS)", "¬differentiableType(LHS)", "LHS = RHS →record [SAVE ; RESTORE]"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE]")
def a_assign_component(stmt, out, ctx):
    """`p%tag = n`: the structure has an adjoint, this component none (T_DIFF keeps only the
    real components): only the trajectory."""
    lhs = var()
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(ctx.not_differentiable_type, lhs))
    return guard, ctx.derive("record", stmt, out)


class StructureAdjoints:
    """Mixed into AdjointContext before TangentContext (needs type_of_ref, lang, refuse)."""

    def fortran_structure(self, ref: Node) -> bool:
        return self.lang == "fortran"

    def not_fortran_structure(self, ref: Node) -> bool:
        return not self.fortran_structure(ref)

    def element_type(self, ref: Node) -> Node | None:
        """A component's own type (`p%x`, `p%w(2)` are real(8) where p is type(point))."""
        if self.lang == "fortran" and self.procedure is not None and _component(ref):
            typ = self.type_of_ref(ref)[0]
            return typ if typ is not None and typ.op == "type" else None
        return super().element_type(ref)

    def refuse_structure_copies(self, proc) -> None:
        """`q = p` of whole structures with adjoints: their adjoints add component by
        component (no + on derived types); refused at its line for now."""
        if self.lang != "fortran" or proc.node.kids[7] is None:
            return
        diff = self.facts.diff_variables(proc.name)
        for stmt in walk(proc.node.kids[7]):
            if isinstance(stmt, Node) and stmt.op == "assign" and self.whole_structure(stmt.kids[0]):
                root = stmt.kids[0]
                while root.op != "ident":
                    root = root.kids[0]
                if root.kids[0] in diff:
                    self.refuse(stmt, "assigning a whole structure with an adjoint")

    def differentiable_type(self, ref: Node) -> bool:
        """Not a component of a type with no adjoint (integer, logical, character)."""
        if not self.whole_component(ref):
            return True
        typ = self.type_of_ref(ref)[0]
        return typ is None or typ.op == "typeRef" or (typ.op == "type" and typ.kids[0] in ("real", "complex"))

    def not_differentiable_type(self, ref: Node) -> bool:
        return not self.differentiable_type(ref)

    def whole_component(self, ref: Node) -> bool:
        """A Fortran component reference: its rank is its component's (p%w is an array)."""
        return self.lang == "fortran" and self.procedure is not None and _component(ref)

    def whole_structure(self, ref: Node) -> bool:
        """ref is a whole structure (its adjoint has components, not one value)."""
        if self.lang != "fortran" or self.procedure is None:
            return False
        typ = self.type_of_ref(ref)[0]
        return typ is not None and typ.op == "typeRef"


def _component(ref: Node) -> bool:
    while ref.op == "arrayAccess":
        ref = ref.kids[0]
    return ref.op == "fieldAccess"
