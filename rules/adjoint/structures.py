"""Adjoints of structures (paper 4.2; TAPENADE.md: the T_diff type of the tangent serves the
adjoint too, as in Tapenade 3.x). A component's adjoint is the same component of the adjoint,
`p%x` → `pb%x`, `ps(i)%w(2)` → `psb(i)%w(2)`, C's `p->x` → `pb->x`: association by name, as
for arrays (A-ref-field, for both languages). A whole-structure copy is the assignment rule
component by component: Fortran's (A-assign-struct) also pushes the integer components, C's
(A-assign-c-struct) has no aliasing temporary (its two sides are different memory)."""
from __future__ import annotations

from ...engine.il import EMPTY_ANN, Node, walk, walk_statements
from ...engine.kanren_il import eq, lall, pattern, var
from .ruleset import ADJOINT


@ADJOINT.rule("A-ref-field", judgment="ref", ops=("fieldAccess",), section="4.2",
              source="reconstructed: docs/rules.md#a-ref-field",
              premises=("componentWithAdjoint(REF.F)  (a C pointer one: set with the primal's, else refused)",
                        "REF →ref REFb"), conclusion="REF.F  →ref  REFb.F")
def a_ref_field(ref, out, ctx):
    """Reconstructed from 4.2 (association by name, the tangent's T-ref-access): the adjoint
    of a component is the same component of the adjoint, whose type is the T_diff of the
    structure's type (it keeps every component that can have an adjoint, under its own name):
    `v.y` → `vb.y`, `p->x` → `pb->x`, `s[1].y` → `sb[1].y`; a by-value struct v has the
    pointer adjoint vb (A-ref-value): `v.y` → `vb->y`. A C pointer component (`r->data`)
    has one where something sets it with the primal's: the function's callocs, the callees
    that allocate through the structure, or the caller, for a formal's (Tapenade's diff
    mem management: its adjoint structure comes with rb->data pointing to the adjoints)."""
    base, field, base_b = var(), var(), var()
    guard = lall(eq(ref, pattern("fieldAccess", base, field)), ctx.check(ctx.component_with_adjoint, ref))
    return guard, lall(ctx.derive("ref", base, base_b), eq(out, pattern("fieldAccess", base_b, field)))


@ADJOINT.rule("A-assign-struct", judgment="adjoint", ops=("assign",), section="4.2",
              source="reconstructed: docs/rules.md#a-ref",
              premises=("isDiff(LHS)", "wholeStructure(LHS)", "LHS = RHS →record [SAVE ; RESTORE]",
                        "LHS →ref LHSb", "RHS →varName RHSb?"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; RHSb%Fi = RHSb%Fi + LHSb%Fi (each Fi)?; LHSb%Fi = 0 (each Fi)]")
def a_assign_struct(stmt, out, ctx):
    """`q = p` of whole structures: Fortran has no + on derived types, so the adjoint is
    the assignment rule component by component, over the components of T_DIFF (the real
    ones); the rhs's adjoint gets them when the rhs is active. Its save is component by
    component too (the integer ones with the real ones)."""
    lhs, rhs, lhs_b, save, restore, instrs = (var() for _ in range(6))
    guard = lall(eq(stmt, pattern("assign", lhs, rhs)), ctx.fact("has_derivative", lhs, stmt),
                 ctx.check(ctx.whole_structure, lhs))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(ctx.structure_copy_adjoint, stmt, lhs_b, instrs),
                eq(out, pattern("block", save, pattern("block", restore, instrs))))
    return guard, body


@ADJOINT.rule("A-assign-c-struct", judgment="adjoint", ops=("assign",), section="5.4",
              source="reconstructed: docs/rules.md#a-assign-struct",
              premises=("structure(LHS)", "isDiff(LHS)", "differentiable(LHS)", "hasDerivativeInstruction(LHS = RHS)",
                        "isActiveExpr(RHS)", "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb",
                        "RHS →structureSource SOURCE", "SOURCE →ref RHSb"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; RHSb.f = RHSb.f + LHSb.f; LHSb.f = 0 (each real f)]")
def a_assign_c_struct(stmt, out, ctx):
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
                ctx.compute(ctx.c_structure_copy_adjoint, stmt, lhs_b, rhs_b, instrs),
                eq(out, pattern("block", save, pattern("block", restore, instrs))))
    return guard, body


@ADJOINT.rule("A-assign-c-struct-zero", judgment="adjoint", ops=("assign",), section="4.6",
              source="reconstructed: docs/rules.md#a-assign-struct",
              premises=("structure(LHS)", "isDiff(LHS)", "differentiable(LHS)",
                        "¬(hasDerivativeInstruction(LHS = RHS) ∧ isActiveExpr(RHS))",
                        "LHS = RHS →record [SAVE ; RESTORE]", "LHS →ref LHSb"),
              conclusion="LHS = RHS  →  [SAVE ; RESTORE; LHSb.f = 0 (each real f)]")
def a_assign_c_struct_zero(stmt, out, ctx):
    """A struct that receives a passive value: its components' adjoints are zero from here
    backwards (A-assign-zero, component by component)."""
    lhs, lhs_b, save, restore, instrs = (var() for _ in range(5))
    guard = lall(eq(stmt, pattern("assign", lhs, var())), ctx.check(ctx.c_structure, lhs),
                 ctx.fact("has_derivative", lhs, stmt), ctx.check(ctx.differentiable_reference, lhs),
                 ctx.check(ctx.not_differentiated, stmt))
    body = lall(ctx.derive("record", stmt, pattern("block", save, restore)), ctx.derive("ref", lhs, lhs_b),
                ctx.compute(lambda s, b: ctx.c_structure_copy_adjoint(s, b, None), stmt, lhs_b, instrs),
                eq(out, pattern("block", save, pattern("block", restore, instrs))))
    return guard, body


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
        """`qs = ps` of arrays of structures with adjoints, or a structure copy whose sides
        may be one structure (`ps(i) = ps(j)`): refused at their line for now."""
        if self.lang != "fortran" or proc.node.kids[7] is None:
            return
        diff = self.facts.diff_variables(proc.name)
        for stmt in walk_statements(proc.node.kids[7]):
            if stmt.op == "assign" and self.whole_structure(stmt.kids[0]) \
                    and _root(stmt.kids[0]) in diff:
                lhs, rhs = stmt.kids
                if self.type_of_ref(lhs)[1] or (_root(rhs) == _root(lhs) and rhs != lhs):
                    self.refuse(stmt, "assigning a whole array of structures, or structures that may overlap")

    def structure_copy_adjoint(self, stmt: Node, lhs_b: Node) -> Node:
        """RHSb%F = RHSb%F + LHSb%F for each component F with an adjoint (rhs active), then
        LHSb%F = 0: the paths are those of the zeroing of LHSb (rules/tangent/types.py)."""
        lhs, rhs = stmt.kids
        zeros = self.zero_assignments(lhs_b, lhs, EMPTY_ANN)
        if any(z.op != "assign" for z in zeros):
            self.refuse(stmt, "assigning a structure with arrays of structures inside")
        if rhs == lhs:
            return Node("block", ())
        out = []
        if self.facts.has_derivative_instruction(stmt) and self.facts.is_active_expr(rhs, stmt):
            if rhs.op == "call" and self.is_hoisted(rhs):   # its value is in a temporary (A-hoist)
                rhs_b = self.temp_adjoint(rhs)
            elif rhs.op not in ("ident", "arrayAccess", "fieldAccess"):
                self.refuse(stmt, "assigning a structure computed by a function call")
            else:
                rhs_b = self.ruleset.apply("ref", rhs, self)[0]
            for z in zeros:
                part = _rerooted(z.kids[0], lhs_b, rhs_b)
                out.append(Node("assign", (part, Node("add", (part, z.kids[0])))))
        return Node("block", tuple(out) + tuple(zeros))

    def structure_stack(self, ref: Node, typ, verb: str) -> Node:
        """push / pop of a whole structure: of each component with a number (real, integer),
        pops in the reverse order."""
        parts = self._leaves(ref)
        calls = [(self.push if verb == "push" else self.pop)(p) for p in parts]
        return Node("block", tuple(calls if verb == "push" else reversed(calls)))

    def _leaves(self, ref: Node) -> list:
        typ, _ = self.type_of_ref(ref)
        if typ is None or typ.op != "typeRef":
            return [ref]
        found = self.types.type_def(self.procedure.scope, typ.kids[0])
        out = []
        for field in found[1].kids[1] if found is not None else ():
            for d in field.kids[2] if field.op == "varDecl" else ():
                if field.kids[0].op == "typeRef" and d.kids[1] is not None:
                    self.refuse(ref, "saving a structure with arrays of structures inside")
                if field.kids[0].op == "typeRef" or (field.kids[0].op == "type"
                                                     and field.kids[0].kids[0] in ("real", "integer")):
                    out.extend(self._leaves(Node("fieldAccess", (ref, d.kids[0]))))
        return out

    def differentiable_type(self, ref: Node) -> bool:
        """Not a component of a type with no adjoint (integer, logical, character), nor a
        whole structure (A-assign-struct)."""
        if self.whole_structure(ref):
            return False
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

    def not_whole_structure(self, ref: Node) -> bool:
        return not self.whole_structure(ref)


def _component(ref: Node) -> bool:
    while ref.op == "arrayAccess":
        ref = ref.kids[0]
    return ref.op == "fieldAccess"


def _root(ref: Node) -> str | None:
    while ref.op in ("arrayAccess", "fieldAccess"):
        ref = ref.kids[0]
    return ref.kids[0] if ref.op == "ident" else None


def _rerooted(part: Node, old: Node, new: Node) -> Node:
    """part (a component of old: old%x%y) as the same component of new."""
    if part == old:
        return new
    return part.with_kids(_rerooted(part.kids[0], old, new), *part.kids[1:])
